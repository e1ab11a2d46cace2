// FleetAdmin's implementation: shards are made through ShardCreation; a reassigned space's nodes are
// told its new epoch, the new owner first.
#include "core/admin/fleet_admin.h"

namespace shardmap::core {

FleetAdmin::FleetAdmin(MetadataStore& store, NodeClientPool& nodes, MapEditor::FenceSource fence)
    : m_store(store)
    , m_nodes(nodes)
    , m_editor(store, std::move(fence))
    , m_migrations(store, nodes)
{
}

Result<std::uint64_t> FleetAdmin::createShard(const ShardSpec& shard, const Actor& actor)
{
    auto map = m_editor.snapshot();
    if (!map)
        return map.error();
    ShardCreation creation(m_nodes);
    auto made = creation.onNode(*map, shard);
    if (!made)
        return made.error();
    return creation.inMap(m_store, [&] { return m_editor.addShard(*made, actor); });
}

Result<FleetAdmin::Reassigned> FleetAdmin::reassignSpace(
    const std::string& space, const std::string& shard, const Actor& actor)
{
    auto before = m_editor.snapshot();
    if (!before)
        return before.error();
    const SpaceRecord* old = before->space(space);
    const std::string oldShard = old ? old->shard : std::string();
    auto moved = m_editor.reassignSpace(space, shard, actor);
    if (!moved)
        return moved.error();
    Reassigned out { *moved, {} };
    const auto addressOf = [&](const std::string& shardId) {
        const ShardRecord* record = before->shard(shardId);
        const NodeRecord* node = record ? before->node(record->node) : nullptr;
        return node ? node->address : std::string();
    };
    const auto tell = [&](const std::string& shardId, SpaceRole role) {
        auto client = m_nodes.get(addressOf(shardId));
        auto told = client ? (*client)->setOwnership(shardId, { space, role, moved->epoch })
                           : Result<Ownership>(client.error());
        if (!told)
            out.warnings.push_back("could not tell shard " + shardId + ": " + told.error().describe());
    };
    tell(shard, SpaceRole::Owner);
    if (!oldShard.empty() && oldShard != shard)
        tell(oldShard, SpaceRole::Fenced);
    return out;
}

} // namespace shardmap::core
