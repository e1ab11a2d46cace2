#include "core/balancer/balancer_records.h"

// The balancer's state and decision records as JSON (snake_case keys; a missing key takes its
// default, so that records of an older shardmapd still read), their keys and their reads.

#include "core/util/clock.h"
#include "core/util/json_input.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>

namespace shardmap::core {

using nlohmann::json;

namespace {

Error recordError(const std::string& what, const std::string& message)
{
    return makeError(ErrorCode::InvalidArgument, "balancer " + what + ": " + message);
}

json spentJson(const BalancerSpent& spent)
{
    return { { "moves", spent.moves }, { "bytes", spent.bytes }, { "work_hours", spent.workHours } };
}

BalancerSpent readSpent(const json& doc)
{
    return { doc.value("moves", std::uint64_t { 0 }), doc.value("bytes", std::uint64_t { 0 }),
        doc.value("work_hours", 0.0) };
}

BalancerState readState(const json& doc)
{
    BalancerState state;
    state.periodStartUnixMs = doc.value("period_start_unix_ms", std::int64_t { 0 });
    state.spent = readSpent(doc.value("spent", json::object()));
    for (const json& move : doc.value("recent_moves", json::array()))
        state.recentMoves.push_back({ move.value("space", ""), move.value("from", ""), move.value("to", ""),
            move.value("at_unix_ms", std::int64_t { 0 }) });
    for (const json& touch : doc.value("recent_shards", json::array()))
        state.recentShards.push_back(
            { touch.value("shard", ""), touch.value("action", ""), touch.value("at_unix_ms", std::int64_t { 0 }) });
    state.pendingApproval = doc.value("pending_approval", "");
    state.pendingApprovalDecision = doc.value("pending_approval_decision", "");
    state.roundDecision = doc.value("round_decision", "");
    state.roundAction = doc.value("round_action", "");
    state.roundPlan = doc.value("round_plan", "");
    state.lastEvaluationUnixMs = doc.value("last_evaluation_unix_ms", std::int64_t { 0 });
    state.quietUntilUnixMs = doc.value("quiet_until_unix_ms", std::int64_t { 0 });
    state.sentence = doc.value("sentence", "");
    state.lastDecision = doc.value("last_decision", "");
    return state;
}

template <typename Read>
auto decodeWith(const std::string& text, const std::string& what, Read read) -> Result<decltype(read(json()))>
{
    auto parsed = readJsonInput(text, "balancer " + what);
    if (!parsed)
        return parsed.error();
    if (!parsed->is_object())
        return recordError(what, "not a JSON object");
    try {
        return read(*parsed);
    } catch (const json::exception& error) {
        return recordError(what, error.what());
    }
}

} // namespace

const char* decisionOutcomeName(DecisionOutcome outcome)
{
    switch (outcome) {
    case DecisionOutcome::Acted: return "acted";
    case DecisionOutcome::Proposed: return "proposed";
    case DecisionOutcome::DryRun: return "dry-run";
    default: return "skipped";
    }
}

std::optional<DecisionOutcome> parseDecisionOutcome(std::string_view name)
{
    for (auto outcome :
        { DecisionOutcome::Acted, DecisionOutcome::Proposed, DecisionOutcome::DryRun, DecisionOutcome::Skipped }) {
        if (name == decisionOutcomeName(outcome))
            return outcome;
    }
    return std::nullopt;
}

std::string encode(const BalancerDecision& d)
{
    return json {
        { "id", d.id }, { "at_unix_ms", d.atUnixMs }, { "last_unix_ms", d.lastUnixMs },
        { "evaluations", d.evaluations }, { "outcome", decisionOutcomeName(d.outcome) }, { "action", d.action },
        { "reason", d.reason }, { "operation_id", d.operationId }, { "approval_id", d.approvalId },
        { "moves", d.moves }, { "bytes", d.bytes }, { "work_hours", d.workHours }, { "leader", d.leader }
    }.dump();
}

Result<BalancerDecision> decodeBalancerDecision(const std::string& text)
{
    return decodeWith(text, "decision", [](const json& doc) {
        BalancerDecision d;
        d.id = doc.value("id", "");
        d.atUnixMs = doc.value("at_unix_ms", std::int64_t { 0 });
        d.lastUnixMs = doc.value("last_unix_ms", d.atUnixMs);
        d.evaluations = doc.value("evaluations", std::uint64_t { 1 });
        const auto outcome = parseDecisionOutcome(doc.value("outcome", "skipped"));
        if (!outcome)
            throw json::other_error::create(501, "outcome is acted, proposed, dry-run or skipped", &doc);
        d.outcome = *outcome;
        d.action = doc.value("action", "");
        d.reason = doc.value("reason", "");
        d.operationId = doc.value("operation_id", "");
        d.approvalId = doc.value("approval_id", "");
        d.moves = doc.value("moves", std::uint64_t { 0 });
        d.bytes = doc.value("bytes", std::uint64_t { 0 });
        d.workHours = doc.value("work_hours", 0.0);
        d.leader = doc.value("leader", "");
        return d;
    });
}

std::string encode(const BalancerState& s)
{
    json moves = json::array();
    for (const BalancerMove& move : s.recentMoves)
        moves.push_back(
            { { "space", move.space }, { "from", move.from }, { "to", move.to }, { "at_unix_ms", move.atUnixMs } });
    json shards = json::array();
    for (const BalancerShardTouch& touch : s.recentShards)
        shards.push_back({ { "shard", touch.shard }, { "action", touch.action }, { "at_unix_ms", touch.atUnixMs } });
    return json {
        { "period_start_unix_ms", s.periodStartUnixMs }, { "spent", spentJson(s.spent) }, { "recent_moves", moves },
        { "recent_shards", shards }, { "pending_approval", s.pendingApproval },
        { "pending_approval_decision", s.pendingApprovalDecision }, { "round_decision", s.roundDecision },
        { "round_action", s.roundAction }, { "round_plan", s.roundPlan },
        { "last_evaluation_unix_ms", s.lastEvaluationUnixMs }, { "quiet_until_unix_ms", s.quietUntilUnixMs },
        { "sentence", s.sentence }, { "last_decision", s.lastDecision }
    }.dump();
}

Result<BalancerState> decodeBalancerState(const std::string& text)
{
    return decodeWith(text, "state", [](const json& doc) { return readState(doc); });
}

std::string balancerDecisionKey(const std::string& id)
{
    return std::string(kBalancerDecisionsPrefix) + id;
}

std::string newBalancerDecisionId()
{
    static std::atomic<std::uint32_t> counter { std::random_device {}() };
    const std::uint32_t suffix = counter.fetch_add(1) & 0xffffu;
    char id[48];
    std::snprintf(id, sizeof id, "bd-%013lld-%04x", static_cast<long long>(nowUnixMs()), suffix);
    return id;
}

Result<Versioned<BalancerState>> readBalancerState(MetadataStore& store)
{
    auto listed = store.list(std::string(kBalancerStateKey));
    if (!listed)
        return listed.error();
    return readBalancerState(*listed);
}

Result<Versioned<BalancerState>> readBalancerState(const StoreSnapshot& listed)
{
    const auto found = listed.records.find(std::string(kBalancerStateKey));
    if (found == listed.records.end())
        return Versioned<BalancerState> { BalancerState {}, 0 };
    auto state = decodeBalancerState(found->second.value);
    if (!state)
        return makeError(ErrorCode::Internal, "stored " + state.error().message);
    return Versioned<BalancerState> { std::move(*state), found->second.modRevision };
}

Result<std::vector<Versioned<BalancerDecision>>> readBalancerDecisions(MetadataStore& store)
{
    auto listed = store.list(std::string(kBalancerDecisionsPrefix));
    if (!listed)
        return listed.error();
    std::vector<Versioned<BalancerDecision>> out;
    for (const auto& [key, record] : listed->records) {
        if (auto decision = decodeBalancerDecision(record.value))
            out.push_back({ std::move(*decision), record.modRevision });
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.value.id < b.value.id; });
    return out;
}

void forgetOlderThan(BalancerState& state, std::int64_t nowMs, std::int64_t hysteresisMs)
{
    const std::int64_t since = nowMs - hysteresisMs;
    std::erase_if(state.recentMoves, [since](const BalancerMove& move) { return move.atUnixMs < since; });
    std::erase_if(state.recentShards, [since](const BalancerShardTouch& touch) { return touch.atUnixMs < since; });
}

} // namespace shardmap::core
