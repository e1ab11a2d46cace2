#pragma once

// One evaluation of the balancer's policy (issue 33), without a store or a node: from the fleet as
// the planner sees it, what the guards read and the balancer's own state, what it would do now
// and why, or why nothing. The choice of what moves is always the planner's (core/plan/planner.h):
// this only picks which of its scenarios applies, what it may not touch and how much it may spend.
//
// In order: outside the window nothing is decided; a guard that holds (a node that did not answer,
// a shard whose copies are none in sync, a migration failing, a node's CPU or write p99 above its
// limit) holds
// everything; the balancer's own operations at its concurrency cap wait; a spent budget waits for
// the next window. Then the first of these that finds work is the decision:
//   evacuate  a node whose disk is used above node_disk_limit: the planner's retire-node plan of
//             it, cut to the moves that bring it under the limit (a move operation);
//   split     the largest shard above split_above_bytes or _docs: the planner's split onto a new
//             shard on its node ("<shard>-b<N>", the first free N);
//   fill      active shards without spaces, and nodes without shards (a new shard "<node>-s1" is
//             made there): the planner's add-shards plan;
//   merge     shards below merge_below_bytes (and _docs): the planner's merge-below plan;
//   rebalance the planner's rebalance within band_bytes and band_load.
// Hysteresis: a space the balancer moved within hysteresis_seconds is not moved again (no move
// back, no merge that undoes a split: its spaces stay), and a shard it split, made or merged into
// is neither merged nor split again within that time. Excluded spaces and shards are never moved
// from or to. The budget left (moves, bytes, hours) bounds the plan, and no plan has more than
// kMaxMovesPerDecision moves.

#include "core/balancer/balancer_policy.h"
#include "core/balancer/balancer_records.h"
#include "core/plan/planner.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shardmap::core {

// What the guards and the cap read, gathered by the caller.
struct BalancerFacts {
    std::int64_t nowUnixMs = 0;
    PlannerInput input;
    // Not retired nodes whose metrics did not come.
    std::vector<std::string> unreachableNodes;
    // Shards with replicas of which no copy is in sync, or whose primary's node did not answer
    // and no replica is in sync.
    std::vector<std::string> shardsWithoutCopy;
    // Active migrations whose last step failed ("m-...: why").
    std::vector<std::string> failingMigrations;
    // Node id -> CPU use, 0..1, and the p99 of the write batches it applied lately (ms).
    std::map<std::string, double> nodeCpu;
    std::map<std::string, double> nodeWriteP99Ms;
    // The balancer's own operations not yet done.
    std::uint64_t balancerOperationsRunning = 0;
};

// At most this many moves in one decision, whatever the budget: a round's operation stays one
// that an administrator can follow, and a fleet far from the band is brought in over several
// rounds (each planned in tens of milliseconds at 100,000 spaces, not seconds: BENCHMARKS.md).
inline constexpr std::size_t kMaxMovesPerDecision = 200;

enum class BalancerAction { None, Evacuate, Split, Fill, Merge, Rebalance };
const char* balancerActionName(BalancerAction action);

struct BalancerVerdict {
    BalancerAction action = BalancerAction::None;
    // Skipped: why, in one sentence ("held: node n4 did not answer"); acting: what and why.
    std::string reason;
    // window, guard, busy, budget, within, approval (set by the caller), error; empty when acting.
    std::string skip;
    // When outside the window: the next opening.
    std::string nextWindow;
    std::optional<PlanResult> planned;
};

BalancerVerdict evaluateBalancer(const BalancerPolicy& policy, const BalancerState& state, const BalancerFacts& facts);

// The budget the state has spent, with the period restarted when the window closed (or, without a
// window, after 24 hours): the state to keep after this evaluation.
void advanceBudgetPeriod(BalancerState& state, const BalancerPolicy& policy, bool insideWindow, std::int64_t nowMs);

// Records in the state what a queued (or approved) plan of action moves, at atMs: the budget it
// spends, its moves and the shards it split, made or merged into (what hysteresis looks at).
void noteBalancerWork(
    BalancerState& state, const std::string& action, const Plan& plan, double workHours, std::int64_t atMs);

} // namespace shardmap::core
