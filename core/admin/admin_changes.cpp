#include "core/admin/admin_changes.h"

#include "core/auth/stored_access_policy.h"
#include "core/map/shard_map.h"
#include "core/plan/move_rules.h"
#include "core/plan/plan.h"
#include "core/plan/scenario.h"
#include "core/util/units.h"

#include <algorithm>
#include <map>
#include <set>

namespace shardmap::core {

std::string changeKind(const v1::AdminChange& change)
{
    switch (change.change_case()) {
    case v1::AdminChange::kQueueMigration: return "queue-migration";
    case v1::AdminChange::kSteerMigration:
        switch (change.steer_migration().action()) {
        case v1::SteerMigration::PAUSE: return "pause-migration";
        case v1::SteerMigration::RESUME: return "resume-migration";
        case v1::SteerMigration::CANCEL: return "cancel-migration";
        case v1::SteerMigration::ROLLBACK: return "rollback-migration";
        case v1::SteerMigration::ABANDON: return "abandon-migration";
        default: return "steer-migration";
        }
    case v1::AdminChange::kSetThrottle: return "set-throttle";
    case v1::AdminChange::kSetSettings: return "set-settings";
    case v1::AdminChange::kApplyPlan: return "apply-plan";
    case v1::AdminChange::kStartOperation: return change.start_operation().kind();
    case v1::AdminChange::kMoveSpaces: return "move-spaces";
    case v1::AdminChange::kAddNode: return "add-node";
    case v1::AdminChange::kRemoveNode: return "remove-node";
    case v1::AdminChange::kCreateShard: return "create-shard";
    case v1::AdminChange::kSetShardState: return "set-shard-state";
    case v1::AdminChange::kPinSpace: return change.pin_space().shard().empty() ? "unpin-space" : "pin-space";
    case v1::AdminChange::kReassignSpace: return "reassign-space";
    case v1::AdminChange::kSetAccessPolicy: return "set-access-policy";
    case v1::AdminChange::CHANGE_NOT_SET: break;
    }
    return "none";
}

namespace {

Error badChange(const std::string& message)
{
    return makeError(ErrorCode::InvalidArgument, message);
}

// The listed spaces' bytes from their owners' nodes, one call per shard. A sample taken before a
// space's first write says 0 bytes, and a change judged by it would pass every byte limit, so a
// space that cannot be measured refuses the change. Spaces the map does not have are left out:
// the change itself refuses them.
Result<std::map<std::string, std::uint64_t>> measureOnNodes(
    FleetAdmin& admin, const MapSnapshot& map, const std::vector<std::string>& spaces)
{
    std::map<std::string, std::vector<std::string>> byShard;
    for (const std::string& id : spaces) {
        if (const SpaceRecord* space = map.space(id))
            byShard[space->shard].push_back(id);
    }
    std::map<std::string, std::uint64_t> bytes;
    for (const auto& [shardId, ids] : byShard) {
        const auto cannot = [&](const std::string& why) {
            return makeError(ErrorCode::Unavailable,
                "cannot measure space " + ids.front() + " on shard " + shardId + ": " + why
                    + "; a change that moves a space is judged by its size, so try again when the node answers");
        };
        const ShardRecord* shard = map.shard(shardId);
        const NodeRecord* node = shard ? map.node(shard->node) : nullptr;
        if (!node)
            return cannot("the map names no node for the shard");
        auto client = admin.nodes().get(node->address);
        auto stats = client ? (*client)->spaceStats(shardId, ids) : Result<std::vector<SpaceStats>>(client.error());
        if (!stats)
            return cannot(
                "node " + node->id + " at " + node->address + " did not answer (" + stats.error().message + ")");
        for (const std::string& id : ids)
            bytes[id] = 0;
        for (const SpaceStats& entry : *stats)
            bytes[entry.space] = entry.bytesEstimate;
    }
    return bytes;
}

// The listed spaces' size: bytes from the sampled metrics, measured on the nodes where the
// sample has none or says 0.
Result<ChangeSize> sizeOf(
    FleetAdmin& admin, const std::vector<std::string>& spaces, const std::map<std::string, std::uint64_t>& sampled)
{
    std::vector<std::string> unsized;
    for (const std::string& space : spaces) {
        if (const auto found = sampled.find(space); found == sampled.end() || found->second == 0)
            unsized.push_back(space);
    }
    std::map<std::string, std::uint64_t> measured;
    if (!unsized.empty()) {
        auto map = admin.map().snapshot();
        if (!map)
            return map.error();
        auto exact = measureOnNodes(admin, *map, unsized);
        if (!exact)
            return exact.error();
        measured = std::move(*exact);
    }
    ChangeSize size;
    size.spaces = spaces.size();
    for (const std::string& space : spaces) {
        if (const auto found = measured.find(space); found != measured.end())
            size.bytes += found->second;
        else if (const auto sample = sampled.find(space); sample != sampled.end())
            size.bytes += sample->second;
    }
    return size;
}

// The bytes of the listed spaces, from the planner's view of the fleet (each space's owner
// measured them), and how many there are.
Result<ChangeSize> measureSpaces(FleetAdmin& admin, const std::vector<std::string>& spaces)
{
    auto input = admin.migrations().plannerInput();
    if (!input)
        return input.error();
    std::map<std::string, std::uint64_t> sampled;
    for (const PlannerSpace& space : input->spaces)
        sampled[space.id] = static_cast<std::uint64_t>(space.load.bytes);
    return sizeOf(admin, spaces, sampled);
}

std::vector<std::string> spacesOf(const Plan& plan)
{
    std::vector<std::string> spaces;
    for (const PlannedMove& move : plan.moves)
        spaces.push_back(move.space);
    return spaces;
}

std::string movesSummary(const std::string& what, const ChangeSize& size)
{
    return what + ": " + std::to_string(size.spaces) + (size.spaces == 1 ? " space, " : " spaces, ")
        + formatBytes(size.bytes);
}

// New shards an operator may create: active ones that a move of the plan fills (a split, an
// isolate, shards added to a rebalance). Anything else is CreateShard, an admin's.
void newShardEffects(const Plan& plan, std::vector<std::string>& effects)
{
    for (const ShardRecord& shard : plan.newShards) {
        const bool filled = std::any_of(
            plan.moves.begin(), plan.moves.end(), [&](const PlannedMove& move) { return move.to == shard.id; });
        if (shard.state != ShardState::Active)
            effects.push_back("it creates shard " + shard.id + " as " + shardStateName(shard.state)
                + "; creating a shard that is not active needs the admin role");
        else if (!filled)
            effects.push_back("it creates shard " + shard.id + " on node " + shard.node
                + " and moves no space into it; creating a shard needs the admin role");
    }
}

// A drain or merge sets its shard draining (migration_operations.cpp operationChanges). An
// operator may do that only as the end of moving every space off it; a plan that leaves spaces
// there, or moves none, is SetShardState, an admin's.
void drainEffects(const MapSnapshot& map, const Plan& plan, std::vector<std::string>& effects)
{
    if (plan.kind != "drain" && plan.kind != "merge")
        return;
    const ShardRecord* shard = map.shard(plan.subject);
    if (!shard || shard->state == ShardState::Draining || shard->state == ShardState::Retired)
        return;
    const bool movesOff = std::any_of(
        plan.moves.begin(), plan.moves.end(), [&](const PlannedMove& move) { return move.from == plan.subject; });
    const std::string because = "; setting a shard's state needs the admin role";
    if (!movesOff)
        effects.push_back("it sets shard " + plan.subject + " draining without moving a space off it" + because);
    else if (!plan.remaining.empty())
        effects.push_back("it sets shard " + plan.subject + " draining and leaves "
            + std::to_string(plan.remaining.size()) + (plan.remaining.size() == 1 ? " space" : " spaces") + " on it ("
            + plan.remaining.front() + (plan.remaining.size() > 1 ? ", ..." : "") + ")" + because);
}

// An isolate pins each space it moves to the shard it names (into); an operator's may pin only
// into a shard it creates and only the spaces it moves there. Other pins are PinSpace, an admin's.
void pinEffects(const Plan& plan, std::vector<std::string>& effects)
{
    if (plan.kind != "isolate")
        return;
    const bool created = std::any_of(
        plan.newShards.begin(), plan.newShards.end(), [&](const ShardRecord& shard) { return shard.id == plan.into; });
    for (const PlannedMove& move : plan.moves) {
        if (!created || move.to != plan.into) {
            effects.push_back("it pins space " + move.space + " to shard " + plan.into
                + (created ? " while moving it to " + move.to : std::string(", a shard it does not create"))
                + "; pinning a space needs the admin role");
            return;
        }
    }
}

// What applying the plan does besides queueing its moves (MigrationRequests::applyPlan: shards
// created on nodes and in the map, shard states, pins) that an operator may not do on its own.
Result<std::vector<std::string>> planAdminEffects(FleetAdmin& admin, const Plan& plan)
{
    auto map = admin.map().snapshot();
    if (!map)
        return map.error();
    std::vector<std::string> effects;
    newShardEffects(plan, effects);
    drainEffects(*map, plan, effects);
    pinEffects(plan, effects);
    return effects;
}

Result<PreparedChange> preparePlan(FleetAdmin& admin, PreparedChange prepared, const Plan& plan)
{
    auto size = measureSpaces(admin, spacesOf(plan));
    if (!size)
        return size.error();
    auto effects = planAdminEffects(admin, plan);
    if (!effects)
        return effects.error();
    prepared.size = *size;
    prepared.size.adminEffects = std::move(*effects);
    prepared.size.retiresNode = plan.kind == "retire-node";
    std::string what = plan.kind == "move" ? std::string("move") : plan.kind + " " + plan.subject;
    if (!plan.into.empty())
        what += " into " + plan.into;
    prepared.summary = movesSummary(what, prepared.size);
    return prepared;
}

std::optional<Scenario> operationScenario(const std::string& kind)
{
    auto scenario = parseScenario(kind);
    if (!scenario || *scenario == Scenario::Rebalance || *scenario == Scenario::AddShards)
        return std::nullopt;
    return scenario;
}

// A policy change is judged, approved and made against the policy it was asked on: the
// revision is recorded in the change, and an approval that comes after the policy moved on is
// refused rather than put back what changed since.
Result<PreparedChange> preparePolicy(FleetAdmin& admin, PreparedChange prepared)
{
    auto wanted = AccessPolicy::parse(prepared.change.set_access_policy().policy_json(), "the policy");
    if (!wanted)
        return wanted.error();
    auto current = readStoredAccessPolicy(admin.store());
    if (!current)
        return current.error();
    auto& policyChange = *prepared.change.mutable_set_access_policy();
    if (policyChange.has_policy_revision()) {
        if (auto status = checkPolicyBase(*current, policyChange.policy_revision()); !status)
            return status.error();
    }
    policyChange.set_policy_revision(current->revision);
    prepared.size.loosenedAccess = loosenedAccess(current->policy, *wanted);
    prepared.size.policyChanges = accessPolicyChanges(current->policy, *wanted);
    prepared.summary = "change the Admin API's policy (roles, limits, approval thresholds)";
    for (const std::string& loosened : prepared.size.loosenedAccess)
        prepared.summary += (loosened == prepared.size.loosenedAccess.front() ? ": " : ", ") + loosened;
    return prepared;
}

} // namespace

std::vector<std::string> raisedLimits(const MigrationSettings& before, const MigrationSettings& after)
{
    std::vector<std::string> raised;
    auto limit = [&](const char* name, std::uint64_t was, std::uint64_t now, bool zeroUnlimited) {
        const bool up = zeroUnlimited ? (was != 0 && (now == 0 || now > was)) : now > was;
        if (up) {
            auto text = [&](std::uint64_t v) {
                return zeroUnlimited && v == 0 ? std::string("unlimited") : std::to_string(v);
            };
            raised.push_back(std::string(name) + " " + text(was) + " -> " + text(now));
        }
    };
    limit("max_concurrent", before.maxConcurrent, after.maxConcurrent, true);
    limit("max_per_node", before.maxPerNode, after.maxPerNode, true);
    limit("max_per_shard", before.maxPerShard, after.maxPerShard, true);
    limit("default_throttle", before.defaultThrottleDocsPerSecond, after.defaultThrottleDocsPerSecond, true);
    limit("cleanup_rows_per_second", before.cleanupRowsPerSecond, after.cleanupRowsPerSecond, true);
    limit("backfill_batch", before.backfillBatch, after.backfillBatch, false);
    limit("max_repairs", before.maxRepairs, after.maxRepairs, false);
    if (after.maxTargetFill > before.maxTargetFill)
        raised.push_back("max_target_fill " + std::to_string(before.maxTargetFill).substr(0, 4) + " -> "
            + std::to_string(after.maxTargetFill).substr(0, 4));
    return raised;
}

Result<PreparedChange> prepareChange(FleetAdmin& admin, const v1::AdminChange& change)
{
    PreparedChange prepared;
    prepared.change = change;
    switch (change.change_case()) {
    case v1::AdminChange::CHANGE_NOT_SET: return badChange("the request names no change");
    case v1::AdminChange::kQueueMigration: {
        const auto& queue = change.queue_migration();
        if (queue.space().empty() || queue.target_shard().empty())
            return badChange("queue_migration needs a space and a target shard");
        auto map = admin.map().snapshot();
        if (!map)
            return map.error();
        const PreflightFacts facts = gatherPreflightFacts(*map, admin.nodes(), queue.space(), queue.target_shard());
        auto size = sizeOf(admin, { queue.space() }, { { queue.space(), facts.spaceBytes } });
        if (!size)
            return size.error();
        prepared.size = *size;
        prepared.summary = movesSummary("move " + queue.space() + " to " + queue.target_shard(), prepared.size);
        return prepared;
    }
    case v1::AdminChange::kMoveSpaces: {
        std::vector<std::string> spaces;
        for (const auto& move : change.move_spaces().moves())
            spaces.push_back(move.space());
        if (spaces.empty())
            return badChange("move_spaces lists no moves");
        auto size = measureSpaces(admin, spaces);
        if (!size)
            return size.error();
        prepared.size = *size;
        prepared.summary = movesSummary("move", prepared.size);
        return prepared;
    }
    case v1::AdminChange::kApplyPlan: {
        auto plan = Plan::decode(change.apply_plan().plan_json());
        if (!plan)
            return plan.error();
        return preparePlan(admin, std::move(prepared), *plan);
    }
    case v1::AdminChange::kStartOperation: {
        const auto& operation = change.start_operation();
        const auto scenario = operationScenario(operation.kind());
        if (!scenario)
            return badChange(
                "unknown operation '" + operation.kind() + "' (drain, retire-node, split, merge, isolate)");
        auto input = admin.migrations().plannerInput();
        if (!input)
            return input.error();
        ScenarioRequest request;
        request.scenario = *scenario;
        request.subjects = { operation.subject() };
        if (*scenario == Scenario::Split || *scenario == Scenario::Isolate)
            request.newShard = operation.into();
        else
            request.into = operation.into();
        request.node = operation.node();
        auto planned = planScenario(*input, request, PlannerOptions {});
        if (!planned)
            return planned.error();
        // What is judged, approved and queued is this plan: the map may change before an
        // approver looks, and the plan is then refused rather than re-planned unseen.
        prepared.change.mutable_apply_plan()->set_plan_json(planned->plan.encode());
        return preparePlan(admin, std::move(prepared), planned->plan);
    }
    case v1::AdminChange::kSetSettings: {
        auto wanted = readMigrationSettings(change.set_settings().settings_json());
        if (!wanted)
            return wanted.error();
        auto current = admin.migrations().settings();
        if (!current)
            return current.error();
        prepared.size.raisedLimits = raisedLimits(*current, *wanted);
        prepared.summary = "change the executor's settings";
        for (const std::string& raised : prepared.size.raisedLimits)
            prepared.summary += (raised == prepared.size.raisedLimits.front() ? ": " : ", ") + raised;
        return prepared;
    }
    case v1::AdminChange::kSteerMigration:
        if (change.steer_migration().migration().empty()
            || change.steer_migration().action() == v1::SteerMigration::ACTION_UNSPECIFIED)
            return badChange("steer_migration needs a migration and an action");
        prepared.summary = changeKind(change) + " " + change.steer_migration().migration();
        return prepared;
    case v1::AdminChange::kSetThrottle:
        prepared.summary = "throttle " + change.set_throttle().migration() + " to "
            + std::to_string(change.set_throttle().docs_per_second()) + " docs/s";
        return prepared;
    case v1::AdminChange::kAddNode:
        prepared.summary = "add node " + change.add_node().id() + " at " + change.add_node().address();
        return prepared;
    case v1::AdminChange::kRemoveNode: prepared.summary = "remove node " + change.remove_node().id(); return prepared;
    case v1::AdminChange::kCreateShard:
        prepared.summary = "create shard " + change.create_shard().id() + " on " + change.create_shard().node();
        return prepared;
    case v1::AdminChange::kSetShardState:
        prepared.summary = "set shard " + change.set_shard_state().shard() + " " + change.set_shard_state().state();
        return prepared;
    case v1::AdminChange::kPinSpace:
        prepared.summary = change.pin_space().shard().empty()
            ? "unpin " + change.pin_space().space()
            : "pin " + change.pin_space().space() + " to " + change.pin_space().shard();
        return prepared;
    case v1::AdminChange::kReassignSpace:
        prepared.summary = "reassign " + change.reassign_space().space() + " to " + change.reassign_space().shard();
        return prepared;
    case v1::AdminChange::kSetAccessPolicy: return preparePolicy(admin, std::move(prepared));
    }
    return badChange("unknown change");
}

namespace {

bool movesSpaces(const v1::AdminChange& change)
{
    return change.has_queue_migration() || change.has_move_spaces() || change.has_apply_plan()
        || change.has_start_operation();
}

bool overLimit(std::uint64_t value, std::uint64_t limit)
{
    return limit != 0 && value > limit;
}

} // namespace

Role requiredRole(const PreparedChange& prepared, const OperatorLimits& limits)
{
    const v1::AdminChange& change = prepared.change;
    if (change.has_steer_migration())
        return change.steer_migration().action() == v1::SteerMigration::ABANDON ? Role::Admin : Role::Operator;
    if (change.has_set_throttle())
        return Role::Operator;
    if (movesSpaces(change)) {
        if (prepared.size.retiresNode || !prepared.size.adminEffects.empty()
            || overLimit(prepared.size.spaces, limits.maxSpaces) || overLimit(prepared.size.bytes, limits.maxBytes))
            return Role::Admin;
        return Role::Operator;
    }
    // Nodes, shards, pins, reassignments and settings.
    return Role::Admin;
}

std::string whyRole(const PreparedChange& prepared, const OperatorLimits& limits)
{
    const std::string kind = changeKind(prepared.change);
    if (requiredRole(prepared, limits) != Role::Admin)
        return kind + " needs the operator role";
    if (prepared.size.retiresNode)
        return "retiring a node needs the admin role";
    if (!prepared.size.adminEffects.empty()) {
        std::string effects;
        for (const std::string& effect : prepared.size.adminEffects)
            effects += (effects.empty() ? "" : "; ") + effect;
        return effects;
    }
    if (movesSpaces(prepared.change)) {
        if (overLimit(prepared.size.spaces, limits.maxSpaces))
            return "it moves " + std::to_string(prepared.size.spaces) + " spaces; an operator may move "
                + std::to_string(limits.maxSpaces) + " at once, more needs the admin role";
        return "it moves " + formatBytes(prepared.size.bytes) + "; an operator may move " + formatBytes(limits.maxBytes)
            + " at once, more needs the admin role";
    }
    return kind + " needs the admin role";
}

std::string approvalNeed(const PreparedChange& prepared, const ApprovalThresholds& thresholds)
{
    if (!prepared.size.loosenedAccess.empty()) {
        std::string loosened;
        for (const std::string& entry : prepared.size.loosenedAccess)
            loosened += (loosened.empty() ? "" : ", ") + entry;
        return "it loosens the access policy (" + loosened + ")";
    }
    if (prepared.size.retiresNode && thresholds.retireNode)
        return "it retires a node";
    if (overLimit(prepared.size.spaces, thresholds.maxSpaces))
        return "it moves " + std::to_string(prepared.size.spaces) + " spaces; more than "
            + std::to_string(thresholds.maxSpaces) + " need a second person's approval";
    if (overLimit(prepared.size.bytes, thresholds.maxBytes))
        return "it moves " + formatBytes(prepared.size.bytes) + "; more than " + formatBytes(thresholds.maxBytes)
            + " needs a second person's approval";
    if (thresholds.raiseLimits && !prepared.size.raisedLimits.empty()) {
        std::string raised;
        for (const std::string& limit : prepared.size.raisedLimits)
            raised += (raised.empty() ? "" : ", ") + limit;
        return "it raises limits (" + raised + ")";
    }
    return {};
}

namespace {

v1::ChangeResponse recordResponse(MetadataStore& store, const std::string& kind, const std::string& json)
{
    v1::ChangeResponse response;
    response.set_record_kind(kind);
    response.set_record_json(json);
    if (auto revision = store.currentRevision())
        response.set_revision(*revision);
    return response;
}

v1::ChangeResponse revisionResponse(std::uint64_t revision, const std::string& kind = {})
{
    v1::ChangeResponse response;
    response.set_revision(revision);
    response.set_record_kind(kind);
    return response;
}

template <typename R, typename F>
Result<v1::ChangeResponse> withRecord(MetadataStore& store, const char* kind, R result, F encodeRecord)
{
    if (!result)
        return result.error();
    return recordResponse(store, kind, encodeRecord(*result));
}

} // namespace

std::string describeOutcome(const v1::ChangeResponse& response)
{
    const std::string at = "revision " + std::to_string(response.revision());
    std::string id;
    if (response.record_kind() == "operation") {
        if (auto operation = decodeOperation(response.record_json()))
            id = operation->id;
    } else if (response.record_kind() == "migration") {
        if (auto migration = decodeMigration(response.record_json()))
            id = migration->id;
    }
    if (id.empty())
        return response.record_kind().empty() ? at : response.record_kind() + " at " + at;
    return response.record_kind() + " " + id + " at " + at;
}

Result<v1::ChangeResponse> applyChange(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor)
{
    MigrationRequests& migrations = admin.migrations();
    MetadataStore& store = admin.store();
    auto encodeMigration = [](const MigrationRecord& record) { return encode(record); };
    auto encodeOperation = [](const OperationRecord& record) { return encode(record); };
    switch (change.change_case()) {
    case v1::AdminChange::CHANGE_NOT_SET: return badChange("the request names no change");
    case v1::AdminChange::kQueueMigration: {
        const auto& queue = change.queue_migration();
        return withRecord(store, "migration",
            migrations.queue(queue.space(), queue.target_shard(), actor, queue.throttle()), encodeMigration);
    }
    case v1::AdminChange::kSteerMigration: {
        const std::string& id = change.steer_migration().migration();
        switch (change.steer_migration().action()) {
        case v1::SteerMigration::PAUSE:
            return withRecord(store, "migration", migrations.pause(id, actor), encodeMigration);
        case v1::SteerMigration::RESUME:
            return withRecord(store, "migration", migrations.resume(id, actor), encodeMigration);
        case v1::SteerMigration::CANCEL:
            return withRecord(store, "migration", migrations.cancel(id, actor), encodeMigration);
        case v1::SteerMigration::ROLLBACK:
            return withRecord(store, "migration", migrations.rollback(id, actor), encodeMigration);
        case v1::SteerMigration::ABANDON:
            return withRecord(store, "migration", migrations.abandon(id, actor), encodeMigration);
        default: return badChange("steer_migration needs an action (pause, resume, cancel, rollback, abandon)");
        }
    }
    case v1::AdminChange::kSetThrottle:
        return withRecord(store, "migration",
            migrations.setThrottle(change.set_throttle().migration(), change.set_throttle().docs_per_second(), actor),
            encodeMigration);
    case v1::AdminChange::kSetSettings: {
        auto settings = readMigrationSettings(change.set_settings().settings_json());
        if (!settings)
            return settings.error();
        auto revision = migrations.setSettings(*settings, actor);
        if (!revision)
            return revision.error();
        v1::ChangeResponse response = revisionResponse(*revision, "settings");
        response.set_record_json(encode(*settings));
        return response;
    }
    case v1::AdminChange::kApplyPlan: {
        auto plan = Plan::decode(change.apply_plan().plan_json());
        if (!plan)
            return plan.error();
        return withRecord(store, "operation", migrations.applyPlan(*plan, actor), encodeOperation);
    }
    case v1::AdminChange::kStartOperation: {
        const auto& operation = change.start_operation();
        const std::string& kind = operation.kind();
        Result<OperationRecord> started = badChange("unknown operation '" + kind + "'");
        if (kind == "drain")
            started = migrations.drain(operation.subject(), actor);
        else if (kind == "retire-node")
            started = migrations.retireNode(operation.subject(), actor);
        else if (kind == "split")
            started = migrations.split(operation.subject(), operation.into(), operation.node(), actor);
        else if (kind == "merge")
            started = migrations.merge(operation.subject(), operation.into(), actor);
        else if (kind == "isolate")
            started = migrations.isolate(operation.subject(), operation.into(), operation.node(), actor);
        return withRecord(store, "operation", std::move(started), encodeOperation);
    }
    case v1::AdminChange::kMoveSpaces: {
        std::vector<std::pair<std::string, std::string>> moves;
        for (const auto& move : change.move_spaces().moves())
            moves.emplace_back(move.space(), move.target_shard());
        return withRecord(store, "operation", migrations.moveSpaces(moves, actor), encodeOperation);
    }
    case v1::AdminChange::kAddNode: {
        const auto& node = change.add_node();
        NodeRecord record { node.id(), node.address(), { node.labels().begin(), node.labels().end() }, false };
        auto revision = admin.map().addNode(record, actor);
        if (!revision)
            return revision.error();
        v1::ChangeResponse response = revisionResponse(*revision, "node");
        response.set_record_json(encode(record));
        return response;
    }
    case v1::AdminChange::kRemoveNode: {
        auto revision = admin.map().removeNode(change.remove_node().id(), actor);
        if (!revision)
            return revision.error();
        return revisionResponse(*revision, "node");
    }
    case v1::AdminChange::kCreateShard: {
        const auto& shard = change.create_shard();
        FleetAdmin::ShardSpec spec { shard.id(), shard.node(), { shard.fields().begin(), shard.fields().end() },
            shard.capacity_docs(), shard.capacity_bytes() };
        auto revision = admin.createShard(spec, actor);
        if (!revision)
            return revision.error();
        return revisionResponse(*revision, "shard");
    }
    case v1::AdminChange::kSetShardState: {
        const auto state = parseShardState(change.set_shard_state().state());
        if (!state)
            return badChange(
                "unknown shard state '" + change.set_shard_state().state() + "' (active, draining, readonly, retired)");
        auto revision = admin.map().setShardState(change.set_shard_state().shard(), *state, actor);
        if (!revision)
            return revision.error();
        return revisionResponse(*revision, "shard");
    }
    case v1::AdminChange::kPinSpace: {
        const auto& pin = change.pin_space();
        auto revision = pin.shard().empty() ? admin.map().unpinSpace(pin.space(), actor)
                                            : admin.map().pinSpace(pin.space(), pin.shard(), actor);
        if (!revision)
            return revision.error();
        return revisionResponse(*revision, "space");
    }
    case v1::AdminChange::kSetAccessPolicy: {
        const auto& policy = change.set_access_policy();
        auto revision = storeAccessPolicy(store, policy.policy_json(), actor,
            policy.has_policy_revision() ? std::optional(policy.policy_revision()) : std::nullopt);
        if (!revision)
            return revision.error();
        return revisionResponse(*revision, "policy");
    }
    case v1::AdminChange::kReassignSpace: {
        auto reassigned = admin.reassignSpace(change.reassign_space().space(), change.reassign_space().shard(), actor);
        if (!reassigned)
            return reassigned.error();
        v1::ChangeResponse response = recordResponse(store, "space", encode(reassigned->space));
        for (const std::string& warning : reassigned->warnings)
            response.add_warnings(warning);
        return response;
    }
    }
    return badChange("unknown change");
}

} // namespace shardmap::core
