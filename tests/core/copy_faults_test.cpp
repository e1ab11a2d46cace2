// The write quorum over a shard's copies, and marking a copy that missed a write catching up, on a
// real SQLite shard map.
#include "core/map/copy_faults.h"
#include "tests/support/test_dir.h"

#include <gtest/gtest.h>

using namespace shardmap::core;
using shardmap::testing::TempDir;

namespace {

CopyTally tally(std::size_t inSync, std::size_t applied, bool primary, std::size_t marked = 0, std::size_t unmarked = 0)
{
    return CopyTally { inSync, applied, primary, marked, unmarked };
}

} // namespace

TEST(WriteQuorumTest, AllNeedsEveryInSyncCopyOrItsMark)
{
    EXPECT_EQ(copiesToAcknowledge(WriteQuorum::All, 3, 3), 3u);
    EXPECT_EQ(copiesToAcknowledge(WriteQuorum::All, 3, 2), 2u) << "a copy catching up is not waited for";
    EXPECT_FALSE(quorumDecided(WriteQuorum::All, 3, tally(3, 2, true))) << "one copy still out";
    EXPECT_TRUE(quorumDecided(WriteQuorum::All, 3, tally(3, 2, true, 1)));
    EXPECT_TRUE(quorumOutcome(WriteQuorum::All, 3, tally(3, 3, true), "s1"));
    EXPECT_TRUE(quorumOutcome(WriteQuorum::All, 3, tally(3, 1, true, 2), "s1")) << "both others marked";
    auto unmarked = quorumOutcome(WriteQuorum::All, 3, tally(3, 2, true, 0, 1), "s1");
    ASSERT_FALSE(unmarked);
    EXPECT_EQ(unmarked.error().code, ErrorCode::Unavailable);
    EXPECT_NE(unmarked.error().message.find("could not be marked catching up"), std::string::npos);
    EXPECT_EQ(unmarked.error().context, "shard s1");
    EXPECT_FALSE(quorumOutcome(WriteQuorum::All, 1, tally(1, 0, false, 0, 1), "s1")) << "the primary failed";
}

TEST(WriteQuorumTest, MajorityOfTheFactorFromThreeOn)
{
    EXPECT_EQ(copiesToAcknowledge(WriteQuorum::Majority, 3, 3), 2u);
    EXPECT_EQ(copiesToAcknowledge(WriteQuorum::Majority, 4, 4), 3u);
    EXPECT_EQ(copiesToAcknowledge(WriteQuorum::Majority, 5, 5), 3u);
    EXPECT_EQ(copiesToAcknowledge(WriteQuorum::Majority, 5, 2), 3u) << "of the factor, not of the copies in sync";
    // Below 3 a majority is all of them.
    EXPECT_FALSE(majorityApplies(WriteQuorum::Majority, 2));
    EXPECT_EQ(copiesToAcknowledge(WriteQuorum::Majority, 2, 2), 2u);
    EXPECT_FALSE(quorumDecided(WriteQuorum::Majority, 2, tally(2, 1, true)));
    // Decided as soon as the primary and enough copies applied it, the third still out.
    EXPECT_TRUE(quorumDecided(WriteQuorum::Majority, 3, tally(3, 2, true)));
    EXPECT_TRUE(quorumOutcome(WriteQuorum::Majority, 3, tally(3, 2, true), "s1"));
    EXPECT_FALSE(quorumDecided(WriteQuorum::Majority, 3, tally(3, 2, false))) << "the primary not heard yet";
    EXPECT_FALSE(quorumDecided(WriteQuorum::Majority, 3, tally(3, 1, true, 1)));
    auto short1 = quorumOutcome(WriteQuorum::Majority, 3, tally(3, 1, true, 2), "s1");
    ASSERT_FALSE(short1) << "two copies marked do not make a majority";
    EXPECT_EQ(
        short1.error().message, "applied on 1 of 3 in-sync copies; the majority of its replication factor 3 is 2");
    EXPECT_FALSE(quorumOutcome(WriteQuorum::Majority, 3, tally(3, 2, false, 0, 1), "s1")) << "the primary failed";
}

class CopyFaultsTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        auto store = openStore("sqlite:" + m_dir.file("map.db"), true);
        ASSERT_TRUE(store) << store.error().describe();
        m_store = std::move(*store);
        MapEditor editor(*m_store);
        for (const char* node : { "n0", "n1", "n2" })
            ASSERT_TRUE(editor.addNode({ node, std::string("127.0.0.1:74") + node[1], {} }, m_actor));
        ShardRecord shard { "s0", "n0", ShardState::Active, 0, 0 };
        shard.replicas = { { "n1", CopyState::InSync }, { "n2", CopyState::Lost, 0, 0, 0, "disk gone" } };
        ASSERT_TRUE(editor.addShard(shard, m_actor));
    }

    ShardRecord shard()
    {
        auto map = MapEditor(*m_store).snapshot();
        EXPECT_TRUE(map);
        return *map->shard("s0");
    }

    TempDir m_dir;
    std::unique_ptr<MetadataStore> m_store;
    Actor m_actor { "router", "" };
};

TEST_F(CopyFaultsTest, MarksAnInSyncCopyCatchingUpWithItsAuditRecord)
{
    auto marked = markCopyCatchingUp(*m_store, "s0", "n1", "missed a write: node unavailable", m_actor);
    ASSERT_TRUE(marked) << marked.error().describe();
    const ShardRecord record = shard();
    const ShardCopy* copy = record.replicaOn("n1");
    ASSERT_TRUE(copy);
    EXPECT_EQ(copy->state, CopyState::CatchingUp);
    EXPECT_EQ(copy->reason, "missed a write: node unavailable");
    EXPECT_GT(copy->sinceUnixMs, 0);
    EXPECT_EQ(shard().replicaOn("n2")->state, CopyState::Lost) << "the other copy is left as it was";
    auto history = m_store->history(*marked - 1, *marked, 0);
    ASSERT_TRUE(history && history->size() == 1);
    EXPECT_EQ(history->front().action, "mark-copy-catching-up");
    EXPECT_EQ(history->front().actor, "router");
    EXPECT_EQ(history->front().changes.front().key, keys::shard("s0"));
}

TEST_F(CopyFaultsTest, MarkingAgainOrALostCopyCommitsNothing)
{
    ASSERT_TRUE(markCopyCatchingUp(*m_store, "s0", "n1", "first", m_actor));
    const auto revision = *m_store->currentRevision();
    auto again = markCopyCatchingUp(*m_store, "s0", "n1", "second", m_actor);
    ASSERT_TRUE(again);
    EXPECT_EQ(*again, revision);
    EXPECT_EQ(shard().replicaOn("n1")->reason, "first");
    auto lost = markCopyCatchingUp(*m_store, "s0", "n2", "a write", m_actor);
    ASSERT_TRUE(lost);
    EXPECT_EQ(shard().replicaOn("n2")->state, CopyState::Lost) << "a lost copy does not come back catching up";
    EXPECT_EQ(*m_store->currentRevision(), revision);
}

TEST_F(CopyFaultsTest, BadInputIsRefusedAndChangesNothing)
{
    const auto revision = *m_store->currentRevision();
    auto unknown = markCopyCatchingUp(*m_store, "s9", "n1", "x", m_actor);
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.error().code, ErrorCode::NotFound);
    EXPECT_EQ(unknown.error().message, "no shard s9 in the shard map");
    auto primary = markCopyCatchingUp(*m_store, "s0", "n0", "x", m_actor);
    ASSERT_FALSE(primary);
    EXPECT_EQ(primary.error().code, ErrorCode::InvalidArgument);
    EXPECT_EQ(primary.error().message, "node n0 holds the primary of shard s0, not a replica; a primary is not marked");
    auto none = markCopyCatchingUp(*m_store, "s0", "n7", "x", m_actor);
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().message, "shard s0 has no replica on node n7");
    EXPECT_EQ(*m_store->currentRevision(), revision);
}
