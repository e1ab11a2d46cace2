// The map side of a shard's copies (issue 30): the placement rule's refusals, MapEditor's add,
// remove, promote and lose-node commits, zones, replication factors, health colours and the map
// diff, on both stores (a real SQLite file and a real etcd on loopback).
#include "core/fleet/health.h"
#include "core/map/copy_placement.h"
#include "core/map/map_editor.h"
#include "tests/support/etcd_process.h"
#include "tests/support/test_dir.h"

#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>

using namespace shardmap::core;
using shardmap::testing::TempDir;

namespace {

std::string storeUri(const std::string& backend, const TempDir& dir)
{
    if (backend == "sqlite")
        return "sqlite:" + dir.file("map.db");
    std::string ignored;
    const auto* etcd = shardmap::testing::EtcdProcess::shared(ignored);
    return "etcd://" + (etcd ? etcd->endpoint() : std::string("127.0.0.1:1")) + "/shardmap-copies/"
        + std::filesystem::path(dir.path()).filename().string();
}

NodeRecord node(std::string id, int port, std::string zone = {}, bool retired = false, bool lost = false)
{
    NodeRecord record { std::move(id), "127.0.0.1:" + std::to_string(port), {}, retired };
    record.zone = std::move(zone);
    record.lost = lost;
    return record;
}

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

class CopyEditsTest : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override
    {
        if (GetParam() == "etcd") {
            std::string error;
            if (!shardmap::testing::EtcdProcess::shared(error)) {
                const char* allowed = std::getenv("SHARDMAP_ALLOW_NO_ETCD");
                if (allowed && std::string(allowed) == "1")
                    GTEST_SKIP() << "no etcd: " << error;
                FAIL() << "the etcd backend cannot be tested: " << error;
            }
        }
        auto store = openStore(storeUri(GetParam(), m_dir), true);
        ASSERT_TRUE(store) << store.error().describe();
        m_store = std::move(*store);
        m_editor = std::make_unique<MapEditor>(*m_store);
        ASSERT_TRUE(m_editor->addNode(node("n1", 7401, "a"), m_actor));
        ASSERT_TRUE(m_editor->addNode(node("n2", 7402, "a"), m_actor));
        ASSERT_TRUE(m_editor->addNode(node("n3", 7403, "b"), m_actor));
        ASSERT_TRUE(m_editor->addNode(node("n4", 7404, "c", true), m_actor));
        ASSERT_TRUE(m_editor->addNode(node("n5", 7405, "d", false, true), m_actor));
        ASSERT_TRUE(m_editor->addShard({ "s1", "n1", ShardState::Active, 0, 0 }, m_actor));
        ASSERT_TRUE(m_editor->addShard({ "s2", "n1", ShardState::Active, 0, 0 }, m_actor));
        ASSERT_TRUE(m_editor->addShard({ "s3", "n3", ShardState::Active, 0, 0 }, m_actor));
    }

    void addSpace(const std::string& id, const std::string& shard)
    {
        SpaceRecord space;
        space.id = id;
        space.shard = shard;
        ASSERT_TRUE(m_store->commit(
            { { { keys::space(id), encode(space), 0 } }, std::nullopt, std::nullopt, "t", "create", "" }));
    }

    // What the executor's catch-up does when a copy has caught up.
    void markInSync(const std::string& shardId, const std::string& nodeId)
    {
        auto map = m_editor->snapshot();
        ASSERT_TRUE(map);
        ShardRecord shard = map->shards.at(shardId).value;
        for (ShardCopy& copy : shard.replicas) {
            if (copy.node == nodeId)
                copy.state = CopyState::InSync;
        }
        ASSERT_TRUE(m_store->commit({ { { keys::shard(shardId), encode(shard), map->shards.at(shardId).modRevision } },
            std::nullopt, std::nullopt, "executor", "catch-up", "" }));
    }

