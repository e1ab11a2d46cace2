#include "core/migration/fleet_facts.h"

namespace shardmap::core {

Result<MapSnapshot> readMapSnapshot(MetadataStore& store)
{
    auto raw = store.snapshot();
    if (!raw)
        return raw.error();
    return MapSnapshot::decode(*raw);
}

std::int64_t nowUnixMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
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

} // namespace shardmap::core
