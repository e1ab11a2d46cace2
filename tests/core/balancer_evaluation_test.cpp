// The balancer's evaluation (issue 33) on fleets built by hand, with the clock the test sets: the
// window and every guard hold everything with their reason; a shard above the split limit is
// split onto a new shard on its node, empty shards and new nodes are filled, small shards merged
// (not one the balancer just split), a node above its disk limit evacuated until under it, a space
// the balancer moved stays put for the hysteresis time, and a long run of random growth and
// shrinkage never moves a space back to where the balancer took it from within that time.
#include "core/balancer/balancer_evaluation.h"
#include "tests/core/test_helpers.h"

#include <gtest/gtest.h>
#include <random>
#include <set>

using namespace shardmap::core;
using shardmap::testing::kGiB;

namespace {

// Sunday 6 December 2026 12:00 UTC, and Monday 01:30 UTC.
constexpr std::int64_t kSundayNoon = 1796558400000;
constexpr std::int64_t kMondayEarly = 1796607000000;
constexpr std::int64_t kHourMs = 3600 * 1000;

struct SpaceSpec {
    std::string id;
    std::string shard;
    double gib;
};

PlannerInput fleetOf(
    const std::vector<std::pair<std::string, std::string>>& shards, const std::vector<SpaceSpec>& spaces, int nodes = 2)
{
    PlannerInput input;
    for (int n = 0; n < nodes; ++n)
        input.nodes.push_back({ "n" + std::to_string(n), false, 400 * kGiB, 500 * kGiB });
    for (const auto& [id, node] : shards)
        input.shards.push_back({ ShardRecord { id, node, ShardState::Active, 0, 0 } });
    for (const SpaceSpec& spec : spaces) {
        PlannerSpace space;
        space.id = spec.id;
        space.shard = spec.shard;
        const double bytes = spec.gib * static_cast<double>(kGiB);
        space.load = { bytes / 1000, bytes, 0, 0 };
        input.spaces.push_back(space);
    }
    return input;
}

BalancerPolicy policyOn()
{
    BalancerPolicy policy;
    policy.mode = BalancerMode::On;
    policy.bandBytes = 1.0;
    policy.bandLoad = 1.0;
    policy.nodeDiskLimit = 0.95;
    return policy;
}

BalancerFacts factsOf(PlannerInput input, std::int64_t now = kMondayEarly)
{
    BalancerFacts facts;
    facts.nowUnixMs = now;
    facts.input = std::move(input);
    return facts;
}

std::set<std::string> movedSpaces(const BalancerVerdict& verdict)
{
    std::set<std::string> moved;
    if (verdict.planned) {
        for (const PlannedMove& move : verdict.planned->plan.moves)
            moved.insert(move.space);
    }
    return moved;
}

} // namespace

