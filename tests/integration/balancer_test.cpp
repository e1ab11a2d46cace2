// The balancer end to end (issue 33): real nodes, a real SQLite map, and the executor in this
// process leading with the clock the test sets (its balancer's window follows it); then shardmapd
// processes killed in the middle of a round. A tenant grown past the split limit has its shard
// split in the next window and not before; dry run decides, records and queues nothing; a killed
// node holds everything with its reason; a decision above the approval threshold asks once; a
// leader killed between queuing and recording, or before queuing, leaves the round to the next,
// which neither repeats nor loses it.
#include "core/admin/approvals.h"
#include "core/admin/fleet_admin.h"
#include "core/auth/stored_access_policy.h"
#include "core/balancer/balancer_round.h"
#include "core/migration/migration_executor.h"
#include "core/migration/migration_requests.h"
#include "core/router/router.h"
#include "core/store/lease_names.h"
#include "ctl_run.h"
#include "metrics_scrape.h"
#include "tests/support/controller_process.h"
#include "tests/support/fleet_test.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <gtest/gtest.h>
#include <regex>
#include <thread>

using namespace shardmap;
using namespace shardmap::testing;

namespace {

// Sunday 6 December 2026 12:00 UTC, and Monday 01:30 UTC (inside a Monday 01:00-03:00 window).
constexpr std::int64_t kSundayNoon = 1796558400000;
constexpr std::int64_t kMondayEarly = 1796607000000;

class BalancerTest : public FleetTest<::testing::Test> {
protected:
    void TearDown() override
    {
        if (m_executor)
            m_executor->stepDown();
        m_executor.reset();
        m_router.reset();
    }

    // The executor in this process leads (the test holds the lease), its balancer on m_now.
    void lead()
    {
        core::ExecutorOptions options;
        options.actor = "test-executor";
        options.poll = std::chrono::milliseconds(100);
        options.balancerClock = [this] { return m_now.load(); };
        m_executor = std::make_unique<core::MigrationExecutor>(*m_store, m_pool, options);
        auto grant
            = m_store->acquireLease(std::string(core::kExecutorLease), "test-executor", std::chrono::minutes(10));
        ASSERT_TRUE(grant) << grant.error().describe();
        m_executor->lead(*grant);
    }

    core::BalancerPolicy policy(core::BalancerMode mode)
    {
        core::BalancerPolicy p;
        p.mode = mode;
        p.bandBytes = 1.0;
        p.bandLoad = 1.0;
        p.nodeDiskLimit = 0;
        p.evaluateEverySeconds = 60;
        return p;
    }

    void setPolicy(const core::BalancerPolicy& p)
    {
        auto set = core::setBalancerPolicy(*m_store, p, m_actor);
        ASSERT_TRUE(set) << set.error().describe();
    }

    // `docs` documents of space, placed on shard first.
    void writeSpace(const std::string& space, const std::string& shard, int docs)
    {
        addSpaceRecord(space, shard);
        if (!m_router) {
            auto router = core::Router::start(*m_store, m_pool, {});
            ASSERT_TRUE(router) << router.error().describe();
            m_router = std::move(*router);
        }
        std::vector<core::Document> batch;
        for (int i = 0; i < docs; ++i)
            batch.push_back({ space, "d" + std::to_string(i), 1, { { "body", "words of " + space } }, false });
        auto written = m_router->write(batch);
        ASSERT_TRUE(written) << written.error().describe();
    }

    std::vector<core::BalancerDecision> decisions()
    {
        auto read = core::readBalancerDecisions(*m_store);
        EXPECT_TRUE(read) << read.error().describe();
        std::vector<core::BalancerDecision> out;
        for (const auto& decision : read ? *read : std::vector<core::Versioned<core::BalancerDecision>> {})
            out.push_back(decision.value);
        return out;
    }

