// A shard's copies with real node processes and a real SQLite store (issue 30): FleetAdmin making
// a replica on its node, promoting it (the old primary fenced at the old epoch), removing it (the
// node drops it with its documents), and shardmapctl's commands with --json, confirmation, bad
// input and the health command's exit codes.
#include "ctl_run.h"
#include "tests/support/fleet_test.h"

#include <algorithm>
#include <nlohmann/json.hpp>

using namespace shardmap;
using namespace shardmap::testing;
using nlohmann::json;

namespace {

class CopiesTest : public FleetTest<::testing::Test> {
protected:
    bool nodeHolds(std::size_t node, const std::string& shard)
    {
        auto client = m_pool.get(m_nodes.at(node)->address());
        auto shards = client ? (*client)->listShards() : core::Result<std::vector<core::ShardSummary>>(client.error());
        EXPECT_TRUE(shards) << shards.error().describe();
        return shards && std::any_of(shards->begin(), shards->end(), [&](const auto& s) { return s.id == shard; });
    }

    core::Result<core::WriteSummary> write(
        std::size_t node, const std::string& shard, std::uint64_t epoch, const std::string& id, std::uint64_t version)
    {
        auto client = m_pool.get(m_nodes.at(node)->address());
        if (!client)
            return client.error();
        return (*client)->bulkWrite(shard, { { { "acme", id, version, { { "title", "hello " + id } } }, epoch } });
    }

    void markInSync(const std::string& shardId, const std::string& nodeId)
    {
        core::MapEditor editor(*m_store);
        auto map = editor.snapshot();
        ASSERT_TRUE(map);
        core::ShardRecord shard = map->shards.at(shardId).value;
        for (core::ShardCopy& copy : shard.replicas) {
            if (copy.node == nodeId)
                copy.state = core::CopyState::InSync;
        }
        ASSERT_TRUE(m_store->commit(
            { { { core::keys::shard(shardId), core::encode(shard), map->shards.at(shardId).modRevision } },
                std::nullopt, std::nullopt, "executor", "catch-up", "" }));
    }

    CtlRun ctl(std::vector<std::string> args) { return runCtl(m_dir, storeUri(), args); }
};

} // namespace

TEST_F(CopiesTest, AReplicaIsMadeOnItsNodeAndAPromotionFencesTheOldPrimary)
{
    startFleet(3);
    core::FleetAdmin admin(*m_store, m_pool);
    addSpaceRecord("acme", "s0");
    ASSERT_TRUE(nodeOf("s0")->setOwnership("s0", { "acme", core::SpaceRole::Owner, 1 }));
    ASSERT_TRUE(write(0, "s0", 1, "d1", 1));

    auto added = admin.addReplica("s0", "n1", m_actor);
    ASSERT_TRUE(added) << added.error().describe();
    EXPECT_EQ(added->change.shard.replicaOn("n1")->state, core::CopyState::CatchingUp);
    EXPECT_TRUE(nodeHolds(1, "s0")) << "the copy is created on its node with the shard's id";

    // Not in sync yet: refused, nothing changed.
    auto early = admin.promote("s0", "n1", m_actor);
    ASSERT_FALSE(early);
    EXPECT_NE(early.error().message.find("only an in-sync copy can be promoted"), std::string::npos);

    markInSync("s0", "n1");
    auto promoted = admin.promote("s0", "n1", m_actor);
    ASSERT_TRUE(promoted) << promoted.error().describe();
    EXPECT_TRUE(promoted->warnings.empty()) << promoted->warnings.front();
    ASSERT_EQ(promoted->change.spaces.size(), 1U);
    EXPECT_EQ(promoted->change.spaces[0].epoch, 2U);

    // The old primary was told epoch 2: a write at epoch 1 is refused there, the new primary takes epoch 2.
    auto stale = write(0, "s0", 1, "d2", 2);
    ASSERT_FALSE(stale);
    EXPECT_EQ(stale.error().code, core::ErrorCode::FailedPrecondition) << stale.error().describe();
    auto fresh = write(1, "s0", 2, "d2", 2);
    EXPECT_TRUE(fresh) << fresh.error().describe();

    // The old primary, now a replica with documents, is removed and dropped on its node.
    auto removed = admin.removeReplica("s0", "n0", m_actor);
    ASSERT_TRUE(removed) << removed.error().describe();
    EXPECT_TRUE(removed->warnings.empty()) << removed->warnings.front();
    EXPECT_FALSE(nodeHolds(0, "s0"));
    EXPECT_TRUE(nodeHolds(1, "s0"));
}

// Issue 31: a copy is made with its primary's index settings, not with today's index over its
// fields: a stemmed shard's replica stems too.
TEST_F(CopiesTest, AReplicaIsMadeWithItsPrimarysIndexSettings)
{
    startFleet(2);
    core::FleetAdmin admin(*m_store, m_pool);
    core::NewShard stemmed { "st", "n0" };
    stemmed.index = core::defaultIndexSettings();
    stemmed.index->tokenizer = core::Tokenizer::Porter;
    stemmed.index->fields.push_back({ "notes", false, 1.0 });
    ASSERT_TRUE(admin.createShard(stemmed, m_actor));
    ASSERT_TRUE(admin.addReplica("st", "n1", m_actor));
    auto shards = (*m_pool.get(m_nodes.at(1)->address()))->listShards();
    ASSERT_TRUE(shards) << shards.error().describe();
    const auto copy = std::find_if(shards->begin(), shards->end(), [](const auto& s) { return s.id == "st"; });
    ASSERT_NE(copy, shards->end());
    auto settings = core::indexSettingsOf(*copy);
    ASSERT_TRUE(settings) << settings.error().describe();
    EXPECT_EQ(*settings, *stemmed.index);
}