TEST(BalancerEvaluation, TheWindowAndEveryGuardHoldEverythingWithTheirReason)
{
    BalancerPolicy policy = policyOn();
    policy.splitAboveBytes = 10 * kGiB;
    policy.window = BalancingWindow { { 1 }, 60, 180, "UTC" };
    const PlannerInput input = fleetOf(
        { { "s0", "n0" }, { "s1", "n1" } }, { { "a", "s0", 8 }, { "b", "s0", 8 }, { "c", "s1", 1 }, { "d", "s1", 1 } });
    const BalancerState state;
    auto outside = evaluateBalancer(policy, state, factsOf(input, kSundayNoon));
    EXPECT_EQ(outside.skip, "window");
    EXPECT_EQ(outside.reason, "waiting for the window at Mon 01:00 UTC");
    EXPECT_FALSE(outside.planned);
    const auto inside = evaluateBalancer(policy, state, factsOf(input));
    EXPECT_EQ(inside.action, BalancerAction::Split) << inside.reason;

    const auto held = [&](auto edit) {
        BalancerFacts facts = factsOf(input);
        BalancerState spent;
        BalancerPolicy guarded = policy;
        edit(facts, spent, guarded);
        const auto verdict = evaluateBalancer(guarded, spent, facts);
        EXPECT_FALSE(verdict.planned) << verdict.reason;
        return verdict.reason;
    };
    EXPECT_EQ(held([](BalancerFacts& f, BalancerState&, BalancerPolicy&) { f.unreachableNodes = { "n1" }; }),
        "held: node n1 did not answer");
    EXPECT_EQ(held([](BalancerFacts& f, BalancerState&, BalancerPolicy&) { f.shardsWithoutCopy = { "s1" }; }),
        "held: shard s1 has no copy in sync");
    EXPECT_EQ(held([](BalancerFacts& f, BalancerState&, BalancerPolicy&) { f.failingMigrations = { "m-1: gone" }; }),
        "held: migration m-1: gone");
    EXPECT_EQ(held([](BalancerFacts& f, BalancerState&, BalancerPolicy& p) {
        f.nodeCpu["n0"] = 0.93;
        p.guardNodeCpu = 0.8;
    }),
        "held: node n0 CPU at 93 % (limit 80 %)");
    EXPECT_EQ(held([](BalancerFacts& f, BalancerState&, BalancerPolicy& p) {
        f.nodeWriteP99Ms["n1"] = 72.6;
        p.guardWriteP99Ms = 50;
    }),
        "held: node n1 write p99 at 73 ms (limit 50 ms)");
    EXPECT_EQ(held([](BalancerFacts& f, BalancerState&, BalancerPolicy&) { f.balancerOperationsRunning = 1; }),
        "busy: 1 of its operations running (cap 1)");
    EXPECT_EQ(held([](BalancerFacts&, BalancerState& s, BalancerPolicy& p) {
        p.budget.moves = 5;
        s.spent.moves = 5;
    }),
        "the window's budget is spent");
}

TEST(BalancerEvaluation, AShardAboveTheSplitLimitIsSplitOntoANewShardOnItsNode)
{
    BalancerPolicy policy = policyOn();
    policy.splitAboveBytes = 30 * kGiB;
    PlannerInput input = fleetOf({ { "s0", "n0" }, { "s1", "n1" }, { "s0-b1", "n1" } },
        { { "a", "s0", 10 }, { "b", "s0", 10 }, { "c", "s0", 10 }, { "d", "s0", 10 }, { "e", "s1", 5 },
            { "f", "s0-b1", 5 } });
    const auto verdict = evaluateBalancer(policy, {}, factsOf(input));
    ASSERT_EQ(verdict.action, BalancerAction::Split) << verdict.reason;
    ASSERT_TRUE(verdict.planned);
    const Plan& plan = verdict.planned->plan;
    ASSERT_EQ(plan.newShards.size(), 1u);
    EXPECT_EQ(plan.newShards[0].id, "s0-b2") << "s0-b1 is taken";
    EXPECT_EQ(plan.newShards[0].node, "n0");
    EXPECT_EQ(plan.kind, "split");
    EXPECT_EQ(plan.moves.size(), 2u);
    for (const PlannedMove& move : plan.moves)
        EXPECT_EQ(move.to, "s0-b2");
    // A shard the balancer made is split under its origin's name, not s0-b1-b1.
    const PlannerInput made = fleetOf(
        { { "s0-b1", "n0" }, { "s1", "n1" } }, { { "f", "s0-b1", 10 }, { "g", "s0-b1", 10 }, { "e", "s1", 1 } });
    BalancerPolicy smaller = policy;
    smaller.splitAboveBytes = 15 * kGiB;
    const auto again = evaluateBalancer(smaller, {}, factsOf(made));
    ASSERT_EQ(again.action, BalancerAction::Split) << again.reason;
    EXPECT_EQ(again.planned->plan.newShards.at(0).id, "s0-b2");
    // A shard the balancer split within the hysteresis time is not split again.
    BalancerState state;
    state.recentShards.push_back({ "s0", "split", kMondayEarly - kHourMs });
    policy.hysteresisSeconds = 6 * 3600;
    EXPECT_NE(evaluateBalancer(policy, state, factsOf(input)).action, BalancerAction::Split);
}

