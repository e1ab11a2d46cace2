// Moving spaces by hand: the rules that allow or refuse a move (and say why), projected loads,
// and plans (JSON round trip, checks against a map that moved on).
#include "core/plan/move_rules.h"
#include "core/plan/plan.h"
#include "core/plan/plan_note.h"

#include <gtest/gtest.h>

using namespace shardmap::core;

namespace {

// Two nodes, shards a0 (n0), b0 (n1), b1 (n1); spaces x, y on a0, z on b0.
MapSnapshot makeMap()
{
    MapSnapshot map;
    map.revision = 7;
    map.nodes["n0"] = { NodeRecord { "n0", "127.0.0.1:1", {}, false }, 1 };
    map.nodes["n1"] = { NodeRecord { "n1", "127.0.0.1:2", {}, false }, 1 };
    map.shards["a0"] = { ShardRecord { "a0", "n0", ShardState::Active, 0, 0 }, 1 };
    map.shards["b0"] = { ShardRecord { "b0", "n1", ShardState::Active, 0, 0 }, 1 };
    map.shards["b1"] = { ShardRecord { "b1", "n1", ShardState::Active, 0, 0 }, 1 };
    for (const auto& [space, shard] : { std::pair { "x", "a0" }, { "y", "a0" }, { "z", "b0" } }) {
        SpaceRecord record;
        record.id = space;
        record.shard = shard;
        map.spaces[space] = { record, 1 };
    }
    return map;
}

std::map<std::string, SpaceFigures> figures()
{
    return { { "x", { 100, 1000 } }, { "y", { 50, 500 } }, { "z", { 10, 100 } } };
}

} // namespace

TEST(MoveRules, AllowsAMoveToAnActiveShard)
{
    const MapSnapshot map = makeMap();
    MoveRules rules(map, figures());
    EXPECT_TRUE(rules.check("x", "b0").allowed()) << rules.check("x", "b0").reason;
    EXPECT_EQ(rules.load("a0"), (ShardFigures { 150, 1500 }));
}

TEST(MoveRules, RefusesAndSaysWhy)
{
    MapSnapshot map = makeMap();
    map.shards["b0"].value.state = ShardState::Draining;
    map.shards["b1"].value.state = ShardState::Readonly;
    map.spaces["y"].value.pin = "a0";
    map.spaces["z"].value.migrationId = "m-1";
    map.spaces["z"].value.target = "a0";
    MoveRules rules(map, figures());

    EXPECT_EQ(rules.check("x", "a0").refusal, MoveRefusal::SameShard);
    EXPECT_EQ(rules.check("x", "a0").reason, "space x is already on shard a0");
    EXPECT_EQ(rules.check("x", "b0").refusal, MoveRefusal::TargetDraining);
    EXPECT_EQ(rules.check("x", "b0").reason, "shard b0 is draining");
    EXPECT_EQ(rules.check("x", "b1").refusal, MoveRefusal::TargetReadonly);
    EXPECT_EQ(rules.check("y", "b0").refusal, MoveRefusal::PinnedElsewhere);
    EXPECT_EQ(rules.check("y", "b0").reason, "space y is pinned to shard a0");
    EXPECT_EQ(rules.check("z", "b1").refusal, MoveRefusal::Migrating);
    EXPECT_EQ(rules.check("nope", "b1").refusal, MoveRefusal::UnknownSpace);
    EXPECT_EQ(rules.check("x", "nope").refusal, MoveRefusal::UnknownShard);

    map.shards["b1"].value.state = ShardState::Retired;
    EXPECT_EQ(MoveRules(map, figures()).check("x", "b1").refusal, MoveRefusal::TargetRetired);
}

TEST(MoveRules, RefusesATargetThatWouldBeFullCountingQueuedAndPlannedMoves)
{
    MapSnapshot map = makeMap();
    map.settings.value.maxTargetFill = 1.0;
    map.shards["b0"].value.capacityDocs = 120;
    MoveRules rules(map, figures());
    EXPECT_TRUE(rules.check("x", "b0").allowed()); // 10 + 100 <= 120
    const MoveVerdict full = rules.check("y", "b0", { { "x", "a0", "b0" } });
    EXPECT_EQ(full.refusal, MoveRefusal::OverCapacityDocs);
    EXPECT_EQ(full.wouldHold, 160u);
    EXPECT_EQ(full.limit, 120u);
    EXPECT_NE(full.reason.find("shard b0 is full"), std::string::npos) << full.reason;

    map.shards["b0"].value.capacityDocs = 0;
    map.shards["b0"].value.capacityBytes = 1000;
    map.settings.value.maxTargetFill = 0.9; // 900 bytes may be used, 100 are
    const MoveVerdict bytes = MoveRules(map, figures()).check("x", "b0");
    EXPECT_EQ(bytes.refusal, MoveRefusal::OverCapacityBytes);
    EXPECT_EQ(bytes.reason, "shard b0 is full: it has 800 B free, space x needs 1000 B");
}

