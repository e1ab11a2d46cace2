#include "core/map/copy_placement.h"
#include "core/map/map_editor.h"

// MapEditor's changes of a shard's copies (issue 30): each checked against a fresh snapshot and
// committed as one compare-and-set over the shard, the spaces whose epoch it raises and the node
// records it depends on.

#include "core/util/clock.h"
#include "core/util/validation.h"

#include <algorithm>
#include <map>

namespace shardmap::core {

namespace {

Error refused(const std::string& message)
{
    return makeError(ErrorCode::FailedPrecondition, message);
}

Error noShard(const std::string& shardId)
{
    return makeError(ErrorCode::NotFound, "no shard " + shardId + " in the shard map");
}

bool nodeLost(const MapSnapshot& map, const std::string& nodeId)
{
    const NodeRecord* node = map.node(nodeId);
    return !node || node->lost;
}

// Copies that serve searches and take writes: in sync, on a node not lost.
std::size_t servingCopies(const MapSnapshot& map, const ShardRecord& shard)
{
    std::size_t serving = nodeLost(map, shard.node) ? 0 : 1;
    for (const ShardCopy& copy : shard.replicas)
        serving += copy.state == CopyState::InSync && !nodeLost(map, copy.node) ? 1 : 0;
    return serving;
}

// The replica on nodeId becomes the primary; the old primary stays as a replica in `demoted`.
void promoteInPlace(ShardRecord& shard, std::string nodeId, CopyState demoted, const std::string& reason)
{
    std::erase_if(shard.replicas, [&](const ShardCopy& copy) { return copy.node == nodeId; });
    shard.replicas.push_back({ shard.node, demoted, 0, 0, nowUnixMs(), reason });
    shard.node = nodeId;
}

// The spaces on a shard (owned or migrating there), each with its epoch + 1, gathered once per
// space when several shards are promoted in one commit.
using RaisedSpaces = std::map<std::string, Versioned<SpaceRecord>>;

Status raiseEpochs(const MapSnapshot& map, const std::string& shardId, RaisedSpaces& raised)
{
    for (const SpaceRecord* space : map.spacesOn(shardId)) {
        if (raised.contains(space->id))
            continue;
        if (space->epoch >= kMaxEpoch)
            return refused("space " + space->id + " is at epoch " + std::to_string(space->epoch)
                + ", the largest (2^62); its record was written by hand");
        Versioned<SpaceRecord> next = map.spaces.at(space->id);
        next.value.epoch += 1;
        raised.emplace(space->id, std::move(next));
    }
    return {};
}

std::vector<Mutation> spaceMutations(const RaisedSpaces& raised)
{
    std::vector<Mutation> out;
    for (const auto& [id, space] : raised)
        out.push_back({ keys::space(id), encode(space.value), space.modRevision });
    return out;
}

std::vector<SpaceRecord> spacesOf(const RaisedSpaces& raised, const std::string& shardId)
{
    std::vector<SpaceRecord> out;
    for (const auto& [id, space] : raised) {
        if (space.value.shard == shardId || space.value.target == shardId)
            out.push_back(space.value);
    }
    return out;
}

// A node record as it is, put back with its revision: the change holds only while it is unchanged.
Mutation unchanged(const Versioned<NodeRecord>& node)
{
    return { keys::node(node.value.id), encode(node.value), node.modRevision };
}

} // namespace

Result<MapEditor::CopyChange> MapEditor::commitCopies(const MapSnapshot& map, const ShardRecord& shard,
    std::vector<SpaceRecord> spaces, std::vector<Mutation> more, const Actor& actor, const std::string& action)
{
    std::vector<Mutation> mutations { { keys::shard(shard.id), encode(shard), map.shards.at(shard.id).modRevision } };
    for (const SpaceRecord& space : spaces)
        mutations.push_back({ keys::space(space.id), encode(space), map.spaces.at(space.id).modRevision });
    std::move(more.begin(), more.end(), std::back_inserter(mutations));
    auto committed
        = commitFenced({ std::move(mutations), std::nullopt, std::nullopt, actor.name, action, actor.reason });
    if (!committed && committed.error().code == ErrorCode::Conflict)
        return makeError(
            ErrorCode::Conflict, "shard " + shard.id + ", its spaces or nodes changed meanwhile; try again");
    if (!committed)
        return committed.error();
    return CopyChange { shard, std::move(spaces), *committed };
}

Result<std::uint64_t> MapEditor::commitFenced(CommitRequest request)
{
    if (m_fence) {
        auto grant = m_fence();
        if (!grant)
            return grant.error();
        request.fence = *grant;
    }
    return m_store.commit(request);
}

Result<std::uint64_t> MapEditor::setNodeZone(const std::string& nodeId, const std::string& zone, const Actor& actor)
{
    if (auto status = validateZone(zone); !status)
        return status.error();
    auto map = snapshot();
    if (!map)
        return map.error();
    const auto found = map->nodes.find(nodeId);
    if (found == map->nodes.end())
        return makeError(ErrorCode::NotFound, "no node " + nodeId + " in the shard map");
    NodeRecord node = found->second.value;
    if (node.zone == zone)
        return map->revision;
    node.zone = zone;
    return commitOne({ keys::node(nodeId), encode(node), found->second.modRevision }, actor, "set-node-zone");
}

Result<MapEditor::CopyChange> MapEditor::addReplica(
    const std::string& shardId, const std::string& nodeId, const Actor& actor)
{
    auto map = snapshot();
    if (!map)
        return map.error();
    const ShardRecord* found = map->shard(shardId);
    if (!found)
        return noShard(shardId);
    if (auto status = checkCopyPlacement(*map, *found, nodeId); !status)
        return status.error();
    ShardRecord shard = *found;
    // A shard that holds no space has no document to copy: the new copy is as complete as the
    // primary the moment it exists. Otherwise the executor's catch-up brings it in sync. A space
    // migrating onto the shard counts: the migration did not copy it to a copy it never knew.
    const bool incoming = std::any_of(map->spaces.begin(), map->spaces.end(),
        [&](const auto& space) { return space.second.value.migrating() && space.second.value.target == shardId; });
    const bool empty = map->spacesOn(shardId).empty() && !incoming;
    shard.replicas.push_back({ nodeId, empty ? CopyState::InSync : CopyState::CatchingUp, 0, 0, nowUnixMs(),
        empty ? "added to a shard holding no space" : "added; to be caught up" });
    return commitCopies(*map, shard, {}, { unchanged(map->nodes.at(nodeId)) }, actor, "add-replica " + nodeId);
}

Result<MapEditor::CopyChange> MapEditor::removeReplica(
    const std::string& shardId, const std::string& nodeId, const Actor& actor)
{
    auto map = snapshot();
    if (!map)
        return map.error();
    const ShardRecord* found = map->shard(shardId);
    if (!found)
        return noShard(shardId);
    if (found->node == nodeId)
        return refused(
            "node " + nodeId + " holds shard " + shardId + "'s primary; promote another copy before removing this one");
    const ShardCopy* copy = found->replicaOn(nodeId);
    if (!copy)
        return makeError(ErrorCode::NotFound, "node " + nodeId + " holds no replica of shard " + shardId);
    const bool serves = copy->state == CopyState::InSync && !nodeLost(*map, nodeId);
    if (serves && servingCopies(*map, *found) == 1)
        return refused("the copy on " + nodeId + " is shard " + shardId + "'s last in-sync copy (its primary's node "
            + found->node + " is lost); promote it or add another copy first");
    ShardRecord shard = *found;
    std::erase_if(shard.replicas, [&](const ShardCopy& c) { return c.node == nodeId; });
    return commitCopies(*map, shard, {}, {}, actor, "remove-replica " + nodeId);
}

Result<MapEditor::CopyChange> MapEditor::promote(
    const std::string& shardId, const std::string& nodeId, const Actor& actor)
{
    auto map = snapshot();
    if (!map)
        return map.error();
    const ShardRecord* found = map->shard(shardId);
    if (!found)
        return noShard(shardId);
    if (found->node == nodeId)
        return refused("node " + nodeId + " already holds shard " + shardId + "'s primary");
    const ShardCopy* copy = found->replicaOn(nodeId);
    if (!copy)
        return makeError(ErrorCode::NotFound, "node " + nodeId + " holds no replica of shard " + shardId);
    if (copy->state != CopyState::InSync)
        return refused("the copy of shard " + shardId + " on " + nodeId + " is " + copyStateName(copy->state) + " ("
            + std::to_string(copy->docsDone) + " of " + std::to_string(copy->docsTotal)
            + " documents); only an in-sync copy can be promoted");
    if (nodeLost(*map, nodeId))
        return refused("node " + nodeId + " is lost; its copy cannot be promoted");
    for (const SpaceRecord* space : map->spacesOn(shardId)) {
        if (space->migrating())
            return refused("space " + space->id + " on shard " + shardId + " is migrating (" + space->migrationId
                + "); finish or cancel it before promoting");
    }
    RaisedSpaces raised;
    if (auto status = raiseEpochs(*map, shardId, raised); !status)
        return status.error();
    ShardRecord shard = *found;
    promoteInPlace(shard, nodeId, CopyState::CatchingUp,
        std::string(kDemotedByPromote) + (actor.reason.empty() ? "" : ": " + actor.reason));
    // The new primary's node is part of the compare-and-set: one lost meanwhile refuses it.
    return commitCopies(
        *map, shard, spacesOf(raised, shardId), { unchanged(map->nodes.at(nodeId)) }, actor, "promote " + nodeId);
}

namespace {

// One shard's part of losing a node: its copy there is lost, and a primary there hands over to
// an in-sync replica on a node not lost (epochs raised into raised); false when nothing changed.
Result<bool> loseCopiesOn(const MapSnapshot& map, const MapSnapshot& after, const std::string& nodeId,
    ShardRecord& shard, RaisedSpaces& raised)
{
    bool changed = false;
    for (ShardCopy& copy : shard.replicas) {
        if (copy.node == nodeId && copy.state != CopyState::Lost) {
            copy = { copy.node, CopyState::Lost, copy.docsDone, copy.docsTotal, nowUnixMs(), "node lost" };
            changed = true;
        }
    }
    if (shard.node != nodeId)
        return changed;
    const auto next = std::find_if(shard.replicas.begin(), shard.replicas.end(),
        [&](const ShardCopy& c) { return c.state == CopyState::InSync && !nodeLost(after, c.node); });
    if (next == shard.replicas.end())
        return changed;
    if (auto status = raiseEpochs(map, shard.id, raised); !status)
        return status.error();
    promoteInPlace(shard, next->node, CopyState::Lost, std::string(kLostPrimaryFailedOver));
    return true;
}

} // namespace

Result<MapEditor::NodeLoss> MapEditor::loseNode(const std::string& nodeId, const Actor& actor)
{
    auto map = snapshot();
    if (!map)
        return map.error();
    const auto found = map->nodes.find(nodeId);
    if (found == map->nodes.end())
        return makeError(ErrorCode::NotFound, "no node " + nodeId + " in the shard map");
    NodeLoss loss { map->revision, {}, {} };
    if (found->second.value.lost)
        return loss;
    NodeRecord node = found->second.value;
    node.lost = true;
    // After the node is lost: a replica promoted must be on another node not lost.
    MapSnapshot after = *map;
    after.nodes.at(nodeId).value = node;
    std::vector<Mutation> mutations { { keys::node(nodeId), encode(node), found->second.modRevision } };
    RaisedSpaces raised;
    std::vector<ShardRecord> promoted;
    for (const auto& [id, versioned] : map->shards) {
        ShardRecord shard = versioned.value;
        auto changed = loseCopiesOn(*map, after, nodeId, shard, raised);
        if (!changed)
            return changed.error();
        if (shard.node == nodeId)
            loss.withoutCopy.push_back(id); // nothing in sync elsewhere took over
        else if (versioned.value.node == nodeId)
            promoted.push_back(shard);
        if (*changed)
            mutations.push_back({ keys::shard(id), encode(shard), versioned.modRevision });
    }
    for (Mutation& space : spaceMutations(raised))
        mutations.push_back(std::move(space));
    auto committed
        = commitFenced({ std::move(mutations), std::nullopt, std::nullopt, actor.name, "lose-node", actor.reason });
    if (!committed && committed.error().code == ErrorCode::Conflict)
        return makeError(ErrorCode::Conflict, "node " + nodeId + " or its shards changed meanwhile; try again");
    if (!committed)
        return committed.error();
    loss.revision = *committed;
    for (ShardRecord& shard : promoted) {
        std::vector<SpaceRecord> spaces = spacesOf(raised, shard.id);
        loss.promoted.push_back({ std::move(shard), std::move(spaces), *committed });
    }
    return loss;
}

Result<std::uint64_t> MapEditor::setReplication(
    const std::string& shardId, std::uint32_t factor, std::optional<bool> allowSameZone, const Actor& actor)
{
    auto map = snapshot();
    if (!map)
        return map.error();
    const ShardRecord* found = map->shard(shardId);
    if (!found)
        return noShard(shardId);
    ShardRecord shard = *found;
    shard.replicationFactor = factor;
    shard.allowSameZone = allowSameZone.value_or(shard.allowSameZone);
    if (auto status = checkShardReplicationFactor(*map, shard, factor); !status)
        return status.error();
    if (shard == *found)
        return map->revision;
    auto committed = commitCopies(*map, shard, {}, {}, actor, "set-replication-factor " + std::to_string(factor));
    if (!committed)
        return committed.error();
    return committed->revision;
}

} // namespace shardmap::core
