// The planner's rules of issue 26, on random fleets (seeded, bounded) and small hand-made ones:
// dedicated shards are never filled, reasons name the shards of their move, add-shard takes only
// from shards above their share, "before" is the same fleet in every scenario, band warnings only
// where a move could help, a conservative copy rate, and every scenario on fleets with spaces in
// their rollback window.
#include "core/plan/planner.h"
#include "tests/core/test_helpers.h"

#include <gtest/gtest.h>
#include <random>
#include <regex>

using namespace shardmap::core;
using shardmap::testing::kGiB;
using shardmap::testing::spaceOf;

namespace {

// 2023-11-14 22:23:20 UTC.
constexpr std::int64_t kWindowEnd = 1'700'000'600'000;

struct Shape {
    int nodes = 4;
    int shards = 10;
    int spaces = 160;
    // Spaces in their rollback window, and a shard isolated for one space.
    bool windows = true;
    bool dedicated = true;
    bool capacities = false;
};

PlannerInput rulesFleet(std::uint32_t seed, Shape shape = {})
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> unit(0, 1);
    PlannerInput input;
    for (int n = 0; n < shape.nodes; ++n)
        input.nodes.push_back({ "n" + std::to_string(n), false, 400 * kGiB, 500 * kGiB });
    for (int s = 0; s < shape.shards; ++s) {
        ShardRecord shard { "s" + std::to_string(s), "n" + std::to_string(s % shape.nodes), ShardState::Active, 0, 0 };
        if (shape.capacities)
            shard.capacityBytes = (20 + rng() % 3 * 10) * kGiB;
        input.shards.push_back({ shard, {} });
    }
    for (int i = 0; i < shape.spaces; ++i) {
        PlannerSpace space;
        space.id = "t" + std::to_string(i);
        const int shard = static_cast<int>(std::pow(unit(rng), 1.6) * shape.shards);
        space.shard = "s" + std::to_string(std::min(shard, shape.shards - 1));
        const double bytes = 1e9 / std::pow(i + 1, 0.8) + 1e6 * unit(rng);
        space.load = { bytes / 700, bytes, unit(rng) * 5, unit(rng) * 2 };
        if (shape.windows && rng() % 12 == 0) {
            // Cut over onto its shard; the old one keeps its copy until the window closes.
            space.migrating = true;
            space.migrationId = "m-" + std::to_string(i);
            space.rollbackCopyOn = "s" + std::to_string((shard + 1) % shape.shards);
            space.rollbackUntilUnixMs = kWindowEnd;
            space.hold = PlanNote { PlanNoteKind::InRollbackWindow,
                { space.id, space.shard, space.migrationId, std::to_string(kWindowEnd) } };
        }
        input.spaces.push_back(std::move(space));
    }
    if (shape.dedicated) {
        input.shards.push_back({ ShardRecord { "solo", "n0", ShardState::Active, 0, 0 }, "whale" });
        PlannerSpace whale;
        whale.id = "whale";
        whale.shard = whale.pin = "solo";
        whale.load = { 100, 1e6, 0.5, 0.5 };
        input.spaces.push_back(std::move(whale));
    }
    return input;
}

// The shard ids a reason names ("s3", "solo", "new0"), as whole words.
std::set<std::string> shardsNamed(const std::string& reason, const PlanResult& result)
{
    std::set<std::string> ids;
    for (const ShardOutcome& shard : result.shards)
        ids.insert(shard.shard);
    std::set<std::string> named;
    static const std::regex word("[A-Za-z0-9_-]+");
    for (auto it = std::sregex_iterator(reason.begin(), reason.end(), word); it != std::sregex_iterator(); ++it) {
        if (ids.contains(it->str()))
            named.insert(it->str());
    }
    return named;
}