    MapSnapshot map()
    {
        auto snapshot = m_editor->snapshot();
        EXPECT_TRUE(snapshot);
        return snapshot ? std::move(*snapshot) : MapSnapshot {};
    }

    std::uint64_t revision() { return map().revision; }

    void expectRefused(const Result<MapEditor::CopyChange>& change, ErrorCode code, const std::string& sentence)
    {
        ASSERT_FALSE(change) << "expected: " << sentence;
        EXPECT_EQ(change.error().code, code) << change.error().message;
        EXPECT_TRUE(contains(change.error().message, sentence)) << change.error().message;
    }

    TempDir m_dir;
    std::unique_ptr<MetadataStore> m_store;
    std::unique_ptr<MapEditor> m_editor;
    Actor m_actor { "alice", "copies" };
};

} // namespace

TEST_P(CopyEditsTest, EveryPlacementRuleIsRefusedWithItsSentenceAndNothingChanges)
{
    const auto before = revision();
    expectRefused(m_editor->addReplica("s1", "n1", m_actor), ErrorCode::FailedPrecondition, "is shard s1's primary");
    expectRefused(m_editor->addReplica("s1", "n2", m_actor), ErrorCode::FailedPrecondition,
        "node n2 is in zone a, as shard s1's copy on n1 is");
    expectRefused(m_editor->addReplica("s1", "n4", m_actor), ErrorCode::FailedPrecondition, "node n4 is retired");
    expectRefused(m_editor->addReplica("s1", "n5", m_actor), ErrorCode::FailedPrecondition, "node n5 is lost");
    expectRefused(m_editor->addReplica("s1", "ghost", m_actor), ErrorCode::NotFound, "no node ghost");
    expectRefused(m_editor->addReplica("nope", "n3", m_actor), ErrorCode::NotFound, "no shard nope");
    EXPECT_EQ(revision(), before);

    auto added = m_editor->addReplica("s1", "n3", m_actor);
    ASSERT_TRUE(added) << added.error().describe();
    expectRefused(
        m_editor->addReplica("s1", "n3", m_actor), ErrorCode::FailedPrecondition, "node n3 already holds a copy");
    // A shard that allows it may have two copies in one zone.
    ASSERT_TRUE(m_editor->setReplication("s1", 0, true, m_actor));
    EXPECT_TRUE(m_editor->addReplica("s1", "n2", m_actor));
    EXPECT_EQ(map().shard("s1")->replicas.size(), 2U);
}

// A node a retire-node operation is emptying takes no new copy, and the copies it holds are what
// the operation waits to see made again elsewhere (replicasToMoveOff; a retired shard's are not).
TEST_P(CopyEditsTest, ANodeBeingRetiredTakesNoCopyAndItsReplicasAreListedToMoveOff)
{
    ASSERT_TRUE(m_editor->addReplica("s1", "n3", m_actor));
    OperationRecord op;
    op.id = "op-9";
    op.kind = OperationKind::RetireNode;
    op.subject = "n3";
    op.state = OperationState::Running;
    ASSERT_TRUE(m_store->commit(
        { { { keys::operation(op.id), encode(op), 0 } }, std::nullopt, std::nullopt, "t", "retire-node", "" }));
    auto snapshot = map();
    EXPECT_EQ(nodesBeingRetired(snapshot), std::set<std::string> { "n3" });
    const auto moving = replicasToMoveOff(snapshot, "n3");
    ASSERT_EQ(moving.size(), 1u);
    EXPECT_EQ(moving.front()->id, "s1");
    EXPECT_TRUE(replicasToMoveOff(snapshot, "n1").empty()) << "a primary is drained, not listed";
    expectRefused(m_editor->addReplica("s2", "n3", m_actor), ErrorCode::FailedPrecondition,
        "node n3 is being retired; nothing new is placed on it");

    // Done: the node takes copies again (it is retired by then, or the retire failed).
    op.state = OperationState::Done;
    const auto revisionOfOp = snapshot.operations.at(op.id).modRevision;
    ASSERT_TRUE(m_store->commit({ { { keys::operation(op.id), encode(op), revisionOfOp } }, std::nullopt,
        std::nullopt, "t", "retire-node-finished", "" }));
    EXPECT_TRUE(nodesBeingRetired(map()).empty());
    EXPECT_TRUE(m_editor->addReplica("s2", "n3", m_actor));
}

