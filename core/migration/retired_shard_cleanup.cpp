// RetiredShardCleanup's implementation: the retired sources of done reindex operations dropped on
// their nodes, then taken off the map; other retired shards' replicas dropped and taken off theirs.
#include "core/migration/retired_shard_cleanup.h"

#include "core/migration/fleet_facts.h"

namespace shardmap::core {

RetiredShardCleanup::RetiredShardCleanup(
    MetadataStore& store, NodeClientPool& nodes, MapEditor::FenceSource fence, std::string actor, LogSink log)
    : m_store(store)
    , m_nodes(nodes)
    , m_fence(std::move(fence))
    , m_actor(std::move(actor))
    , m_log(std::move(log))
{
}

void RetiredShardCleanup::round()
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
            if (auto dropped = dropCopies(shard->second.value, shard->second.modRevision, *map, true);
                !dropped && m_log)
                m_log(LogLevel::Warn,
                    "reindex " + id + ": the old shard " + source
                        + " is not dropped yet: " + dropped.error().describe());
            else if (dropped && m_log)
                m_log(LogLevel::Info, "reindex " + id + ": the old shard " + source + " was dropped");
        }
    }
    for (const auto& [id, shard] : map->shards) {
        const ShardRecord& record = shard.value;
        if (record.state != ShardState::Retired || record.replicas.empty() || !map->spacesOn(id).empty())
            continue;
        if (auto dropped = dropCopies(record, shard.modRevision, *map, false); !dropped && m_log)
            m_log(LogLevel::Warn,
                "the replicas of retired shard " + id + " are not dropped yet: " + dropped.error().describe());
        else if (dropped && m_log)
            m_log(LogLevel::Info, "the replicas of retired shard " + id + " were dropped");
    }
}

Status RetiredShardCleanup::dropOn(
    const std::string& shardId, const std::vector<std::string>& nodes, const MapSnapshot& map)
{
    for (const std::string& nodeId : nodes) {
        const NodeRecord* node = map.node(nodeId);
        if (!node || node->lost)
            continue; // nothing left there to drop
        auto client = m_nodes.get(node->address);
        if (!client)
            return client.error();
        if (auto dropped = (*client)->dropShard(shardId); !dropped && dropped.error().code != ErrorCode::NotFound)
            return makeError(dropped.error().code, "on node " + nodeId + ": " + dropped.error().message);
    }
    return {};
}

// A reindex's old shard goes altogether (every copy, then its record: "remove-shard"); any other
// retired shard loses its replicas only (dropped, then its record without them:
// "drop-retired-replicas"). The commit is fenced and compared with the record read, so a copy
// added or changed meanwhile is left for the next round.
Status RetiredShardCleanup::dropCopies(
    const ShardRecord& shard, std::uint64_t modRevision, const MapSnapshot& map, bool whole)
{
    std::vector<std::string> holders;
    if (whole)
        holders.push_back(shard.node);
    for (const ShardCopy& copy : shard.replicas)
        holders.push_back(copy.node);
    if (auto dropped = dropOn(shard.id, holders, map); !dropped)
        return dropped;
    auto fence = m_fence();
    if (!fence)
        return fence.error();
    ShardRecord kept = shard;
    kept.replicas.clear();
    CommitRequest request { { Mutation { keys::shard(shard.id),
                                whole ? std::optional<std::string>() : std::optional<std::string>(encode(kept)),
                                modRevision } },
        std::nullopt, *fence, m_actor, whole ? "remove-shard" : "drop-retired-replicas",
        whole ? "the old shard of a reindex, emptied and past its rollback window"
              : "shard " + shard.id + " is retired: its copies on other nodes hold nothing" };
    if (auto committed = m_store.commit(request); !committed)
        return committed.error();
    return {};
}

} // namespace shardmap::core