// What every plan of these fleets must respect: a held space stays, a dedicated shard takes
// nothing, and a reason names the shards of its move and no other.
void expectRules(const PlannerInput& input, const PlanResult& result, const std::string& allowedDedicated = {})
{
    std::set<std::string> dedicated;
    for (const PlannerShard& shard : input.shards) {
        if (!shard.dedicatedTo.empty())
            dedicated.insert(shard.record.id);
    }
    // What the planner says is data the console translates: the same words in English.
    ASSERT_EQ(result.warningNotes.size(), result.warnings.size());
    for (std::size_t i = 0; i < result.warnings.size(); ++i)
        EXPECT_EQ(describe(result.warningNotes[i]), result.warnings[i]);
    EXPECT_EQ(result.moveNotes.size(), result.plan.moves.size());
    for (const PlannedMove& move : result.plan.moves) {
        SCOPED_TRACE(move.space + " " + move.from + " -> " + move.to + ": " + move.reason);
        ASSERT_TRUE(result.moveNotes.contains(move.space));
        EXPECT_EQ(describe(result.moveNotes.at(move.space)), move.reason);
        EXPECT_NE(result.moveNotes.at(move.space).kind, PlanNoteKind::Text) << "a reason the console cannot translate";
        EXPECT_FALSE(spaceOf(input, move.space).migrating) << "a space in its rollback window moved";
        EXPECT_TRUE(!dedicated.contains(move.to) || move.to == allowedDedicated) << "a dedicated shard was filled";
        for (const std::string& named : shardsNamed(move.reason, result))
            EXPECT_TRUE(named == move.from || named == move.to) << "the reason names " << named;
    }
}

} // namespace

TEST(PlannerRules, EveryScenarioOnFleetsWithRollbackWindowsAndDedicatedShards)
{
    for (std::uint32_t seed = 1; seed <= 30; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        const PlannerInput input
            = rulesFleet(seed, { 3 + static_cast<int>(seed % 3), 8, 160, true, true, seed % 2 == 0 });
        const auto rebalance = planRebalance(input);
        ASSERT_TRUE(rebalance) << rebalance.error().describe();
        expectRules(input, *rebalance);
        const auto add = planAddShards(input, { { "new0", "n1", ShardState::Active, 0, 0 } });
        ASSERT_TRUE(add) << add.error().describe();
        expectRules(input, *add);

        // Emptying a shard: refused, saying when, while one of its spaces is in its window; a
        // merge or retire also while a window's old copy is on what it retires.
        for (const std::string shard : { "s1", "s5" }) {
            const bool holds = std::any_of(input.spaces.begin(), input.spaces.end(),
                [&](const PlannerSpace& s) { return s.migrating && s.shard == shard; });
            const bool keepsCopy = std::any_of(input.spaces.begin(), input.spaces.end(),
                [&](const PlannerSpace& s) { return s.rollbackCopyOn == shard; });
            const auto drain = planDrain(input, shard);
            if (holds) {
                ASSERT_FALSE(drain);
                EXPECT_NE(drain.error().message.find("until 22:23 UTC; it can move then"), std::string::npos)
                    << drain.error().message;
            } else if (drain) {
                expectRules(input, *drain);
            }
            const auto merge = planMerge(input, shard, "s0");
            if (keepsCopy) {
                ASSERT_FALSE(merge);
                EXPECT_NE(merge.error().message.find("can run once the rollback window"), std::string::npos)
                    << merge.error().message;
            } else if (merge) {
                expectRules(input, *merge);
            }
        }
        if (const auto retire = planRetireNode(input, "n2"))
            expectRules(input, *retire);
        if (const auto split = planSplit(input, "s0", { "s0b", "n1", ShardState::Active, 0, 0 }))
            expectRules(input, *split);
        const auto isolate = planIsolate(input, "t3", { "t3-only", "n1", ShardState::Active, 0, 0 });
        if (spaceOf(input, "t3").migrating) {
            ASSERT_FALSE(isolate);
            EXPECT_NE(isolate.error().message.find("it can move then"), std::string::npos);
        } else {
            ASSERT_TRUE(isolate) << isolate.error().describe();
            expectRules(input, *isolate, "t3-only");
            // Once isolated, the shard is dedicated: the next rebalance leaves it alone.
            const auto next = planRebalance(applyPlanToInput(input, isolate->plan));
            ASSERT_TRUE(next);
            expectRules(applyPlanToInput(input, isolate->plan), *next);
        }
    }
}

