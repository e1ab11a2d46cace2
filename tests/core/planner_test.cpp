// The rebalance planner: its properties on many random fleets (constraints never broken,
// balanced fleets left alone, no second round after applying a plan, add-shard close to the
// lower bound, drains spread out, determinism) and each scenario's own rules.
#include "core/plan/planner.h"
#include "tests/core/test_helpers.h"

#include <cmath>
#include <gtest/gtest.h>
#include <random>

using namespace shardmap::core;
using shardmap::testing::kGiB;
using shardmap::testing::spaceOf;

namespace {

struct FleetShape {
    int nodes = 4;
    int shards = 12;
    int spaces = 200;
    bool odd = true; // some draining/readonly/retired shards, pins, migrations, capacities
    // Space sizes: scale / rank^exponent bytes.
    double scale = 2e9;
    double exponent = 1.1;
};

PlannerInput randomFleet(std::uint32_t seed, FleetShape shape = {})
{
    std::mt19937 rng(seed);
    PlannerInput input;
    input.baseRevision = 40;
    for (int n = 0; n < shape.nodes; ++n)
        input.nodes.push_back({ "n" + std::to_string(n), false, 400 * kGiB, 500 * kGiB });
    for (int s = 0; s < shape.shards; ++s) {
        ShardRecord shard { "s" + std::to_string(s), "n" + std::to_string(s % shape.nodes), ShardState::Active, 0, 0 };
        if (shape.odd) {
            const int roll = static_cast<int>(rng() % 20);
            if (roll == 0)
                shard.state = ShardState::Draining;
            else if (roll == 1)
                shard.state = ShardState::Readonly;
            if (rng() % 4 == 0)
                shard.capacityBytes = 40 * kGiB;
            if (rng() % 6 == 0)
                shard.capacityDocs = 4'000'000;
        }
        input.shards.push_back({ shard });
    }
    // Zipf-like sizes on a random, skewed placement: a few shards get most of the spaces.
    std::uniform_real_distribution<double> unit(0, 1);
    for (int i = 0; i < shape.spaces; ++i) {
        PlannerSpace space;
        space.id = "t" + std::to_string(i);
        const int shard = static_cast<int>(std::pow(unit(rng), 2.0) * shape.shards);
        space.shard = "s" + std::to_string(std::min(shard, shape.shards - 1));
        const double size = shape.scale / std::pow(i + 1, shape.exponent) + 1e6 * unit(rng);
        space.load = { size / 700, size, unit(rng) * 5, unit(rng) * 2 };
        if (shape.odd && rng() % 25 == 0)
            space.pin = space.shard;
        if (shape.odd && rng() % 30 == 0)
            space.migrating = true;
        input.spaces.push_back(std::move(space));
    }
    return input;
}

const PlannerShard& shardOf(const PlannerInput& input, const std::string& id)
{
    for (const auto& shard : input.shards) {
        if (shard.record.id == id)
            return shard;
    }
    throw std::runtime_error("no shard " + id);
}

std::map<std::string, LoadFigures> loads(const PlannerInput& input)
{
    std::map<std::string, LoadFigures> out;
    for (const auto& shard : input.shards)
        out[shard.record.id];
    for (const auto& space : input.spaces)
        out[space.shard] += space.load;
    return out;
}

// What every plan must respect, whatever the scenario.
void expectConstraintsHold(const PlannerInput& input, const PlanResult& result, const PlannerOptions& options)
{
    std::set<std::string> moved;
    const PlannerInput after = applyPlanToInput(input, result.plan);
    const auto before = loads(input);
    const auto now = loads(after);
    std::map<std::string, double> receivedByNode;
    for (const PlannedMove& move : result.plan.moves) {
        SCOPED_TRACE(move.space + " " + move.from + " -> " + move.to);
        EXPECT_TRUE(moved.insert(move.space).second) << "moved twice";
        const PlannerSpace& space = spaceOf(input, move.space);
        EXPECT_FALSE(space.migrating);
        EXPECT_EQ(space.shard, move.from);
        EXPECT_TRUE(space.pin.empty() || space.pin == move.to) << "pinned to " << space.pin;
        const ShardRecord& target = shardOf(after, move.to).record;
        EXPECT_EQ(target.state, ShardState::Active);
        EXPECT_FALSE(options.excludedShards.contains(move.to));
        EXPECT_NE(move.from, move.to);
        EXPECT_FALSE(move.reason.empty());
        if (shardOf(after, move.from).record.node != target.node)
            receivedByNode[target.node] += space.load.bytes;
    }
    for (const auto& [id, load] : now) {
        const ShardRecord& shard = shardOf(after, id).record;
        const auto was = before.find(id);
        const bool received = load.bytes > (was == before.end() ? 0 : was->second.bytes) + 1;
        if (!received)
            continue;
        const double fill = input.settings.maxTargetFill;
        if (shard.capacityBytes) {
            EXPECT_LE(load.bytes, fill * static_cast<double>(shard.capacityBytes)) << id;
        }
        if (shard.capacityDocs) {
            EXPECT_LE(load.docs, fill * static_cast<double>(shard.capacityDocs)) << id;
        }
    }
    for (const auto& node : input.nodes) {
        if (receivedByNode.contains(node.id)) {
            EXPECT_LE(2 * receivedByNode[node.id], static_cast<double>(node.diskFreeBytes.value_or(0)) + 2 * 4e9);
        }
    }
}

double maxOverMeanBytes(const PlanResult& result)
{
    return result.summary.objectives.at(0).maxOverMeanAfter;
}

} // namespace

