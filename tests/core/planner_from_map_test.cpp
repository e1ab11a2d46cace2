// The planner read from real map records in a real store (issue 26). A space in its rollback
// window lives on its new shard: the planner's and the simulator's input, the projections and the
// refusals read the records as the executor's cutover leaves them, and plan the same during the
// window as after it. A shard an isolate gave to a space is dedicated to it.
#include "core/map/space_placement.h"
#include "core/plan/move_rules.h"
#include "core/plan/planner.h"
#include "core/plan/simulator.h"
#include "core/plan/space_holds.h"
#include "tests/support/test_dir.h"

#include <gtest/gtest.h>

using namespace shardmap::core;
using shardmap::testing::TempDir;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

class PlannerFromMapTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        auto store = openStore("sqlite:" + m_dir.file("map.db"), true);
        ASSERT_TRUE(store) << store.error().describe();
        m_store = std::move(*store);
        std::vector<Mutation> records;
        for (const std::string node : { "n1", "n2" })
            records.push_back({ keys::node(node), encode(NodeRecord { node, "127.0.0.1:7401", {}, false }), 0 });
        for (int s = 1; s <= 4; ++s) {
            const std::string id = "s" + std::to_string(s);
            records.push_back({ keys::shard(id), encode(ShardRecord { id, s % 2 ? "n1" : "n2" }), 0 });
        }
        // Four shards of 40 MiB each once "whale" (40 MiB) has moved from s1 to s2.
        for (int s = 1; s <= 4; ++s) {
            if (s == 2)
                continue;
            for (int k = 0; k < 4; ++k)
                addSpace(records, "t" + std::to_string(s) + std::to_string(k), "s" + std::to_string(s), 10 * kMiB);
        }
        addSpace(records, "whale", "s2", 40 * kMiB);
        ASSERT_TRUE(m_store->commit({ records, std::nullopt, std::nullopt, "t", "setup", "" }));
    }

    void addSpace(std::vector<Mutation>& records, const std::string& id, const std::string& shard, double bytes)
    {
        SpaceRecord space;
        space.id = id;
        space.shard = shard;
        records.push_back({ keys::space(id), encode(space), 0 });
        m_figures[id] = { bytes / 1000, bytes, 0, 0 };
    }

    // The records as the executor's cutover leaves them: the space on s2, its target the old
    // source s1 that follows its writes until the window closes.
    void cutOverWhale(std::int64_t cutoverUnixMs)
    {
        MigrationRecord migration;
        migration.id = "m-1";
        migration.space = "whale";
        migration.source = "s1";
        migration.target = "s2";
        migration.phase = MigrationPhase::Cleanup;
        migration.cutoverUnixMs = cutoverUnixMs;
        SpaceRecord space = map().spaces.at("whale").value;
        space.migrationId = migration.id;
        space.target = "s1";
        space.phase = MigrationPhase::Cleanup;
        space.epoch = 2;
        ASSERT_TRUE(
            m_store->commit({ { { keys::migration(migration.id), encode(migration), 0 },
                                  { keys::space("whale"), encode(space), map().spaces.at("whale").modRevision } },
                std::nullopt, std::nullopt, "executor", "migration-cutover", "" }));
    }

    // The window closed and the cleanup removed the old copy: the migration is done.
    void finishWhale()
    {
        const MapSnapshot now = map();
        MigrationRecord migration = now.migrations.at("m-1").value;
        migration.phase = MigrationPhase::Done;
        SpaceRecord space = now.spaces.at("whale").value;
        space.migrationId.clear();
        space.target.clear();
        space.phase = MigrationPhase::Done;
        space.epoch = 3;
        ASSERT_TRUE(
            m_store->commit({ { { keys::migration("m-1"), encode(migration), now.migrations.at("m-1").modRevision },
                                  { keys::space("whale"), encode(space), now.spaces.at("whale").modRevision } },
                std::nullopt, std::nullopt, "executor", "migration-done", "" }));
    }

    MapSnapshot map()
    {
        auto raw = m_store->snapshot();
        EXPECT_TRUE(raw);
        auto decoded = MapSnapshot::decode(*raw);
        EXPECT_TRUE(decoded);
        return std::move(*decoded);
    }

    PlannerInput input(const MapSnapshot& snapshot)
    {
        std::map<std::string, PlannerNode> nodes;
        for (const std::string node : { "n1", "n2" })
            nodes[node] = PlannerNode { node, false, 400ull << 30, 500ull << 30 };
        return plannerInputFrom(snapshot, m_figures, nodes);
    }

    static std::vector<std::tuple<std::string, std::string, std::string>> movesOf(const PlanResult& result)
    {
        std::vector<std::tuple<std::string, std::string, std::string>> moves;
        for (const PlannedMove& move : result.plan.moves)
            moves.emplace_back(move.space, move.from, move.to);
        return moves;
    }

    // Every shard's figures and spaces before and after the plan.
    using ShardFigures = std::tuple<LoadFigures, LoadFigures, std::size_t, std::size_t>;
    static std::map<std::string, ShardFigures> shardsOf(const PlanResult& result)
    {
        std::map<std::string, ShardFigures> shards;
        for (const ShardOutcome& shard : result.shards)
            shards[shard.shard] = { shard.before, shard.after, shard.spacesBefore, shard.spacesAfter };
        return shards;
    }

    static std::map<std::string, double> bytesAfter(const PlanResult& result)
    {
        std::map<std::string, double> bytes;
        for (const ShardOutcome& shard : result.shards)
            bytes[shard.shard] = shard.after.bytes;
        return bytes;
    }

    TempDir m_dir;
    std::unique_ptr<MetadataStore> m_store;
    std::map<std::string, LoadFigures> m_figures;
};

