#pragma once

// Internal to core/migration: the node metrics behind preflights and operation plans.

#include "core/client/node_client.h"
#include "core/map/shard_map.h"
#include "core/migration/migration_requests.h"
#include "core/placement/allocator.h"
#include "core/plan/planner.h"
#include "core/util/clock.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace shardmap::core {

Result<MapSnapshot> readMapSnapshot(MetadataStore& store);
inline Error refusal(std::string message)
{
    return makeError(ErrorCode::FailedPrecondition, std::move(message));
}
inline Error unknownId(const std::string& what, const std::string& id)
{
    return makeError(ErrorCode::NotFound, "no " + what + " " + id + " in the shard map");
}
// The map-only half of preflightMigration: everything but disk and load, without asking nodes.
Status preflightMap(const MapSnapshot& map, const std::string& spaceId, const std::string& targetShard,
    const std::string& ownMigration = {});
// Why a shard cannot receive spaces (not active, node missing or retired); ok when it can.
Status checkTargetShard(const MapSnapshot& map, const ShardRecord& target);

struct SpaceSize {
    std::uint64_t docs = 0;
    std::uint64_t bytes = 0;
};

// What the nodes of one map snapshot report, read lazily: one metrics call per node (with
// per-space numbers) however many spaces and shards a plan looks at. Unreachable nodes stay
// unknown; nothing here fails.
class FleetFacts {
public:
    FleetFacts(const MapSnapshot& map, NodeClientPool& nodes);

    const NodeMetricsValue* nodeMetrics(const std::string& nodeId);
    // The shard's entry in its node's metrics; nullptr when the node did not answer or the
    // shard is unhealthy or unknown there.
    const ShardMetricsValue* shardMetrics(const std::string& shardId);
    // From the owner shard's per-space metrics, else from the node's space stats; zero when
    // neither answers.
    SpaceSize spaceSize(const SpaceRecord& space);
    // The exact sizes of many spaces of one shard in one call to its node (empty when it does
    // not answer).
    std::map<std::string, SpaceSize> spaceSizes(const std::string& shardId, const std::vector<std::string>& spaces);
    // The target's side from its node's metrics; the target may be a shard about to be created
    // (its load then stays unknown).
    PreflightFacts preflightFacts(const SpaceSize& space, const ShardRecord& target);
    // Loads of the shards a space may be placed on: on a known, not retired node and not in
    // `excluded`. Docs and bytes come from the metrics, space counts from the map.
    std::vector<ShardLoad> shardLoads(const std::set<std::string>& excluded);

private:
    const MapSnapshot& m_map;
    NodeClientPool& m_nodes;
    std::map<std::string, std::optional<NodeMetricsValue>> m_metrics;
};

// The planner's input from the map and the nodes' metrics (one call per node).
PlannerInput gatherPlannerInput(const MapSnapshot& map, FleetFacts& facts);

} // namespace shardmap::core