TEST_P(CopyEditsTest, ACopyOfAShardWithoutSpacesIsInSyncAtOnceOtherwiseItCatchesUp)
{
    auto empty = m_editor->addReplica("s1", "n3", m_actor);
    ASSERT_TRUE(empty) << empty.error().describe();
    EXPECT_EQ(empty->shard.replicaOn("n3")->state, CopyState::InSync);
    addSpace("acme", "s2");
    auto full = m_editor->addReplica("s2", "n3", m_actor);
    ASSERT_TRUE(full) << full.error().describe();
    EXPECT_EQ(map().shard("s2")->replicaOn("n3")->state, CopyState::CatchingUp);
    const auto history = m_store->history(0, 0, 0);
    ASSERT_TRUE(history);
    EXPECT_EQ(history->back().action, "add-replica n3");
    EXPECT_EQ(history->back().actor, "alice");
    EXPECT_EQ(history->back().reason, "copies");
}

// A space migrating onto a shard is the shard's to hold: its migration copies it to the copies it
// knows of, not to one added meanwhile (docs/MIGRATIONS.md "Copies").
TEST_P(CopyEditsTest, ACopyOfAShardASpaceMigratesOntoCatchesUp)
{
    SpaceRecord space;
    space.id = "acme";
    space.shard = "s3";
    space.epoch = 2;
    space.migrationId = "m1";
    space.target = "s1";
    space.phase = MigrationPhase::Backfill;
    ASSERT_TRUE(m_store->commit(
        { { { keys::space("acme"), encode(space), 0 } }, std::nullopt, std::nullopt, "t", "create", "" }));
    auto added = m_editor->addReplica("s1", "n3", m_actor);
    ASSERT_TRUE(added) << added.error().describe();
    EXPECT_EQ(map().shard("s1")->replicaOn("n3")->state, CopyState::CatchingUp);
}

TEST_P(CopyEditsTest, AReplicationFactorAboveTheNodesOrZonesIsRefusedWithTheNumbers)
{
    const auto before = revision();
    // Eligible: n1, n2 (zone a) and n3 (zone b); n4 is retired, n5 lost.
    auto zones = m_editor->setReplication("s1", 3, std::nullopt, m_actor);
    ASSERT_FALSE(zones);
    EXPECT_TRUE(contains(zones.error().message, "needs 3 copies in different zones; the 3 node(s)"))
        << zones.error().message;
    EXPECT_TRUE(contains(zones.error().message, "are in 2 zone(s)")) << zones.error().message;
    auto nodes = m_editor->setReplication("s1", 4, true, m_actor);
    ASSERT_FALSE(nodes);
    EXPECT_TRUE(contains(nodes.error().message, "the fleet has 3 node(s) that can hold one")) << nodes.error().message;
    EXPECT_EQ(revision(), before);
    EXPECT_TRUE(m_editor->setReplication("s1", 3, true, m_actor));
    EXPECT_EQ(map().shard("s1")->replicationFactor, 3U);
    EXPECT_TRUE(m_editor->setReplication("s1", 2, false, m_actor));

    const MapSnapshot snapshot = map();
    EXPECT_TRUE(checkFleetReplication(snapshot, 2, WriteQuorum::All));
    auto majority = checkFleetReplication(snapshot, 2, WriteQuorum::Majority);
    ASSERT_FALSE(majority);
    EXPECT_TRUE(contains(majority.error().message, "majority needs a replication factor of 3 or more"));
    auto fleet = checkFleetReplication(snapshot, 3, WriteQuorum::Majority);
    ASSERT_FALSE(fleet);
    EXPECT_TRUE(contains(fleet.error().message, "in 2 zone(s)")) << fleet.error().message;
    EXPECT_EQ(checkFleetReplication(snapshot, 0, WriteQuorum::All).error().code, ErrorCode::InvalidArgument);
}

