// ReindexCleanup's implementation: the retired sources of done reindex operations dropped on their
// nodes, then taken off the map.
#include "core/migration/reindex_cleanup.h"

#include "core/migration/fleet_facts.h"

namespace shardmap::core {

ReindexCleanup::ReindexCleanup(
    MetadataStore& store, NodeClientPool& nodes, MapEditor::FenceSource fence, std::string actor, LogSink log)
    : m_store(store)
    , m_nodes(nodes)
    , m_fence(std::move(fence))
    , m_actor(std::move(actor))
    , m_log(std::move(log))
{
}

void ReindexCleanup::round()
{
    auto map = readMapSnapshot(m_store);
    if (!map)
        return;
    for (const auto& [id, op] : map->operations) {
        if (op.value.kind != OperationKind::Reindex || op.value.state != OperationState::Done)
            continue;
        for (const std::string& source : reindexShardsOf(op.value.subject)) {
            const auto shard = map->shards.find(source);
            if (shard == map->shards.end() || shard->second.value.state != ShardState::Retired
                || !map->spacesOn(source).empty())
                continue;
            if (auto dropped = dropShard(shard->second.value, shard->second.modRevision, *map); !dropped && m_log)
                m_log(LogLevel::Warn,
                    "reindex " + id + ": the old shard " + source
                        + " is not dropped yet: " + dropped.error().describe());
            else if (dropped && m_log)
                m_log(LogLevel::Info, "reindex " + id + ": the old shard " + source + " was dropped");
        }
    }
}

Status ReindexCleanup::dropShard(const ShardRecord& shard, std::uint64_t modRevision, const MapSnapshot& map)
{
    std::vector<std::string> holders { shard.node };
    for (const ShardCopy& copy : shard.replicas)
        holders.push_back(copy.node);
    for (const std::string& nodeId : holders) {
        const NodeRecord* node = map.node(nodeId);
        if (!node || node->lost)
            continue; // nothing left there to drop
        auto client = m_nodes.get(node->address);
        if (!client)
            return client.error();
        if (auto dropped = (*client)->dropShard(shard.id); !dropped && dropped.error().code != ErrorCode::NotFound)
            return makeError(dropped.error().code, "on node " + nodeId + ": " + dropped.error().message);
    }
    auto fence = m_fence();
    if (!fence)
        return fence.error();
    CommitRequest request { { Mutation { keys::shard(shard.id), std::nullopt, modRevision } }, std::nullopt, *fence,
        m_actor, "remove-shard", "the old shard of a reindex, emptied and past its rollback window" };
    if (auto committed = m_store.commit(request); !committed)
        return committed.error();
    return {};
}

} // namespace shardmap::core
