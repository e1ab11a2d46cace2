// The rules under the executor's failover watch (issue 30): a change of copies made with a lease
// fence is refused once that lease is another holder's, the node chosen for a restored copy is the
// placement rule's and the allocator's, and the failover settings are kept and checked.
#include "core/admin/fleet_admin.h"
#include "core/map/map_editor.h"
#include "core/migration/failover_watch.h"
#include "core/migration/migration_requests.h"
#include "tests/support/test_dir.h"

#include <gtest/gtest.h>

using namespace shardmap::core;
using shardmap::testing::TempDir;

namespace {

class FailoverRulesTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        auto store = openStore("sqlite:" + m_dir.file("map.db"), true);
        ASSERT_TRUE(store) << store.error().describe();
        m_store = std::move(*store);
        MapEditor editor(*m_store);
        for (int i = 1; i <= 4; ++i)
            ASSERT_TRUE(editor.addNode(
                { "n" + std::to_string(i), "127.0.0.1:" + std::to_string(7500 + i), {}, false }, m_actor));
        ASSERT_TRUE(editor.addShard({ "s1", "n1", ShardState::Active, 0, 0 }, m_actor));
    }

    MapSnapshot map()
    {
        auto snapshot = m_store->snapshot();
        EXPECT_TRUE(snapshot);
        return *MapSnapshot::decode(*snapshot);
    }

    static NodeMetricsValue metricsWith(std::uint64_t docs, std::uint64_t bytes, double freeShare)
    {
        NodeMetricsValue metrics;
        metrics.diskTotalBytes = 1000000;
        metrics.diskFreeBytes = static_cast<std::uint64_t>(freeShare * 1000000);
        ShardMetricsValue shard;
        shard.shard = "other";
        shard.liveDocs = docs;
        shard.bytesEstimate = bytes;
        metrics.shards.push_back(shard);
        return metrics;
    }

    TempDir m_dir;
    std::unique_ptr<MetadataStore> m_store;
    Actor m_actor { "test", "failover rules" };
};

} // namespace

TEST_F(FailoverRulesTest, ACopyChangeFencedWithALeaseAnotherHolderTookIsRefusedAndChangesNothing)
{
    auto first = m_store->acquireLease("executor", "c1", std::chrono::milliseconds(60000));
    ASSERT_TRUE(first) << first.error().describe();
    ASSERT_TRUE(m_store->releaseLease(*first));
    auto second = m_store->acquireLease("executor", "c2", std::chrono::milliseconds(60000));
    ASSERT_TRUE(second) << second.error().describe();

    // c1 woke up late: its grant no longer fences anything.
    MapEditor late(*m_store, [&] { return Result<LeaseGrant>(*first); });
    auto refused = late.addReplica("s1", "n2", m_actor);
    ASSERT_FALSE(refused) << "a former leader's copy change was committed";
    EXPECT_TRUE(map().shard("s1")->replicas.empty());
    EXPECT_FALSE(late.loseNode("n2", m_actor));
    EXPECT_FALSE(map().node("n2")->lost);

    // A fence source that says this replica does not lead refuses before committing.
    MapEditor standby(*m_store, [] { return Result<LeaseGrant>(makeError(ErrorCode::FailedPrecondition, "standby")); });
    EXPECT_FALSE(standby.addReplica("s1", "n2", m_actor));

    MapEditor leader(*m_store, [&] { return Result<LeaseGrant>(*second); });
    auto added = leader.addReplica("s1", "n2", m_actor);
    ASSERT_TRUE(added) << added.error().describe();
    ASSERT_NE(map().shard("s1")->replicaOn("n2"), nullptr);
    auto lost = leader.loseNode("n3", m_actor);
    ASSERT_TRUE(lost) << lost.error().describe();
    EXPECT_TRUE(map().node("n3")->lost);
}

TEST_F(FailoverRulesTest, ARestoredCopyGoesToTheLeastLoadedNodeThePlacementRuleAllows)
{
    MapEditor editor(*m_store);
    ASSERT_TRUE(editor.addReplica("s1", "n2", m_actor));
    ASSERT_TRUE(editor.loseNode("n2", m_actor));
    const MapSnapshot snapshot = map();
    const ShardRecord& shard = *snapshot.shard("s1");

    // n1 holds the primary, n2 is lost: of n3 and n4, the one holding less.
    std::map<std::string, NodeMetricsValue> reachable { { "n1", metricsWith(0, 0, 1.0) },
        { "n2", metricsWith(0, 0, 1.0) }, { "n3", metricsWith(9000, 900000, 0.2) },
        { "n4", metricsWith(100, 10000, 0.9) } };
    EXPECT_EQ(chooseCopyNode(snapshot, shard, reachable), "n4");
    reachable.at("n4") = metricsWith(90000, 9000000, 0.1);
    EXPECT_EQ(chooseCopyNode(snapshot, shard, reachable), "n3");
    // Only nodes that answer are candidates.
    reachable.erase("n3");
    reachable.erase("n4");
    EXPECT_EQ(chooseCopyNode(snapshot, shard, reachable), std::nullopt);
}

TEST_F(FailoverRulesTest, TheFailoverSettingsAreKeptAndALostNodeNeverBeforeItsFailover)
{
    NodeClientPool pool;
    FleetAdmin admin(*m_store, pool);
    MigrationSettings settings;
    EXPECT_EQ(settings.failoverAfterMs, 10000u);
    EXPECT_EQ(settings.loseNodeAfterMs, 0u) << "a node is given up for good only when asked";
    settings.failoverAfterMs = 2000;
    settings.loseNodeAfterMs = 1000;
    auto refused = admin.setSettings(settings, m_actor);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ErrorCode::InvalidArgument);
    EXPECT_NE(refused.error().message.find("shorter than failover-after"), std::string::npos)
        << refused.error().message;

    settings.loseNodeAfterMs = 60000;
    settings.maxReReplications = 3;
    ASSERT_TRUE(admin.setSettings(settings, m_actor));
    const MigrationSettings kept = map().settings.value;
    EXPECT_EQ(kept.failoverAfterMs, 2000u);
    EXPECT_EQ(kept.loseNodeAfterMs, 60000u);
    EXPECT_EQ(kept.maxReReplications, 3u);

    auto outOfRange = readMigrationSettings(R"({"failover_after_ms": 100000000})");
    ASSERT_FALSE(outOfRange);
    EXPECT_NE(outOfRange.error().message.find("failover_after_ms"), std::string::npos);
}
