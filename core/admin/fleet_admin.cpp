#include "core/admin/fleet_admin.h"

#include "core/util/failpoint.h"

namespace shardmap::core {

namespace {

Error leftOnNode(Error refused, const FleetAdmin::ShardSpec& shard, const std::string& why)
{
    refused.message += "; shard " + shard.id + " remains on node " + shard.node + " (" + why + "): create it on "
        + shard.node + " again once the store accepts the change (the node's shard is taken as created), or stop "
        + "the node and delete shards/" + shard.id + ".db from its data directory";
    refused.details["shard_left_on_node"] = shard.node;
    return refused;
}

} // namespace

FleetAdmin::FleetAdmin(MetadataStore& store, NodeClientPool& nodes)
    : m_store(store)
    , m_nodes(nodes)
    , m_editor(store)
    , m_migrations(store, nodes)
{
}

Result<std::uint64_t> FleetAdmin::createShard(const ShardSpec& shard, const Actor& actor)
{
    auto map = m_editor.snapshot();
    if (!map)
        return map.error();
    const NodeRecord* node = map->node(shard.node);
    if (!node)
        return makeError(ErrorCode::NotFound, "no node " + shard.node + " in the shard map");
    if (map->shard(shard.id))
        return makeError(ErrorCode::AlreadyExists, "shard " + shard.id + " already exists");
    // The node first: a map entry for a shard that does not exist would be allocated to.
    auto client = m_nodes.get(node->address);
    if (!client)
        return client.error();
    auto created = (*client)->createShard(shard.id, shard.fields);
    if (!created && created.error().code != ErrorCode::AlreadyExists)
        return makeError(created.error().code, created.error().message, "node " + shard.node);
    auto revision = m_editor.addShard(
        { shard.id, shard.node, ShardState::Active, shard.capacityDocs, shard.capacityBytes }, actor);
    // A shard the node had before this call is not this call's to take back.
    if (!revision && created)
        return undoNodeShard(revision.error(), **client, shard);
    return revision;
}

// Nothing routes to a shard the map does not list, so it is still empty and goes without force.
// It stays when the map lists it on that node after all: a commit whose answer was lost, or
// another administrator's create of the same shard on the same node.
Error FleetAdmin::undoNodeShard(Error refused, NodeClient& node, const ShardSpec& shard)
{
    auto map = m_editor.snapshot();
    if (!map)
        return leftOnNode(std::move(refused), shard, "the map could not be read: " + map.error().describe());
    if (const ShardRecord* listed = map->shard(shard.id); listed && listed->node == shard.node)
        return refused;
    // The failpoint stands in for a node that stopped answering meanwhile.
    Status dropped = failpoint("admin.create_shard.drop");
    if (dropped)
        dropped = node.dropShard(shard.id);
    if (!dropped)
        return leftOnNode(std::move(refused), shard, "dropping it failed: " + dropped.error().describe());
    return refused;
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
