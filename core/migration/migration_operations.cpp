// MigrationRequests' operations: drain, retire-node, split, merge and isolate, each planned on
// one snapshot and committed with all its migrations at once.
#include "core/migration/fleet_facts.h"
#include "core/migration/migration_requests.h"
#include "core/util/validation.h"

#include <algorithm>

namespace shardmap::core {

namespace {

struct Move {
    SpaceRecord space;
    std::uint64_t modRevision = 0;
    std::string target;
    SpaceSize size;
};

// An operation before it is committed: its migrations and the shard and node changes.
struct OperationDraft {
    OperationKind kind = OperationKind::Drain;
    std::string subject;
    std::string into;
    std::vector<Move> moves;
    std::vector<Mutation> changes;
    // Isolate: the shard the moved space is pinned to.
    std::string pin;
};

std::string listSome(const std::vector<std::string>& items, std::size_t most = 5)
{
    std::string out;
    for (std::size_t i = 0; i < items.size() && i < most; ++i)
        out += (i ? ", " : "") + items[i];
    if (items.size() > most)
        out += " and " + std::to_string(items.size() - most) + " more";
    return out;
}

// Every space on (or migrating to) one of the shards, once.
std::vector<const SpaceRecord*> spacesOf(const MapSnapshot& map, const std::set<std::string>& shards)
{
    std::vector<const SpaceRecord*> out;
    for (const auto& [id, space] : map.spaces) {
        if (shards.contains(space.value.shard) || shards.contains(space.value.target))
            out.push_back(&space.value);
    }
    return out;
}

// An operation moves all of its spaces or none: one that is already migrating or pinned to a
// shard being emptied refuses the whole of it.
Status checkMovable(const std::vector<const SpaceRecord*>& spaces, const std::set<std::string>& emptied)
{
    std::vector<std::string> migrating;
    std::vector<std::string> pinned;
    for (const SpaceRecord* space : spaces) {
        if (space->migrating())
            migrating.push_back(space->id + " (" + space->migrationId + ")");
        else if (!space->pin.empty() && emptied.contains(space->pin))
            pinned.push_back(space->id + " (pinned to " + space->pin + ")");
    }
    if (!migrating.empty())
        return refusal("space(s) already migrating: " + listSome(migrating) + "; wait for them or cancel them first");
    if (!pinned.empty())
        return refusal("space(s) pinned where they are: " + listSome(pinned) + "; unpin them first");
    return {};
}

Move moveOf(const MapSnapshot& map, FleetFacts& facts, const SpaceRecord& space, const std::string& target)
{
    return { space, map.spaces.at(space.id).modRevision, target, facts.spaceSize(space) };
}

void largestFirst(std::vector<Move>& moves)
{
    std::stable_sort(moves.begin(), moves.end(), [](const Move& a, const Move& b) {
        return a.size.bytes != b.size.bytes ? a.size.bytes > b.size.bytes : a.space.id < b.space.id;
    });
}

// Each space to the shard the load-aware allocator picks, largest first, counting what the plan
// already put on each shard so that the spaces spread out instead of all landing on the
// emptiest shard of the moment.
Result<std::vector<Move>> placeOnBestShards(const MapSnapshot& map, FleetFacts& facts,
    const std::vector<const SpaceRecord*>& spaces, const std::set<std::string>& excluded)
{
    std::vector<Move> moves;
    for (const SpaceRecord* space : spaces)
        moves.push_back(moveOf(map, facts, *space, {}));
    largestFirst(moves);
    auto loads = facts.shardLoads(excluded);
    for (auto& move : moves) {
        auto chosen = allocateShard(AllocationStrategy::LoadAware, move.space.id, loads, move.space.pin);
        if (!chosen)
            return makeError(
                chosen.error().code, "no shard can take space " + move.space.id + ": " + chosen.error().message);
        move.target = *chosen;
        for (auto& load : loads) {
            if (load.shard.id == move.target) {
                load.docs += move.size.docs;
                load.bytes += move.size.bytes;
                ++load.spaces;
            }
        }
    }
    return moves;
}

// The preflight of every move, each seeing the docs and bytes the moves before it add to their
// target shard and node.
Status preflightMoves(const MapSnapshot& map, FleetFacts& facts, const std::vector<Move>& moves,
    const std::set<std::string>& newShards = {})
{
    std::map<std::string, SpaceSize> addedToShard;
    std::map<std::string, std::uint64_t> addedToNode;
    for (const auto& move : moves) {
        const ShardRecord* target = map.shard(move.target);
        if (!target)
            return unknownId("shard", move.target);
        PreflightFacts adjusted = facts.preflightFacts(move.size, *target);
        if (newShards.contains(target->id))
            adjusted.targetShardDocs = adjusted.targetShardBytes = 0;
        SpaceSize& shardAdded = addedToShard[target->id];
        std::uint64_t& nodeAdded = addedToNode[target->node];
        if (adjusted.targetShardDocs)
            *adjusted.targetShardDocs += shardAdded.docs;
        if (adjusted.targetShardBytes)
            *adjusted.targetShardBytes += shardAdded.bytes;
        if (adjusted.targetNodeDiskFree)
            *adjusted.targetNodeDiskFree -= std::min(*adjusted.targetNodeDiskFree, nodeAdded);
        if (auto status = preflightMigration(map, move.space.id, move.target, adjusted); !status)
            return status;
        shardAdded.docs += move.size.docs;
        shardAdded.bytes += move.size.bytes;
        nodeAdded += move.size.bytes;
    }
    return {};
}

// Moves every space off the shards to the best other shards.
Result<std::vector<Move>> planEvacuation(const MapSnapshot& map, FleetFacts& facts, const std::set<std::string>& shards)
{
    const auto spaces = spacesOf(map, shards);
    if (auto status = checkMovable(spaces, shards); !status)
        return status.error();
    auto moves = placeOnBestShards(map, facts, spaces, shards);
    if (!moves)
        return moves.error();
    if (auto status = preflightMoves(map, facts, *moves); !status)
        return status.error();
    return moves;
}

// Largest first into the lighter of two bins (seed 002's greedy bin packing); the bin without
// the largest space moves, so at most about half of the bytes are copied.
std::vector<Move> halfByBytes(std::vector<Move> moves)
{
    largestFirst(moves);
    std::uint64_t sums[2] = { 0, 0 };
    std::size_t counts[2] = { 0, 0 };
    std::vector<Move> moving;
    for (auto& move : moves) {
        const int bin = sums[0] < sums[1] || (sums[0] == sums[1] && counts[0] <= counts[1]) ? 0 : 1;
        sums[bin] += move.size.bytes;
        ++counts[bin];
        if (bin == 1)
            moving.push_back(std::move(move));
    }
    return moving;
}

Mutation shardInState(const Versioned<ShardRecord>& shard, ShardState state)
{
    ShardRecord changed = shard.value;
    changed.state = state;
    return { keys::shard(changed.id), encode(changed), shard.modRevision };
}

Status checkNewShard(const MapSnapshot& map, const std::string& newShard, const std::string& nodeId)
{
    if (auto status = validateShardId(newShard); !status)
        return status.error();
    if (map.shard(newShard))
        return makeError(ErrorCode::AlreadyExists, "shard " + newShard + " already exists");
    const NodeRecord* node = map.node(nodeId);
    if (!node)
        return unknownId("node", nodeId);
    if (node->retired)
        return refusal("node " + nodeId + " is retired; a new shard cannot go there");
    return {};
}

MapSnapshot withNewShard(const MapSnapshot& map, const ShardRecord& shard)
{
    MapSnapshot copy = map;
    copy.shards[shard.id] = { shard, 0 };
    return copy;
}

// The node first, as `shard create` does: a map entry for a shard that does not exist would be
// written to. Its fields are those of the shard the spaces come from.
Status createShardOnNode(
    const MapSnapshot& map, NodeClientPool& nodes, const std::string& fromShard, const ShardRecord& shard)
{
    std::vector<std::string> fields { "title", "body", "tags" };
    const ShardRecord* source = map.shard(fromShard);
    const NodeRecord* sourceNode = source ? map.node(source->node) : nullptr;
    auto sourceClient = sourceNode ? nodes.get(sourceNode->address) : Result<std::shared_ptr<NodeClient>>(nullptr);
    auto shards = sourceClient && *sourceClient ? (*sourceClient)->listShards()
                                                : Result<std::vector<ShardSummary>>(std::vector<ShardSummary> {});
    for (const auto& summary : shards ? *shards : std::vector<ShardSummary> {}) {
        if (summary.id == fromShard && !summary.fields.empty())
            fields = summary.fields;
    }
    auto client = nodes.get(map.node(shard.node)->address);
    if (!client)
        return client.error();
    auto created = (*client)->createShard(shard.id, fields);
    if (!created && created.error().code != ErrorCode::AlreadyExists)
        return makeError(created.error().code,
            "cannot create shard " + shard.id + " on node " + shard.node + ": " + created.error().message);
    return {};
}

Result<OperationRecord> commitOperation(MetadataStore& store, OperationDraft draft, const Actor& actor)
{
    OperationRecord operation;
    operation.id = newOperationId();
    operation.kind = draft.kind;
    operation.subject = draft.subject;
    operation.into = draft.into;
    operation.requestedBy = actor.name;
    operation.reason = actor.reason;
    operation.createdUnixMs = nowUnixMs();
    std::vector<Mutation> mutations(1);
    for (const auto& move : draft.moves) {
        MigrationRecord migration;
        migration.id = newMigrationId();
        migration.space = move.space.id;
        migration.source = move.space.shard;
        migration.target = move.target;
        migration.operation = operation.id;
        migration.requestedBy = actor.name;
        migration.reason = actor.reason;
        migration.createdUnixMs = migration.updatedUnixMs = operation.createdUnixMs;
        SpaceRecord marked = move.space;
        marked.migrationId = migration.id;
        marked.phase = MigrationPhase::Queued;
        if (!draft.pin.empty())
            marked.pin = draft.pin;
        mutations.push_back({ keys::migration(migration.id), encode(migration), 0 });
        mutations.push_back({ keys::space(marked.id), encode(marked), move.modRevision });
        operation.migrations.push_back(migration.id);
    }
    if (draft.moves.empty()) {
        operation.state = "done";
        operation.finishedUnixMs = operation.createdUnixMs;
    }
    mutations.front() = { keys::operation(operation.id), encode(operation), 0 };
    for (auto& change : draft.changes)
        mutations.push_back(std::move(change));
    const std::string action = operationKindName(draft.kind);
    auto committed = store.commit({ mutations, std::nullopt, std::nullopt, actor.name, action, actor.reason });
    if (!committed && committed.error().code == ErrorCode::Conflict)
        return makeError(ErrorCode::Conflict, "the shard map changed while the " + action + " was planned; try again");
    if (!committed)
        return committed.error();
    return operation;
}

} // namespace

Result<OperationRecord> MigrationRequests::drain(const std::string& shardId, const Actor& actor)
{
    auto map = readMapSnapshot(m_store);
    if (!map)
        return map.error();
    const auto shard = map->shards.find(shardId);
    if (shard == map->shards.end())
        return unknownId("shard", shardId);
    if (shard->second.value.state == ShardState::Retired)
        return refusal("shard " + shardId + " is retired; there is nothing to drain");
    FleetFacts facts(*map, m_nodes);
    auto moves = planEvacuation(*map, facts, { shardId });
    if (!moves)
        return moves.error();
    OperationDraft draft { OperationKind::Drain, shardId, {}, std::move(*moves), {}, {} };
    if (shard->second.value.state != ShardState::Draining)
        draft.changes.push_back(shardInState(shard->second, ShardState::Draining));
    return commitOperation(m_store, std::move(draft), actor);
}

Result<OperationRecord> MigrationRequests::retireNode(const std::string& nodeId, const Actor& actor)
{
    auto map = readMapSnapshot(m_store);
    if (!map)
        return map.error();
    const auto node = map->nodes.find(nodeId);
    if (node == map->nodes.end())
        return unknownId("node", nodeId);
    if (node->second.value.retired)
        return refusal("node " + nodeId + " is already retired");
    std::set<std::string> shards;
    for (const ShardRecord* shard : map->shardsOn(nodeId))
        shards.insert(shard->id);
    FleetFacts facts(*map, m_nodes);
    auto moves = planEvacuation(*map, facts, shards);
    if (!moves)
        return moves.error();
    OperationDraft draft { OperationKind::RetireNode, nodeId, {}, std::move(*moves), {}, {} };
    // Nothing to move: the executor would have nothing to wait for, so retire at once.
    const bool empty = draft.moves.empty();
    const ShardState state = empty ? ShardState::Retired : ShardState::Draining;
    for (const auto& id : shards) {
        const auto& shard = map->shards.at(id);
        if (shard.value.state != state && shard.value.state != ShardState::Retired)
            draft.changes.push_back(shardInState(shard, state));
    }
    if (empty) {
        NodeRecord retired = node->second.value;
        retired.retired = true;
        draft.changes.push_back({ keys::node(nodeId), encode(retired), node->second.modRevision });
    }
    return commitOperation(m_store, std::move(draft), actor);
}

Result<OperationRecord> MigrationRequests::split(
    const std::string& shardId, const std::string& newShard, const std::string& node, const Actor& actor)
{
    auto map = readMapSnapshot(m_store);
    if (!map)
        return map.error();
    const ShardRecord* shard = map->shard(shardId);
    if (!shard)
        return unknownId("shard", shardId);
    if (shard->state == ShardState::Retired)
        return refusal("shard " + shardId + " is retired; there is nothing to split");
    const ShardRecord created { newShard, node.empty() ? shard->node : node, ShardState::Active, 0, 0 };
    if (auto status = checkNewShard(*map, newShard, created.node); !status)
        return status.error();
    const auto spaces = spacesOf(*map, { shardId });
    if (auto status = checkMovable(spaces, { shardId }); !status)
        return status.error();
    if (spaces.size() < 2)
        return refusal(
            "shard " + shardId + " holds " + std::to_string(spaces.size()) + " space(s); a split needs at least 2");
    FleetFacts facts(*map, m_nodes);
    std::vector<Move> all;
    for (const SpaceRecord* space : spaces)
        all.push_back(moveOf(*map, facts, *space, newShard));
    auto moving = halfByBytes(std::move(all));
    if (auto status = preflightMoves(withNewShard(*map, created), facts, moving, { newShard }); !status)
        return status.error();
    if (auto status = createShardOnNode(*map, m_nodes, shardId, created); !status)
        return status.error();
    OperationDraft draft { OperationKind::Split, shardId, newShard, std::move(moving), {}, {} };
    draft.changes.push_back({ keys::shard(newShard), encode(created), 0 });
    return commitOperation(m_store, std::move(draft), actor);
}

Result<OperationRecord> MigrationRequests::merge(const std::string& from, const std::string& into, const Actor& actor)
{
    auto map = readMapSnapshot(m_store);
    if (!map)
        return map.error();
    const auto source = map->shards.find(from);
    if (source == map->shards.end())
        return unknownId("shard", from);
    const ShardRecord* target = map->shard(into);
    if (!target)
        return unknownId("shard", into);
    if (from == into)
        return makeError(ErrorCode::InvalidArgument, "shard " + from + " cannot be merged into itself");
    if (source->second.value.state == ShardState::Retired)
        return refusal("shard " + from + " is retired; there is nothing to merge");
    if (auto status = checkTargetShard(*map, *target); !status)
        return status.error();
    const auto spaces = spacesOf(*map, { from });
    if (auto status = checkMovable(spaces, { from }); !status)
        return status.error();
    FleetFacts facts(*map, m_nodes);
    std::vector<Move> moves;
    for (const SpaceRecord* space : spaces)
        moves.push_back(moveOf(*map, facts, *space, into));
    largestFirst(moves);
    if (auto status = preflightMoves(*map, facts, moves); !status)
        return status.error();
    OperationDraft draft { OperationKind::Merge, from, into, std::move(moves), {}, {} };
    if (source->second.value.state != ShardState::Draining)
        draft.changes.push_back(shardInState(source->second, ShardState::Draining));
    return commitOperation(m_store, std::move(draft), actor);
}

Result<OperationRecord> MigrationRequests::isolate(
    const std::string& spaceId, const std::string& newShard, const std::string& node, const Actor& actor)
{
    auto map = readMapSnapshot(m_store);
    if (!map)
        return map.error();
    const SpaceRecord* space = map->space(spaceId);
    if (!space)
        return unknownId("space", spaceId);
    if (auto status = checkMovable({ space }, { space->shard }); !status)
        return status.error();
    if (!space->pin.empty())
        return refusal("space " + spaceId + " is pinned to shard " + space->pin + "; unpin it before isolating it");
    const ShardRecord* home = map->shard(space->shard);
    const std::string nodeId = !node.empty() ? node : home ? home->node : std::string();
    const ShardRecord created { newShard, nodeId, ShardState::Active, 0, 0 };
    if (auto status = checkNewShard(*map, newShard, nodeId); !status)
        return status.error();
    FleetFacts facts(*map, m_nodes);
    std::vector<Move> moves { moveOf(*map, facts, *space, newShard) };
    if (auto status = preflightMoves(withNewShard(*map, created), facts, moves, { newShard }); !status)
        return status.error();
    if (auto status = createShardOnNode(*map, m_nodes, space->shard, created); !status)
        return status.error();
    OperationDraft draft { OperationKind::Isolate, spaceId, newShard, std::move(moves), {}, newShard };
    draft.changes.push_back({ keys::shard(newShard), encode(created), 0 });
    return commitOperation(m_store, std::move(draft), actor);
}

Result<OperationRecord> MigrationRequests::moveSpaces(
    const std::vector<std::pair<std::string, std::string>>& requested, const Actor& actor)
{
    if (requested.empty())
        return makeError(ErrorCode::InvalidArgument, "no moves to queue");
    auto map = readMapSnapshot(m_store);
    if (!map)
        return map.error();
    FleetFacts facts(*map, m_nodes);
    std::set<std::string> seen;
    std::vector<const SpaceRecord*> spaces;
    std::vector<Move> moves;
    for (const auto& [spaceId, targetId] : requested) {
        const SpaceRecord* space = map->space(spaceId);
        if (!space)
            return unknownId("space", spaceId);
        if (!seen.insert(spaceId).second)
            return makeError(ErrorCode::InvalidArgument, "space " + spaceId + " is listed twice");
        const ShardRecord* target = map->shard(targetId);
        if (!target)
            return unknownId("shard", targetId);
        if (space->shard == targetId)
            return refusal("space " + spaceId + " is already on shard " + targetId);
        if (!space->pin.empty() && space->pin != targetId)
            return refusal("space " + spaceId + " is pinned to " + space->pin + "; unpin it first");
        if (auto status = checkTargetShard(*map, *target); !status)
            return status.error();
        spaces.push_back(space);
        moves.push_back(moveOf(*map, facts, *space, targetId));
    }
    if (auto status = checkMovable(spaces, {}); !status)
        return status.error();
    if (auto status = preflightMoves(*map, facts, moves); !status)
        return status.error();
    const std::string subject = moves.size() == 1 ? moves.front().space.id : std::to_string(moves.size()) + " spaces";
    OperationDraft draft { OperationKind::Move, subject, {}, std::move(moves), {}, {} };
    return commitOperation(m_store, std::move(draft), actor);
}

} // namespace shardmap::core
