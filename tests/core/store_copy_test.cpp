#include "core/map/map_editor.h"
#include "core/migration/migration_history.h"
#include "core/report/migration_report.h"
#include "core/store/audit_chain.h"
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
    ASSERT_TRUE(editor.addShard({ "s2", "n2", ShardState::Active, 0, 0, IndexEngine::Xapian }, alice));
    SpaceRecord space { "acme", "s1", 1, "", "", MigrationPhase::Done, "", false };
    ASSERT_TRUE(store.commit({ { { keys::space("acme"), encode(space), 0 } }, std::nullopt, std::nullopt, "router",
        "create-space", "first write" }));
    ASSERT_TRUE(editor.reassignSpace("acme", "s2", { "carol", "rebalance" }));

    // Two migrations with the histories reports read: one finished and archived, rolled back
    // after retries, one still in the executor's working set.
    MigrationRecord archived;
    archived.id = "m-1";
    archived.space = "acme";
    archived.source = "s2";
    archived.target = "s1";
    archived.rolledBack = true;
    archived.phase = MigrationPhase::Cancelled;
    archived.createdUnixMs = 1000;
    archived.startedUnixMs = 1100;
    archived.finishedUnixMs = 9000;
    archived.progress.docsDone = archived.progress.docsTotal = 40;
    archived.requestedBy = "carol";
    archived.reason = "try s2";
    MigrationHistory archivedHistory = MigrationHistory::start(archived);
    archivedHistory.addRetry(2000, "node n2 unreachable");
    archivedHistory.addRetry(2500, "node n2 unreachable");
    archivedHistory.addEvent(8000, "rolled-back", "the space goes back to s1");
    archivedHistory.writeHoldMs = 4.5;
    archivedHistory.cutoverAborts = 1;
    archivedHistory.verification = VerificationFigures { 7000, { 40, 1, 9 }, { 40, 1, 9 }, 2, 3, true };
    MigrationRecord running = archived;
    running.id = "m-2";
    running.rolledBack = false;
    running.source = "s1";
    running.target = "s2";
    running.phase = MigrationPhase::Backfill;
    running.createdUnixMs = 10000;
    running.startedUnixMs = 10100;
    running.finishedUnixMs = 0;
    running.progress.docsDone = 10;
    MigrationHistory runningHistory = MigrationHistory::start(running);
    runningHistory.addSample({ 10500, 10, 1000 });
    ASSERT_TRUE(store.commit({ { { keys::archivedMigration("m-1"), encode(archived), 0 },
                                   { keys::migrationHistory("m-1"), encode(archivedHistory), 0 },
                                   { keys::migration("m-2"), encode(running), 0 },
                                   { keys::migrationHistory("m-2"), encode(runningHistory), 0 } },
        std::nullopt, std::nullopt, "executor", "migrations", "reports" }));
}

} // namespace

TEST(StoreCopyTest, CopiesEveryRecordAndTheHistoryWithItsActors)
{
    TempDir dir;
    auto from = open("sqlite:" + dir.file("from.db"));
    fill(*from);
    auto to = open("sqlite:" + dir.file("to.db"));
    std::vector<StoreCopyProgress> reports;
    auto copied = copyStore(*from, *to, [&](const StoreCopyProgress& p) { reports.push_back(p); });
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
    const auto copiedMap = MapSnapshot::decode(*target);
    ASSERT_TRUE(copiedMap) << copiedMap.error().describe();
    EXPECT_EQ(copiedMap->shard("s1")->engine, IndexEngine::Fts5);
    EXPECT_EQ(copiedMap->shard("s2")->engine, IndexEngine::Xapian);

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
    // The copy's audit is a chain of its own that verifies.
    auto chain = verifyAuditChain(*to, true);
    ASSERT_TRUE(chain) << chain.error().describe();
    EXPECT_FALSE(chain->broken) << chain->broken->message;
    EXPECT_EQ(chain->chainStart, 1u);

    // A report read from the copy is the original's: records, archived ones and histories.
    auto before = readReport(*from, {}, 20000);
    auto after = readReport(*to, {}, 20000);
    ASSERT_TRUE(before) << before.error().describe();
    ASSERT_TRUE(after) << after.error().describe();
    ASSERT_EQ(before->rows.size(), 2u);
    ASSERT_TRUE(before->rows[0].history && before->rows[1].history);
    EXPECT_EQ(before->rows[0].history->events.front().count, 2u);
    EXPECT_EQ(after->rows[0].history, before->rows[0].history);
    EXPECT_EQ(after->rows[1].history, before->rows[1].history);
    EXPECT_EQ(reportJson(*after), reportJson(*before));
    EXPECT_EQ(reportCsv(*after), reportCsv(*before));
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
    auto chain = verifyAuditChain(*to, true);
    ASSERT_TRUE(chain) << chain.error().describe();
    EXPECT_FALSE(chain->broken) << chain->broken->message;
}