TEST(BalancerEvaluation, EmptyShardsAndNodesWithoutShardsAreFilled)
{
    const BalancerPolicy policy = policyOn();
    const PlannerInput input = fleetOf({ { "s0", "n0" }, { "s1", "n1" } },
        { { "a", "s0", 4 }, { "b", "s0", 4 }, { "c", "s0", 4 }, { "d", "s0", 4 } }, 3);
    const auto verdict = evaluateBalancer(policy, {}, factsOf(input));
    ASSERT_EQ(verdict.action, BalancerAction::Fill) << verdict.reason;
    EXPECT_NE(verdict.reason.find("s1 on n1"), std::string::npos) << verdict.reason;
    EXPECT_NE(verdict.reason.find("n2-s1 on n2"), std::string::npos) << verdict.reason;
    const Plan& plan = verdict.planned->plan;
    ASSERT_EQ(plan.newShards.size(), 1u);
    EXPECT_EQ(plan.newShards[0].id, "n2-s1");
    std::set<std::string> receivers;
    for (const PlannedMove& move : plan.moves)
        receivers.insert(move.to);
    EXPECT_TRUE(receivers.contains("s1") && receivers.contains("n2-s1")) << plan.moves.size() << " moves";
}

TEST(BalancerEvaluation, SmallShardsAreMergedButNotOnesTheBalancerJustMade)
{
    BalancerPolicy policy = policyOn();
    policy.mergeBelowBytes = 5 * kGiB;
    const PlannerInput input = fleetOf(
        { { "s0", "n0" }, { "s1", "n1" }, { "s2", "n1" } }, { { "a", "s0", 1 }, { "b", "s1", 2 }, { "c", "s2", 30 } });
    const auto verdict = evaluateBalancer(policy, {}, factsOf(input));
    ASSERT_EQ(verdict.action, BalancerAction::Merge) << verdict.reason;
    EXPECT_EQ(verdict.planned->plan.subject, "s0");
    EXPECT_EQ(verdict.planned->plan.into, "s1");
    BalancerState state;
    state.recentShards.push_back({ "s1", "split", kMondayEarly - kHourMs });
    const auto held = evaluateBalancer(policy, state, factsOf(input));
    EXPECT_NE(held.action, BalancerAction::Merge) << held.reason;
    // Past the hysteresis time it may.
    state.recentShards.back().atUnixMs = kMondayEarly - 7 * kHourMs;
    EXPECT_EQ(evaluateBalancer(policy, state, factsOf(input)).action, BalancerAction::Merge);
}

TEST(BalancerEvaluation, ANodeAboveItsDiskLimitIsEvacuatedUntilItIsUnder)
{
    BalancerPolicy policy = policyOn();
    policy.nodeDiskLimit = 0.85;
    PlannerInput input = fleetOf(
        { { "s0", "n0" }, { "s1", "n1" } }, { { "a", "s0", 6 }, { "b", "s0", 6 }, { "c", "s0", 6 }, { "d", "s1", 6 } });
    input.nodes[0].diskTotalBytes = 100 * kGiB;
    input.nodes[0].diskFreeBytes = 5 * kGiB;
    const auto verdict = evaluateBalancer(policy, {}, factsOf(input));
    ASSERT_EQ(verdict.action, BalancerAction::Evacuate) << verdict.reason;
    EXPECT_EQ(verdict.reason, "node n0's disk is 95 % used (limit 85 %): 2 spaces off it");
    const Plan& plan = verdict.planned->plan;
    EXPECT_EQ(plan.kind, "move");
    ASSERT_EQ(plan.moves.size(), 2u) << "10 GiB over the limit: two 6 GiB spaces, not all three";
    for (const PlannedMove& move : plan.moves) {
        EXPECT_EQ(move.from, "s0");
        EXPECT_EQ(move.to, "s1");
    }
}

