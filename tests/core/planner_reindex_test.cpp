// The planner's reindex (issue 31): every space of each chosen shard into a new shard of the
// target template, on its own node when there is room for a second copy, else on the node with
// the most room, refused with each node's free bytes when none has it; which shards a request
// chooses; pinned and migrating spaces refuse the plan.
#include "core/plan/scenario.h"
#include "tests/core/test_helpers.h"

#include <gtest/gtest.h>

using namespace shardmap::core;
using shardmap::testing::kGiB;

namespace {

// Two nodes, n0 with s0 and s1 (10 GiB of spaces each), n1 with s2 (5 GiB); templates default:1
// and stemmed:1, s1 already built with stemmed:1.
PlannerInput reindexFleet(std::uint64_t freeOnN0, std::uint64_t freeOnN1)
{
    PlannerInput input;
    input.baseRevision = 7;
    input.nodes = { { "n0", false, freeOnN0, 100 * kGiB }, { "n1", false, freeOnN1, 100 * kGiB } };
    ShardRecord stemmedShard { "s1", "n0", ShardState::Active, 0, 0 };
    stemmedShard.templateName = "stemmed";
    stemmedShard.templateVersion = 1;
    input.shards = { { { "s0", "n0", ShardState::Active, 0, 0 } }, { stemmedShard },
        { { "s2", "n1", ShardState::Active, 0, 0 } } };
    const auto add = [&](const std::string& id, const std::string& shard, double bytes) {
        PlannerSpace space;
        space.id = id;
        space.shard = shard;
        space.load = { bytes / 700, bytes, 1, 1 };
        input.spaces.push_back(space);
    };
    add("a", "s0", 6.0 * kGiB);
    add("b", "s0", 4.0 * kGiB);
    add("c", "s1", 10.0 * kGiB);
    add("d", "s2", 5.0 * kGiB);
    IndexSettings porter = defaultIndexSettings();
    porter.tokenizer = Tokenizer::Porter;
    input.templates = { { "default", 1, defaultIndexSettings() }, { "stemmed", 1, porter } };
    return input;
}

ScenarioRequest reindexRequest(std::vector<std::string> shards, std::string from, bool all)
{
    ScenarioRequest request;
    request.scenario = Scenario::Reindex;
    request.subjects = std::move(shards);
    request.fromTemplate = std::move(from);
    request.all = all;
    request.toTemplate = "stemmed";
    return request;
}

} // namespace

TEST(PlannerReindex, EverySpaceMovesIntoANewShardOfTheTemplateOnItsOwnNode)
{
    const PlannerInput input = reindexFleet(200 * kGiB, 200 * kGiB);
    auto result = planScenario(input, reindexRequest({}, "", true), {});
    ASSERT_TRUE(result) << result.error().describe();
    const Plan& plan = result->plan;
    EXPECT_EQ(plan.kind, "reindex");
    // s1 is built with stemmed:1 already: left alone.
    EXPECT_EQ(plan.subject, "s0,s2");
    EXPECT_EQ(plan.into, "s0-stemmed-v1,s2-stemmed-v1");
    ASSERT_EQ(plan.newShards.size(), 2u);
    EXPECT_EQ(plan.newShards[0].node, "n0");
    EXPECT_EQ(plan.newShards[1].node, "n1");
    EXPECT_EQ(plan.newShards[0].templateName, "stemmed");
    EXPECT_EQ(plan.newShards[0].templateVersion, 1u);
    std::map<std::string, std::string> to;
    for (const PlannedMove& move : plan.moves)
        to[move.space] = move.to;
    EXPECT_EQ(to,
        (std::map<std::string, std::string> {
            { "a", "s0-stemmed-v1" }, { "b", "s0-stemmed-v1" }, { "d", "s2-stemmed-v1" } }));
    // The plan file keeps what the new shards are built with (plan apply, --controller).
    auto decoded = Plan::decode(plan.encode());
    ASSERT_TRUE(decoded) << decoded.error().describe();
    EXPECT_EQ(decoded->newShards[0].templateName, "stemmed");
    EXPECT_EQ(decoded->newShards[0].templateVersion, 1u);
}

