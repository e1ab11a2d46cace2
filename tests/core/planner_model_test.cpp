// The planner's fleet model on its own, without a scenario or the search: where the input's spaces
// are placed, the shares and the band after settling, what a move changes (loads, nodes, the band,
// the plan read back), the hard constraints' refusals, the move budget and the duration rule.
#include "core/plan/planner_model.h"
#include "tests/core/test_helpers.h"

#include <gtest/gtest.h>

namespace shardmap::core::planning {

namespace {

using shardmap::testing::kGiB;

PlannerSpace modelSpace(const std::string& id, const std::string& shard, double gib, double docs = 0)
{
    PlannerSpace space;
    space.id = id;
    space.shard = shard;
    space.load = { docs, gib * static_cast<double>(kGiB), 0, 0 };
    return space;
}

// Three shards on two nodes: s1 (n1) holds 30 GiB in t1 (20) and t2 (10), s2 (n1) 10 GiB in t3,
// s3 (n2) 20 GiB in t4. Balanced, each would hold 20 GiB: t2 from s1 to s2 evens it out.
PlannerInput threeShards()
{
    PlannerInput input;
    input.baseRevision = 7;
    input.nodes = { { "n1", false, 400 * kGiB, 500 * kGiB }, { "n2", false, 400 * kGiB, 500 * kGiB } };
    for (const auto& [id, node] : { std::pair { "s1", "n1" }, { "s2", "n1" }, { "s3", "n2" } })
        input.shards.push_back({ ShardRecord { id, node, ShardState::Active, 0, 0 } });
    input.spaces = { modelSpace("t1", "s1", 20, 20'000), modelSpace("t2", "s1", 10, 10'000),
        modelSpace("t3", "s2", 10, 10'000), modelSpace("t4", "s3", 20, 20'000) };
    return input;
}

// Only bytes are weighed, so that the expected shares and deviations are the bytes' alone.
PlannerOptions bytesOnly()
{
    PlannerOptions options;
    options.weights = { 1.0, 0, 0, 0, 0 };
    return options;
}

const Bin& binNamed(Fleet& fleet, const std::string& id)
{
    return fleet.bins().at(fleet.binOf(id));
}

std::vector<std::string> spacesOn(Fleet& fleet, const std::string& shard)
{
    std::vector<std::string> out;
    for (std::size_t i : binNamed(fleet, shard).items)
        out.push_back(fleet.items()[i].space->id);
    return out;
}

} // namespace

TEST(PlannerModel, PlacesEverySpaceOnItsShardAndSumsTheLoads)
{
    PlannerInput input = threeShards();
    input.spaces.push_back(modelSpace("lost", "s9", 5));
    Fleet fleet(input, bytesOnly(), {});

    ASSERT_EQ(fleet.bins().size(), 3u);
    EXPECT_EQ(spacesOn(fleet, "s1"), (std::vector<std::string> { "t1", "t2" }));
    EXPECT_EQ(spacesOn(fleet, "s2"), (std::vector<std::string> { "t3" }));
    EXPECT_EQ(spacesOn(fleet, "s3"), (std::vector<std::string> { "t4" }));
    EXPECT_DOUBLE_EQ(binNamed(fleet, "s1").load.bytes, 30.0 * kGiB);
    EXPECT_DOUBLE_EQ(binNamed(fleet, "s1").load.docs, 30'000);
    EXPECT_EQ(binNamed(fleet, "s1").before, binNamed(fleet, "s1").load);
    EXPECT_EQ(binNamed(fleet, "s1").spacesBefore, 2u);
    // A space on a shard the input does not hold is not part of the model.
    EXPECT_EQ(fleet.itemOf("lost"), kNone);
    EXPECT_EQ(fleet.binOf("s9"), kNone);
    const Item& t2 = fleet.items().at(fleet.itemOf("t2"));
    EXPECT_EQ(t2.bin, fleet.binOf("s1"));
    EXPECT_EQ(t2.home, t2.bin);
    EXPECT_TRUE(t2.movable);
}

TEST(PlannerModel, MigratingSpacesAndSpacesPinnedWhereTheyAreDoNotMove)
{
    PlannerInput input = threeShards();
    input.spaces[0].migrating = true;
    input.spaces[1].pin = "s1";
    input.spaces[2].pin = "s3";
    Fleet fleet(input, bytesOnly(), {});

    EXPECT_FALSE(fleet.items()[fleet.itemOf("t1")].movable);
    EXPECT_FALSE(fleet.items()[fleet.itemOf("t2")].movable);
    // Pinned elsewhere: it may move, to its pin only.
    EXPECT_TRUE(fleet.items()[fleet.itemOf("t3")].movable);
    fleet.settle({});
    EXPECT_EQ(fleet.refusal(fleet.itemOf("t3"), fleet.binOf("s1")), "space t3 is pinned to s3");
    EXPECT_EQ(fleet.refusal(fleet.itemOf("t3"), fleet.binOf("s3")), "");
}

TEST(PlannerModel, AddedShardsJoinAsNewEmptyBins)
{
    const PlannerInput input = threeShards();
    Fleet fleet(
        input, bytesOnly(), { { "s4", "n2", ShardState::Active, 0, 0 }, { "s2", "n1", ShardState::Active, 0, 0 } });

    ASSERT_EQ(fleet.bins().size(), 4u);
    EXPECT_TRUE(binNamed(fleet, "s4").isNew);
    EXPECT_TRUE(binNamed(fleet, "s4").created);
    EXPECT_EQ(binNamed(fleet, "s4").load, LoadFigures {});
    // A shard of the input among the added ones is marked new, not made again.
    EXPECT_TRUE(binNamed(fleet, "s2").isNew);
    EXPECT_FALSE(binNamed(fleet, "s2").created);
    fleet.settle({});
    // 60 GiB over four shards.
    EXPECT_DOUBLE_EQ(fleet.target(binNamed(fleet, "s4"), 0), 15.0 * kGiB);
    EXPECT_TRUE(fleet.outBelow(binNamed(fleet, "s4")));
}

TEST(PlannerModel, SettlingGivesSharesByCapacityAndMarksTheBand)
{
    PlannerInput input = threeShards();
    input.shards[0].record.capacityBytes = 100 * kGiB;
    input.shards[1].record.capacityBytes = 100 * kGiB;
    input.shards[2].record.capacityBytes = 200 * kGiB;
    Fleet fleet(input, bytesOnly(), {});
    fleet.settle({});

    EXPECT_DOUBLE_EQ(binNamed(fleet, "s1").share, 0.75);
    EXPECT_DOUBLE_EQ(binNamed(fleet, "s3").share, 1.5);
    // 60 GiB over shares summing to 3: 20 GiB per unit of share.
    EXPECT_DOUBLE_EQ(fleet.target(binNamed(fleet, "s1"), 0), 15.0 * kGiB);
    EXPECT_DOUBLE_EQ(fleet.target(binNamed(fleet, "s3"), 0), 30.0 * kGiB);
    EXPECT_TRUE(fleet.outAbove(binNamed(fleet, "s1")));
    EXPECT_TRUE(fleet.outBelow(binNamed(fleet, "s2")));
    EXPECT_TRUE(fleet.outBelow(binNamed(fleet, "s3")));
    EXPECT_FALSE(fleet.fleetBalanced());
    EXPECT_EQ(fleet.shareText(binNamed(fleet, "s1")), "2.00");
}

TEST(PlannerModel, ShardsThatAreEmptiedOrCannotReceiveLeaveTheBalance)
{
    PlannerInput input = threeShards();
    input.shards[1].record.state = ShardState::Draining;
    Fleet fleet(input, bytesOnly(), {});
    fleet.settle({ "s3" });

    EXPECT_TRUE(binNamed(fleet, "s1").balanced);
    EXPECT_FALSE(binNamed(fleet, "s2").receives);
    EXPECT_FALSE(binNamed(fleet, "s3").receives);
    EXPECT_FALSE(binNamed(fleet, "s3").balanced);
    // Emptied now, s3 still counts in the fleet as it was.
    EXPECT_TRUE(binNamed(fleet, "s3").countedBefore);
    EXPECT_FALSE(binNamed(fleet, "s2").countedBefore);
    EXPECT_EQ(fleet.refusal(fleet.itemOf("t1"), fleet.binOf("s2")), "shard s2 takes no spaces");
    EXPECT_EQ(fleet.refusal(fleet.itemOf("t1"), fleet.binOf("s1")), "it is there");
    // s1 alone is balanced: it holds all the load it shares.
    EXPECT_DOUBLE_EQ(fleet.target(binNamed(fleet, "s1"), 0), 30.0 * kGiB);
}

TEST(PlannerModel, ANodeThatDidNotReportTakesNoPartAndThePlanSaysSo)
{
    PlannerInput input = threeShards();
    input.nodes[1].diskFreeBytes.reset();
    Fleet fleet(input, bytesOnly(), {});
    fleet.settle({});

    EXPECT_FALSE(binNamed(fleet, "s3").receives);
    EXPECT_FALSE(binNamed(fleet, "s3").balanced);
    const PlanResult result = fleet.result("move", "rebalance", {}, {}, false, 0);
    ASSERT_FALSE(result.warningNotes.empty());
    EXPECT_EQ(result.warningNotes[0], (PlanNote { PlanNoteKind::NodeDidNotReport, { "n2" } }));
    EXPECT_EQ(result.warnings[0], describe(result.warningNotes[0]));
}

TEST(PlannerModel, RefusesTargetsPastTheirCapacityOrWithoutTwiceTheBytesFree)
{
    PlannerInput input = threeShards();
    input.shards[2].record.capacityBytes = 40 * kGiB;
    input.nodes[0].diskFreeBytes = 25 * kGiB;
    Fleet fleet(input, bytesOnly(), {});
    fleet.settle({});

    // s3 holds 20 GiB: t1's 20 more pass 90% of 40 GiB, t2's 10 do not.
    EXPECT_EQ(fleet.refusal(fleet.itemOf("t1"), fleet.binOf("s3")), "shard s3 would pass 90.00% of its bytes capacity");
    EXPECT_EQ(fleet.refusal(fleet.itemOf("t2"), fleet.binOf("s3")), "");
    // n1 has 25 GiB free: t4's 20 GiB need 40.
    EXPECT_EQ(fleet.refusal(fleet.itemOf("t4"), fleet.binOf("s2")),
        "node n1 would keep less than twice the space's bytes free");
    EXPECT_EQ(fleet.refusal(fleet.itemOf("t3"), fleet.binOf("s1")), "");
    // What the plan puts on a node counts against the next move there.
    fleet.move(fleet.itemOf("t3"), fleet.binOf("s1"), { PlanNoteKind::Text, { "by hand" } });
    EXPECT_EQ(fleet.refusal(fleet.itemOf("t2"), fleet.binOf("s2")),
        "node n1 would keep less than twice the space's bytes free");
}

TEST(PlannerModel, TheDeltaOfAMoveIsTheChangeOfTheDeviationAndItsPairFormAgrees)
{
    PlannerInput input = threeShards();
    input.spaces[3].load.queriesPerSecond = 50;
    Fleet fleet(input, {}, {});
    fleet.settle({});

    const std::size_t t2 = fleet.itemOf("t2");
    const std::size_t t3 = fleet.itemOf("t3");
    EXPECT_LT(fleet.delta(t2, fleet.binOf("s2")), 0);
    EXPECT_GT(fleet.delta(t3, fleet.binOf("s1")), 0);
    for (std::size_t item = 0; item < fleet.items().size(); ++item) {
        for (std::size_t to = 0; to < fleet.bins().size(); ++to) {
            if (to == fleet.items()[item].bin)
                continue;
            const double pair = fleet.coefficients(fleet.items()[item].bin, to).delta(fleet.items()[item].space->load);
            EXPECT_NEAR(pair, fleet.delta(item, to), 1e-9) << item << " to " << to;
        }
    }
}

TEST(PlannerModel, AMoveUpdatesLoadsNodesTheBandAndThePlan)
{
    const PlannerInput input = threeShards();
    Fleet fleet(input, bytesOnly(), {});
    fleet.settle({});
    ASSERT_FALSE(fleet.fleetBalanced());

    fleet.move(fleet.itemOf("t2"), fleet.binOf("s2"), { PlanNoteKind::Text, { "evens it out" } });
    EXPECT_EQ(spacesOn(fleet, "s1"), (std::vector<std::string> { "t1" }));
    EXPECT_EQ(spacesOn(fleet, "s2"), (std::vector<std::string> { "t3", "t2" }));
    EXPECT_DOUBLE_EQ(binNamed(fleet, "s1").load.bytes, 20.0 * kGiB);
    EXPECT_DOUBLE_EQ(binNamed(fleet, "s2").load.docs, 20'000);
    EXPECT_DOUBLE_EQ(binNamed(fleet, "s1").before.bytes, 30.0 * kGiB);
    EXPECT_TRUE(fleet.fleetBalanced());

    const PlanResult result = fleet.result("move", "rebalance", {}, {}, false, 0);
    EXPECT_EQ(result.plan.baseRevision, 7u);
    ASSERT_EQ(result.plan.moves.size(), 1u);
    EXPECT_EQ(result.plan.moves[0].space, "t2");
    EXPECT_EQ(result.plan.moves[0].from, "s1");
    EXPECT_EQ(result.plan.moves[0].to, "s2");
    EXPECT_EQ(result.plan.moves[0].reason, "evens it out");
    EXPECT_EQ(result.plan.moves[0].bytes, 10 * kGiB);
    EXPECT_EQ(result.summary.moves, 1u);
    EXPECT_EQ(result.summary.bytesMoved, 10 * kGiB);
    EXPECT_TRUE(result.summary.balancedAfter);
    // Within one node: its bytes stay, its free disk after counts the copy.
    ASSERT_EQ(result.nodes.size(), 2u);
    EXPECT_DOUBLE_EQ(result.nodes[0].bytesBefore, 40.0 * kGiB);
    EXPECT_DOUBLE_EQ(result.nodes[0].bytesAfter, 40.0 * kGiB);
    EXPECT_EQ(result.nodes[0].diskFreeAfter, 390 * kGiB);
    EXPECT_EQ(result.shards[0].spacesBefore, 2u);
    EXPECT_EQ(result.shards[0].spacesAfter, 1u);
}

TEST(PlannerModel, ASpaceMovedAgainKeepsOneMoveFromItsHomeAndNoneBackHome)
{
    const PlannerInput input = threeShards();
    Fleet fleet(input, bytesOnly(), {});
    fleet.settle({});
    const std::size_t t2 = fleet.itemOf("t2");

    fleet.move(t2, fleet.binOf("s2"), { PlanNoteKind::Text, { "first" } });
    fleet.move(t2, fleet.binOf("s3"), { PlanNoteKind::Text, { "second" } });
    PlanResult result = fleet.result("move", "rebalance", {}, {}, false, 0);
    ASSERT_EQ(result.plan.moves.size(), 1u);
    EXPECT_EQ(result.plan.moves[0].from, "s1");
    EXPECT_EQ(result.plan.moves[0].to, "s3");
    EXPECT_EQ(result.moveNotes.at("t2"), (PlanNote { PlanNoteKind::Text, { "second" } }));
    // n2 received it, n1 gave it.
    EXPECT_DOUBLE_EQ(result.nodes[0].bytesAfter, 30.0 * kGiB);
    EXPECT_DOUBLE_EQ(result.nodes[1].bytesAfter, 30.0 * kGiB);

    fleet.move(t2, fleet.binOf("s1"), { PlanNoteKind::Text, { "home" } });
    result = fleet.result("move", "rebalance", {}, {}, false, 0);
    EXPECT_TRUE(result.plan.moves.empty());
    EXPECT_EQ(result.summary.bytesMoved, 0u);
    EXPECT_EQ(result.nodes[1].diskFreeAfter, 400 * kGiB);
}

TEST(PlannerModel, ALargeSpaceGetsItsShardAndTheOthersMustLeaveWhenEvicting)
{
    PlannerInput input = threeShards();
    PlannerOptions options = bytesOnly();
    options.shardBytesLimit = 30 * kGiB;
    {
        Fleet fleet(input, options, {});
        fleet.settle({}, true);
        EXPECT_EQ(binNamed(fleet, "s1").dedicatedTo, "t1");
        EXPECT_FALSE(binNamed(fleet, "s1").receives);
        EXPECT_TRUE(fleet.items()[fleet.itemOf("t1")].big);
        EXPECT_TRUE(fleet.items()[fleet.itemOf("t2")].mustLeave);
        EXPECT_EQ(fleet.items()[fleet.itemOf("t2")].leaveReason,
            (PlanNote { PlanNoteKind::DedicatedShardEmptied, { "s1", "t1", "large" } }));
        // s3's t4 is larger than half a shard too.
        EXPECT_EQ(binNamed(fleet, "s3").dedicatedTo, "t4");
    }
    Fleet fleet(input, options, {});
    fleet.settle({});
    EXPECT_EQ(binNamed(fleet, "s1").dedicatedTo, "t1");
    EXPECT_FALSE(fleet.items()[fleet.itemOf("t2")].mustLeave);
}

TEST(PlannerModel, TheBudgetCountsMovesAndBytesButNotASpaceMovedAgain)
{
    const PlannerInput input = threeShards();
    PlannerOptions options = bytesOnly();
    options.maxMoves = 1;
    Fleet fleet(input, options, {});
    fleet.settle({});
    const std::size_t t2 = fleet.itemOf("t2");
    EXPECT_TRUE(fleet.withinBudget(t2, fleet.binOf("s2")));
    fleet.move(t2, fleet.binOf("s2"), { PlanNoteKind::Text, { "one" } });
    EXPECT_FALSE(fleet.withinBudget(fleet.itemOf("t4"), fleet.binOf("s2")));
    EXPECT_TRUE(fleet.withinBudget(t2, fleet.binOf("s3")));

    options.maxMoves = 0;
    options.maxBytes = 15 * kGiB;
    Fleet bytes(input, options, {});
    bytes.settle({});
    EXPECT_TRUE(bytes.withinBudget(bytes.itemOf("t2"), bytes.binOf("s2")));
    EXPECT_FALSE(bytes.withinBudget(bytes.itemOf("t1"), bytes.binOf("s2")));
}

TEST(PlannerModel, DurationIsTheFleetLimitOrTheBusiestShard)
{
    PlannerInput input = threeShards();
    input.settings.defaultThrottleDocsPerSecond = 1000;
    Fleet fleet(input, bytesOnly(), {});
    fleet.settle({});
    EXPECT_EQ(fleet.rate().source, "throttle");
    EXPECT_DOUBLE_EQ(fleet.estimatedSeconds(), 0);

    // 10,000 docs at 1,000 docs/s and 2 s to verify and cut over.
    fleet.move(fleet.itemOf("t2"), fleet.binOf("s2"), { PlanNoteKind::Text, { "one" } });
    EXPECT_DOUBLE_EQ(fleet.estimatedSeconds(), 12);
    // Fleet-wide two run at once (17 s), but s1 takes part in both and runs one at a time: 34 s.
    fleet.move(fleet.itemOf("t1"), fleet.binOf("s3"), { PlanNoteKind::Text, { "two" } });
    EXPECT_DOUBLE_EQ(fleet.copySeconds(30'000, 2), 17);
    EXPECT_DOUBLE_EQ(fleet.estimatedSeconds(), 34);
}

} // namespace shardmap::core::planning