TEST(Planner, RandomFleetsNeverBreakCapacityPinsOrExclusions)
{
    for (std::uint32_t seed = 1; seed <= 60; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        PlannerInput input = randomFleet(seed);
        PlannerOptions options;
        options.excludedShards = { "s" + std::to_string(seed % 12) };
        auto result = planRebalance(input, options);
        ASSERT_TRUE(result) << result.error().describe();
        expectConstraintsHold(input, *result, options);
        for (const PlannedMove& move : result->plan.moves)
            EXPECT_NE(move.from, *options.excludedShards.begin());
    }
}

TEST(Planner, RebalanceEvensOutALopsidedFleet)
{
    for (std::uint32_t seed = 1; seed <= 20; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        const PlannerInput input = randomFleet(seed, { 4, 10, 400, false, 1e8, 0.6 });
        auto result = planRebalance(input);
        ASSERT_TRUE(result) << result.error().describe();
        EXPECT_FALSE(result->summary.balancedBefore);
        EXPECT_GT(result->summary.objectives[0].maxOverMeanBefore, 1.5);
        // The largest space is 0.1 GB of ~2.5 GB over 10 shards: the sizes allow the band.
        EXPECT_LE(maxOverMeanBytes(*result), 1.10);
        EXPECT_TRUE(result->summary.balancedAfter) << (result->warnings.empty() ? "" : result->warnings.front());
        EXPECT_GT(result->summary.bytesMoved, 0u);
        EXPECT_GT(result->summary.estimatedSeconds, 0);
    }
}

TEST(Planner, BalancedFleetGetsAnEmptyPlan)
{
    PlannerInput input;
    input.nodes = { { "n0", false, 100 * kGiB, 200 * kGiB }, { "n1", false, 100 * kGiB, 200 * kGiB } };
    for (int s = 0; s < 4; ++s)
        input.shards.push_back(
            { ShardRecord { "s" + std::to_string(s), "n" + std::to_string(s % 2), ShardState::Active, 0, 0 } });
    for (int i = 0; i < 40; ++i) {
        // 10 spaces per shard, sizes within a few percent of each other.
        const double bytes = 1e8 * (1 + 0.01 * (i % 3));
        input.spaces.push_back(
            { "t" + std::to_string(i), "s" + std::to_string(i % 4), {}, false, {}, {}, { bytes / 500, bytes, 1, 1 } });
    }
    auto result = planRebalance(input);
    ASSERT_TRUE(result);
    EXPECT_TRUE(result->summary.balancedBefore);
    EXPECT_TRUE(result->plan.moves.empty());
    EXPECT_TRUE(result->warnings.empty());
}

TEST(Planner, ApplyingAPlanAndPlanningAgainGivesAnEmptyPlan)
{
    for (std::uint32_t seed = 1; seed <= 60; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        const PlannerInput input
            = randomFleet(seed, { 3 + static_cast<int>(seed % 4), 6 + static_cast<int>(seed % 9), 250, seed % 2 == 0 });
        auto first = planRebalance(input);
        ASSERT_TRUE(first) << first.error().describe();
        auto second = planRebalance(applyPlanToInput(input, first->plan));
        ASSERT_TRUE(second) << second.error().describe();
        EXPECT_TRUE(second->plan.moves.empty())
            << second->plan.moves.size() << " more moves, first: " << second->plan.moves.front().reason;
    }
}