TEST_P(CopyEditsTest, PromoteSwapsPrimaryAndReplicaAndRaisesEveryEpochInOneCommit)
{
    addSpace("acme", "s1");
    addSpace("beta", "s1");
    addSpace("gamma", "s2");
    ASSERT_TRUE(m_editor->addReplica("s1", "n3", m_actor));
    const auto before = revision();
    expectRefused(m_editor->promote("s1", "n3", m_actor), ErrorCode::FailedPrecondition,
        "is catching_up (0 of 0 documents); only an in-sync copy can be promoted");
    expectRefused(
        m_editor->promote("s1", "n1", m_actor), ErrorCode::FailedPrecondition, "already holds shard s1's primary");
    expectRefused(m_editor->promote("s1", "n2", m_actor), ErrorCode::NotFound, "holds no replica of shard s1");
    EXPECT_EQ(revision(), before);

    markInSync("s1", "n3");
    const auto commits = m_store->history(0, 0, 0)->size();
    auto promoted = m_editor->promote("s1", "n3", m_actor);
    ASSERT_TRUE(promoted) << promoted.error().describe();
    const MapSnapshot after = map();
    EXPECT_EQ(after.shard("s1")->node, "n3");
    const ShardCopy* demoted = after.shard("s1")->replicaOn("n1");
    ASSERT_NE(demoted, nullptr);
    EXPECT_EQ(demoted->state, CopyState::CatchingUp);
    EXPECT_EQ(demoted->reason, "demoted by promote: copies") << "the promotion's reason follows";
    EXPECT_EQ(after.space("acme")->epoch, 2U);
    EXPECT_EQ(after.space("beta")->epoch, 2U);
    EXPECT_EQ(after.space("gamma")->epoch, 1U);
    EXPECT_EQ(promoted->spaces.size(), 2U);
    const auto history = m_store->history(0, 0, 0);
    ASSERT_EQ(history->size(), commits + 1);
    EXPECT_EQ(history->back().action, "promote n3");
    EXPECT_EQ(history->back().changes.size(), 4U); // the shard, both spaces, the new primary's node
}

TEST_P(CopyEditsTest, LoseNodePromotesInOneCommitAndLeavesShardsWithoutACopyRed)
{
    addSpace("acme", "s1");
    addSpace("beta", "s2");
    ASSERT_TRUE(m_editor->setReplication("s3", 0, true, m_actor));
    ASSERT_TRUE(m_editor->addReplica("s1", "n3", m_actor));
    markInSync("s1", "n3");
    ASSERT_TRUE(m_editor->addReplica("s3", "n1", m_actor));
    EXPECT_EQ(m_editor->loseNode("ghost", m_actor).error().code, ErrorCode::NotFound);

    const auto before = revision();
    auto lost = m_editor->loseNode("n1", m_actor);
    ASSERT_TRUE(lost) << lost.error().describe();
    EXPECT_EQ(revision(), before + 1);
    const MapSnapshot after = map();
    EXPECT_TRUE(after.node("n1")->lost);
    EXPECT_EQ(after.shard("s1")->node, "n3");
    EXPECT_EQ(after.shard("s1")->replicaOn("n1")->state, CopyState::Lost);
    EXPECT_EQ(after.shard("s1")->replicaOn("n1")->reason, "node lost: its primary failed over");
    EXPECT_EQ(after.space("acme")->epoch, 2U);
    EXPECT_EQ(after.shard("s2")->node, "n1");
    EXPECT_EQ(after.space("beta")->epoch, 1U);
    EXPECT_EQ(after.shard("s3")->replicaOn("n1")->state, CopyState::Lost);
    EXPECT_EQ(after.shard("s3")->replicaOn("n1")->reason, "node lost") << "a replica lost is no failover";
    ASSERT_EQ(lost->promoted.size(), 1U);
    EXPECT_EQ(lost->promoted[0].shard.id, "s1");
    EXPECT_EQ(lost->withoutCopy, std::vector<std::string> { "s2" });
    EXPECT_EQ(m_store->history(0, 0, 0)->back().action, "lose-node");

    EXPECT_EQ(evaluateCopies(after, *after.shard("s1")).health, CopyHealth::Green);
    EXPECT_EQ(evaluateCopies(after, *after.shard("s2")).health, CopyHealth::Red);
    auto again = m_editor->loseNode("n1", m_actor);
    ASSERT_TRUE(again);
    EXPECT_EQ(again->revision, before + 1);
    EXPECT_EQ(revision(), before + 1);
}

