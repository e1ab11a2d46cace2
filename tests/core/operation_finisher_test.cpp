// OperationFinisher::outcome: what an operation ends as once its migrations are final.
#include "core/migration/operation_finisher.h"

#include <gtest/gtest.h>

using namespace shardmap::core;

namespace {

MigrationRecord migration(const std::string& id, MigrationPhase phase)
{
    MigrationRecord m;
    m.id = id;
    m.phase = phase;
    return m;
}

// Node n1 with shards s1 (empty unless `occupied`) and s2 holding space "kept".
MapSnapshot fleet(bool occupied)
{
    MapSnapshot map;
    map.nodes["n1"] = { NodeRecord { "n1", "127.0.0.1:1", {}, false }, 3 };
    map.shards["s1"] = { ShardRecord { "s1", "n1", ShardState::Draining, 0, 0 }, 4 };
    map.shards["s2"] = { ShardRecord { "s2", "n1", ShardState::Active, 0, 0 }, 5 };
    SpaceRecord kept;
    kept.id = "kept";
    kept.shard = occupied ? "s1" : "s2";
    map.spaces["kept"] = { kept, 6 };
    return map;
}

OperationRecord operation(OperationKind kind, const std::string& subject, std::vector<std::string> migrations)
{
    OperationRecord op;
    op.id = "op-1";
    op.kind = kind;
    op.subject = subject;
    op.migrations = std::move(migrations);
    op.plannedMoves = op.migrations.size();
    return op;
}

} // namespace

TEST(OperationFinisher, WaitsWhileAnyMigrationRuns)
{
    auto map = fleet(false);
    map.migrations["m1"] = { migration("m1", MigrationPhase::Done), 7 };
    map.migrations["m2"] = { migration("m2", MigrationPhase::Backfill), 8 };
    EXPECT_FALSE(OperationFinisher::outcome(map, operation(OperationKind::Drain, "s1", { "m1", "m2" }), 100));
}

TEST(OperationFinisher, AMergeThatMovedEverythingRetiresItsSource)
{
    auto map = fleet(false);
    map.migrations["m1"] = { migration("m1", MigrationPhase::Done), 7 };
    const auto out = OperationFinisher::outcome(map, operation(OperationKind::Merge, "s1", { "m1" }), 100);
    ASSERT_TRUE(out);
    EXPECT_EQ(out->operation.state, OperationState::Done);
    EXPECT_EQ(out->operation.finishedUnixMs, 100);
    ASSERT_EQ(out->retirements.size(), 1u);
    EXPECT_EQ(out->retirements[0].key, keys::shard("s1"));
    EXPECT_EQ(out->retirements[0].expectModRevision, 4u);
    EXPECT_EQ(decodeShard(*out->retirements[0].value)->state, ShardState::Retired);
}

TEST(OperationFinisher, AShardThatStillHoldsASpaceIsNotRetired)
{
    auto map = fleet(true);
    map.migrations["m1"] = { migration("m1", MigrationPhase::Done), 7 };
    const auto out = OperationFinisher::outcome(map, operation(OperationKind::RetireNode, "n1", { "m1" }), 100);
    ASSERT_TRUE(out);
    EXPECT_EQ(out->operation.state, OperationState::Done);
    EXPECT_NE(out->operation.error.find("s1 still has spaces"), std::string::npos);
    // s2 is retired (empty), s1 is not, and the node is not: one of its shards still serves.
    ASSERT_EQ(out->retirements.size(), 1u);
    EXPECT_EQ(out->retirements[0].key, keys::shard("s2"));
}

// A retire-node whose moves are done waits while its node still holds a replica of a shard that
// serves (the executor makes it again elsewhere, then drops it); then it retires the node.
TEST(OperationFinisher, ARetireNodeWaitsUntilTheReplicasOnItsNodeAreMadeElsewhere)
{
    auto map = fleet(false);
    map.spaces.clear(); // both shards of n1 emptied
    map.nodes["n2"] = { NodeRecord { "n2", "127.0.0.1:2", {}, false }, 9 };
    ShardRecord elsewhere { "s3", "n2", ShardState::Active, 0, 0 };
    ShardCopy onN1;
    onN1.node = "n1";
    onN1.state = CopyState::InSync;
    elsewhere.replicas.push_back(onN1);
    map.shards["s3"] = { elsewhere, 10 };
    map.migrations["m1"] = { migration("m1", MigrationPhase::Done), 7 };
    EXPECT_FALSE(OperationFinisher::outcome(map, operation(OperationKind::RetireNode, "n1", { "m1" }), 100))
        << "s3's copy on n1 is not made elsewhere yet";
    EXPECT_FALSE(OperationFinisher::outcome(map, operation(OperationKind::RetireNode, "n1", {}), 100))
        << "with no moves at all, too";

    map.shards["s3"].value.replicas.clear();
    const auto out = OperationFinisher::outcome(map, operation(OperationKind::RetireNode, "n1", { "m1" }), 100);
    ASSERT_TRUE(out);
    EXPECT_EQ(out->operation.state, OperationState::Done);
    ASSERT_EQ(out->retirements.size(), 3u) << "s1, s2 and the node";
    EXPECT_EQ(out->retirements[2].key, keys::node("n1"));
}

TEST(OperationFinisher, FailedOrCancelledMigrationsFailTheOperationAndRetireNothing)
{
    auto map = fleet(false);
    map.migrations["m1"] = { migration("m1", MigrationPhase::Failed), 7 };
    map.migrations["m2"] = { migration("m2", MigrationPhase::Cancelled), 8 };
    const auto out = OperationFinisher::outcome(map, operation(OperationKind::Merge, "s1", { "m1", "m2", "m3" }), 100);
    ASSERT_TRUE(out);
    EXPECT_EQ(out->operation.state, OperationState::Failed);
    EXPECT_EQ(out->operation.error, "migrations not done: m1, m2, m3");
    EXPECT_TRUE(out->retirements.empty());
}

TEST(OperationFinisher, AnOperationInterruptedWhileQueuingFailsAndSaysHowMuchWasQueued)
{
    auto map = fleet(false);
    map.migrations["m1"] = { migration("m1", MigrationPhase::Done), 7 };
    auto op = operation(OperationKind::Merge, "s1", { "m1" });
    op.state = OperationState::Queuing;
    op.plannedMoves = 3;
    const auto out = OperationFinisher::outcome(map, op, 100);
    ASSERT_TRUE(out);
    EXPECT_EQ(out->operation.state, OperationState::Failed);
    EXPECT_NE(out->operation.error.find("1 of 3 moves were queued (and ran)"), std::string::npos);
    EXPECT_TRUE(out->retirements.empty());
}

TEST(OperationFinisher, StatesRoundTripThroughTheirNames)
{
    for (const auto state :
        { OperationState::Queuing, OperationState::Running, OperationState::Done, OperationState::Failed })
        EXPECT_EQ(parseOperationState(operationStateName(state)), state);
    EXPECT_FALSE(parseOperationState("finished"));
    auto op = operation(OperationKind::Drain, "s1", {});
    op.state = OperationState::Queuing;
    EXPECT_EQ(decodeOperation(encode(op))->state, OperationState::Queuing);
    EXPECT_FALSE(decodeOperation(R"({"id":"x","kind":"drain","state":"finished"})"));
}
