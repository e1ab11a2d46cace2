#pragma once

// The balancer's records in the map (issue 33): its state (the budget its window has spent, its
// own recent work that hysteresis keeps it from undoing, the approval it waits for, the round it is
// in the middle of) and one decision record per evaluation outcome, kept for the policy's time.
// Both are JSON under balancer/; this file is their one form and their keys.

#include "core/store/metadata_store.h"
#include "core/util/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardmap::core {

inline constexpr std::string_view kBalancerStateKey = "balancer/state";
inline constexpr std::string_view kBalancerDecisionsPrefix = "balancer/decisions/";

// acted: an operation was queued; proposed: an approval was requested for it; dry-run: it was
// decided and recorded, nothing queued; skipped: nothing was decided (the reason says why).
enum class DecisionOutcome { Acted, Proposed, DryRun, Skipped };
const char* decisionOutcomeName(DecisionOutcome outcome);
std::optional<DecisionOutcome> parseDecisionOutcome(std::string_view name);

// What an evaluation came to. Evaluations in a row that come to the same skipped reason share
// one record (evaluations counts them, lastUnixMs is the latest).
struct BalancerDecision {
    std::string id;
    std::int64_t atUnixMs = 0;
    std::int64_t lastUnixMs = 0;
    std::uint64_t evaluations = 1;
    DecisionOutcome outcome = DecisionOutcome::Skipped;
    // evacuate, split, fill, merge, rebalance; empty when skipped.
    std::string action;
    std::string reason;
    std::string operationId;
    std::string approvalId;
    std::uint64_t moves = 0;
    std::uint64_t bytes = 0;
    double workHours = 0;
    std::string leader;
    bool operator==(const BalancerDecision&) const = default;
};

// A space the balancer moved, from and to, and when (a split's and a merge's moves too).
struct BalancerMove {
    std::string space;
    std::string from;
    std::string to;
    std::int64_t atUnixMs = 0;
    bool operator==(const BalancerMove&) const = default;
};

// A shard the balancer made by a split, split, or merged into, and when: no merge takes it and no
// split splits it again within the hysteresis time.
struct BalancerShardTouch {
    std::string shard;
    std::string action;
    std::int64_t atUnixMs = 0;
    bool operator==(const BalancerShardTouch&) const = default;
};

struct BalancerSpent {
    std::uint64_t moves = 0;
    std::uint64_t bytes = 0;
    double workHours = 0;
    bool operator==(const BalancerSpent&) const = default;
};

struct BalancerState {
    // The budget is spent from the first evaluation inside a window until one finds the window
    // closed (without a window: for 24 hours from periodStartUnixMs).
    std::int64_t periodStartUnixMs = 0;
    BalancerSpent spent;
    std::vector<BalancerMove> recentMoves;
    std::vector<BalancerShardTouch> recentShards;
    // The approval the balancer waits for (one at a time, asked once) and the decision it is for.
    std::string pendingApproval;
    std::string pendingApprovalDecision;
    // A round that was about to queue its operation (or ask its approval): its decision id, what
    // it did and the plan (JSON), so that the next leader finds the operation or plans again.
    std::string roundDecision;
    std::string roundAction;
    std::string roundPlan;
    // After a refused or expired approval nothing is proposed until then (the hysteresis time).
    std::int64_t quietUntilUnixMs = 0;
    std::int64_t lastEvaluationUnixMs = 0;
    // The state in one sentence ("idle: within limits") and the latest decision's id.
    std::string sentence;
    std::string lastDecision;
    bool operator==(const BalancerState&) const = default;
};

std::string encode(const BalancerDecision& decision);
Result<BalancerDecision> decodeBalancerDecision(const std::string& json);
std::string encode(const BalancerState& state);
Result<BalancerState> decodeBalancerState(const std::string& json);

std::string balancerDecisionKey(const std::string& id);
// "bd-" and a time-ordered suffix: decisions list oldest first by key.
std::string newBalancerDecisionId();

// The state as stored, with its revision (0 and an empty state when there is none).
Result<Versioned<BalancerState>> readBalancerState(MetadataStore& store);
// The same from a listing of kBalancerStateKey (whose revision the caller also wants).
Result<Versioned<BalancerState>> readBalancerState(const StoreSnapshot& listed);
// Every decision record, oldest first (a record that does not decode is skipped).
Result<std::vector<Versioned<BalancerDecision>>> readBalancerDecisions(MetadataStore& store);

// The moves and shard touches younger than hysteresisMs at nowMs (what the state keeps).
void forgetOlderThan(BalancerState& state, std::int64_t nowMs, std::int64_t hysteresisMs);

} // namespace shardmap::core