TEST_P(CopyEditsTest, TheLastInSyncCopyAndThePrimaryCannotBeRemoved)
{
    addSpace("acme", "s1");
    ASSERT_TRUE(m_editor->addReplica("s1", "n3", m_actor));
    // The copy is still catching up when the primary's node is lost: nothing to promote.
    auto lost = m_editor->loseNode("n1", m_actor);
    ASSERT_TRUE(lost);
    EXPECT_EQ(lost->withoutCopy, std::vector<std::string>({ "s1", "s2" }));
    markInSync("s1", "n3");
    const auto before = revision();
    expectRefused(m_editor->removeReplica("s1", "n3", m_actor), ErrorCode::FailedPrecondition,
        "the copy on n3 is shard s1's last in-sync copy (its primary's node n1 is lost)");
    expectRefused(m_editor->removeReplica("s1", "n1", m_actor), ErrorCode::FailedPrecondition,
        "promote another copy before removing this one");
    expectRefused(m_editor->removeReplica("s1", "n2", m_actor), ErrorCode::NotFound, "holds no replica");
    EXPECT_EQ(revision(), before);
    EXPECT_EQ(m_editor->removeNode("n3", m_actor).error().code, ErrorCode::FailedPrecondition);

    auto promoted = m_editor->promote("s1", "n3", m_actor);
    ASSERT_TRUE(promoted) << promoted.error().describe();
    EXPECT_EQ(map().shard("s1")->replicaOn("n1")->state, CopyState::CatchingUp);
    auto removed = m_editor->removeReplica("s1", "n1", m_actor);
    ASSERT_TRUE(removed) << removed.error().describe();
    EXPECT_TRUE(map().shard("s1")->replicas.empty());
    EXPECT_EQ(m_store->history(0, 0, 0)->back().action, "remove-replica n1");
}

TEST_P(CopyEditsTest, ZonesAreCheckedFreeText)
{
    const auto before = revision();
    EXPECT_EQ(m_editor->setNodeZone("n2", "bad\nzone", m_actor).error().code, ErrorCode::InvalidArgument);
    EXPECT_EQ(m_editor->setNodeZone("n2", std::string(65, 'z'), m_actor).error().code, ErrorCode::InvalidArgument);
    EXPECT_EQ(m_editor->setNodeZone("ghost", "b", m_actor).error().code, ErrorCode::NotFound);
    EXPECT_EQ(m_editor->addNode(node("n9", 7409, "tab\there"), m_actor).error().code, ErrorCode::InvalidArgument);
    EXPECT_EQ(revision(), before);
    ASSERT_TRUE(m_editor->setNodeZone("n2", "eu west 2 (rack 7)", m_actor));
    EXPECT_EQ(map().node("n2")->zone, "eu west 2 (rack 7)");
    EXPECT_EQ(m_store->history(0, 0, 0)->back().action, "set-node-zone");
    // Now in its own zone, n2 may hold s1's copy.
    EXPECT_TRUE(m_editor->addReplica("s1", "n2", m_actor));
}

