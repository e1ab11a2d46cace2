// MigrationRequests' operations: drain, retire-node, split, merge and isolate, each planned by
// the rebalance planner (core/plan/planner) on one snapshot and queued like any plan: checked
// against the map, preflighted move by move, committed with all its migrations (in chunks when
// the store takes fewer mutations per commit than the plan needs).
#include "core/fleet/shard_creation.h"
#include "core/map/copy_placement.h"
#include "core/map/index_templates.h"
#include "core/map/space_placement.h"
#include "core/migration/fleet_facts.h"
#include "core/migration/migration_requests.h"
#include "core/plan/planner.h"
#include "core/plan/space_holds.h"
#include "core/util/failpoint.h"
#include "core/util/validation.h"

#include <algorithm>

namespace shardmap::core {

namespace {

struct Move {
    SpaceRecord space;
    std::uint64_t modRevision = 0;
    std::string target;
    SpaceSize size;
    // Why the planner chose it, recorded in the migration's reason.
    std::string reason;
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
    // Its sources and targets as measured now, for the before/after of reports.
    std::vector<OperationShardLoad> shardsBefore;
    // A retire-node whose node holds replicas: running, even without moves, until they are made
    // again elsewhere (OperationFinisher waits for replicasToMoveOff to be empty).
    bool waitsForCopies = false;
};

// The shards the moves leave and enter, as their nodes report them now (created ones empty).
std::vector<OperationShardLoad> measureShards(
    const MapSnapshot& map, FleetFacts& facts, const std::vector<Move>& moves, const std::set<std::string>& created)
{
    std::set<std::string> touched;
    for (const Move& move : moves) {
        touched.insert(move.space.shard);
        touched.insert(move.target);
    }
    std::vector<OperationShardLoad> loads;
    for (const std::string& shard : touched) {
        OperationShardLoad load { shard, 0, 0, 0, false };
        if (created.contains(shard)) {
            load.measured = true;
        } else if (const ShardMetricsValue* metrics = facts.shardMetrics(shard)) {
            load.docs = metrics->liveDocs;
            load.bytes = metrics->bytesEstimate;
            load.measured = true;
        }
        if (!created.contains(shard))
            load.spaces = map.spacesOn(shard).size();
        loads.push_back(std::move(load));
    }
    return loads;
}

std::string listSome(const std::vector<std::string>& items, std::size_t most = 5)
{
    std::string out;
    for (std::size_t i = 0; i < items.size() && i < most; ++i)
        out += (i ? ", " : "") + items[i];
    if (items.size() > most)
        out += " and " + std::to_string(items.size() - most) + " more";
    return out;
}

// An operation moves all of its spaces or none: one that is already migrating or pinned to a
// shard being emptied refuses the whole of it.
Status checkMovable(
    const MapSnapshot& map, const std::vector<const SpaceRecord*>& spaces, const std::set<std::string>& emptied)
{
    if (auto held = refuseHeld(map, spaces); !held)
        return held;
    std::vector<std::string> pinned;
    for (const SpaceRecord* space : spaces) {
        if (!space->pin.empty() && emptied.contains(space->pin))
            pinned.push_back(space->id + " (pinned to " + space->pin + ")");
    }
    if (!pinned.empty())
        return refusal("space(s) pinned where they are: " + listSome(pinned) + "; unpin them first");
    return {};
}

Move moveOf(const MapSnapshot& map, FleetFacts& facts, const SpaceRecord& space, const std::string& target)
{
    return { space, map.spaces.at(space.id).modRevision, target, facts.spaceSize(space), {} };
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

// The index settings (fields among them) of the shard the spaces come from, as its node reports
// them; none (the node's default) when it cannot say.
std::optional<IndexSettings> sourceSettings(const MapSnapshot& map, NodeClientPool& nodes, const std::string& fromShard)
{
    const ShardRecord* source = map.shard(fromShard);
    const NodeRecord* sourceNode = source ? map.node(source->node) : nullptr;
    auto sourceClient = sourceNode ? nodes.get(sourceNode->address) : Result<std::shared_ptr<NodeClient>>(nullptr);
    auto shards = sourceClient && *sourceClient ? (*sourceClient)->listShards()
                                                : Result<std::vector<ShardSummary>>(std::vector<ShardSummary> {});
    for (const auto& summary : shards ? *shards : std::vector<ShardSummary> {}) {
        if (summary.id != fromShard || summary.fields.empty())
            continue;
        auto settings = indexSettingsOf(summary);
        return settings ? std::optional<IndexSettings>(*settings) : std::nullopt;
    }
    return std::nullopt;
}

// The migration record and the marked space of one move of the operation.
std::pair<Mutation, Mutation> queueMove(const Move& move, const OperationRecord& operation, const OperationDraft& draft,
    const Actor& actor, std::string& migrationId)
{
    MigrationRecord migration;
    migration.id = migrationId = newMigrationId();
    migration.space = move.space.id;
    migration.source = move.space.shard;
    migration.target = move.target;
    migration.operation = operation.id;
    migration.requestedBy = actor.name;
    migration.reason
        = move.reason.empty() ? actor.reason : actor.reason + (actor.reason.empty() ? "" : "; ") + move.reason;
    migration.createdUnixMs = migration.updatedUnixMs = operation.createdUnixMs;
    SpaceRecord marked = move.space;
    marked.migrationId = migration.id;
    marked.phase = MigrationPhase::Queued;
    if (!draft.pin.empty())
        marked.pin = draft.pin;
    return { { keys::migration(migration.id), encode(migration), 0 },
        { keys::space(marked.id), encode(marked), move.modRevision } };
}

Error conflictWhilePlanning(const Error& error, const std::string& action)
{
    if (error.code == ErrorCode::Conflict)
        return makeError(ErrorCode::Conflict, "the shard map changed while the " + action + " was planned; try again");
    return error;
}

// The operation record of a draft, before its first commit (its shards' loads taken from it).
OperationRecord newOperationRecord(OperationDraft& draft, const Actor& actor)
{
    OperationRecord operation;
    operation.id = newOperationId();
    operation.kind = draft.kind;
    operation.subject = draft.subject;
    operation.into = draft.into;
    operation.requestedBy = actor.name;
    operation.reason = actor.reason;
    operation.createdUnixMs = operation.updatedUnixMs = nowUnixMs();
    operation.plannedMoves = draft.moves.size();
    operation.shardsBefore = std::move(draft.shardsBefore);
    return operation;
}

// The mutations of the next chunk after a slot for the operation record: the first chunk carries
// the shard and node changes, then as many moves as fit under limit (next: the first move not
// queued yet), each added to the operation's migrations.
std::vector<Mutation> nextOperationChunk(OperationDraft& draft, OperationRecord& operation, const Actor& actor,
    bool first, std::size_t limit, std::size_t& next)
{
    std::vector<Mutation> mutations(1);
    if (first) {
        for (auto& change : draft.changes)
            mutations.push_back(std::move(change));
    }
    while (next < draft.moves.size() && mutations.size() + 2 <= limit) {
        std::string migrationId;
        auto [migration, space] = queueMove(draft.moves[next++], operation, draft, actor, migrationId);
        mutations.push_back(std::move(migration));
        mutations.push_back(std::move(space));
        operation.migrations.push_back(migrationId);
    }
    return mutations;
}

// The operation as a chunk leaves it: queuing until the last chunk, then running (done at once
// when it has no moves).
void markOperationChunk(OperationRecord& operation, bool last, bool noMoves)
{
    operation.state = !last ? OperationState::Queuing : noMoves ? OperationState::Done : OperationState::Running;
    if (noMoves)
        operation.finishedUnixMs = operation.createdUnixMs;
    operation.updatedUnixMs = nowUnixMs();
}

std::string operationChunkReason(const Actor& actor, bool chunked, std::size_t queued, std::size_t planned)
{
    if (!chunked)
        return actor.reason;
    return actor.reason + (actor.reason.empty() ? "" : " ") + "(part " + std::to_string(queued) + "/"
        + std::to_string(planned) + " moves)";
}

// A chunk after the first failed: the chunks before stay queued and run; say so in the record
// (queued: the moves they hold) and to the caller.
Error partlyQueued(MetadataStore& store, OperationRecord& operation, std::uint64_t operationRevision,
    std::size_t queued, const Actor& actor, const Error& error)
{
    operation.migrations.resize(queued);
    operation.state = OperationState::Running;
    operation.error = "only " + std::to_string(queued) + " of " + std::to_string(operation.plannedMoves)
        + " moves were queued: " + error.message;
    (void)store.commit({ { { keys::operation(operation.id), encode(operation), operationRevision } }, std::nullopt,
        std::nullopt, actor.name, operationKindName(operation.kind), actor.reason });
    return makeError(error.code,
        "operation " + operation.id + ": " + operation.error + "; the queued ones run, plan again for the rest");
}

// Commits the operation record, its migrations and its shard and node changes: in one commit
// when the store takes that many mutations, else in chunks under one operation record that
// stays "queuing" until the last chunk (docs/MIGRATIONS.md says what a crash between chunks
// leaves). The first chunk carries the shard and node changes, so that a drained shard stops
// receiving new spaces before any of its moves is queued.
Result<OperationRecord> commitOperation(MetadataStore& store, OperationDraft draft, const Actor& actor)
{
    OperationRecord operation = newOperationRecord(draft, actor);
    const std::string action = operationKindName(draft.kind);
    const std::size_t limit = store.maxMutationsPerCommit();
    const std::size_t total = 1 + 2 * draft.moves.size() + draft.changes.size();
    const bool chunked = total > limit;
    if (chunked && 1 + draft.changes.size() + 2 > limit)
        return makeError(ErrorCode::InvalidArgument, "the " + action + " changes more records than one commit takes");
    std::size_t next = 0;
    std::uint64_t operationRevision = 0;
    bool first = true;
    while (first || next < draft.moves.size()) {
        std::vector<Mutation> mutations = nextOperationChunk(draft, operation, actor, first, limit, next);
        const bool last = next == draft.moves.size();
        markOperationChunk(operation, last, draft.moves.empty() && !draft.waitsForCopies);
        mutations.front() = { keys::operation(operation.id), encode(operation), operationRevision };
        const std::string reason
            = operationChunkReason(actor, chunked, operation.migrations.size(), draft.moves.size());
        auto committed = store.commit({ mutations, std::nullopt, std::nullopt, actor.name, action, reason });
        if (!committed && first)
            return conflictWhilePlanning(committed.error(), action);
        if (!committed) {
            const std::size_t queued = operation.migrations.size() - (mutations.size() - 1) / 2;
            return partlyQueued(store, operation, operationRevision, queued, actor, committed.error());
        }
        operationRevision = *committed;
        first = false;
        if (!last) {
            if (auto status = failpoint("operation.chunk.committed"); !status)
                return status.error();
        }
    }
    return operation;
}

// The template a reindex's new shard is built with: the one its record names.
Result<IndexTemplateRecord> builtLike(const MapSnapshot& map, const ShardRecord& shard)
{
    auto found = findTemplate(map, { shard.templateName, shard.templateVersion });
    if (!found)
        return makeError(found.error().code, "new shard " + shard.id + ": " + found.error().message);
    return found;
}

// What a plan's new shard is made with. A reindex's: the template its record names, with its
// source's engine. Any other: the index of the shard its spaces come from, and that shard's template.
Result<NewShard> newShardToMake(
    const MapSnapshot& map, NodeClientPool& nodes, const ShardRecord& shard, const std::string& from)
{
    NewShard made { shard.id, shard.node };
    if (!shard.templateName.empty()) {
        auto built = builtLike(map, shard);
        if (!built)
            return built.error();
        made.index = built->settings;
        made.templateName = built->name;
        made.templateVersion = built->version;
        made.engine = shard.engine;
        return made;
    }
    made.index = sourceSettings(map, nodes, from);
    if (const ShardRecord* source = map.shard(from)) {
        made.templateName = source->templateName;
        made.templateVersion = source->templateVersion;
    }
    return made;
}

// The plan's new shards on their nodes (core/fleet/shard_creation.h: the map lists them with the
// operation's commit), each with the fields of the shard its spaces come from and the engine the
// fleet's settings name; the changes that list them go first in `changes`.
Status createPlannedShards(const MapSnapshot& map, NodeClientPool& nodes, ShardCreation& creation, const Plan& plan,
    std::vector<Mutation>& changes)
{
    for (const ShardRecord& shard : plan.newShards) {
        if (auto status = checkNewShard(map, shard.id, shard.node); !status)
            return status;
    }
    std::vector<Mutation> listed;
    const auto reindexed = reindexShardsOf(plan.kind == "reindex" ? plan.into : std::string());
    const auto reindexing = reindexShardsOf(plan.kind == "reindex" ? plan.subject : std::string());
    for (const ShardRecord& shard : plan.newShards) {
        std::string from = plan.kind == "split" ? plan.subject : std::string();
        for (std::size_t i = 0; i < reindexed.size() && i < reindexing.size(); ++i) {
            if (reindexed[i] == shard.id)
                from = reindexing[i];
        }
        for (const PlannedMove& move : plan.moves) {
            if (from.empty() && move.to == shard.id)
                from = move.from;
        }
        auto toMake = newShardToMake(map, nodes, shard, from);
        if (!toMake)
            return toMake.error();
        const NewShard& made = *toMake;
        const std::vector<std::string> fields = made.index ? made.index->fieldNames() : std::vector<std::string> {};
        auto onNode = creation.onNode(map, made);
        if (!onNode)
            return onNode.error();
        ShardRecord record = shard; // the plan's state and capacity, the engine and template it was made with
        record.engine = onNode->engine;
        record.templateName = onNode->templateName;
        record.templateVersion = onNode->templateVersion;
        // With the fleet's replication factor: copies where the shard it comes from has its own.
        if (auto copied
            = creation.copiesLike(map, record, from, fields, "made with the shard by the " + plan.kind, made.index);
            !copied)
            return copied;
        listed.push_back({ keys::shard(record.id), encode(record), 0 });
    }
    changes.insert(changes.begin(), listed.begin(), listed.end());
    return {};
}

// A drain, merge or retire-node must move every space off what it empties: one that arrived
// there since the plan was made (a new space, a migration that ended there) would be left on a
// shard about to be drained or retired.
Status checkEmptied(const MapSnapshot& map, const Plan& plan, OperationKind kind)
{
    std::vector<std::string> shards;
    if (kind == OperationKind::Drain || kind == OperationKind::Merge)
        shards.push_back(plan.subject);
    if (kind == OperationKind::Reindex)
        shards = reindexShardsOf(plan.subject);
    if (kind == OperationKind::RetireNode) {
        for (const ShardRecord* shard : map.shardsOn(plan.subject))
            shards.push_back(shard->id);
    }
    std::set<std::string> moved(plan.remaining.begin(), plan.remaining.end());
    for (const PlannedMove& move : plan.moves)
        moved.insert(move.space);
    std::vector<std::string> left;
    for (const std::string& shard : shards) {
        for (const SpaceRecord* space : map.spacesOn(shard)) {
            const SpacePlacement placement = placementOf(map, *space);
            // A rollback copy leaves with the cleanup; only a shard to be retired must wait for it.
            if (moved.contains(space->id) || (kind == OperationKind::Drain && placement.rollbackCopyOn == shard))
                continue;
            left.push_back(placement.rollbackCopyOn == shard ? migrationHold(space->id, placement)
                                                             : space->id + " (on " + space->shard + ")");
        }
    }
    if (left.empty())
        return {};
    return makeError(ErrorCode::Conflict,
        "the shard map moved on since the plan was made: space(s) " + listSome(left) + " would stay on what the "
            + plan.kind + " empties; plan again");
}

// Conflict, listing what changed, when the map moved on in a way the plan's moves depend on.
Status checkPlanStillApplies(const MapSnapshot& map, const Plan& plan)
{
    const auto conflicts = plan.checkAgainst(map);
    if (conflicts.empty())
        return {};
    std::vector<std::string> lines;
    for (const auto& conflict : conflicts)
        lines.push_back(conflict.message);
    return makeError(ErrorCode::Conflict,
        "the shard map moved on since the plan was made at revision " + std::to_string(plan.baseRevision) + " (now "
            + std::to_string(map.revision) + "): " + listSome(lines) + "; plan again");
}

// A reindex's sources go draining (as a merge's source does); each must still be there.
Status reindexSourcesDrain(const MapSnapshot& map, const Plan& plan, std::vector<Mutation>& changes)
{
    for (const std::string& id : reindexShardsOf(plan.subject)) {
        const auto shard = map.shards.find(id);
        if (shard == map.shards.end())
            return unknownId("shard", id);
        if (shard->second.value.state == ShardState::Retired)
            return refusal("shard " + id + " is retired; there is nothing to reindex");
        if (shard->second.value.state != ShardState::Draining)
            changes.push_back(shardInState(shard->second, ShardState::Draining));
    }
    return {};
}

// The existing shard and node records an operation changes when it is queued (its new shards are
// listed as createPlannedShards made them).
Result<std::vector<Mutation>> operationChanges(const MapSnapshot& map, const Plan& plan, OperationKind kind)
{
    std::vector<Mutation> changes;
    const auto drained = [&](const std::string& id, ShardState state) {
        const auto shard = map.shards.find(id);
        if (shard != map.shards.end() && shard->second.value.state != state
            && shard->second.value.state != ShardState::Retired)
            changes.push_back(shardInState(shard->second, state));
    };
    switch (kind) {
    case OperationKind::Drain:
    case OperationKind::Merge: {
        const auto shard = map.shards.find(plan.subject);
        if (shard == map.shards.end())
            return unknownId("shard", plan.subject);
        if (shard->second.value.state == ShardState::Retired)
            return refusal("shard " + plan.subject + " is retired; there is nothing to " + plan.kind);
        drained(plan.subject, ShardState::Draining);
        break;
    }
    case OperationKind::Reindex:
        if (auto status = reindexSourcesDrain(map, plan, changes); !status)
            return status.error();
        break;
    case OperationKind::RetireNode: {
        const auto node = map.nodes.find(plan.subject);
        if (node == map.nodes.end())
            return unknownId("node", plan.subject);
        if (node->second.value.retired)
            return refusal("node " + plan.subject + " is already retired");
        // Nothing to move and no replica to make again elsewhere: the executor would have nothing
        // to wait for, so retire at once.
        const bool empty = plan.moves.empty() && replicasToMoveOff(map, plan.subject).empty();
        for (const ShardRecord* shard : map.shardsOn(plan.subject))
            drained(shard->id, empty ? ShardState::Retired : ShardState::Draining);
        if (empty) {
            NodeRecord retired = node->second.value;
            retired.retired = true;
            changes.push_back({ keys::node(plan.subject), encode(retired), node->second.modRevision });
        }
        break;
    }
    default: break;
    }
    return changes;
}

} // namespace

Result<PlannerInput> MigrationRequests::plannerInput()
{
    auto map = readMapSnapshot(m_store);
    if (!map)
        return map.error();
    FleetFacts facts(*map, m_nodes);
    return gatherPlannerInput(*map, facts);
}

Result<OperationRecord> MigrationRequests::applyPlan(const Plan& plan, const Actor& actor)
{
    const auto kind = parseOperationKind(plan.kind);
    if (!kind)
        return makeError(ErrorCode::InvalidArgument, "the plan's kind \"" + plan.kind + "\" is not an operation");
    if (plan.moves.empty() && *kind == OperationKind::Move && plan.newShards.empty())
        return makeError(ErrorCode::InvalidArgument, "the plan has no moves; nothing to queue");
    auto map = readMapSnapshot(m_store);
    if (!map)
        return map.error();
    if (auto status = checkPlanStillApplies(*map, plan); !status)
        return status.error();
    if (auto status = checkEmptied(*map, plan, *kind); !status)
        return status.error();
    auto changes = operationChanges(*map, plan, *kind);
    if (!changes)
        return changes.error();
    MapSnapshot target = *map;
    std::set<std::string> created;
    for (const ShardRecord& shard : plan.newShards) {
        target = withNewShard(target, shard);
        created.insert(shard.id);
    }
    FleetFacts facts(*map, m_nodes);
    std::vector<Move> moves;
    std::set<std::string> seen;
    for (const PlannedMove& planned : plan.moves) {
        const SpaceRecord* space = map->space(planned.space);
        if (!seen.insert(planned.space).second)
            return makeError(ErrorCode::InvalidArgument, "space " + planned.space + " is listed twice");
        Move move = moveOf(*map, facts, *space, planned.to);
        move.reason = planned.reason;
        moves.push_back(std::move(move));
    }
    if (auto status = preflightMoves(target, facts, moves, created); !status)
        return status.error();
    ShardCreation creation(m_nodes);
    if (auto status = createPlannedShards(*map, m_nodes, creation, plan, *changes); !status)
        return creation.takeBack(status.error(), m_store);
    auto measured = measureShards(*map, facts, moves, created);
    OperationDraft draft { *kind, plan.subject, plan.into, std::move(moves), std::move(*changes),
        *kind == OperationKind::Isolate ? plan.into : std::string(), std::move(measured),
        *kind == OperationKind::RetireNode && !replicasToMoveOff(*map, plan.subject).empty() };
    return creation.inMap(m_store, [&] { return commitOperation(m_store, std::move(draft), actor); });
}

namespace {

// Plans an operation on the map as it is now and queues the plan.
template <typename PlanFn>
Result<OperationRecord> planAndApply(MigrationRequests& requests, const Actor& actor, PlanFn plan)
{
    auto input = requests.plannerInput();
    if (!input)
        return input.error();
    auto planned = plan(*input);
    if (!planned)
        return planned.error();
    return requests.applyPlan(planned->plan, actor);
}

ShardRecord newShardRecord(const std::string& id, const std::string& node)
{
    return { id, node, ShardState::Active, 0, 0 };
}

// The node a new shard goes to when none is named: the node of `shard`.
std::string nodeOr(const PlannerInput& input, const std::string& node, const std::string& shard)
{
    if (!node.empty())
        return node;
    for (const PlannerShard& candidate : input.shards) {
        if (candidate.record.id == shard)
            return candidate.record.node;
    }
    return {};
}

} // namespace

Result<OperationRecord> MigrationRequests::drain(const std::string& shardId, const Actor& actor)
{
    return planAndApply(*this, actor, [&](const PlannerInput& input) { return planDrain(input, shardId); });
}

Result<OperationRecord> MigrationRequests::retireNode(const std::string& nodeId, const Actor& actor)
{
    return planAndApply(*this, actor, [&](const PlannerInput& input) { return planRetireNode(input, nodeId); });
}

Result<OperationRecord> MigrationRequests::split(
    const std::string& shardId, const std::string& newShard, const std::string& node, const Actor& actor)
{
    return planAndApply(*this, actor, [&](const PlannerInput& input) -> Result<PlanResult> {
        if (auto status = validateShardId(newShard); !status)
            return status.error();
        return planSplit(input, shardId, newShardRecord(newShard, nodeOr(input, node, shardId)));
    });
}

Result<OperationRecord> MigrationRequests::merge(const std::string& from, const std::string& into, const Actor& actor)
{
    return planAndApply(*this, actor, [&](const PlannerInput& input) { return planMerge(input, from, into); });
}

Result<OperationRecord> MigrationRequests::isolate(
    const std::string& spaceId, const std::string& newShard, const std::string& node, const Actor& actor)
{
    return planAndApply(*this, actor, [&](const PlannerInput& input) -> Result<PlanResult> {
        if (auto status = validateShardId(newShard); !status)
            return status.error();
        std::string home;
        for (const PlannerSpace& space : input.spaces) {
            if (space.id == spaceId)
                home = space.shard;
        }
        return planIsolate(input, spaceId, newShardRecord(newShard, nodeOr(input, node, home)));
    });
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
    if (auto status = checkMovable(*map, spaces, {}); !status)
        return status.error();
    if (auto status = preflightMoves(*map, facts, moves); !status)
        return status.error();
    const std::string subject = moves.size() == 1 ? moves.front().space.id : std::to_string(moves.size()) + " spaces";
    auto measured = measureShards(*map, facts, moves, {});
    OperationDraft draft { OperationKind::Move, subject, {}, std::move(moves), {}, {}, std::move(measured) };
    return commitOperation(m_store, std::move(draft), actor);
}

} // namespace shardmap::core