TEST_F(CopiesTest, ARefusedReplicaTouchesNoNode)
{
    startFleet(2);
    core::FleetAdmin admin(*m_store, m_pool);
    auto own = admin.addReplica("s0", "n0", m_actor);
    ASSERT_FALSE(own);
    EXPECT_NE(own.error().message.find("is shard s0's primary"), std::string::npos);
    ASSERT_TRUE(admin.map().loseNode("n1", m_actor));
    auto lost = admin.addReplica("s0", "n1", m_actor);
    ASSERT_FALSE(lost);
    EXPECT_NE(lost.error().message.find("node n1 is lost"), std::string::npos);
    EXPECT_FALSE(nodeHolds(1, "s0"));
}

TEST_F(CopiesTest, TheCliAddsListsPromotesAndRemovesCopiesAndHealthSaysTheColour)
{
    startFleet(3);
    auto bad = ctl({ "shard", "replicas", "add", "s0", "n0" });
    EXPECT_EQ(bad.code, 5);
    EXPECT_NE(bad.err.find("is shard s0's primary"), std::string::npos) << bad.err;
    EXPECT_EQ(ctl({ "shard", "replicas", "add", "s0", "ghost" }).code, 3);
    EXPECT_EQ(ctl({ "shard", "set-replication-factor", "s0", "4" }).code, 5);

    auto added = ctl({ "--json", "shard", "replicas", "add", "s0", "n1" });
    ASSERT_EQ(added.code, 0) << added.err;
    EXPECT_EQ(added.parsed()["replicas"][0]["state"], "in_sync"); // s0 holds no space
    EXPECT_TRUE(nodeHolds(1, "s0"));

    auto factor = ctl({ "shard", "set-replication-factor", "s0", "3" });
    ASSERT_EQ(factor.code, 0) << factor.err;
    auto listed = ctl({ "--json", "shard", "replicas", "list", "s0" }).parsed();
    EXPECT_EQ(listed["in_sync"], 2);
    EXPECT_EQ(listed["replication_factor"], 3);
    EXPECT_EQ(listed["copy_health"], "yellow");
    auto table = ctl({ "shard", "list" });
    EXPECT_NE(table.out.find("COPIES"), std::string::npos);
    EXPECT_NE(table.out.find("2/3"), std::string::npos) << table.out;

    // Yellow warns (exit 8) with the shard named.
    auto yellow = ctl({ "--json", "health" });
    EXPECT_EQ(yellow.code, 8) << yellow.out;
    EXPECT_NE(yellow.out.find("shard-under-replicated"), std::string::npos) << yellow.out;

    auto promoted = ctl({ "--json", "shard", "promote", "s0", "n1" });
    ASSERT_EQ(promoted.code, 0) << promoted.err;
    EXPECT_EQ(promoted.parsed()["primary"], "n1");
    EXPECT_EQ(ctl({ "shard", "promote", "s0", "n0" }).code, 5); // catching up now
    // The move of the primary warns until the old primary is back in sync (or removed, below).
    auto failedOver = ctl({ "--json", "health" });
    EXPECT_EQ(failedOver.code, 8) << failedOver.out;
    EXPECT_NE(failedOver.out.find("shard-failed-over"), std::string::npos) << failedOver.out;

    auto unconfirmed = ctl({ "shard", "replicas", "remove", "s0", "n0" });
    EXPECT_EQ(unconfirmed.code, 2);
    EXPECT_NE(unconfirmed.err.find("--yes"), std::string::npos);
    auto removed = ctl({ "shard", "replicas", "remove", "s0", "n0", "--yes" });
    ASSERT_EQ(removed.code, 0) << removed.err;
    EXPECT_FALSE(nodeHolds(0, "s0"));

    // s2's only copy is on n2: lost, it is red and health fails (exit 9).
    ASSERT_EQ(ctl({ "shard", "set-replication-factor", "s0", "0" }).code, 0);
    auto preview = ctl({ "node", "lose", "n2" });
    EXPECT_EQ(preview.code, 2);
    EXPECT_NE(preview.err.find("shard s2: no in-sync replica"), std::string::npos) << preview.err;
    auto lost = ctl({ "--json", "node", "lose", "n2", "--yes" });
    ASSERT_EQ(lost.code, 0) << lost.err;
    EXPECT_EQ(lost.parsed()["without_copy"], json::array({ "s2" }));
    auto red = ctl({ "--json", "health" });
    EXPECT_EQ(red.code, 9) << red.out;
    EXPECT_NE(red.out.find("shard-without-copy"), std::string::npos) << red.out;
    EXPECT_EQ(ctl({ "node", "lose", "ghost", "--yes" }).code, 3);

    auto zone = ctl({ "node", "set-zone", "n0", std::string("bad\x01zone") });
    EXPECT_EQ(zone.code, 2);
    ASSERT_EQ(ctl({ "node", "set-zone", "n0", "eu-1" }).code, 0);
    auto nodes = ctl({ "--json", "node", "list" }).parsed();
    EXPECT_EQ(nodes["nodes"][0]["zone"], "eu-1");
    EXPECT_EQ(nodes["nodes"][2]["lost"], true);

    auto history = ctl({ "--json", "map", "history", "--limit", "500" }).parsed();
    std::vector<std::string> actions;
    for (const auto& record : history["history"])
        actions.push_back(record.value("action", ""));
    for (const char* action : { "add-replica n1", "promote n1", "remove-replica n0", "lose-node", "set-node-zone" })
        EXPECT_NE(std::find(actions.begin(), actions.end(), action), actions.end()) << action;
}