TEST(BalancerEvaluation, ASpaceTheBalancerMovedStaysPutForTheHysteresisTime)
{
    BalancerPolicy policy = policyOn();
    policy.bandBytes = 0.2;
    const PlannerInput input = fleetOf({ { "s0", "n0" }, { "s1", "n1" } },
        { { "a", "s0", 10 }, { "b", "s0", 10 }, { "c", "s0", 10 }, { "d", "s0", 10 }, { "e", "s1", 10 } });
    const auto free = evaluateBalancer(policy, {}, factsOf(input));
    ASSERT_EQ(free.action, BalancerAction::Rebalance) << free.reason;
    BalancerState state;
    for (const char* space : { "a", "b", "c", "d" })
        state.recentMoves.push_back({ space, "s1", "s0", kMondayEarly - kHourMs });
    const auto held = evaluateBalancer(policy, state, factsOf(input));
    EXPECT_EQ(held.action, BalancerAction::None) << held.reason;
    EXPECT_EQ(held.reason, "idle: within limits");
    EXPECT_TRUE(movedSpaces(held).empty());
    policy.excludedSpaces = { "a", "b", "c" };
    const auto excluded = evaluateBalancer(policy, {}, factsOf(input));
    EXPECT_EQ(movedSpaces(excluded), (std::set<std::string> { "d" })) << excluded.reason;
}

// Hourly evaluations over three weeks, every space growing or shrinking at random each hour, each
// verdict applied at once: no space goes back to a shard the balancer took it from within the
// hysteresis time, and no shard the balancer split or merged into is merged within it.
TEST(BalancerEvaluation, NoFlipFlopOverALongRunOfRandomGrowthAndShrinkage)
{
    BalancerPolicy policy = policyOn();
    policy.bandBytes = 0.3;
    policy.splitAboveBytes = 60 * kGiB;
    policy.mergeBelowBytes = 8 * kGiB;
    policy.hysteresisSeconds = 24 * 3600;
    policy.budget.moves = 20;
    std::vector<SpaceSpec> spaces;
    for (int i = 0; i < 40; ++i)
        spaces.push_back({ "t" + std::to_string(i), "s" + std::to_string(i % 4), 1.0 + (i % 7) });
    PlannerInput input = fleetOf({ { "s0", "n0" }, { "s1", "n1" }, { "s2", "n2" }, { "s3", "n3" } }, spaces, 4);
    std::mt19937 rng(33);
    std::uniform_real_distribution<double> growth(0.8, 1.3);
    BalancerState state;
    std::map<std::string, std::vector<BalancerMove>> history;
    std::map<std::string, std::int64_t> touched;
    int acted = 0;
    const std::int64_t hysteresisMs = static_cast<std::int64_t>(policy.hysteresisSeconds) * 1000;
    for (int hour = 0; hour < 21 * 24; ++hour) {
        const std::int64_t now = kMondayEarly + hour * kHourMs;
        for (PlannerSpace& space : input.spaces) {
            space.load.bytes = std::clamp(space.load.bytes * growth(rng), 0.2 * kGiB, 40.0 * kGiB);
            space.load.docs = space.load.bytes / 1000;
        }
        advanceBudgetPeriod(state, policy, true, now);
        forgetOlderThan(state, now, hysteresisMs);
        const BalancerVerdict verdict = evaluateBalancer(policy, state, factsOf(input, now));
        if (!verdict.planned)
            continue;
        const Plan& plan = verdict.planned->plan;
        acted += 1;
        if (plan.kind == "merge") {
            ASSERT_FALSE(touched.contains(plan.subject) && now - touched[plan.subject] < hysteresisMs) << plan.subject;
            ASSERT_FALSE(touched.contains(plan.into) && now - touched[plan.into] < hysteresisMs) << plan.into;
        }
        for (const PlannedMove& move : plan.moves) {
            for (const BalancerMove& before : history[move.space]) {
                ASSERT_FALSE(before.from == move.to && now - before.atUnixMs < hysteresisMs)
                    << "hour " << hour << ": " << move.space << " back to " << move.to << " after "
                    << (now - before.atUnixMs) / kHourMs << " h (" << balancerActionName(verdict.action) << ")";
            }
            history[move.space].push_back({ move.space, move.from, move.to, now });
        }
        noteBalancerWork(state, balancerActionName(verdict.action), plan, 0, now);
        for (const BalancerShardTouch& touch : state.recentShards)
            touched[touch.shard] = std::max(touched[touch.shard], touch.atUnixMs);
        input = applyPlanToInput(input, plan);
        if (plan.kind == "merge") {
            for (PlannerShard& shard : input.shards) {
                if (shard.record.id == plan.subject)
                    shard.record.state = ShardState::Retired;
            }
        }
    }
    EXPECT_GT(acted, 5) << "the run must make the balancer act";
}