TEST(MoveRules, ProjectsLoadsAfterQueuedMigrationsAndPlannedMoves)
{
    MapSnapshot map = makeMap();
    map.spaces["z"].value.migrationId = "m-1";
    map.spaces["z"].value.target = "b1";
    MoveRules rules(map, figures(), { { "a0", { 200, 2000 } } }); // a0 from its node: more than its spaces
    auto loads = rules.projectedLoads();
    EXPECT_EQ(loads["b0"], (ShardFigures { 0, 0 }));
    EXPECT_EQ(loads["b1"], (ShardFigures { 10, 100 }));
    EXPECT_EQ(loads["a0"], (ShardFigures { 200, 2000 }));
    loads = rules.projectedLoads({ { "x", "a0", "b0" }, { "y", "a0", "b1" } });
    EXPECT_EQ(loads["a0"], (ShardFigures { 50, 500 }));
    EXPECT_EQ(loads["b0"], (ShardFigures { 100, 1000 }));
    EXPECT_EQ(loads["b1"], (ShardFigures { 60, 600 }));
    EXPECT_EQ(rules.projectedShard("z"), "b1");
    EXPECT_EQ(rules.projectedShard("x", { { "x", "a0", "b0" } }), "b0");
    // A planned move counts as where the space is: moving it there again is refused.
    EXPECT_EQ(rules.check("x", "b0", { { "x", "a0", "b0" } }).refusal, MoveRefusal::SameShard);
}

TEST(MoveRules, ProjectsTheSameLoadsFromAnIndexedMap)
{
    MapSnapshot map = makeMap();
    map.spaces["z"].value.migrationId = "m-1";
    map.spaces["z"].value.target = "b1";
    const std::vector<PlannedMove> moves { { "x", "a0", "b0" }, { "z", "b1", "a0" }, { "nobody", "a0", "b0" } };
    const auto scanned = MoveRules(map, figures()).projectedLoads(moves);
    map.buildIndex();
    const MoveRules indexed(map, figures());
    EXPECT_EQ(indexed.projectedLoads(moves), scanned);
    EXPECT_EQ(scanned.at("a0"), (ShardFigures { 60, 600 }));
    EXPECT_EQ(scanned.at("b0"), (ShardFigures { 100, 1000 }));
    EXPECT_EQ(scanned.at("b1"), (ShardFigures { 0, 0 }));
}

TEST(Plan, AddMoveRedirectsAndDropsMovesBackHome)
{
    Plan plan;
    plan.addMove({ "x", "a0", "b0" });
    plan.addMove({ "y", "a0", "b1" });
    plan.addMove({ "x", "a0", "b1" });
    ASSERT_EQ(plan.moves.size(), 2u);
    EXPECT_EQ(plan.moveOf("x")->to, "b1");
    plan.addMove({ "x", "b1", "a0" });
    EXPECT_EQ(plan.moves, (std::vector<PlannedMove> { { "y", "a0", "b1" } }));
}

TEST(Plan, JsonRoundTrip)
{
    Plan plan;
    plan.baseRevision = 42;
    plan.createdBy = "alice";
    plan.createdUnixMs = 1700000000000;
    plan.reason = "rebalance";
    plan.moves = { { "x", "a0", "b0" }, { "y", "a0", "b1" } };
    auto decoded = Plan::decode(plan.encode());
    ASSERT_TRUE(decoded) << decoded.error().describe();
    EXPECT_EQ(*decoded, plan);
    EXPECT_FALSE(Plan::decode("{"));
    EXPECT_FALSE(Plan::decode(R"({"version": 3, "base_revision": 1, "moves": []})"));
    EXPECT_FALSE(Plan::decode(R"({"version": 1, "baseRevision": 1, "moves": [{"space": "x"}]})"));
}

TEST(Plan, CheckAgainstSaysWhatChanged)
{
    Plan plan;
    plan.baseRevision = 7;
    plan.moves = { { "x", "a0", "b0" }, { "y", "a0", "b1" }, { "z", "b0", "a0" } };
    MapSnapshot map = makeMap();
    EXPECT_TRUE(plan.checkAgainst(map).empty());

    map.revision = 9;
    map.spaces["x"].value.shard = "b1";
    map.shards["b1"].value.state = ShardState::Draining;
    map.spaces["z"].value.migrationId = "m-9";
    map.spaces["z"].value.target = "b1";
    const auto conflicts = plan.checkAgainst(map);
    ASSERT_EQ(conflicts.size(), 3u);
    EXPECT_EQ(conflicts[0].message, "space x moved from shard a0 to b1");
    EXPECT_EQ(conflicts[1].message, "shard b1 is now draining");
    EXPECT_EQ(conflicts[2].message, "space z is migrating to shard b1 (m-9)");

    MapDiff diff;
    diff.spaces.push_back({ "x", "a0", "b1", 1, 2, {}, {} });
    diff.spaces.push_back({ "other", "a0", "b1", 1, 2, {}, {} });
    diff.shards.push_back({ "b1", ShardState::Active, ShardState::Draining });
    EXPECT_EQ(describeDiff(diff, plan),
        (std::vector<std::string> { "space x moved from shard a0 to b1", "shard b1 went from active to draining" }));
}

