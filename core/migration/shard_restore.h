#pragma once

// A shard, or a whole fleet, brought back from a snapshot (issue 32): the snapshot's file put on a
// node as the shard (RestoreShard, hash checked by the node) and the map told. For a shard whose
// every copy is lost, not for one that serves: a live space comes back with `restore space`
// (restore_requests.h), through the migration machinery.

#include "core/client/node_client.h"
#include "core/map/map_editor.h"
#include "core/map/shard_map.h"
#include "core/snapshot/snapshot_records.h"
#include "core/store/metadata_store.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace shardmap::core {

// What a restored shard holds of one space the map puts on it, against what the map says now.
struct RestoredSpace {
    std::string space;
    // In the snapshot's file (false: it came to the shard after the snapshot and comes back empty).
    bool inSnapshot = false;
    std::uint64_t docsThen = 0;
};

struct ShardRestoreRequest {
    std::string snapshot;
    std::string shard;
    // The node the shard goes to: in the map, not lost or retired, holding no copy of it.
    std::string node;
};

struct ShardRestorePreview {
    std::string snapshot;
    std::int64_t takenUnixMs = 0;
    std::string shard;
    std::string fromNode;
    std::string intoNode;
    std::vector<RestoredSpace> spaces;
    // Spaces the file holds that the map has put on other shards since: not restored (their rows
    // are removed from the restored file).
    std::vector<std::string> movedAway;

    // "shard s1 from snapshot snap-... onto n2: 3 spaces as they were then (writes after the
    // snapshot are lost), 1 that came after it comes back empty (t9)".
    std::string sentence() const;
};

// Every copy of the shard is on a node marked lost or gone from the map: the shards `restore
// shard` takes (the console lists them, the request refuses the others).
bool everyCopyLost(const MapSnapshot& map, const ShardRecord& shard);

// Puts a snapshot's file on a node as its shard and gives each owned space (id -> epoch) the
// owner's role there; each fenced one (spaces of the file the map has put elsewhere) is fenced at
// its epoch and its rows deleted. One place for `restore shard` and `restore fleet`.
Status installShardFile(NodeClient& client, const std::string& repository, const ShardFileEntry& file,
    const std::map<std::string, std::uint64_t>& owned, const std::map<std::string, std::uint64_t>& fenced);

// restore shard: refused (FailedPrecondition) unless every copy of the shard is on a node marked
// lost (or gone from the map) and none of its spaces migrates; NotFound for an unknown snapshot,
// shard or node. apply: the file installed on the node, then one commit ("restore-shard") that
// makes the node the shard's primary (its lost copies dropped) and moves every space's epoch on.
Result<ShardRestorePreview> previewShardRestore(MetadataStore& store, const ShardRestoreRequest& request);
Result<ShardRestorePreview> restoreShard(
    MetadataStore& store, NodeClientPool& nodes, const ShardRestoreRequest& request, const Actor& actor);

// restore fleet: the snapshot's map written into an empty store with each node at its new
// address (every node that holds a shard file needs one), copies and migrations left out (the
// executor restores copies to the replication factor), then every shard's file installed on its
// node. Refused when the store already holds a node or a shard. Returns the shards restored.
struct FleetRestoreRequest {
    std::string repository;
    std::string snapshot;
    // Old node id -> its new address.
    std::map<std::string, std::string> addresses;
};
Result<std::vector<std::string>> restoreFleet(
    MetadataStore& store, NodeClientPool& nodes, const FleetRestoreRequest& request, const Actor& actor);

} // namespace shardmap::core