TEST(PlannerReindex, ANodeWithoutRoomForASecondCopyBuildsElsewhereOrTheReindexIsRefusedWithTheNumbers)
{
    // n0 has 8 GiB free: not enough to hold s0's 10 GiB twice; n1 has 30 GiB.
    auto elsewhere = planScenario(reindexFleet(8 * kGiB, 30 * kGiB), reindexRequest({ "s0" }, "", false), {});
    ASSERT_TRUE(elsewhere) << elsewhere.error().describe();
    EXPECT_EQ(elsewhere->plan.newShards[0].node, "n1");
    // Both short: refused, saying how much it needs and what each node has.
    auto refused = planScenario(reindexFleet(8 * kGiB, 9 * kGiB), reindexRequest({ "s0" }, "", false), {});
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ErrorCode::FailedPrecondition);
    const std::string& message = refused.error().message;
    EXPECT_NE(message.find("no node has room to rebuild shard s0 (10.0 GiB"), std::string::npos) << message;
    EXPECT_NE(message.find("n0 8.0 GiB free"), std::string::npos) << message;
    EXPECT_NE(message.find("n1 9.0 GiB free"), std::string::npos) << message;
    // Two shards: the second counts the room the first takes on n0 (16 GiB less s0's 10 leaves 6
    // for s2's 5, which the move rules then find too tight).
    auto both = planScenario(reindexFleet(16 * kGiB, 1 * kGiB), reindexRequest({}, "default", false), {});
    ASSERT_FALSE(both);
    EXPECT_NE(both.error().message.find("s2"), std::string::npos) << both.error().message;
    auto tight = planScenario(reindexFleet(14 * kGiB, 1 * kGiB), reindexRequest({}, "default", false), {});
    ASSERT_FALSE(tight);
    EXPECT_NE(tight.error().message.find("no node has room to rebuild shard s2 (5.0 GiB"), std::string::npos)
        << tight.error().message;
    EXPECT_NE(tight.error().message.find("n0 4.0 GiB free"), std::string::npos) << tight.error().message;
}

TEST(PlannerReindex, RequestsChooseTheirShardsOneWayAndHeldSpacesRefuse)
{
    const PlannerInput input = reindexFleet(200 * kGiB, 200 * kGiB);
    auto byTemplate = planScenario(input, reindexRequest({}, "default:1", false), {});
    ASSERT_TRUE(byTemplate) << byTemplate.error().describe();
    EXPECT_EQ(byTemplate->plan.subject, "s0,s2");
    auto twoWays = planScenario(input, reindexRequest({ "s0" }, "", true), {});
    ASSERT_FALSE(twoWays);
    EXPECT_NE(twoWays.error().message.find("one way"), std::string::npos);
    auto built = planScenario(input, reindexRequest({ "s1" }, "", false), {});
    ASSERT_FALSE(built);
    EXPECT_NE(built.error().message.find("nothing to reindex"), std::string::npos);
    auto unknownShard = planScenario(input, reindexRequest({ "s9" }, "", false), {});
    ASSERT_FALSE(unknownShard);
    EXPECT_EQ(unknownShard.error().code, ErrorCode::NotFound);
    ScenarioRequest unknownTemplate = reindexRequest({ "s0" }, "", false);
    unknownTemplate.toTemplate = "nothing";
    EXPECT_EQ(planScenario(input, unknownTemplate, {}).error().code, ErrorCode::NotFound);

    PlannerInput pinned = input;
    pinned.spaces[0].pin = "s0";
    auto pinnedPlan = planScenario(pinned, reindexRequest({ "s0" }, "", false), {});
    ASSERT_FALSE(pinnedPlan);
    EXPECT_NE(pinnedPlan.error().message.find("space a is pinned to shard s0"), std::string::npos);
    PlannerInput moving = input;
    moving.spaces[1].migrating = true;
    moving.spaces[1].migrationId = "m1";
    EXPECT_FALSE(planScenario(moving, reindexRequest({ "s0" }, "", false), {}));
}