TEST_P(CopyEditsTest, ChangesOfCopiesShowInTheMapDiff)
{
    const auto start = revision();
    ASSERT_TRUE(m_editor->addReplica("s1", "n3", m_actor));
    ASSERT_TRUE(m_editor->loseNode("n1", m_actor));
    const auto end = revision();
    auto diff = diffRevisions(*m_store, start, end);
    ASSERT_TRUE(diff) << diff.error().describe();
    ASSERT_FALSE(diff->shards.empty());
    const ShardChange& s1 = diff->shards.front();
    EXPECT_EQ(s1.shard, "s1");
    EXPECT_EQ(s1.before, s1.after);
    EXPECT_EQ(s1.fromCopies, "n1 primary");
    EXPECT_EQ(s1.toCopies, "n3 primary, n1 lost");
    ASSERT_EQ(diff->nodes.size(), 1U);
    EXPECT_EQ(diff->nodes[0].node, "n1");
    EXPECT_TRUE(diff->nodes[0].lost);
    auto added = diffRevisions(*m_store, start, start + 1);
    ASSERT_TRUE(added);
    ASSERT_EQ(added->shards.size(), 1U);
    EXPECT_EQ(added->shards[0].toCopies, "n1 primary, n3 in_sync");
}

TEST_P(CopyEditsTest, HealthIsGreenYellowOrRedFromTheCopies)
{
    addSpace("acme", "s1");
    ASSERT_TRUE(m_editor->setReplication("s1", 2, std::nullopt, m_actor));
    EXPECT_EQ(evaluateCopies(map(), *map().shard("s2")).health, CopyHealth::Green);
    ShardCopiesHealth one = evaluateCopies(map(), *map().shard("s1"));
    EXPECT_EQ(one.health, CopyHealth::Yellow);
    EXPECT_EQ(one.inSync, 1U);
    EXPECT_EQ(one.wanted, 2U);
    ASSERT_TRUE(m_editor->addReplica("s1", "n3", m_actor));
    EXPECT_EQ(evaluateCopies(map(), *map().shard("s1")).health, CopyHealth::Yellow); // catching up
    markInSync("s1", "n3");
    EXPECT_EQ(evaluateCopies(map(), *map().shard("s1")).health, CopyHealth::Green);
    EXPECT_EQ(evaluateCopies(map(), *map().shard("s1"), { "n1" }).health, CopyHealth::Yellow);
    EXPECT_EQ(evaluateCopies(map(), *map().shard("s1"), { "n1", "n3" }).health, CopyHealth::Red);
    EXPECT_STREQ(copyHealthName(CopyHealth::Red), "red");
}

TEST_P(CopyEditsTest, ANodesCopiesAreListedApartFromItsShards)
{
    ASSERT_TRUE(m_editor->addReplica("s1", "n3", m_actor));
    MapSnapshot snapshot = map();
    ASSERT_EQ(snapshot.copiesOn("n3").size(), 1U);
    EXPECT_EQ(snapshot.copiesOn("n3")[0]->id, "s1");
    EXPECT_EQ(snapshot.shardsOn("n3").size(), 1U); // s3, its own primary
    snapshot.buildIndex();
    ASSERT_EQ(snapshot.copiesOn("n3").size(), 1U);
    EXPECT_EQ(snapshot.copiesOn("n3")[0]->id, "s1");
    EXPECT_TRUE(snapshot.copiesOn("n1").empty());
}

INSTANTIATE_TEST_SUITE_P(Stores, CopyEditsTest, ::testing::Values("sqlite", "etcd"),
    [](const ::testing::TestParamInfo<std::string>& store) { return store.param; });