    // The first decision that matches (the test fails after `seconds`).
    core::BalancerDecision waitForDecision(
        const std::function<bool(const core::BalancerDecision&)>& match, int seconds = 30)
    {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
        while (std::chrono::steady_clock::now() < deadline) {
            for (const auto& decision : decisions()) {
                if (match(decision))
                    return decision;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        std::string seen;
        for (const auto& decision : decisions())
            seen += "\n  " + std::string(core::decisionOutcomeName(decision.outcome)) + ": " + decision.reason;
        ADD_FAILURE() << "no such decision; recorded:" << seen;
        return {};
    }

    std::vector<core::OperationRecord> balancerOperations()
    {
        std::vector<core::OperationRecord> out;
        for (const auto& [id, operation] : map().operations) {
            if (operation.value.requestedBy == core::kBalancerActor)
                out.push_back(operation.value);
        }
        return out;
    }

    core::OperationRecord waitForOperationEnd(const std::string& id)
    {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (std::chrono::steady_clock::now() < deadline) {
            const auto snapshot = map();
            const auto found = snapshot.operations.find(id);
            if (found != snapshot.operations.end() && found->second.value.state != core::OperationState::Running
                && found->second.value.state != core::OperationState::Queuing)
                return found->second.value;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        ADD_FAILURE() << "operation " << id << " did not end";
        return {};
    }

    std::unique_ptr<ControllerProcess> controller(
        const std::string& id, const std::vector<std::string>& env, bool metrics = false)
    {
        std::vector<std::string> args { "--store", storeUri(), "--id", id, "--lease-ttl-ms", "1000" };
        if (metrics)
            args.insert(args.end(), { "--metrics-listen", "127.0.0.1:0" });
        auto started = ControllerProcess::start(m_dir.file(id + ".stderr.log"), args, env);
        EXPECT_TRUE(started);
        return started;
    }

    // Two nodes, four spaces on s0 and none on s1 (a fill to do), the balancer on every second,
    // and a shardmapd that the failpoint kills in its round (it has exited when this returns).
    std::unique_ptr<ControllerProcess> startKilledRound(const std::string& failpoint)
    {
        startFleet(2);
        for (const char* space : { "a", "b", "c", "d" })
            writeSpace(space, "s0", 20);
        core::BalancerPolicy p = policy(core::BalancerMode::On);
        p.evaluateEverySeconds = 1;
        setPolicy(p);
        auto first = controller("c1", { "SHARDMAP_FAILPOINTS=" + failpoint });
        if (!first || !first->process().wait(std::chrono::seconds(30))) {
            ADD_FAILURE() << "the failpoint did not kill it\n" << (first ? first->stderrText() : std::string());
            return nullptr;
        }
        return first;
    }

    // No rollback window: an operation's migrations end (and the operation with them) at once.
    void noRollbackWindow()
    {
        core::MigrationSettings settings = map().settings.value;
        settings.rollbackWindowSeconds = 0;
        ASSERT_TRUE(core::MigrationRequests(*m_store, m_pool).setSettings(settings, m_actor));
    }

    // The first acted decision, its operation ended: both, the operation Done.
    std::pair<core::BalancerDecision, core::OperationRecord> waitForActed(const std::string& action)
    {
        const auto acted = waitForDecision([](const auto& d) { return d.outcome == core::DecisionOutcome::Acted; });
        EXPECT_EQ(acted.action, action) << acted.reason;
        const auto operation = waitForOperationEnd(acted.operationId);
        EXPECT_EQ(operation.state, core::OperationState::Done) << operation.error;
        return { acted, operation };
    }

    // The evaluation interval passes on the balancer's clock.
    void nextEvaluation() { m_now += 61'000; }

    std::atomic<std::int64_t> m_now { kSundayNoon };
    std::unique_ptr<core::MigrationExecutor> m_executor;
    std::shared_ptr<core::Router> m_router;
};

} // namespace

TEST_F(BalancerTest, ATenantGrownPastTheSplitLimitIsSplitInTheNextWindowAndNotBefore)
{
    startFleet(1);
    writeSpace("t1", "s0", 40);
    writeSpace("t2", "s0", 40);
    writeSpace("t3", "s0", 100);
    core::BalancerPolicy p = policy(core::BalancerMode::On);
    p.splitAboveDocs = 150;
    p.window = core::BalancingWindow { { 1 }, 60, 180, "UTC" };
    p.keepDecisionsSeconds = 3600;
    setPolicy(p);
    noRollbackWindow();
    lead();
    const auto waiting = waitForDecision([](const auto& d) { return d.outcome == core::DecisionOutcome::Skipped; });
    EXPECT_EQ(waiting.reason, "waiting for the window at Mon 01:00 UTC");
    EXPECT_TRUE(balancerOperations().empty());

    m_now = kMondayEarly;
    const auto split = waitForDecision([](const auto& d) { return d.outcome == core::DecisionOutcome::Acted; });
    EXPECT_EQ(split.action, "split");
    ASSERT_FALSE(split.operationId.empty()) << split.reason;
    const auto operation = waitForOperationEnd(split.operationId);
    EXPECT_EQ(operation.state, core::OperationState::Done) << operation.error;
    EXPECT_EQ(operation.kind, core::OperationKind::Split);
    EXPECT_EQ(operation.into, "s0-b1");
    EXPECT_EQ(operation.requestedBy, core::kBalancerActor);
    EXPECT_NE(operation.reason.find(split.id), std::string::npos) << operation.reason;
    ASSERT_TRUE(map().shards.contains("s0-b1"));
    EXPECT_FALSE(map().spacesOn("s0-b1").empty());

    // Both halves are under the limit now: the next evaluation finds nothing to do.
    nextEvaluation();
    const auto idle = waitForDecision([](const auto& d) { return d.reason == "idle: within limits"; });
    EXPECT_EQ(idle.outcome, core::DecisionOutcome::Skipped);
    EXPECT_EQ(balancerOperations().size(), 1u);
    // Kept for an hour: Sunday's record went when the round after Monday's first was recorded.
    for (const auto& decision : decisions())
        EXPECT_NE(decision.id, waiting.id) << "a decision older than keep_decisions_seconds is pruned";
}

TEST_F(BalancerTest, DryRunRecordsWithoutQueuingAndAKilledNodeHoldsEverything)
{
    startFleet(2);
    for (const char* space : { "a", "b", "c", "d" })
        writeSpace(space, "s0", 20);
    setPolicy(policy(core::BalancerMode::DryRun));
    lead();
    const auto dry = waitForDecision([](const auto& d) { return d.outcome == core::DecisionOutcome::DryRun; });
    EXPECT_EQ(dry.action, "fill");
    EXPECT_EQ(dry.reason, "empty shards to fill: s1 on n1");
    EXPECT_GT(dry.moves, 0u);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_TRUE(balancerOperations().empty());
    EXPECT_TRUE(map().spacesOn("s1").empty());

    m_nodes[1]->kill9();
    nextEvaluation();
    const auto held = waitForDecision([](const auto& d) { return d.reason.starts_with("held:"); });
    EXPECT_EQ(held.reason, "held: node n1 did not answer");
    EXPECT_TRUE(balancerOperations().empty());

    // shardmapctl says the same from the records.
    auto status = runCtl(m_dir, storeUri(), { "--json", "balancer", "status" });
    ASSERT_EQ(status.code, 0) << status.err;
    EXPECT_EQ(status.parsed()["mode"], "dry-run");
    EXPECT_EQ(status.parsed()["state"], "dry run: held: node n1 did not answer");
    EXPECT_EQ(status.parsed()["last_decision"]["id"], held.id);
    auto history = runCtl(m_dir, storeUri(), { "--json", "balancer", "history", "--limit", "2" });
    ASSERT_EQ(history.code, 0) << history.err;
    ASSERT_EQ(history.parsed().size(), 2u);
    EXPECT_EQ(history.parsed()[0]["reason"], held.reason) << "newest first";
    EXPECT_EQ(history.parsed()[1]["outcome"], "dry-run");
    auto text = runCtl(m_dir, storeUri(), { "balancer", "history" });
    EXPECT_NE(text.out.find("dry-run fill: empty shards to fill: s1 on n1"), std::string::npos) << text.out;
}

TEST_F(BalancerTest, ADecisionAboveTheApprovalThresholdAsksForApprovalOnce)
{
    startFleet(2);
    for (const char* space : { "a", "b", "c", "d" })
        writeSpace(space, "s0", 20);
    auto stored = core::storeAccessPolicy(
        *m_store, R"({"version": 1, "roles": {"alice": "admin"}, "approval": {"max_spaces": 1}})", m_actor);
    ASSERT_TRUE(stored) << stored.error().describe();
    setPolicy(policy(core::BalancerMode::On));
    lead();
    const auto proposed = waitForDecision([](const auto& d) { return d.outcome == core::DecisionOutcome::Proposed; });
    EXPECT_EQ(proposed.action, "fill");
    ASSERT_FALSE(proposed.approvalId.empty());
    for (int i = 0; i < 3; ++i) {
        nextEvaluation();
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
    }
    const auto waiting
        = waitForDecision([&](const auto& d) { return d.reason == "waiting for approval " + proposed.approvalId; });
    EXPECT_GE(waiting.evaluations, 2u) << "evaluations in a row share one record";
    core::Approvals approvals(*m_store);
    auto listed = approvals.list(false, std::chrono::hours(24));
    ASSERT_TRUE(listed) << listed.error().describe();
    ASSERT_EQ(listed->size(), 1u) << "asked once, not once per evaluation";
    EXPECT_EQ(listed->front().id(), proposed.approvalId);
    EXPECT_EQ(listed->front().requested_by(), core::kBalancerActor);
    EXPECT_TRUE(balancerOperations().empty());

    // Refused: recorded with who refused, and nothing is proposed again for the hysteresis time.
    auto refused = approvals.decide(proposed.approvalId, false, { "alice", "not now" }, std::chrono::hours(24));
    ASSERT_TRUE(refused) << refused.error().describe();
    nextEvaluation();
    const auto after = waitForDecision([&](const auto& d) {
        return d.reason.starts_with("approval " + proposed.approvalId + " was refused by alice");
    });
    EXPECT_EQ(after.outcome, core::DecisionOutcome::Skipped);
    nextEvaluation();
    waitForDecision([](const auto& d) { return d.reason.starts_with("quiet after a refused or expired approval"); });
    EXPECT_EQ(approvals.list(false, std::chrono::hours(24))->size(), 1u);
}

// shardmapd processes, the balancer on the wall clock (no window): the first leader is killed
// right after it queued the round's operation (before it recorded the decision), or right before
// it queued it. The next leader records the queued operation under the round's decision, or plans
// the round again: either way exactly one operation of the balancer exists, and the state keeps
// no round open.
TEST_F(BalancerTest, ALeaderKilledAfterQueuingLeavesTheRoundToTheNextWhoRecordsItOnce)
{
    auto first = startKilledRound("balancer.round.queued=kill");
    ASSERT_TRUE(first);
    const std::string round = core::readBalancerState(*m_store)->value.roundDecision;
    ASSERT_FALSE(round.empty()) << "the round was committed before its operation was queued";
    ASSERT_EQ(balancerOperations().size(), 1u);
    const std::string operation = balancerOperations().front().id;
    auto second = controller("c2", {});
    const auto recorded = waitForDecision([&](const auto& d) { return d.id == round; });
    EXPECT_EQ(recorded.outcome, core::DecisionOutcome::Acted);
    EXPECT_EQ(recorded.operationId, operation);
    EXPECT_EQ(recorded.action, "fill");
    std::this_thread::sleep_for(std::chrono::seconds(2));
    EXPECT_TRUE(core::readBalancerState(*m_store)->value.roundDecision.empty());
    EXPECT_EQ(balancerOperations().size(), 1u) << "the round's work was not queued again";
}

TEST_F(BalancerTest, ALeaderKilledBeforeQueuingLeavesTheRoundToTheNextWhoPlansItAgain)
{
    auto first = startKilledRound("balancer.round.before_queue=kill");
    ASSERT_TRUE(first);
    ASSERT_FALSE(core::readBalancerState(*m_store)->value.roundDecision.empty());
    EXPECT_TRUE(balancerOperations().empty()) << "killed before queuing: nothing queued";
    auto second = controller("c2", {}, true);
    const auto acted = waitForDecision([](const auto& d) { return d.outcome == core::DecisionOutcome::Acted; });
    EXPECT_EQ(acted.action, "fill");
    std::this_thread::sleep_for(std::chrono::seconds(2));
    ASSERT_EQ(balancerOperations().size(), 1u) << second->stderrText();
    EXPECT_EQ(balancerOperations().front().id, acted.operationId);
    EXPECT_TRUE(core::readBalancerState(*m_store)->value.roundDecision.empty());
    // Its Prometheus figures: the act, and the budget it spent.
    const std::string metrics = scrapeControllerMetrics(*second);
    EXPECT_NE(metrics.find("\nshardmapd_balancer_decisions_total{outcome=\"acted\"} 1\n"), std::string::npos)
        << metrics;
    static const std::regex evaluations(R"(\nshardmapd_balancer_evaluations_total ([0-9]+)\n)");
    std::smatch match;
    ASSERT_TRUE(std::regex_search(metrics, match, evaluations)) << metrics;
    EXPECT_GE(std::stoi(match[1]), 1);
    static const std::regex moves(R"(\nshardmapd_balancer_budget_spent\{unit="moves"\} ([0-9]+)\n)");
    ASSERT_TRUE(std::regex_search(metrics, match, moves)) << metrics;
    EXPECT_EQ(std::stoul(match[1]), balancerOperations().front().plannedMoves);
}

// Two shards that shrank below the merge limit: one is merged into the other (the planner's
// merge-below), and the shard it emptied is retired by the executor.
TEST_F(BalancerTest, ShardsThatShrankBelowTheMergeLimitAreMerged)
{
    startFleet(2);
    writeSpace("a", "s0", 5);
    writeSpace("b", "s1", 5);
    core::BalancerPolicy p = policy(core::BalancerMode::On);
    p.mergeBelowBytes = 4 << 20;
    setPolicy(p);
    noRollbackWindow();
    m_now = kMondayEarly;
    lead();
    const auto [acted, operation] = waitForActed("merge");
    EXPECT_EQ(operation.kind, core::OperationKind::Merge);
    const std::string from = operation.subject;
    const std::string into = operation.into;
    EXPECT_TRUE((from == "s0" && into == "s1") || (from == "s1" && into == "s0")) << from << " into " << into;
    EXPECT_TRUE(map().spacesOn(from).empty());
    EXPECT_EQ(map().spacesOn(into).size(), 2u);
    ASSERT_TRUE(pollUntil(
        std::chrono::seconds(30), [&] { return map().shards.at(from).value.state == core::ShardState::Retired; }));
}

// A node without a shard joins: the balancer makes a shard on it (n2-s1, the one way shards are
// made) and fills it from the others.
TEST_F(BalancerTest, ANewNodeWithoutAShardGetsOneAndIsFilled)
{
    startFleet(1);
    for (const char* space : { "a", "b", "c", "d" })
        writeSpace(space, "s0", 10);
    m_dataDirs.push_back(m_dir.file("node-new"));
    m_nodes.push_back(NodeProcess::start(m_dataDirs.back(), nodeListenArgs("127.0.0.1:0")));
    ASSERT_TRUE(m_nodes.back());
    core::FleetAdmin admin(*m_store, m_pool);
    ASSERT_TRUE(admin.map().addNode({ "n2", m_nodes.back()->address(), {}, false }, m_actor));
    setPolicy(policy(core::BalancerMode::On));
    noRollbackWindow();
    m_now = kMondayEarly;
    lead();
    const auto [acted, operation] = waitForActed("fill");
    EXPECT_NE(acted.reason.find("n2-s1 on n2"), std::string::npos) << acted.reason;
    ASSERT_TRUE(map().shards.contains("n2-s1"));
    EXPECT_EQ(map().shards.at("n2-s1").value.node, "n2");
    EXPECT_FALSE(map().spacesOn("n2-s1").empty());
    auto onNode = (*m_pool.get(m_nodes.back()->address()))->listShards();
    ASSERT_TRUE(onNode) << onNode.error().describe();
    EXPECT_TRUE(std::any_of(onNode->begin(), onNode->end(), [](const auto& shard) { return shard.id == "n2-s1"; }));
}

// A node above the disk limit (this machine's disk is shared by the test's nodes, so a limit
// below its use puts every node over it): the balancer moves spaces off the fullest, and what it
// moved stays where it went for the hysteresis time.
TEST_F(BalancerTest, ANodeOverItsDiskLimitIsEvacuated)
{
    startFleet(2);
    for (const char* space : { "a", "b", "c" })
        writeSpace(space, "s0", 10);
    writeSpace("d", "s1", 10);
    core::BalancerPolicy p = policy(core::BalancerMode::On);
    p.nodeDiskLimit = 0.01;
    setPolicy(p);
    noRollbackWindow();
    m_now = kMondayEarly;
    lead();
    const auto [acted, operation] = waitForActed("evacuate");
    EXPECT_NE(acted.reason.find("% used (limit 1 %)"), std::string::npos) << acted.reason;
    EXPECT_EQ(operation.kind, core::OperationKind::Move);
    const auto state = core::readBalancerState(*m_store);
    ASSERT_TRUE(state);
    EXPECT_EQ(state->value.recentMoves.size(), operation.plannedMoves);
}
