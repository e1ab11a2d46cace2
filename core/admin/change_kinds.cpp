// The table of change kinds: each kind's small steps (its texts, how it is prepared, who may make
// it, how it is made), grouped by kind, and the table at the end that names them.
#include "core/admin/change_kinds.h"

#include "core/admin/admin_limits.h"
#include "core/admin/change_kind_steps.h"
#include "core/admin/change_sizes.h"
#include "core/auth/stored_access_policy.h"
#include "core/map/copy_placement.h"
#include "core/plan/scenario.h"
#include "core/util/validation.h"

#include <algorithm>
#include <iterator>

namespace shardmap::core {

namespace change_steps {

Error malformedChange(const std::string& message)
{
    return makeError(ErrorCode::InvalidArgument, message);
}

Role adminRole(const PreparedChange&, const OperatorLimits&)
{
    return Role::Admin;
}

v1::ChangeResponse recordResponse(MetadataStore& store, const std::string& kind, const std::string& json)
{
    v1::ChangeResponse response;
    response.set_record_kind(kind);
    response.set_record_json(json);
    if (auto revision = store.currentRevision())
        response.set_revision(*revision);
    return response;
}

Result<v1::ChangeResponse> revisionResponse(
    const Result<std::uint64_t>& revision, const std::string& kind, const std::string& json)
{
    if (!revision)
        return revision.error();
    v1::ChangeResponse response;
    response.set_revision(*revision);
    response.set_record_kind(kind);
    response.set_record_json(json);
    return response;
}

} // namespace change_steps

namespace {

using namespace change_steps;

// Who may make a change: adminRole (change_kind_steps.h), and these.

Role operatorRole(const PreparedChange&, const OperatorLimits&)
{
    return Role::Operator;
}

// A change that moves spaces is an operator's within the operator's limits, unless it retires a
// node or does what only an admin may (ChangeSize::adminEffects).
Role operatorWithinLimits(const PreparedChange& prepared, const OperatorLimits& limits)
{
    if (prepared.size.retiresNode || !prepared.size.adminEffects.empty()
        || overLimit(prepared.size.spaces, limits.maxSpaces) || overLimit(prepared.size.bytes, limits.maxBytes))
        return Role::Admin;
    return Role::Operator;
}

// What a made change answers: recordResponse, revisionResponse (change_kind_steps.h), and these.

Result<v1::ChangeResponse> migrationResponse(MetadataStore& store, const Result<MigrationRecord>& made)
{
    if (!made)
        return made.error();
    return recordResponse(store, "migration", encode(*made));
}

Result<v1::ChangeResponse> operationResponse(MetadataStore& store, const Result<OperationRecord>& made)
{
    if (!made)
        return made.error();
    return recordResponse(store, "operation", encode(*made));
}

// queue-migration: one space to a shard, measured by the preflight's facts.

Status checkQueueText(const v1::AdminChange& change)
{
    const auto& queue = change.queue_migration();
    return checkTextBounds("change.queue_migration.",
        { { "space", queue.space(), kMaxSpaceIdLength }, { "target_shard", queue.target_shard(), kMaxShardIdLength } });
}

Result<PreparedChange> prepareQueue(FleetAdmin& admin, PreparedChange prepared)
{
    const auto& queue = prepared.change.queue_migration();
    if (queue.space().empty() || queue.target_shard().empty())
        return malformedChange("queue_migration needs a space and a target shard");
    auto map = admin.map().snapshot();
    if (!map)
        return map.error();
    const PreflightFacts facts = gatherPreflightFacts(*map, admin.nodes(), queue.space(), queue.target_shard());
    auto size = sizeOfSpaces(admin, { queue.space() }, { { queue.space(), facts.spaceBytes } });
    if (!size)
        return size.error();
    prepared.size = *size;
    prepared.summary = movesSummary("move " + queue.space() + " to " + queue.target_shard(), prepared.size);
    return prepared;
}

Result<v1::ChangeResponse> applyQueue(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor)
{
    const auto& queue = change.queue_migration();
    return migrationResponse(
        admin.store(), admin.migrations().queue(queue.space(), queue.target_shard(), actor, queue.throttle()));
}

// steer-migration: pause, resume, cancel, roll back or abandon one; abandoning is an admin's.

std::string steerName(const v1::AdminChange& change)
{
    switch (change.steer_migration().action()) {
    case v1::SteerMigration::PAUSE: return "pause-migration";
    case v1::SteerMigration::RESUME: return "resume-migration";
    case v1::SteerMigration::CANCEL: return "cancel-migration";
    case v1::SteerMigration::ROLLBACK: return "rollback-migration";
    case v1::SteerMigration::ABANDON: return "abandon-migration";
    default: return "steer-migration";
    }
}

Status checkSteerText(const v1::AdminChange& change)
{
    return checkTextBounds(
        "change.steer_migration.", { { "migration", change.steer_migration().migration(), kMaxNameBytes } });
}

Result<PreparedChange> prepareSteer(FleetAdmin&, PreparedChange prepared)
{
    const auto& steer = prepared.change.steer_migration();
    if (steer.migration().empty() || steer.action() == v1::SteerMigration::ACTION_UNSPECIFIED)
        return malformedChange("steer_migration needs a migration and an action");
    prepared.summary = steerName(prepared.change) + " " + steer.migration();
    return prepared;
}

Role steerRole(const PreparedChange& prepared, const OperatorLimits&)
{
    return prepared.change.steer_migration().action() == v1::SteerMigration::ABANDON ? Role::Admin : Role::Operator;
}

Result<v1::ChangeResponse> applySteer(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor)
{
    MigrationRequests& migrations = admin.migrations();
    const std::string& id = change.steer_migration().migration();
    switch (change.steer_migration().action()) {
    case v1::SteerMigration::PAUSE: return migrationResponse(admin.store(), migrations.pause(id, actor));
    case v1::SteerMigration::RESUME: return migrationResponse(admin.store(), migrations.resume(id, actor));
    case v1::SteerMigration::CANCEL: return migrationResponse(admin.store(), migrations.cancel(id, actor));
    case v1::SteerMigration::ROLLBACK: return migrationResponse(admin.store(), migrations.rollback(id, actor));
    case v1::SteerMigration::ABANDON: return migrationResponse(admin.store(), migrations.abandon(id, actor));
    default: return malformedChange("steer_migration needs an action (pause, resume, cancel, rollback, abandon)");
    }
}

// set-throttle: one migration's docs per second.

Status checkThrottleText(const v1::AdminChange& change)
{
    return checkTextBounds(
        "change.set_throttle.", { { "migration", change.set_throttle().migration(), kMaxNameBytes } });
}

std::string throttleSummary(const v1::AdminChange& change)
{
    return "throttle " + change.set_throttle().migration() + " to "
        + std::to_string(change.set_throttle().docs_per_second()) + " docs/s";
}

Result<v1::ChangeResponse> applyThrottle(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor)
{
    const auto& throttle = change.set_throttle();
    return migrationResponse(
        admin.store(), admin.migrations().setThrottle(throttle.migration(), throttle.docs_per_second(), actor));
}

// set-settings: the executor's settings, and the limits they raise.

Status checkSettingsText(const v1::AdminChange& change)
{
    return checkTextBounds(
        "change.set_settings.", { { "settings_json", change.set_settings().settings_json(), kMaxSettingsJsonBytes } });
}

Result<PreparedChange> prepareSettings(FleetAdmin& admin, PreparedChange prepared)
{
    auto wanted = readMigrationSettings(prepared.change.set_settings().settings_json());
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

Result<v1::ChangeResponse> applySettings(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor)
{
    auto settings = readMigrationSettings(change.set_settings().settings_json());
    if (!settings)
        return settings.error();
    // FleetAdmin's: the replication factor and write quorum are checked against the fleet.
    return revisionResponse(admin.setSettings(*settings, actor), "settings", encode(*settings));
}

// apply-plan: a plan's moves, new shards, states and pins, as it was made.

Status checkPlanText(const v1::AdminChange& change)
{
    return checkTextBounds(
        "change.apply_plan.", { { "plan_json", change.apply_plan().plan_json(), kMaxPlanJsonBytes } });
}

Result<PreparedChange> preparePlanChange(FleetAdmin& admin, PreparedChange prepared)
{
    auto plan = Plan::decode(prepared.change.apply_plan().plan_json());
    if (!plan)
        return plan.error();
    return preparePlan(admin, std::move(prepared), *plan);
}

Result<v1::ChangeResponse> applyPlanChange(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor)
{
    auto plan = Plan::decode(change.apply_plan().plan_json());
    if (!plan)
        return plan.error();
    return operationResponse(admin.store(), admin.migrations().applyPlan(*plan, actor));
}

// start-operation: drain, retire-node, split, merge or isolate, planned when it is prepared.

Status checkOperationText(const v1::AdminChange& change)
{
    const auto& operation = change.start_operation();
    // The subject is a shard, a node or a space: the longest of those ids.
    return checkTextBounds("change.start_operation.",
        { { "kind", operation.kind(), kMaxNameBytes }, { "subject", operation.subject(), kMaxSpaceIdLength },
            { "into", operation.into(), kMaxShardIdLength }, { "node", operation.node(), kMaxShardIdLength } });
}

std::string operationName(const v1::AdminChange& change)
{
    return change.start_operation().kind();
}

std::optional<Scenario> operationScenario(const std::string& kind)
{
    auto scenario = parseScenario(kind);
    if (!scenario || *scenario == Scenario::Rebalance || *scenario == Scenario::AddShards)
        return std::nullopt;
    return scenario;
}

ScenarioRequest operationRequest(const v1::StartOperation& operation, Scenario scenario)
{
    ScenarioRequest request;
    request.scenario = scenario;
    request.subjects = { operation.subject() };
    if (scenario == Scenario::Split || scenario == Scenario::Isolate)
        request.newShard = operation.into();
    else
        request.into = operation.into();
    request.node = operation.node();
    return request;
}

Result<PreparedChange> prepareOperation(FleetAdmin& admin, PreparedChange prepared)
{
    const auto& operation = prepared.change.start_operation();
    const auto scenario = operationScenario(operation.kind());
    if (!scenario)
        return malformedChange(
            "unknown operation '" + operation.kind() + "' (drain, retire-node, split, merge, isolate)");
    auto input = admin.migrations().plannerInput();
    if (!input)
        return input.error();
    auto planned = planScenario(*input, operationRequest(operation, *scenario), PlannerOptions {});
    if (!planned)
        return planned.error();
    // What is judged, approved and queued is this plan: the map may change before an
    // approver looks, and the plan is then refused rather than re-planned unseen.
    prepared.change.mutable_apply_plan()->set_plan_json(planned->plan.encode());
    return preparePlan(admin, std::move(prepared), planned->plan);
}

Result<OperationRecord> startOperation(
    MigrationRequests& migrations, const v1::StartOperation& operation, const Actor& actor)
{
    const std::string& kind = operation.kind();
    if (kind == "drain")
        return migrations.drain(operation.subject(), actor);
    if (kind == "retire-node")
        return migrations.retireNode(operation.subject(), actor);
    if (kind == "split")
        return migrations.split(operation.subject(), operation.into(), operation.node(), actor);
    if (kind == "merge")
        return migrations.merge(operation.subject(), operation.into(), actor);
    if (kind == "isolate")
        return migrations.isolate(operation.subject(), operation.into(), operation.node(), actor);
    return malformedChange("unknown operation '" + kind + "'");
}

Result<v1::ChangeResponse> applyOperation(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor)
{
    return operationResponse(admin.store(), startOperation(admin.migrations(), change.start_operation(), actor));
}

// move-spaces: spaces to shards named by the caller, as one operation.

Status checkMovesText(const v1::AdminChange& change)
{
    const auto& moves = change.move_spaces();
    const std::string where = "change.move_spaces.moves";
    if (static_cast<std::size_t>(moves.moves_size()) > kMaxMovesPerRequest)
        return overTextBound(where, static_cast<std::size_t>(moves.moves_size()), kMaxMovesPerRequest, "moves");
    for (const auto& move : moves.moves()) {
        if (auto status = checkTextBounds(where + ".",
                { { "space", move.space(), kMaxSpaceIdLength },
                    { "target_shard", move.target_shard(), kMaxShardIdLength } });
            !status)
            return status;
    }
    return {};
}

Result<PreparedChange> prepareMoves(FleetAdmin& admin, PreparedChange prepared)
{
    std::vector<std::string> spaces;
    for (const auto& move : prepared.change.move_spaces().moves())
        spaces.push_back(move.space());
    if (spaces.empty())
        return malformedChange("move_spaces lists no moves");
    auto size = measureSpaces(admin, spaces);
    if (!size)
        return size.error();
    prepared.size = *size;
    prepared.summary = movesSummary("move", prepared.size);
    return prepared;
}

Result<v1::ChangeResponse> applyMoves(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor)
{
    std::vector<std::pair<std::string, std::string>> moves;
    for (const auto& move : change.move_spaces().moves())
        moves.emplace_back(move.space(), move.target_shard());
    return operationResponse(admin.store(), admin.migrations().moveSpaces(moves, actor));
}

// add-node: a node, its address and labels.

Status checkAddNodeText(const v1::AdminChange& change)
{
    const auto& node = change.add_node();
    if (auto status = checkTextBounds("change.add_node.",
            { { "id", node.id(), kMaxShardIdLength }, { "address", node.address(), kMaxAddressBytes },
                { "zone", node.zone(), kMaxZoneLength } });
        !status)
        return status;
    const std::string where = "change.add_node.labels";
    if (static_cast<std::size_t>(node.labels_size()) > kMaxNodeLabels)
        return overTextBound(where, static_cast<std::size_t>(node.labels_size()), kMaxNodeLabels, "labels");
    for (const auto& [key, value] : node.labels()) {
        if (key.size() > kMaxLabelKeyBytes)
            return overTextBound(where + " key", key.size(), kMaxLabelKeyBytes);
        if (auto status = checkTextBounds(where + "[" + key + "]", { { "", value, kMaxLabelValueBytes } }); !status)
            return status;
    }
    return {};
}

std::string addNodeSummary(const v1::AdminChange& change)
{
    return "add node " + change.add_node().id() + " at " + change.add_node().address();
}

Result<v1::ChangeResponse> applyAddNode(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor)
{
    const auto& node = change.add_node();
    NodeRecord record { node.id(), node.address(), { node.labels().begin(), node.labels().end() }, false };
    record.zone = node.zone();
    return revisionResponse(admin.map().addNode(record, actor), "node", encode(record));
}

// remove-node: a node without shards.

Status checkRemoveNodeText(const v1::AdminChange& change)
{
    return checkTextBounds("change.remove_node.", { { "id", change.remove_node().id(), kMaxShardIdLength } });
}

std::string removeNodeSummary(const v1::AdminChange& change)
{
    return "remove node " + change.remove_node().id();
}

Result<v1::ChangeResponse> applyRemoveNode(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor)
{
    return revisionResponse(admin.map().removeNode(change.remove_node().id(), actor), "node");
}

// create-shard: a shard on its node and in the map (FleetAdmin::createShard).

Status checkCreateShardText(const v1::AdminChange& change)
{
    const auto& shard = change.create_shard();
    if (auto status = checkTextBounds("change.create_shard.",
            { { "id", shard.id(), kMaxShardIdLength }, { "node", shard.node(), kMaxShardIdLength },
                { "engine", shard.engine(), kMaxShardIdLength } });
        !status)
        return status;
    const std::string where = "change.create_shard.fields";
    if (static_cast<std::size_t>(shard.fields_size()) > kMaxSchemaFields)
        return overTextBound(where, static_cast<std::size_t>(shard.fields_size()), kMaxSchemaFields, "fields");
    for (const std::string& field : shard.fields()) {
        if (field.size() > kMaxFieldNameLength)
            return overTextBound(where + " entry", field.size(), kMaxFieldNameLength);
    }
    return {};
}

std::string createShardSummary(const v1::AdminChange& change)
{
    const auto& shard = change.create_shard();
    return "create shard " + shard.id() + " on " + shard.node()
        + (shard.engine().empty() ? std::string() : " with engine " + shard.engine());
}

Result<v1::ChangeResponse> applyCreateShard(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor)
{
    const auto& shard = change.create_shard();
    auto engine = parseNewShardEngine(shard.engine());
    if (!engine)
        return engine.error();
    FleetAdmin::ShardSpec spec { shard.id(), shard.node(), { shard.fields().begin(), shard.fields().end() },
        shard.capacity_docs(), shard.capacity_bytes(), *engine };
    return revisionResponse(admin.createShard(spec, actor), "shard");
}

// set-shard-state: active, draining, readonly or retired by hand.

Status checkShardStateText(const v1::AdminChange& change)
{
    const auto& state = change.set_shard_state();
    return checkTextBounds("change.set_shard_state.",
        { { "shard", state.shard(), kMaxShardIdLength }, { "state", state.state(), kMaxNameBytes } });
}

std::string shardStateSummary(const v1::AdminChange& change)
{
    return "set shard " + change.set_shard_state().shard() + " " + change.set_shard_state().state();
}

Result<v1::ChangeResponse> applyShardState(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor)
{
    const auto state = parseShardState(change.set_shard_state().state());
    if (!state)
        return malformedChange(
            "unknown shard state '" + change.set_shard_state().state() + "' (active, draining, readonly, retired)");
    return revisionResponse(admin.map().setShardState(change.set_shard_state().shard(), *state, actor), "shard");
}

// pin-space: a space held to a shard, or let go with no shard named.

std::string pinName(const v1::AdminChange& change)
{
    return change.pin_space().shard().empty() ? "unpin-space" : "pin-space";
}

Status checkPinText(const v1::AdminChange& change)
{
    const auto& pin = change.pin_space();
    return checkTextBounds("change.pin_space.",
        { { "space", pin.space(), kMaxSpaceIdLength }, { "shard", pin.shard(), kMaxShardIdLength } });
}

std::string pinSummary(const v1::AdminChange& change)
{
    const auto& pin = change.pin_space();
    return pin.shard().empty() ? "unpin " + pin.space() : "pin " + pin.space() + " to " + pin.shard();
}

Result<v1::ChangeResponse> applyPin(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor)
{
    const auto& pin = change.pin_space();
    return revisionResponse(pin.shard().empty() ? admin.map().unpinSpace(pin.space(), actor)
                                                : admin.map().pinSpace(pin.space(), pin.shard(), actor),
        "space");
}

// reassign-space: a space's ownership handed to another shard without moving its documents.

Status checkReassignText(const v1::AdminChange& change)
{
    const auto& reassign = change.reassign_space();
    return checkTextBounds("change.reassign_space.",
        { { "space", reassign.space(), kMaxSpaceIdLength }, { "shard", reassign.shard(), kMaxShardIdLength } });
}

std::string reassignSummary(const v1::AdminChange& change)
{
    return "reassign " + change.reassign_space().space() + " to " + change.reassign_space().shard();
}

Result<v1::ChangeResponse> applyReassign(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor)
{
    auto reassigned = admin.reassignSpace(change.reassign_space().space(), change.reassign_space().shard(), actor);
    if (!reassigned)
        return reassigned.error();
    v1::ChangeResponse response = recordResponse(admin.store(), "space", encode(reassigned->space));
    for (const std::string& warning : reassigned->warnings)
        response.add_warnings(warning);
    return response;
}

Status checkPolicyText(const v1::AdminChange& change)
{
    return checkTextBounds("change.set_access_policy.",
        { { "policy_json", change.set_access_policy().policy_json(), kMaxPolicyJsonBytes } });
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

Result<v1::ChangeResponse> applyPolicy(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor)
{
    const auto& policy = change.set_access_policy();
    return revisionResponse(storeAccessPolicy(admin.store(), policy.policy_json(), actor,
                                policy.has_policy_revision() ? std::optional(policy.policy_revision()) : std::nullopt),
        "policy");
}

using ChangeOneof = v1::AdminChange;

const ChangeKind kChangeKinds[] = {
    { .oneof = ChangeOneof::kQueueMigration,
        .name = "queue-migration",
        .checkText = checkQueueText,
        .prepare = prepareQueue,
        .role = operatorWithinLimits,
        .apply = applyQueue },
    { .oneof = ChangeOneof::kSteerMigration,
        .nameOf = steerName,
        .checkText = checkSteerText,
        .prepare = prepareSteer,
        .role = steerRole,
        .apply = applySteer },
    { .oneof = ChangeOneof::kSetThrottle,
        .name = "set-throttle",
        .checkText = checkThrottleText,
        .summary = throttleSummary,
        .role = operatorRole,
        .apply = applyThrottle },
    { .oneof = ChangeOneof::kSetSettings,
        .name = "set-settings",
        .checkText = checkSettingsText,
        .prepare = prepareSettings,
        .role = adminRole,
        .apply = applySettings },
    { .oneof = ChangeOneof::kApplyPlan,
        .name = "apply-plan",
        .checkText = checkPlanText,
        .prepare = preparePlanChange,
        .role = operatorWithinLimits,
        .apply = applyPlanChange },
    { .oneof = ChangeOneof::kStartOperation,
        .nameOf = operationName,
        .checkText = checkOperationText,
        .prepare = prepareOperation,
        .role = operatorWithinLimits,
        .apply = applyOperation },
    { .oneof = ChangeOneof::kMoveSpaces,
        .name = "move-spaces",
        .checkText = checkMovesText,
        .prepare = prepareMoves,
        .role = operatorWithinLimits,
        .apply = applyMoves },
    { .oneof = ChangeOneof::kAddNode,
        .name = "add-node",
        .checkText = checkAddNodeText,
        .summary = addNodeSummary,
        .role = adminRole,
        .apply = applyAddNode },
    { .oneof = ChangeOneof::kRemoveNode,
        .name = "remove-node",
        .checkText = checkRemoveNodeText,
        .summary = removeNodeSummary,
        .role = adminRole,
        .apply = applyRemoveNode },
    { .oneof = ChangeOneof::kCreateShard,
        .name = "create-shard",
        .checkText = checkCreateShardText,
        .summary = createShardSummary,
        .role = adminRole,
        .apply = applyCreateShard },
    { .oneof = ChangeOneof::kSetShardState,
        .name = "set-shard-state",
        .checkText = checkShardStateText,
        .summary = shardStateSummary,
        .role = adminRole,
        .apply = applyShardState },
    { .oneof = ChangeOneof::kPinSpace,
        .nameOf = pinName,
        .checkText = checkPinText,
        .summary = pinSummary,
        .role = adminRole,
        .apply = applyPin },
    { .oneof = ChangeOneof::kReassignSpace,
        .name = "reassign-space",
        .checkText = checkReassignText,
        .summary = reassignSummary,
        .role = adminRole,
        .apply = applyReassign },
    { .oneof = ChangeOneof::kSetAccessPolicy,
        .name = "set-access-policy",
        .checkText = checkPolicyText,
        .prepare = preparePolicy,
        .role = adminRole,
        .apply = applyPolicy },
};

} // namespace

const ChangeKind* findChangeKind(const v1::AdminChange& change)
{
    const auto found = std::find_if(std::begin(kChangeKinds), std::end(kChangeKinds),
        [&](const ChangeKind& kind) { return kind.oneof == change.change_case(); });
    if (found != std::end(kChangeKinds))
        return &*found;
    for (const ChangeKind& kind : copyChangeKinds()) {
        if (kind.oneof == change.change_case())
            return &kind;
    }
    for (const auto& kinds : { templateChangeKinds(), snapshotChangeKinds(), balancerChangeKinds() }) {
        for (const ChangeKind& kind : kinds) {
            if (kind.oneof == change.change_case())
                return &kind;
        }
    }
    return nullptr;
}

} // namespace shardmap::core
