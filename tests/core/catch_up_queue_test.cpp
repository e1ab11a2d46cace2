// Which catching-up copies the executor queues a catch-up for, and the catch-up record's fields
// in the store (issue 30).
#include "core/map/shard_map.h"
#include "core/migration/catch_up.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace shardmap::core;

namespace {

ShardRecord shardWith(const std::string& id, const std::string& node, std::vector<ShardCopy> replicas)
{
    ShardRecord shard;
    shard.id = id;
    shard.node = node;
    shard.replicas = std::move(replicas);
    return shard;
}

} // namespace

TEST(CatchUpQueue, OneForEveryCatchingUpCopyWithoutAnActiveCatchUp)
{
    std::map<std::string, ShardRecord> shards;
    shards["s0"] = shardWith("s0", "n0",
        { { "n1", CopyState::CatchingUp, 0, 0, 0, "added" }, { "n2", CopyState::InSync }, { "n3", CopyState::Lost } });
    shards["s1"] = shardWith("s1", "n1", { { "n0", CopyState::CatchingUp } });
    shards["s2"] = shardWith("s2", "n2", {});
    MigrationRecord running;
    running.id = "m-1";
    running.source = running.target = "s1";
    running.copyNode = "n0";
    // A migration of a space off s0 is no catch-up of its copies.
    MigrationRecord move;
    move.id = "m-2";
    move.space = "acme";
    move.source = "s0";
    move.target = "s2";

    const auto queued = catchUpsToQueue(shards, { running, move }, "executor");
    ASSERT_EQ(queued.size(), 1u);
    const MigrationRecord& m = queued.front();
    EXPECT_TRUE(m.isCatchUp());
    EXPECT_EQ(m.source, "s0");
    EXPECT_EQ(m.target, "s0");
    EXPECT_EQ(m.copyNode, "n1");
    EXPECT_EQ(m.copyPrimary, "n0");
    EXPECT_EQ(m.phase, MigrationPhase::Queued);
    EXPECT_EQ(m.requestedBy, "executor");
    EXPECT_NE(m.reason.find("(added)"), std::string::npos) << m.reason;
    EXPECT_TRUE(m.space.empty());

    // An ended catch-up does not count: the copy is still catching up, so it gets a new one.
    running.phase = MigrationPhase::Cancelled;
    EXPECT_EQ(catchUpsToQueue(shards, { running }, "executor").size(), 2u);
}

TEST(CatchUpQueue, ARecordKeepsItsCopyAndAMigrationsRecordReadsAsBefore)
{
    MigrationRecord m;
    m.id = "m-1";
    m.space = "acme";
    m.source = m.target = "s0";
    m.copyNode = "n1";
    m.copyPrimary = "n0";
    auto decoded = decodeMigration(encode(m));
    ASSERT_TRUE(decoded) << decoded.error().describe();
    EXPECT_EQ(*decoded, m);
    EXPECT_TRUE(decoded->isCatchUp());

    MigrationRecord move;
    move.id = "m-2";
    move.space = "acme";
    move.source = "s0";
    move.target = "s1";
    const auto json = nlohmann::json::parse(encode(move));
    EXPECT_FALSE(json.contains("copy_node"));
    EXPECT_FALSE(json.contains("copy_primary"));
    EXPECT_FALSE(decodeMigration(encode(move))->isCatchUp());
}
