// FleetFacts' implementation: each node's metrics read once and kept, and the space sizes,
// preflight facts, shard loads and planner input made from them.
#include "core/migration/fleet_facts.h"

#include "core/util/clock.h"

#include <algorithm>

namespace shardmap::core {

Result<MapSnapshot> readMapSnapshot(MetadataStore& store)
{
    auto raw = store.snapshot();
    if (!raw)
        return raw.error();
    return MapSnapshot::decode(*raw);
}

FleetFacts::FleetFacts(const MapSnapshot& map, NodeClientPool& nodes)
    : m_map(map)
    , m_nodes(nodes)
{
}

const NodeMetricsValue* FleetFacts::nodeMetrics(const std::string& nodeId)
{
    auto cached = m_metrics.find(nodeId);
    if (cached == m_metrics.end()) {
        std::optional<NodeMetricsValue> value;
        if (const NodeRecord* node = m_map.node(nodeId)) {
            auto client = m_nodes.get(node->address);
            auto metrics = client ? (*client)->metrics(true) : Result<NodeMetricsValue>(client.error());
            if (metrics)
                value = std::move(*metrics);
        }
        cached = m_metrics.emplace(nodeId, std::move(value)).first;
    }
    return cached->second ? &*cached->second : nullptr;
}

const ShardMetricsValue* FleetFacts::shardMetrics(const std::string& shardId)
{
    const ShardRecord* shard = m_map.shard(shardId);
    const NodeMetricsValue* metrics = shard ? nodeMetrics(shard->node) : nullptr;
    if (!metrics)
        return nullptr;
    for (const auto& entry : metrics->shards) {
        if (entry.shard == shardId)
            return entry.healthy ? &entry : nullptr;
    }
    return nullptr;
}

SpaceSize FleetFacts::spaceSize(const SpaceRecord& space)
{
    if (const ShardMetricsValue* shard = shardMetrics(space.shard)) {
        for (const auto& entry : shard->spaceMetrics) {
            if (entry.space == space.id)
                return { entry.liveDocs, entry.bytesEstimate };
        }
    }
    // Metrics may leave out a space (not sampled yet); the space stats are exact.
    const ShardRecord* shard = m_map.shard(space.shard);
    const NodeRecord* node = shard ? m_map.node(shard->node) : nullptr;
    if (!node)
        return {};
    auto client = m_nodes.get(node->address);
    auto stats
        = client ? (*client)->spaceStats(space.shard, { space.id }) : Result<std::vector<SpaceStats>>(client.error());
    if (!stats || stats->empty())
        return {};
    return { stats->front().liveDocs, stats->front().bytesEstimate };
}

std::map<std::string, SpaceSize> FleetFacts::spaceSizes(
    const std::string& shardId, const std::vector<std::string>& spaces)
{
    std::map<std::string, SpaceSize> out;
    const ShardRecord* shard = m_map.shard(shardId);
    const NodeRecord* node = shard ? m_map.node(shard->node) : nullptr;
    if (!node || spaces.empty())
        return out;
    auto client = m_nodes.get(node->address);
    auto stats = client ? (*client)->spaceStats(shardId, spaces) : Result<std::vector<SpaceStats>>(client.error());
    for (const auto& entry : stats ? *stats : std::vector<SpaceStats> {})
        out[entry.space] = { entry.liveDocs, entry.bytesEstimate };
    return out;
}

PreflightFacts FleetFacts::preflightFacts(const SpaceSize& space, const ShardRecord& target)
{
    PreflightFacts facts;
    facts.spaceDocs = space.docs;
    facts.spaceBytes = space.bytes;
    if (const ShardMetricsValue* shard = shardMetrics(target.id)) {
        facts.targetShardDocs = shard->liveDocs;
        facts.targetShardBytes = shard->bytesEstimate;
    }
    const NodeMetricsValue* node = nodeMetrics(target.node);
    // A node that reports no disk at all cannot vouch for its free space.
    if (node && node->diskTotalBytes > 0)
        facts.targetNodeDiskFree = node->diskFreeBytes;
    return facts;
}

std::vector<ShardLoad> FleetFacts::shardLoads(const std::set<std::string>& excluded)
{
    std::vector<ShardLoad> loads;
    for (const auto& [id, versioned] : m_map.shards) {
        const ShardRecord& shard = versioned.value;
        const NodeRecord* node = m_map.node(shard.node);
        if (excluded.contains(id) || !node || node->retired)
            continue;
        ShardLoad load { shard, 0, 0, m_map.spacesOn(id).size(), 1.0, false };
        const NodeMetricsValue* metrics = nodeMetrics(shard.node);
        const ShardMetricsValue* entry = shardMetrics(id);
        if (metrics && entry) {
            load.docs = entry->liveDocs;
            load.bytes = entry->bytesEstimate;
            load.loadKnown = true;
            if (metrics->diskTotalBytes > 0)
                load.nodeDiskFreeRatio
                    = static_cast<double>(metrics->diskFreeBytes) / static_cast<double>(metrics->diskTotalBytes);
        }
        loads.push_back(std::move(load));
    }
    return loads;
}

PlannerInput gatherPlannerInput(const MapSnapshot& map, FleetFacts& facts)
{
    std::map<std::string, LoadFigures> spaces;
    for (const auto& [shardId, shard] : map.shards) {
        const ShardMetricsValue* metrics = facts.shardMetrics(shardId);
        if (!metrics)
            continue;
        for (const SpaceMetricsValue& entry : metrics->spaceMetrics) {
            const SpaceRecord* space = map.space(entry.space);
            if (space && space->shard == shardId)
                spaces[entry.space] = { static_cast<double>(entry.liveDocs), static_cast<double>(entry.bytesEstimate),
                    entry.queriesPerSecond, entry.writesPerSecond };
        }
    }
    // Metrics are sampled: a space written since the last sample is asked for by id.
    std::map<std::string, std::vector<std::string>> unsampled;
    for (const auto& [id, space] : map.spaces) {
        if (!spaces.contains(id))
            unsampled[space.value.shard].push_back(id);
    }
    for (const auto& [shardId, ids] : unsampled) {
        for (const auto& [id, size] : facts.spaceSizes(shardId, ids))
            spaces[id] = { static_cast<double>(size.docs), static_cast<double>(size.bytes), 0, 0 };
    }
    std::map<std::string, PlannerNode> nodes;
    for (const auto& [nodeId, node] : map.nodes) {
        PlannerNode facts_;
        const NodeMetricsValue* metrics = facts.nodeMetrics(nodeId);
        if (metrics && metrics->diskTotalBytes > 0) {
            facts_.diskFreeBytes = metrics->diskFreeBytes;
            facts_.diskTotalBytes = metrics->diskTotalBytes;
        }
        nodes[nodeId] = facts_;
    }
    PlannerInput input = plannerInputFrom(map, spaces, nodes);
    // The rate the executor measured for the migrations that copied enough to measure it.
    std::vector<double> rates;
    for (const auto& [id, migration] : map.migrations) {
        const MigrationProgress& progress = migration.value.progress;
        if (progress.docsPerSecond > 0 && progress.docsDone >= kMinMeasuredMigrationDocs)
            rates.push_back(progress.docsPerSecond);
    }
    input.measuredMigrations = rates.size();
    if (!rates.empty()) {
        const auto middle = rates.begin() + static_cast<std::ptrdiff_t>(rates.size() / 2);
        std::nth_element(rates.begin(), middle, rates.end());
        input.measuredDocsPerSecond = *middle;
    }
    return input;
}

} // namespace shardmap::core
