#pragma once

// The balancer as the executor's leader runs it (issue 33): one round reads the policy, its state
// and the fleet, evaluates (core/balancer/balancer_evaluation.h), acts, and records the decision,
// every commit fenced with the executor's lease so that a former leader that wakes late changes
// nothing.
//
// Acting goes through the Admin API's rules, not around them: the planner's plan becomes an
// apply-plan change, measured by prepareChange; when the access policy says it needs a second
// person (approvalNeed), an approval is requested in the same commit that records it in the
// state, and no other is asked while it is pending (nor, after a refusal or expiry, for the
// hysteresis time); otherwise the plan is queued (MigrationRequests::applyPlan via applyChange)
// as actor "balancer" with the decision's id in its reason. Before it queues or asks, the round's
// decision and plan are committed to the state: a leader killed in between leaves them to the
// next, which finds the operation (or approval) by that id and records it, or, finding none,
// plans again. So a round's work is neither done twice nor lost.
//
// Evaluations run every evaluate_every_seconds, and sooner after a change of the map (at most
// every minInterval). Evaluations in a row that are skipped for the same reason share one decision
// record (its count and last time); records older than keep_decisions_seconds are pruned.

#include "core/balancer/balancer_evaluation.h"
#include "core/client/node_client.h"
#include "core/map/map_editor.h"
#include "core/store/metadata_store.h"
#include "core/util/log.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace shardmap::core {

struct PreparedChange;

// The actor the balancer's commits, operations and approval requests carry.
inline constexpr std::string_view kBalancerActor = "balancer";

class BalancerRound {
public:
    struct Options {
        // The leader's name, in its decision records.
        std::string leader;
        LogSink log;
        // Unix milliseconds now; none: the wall clock. Tests drive the window with it.
        std::function<std::int64_t()> clock = {};
        std::chrono::milliseconds minInterval { 5000 };
    };
    BalancerRound(MetadataStore& store, NodeClientPool& nodes, MapEditor::FenceSource fence, Options options);

    // An evaluation when one is due (force: now), its decision recorded; nullopt when none was due
    // or the mode is off. An error when the round could not read or commit (nothing half-done:
    // the next round starts from the state as committed).
    Result<std::optional<BalancerDecision>> round(bool force = false);

    // What the rounds of this process did, for the metrics.
    struct Figures {
        std::uint64_t evaluations = 0;
        std::map<std::string, std::uint64_t> decisions;
        BalancerSpent spent;
        std::string sentence;
    };
    Figures figures() const;

private:
    struct Round;

    std::int64_t now() const;
    bool due(const Round& r) const;
    Status gatherFacts(Round& r);
    // A round a former leader left between its state commit and its outcome.
    Status resolveRound(Round& r);
    Status resolveApproval(Round& r);
    void act(Round& r, const BalancerVerdict& verdict);
    void propose(Round& r, const BalancerVerdict& verdict, const std::string& because, const PreparedChange& prepared);
    // The plan as measured (the change act prepared), queued after the round's start is committed.
    void queue(Round& r, const BalancerVerdict& verdict, const PreparedChange& prepared);
    // The state with the round's decision and plan, committed before the operation is queued.
    Status commitRoundStart(Round& r, const BalancerVerdict& verdict, const std::string& planJson);
    Result<std::uint64_t> record(Round& r);
    void log(LogLevel level, const std::string& message) const;

    MetadataStore& m_store;
    NodeClientPool& m_nodes;
    MapEditor::FenceSource m_fence;
    Options m_options;
    mutable std::mutex m_mutex;
    Figures m_figures;
    std::int64_t m_lastAttemptMs = 0;
    // The store's revision after this process's last decision commit (m_mutex).
    std::uint64_t m_lastRevision = 0;
};

} // namespace shardmap::core
