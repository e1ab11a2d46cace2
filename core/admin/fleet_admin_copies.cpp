// FleetAdmin's changes of a shard's copies: the node steps around MapEditor's commits (a copy made
// on its node before the map lists it, dropped after the map lets it go, the new epochs told to
// every copy after a promotion, newest primary first).
#include "core/admin/fleet_admin.h"
#include "core/map/copy_placement.h"

namespace shardmap::core {

namespace {

std::string addressOf(const MapSnapshot& map, const std::string& nodeId)
{
    const NodeRecord* node = map.node(nodeId);
    return node ? node->address : std::string();
}

// The index settings of the shard (its fields among them) as an in-sync copy's node reports them
// (the map keeps only the template's name), primary first.
Result<IndexSettings> indexSettingsOnCopies(NodeClientPool& nodes, const MapSnapshot& map, const ShardRecord& shard)
{
    std::string why = "no in-sync copy";
    for (const std::string& nodeId : shard.inSyncNodes()) {
        const NodeRecord* node = map.node(nodeId);
        if (!node || node->lost)
            continue;
        auto client = nodes.get(node->address);
        auto shards = client ? (*client)->listShards() : Result<std::vector<ShardSummary>>(client.error());
        if (!shards) {
            why = "node " + nodeId + ": " + shards.error().describe();
            continue;
        }
        for (const ShardSummary& summary : *shards) {
            if (summary.id == shard.id)
                return indexSettingsOf(summary);
        }
        why = "node " + nodeId + " does not list it";
    }
    return makeError(ErrorCode::Unavailable,
        "cannot read shard " + shard.id + "'s fields from an in-sync copy (" + why
            + "); a copy needs the same fields and index settings");
}

// A node is marked lost only after its primaries had their chance to fail over: marking it lost
// is the step that gives its copies up for good.
Status checkFailoverTimes(const MigrationSettings& settings)
{
    if (settings.loseNodeAfterMs == 0 || settings.failoverAfterMs == 0
        || settings.loseNodeAfterMs >= settings.failoverAfterMs)
        return {};
    return makeError(ErrorCode::InvalidArgument,
        "lose-node-after (" + std::to_string(settings.loseNodeAfterMs) + " ms) is shorter than failover-after ("
            + std::to_string(settings.failoverAfterMs)
            + " ms): a node would be given up before its primaries fail over; make it at least as long");
}

SpaceRole roleOn(const SpaceRecord& space, const std::string& shardId)
{
    return space.shard == shardId ? SpaceRole::Owner : SpaceRole::MigrationTarget;
}

} // namespace

void FleetAdmin::tellEpochs(
    const MapSnapshot& map, const MapEditor::CopyChange& change, std::vector<std::string>& warnings)
{
    const ShardRecord& shard = change.shard;
    std::vector<std::string> nodes { shard.node };
    for (const ShardCopy& copy : shard.replicas) {
        const NodeRecord* node = map.node(copy.node);
        if (node && !node->lost)
            nodes.push_back(copy.node);
    }
    for (const std::string& nodeId : nodes) {
        auto client = m_nodes.get(addressOf(map, nodeId));
        for (const SpaceRecord& space : change.spaces) {
            auto told = client ? (*client)->setOwnership(shard.id, { space.id, roleOn(space, shard.id), space.epoch })
                               : Result<Ownership>(client.error());
            if (!told)
                warnings.push_back("could not tell node " + nodeId + " space " + space.id + "'s epoch "
                    + std::to_string(space.epoch) + " on shard " + shard.id + ": " + told.error().describe());
        }
    }
}

Result<FleetAdmin::CopiesChanged> FleetAdmin::addReplica(
    const std::string& shardId, const std::string& nodeId, const Actor& actor)
{
    auto map = m_editor.snapshot();
    if (!map)
        return map.error();
    const ShardRecord* shard = map->shard(shardId);
    if (!shard)
        return makeError(ErrorCode::NotFound, "no shard " + shardId + " in the shard map");
    // Checked before the node is touched; MapEditor checks again against the map it commits on.
    if (auto status = checkCopyPlacement(*map, *shard, nodeId); !status)
        return status.error();
    auto settings = indexSettingsOnCopies(m_nodes, *map, *shard);
    if (!settings)
        return settings.error();
    ShardCreation creation(m_nodes);
    if (auto made = creation.copyOnNode(*map, *shard, nodeId, settings->fieldNames(), *settings); !made)
        return made.error();
    auto committed = creation.inMap(m_store, [&] { return m_editor.addReplica(shardId, nodeId, actor); });
    if (!committed)
        return committed.error();
    return CopiesChanged { *committed, {} };
}

Result<FleetAdmin::CopiesChanged> FleetAdmin::removeReplica(
    const std::string& shardId, const std::string& nodeId, const Actor& actor)
{
    auto removed = m_editor.removeReplica(shardId, nodeId, actor);
    if (!removed)
        return removed.error();
    CopiesChanged out { *removed, {} };
    auto map = m_editor.snapshot();
    const std::string address = map ? addressOf(*map, nodeId) : std::string();
    auto client = m_nodes.get(address);
    Status dropped = client ? (*client)->dropShardWithDocuments(shardId) : Status(client.error());
    if (!dropped && dropped.error().code != ErrorCode::NotFound)
        out.warnings.push_back("shard " + shardId + "'s copy remains on node " + nodeId + " ("
            + dropped.error().describe() + "); nothing routes to it: drop it there by hand");
    return out;
}

Result<FleetAdmin::CopiesChanged> FleetAdmin::promote(
    const std::string& shardId, const std::string& nodeId, const Actor& actor)
{
    auto promoted = m_editor.promote(shardId, nodeId, actor);
    if (!promoted)
        return promoted.error();
    CopiesChanged out { *promoted, {} };
    auto map = m_editor.snapshot();
    if (!map) {
        out.warnings.push_back("could not read the map to tell the nodes: " + map.error().describe());
        return out;
    }
    tellEpochs(*map, out.change, out.warnings);
    return out;
}

Result<FleetAdmin::NodeLost> FleetAdmin::loseNode(const std::string& nodeId, const Actor& actor)
{
    auto loss = m_editor.loseNode(nodeId, actor);
    if (!loss)
        return loss.error();
    NodeLost out { *loss, {} };
    if (loss->promoted.empty())
        return out;
    auto map = m_editor.snapshot();
    if (!map) {
        out.warnings.push_back("could not read the map to tell the nodes: " + map.error().describe());
        return out;
    }
    for (const MapEditor::CopyChange& change : loss->promoted)
        tellEpochs(*map, change, out.warnings);
    return out;
}

Result<std::uint64_t> FleetAdmin::setSettings(const MigrationSettings& settings, const Actor& actor)
{
    auto map = m_editor.snapshot();
    if (!map)
        return map.error();
    const MigrationSettings& current = map->settings.value;
    if (auto status = checkFailoverTimes(settings); !status)
        return status.error();
    // Checked only when they change: an unrelated setting stays changeable while a node is lost.
    if (settings.replicationFactor != current.replicationFactor || settings.writeQuorum != current.writeQuorum) {
        if (auto status = checkFleetReplication(*map, settings.replicationFactor, settings.writeQuorum); !status)
            return status.error();
    }
    return m_migrations.setSettings(settings, actor);
}

} // namespace shardmap::core