TEST(PlannerRules, ADedicatedShardIsNeverFilledAndThePlanSaysWhy)
{
    PlannerInput input = rulesFleet(4, { 3, 6, 120, false, true, false });
    // The isolated shard is nearly empty: without the rule every scenario would fill it first.
    for (const auto& [name, plan] : std::vector<std::pair<std::string, Result<PlanResult>>> {
             { "rebalance", planRebalance(input) },
             { "add-shard", planAddShards(input, { { "new0", "n2", ShardState::Active, 0, 0 } }) },
             { "drain", planDrain(input, "s0") },
             { "retire-node", planRetireNode(input, "n1") },
         }) {
        SCOPED_TRACE(name);
        ASSERT_TRUE(plan) << plan.error().describe();
        for (const PlannedMove& move : plan->plan.moves)
            EXPECT_NE(move.to, "solo");
        EXPECT_NE(std::find(plan->warnings.begin(), plan->warnings.end(),
                      "shard solo is dedicated to space whale (isolated); it receives no other space"),
            plan->warnings.end());
    }
    // A space that does not belong there leaves it in a rebalance.
    input.spaces.push_back({ "stray", "solo", {}, false, {}, {}, { 10, 1e5, 0, 0 } });
    const auto rebalance = planRebalance(input);
    ASSERT_TRUE(rebalance);
    EXPECT_TRUE(std::any_of(rebalance->plan.moves.begin(), rebalance->plan.moves.end(),
        [](const PlannedMove& move) { return move.space == "stray" && move.from == "solo"; }));
}

TEST(PlannerRules, AddShardTakesOnlyFromShardsAboveTheirShareAndLeavesNoneBelowTheBand)
{
    const double band = PlannerOptions {}.band;
    for (std::uint32_t seed = 1; seed <= 60; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        const Shape shape { 2 + static_cast<int>(seed % 4), 4 + static_cast<int>(seed % 7),
            40 + static_cast<int>(seed % 5) * 30, false, false, seed % 3 == 0 };
        const PlannerInput input = rulesFleet(seed, shape);
        std::vector<ShardRecord> added;
        for (std::uint32_t k = 0; k < 1 + seed % 2; ++k)
            added.push_back(
                { "new" + std::to_string(k), "n0", ShardState::Active, 0, shape.capacities ? 30 * kGiB : 0 });
        const auto result = planAddShards(input, added);
        ASSERT_TRUE(result) << result.error().describe();
        // Each shard's share of the bytes: by capacity when every shard has one, else equal.
        double total = 0;
        double capacity = 0;
        for (const ShardOutcome& shard : result->shards) {
            total += shard.before.bytes;
            capacity += static_cast<double>(shard.capacityBytes);
        }
        const auto share = [&](const ShardOutcome& shard) {
            return shape.capacities ? total * static_cast<double>(shard.capacityBytes) / capacity
                                    : total / static_cast<double>(result->shards.size());
        };
        std::map<std::string, const ShardOutcome*> outcome;
        for (const ShardOutcome& shard : result->shards)
            outcome[shard.shard] = &shard;
        std::set<std::string> gave;
        for (const PlannedMove& move : result->plan.moves) {
            const ShardOutcome& from = *outcome.at(move.from);
            EXPECT_GT(from.before.bytes, share(from)) << move.space << " from " << move.from;
            gave.insert(move.from);
        }
        for (const std::string& id : gave) {
            const ShardOutcome& shard = *outcome.at(id);
            EXPECT_GE(shard.after.bytes, (1 - band) * share(shard) * 0.999) << id << " was left below the band";
        }
    }
}

TEST(PlannerRules, BeforeIsTheSameFleetInEveryScenario)
{
    for (std::uint32_t seed = 1; seed <= 10; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        const PlannerInput input = rulesFleet(seed, { 4, 8, 160, false, false, false });
        std::vector<std::pair<std::string, Result<PlanResult>>> plans;
        plans.emplace_back("rebalance", planRebalance(input));
        plans.emplace_back("add-shard", planAddShards(input, { { "new0", "n1", ShardState::Active, 0, 0 } }));
        plans.emplace_back("drain", planDrain(input, "s1"));
        plans.emplace_back("retire-node", planRetireNode(input, "n2"));
        plans.emplace_back("merge", planMerge(input, "s3", "s4"));
        plans.emplace_back("split", planSplit(input, "s0", { "s0b", "n3", ShardState::Active, 0, 0 }));
        plans.emplace_back("isolate", planIsolate(input, "t5", { "t5-only", "n3", ShardState::Active, 0, 0 }));
        const auto& reference = plans.front().second->summary.objectives;
        for (const auto& [name, plan] : plans) {
            SCOPED_TRACE(name);
            ASSERT_TRUE(plan) << plan.error().describe();
            for (std::size_t o = 0; o < reference.size(); ++o) {
                EXPECT_GE(plan->summary.objectives[o].maxOverMeanBefore, 1.0);
                EXPECT_DOUBLE_EQ(plan->summary.objectives[o].maxOverMeanBefore, reference[o].maxOverMeanBefore);
                EXPECT_DOUBLE_EQ(plan->summary.objectives[o].stddevBefore, reference[o].stddevBefore);
            }
        }
    }
}