const PlannerSpace& spaceIn(const PlannerInput& input, const std::string& id)
{
    for (const PlannerSpace& space : input.spaces) {
        if (space.id == id)
            return space;
    }
    throw std::runtime_error("no space " + id);
}

} // namespace

TEST_F(PlannerFromMapTest, ASpaceInItsRollbackWindowLivesOnItsNewShard)
{
    const std::int64_t cutover = 1'700'000'000'000;
    cutOverWhale(cutover);
    const MapSnapshot snapshot = map();
    const SpacePlacement placement = placementOf(snapshot, snapshot.spaces.at("whale").value);
    EXPECT_EQ(placement.shard, "s2");
    EXPECT_FALSE(placement.moving());
    EXPECT_EQ(placement.rollbackCopyOn, "s1");
    EXPECT_EQ(placement.rollbackUntilUnixMs, cutover + 600'000);
    EXPECT_EQ(migrationHold("whale", placement),
        "space whale is in its rollback window after moving to s2 (m-1) until 22:23 UTC; it can move then");

    const PlannerSpace& whale = spaceIn(input(snapshot), "whale");
    EXPECT_EQ(whale.shard, "s2");
    EXPECT_TRUE(whale.migratingFrom.empty());
    EXPECT_EQ(whale.rollbackCopyOn, "s1");

    MoveRules rules(snapshot, { { "whale", { 40'000, 40 << 20 } } });
    EXPECT_EQ(rules.projectedShard("whale"), "s2");
    const MoveVerdict verdict = rules.check("whale", "s3");
    EXPECT_EQ(verdict.refusal, MoveRefusal::Migrating);
    EXPECT_NE(verdict.reason.find("until 22:23 UTC"), std::string::npos) << verdict.reason;
}

TEST_F(PlannerFromMapTest, PlansAndSimulationsAreTheSameDuringTheWindowAndAfterIt)
{
    cutOverWhale(1'700'000'000'000);
    const PlannerInput during = input(map());
    finishWhale();
    const PlannerInput after = input(map());

    const auto rebalanceDuring = planRebalance(during);
    const auto rebalanceAfter = planRebalance(after);
    ASSERT_TRUE(rebalanceDuring) << rebalanceDuring.error().describe();
    ASSERT_TRUE(rebalanceAfter) << rebalanceAfter.error().describe();
    // The fleet is even once whale is on s2: reading it back on s1 planned moves into s2.
    EXPECT_TRUE(rebalanceDuring->plan.moves.empty());
    EXPECT_EQ(movesOf(*rebalanceDuring), movesOf(*rebalanceAfter));
    EXPECT_EQ(bytesAfter(*rebalanceDuring), bytesAfter(*rebalanceAfter));

    const ShardRecord fresh { "s5", "n2" };
    const auto addDuring = planAddShards(during, { fresh });
    const auto addAfter = planAddShards(after, { fresh });
    ASSERT_TRUE(addDuring && addAfter);
    EXPECT_FALSE(addDuring->plan.moves.empty());
    EXPECT_EQ(movesOf(*addDuring), movesOf(*addAfter));
    EXPECT_EQ(shardsOf(*addDuring), shardsOf(*addAfter));
    EXPECT_EQ(shardsOf(*rebalanceDuring), shardsOf(*rebalanceAfter));

    SimulationOptions options;
    const auto simDuring = simulate(during, options);
    const auto simAfter = simulate(after, options);
    ASSERT_TRUE(simDuring && simAfter);
    ASSERT_EQ(simDuring->strategies.size(), simAfter->strategies.size());
    for (std::size_t k = 0; k < simDuring->strategies.size(); ++k) {
        const StrategyOutcome& a = simDuring->strategies[k];
        const StrategyOutcome& b = simAfter->strategies[k];
        SCOPED_TRACE(a.name);
        EXPECT_EQ(a.onRemove.bytes, b.onRemove.bytes);
        EXPECT_EQ(a.bytes.maxOverMean, b.bytes.maxOverMean);
        ASSERT_EQ(a.shards.size(), b.shards.size());
        for (std::size_t s = 0; s < a.shards.size(); ++s)
            EXPECT_EQ(a.shards[s].load.bytes, b.shards[s].load.bytes) << a.shards[s].shard;
    }
}

TEST_F(PlannerFromMapTest, TheOldShardCanBeDrainedButNotRetiredBeforeTheWindowCloses)
{
    cutOverWhale(1'700'000'000'000);
    const PlannerInput during = input(map());

    // The drain of the old source moves its own four spaces; whale is not on it.
    const auto drain = planDrain(during, "s1");
    ASSERT_TRUE(drain) << drain.error().describe();
    EXPECT_EQ(drain->plan.moves.size(), 4u);
    for (const PlannedMove& move : drain->plan.moves)
        EXPECT_NE(move.space, "whale");

    // A merge retires s1, which still keeps whale's copy for a rollback: it says when it can run.
    const auto merge = planMerge(during, "s1", "s3");
    ASSERT_FALSE(merge);
    EXPECT_EQ(merge.error().message,
        "shard s1 keeps the rollback copy of whale (m-1, until 22:23 UTC); the merge of s1 can run once the "
        "rollback window closes (22:23 UTC)");

    // Draining the new shard must move whale, which cannot move before its window closes.
    const auto drainNew = planDrain(during, "s2");
    ASSERT_FALSE(drainNew);
    EXPECT_EQ(drainNew.error().message,
        "space whale is in its rollback window after moving to s2 (m-1) until 22:23 UTC; it can move then");

    // The same refusals as data, for the console to say in its language and local time.
    const std::string until = std::to_string(1'700'000'000'000 + 600'000);
    EXPECT_EQ(refusalNotes(merge.error()),
        (std::vector<PlanNote> { { PlanNoteKind::KeepsRollbackCopy, { "s1", "whale", "m-1", until } },
            { PlanNoteKind::WaitsForRollbackWindows, { "merge", "s1", "1", until } } }));
    EXPECT_EQ(refusalNotes(drainNew.error()),
        (std::vector<PlanNote> { { PlanNoteKind::InRollbackWindow, { "whale", "s2", "m-1", until } } }));

    finishWhale();
    EXPECT_TRUE(planMerge(input(map()), "s1", "s3"));
    EXPECT_TRUE(planDrain(input(map()), "s2"));
}

TEST_F(PlannerFromMapTest, AnIsolatedSpacesShardIsDedicatedAndNeverFilled)
{
    // The isolate of t30 onto its own shard, done: the space pinned there, the operation recorded.
    const MapSnapshot now = map();
    SpaceRecord t30 = now.spaces.at("t30").value;
    t30.shard = t30.pin = "t30-only";
    OperationRecord isolate;
    isolate.id = "op-1";
    isolate.kind = OperationKind::Isolate;
    isolate.subject = "t30";
    isolate.into = "t30-only";
    isolate.state = OperationState::Done;
    ASSERT_TRUE(m_store->commit({ { { keys::shard("t30-only"), encode(ShardRecord { "t30-only", "n2" }), 0 },
                                      { keys::space("t30"), encode(t30), now.spaces.at("t30").modRevision },
                                      { keys::operation("op-1"), encode(isolate), 0 } },
        std::nullopt, std::nullopt, "executor", "operation-done", "" }));
    const PlannerInput input = this->input(map());
    const auto shard = std::find_if(
        input.shards.begin(), input.shards.end(), [](const PlannerShard& s) { return s.record.id == "t30-only"; });
    ASSERT_NE(shard, input.shards.end());
    EXPECT_EQ(shard->dedicatedTo, "t30");

    // It holds 10 MiB where the others hold 30-40: without the rule a rebalance fills it first.
    const auto rebalance = planRebalance(input);
    ASSERT_TRUE(rebalance) << rebalance.error().describe();
    for (const PlannedMove& move : rebalance->plan.moves)
        EXPECT_NE(move.to, "t30-only") << move.space;
    EXPECT_NE(std::find(rebalance->warnings.begin(), rebalance->warnings.end(),
                  "shard t30-only is dedicated to space t30 (isolated); it receives no other space"),
        rebalance->warnings.end());
}
