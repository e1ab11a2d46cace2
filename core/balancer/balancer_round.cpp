#include "core/balancer/balancer_round.h"

// BalancerRound's implementation: when a round is due, the facts its guards read, a round or an
// approval a former leader left, acting through the Admin API's change rules, and the one fenced
// commit of the state and the decision that ends every round.

#include "core/admin/admin_changes.h"
#include "core/admin/approvals.h"
#include "core/auth/stored_access_policy.h"
#include "core/migration/fleet_facts.h"
#include "core/util/clock.h"
#include "core/util/failpoint.h"

#include <algorithm>

namespace shardmap::core {

struct BalancerRound::Round {
    std::int64_t nowMs = 0;
    std::uint64_t storeRevision = 0;
    BalancerPolicy policy;
    Versioned<BalancerState> state;
    MapSnapshot map;
    BalancerFacts facts;
    BalancerDecision decision;
    // Set once the round's outcome is known (a resolved round or approval ends the round).
    bool decided = false;
};

namespace {

BalancerDecision decisionAt(std::int64_t nowMs, const std::string& leader)
{
    BalancerDecision decision;
    decision.id = newBalancerDecisionId();
    decision.atUnixMs = decision.lastUnixMs = nowMs;
    decision.leader = leader;
    return decision;
}

std::string operationWithReasonOf(const MapSnapshot& map, const std::string& decisionId)
{
    for (const auto& [id, operation] : map.operations) {
        if (operation.value.reason.find(decisionId) != std::string::npos)
            return id;
    }
    return {};
}

void clearRound(BalancerState& state)
{
    state.roundDecision.clear();
    state.roundAction.clear();
    state.roundPlan.clear();
}

} // namespace

BalancerRound::BalancerRound(MetadataStore& store, NodeClientPool& nodes, MapEditor::FenceSource fence, Options options)
    : m_store(store)
    , m_nodes(nodes)
    , m_fence(std::move(fence))
    , m_options(std::move(options))
{
}

void BalancerRound::log(LogLevel level, const std::string& message) const
{
    if (m_options.log)
        m_options.log(level, "balancer: " + message);
}

std::int64_t BalancerRound::now() const
{
    return m_options.clock ? m_options.clock() : nowUnixMs();
}

BalancerRound::Figures BalancerRound::figures() const
{
    std::lock_guard lock(m_mutex);
    return m_figures;
}

bool BalancerRound::due(const Round& r) const
{
    const BalancerState& state = r.state.value;
    const std::int64_t since = r.nowMs - state.lastEvaluationUnixMs;
    if (since < 0 || since >= static_cast<std::int64_t>(r.policy.evaluateEverySeconds) * 1000)
        return true;
    return r.storeRevision != m_lastRevision && since >= m_options.minInterval.count();
}

Result<std::optional<BalancerDecision>> BalancerRound::round(bool force)
{
    auto policy = readBalancerPolicy(m_store);
    if (!policy)
        return policy.error();
    if (policy->value.mode == BalancerMode::Off)
        return std::optional<BalancerDecision> {};
    Round r;
    r.nowMs = now();
    r.policy = policy->value;
    auto listed = m_store.list(std::string(kBalancerStateKey));
    if (!listed)
        return listed.error();
    auto state = readBalancerState(*listed);
    if (!state)
        return state.error();
    r.storeRevision = listed->revision;
    r.state = *state;
    if (!force && (!due(r) || r.nowMs - m_lastAttemptMs < m_options.minInterval.count()))
        return std::optional<BalancerDecision> {};
    m_lastAttemptMs = r.nowMs;
    r.decision = decisionAt(r.nowMs, m_options.leader);
    if (auto gathered = gatherFacts(r); !gathered)
        return gathered.error();
    if (auto resolved = resolveRound(r); !resolved)
        return resolved.error();
    if (!r.decided) {
        if (auto resolved = resolveApproval(r); !resolved)
            return resolved.error();
    }
    if (!r.decided) {
        BalancerState& s = r.state.value;
        auto place
            = placeInWindow(r.policy.window, std::chrono::system_clock::time_point(std::chrono::milliseconds(r.nowMs)));
        advanceBudgetPeriod(s, r.policy, !place || place->inside, r.nowMs);
        forgetOlderThan(s, r.nowMs, static_cast<std::int64_t>(r.policy.hysteresisSeconds) * 1000);
        if (!s.pendingApproval.empty()) {
            r.decision.reason = "waiting for approval " + s.pendingApproval;
        } else if (s.quietUntilUnixMs > r.nowMs) {
            r.decision.reason = "quiet after a refused or expired approval, until "
                + std::to_string((s.quietUntilUnixMs - r.nowMs) / 1000) + " s from now";
        } else {
            act(r, evaluateBalancer(r.policy, s, r.facts));
        }
    }
    auto recorded = record(r);
    if (!recorded)
        return recorded.error();
    return std::optional<BalancerDecision> { r.decision };
}

Status BalancerRound::gatherFacts(Round& r)
{
    auto map = readMapSnapshot(m_store);
    if (!map)
        return map.error();
    r.map = std::move(*map);
    FleetFacts facts(r.map, m_nodes);
    BalancerFacts& f = r.facts;
    f.nowUnixMs = r.nowMs;
    f.input = gatherPlannerInput(r.map, facts);
    std::set<std::string> reachable;
    for (const auto& [id, node] : r.map.nodes) {
        if (node.value.retired)
            continue;
        const NodeMetricsValue* metrics = facts.nodeMetrics(id);
        if (!metrics) {
            f.unreachableNodes.push_back(id);
            continue;
        }
        reachable.insert(id);
        f.nodeCpu[id] = metrics->cpuPercent / 100.0;
        f.nodeWriteP99Ms[id] = metrics->writeP99Ms;
    }
    for (const auto& [id, shard] : r.map.shards) {
        const ShardRecord& s = shard.value;
        if (s.replicas.empty() || s.state == ShardState::Retired)
            continue;
        const bool serving = reachable.contains(s.node)
            || std::any_of(s.replicas.begin(), s.replicas.end(), [&](const ShardCopy& copy) {
                   return copy.state == CopyState::InSync && reachable.contains(copy.node);
               });
        if (!serving)
            f.shardsWithoutCopy.push_back(id);
    }
    for (const auto& [id, migration] : r.map.migrations) {
        if (migration.value.active() && !migration.value.error.empty())
            f.failingMigrations.push_back(id + ": " + migration.value.error);
    }
    for (const auto& [id, operation] : r.map.operations) {
        const OperationState state = operation.value.state;
        if (operation.value.requestedBy == kBalancerActor
            && (state == OperationState::Running || state == OperationState::Queuing))
            f.balancerOperationsRunning += 1;
    }
    return {};
}

Status BalancerRound::resolveRound(Round& r)
{
    BalancerState& s = r.state.value;
    if (s.roundDecision.empty())
        return {};
    const std::string operation = operationWithReasonOf(r.map, s.roundDecision);
    if (operation.empty()) {
        log(LogLevel::Info, "round " + s.roundDecision + " queued nothing before its leader stopped; planning again");
        clearRound(s);
        return {};
    }
    auto plan = Plan::decode(s.roundPlan);
    r.decision.id = s.roundDecision;
    r.decision.outcome = DecisionOutcome::Acted;
    r.decision.action = s.roundAction;
    r.decision.operationId = operation;
    r.decision.reason = "queued " + operation + " (the round of a former leader, recorded by this one)";
    if (plan)
        noteBalancerWork(s, s.roundAction, *plan, 0, now());
    clearRound(s);
    r.decided = true;
    return {};
}

Status BalancerRound::resolveApproval(Round& r)
{
    BalancerState& s = r.state.value;
    if (s.pendingApproval.empty())
        return {};
    auto stored = readStoredAccessPolicy(m_store);
    const auto expireAfter = stored ? stored->policy.approval.expireAfter : std::chrono::hours(24);
    auto approval = Approvals(m_store).get(s.pendingApproval, expireAfter);
    if (!approval && approval.error().code != ErrorCode::NotFound)
        return approval.error();
    const std::string state = approval ? approval->state() : "removed";
    if (state == "pending" || state == "applying")
        return {};
    r.decision.approvalId = s.pendingApproval;
    r.decision.action = s.roundAction;
    if (state == "applied") {
        r.decision.outcome = DecisionOutcome::Acted;
        r.decision.reason = "approval " + s.pendingApproval + " was approved by " + approval->decided_by() + ": "
            + approval->outcome();
        if (auto plan = Plan::decode(approval->change().apply_plan().plan_json()))
            noteBalancerWork(s, s.roundAction, *plan, 0, now());
    } else {
        r.decision.reason = "approval " + s.pendingApproval + " was " + state
            + (approval && !approval->decided_by().empty() ? " by " + approval->decided_by() : std::string())
            + "; nothing is proposed for the hysteresis time";
        s.quietUntilUnixMs = r.nowMs + static_cast<std::int64_t>(r.policy.hysteresisSeconds) * 1000;
    }
    s.pendingApproval.clear();
    s.pendingApprovalDecision.clear();
    clearRound(s);
    r.decided = true;
    return {};
}

void BalancerRound::act(Round& r, const BalancerVerdict& verdict)
{
    BalancerDecision& d = r.decision;
    d.reason = verdict.reason;
    if (verdict.action == BalancerAction::None || !verdict.planned)
        return;
    const PlanResult& planned = *verdict.planned;
    d.action = balancerActionName(verdict.action);
    d.moves = planned.plan.moves.size();
    d.bytes = planned.summary.bytesMoved;
    d.workHours = planned.summary.estimatedSeconds / 3600.0;
    Plan plan = planned.plan;
    plan.createdBy = std::string(kBalancerActor);
    plan.createdUnixMs = r.nowMs;
    plan.reason = "balancer decision " + d.id + ": " + verdict.reason;
    if (r.policy.mode == BalancerMode::DryRun) {
        d.outcome = DecisionOutcome::DryRun;
        return;
    }
    FleetAdmin admin(m_store, m_nodes);
    v1::AdminChange change;
    change.mutable_apply_plan()->set_plan_json(plan.encode());
    auto prepared = prepareChange(admin, change);
    if (!prepared) {
        d.action.clear();
        d.reason = "the " + std::string(balancerActionName(verdict.action))
            + " plan could not be measured: " + prepared.error().message;
        return;
    }
    auto access = readStoredAccessPolicy(m_store);
    const std::string because = access ? approvalNeed(*prepared, access->policy.approval) : std::string();
    if (!because.empty())
        propose(r, verdict, because, *prepared);
    else
        queue(r, verdict, *prepared);
}

Status BalancerRound::commitRoundStart(Round& r, const BalancerVerdict& verdict, const std::string& planJson)
{
    auto grant = m_fence();
    if (!grant)
        return grant.error();
    BalancerState next = r.state.value;
    next.roundDecision = r.decision.id;
    next.roundAction = balancerActionName(verdict.action);
    next.roundPlan = planJson;
    CommitRequest request { { { std::string(kBalancerStateKey), encode(next), r.state.modRevision } }, std::nullopt,
        *grant, std::string(kBalancerActor), "balancer-round", r.decision.id + ": " + verdict.reason };
    auto committed = m_store.commit(request);
    if (!committed)
        return committed.error();
    r.state = { std::move(next), *committed };
    return {};
}

void BalancerRound::queue(Round& r, const BalancerVerdict& verdict, const PreparedChange& prepared)
{
    BalancerDecision& d = r.decision;
    if (auto started = commitRoundStart(r, verdict, prepared.change.apply_plan().plan_json()); !started) {
        d.action.clear();
        d.reason = "the round could not start: " + started.error().message;
        return;
    }
    if (auto status = failpoint("balancer.round.before_queue"); !status) {
        d.action.clear();
        d.reason = "queuing failed: " + status.error().message;
        clearRound(r.state.value);
        return;
    }
    // Still the leader just before queuing (a former one's plan would also meet applyPlan's check
    // that the map has not moved on under its moves, and its record would not commit).
    if (auto grant = m_fence(); !grant) {
        d.action.clear();
        d.reason = "not queued: " + grant.error().message;
        return;
    }
    FleetAdmin admin(m_store, m_nodes);
    auto applied = applyChange(
        admin, prepared.change, { std::string(kBalancerActor), "balancer decision " + d.id + ": " + d.reason });
    clearRound(r.state.value);
    if (!applied) {
        d.action.clear();
        d.reason = "queuing the " + std::string(balancerActionName(verdict.action))
            + " plan failed: " + applied.error().message;
        return;
    }
    (void)failpoint("balancer.round.queued");
    if (auto operation = decodeOperation(applied->record_json()))
        d.operationId = operation->id;
    d.outcome = DecisionOutcome::Acted;
    noteBalancerWork(r.state.value, d.action, verdict.planned->plan, d.workHours, now());
    log(LogLevel::Info, d.action + ": " + d.reason + " (operation " + d.operationId + ")");
}

void BalancerRound::propose(
    Round& r, const BalancerVerdict& verdict, const std::string& because, const PreparedChange& prepared)
{
    BalancerDecision& d = r.decision;
    // The request and the state that says it is pending in one commit: asked once.
    const std::string id = newApprovalId();
    BalancerState next = r.state.value;
    next.pendingApproval = id;
    next.pendingApprovalDecision = d.id;
    next.roundAction = balancerActionName(verdict.action);
    auto requested = Approvals(m_store).request(prepared, because,
        { std::string(kBalancerActor), "balancer decision " + d.id + ": " + d.reason }, id,
        { { std::string(kBalancerStateKey), encode(next), r.state.modRevision } });
    if (!requested) {
        d.reason = "asking for approval failed: " + requested.error().message;
        return;
    }
    auto reread = readBalancerState(m_store);
    if (reread)
        r.state = *reread;
    d.outcome = DecisionOutcome::Proposed;
    d.approvalId = id;
    d.reason = verdict.reason + "; needs approval: " + because;
    log(LogLevel::Info, "asked approval " + id + " for " + d.action + ": " + verdict.reason);
}

// The state and the decision in one fenced commit; a skipped decision with the reason of the last
// one adds to that record. Decisions older than the policy keeps them go in the same commit.
Result<std::uint64_t> BalancerRound::record(Round& r)
{
    auto grant = m_fence();
    if (!grant)
        return grant.error();
    BalancerState& s = r.state.value;
    BalancerDecision& d = r.decision;
    std::vector<Mutation> mutations;
    std::optional<std::uint64_t> decisionRevision = 0;
    auto decisions = readBalancerDecisions(m_store);
    if (!decisions)
        return decisions.error();
    const std::int64_t keepSince = r.nowMs - static_cast<std::int64_t>(r.policy.keepDecisionsSeconds) * 1000;
    for (const auto& old : *decisions) {
        if (old.value.id == s.lastDecision && d.outcome == DecisionOutcome::Skipped
            && old.value.outcome == DecisionOutcome::Skipped && old.value.reason == d.reason) {
            const std::int64_t at = d.atUnixMs;
            d = old.value;
            d.lastUnixMs = at;
            d.evaluations += 1;
            decisionRevision = old.modRevision;
        } else if (old.value.lastUnixMs < keepSince && old.value.id != s.lastDecision && mutations.size() < 100) {
            mutations.push_back({ balancerDecisionKey(old.value.id), std::nullopt, old.modRevision });
        }
    }
    s.lastEvaluationUnixMs = r.nowMs;
    s.lastDecision = d.id;
    s.sentence = d.reason;
    mutations.push_back({ balancerDecisionKey(d.id), encode(d), decisionRevision });
    mutations.push_back({ std::string(kBalancerStateKey), encode(s), r.state.modRevision });
    CommitRequest request { std::move(mutations), std::nullopt, *grant, std::string(kBalancerActor),
        "balancer-decision", std::string(decisionOutcomeName(d.outcome)) + ": " + d.reason };
    auto committed = m_store.commit(request);
    if (!committed)
        return committed.error();
    {
        std::lock_guard lock(m_mutex);
        // The revision of this commit: a later change of the map differs from it.
        m_lastRevision = *committed;
        m_figures.evaluations += 1;
        m_figures.decisions[decisionOutcomeName(d.outcome)] += 1;
        m_figures.spent = s.spent;
        m_figures.sentence = s.sentence;
    }
    return committed;
}

} // namespace shardmap::core