TEST(Planner, AddShardMovesAtMostAQuarterMoreThanTheLowerBound)
{
    for (std::uint32_t seed = 1; seed <= 40; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        const PlannerInput input = randomFleet(seed, { 4, 8, 600, false });
        std::vector<ShardRecord> added;
        for (std::uint32_t k = 0; k < 1 + seed % 3; ++k)
            added.push_back({ "new" + std::to_string(k), "n" + std::to_string(k % 4), ShardState::Active, 0, 0 });
        auto result = planAddShards(input, added);
        ASSERT_TRUE(result) << result.error().describe();
        const PlanSummary& summary = result->summary;
        ASSERT_GT(summary.lowerBoundBytes, 0u);
        EXPECT_LE(static_cast<double>(summary.bytesMoved), 1.25 * static_cast<double>(summary.lowerBoundBytes));
        EXPECT_GE(static_cast<double>(summary.bytesMoved), 0.5 * static_cast<double>(summary.lowerBoundBytes));
        EXPECT_EQ(result->plan.newShards.size(), added.size());
        const auto before = loads(input);
        double mean = 0;
        for (const auto& [id, load] : before)
            mean += load.bytes / static_cast<double>(before.size() + added.size());
        for (const PlannedMove& move : result->plan.moves) {
            EXPECT_EQ(move.to.rfind("new", 0), 0u) << "only new shards receive";
            EXPECT_GT(before.at(move.from).bytes, mean) << "moves only from the fullest shards";
        }
        expectConstraintsHold(input, *result, {});
    }
}

TEST(Planner, AnEmptyShardAlreadyInTheMapIsFilledByRebalance)
{
    PlannerInput input = randomFleet(7, { 3, 6, 300, false });
    input.shards.push_back({ ShardRecord { "fresh", "n0", ShardState::Active, 0, 0 } });
    auto result = planRebalance(input);
    ASSERT_TRUE(result);
    const auto after = loads(applyPlanToInput(input, result->plan));
    double total = 0;
    for (const auto& [id, load] : after)
        total += load.bytes;
    EXPECT_GE(after.at("fresh").bytes, 0.9 * total / static_cast<double>(after.size()));
}

TEST(Planner, DrainSpreadsOverSeveralTargetsAndEmptiesTheShard)
{
    const PlannerInput input = randomFleet(3, { 4, 10, 400, false });
    const std::string drained = "s0";
    auto result = planDrain(input, drained);
    ASSERT_TRUE(result) << result.error().describe();
    std::set<std::string> targets;
    for (const PlannedMove& move : result->plan.moves) {
        EXPECT_EQ(move.from, drained);
        targets.insert(move.to);
    }
    EXPECT_GE(targets.size(), 5u);
    EXPECT_EQ(loads(applyPlanToInput(input, result->plan)).at(drained).bytes, 0);
    EXPECT_EQ(result->plan.kind, "drain");
    EXPECT_EQ(result->plan.subject, drained);
    EXPECT_EQ(result->summary.bytesMoved, result->summary.lowerBoundBytes);
}

TEST(Planner, RetireNodeSpreadsOverShardsOfOtherNodes)
{
    const PlannerInput input = randomFleet(5, { 4, 12, 400, false });
    auto result = planRetireNode(input, "n1");
    ASSERT_TRUE(result) << result.error().describe();
    std::set<std::string> targets;
    for (const PlannedMove& move : result->plan.moves) {
        EXPECT_EQ(shardOf(input, move.from).record.node, "n1");
        EXPECT_NE(shardOf(input, move.to).record.node, "n1");
        targets.insert(move.to);
    }
    EXPECT_GE(targets.size(), 4u);
    for (const auto& [id, load] : loads(applyPlanToInput(input, result->plan))) {
        if (shardOf(input, id).record.node == "n1") {
            EXPECT_EQ(load.bytes, 0) << id;
        }
    }
}