TEST(Plan, FilesAreVersionTwoInSnakeCaseAndVersionOneStillLoads)
{
    Plan plan;
    plan.baseRevision = 42;
    plan.createdBy = "alice";
    plan.createdUnixMs = 1700000000000;
    plan.newShards.push_back({ "s9", "n1", ShardState::Active, 10, 20 });
    plan.moves = { { "x", "a0", "s9" } };
    const std::string text = plan.encode();
    for (const char* key :
        { "\"version\": 2", "\"base_revision\": 42", "\"created_by\"", "\"created_unix_ms\"", "\"new_shards\"" })
        EXPECT_NE(text.find(key), std::string::npos) << key << " in " << text;
    const auto old = Plan::decode(R"({"version": 1, "baseRevision": 42, "createdBy": "alice",
        "createdUnixMs": 1700000000000, "newShards": [{"id": "s9", "node": "n1", "state": "active",
        "capacity_docs": 10, "capacity_bytes": 20}], "moves": [{"space": "x", "from": "a0", "to": "s9"}]})");
    ASSERT_TRUE(old) << old.error().describe();
    EXPECT_EQ(*old, plan);
}

TEST(Plan, ABadFileIsRefusedWithASentenceNamingTheField)
{
    const std::vector<std::pair<std::string, std::string>> cases {
        { "[]", "the plan is a list, not an object" },
        { R"({"moves": []})", "the plan has no \"version\": it is not a plan file" },
        { R"({"version": "2", "moves": []})", "the plan's \"version\" is \"2\"; this build reads versions 1 and 2" },
        { R"({"version": 2, "moves": []})", "the plan has no \"base_revision\"" },
        { R"({"version": 1, "base_revision": 1, "moves": []})", "the plan has no \"baseRevision\"" },
        { R"({"version": 2, "base_revision": -1, "moves": []})",
            "\"base_revision\" of the plan is a negative number, not a whole number of 0 or more" },
        { R"({"version": 2, "base_revision": 1})", "the plan has no \"moves\"" },
        { R"({"version": 2, "base_revision": 1, "moves": {}})", "\"moves\" of the plan is an object, not a list" },
        { R"({"version": 2, "base_revision": 1, "moves": [7]})", "move 1 of the plan is a number, not an object" },
        { R"({"version": 2, "base_revision": 1, "moves": [{"space": "x", "from": "a", "to": "b"}, {"space": "y"}]})",
            "move 2 of the plan has no \"from\"" },
        { R"({"version": 2, "base_revision": 1, "moves": [{"space": "", "from": "a", "to": "b"}]})",
            "move 1 of the plan names no space or no target shard" },
        { R"({"version": 2, "base_revision": 1, "moves": [], "remaining": ["x", 1]})",
            "\"remaining\" of the plan is a list, not a list of strings" },
        { R"({"version": 2, "base_revision": 1, "moves": [], "new_shards": [{"id": "s", "node": "n"}]})",
            "new shard 1 of the plan has no \"state\"" },
        { R"({"version": 2, "base_revision": 1, "moves": [], "created_by": null})",
            "\"created_by\" of the plan is null, not a string" },
    };
    for (const auto& [text, says] : cases) {
        const auto decoded = Plan::decode(text);
        ASSERT_FALSE(decoded) << text;
        EXPECT_EQ(decoded.error().code, ErrorCode::InvalidArgument);
        EXPECT_EQ(decoded.error().message, says) << text;
    }
    const auto notJson = Plan::decode("{\"version\": 2,\n");
    ASSERT_FALSE(notJson);
    EXPECT_TRUE(notJson.error().message.starts_with("the plan is not JSON: at line 2, column 1: "))
        << notJson.error().message;
}

// A refusal made of notes keeps its English message for the daemon and shardmapctl, and gives
// its notes back to the console (issue 26).
TEST(PlanNote, ARefusalCarriesItsNotesBesideItsEnglish)
{
    const std::vector<PlanNote> notes { { PlanNoteKind::InRollbackWindow, { "t", "s2", "m-1", "1700000600000" } },
        { PlanNoteKind::AlreadyMigrating, { "u", "m-2" } }, { PlanNoteKind::AndMore, { "3" } } };
    const Error error = refusalOf(ErrorCode::FailedPrecondition, notes);
    EXPECT_EQ(error.code, ErrorCode::FailedPrecondition);
    EXPECT_EQ(error.message,
        "space t is in its rollback window after moving to s2 (m-1) until 22:23 UTC; it can move then; space u is "
        "already migrating (m-2); wait for it to finish or cancel it first; and 3 more");
    EXPECT_EQ(refusalNotes(error), notes);
    EXPECT_TRUE(refusalNotes(makeError(ErrorCode::FailedPrecondition, "plain")).empty());
    // Without a known end the English says no time.
    EXPECT_EQ(describe({ PlanNoteKind::InRollbackWindow, { "t", "s2", "m-1", "0" } }),
        "space t is in its rollback window after moving to s2 (m-1); it can move then");
    EXPECT_EQ(describe({ PlanNoteKind::WaitsForRollbackWindows, { "retire-node", "n2", "2", "1700000600000" } }),
        "retiring node n2 can run once the rollback windows close (22:23 UTC)");
}
