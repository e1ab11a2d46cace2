#pragma once

// Where the copies of a shard may be (issue 30), the one rule the CLI, the Admin API and the
// console ask before placing a replica or changing a replication factor: no two copies on one
// node, none on a retired or lost node, and where zones are set, none in the zone of another copy
// unless the shard allows it. Each refusal says why, with the numbers:
//
//   if (auto status = checkCopyPlacement(map, *shard, "n3"); !status)
//       return status.error(); // "node n3 is in zone eu-1, as the copy on n1 is; ..."

#include "core/map/shard_map.h"

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace shardmap::core {

// The longest zone label (free text, shown in tables).
inline constexpr std::size_t kMaxZoneLength = 64;

// A zone label: at most kMaxZoneLength bytes, no control characters (empty: no zone).
Status validateZone(std::string_view zone);

// The nodes a retire-node operation is emptying (queuing or running): they take no new copy, and
// the copies they hold are made again elsewhere before the node is retired.
std::set<std::string> nodesBeingRetired(const MapSnapshot& map);

// The shards, not retired, with a replica on the node: what a retire-node waits to see made again
// elsewhere (by the executor's re-replication) and taken off the node before the node retires.
std::vector<const ShardRecord*> replicasToMoveOff(const MapSnapshot& map, const std::string& nodeId);

// Whether the node may hold a new copy of the shard: it exists, is neither retired, being retired
// nor lost, holds
// no copy of the shard yet (the primary's own node included), and, where zones are set and the
// shard does not allow copies to share one, is in no zone another live copy is in.
Status checkCopyPlacement(const MapSnapshot& map, const ShardRecord& shard, const std::string& nodeId);

// How many copies the fleet can hold apart: nodes neither retired nor lost, or, when copies may not
// share a zone, distinct zones among them (a node with no zone counts as one of its own).
std::size_t copyRoom(const MapSnapshot& map, bool allowSameZone);

// Whether a shard can want `factor` copies (0: the fleet's): at least 1 and no more than
// copyRoom(map, shard.allowSameZone).
Status checkShardReplicationFactor(const MapSnapshot& map, const ShardRecord& shard, std::uint32_t factor);

// Whether the fleet's replication settings can be kept: the default factor within copyRoom (copies
// of a shard not allowing a shared zone), and a majority quorum only for a factor of 3 or more.
Status checkFleetReplication(const MapSnapshot& map, std::uint32_t factor, WriteQuorum quorum);

} // namespace shardmap::core