TEST(Planner, DrainRefusesWhenNoShardHasRoomAndNamesTheSpace)
{
    PlannerInput input;
    input.nodes = { { "n0", false, 100 * kGiB, 200 * kGiB } };
    input.shards = { { ShardRecord { "a", "n0", ShardState::Active, 0, 0 } },
        { ShardRecord { "b", "n0", ShardState::Active, 0, 1000 } } };
    input.spaces = { { "big", "a", {}, false, {}, {}, { 10, 5000, 0, 0 } } };
    auto result = planDrain(input, "a");
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().code, ErrorCode::FailedPrecondition);
    EXPECT_NE(result.error().message.find("big"), std::string::npos) << result.error().message;
    EXPECT_NE(result.error().message.find("capacity"), std::string::npos) << result.error().message;
}

TEST(Planner, DrainRefusesSpacesPinnedToTheShardOrMigrating)
{
    PlannerInput input = randomFleet(9, { 2, 4, 40, false });
    for (auto& space : input.spaces) {
        if (space.shard == "s0") {
            space.pin = "s0";
            break;
        }
    }
    auto result = planDrain(input, "s0");
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().message.find("(pinned to s0)"), std::string::npos) << result.error().message;
}

TEST(Planner, NodesWithoutDiskFactsReceiveNothing)
{
    PlannerInput input = randomFleet(11, { 3, 6, 200, false });
    input.nodes[2].diskFreeBytes.reset();
    auto result = planRebalance(input);
    ASSERT_TRUE(result);
    for (const PlannedMove& move : result->plan.moves)
        EXPECT_NE(shardOf(input, move.to).record.node, "n2");
    ASSERT_FALSE(result->warnings.empty());
    EXPECT_NE(result->warnings.front().find("n2"), std::string::npos);
}

TEST(Planner, SplitMakesBalancedHalvesAndKeepsPinnedSpaces)
{
    PlannerInput input;
    input.nodes = { { "n0", false, 100 * kGiB, 200 * kGiB }, { "n1", false, 100 * kGiB, 200 * kGiB } };
    input.shards = { { ShardRecord { "s", "n0", ShardState::Active, 0, 0 } } };
    std::mt19937 rng(4);
    double total = 0;
    for (int i = 0; i < 60; ++i) {
        const double bytes = 1e9 / std::pow(i + 1, 1.0);
        total += bytes;
        input.spaces.push_back(
            { "t" + std::to_string(i), "s", i == 3 ? "s" : "", false, {}, {}, { bytes / 700, bytes, 0, 0 } });
    }
    auto result = planSplit(input, "s", { "s-b", "n1", ShardState::Active, 0, 0 });
    ASSERT_TRUE(result) << result.error().describe();
    const auto after = loads(applyPlanToInput(input, result->plan));
    EXPECT_NEAR(after.at("s").bytes, after.at("s-b").bytes, 0.01 * total);
    EXPECT_EQ(result->plan.kind, "split");
    ASSERT_EQ(result->plan.newShards.size(), 1u);
    EXPECT_EQ(result->plan.newShards[0].node, "n1");
    for (const PlannedMove& move : result->plan.moves)
        EXPECT_NE(move.space, "t3") << "a pinned space stays";
    // Seed 002's rule: a shard under the size limit is not split.
    PlannerOptions options;
    options.shardBytesLimit = static_cast<std::uint64_t>(2 * total);
    auto refused = planSplit(input, "s", { "s-b", "n1", ShardState::Active, 0, 0 }, options);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("split limit"), std::string::npos);
    auto exists = planSplit(input, "s", { "s", "n1", ShardState::Active, 0, 0 });
    ASSERT_FALSE(exists);
    EXPECT_EQ(exists.error().code, ErrorCode::AlreadyExists);
}

TEST(Planner, MergeMovesEverythingIntoTheTargetOrRefusesOverCapacity)
{
    PlannerInput input = randomFleet(13, { 2, 4, 60, false });
    auto result = planMerge(input, "s3", "s1");
    ASSERT_TRUE(result) << result.error().describe();
    for (const PlannedMove& move : result->plan.moves) {
        EXPECT_EQ(move.from, "s3");
        EXPECT_EQ(move.to, "s1");
    }
    EXPECT_EQ(loads(applyPlanToInput(input, result->plan)).at("s3").bytes, 0);
    input.shards[1].record.capacityBytes = 1000;
    auto refused = planMerge(input, "s3", "s1");
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("capacity"), std::string::npos) << refused.error().message;
    EXPECT_FALSE(planMerge(input, "s3", "s3"));
    EXPECT_EQ(planMerge(input, "s3", "nope").error().code, ErrorCode::NotFound);
}