TEST(PlannerRules, BandWarningsNameOnlyShardsAMoveCouldChange)
{
    PlannerInput input;
    input.nodes = { { "n0", false, 100 * kGiB, 200 * kGiB } };
    for (int s = 0; s < 8; ++s)
        input.shards.push_back({ ShardRecord { "s" + std::to_string(s), "n0", ShardState::Active, 0, 0 }, {} });
    // Even in bytes and docs; one space has a trickle of queries, far under a query a second.
    for (int i = 0; i < 32; ++i)
        input.spaces.push_back({ "t" + std::to_string(i), "s" + std::to_string(i % 8), {}, false, {}, {},
            { 1000, 1e8, i == 0 ? 0.02 : 0.0, 0 } });
    auto quiet = planRebalance(input);
    ASSERT_TRUE(quiet);
    EXPECT_TRUE(quiet->plan.moves.empty());
    EXPECT_TRUE(quiet->warnings.empty()) << quiet->warnings.front();

    // Real query load, all of it on s0 in spaces pinned there: no move could change it.
    for (PlannerSpace& space : input.spaces) {
        if (space.shard == "s0") {
            space.load.queriesPerSecond = 50;
            space.pin = "s0";
        }
    }
    auto pinned = planRebalance(input);
    ASSERT_TRUE(pinned);
    EXPECT_TRUE(pinned->warnings.empty()) << pinned->warnings.front();

    // Unpinned, the same load is worth a warning when the plan cannot even it out.
    for (PlannerSpace& space : input.spaces)
        space.pin.clear();
    PlannerOptions noMoves;
    noMoves.maxMoves = 1;
    auto limited = planRebalance(input, noMoves);
    ASSERT_TRUE(limited);
    ASSERT_FALSE(limited->warnings.empty());
    EXPECT_NE(limited->warnings.back().find("s0 ("), std::string::npos) << limited->warnings.back();
    EXPECT_NE(limited->warnings.back().find("its share of queries"), std::string::npos) << limited->warnings.back();
}

TEST(PlannerRules, TheCopyRateIsConservativeUntilEnoughMigrationsWereMeasured)
{
    PlannerInput input = rulesFleet(2, { 4, 8, 200, false, false, false });
    // One short migration measured a very fast rate: not trusted yet.
    input.measuredDocsPerSecond = 34486;
    input.measuredMigrations = 1;
    auto early = planRebalance(input);
    ASSERT_TRUE(early);
    EXPECT_EQ(early->summary.rateSource, "assumed");
    EXPECT_DOUBLE_EQ(early->summary.docsPerSecondPerMigration, 5000);
    EXPECT_EQ(early->summary.rateBasis,
        "assumed 5000 docs/s until 5 migrations that copied at least 10000 docs are measured (1 so far)");
    // A slower measure counts at once: the estimate never assumes faster than what was seen.
    input.measuredDocsPerSecond = 1200;
    auto slow = planRebalance(input);
    ASSERT_TRUE(slow);
    EXPECT_DOUBLE_EQ(slow->summary.docsPerSecondPerMigration, 1200);
    EXPECT_EQ(slow->summary.rateBasis,
        "the lower of the assumed 5000 docs/s and the 1200 docs/s measured so far, until 5 migrations that copied "
        "at least 10000 docs are measured (1 so far)");
    // Enough measured: the median is used and named.
    input.measuredDocsPerSecond = 34486;
    input.measuredMigrations = 5;
    auto measured = planRebalance(input);
    ASSERT_TRUE(measured);
    EXPECT_EQ(measured->summary.rateSource, "measured");
    EXPECT_DOUBLE_EQ(measured->summary.docsPerSecondPerMigration, 34486);
    EXPECT_EQ(measured->summary.rateBasis, "measured: the median of 5 migrations that copied at least 10000 docs");
}
