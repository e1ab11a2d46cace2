#include "core/map/map_editor.h"
#include "core/store/store_copy.h"
#include "tests/support/etcd_process.h"
#include "tests/support/test_dir.h"

#include <gtest/gtest.h>

using namespace shardmap::core;
using shardmap::testing::TempDir;

namespace {

std::unique_ptr<MetadataStore> open(const std::string& uri)
{
    auto store = openStore(uri, true);
    EXPECT_TRUE(store) << store.error().describe();
    return store ? std::move(*store) : nullptr;
}

// A source map with nodes, shards, a removed node and a space moved by hand.
void fill(MetadataStore& store)
{
    MapEditor editor(store);
    const Actor alice { "alice", "set up" };
    ASSERT_TRUE(editor.addNode({ "n1", "127.0.0.1:7001", { { "rack", "a" } }, false }, alice));
    ASSERT_TRUE(editor.addNode({ "n2", "127.0.0.1:7002", {}, false }, alice));
    ASSERT_TRUE(editor.addNode({ "n3", "127.0.0.1:7003", {}, false }, alice));
    ASSERT_TRUE(editor.removeNode("n3", { "bob", "never used" }));
    ASSERT_TRUE(editor.addShard({ "s1", "n1", ShardState::Active, 0, 0 }, alice));
    ASSERT_TRUE(editor.addShard({ "s2", "n2", ShardState::Active, 0, 0 }, alice));
    SpaceRecord space { "acme", "s1", 1, "", "", MigrationPhase::Done, "", false };
    ASSERT_TRUE(store.commit({ { { keys::space("acme"), encode(space), 0 } }, std::nullopt, std::nullopt, "router",
        "create-space", "first write" }));
    ASSERT_TRUE(editor.reassignSpace("acme", "s2", { "carol", "rebalance" }));
}

} // namespace

TEST(StoreCopyTest, CopiesEveryRecordAndTheHistoryWithItsActors)
{
    TempDir dir;
    auto from = open("sqlite:" + dir.file("from.db"));
    fill(*from);
    auto to = open("sqlite:" + dir.file("to.db"));
    std::vector<CopyProgress> reports;
    auto copied = copyStore(*from, *to, [&](const CopyProgress& p) { reports.push_back(p); });
    ASSERT_TRUE(copied) << copied.error().describe();

    const auto source = from->snapshot();
    const auto target = to->snapshot();
    EXPECT_EQ(copied->sourceRevision, source->revision);
    EXPECT_EQ(copied->commits, source->revision);
    EXPECT_EQ(target->revision, source->revision);
    EXPECT_EQ(copied->records, source->records.size());
    for (const auto& [key, record] : source->records) {
        ASSERT_TRUE(target->records.contains(key)) << key;
        EXPECT_EQ(target->records.at(key).value, record.value) << key;
        EXPECT_EQ(target->records.at(key).modRevision, record.modRevision) << key;
    }
    EXPECT_FALSE(target->records.contains(keys::node("n3")));

    const auto original = from->history(0, 0, 0);
    const auto replayed = to->history(0, 0, 0);
    ASSERT_EQ(replayed->size(), original->size());
    for (std::size_t i = 0; i < original->size(); ++i) {
        EXPECT_EQ((*replayed)[i].revision, (*original)[i].revision);
        EXPECT_EQ((*replayed)[i].actor, (*original)[i].actor);
        EXPECT_EQ((*replayed)[i].action, (*original)[i].action);
        EXPECT_EQ((*replayed)[i].changes, (*original)[i].changes);
        EXPECT_NE((*replayed)[i].reason.find((*original)[i].reason), std::string::npos);
        EXPECT_NE((*replayed)[i].reason.find("copied from sqlite:"), std::string::npos);
    }
    ASSERT_FALSE(reports.empty());
    EXPECT_EQ(reports.back().copied, reports.back().total);
}

TEST(StoreCopyTest, RefusesADestinationThatIsNotEmptyAndWritesNothing)
{
    TempDir dir;
    auto from = open("sqlite:" + dir.file("from.db"));
    fill(*from);
    auto to = open("sqlite:" + dir.file("to.db"));
    ASSERT_TRUE(MapEditor(*to).addNode({ "x", "127.0.0.1:9", {}, false }, { "dave", "" }));
    auto copied = copyStore(*from, *to);
    ASSERT_FALSE(copied);
    EXPECT_EQ(copied.error().code, ErrorCode::FailedPrecondition);
    EXPECT_NE(copied.error().message.find("not empty"), std::string::npos);
    EXPECT_EQ(*to->currentRevision(), 1u);
}

TEST(StoreCopyTest, AnEmptySourceCopiesToAnEmptyDestination)
{
    TempDir dir;
    auto from = open("sqlite:" + dir.file("from.db"));
    auto to = open("sqlite:" + dir.file("to.db"));
    auto copied = copyStore(*from, *to);
    ASSERT_TRUE(copied) << copied.error().describe();
    EXPECT_EQ(copied->commits, 0u);
    EXPECT_EQ(*to->currentRevision(), 0u);
}

TEST(StoreCopyTest, CopiesFromSqliteIntoEtcd)
{
    std::string error;
    auto* etcd = shardmap::testing::EtcdProcess::shared(error);
    ASSERT_TRUE(etcd) << "etcd is needed for this test and did not start: " << error;
    TempDir dir;
    auto from = open("sqlite:" + dir.file("from.db"));
    fill(*from);
    auto to = open("etcd://" + etcd->endpoint() + "/" + std::filesystem::path(dir.path()).filename().string());
    ASSERT_TRUE(to);
    auto copied = copyStore(*from, *to);
    ASSERT_TRUE(copied) << copied.error().describe();
    const auto source = from->snapshot();
    const auto target = to->snapshot();
    EXPECT_EQ(target->revision, source->revision);
    ASSERT_EQ(target->records.size(), source->records.size());
    for (const auto& [key, record] : source->records)
        EXPECT_EQ(target->records.at(key).value, record.value) << key;
    EXPECT_EQ(to->history(0, 0, 0)->size(), from->history(0, 0, 0)->size());
}