TEST(Planner, IsolateMovesOneSpaceToANewShardAndPinsIt)
{
    const PlannerInput input = randomFleet(17, { 2, 4, 60, false });
    auto result = planIsolate(input, "t0", { "acme", "n1", ShardState::Active, 0, 0 });
    ASSERT_TRUE(result) << result.error().describe();
    ASSERT_EQ(result->plan.moves.size(), 1u);
    EXPECT_EQ(result->plan.moves[0].to, "acme");
    EXPECT_EQ(result->plan.kind, "isolate");
    EXPECT_EQ(spaceOf(applyPlanToInput(input, result->plan), "t0").pin, "acme");
    EXPECT_EQ(planIsolate(input, "ghost", { "x", "n1", ShardState::Active, 0, 0 }).error().code, ErrorCode::NotFound);
    EXPECT_EQ(planIsolate(input, "t0", { "x", "n9", ShardState::Active, 0, 0 }).error().code, ErrorCode::NotFound);
}

TEST(Planner, SpacesLargerThanHalfAShardGetTheirShardToThemselves)
{
    PlannerInput input;
    input.nodes = { { "n0", false, 100 * kGiB, 200 * kGiB } };
    for (const char* id : { "a", "b", "c" })
        input.shards.push_back({ ShardRecord { id, "n0", ShardState::Active, 0, 10'000 } });
    input.spaces = { { "whale", "a", {}, false, {}, {}, { 10, 6000, 0, 0 } },
        { "minnow", "a", {}, false, {}, {}, { 1, 500, 0, 0 } }, { "x", "b", {}, false, {}, {}, { 1, 800, 0, 0 } },
        { "y", "c", {}, false, {}, {}, { 1, 700, 0, 0 } } };
    auto result = planRebalance(input);
    ASSERT_TRUE(result) << result.error().describe();
    const PlannedMove* minnow = result->plan.moveOf("minnow");
    ASSERT_NE(minnow, nullptr);
    EXPECT_NE(minnow->reason.find("dedicated to space whale"), std::string::npos) << minnow->reason;
    EXPECT_EQ(result->plan.moveOf("whale"), nullptr);
    for (const PlannedMove& move : result->plan.moves)
        EXPECT_NE(move.to, "a");
}

TEST(Planner, TheMoveBudgetStopsThePlanAndSaysSo)
{
    const PlannerInput input = randomFleet(21, { 4, 10, 400, false });
    PlannerOptions options;
    options.maxMoves = 3;
    auto result = planRebalance(input, options);
    ASSERT_TRUE(result);
    EXPECT_EQ(result->plan.moves.size(), 3u);
    ASSERT_FALSE(result->warnings.empty());
    EXPECT_NE(result->warnings.front().find("budget"), std::string::npos) << result->warnings.front();
    options = {};
    options.maxBytes = 3'000'000'000;
    auto bytes = planRebalance(input, options);
    ASSERT_TRUE(bytes);
    EXPECT_LE(bytes->summary.bytesMoved, options.maxBytes);
}

TEST(Planner, TheSamePlanForTheSameInput)
{
    for (std::uint32_t seed = 1; seed <= 10; ++seed) {
        const PlannerInput input = randomFleet(seed);
        auto a = planRebalance(input);
        auto b = planRebalance(input);
        ASSERT_TRUE(a && b);
        EXPECT_EQ(a->plan.encode(), b->plan.encode());
        auto c = planDrain(randomFleet(seed, { 4, 10, 200, false }), "s1");
        auto d = planDrain(randomFleet(seed, { 4, 10, 200, false }), "s1");
        ASSERT_TRUE(c && d);
        EXPECT_EQ(c->plan.encode(), d->plan.encode());
    }
}

TEST(Planner, EstimatesDurationAtTheThrottleAndConcurrency)
{
    const PlannerInput input = randomFleet(2, { 4, 10, 400, false });
    PlannerInput slow = input;
    slow.settings.defaultThrottleDocsPerSecond = 100;
    auto fast = planRebalance(input);
    auto throttled = planRebalance(slow);
    ASSERT_TRUE(fast && throttled);
    EXPECT_EQ(fast->summary.rateSource, "assumed");
    EXPECT_EQ(throttled->summary.rateSource, "throttle");
    EXPECT_GT(throttled->summary.estimatedSeconds, 10 * fast->summary.estimatedSeconds);
    PlannerInput measured = input;
    measured.measuredDocsPerSecond = 2500;
    measured.measuredMigrations = 5;
    auto byMeasure = planRebalance(measured);
    ASSERT_TRUE(byMeasure);
    EXPECT_EQ(byMeasure->summary.rateSource, "measured");
    EXPECT_GT(byMeasure->summary.estimatedSeconds, fast->summary.estimatedSeconds);
}

// A shard's replicas hold its spaces too (issue 30): the nodes' bytes before and after count every
// copy, and a target whose replica's node has no room for a space does not take it.
TEST(Planner, EveryCopyOfAShardCountsOnItsNodeAndNeedsRoomThere)
{
    PlannerInput input;
    input.nodes = { { "n0", false, 100 * kGiB, 200 * kGiB }, { "n1", false, 100 * kGiB, 200 * kGiB },
        { "n2", false, 100 * kGiB, 200 * kGiB } };
    ShardRecord a { "a", "n0", ShardState::Active, 0, 0 };
    ShardRecord b { "b", "n1", ShardState::Active, 0, 0 };
    b.replicas.push_back({ "n2", CopyState::InSync });
    ShardRecord c { "c", "n1", ShardState::Active, 0, 0 };
    c.replicas.push_back({ "n0", CopyState::Lost });
    input.shards = { { a }, { b }, { c } };
    input.spaces = { { "s", "a", {}, false, {}, {}, { 10, 4 * kGiB, 0, 0 } },
        { "t", "b", {}, false, {}, {}, { 10, 2 * kGiB, 0, 0 } } };

    auto drained = planDrain(input, "a");
    ASSERT_TRUE(drained) << drained.error().describe();
    ASSERT_EQ(drained->plan.moves.size(), 1u);
    std::map<std::string, const NodeOutcome*> nodes;
    for (const NodeOutcome& node : drained->nodes)
        nodes[node.node] = &node;
    EXPECT_DOUBLE_EQ(nodes.at("n2")->bytesBefore, static_cast<double>(2 * kGiB)) << "b's replica holds t";
    EXPECT_DOUBLE_EQ(nodes.at("n0")->bytesBefore, static_cast<double>(4 * kGiB)) << "a lost copy holds nothing";
    const std::string target = drained->plan.moves.front().to;
    EXPECT_DOUBLE_EQ(nodes.at("n2")->bytesAfter, static_cast<double>((target == "b" ? 6 : 2) * kGiB));
    EXPECT_DOUBLE_EQ(nodes.at("n1")->bytesAfter, static_cast<double>(6 * kGiB));

    // n2 keeps 6 GiB free: b's replica there has no room for twice s's 4 GiB, so s goes to c.
    input.nodes[2].diskFreeBytes = 6 * kGiB;
    auto roomless = planDrain(input, "a");
    ASSERT_TRUE(roomless) << roomless.error().describe();
    ASSERT_EQ(roomless->plan.moves.size(), 1u);
    EXPECT_EQ(roomless->plan.moves.front().to, "c");
    input.shards.pop_back();
    auto refused = planDrain(input, "a");
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("node n2 would keep less than twice"), std::string::npos)
        << refused.error().message;
}

// A retire-node's preview says which replicas the node holds: the executor makes each again on
// another node before the node retires (a retired shard's copy and a primary are not listed).
TEST(Planner, ARetireNodePreviewNamesTheReplicasItsNodeHolds)
{
    PlannerInput input;
    input.nodes = { { "n0", false, 100 * kGiB, 200 * kGiB }, { "n1", false, 100 * kGiB, 200 * kGiB },
        { "n2", false, 100 * kGiB, 200 * kGiB } };
    ShardRecord a { "a", "n0", ShardState::Active, 0, 0 };
    a.replicas.push_back({ "n2", CopyState::InSync });
    ShardRecord b { "b", "n1", ShardState::Active, 0, 0 };
    b.replicas.push_back({ "n2", CopyState::CatchingUp });
    ShardRecord gone { "gone", "n1", ShardState::Retired, 0, 0 };
    gone.replicas.push_back({ "n2", CopyState::InSync });
    ShardRecord own { "own", "n2", ShardState::Active, 0, 0 };
    input.shards = { { a }, { b }, { gone }, { own } };
    input.spaces = { { "s", "own", {}, false, {}, {}, { 10, kGiB, 0, 0 } } };

    auto retired = planRetireNode(input, "n2");
    ASSERT_TRUE(retired) << retired.error().describe();
    EXPECT_EQ(retired->plan.moves.size(), 1u) << "its own shard's space moves";
    const PlanNote expected { PlanNoteKind::ReplicasMoveOff, { "n2", "2", "a, b" } };
    ASSERT_EQ(std::count(retired->warningNotes.begin(), retired->warningNotes.end(), expected), 1)
        << ::testing::PrintToString(retired->warnings);
    const auto said = std::find(retired->warnings.begin(), retired->warnings.end(), describe(expected));
    ASSERT_NE(said, retired->warnings.end());
    EXPECT_EQ(*said,
        "node n2 holds 2 replica(s) (a, b); the executor makes each again on another node before the node retires");
    auto other = planRetireNode(input, "n0");
    ASSERT_TRUE(other);
    EXPECT_TRUE(std::none_of(other->warningNotes.begin(), other->warningNotes.end(),
        [](const PlanNote& note) { return note.kind == PlanNoteKind::ReplicasMoveOff; }));
}

TEST(Planner, ReportsEveryShardAndNodeBeforeAndAfter)
{
    const PlannerInput input = randomFleet(8, { 3, 6, 100, false });
    auto result = planRebalance(input);
    ASSERT_TRUE(result);
    ASSERT_EQ(result->shards.size(), input.shards.size());
    ASSERT_EQ(result->nodes.size(), input.nodes.size());
    const auto after = loads(applyPlanToInput(input, result->plan));
    for (const ShardOutcome& shard : result->shards)
        EXPECT_NEAR(shard.after.bytes, after.at(shard.shard).bytes, 1.0) << shard.shard;
    double before = 0, moved = 0;
    for (const NodeOutcome& node : result->nodes) {
        before += node.bytesBefore;
        moved += node.bytesAfter;
    }
    EXPECT_NEAR(before, moved, 1.0);
    EXPECT_EQ(result->summary.objectives.size(), 4u);
}

TEST(Planner, PlanFilesKeepKindNewShardsAndReasons)
{
    const PlannerInput input = randomFleet(17, { 2, 4, 60, false });
    auto result = planSplit(input, "s0", { "s0-b", "n1", ShardState::Active, 0, 500 * kGiB });
    ASSERT_TRUE(result);
    auto decoded = Plan::decode(result->plan.encode());
    ASSERT_TRUE(decoded) << decoded.error().describe();
    EXPECT_EQ(*decoded, result->plan);
    EXPECT_EQ(decoded->newShards.at(0).capacityBytes, 500 * kGiB);
}

TEST(Planner, AfterADrainTheDrainedShardIsLeftAlone)
{
    const PlannerInput input = randomFleet(6, { 4, 8, 300, false });
    auto drained = planDrain(input, "s2");
    ASSERT_TRUE(drained);
    const PlannerInput after = applyPlanToInput(input, drained->plan);
    auto again = planDrain(after, "s2");
    ASSERT_TRUE(again);
    EXPECT_TRUE(again->plan.moves.empty());
    auto rebalanced = planRebalance(after);
    ASSERT_TRUE(rebalanced);
    for (const PlannedMove& move : rebalanced->plan.moves)
        EXPECT_NE(move.to, "s2") << "a draining shard receives nothing";
}

TEST(Planner, MovesWithinANodeNeedRoomOnItsDiskToo)
{
    PlannerInput input;
    input.nodes = { { "n0", false, 5'000, 100'000 } };
    input.shards = { { ShardRecord { "a", "n0", ShardState::Active, 0, 0 } },
        { ShardRecord { "b", "n0", ShardState::Active, 0, 0 } } };
    input.spaces = { { "x", "a", {}, false, {}, {}, { 1, 10'000, 0, 0 } },
        { "y", "a", {}, false, {}, {}, { 1, 10'000, 0, 0 } } };
    auto result = planRebalance(input);
    ASSERT_TRUE(result);
    EXPECT_TRUE(result->plan.moves.empty()) << "5,000 bytes free cannot take a 10,000-byte copy";
    input.nodes[0].diskFreeBytes = 50'000;
    result = planRebalance(input);
    ASSERT_TRUE(result);
    EXPECT_EQ(result->plan.moves.size(), 1u);
}

TEST(Planner, DrainLeavesTheOtherSpacesOfADedicatedShardAlone)
{
    PlannerInput input;
    input.nodes = { { "n0", false, 100 * kGiB, 200 * kGiB } };
    for (const char* id : { "a", "b", "c" })
        input.shards.push_back({ ShardRecord { id, "n0", ShardState::Active, 0, 10'000 } });
    input.spaces = { { "whale", "a", {}, false, {}, {}, { 10, 6000, 0, 0 } },
        { "minnow", "a", {}, false, {}, {}, { 1, 500, 0, 0 } }, { "x", "b", {}, false, {}, {}, { 1, 800, 0, 0 } } };
    auto result = planDrain(input, "b");
    ASSERT_TRUE(result) << result.error().describe();
    ASSERT_EQ(result->plan.moves.size(), 1u);
    EXPECT_EQ(result->plan.moves[0].space, "x");
    EXPECT_EQ(result->plan.moves[0].to, "c") << "not onto the whale's shard";
}

TEST(Planner, TheHoursBudgetUsesTheEstimateItReports)
{
    PlannerInput input = randomFleet(4, { 4, 8, 200, false });
    input.settings.defaultThrottleDocsPerSecond = 1000;
    input.settings.maxPerShard = 1;
    auto unlimited = planDrain(input, "s0");
    ASSERT_TRUE(unlimited);
    PlannerOptions options;
    options.maxHours = unlimited->summary.estimatedSeconds / 3600 / 2;
    auto limited = planDrain(input, "s0", options);
    ASSERT_TRUE(limited);
    EXPECT_LE(limited->summary.estimatedSeconds, options.maxHours * 3600);
    EXPECT_LT(limited->plan.moves.size(), unlimited->plan.moves.size());
}

TEST(Planner, ADrainCutByItsBudgetNamesTheSpacesItLeaves)
{
    const PlannerInput input = randomFleet(12, { 4, 8, 200, false });
    PlannerOptions options;
    options.maxMoves = 2;
    auto result = planDrain(input, "s0", options);
    ASSERT_TRUE(result);
    EXPECT_EQ(result->plan.moves.size(), 2u);
    std::size_t onS0 = 0;
    for (const auto& space : input.spaces)
        onS0 += space.shard == "s0" ? 1 : 0;
    EXPECT_EQ(result->plan.remaining.size(), onS0 - 2);
    auto decoded = Plan::decode(result->plan.encode());
    ASSERT_TRUE(decoded);
    EXPECT_EQ(decoded->remaining, result->plan.remaining);
}

TEST(Planner, MergeBelowALimitPairsTheSmallestWithTheFullestThatStillFits)
{
    PlannerInput input;
    input.nodes = { { "n0", false, 100 * kGiB, 200 * kGiB } };
    for (const char* id : { "a", "b", "c", "d" })
        input.shards.push_back({ ShardRecord { id, "n0", ShardState::Active, 0, 0 } });
    input.spaces
        = { { "x", "a", {}, false, {}, {}, { 1, 100, 0, 0 } }, { "y", "b", {}, false, {}, {}, { 1, 700, 0, 0 } },
              { "z", "c", {}, false, {}, {}, { 1, 950, 0, 0 } }, { "w", "d", {}, false, {}, {}, { 1, 5000, 0, 0 } } };
    auto result = planMergeBelow(input, 1000);
    ASSERT_TRUE(result) << result.error().describe();
    EXPECT_EQ(result->plan.kind, "merge");
    EXPECT_EQ(result->plan.subject, "a") << "the smallest";
    EXPECT_EQ(result->plan.into, "b") << "c would pass the limit with it";
    ASSERT_EQ(result->plan.moves.size(), 1u);
    EXPECT_FALSE(result->warnings.empty()) << "c remains below the limit";
    auto none = planMergeBelow(input, 200);
    ASSERT_FALSE(none);
    EXPECT_NE(none.error().message.find("a merge needs two"), std::string::npos) << none.error().message;
}
