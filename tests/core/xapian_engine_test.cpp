// The Xapian engine of a shard (core/shard/xapian_engine.h) on a real SQLite file and a real
// Xapian index: a write is searchable once applied, a rolled-back one never, and a process killed
// between the two commits (SIGKILL in a forked child) loses nothing; a missing, damaged or foreign
// index is rebuilt from the content table.

#include "core/query/query_compiler.h"
#include "core/shard/sqlite_db.h"
#include "core/shard/xapian_engine.h"
#include "tests/support/test_dir.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace shardmap::core;
using shardmap::testing::TempDir;

namespace {

const std::vector<std::string> kEngineFields { "title", "body", "tags" };

IndexedRow engineRow(
    std::int64_t rowid, const std::string& space, const std::string& title, const std::string& body = {})
{
    return { rowid, space, { title, body.empty() ? std::nullopt : std::optional(body), std::nullopt, std::nullopt } };
}

class XapianEngineTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        auto db = SqliteDb::open(m_dir.file("shard.db"), {});
        ASSERT_TRUE(db) << db.error().describe();
        m_db = std::make_unique<SqliteDb>(std::move(*db));
        ASSERT_TRUE(m_db->exec("PRAGMA journal_mode=WAL"));
        ASSERT_TRUE(XapianEngine::createTables(*m_db, kEngineFields));
        reopen();
    }

    void reopen()
    {
        m_engine.reset();
        auto engine = XapianEngine::open(*m_db, m_dir.file("shard.xapian"), kEngineFields, m_options);
        ASSERT_TRUE(engine) << engine.error().describe();
        m_engine = std::move(*engine);
    }

    // Writes rows in one SQLite transaction, as the shard's writer does, then applies them.
    void write(const std::vector<IndexedRow>& rows, const std::vector<std::int64_t>& removed = {}, bool apply = true)
    {
        ASSERT_TRUE(m_db->exec("BEGIN IMMEDIATE"));
        for (const auto& r : rows)
            ASSERT_TRUE(m_engine->insert(r));
        for (auto rowid : removed)
            ASSERT_TRUE(m_engine->remove(rowid));
        ASSERT_TRUE(m_db->exec("COMMIT"));
        if (apply) {
            ASSERT_TRUE(m_engine->applyCommitted());
        }
    }

    std::vector<std::int64_t> find(const std::string& query, std::vector<std::string> spaces = { "acme" })
    {
        auto parsed = parseQuery(query, QuerySchema { kEngineFields });
        EXPECT_TRUE(parsed) << parsed.error().describe();
        auto hits = m_engine->search(spaces, *parsed, 0, 100);
        EXPECT_TRUE(hits) << hits.error().describe();
        std::vector<std::int64_t> rowids;
        for (const auto& hit : hits ? *hits : std::vector<IndexedHit> {})
            rowids.push_back(hit.rowid);
        std::sort(rowids.begin(), rowids.end());
        return rowids;
    }

    std::int64_t logRows() { return *m_db->queryInt("SELECT count(*) FROM index_log"); }

    TempDir m_dir;
    XapianEngineOptions m_options;
    std::unique_ptr<SqliteDb> m_db;
    std::unique_ptr<XapianEngine> m_engine;
};

TEST_F(XapianEngineTest, AWriteIsSearchableOnceAppliedAndNotBefore)
{
    write({ engineRow(1, "acme", "red fox"), engineRow(2, "acme", "blue fox"), engineRow(3, "other", "red fox") }, {},
        false);
    EXPECT_TRUE(find("fox").empty());
    ASSERT_TRUE(m_engine->applyCommitted());
    EXPECT_EQ(find("fox"), (std::vector<std::int64_t> { 1, 2 }));
    EXPECT_EQ(find("red", { "acme", "other" }), (std::vector<std::int64_t> { 1, 3 }));

    write({ engineRow(2, "acme", "blue whale") }, { 1 });
    EXPECT_TRUE(find("fox").empty());
    EXPECT_EQ(find("whale"), (std::vector<std::int64_t> { 2 }));
}

TEST_F(XapianEngineTest, ARolledBackSavepointIsNeverApplied)
{
    ASSERT_TRUE(m_db->exec("BEGIN IMMEDIATE"));
    ASSERT_TRUE(m_db->exec("SAVEPOINT refused"));
    ASSERT_TRUE(m_engine->insert(engineRow(1, "acme", "refused batch")));
    ASSERT_TRUE(m_db->exec("ROLLBACK TO refused"));
    ASSERT_TRUE(m_db->exec("RELEASE refused"));
    ASSERT_TRUE(m_engine->insert(engineRow(2, "acme", "accepted batch")));
    ASSERT_TRUE(m_db->exec("COMMIT"));
    ASSERT_TRUE(m_engine->applyCommitted());
    EXPECT_EQ(find("batch"), (std::vector<std::int64_t> { 2 }));
}

TEST_F(XapianEngineTest, ACheckpointPrunesOnlyWhatTheIndexHolds)
{
    m_options.checkpointChanges = 1000000;
    m_options.checkpointInterval = std::chrono::hours(1);
    reopen();
    write({ engineRow(1, "acme", "one"), engineRow(2, "acme", "two") });
    EXPECT_EQ(logRows(), 2);
    write({ engineRow(3, "acme", "three") }, {}, false);
    ASSERT_TRUE(m_engine->checkpoint());
    EXPECT_EQ(logRows(), 1) << "the unapplied change stays logged";
    ASSERT_TRUE(m_engine->applyCommitted());
    ASSERT_TRUE(m_engine->checkpoint());
    EXPECT_EQ(logRows(), 0);
    EXPECT_EQ(m_engine->durableSeq(), 3u);
    // Sequence numbers go on past a pruned log.
    write({ engineRow(4, "acme", "four") });
    EXPECT_EQ(m_engine->appliedSeq(), 4u);
}

TEST_F(XapianEngineTest, OpeningReplaysTheChangesTheIndexMissed)
{
    write({ engineRow(1, "acme", "kept") });
    write({ engineRow(2, "acme", "missed"), engineRow(3, "acme", "missed too") }, { 1 }, false);
    reopen();
    EXPECT_EQ(m_engine->opening().replayed, 3u) << "two rows written, one deleted";
    EXPECT_FALSE(m_engine->opening().rebuilt);
    EXPECT_EQ(find("missed"), (std::vector<std::int64_t> { 2, 3 }));
    EXPECT_TRUE(find("kept").empty());
}

TEST_F(XapianEngineTest, AMissingDamagedOrForeignIndexIsRebuiltFromTheContent)
{
    write({ engineRow(1, "acme", "alpha"), engineRow(2, "acme", "beta"), engineRow(3, "acme", "alpha beta") });
    ASSERT_TRUE(m_engine->checkpoint());
    m_engine.reset();

    std::filesystem::remove_all(m_dir.file("shard.xapian"));
    reopen();
    EXPECT_TRUE(m_engine->opening().rebuilt);
    EXPECT_NE(m_engine->opening().rebuildReason.find("log starts at"), std::string::npos)
        << m_engine->opening().rebuildReason;
    EXPECT_EQ(find("alpha"), (std::vector<std::int64_t> { 1, 3 }));
    m_engine.reset();

    for (const auto& entry : std::filesystem::directory_iterator(m_dir.file("shard.xapian")))
        std::ofstream(entry.path(), std::ios::trunc) << "not a Xapian table";
    reopen();
    EXPECT_TRUE(m_engine->opening().rebuilt);
    EXPECT_EQ(find("beta"), (std::vector<std::int64_t> { 2, 3 }));

    // An index that holds more changes than this file has made (another copy's).
    write({ engineRow(4, "acme", "gamma") });
    m_engine.reset();
    ASSERT_TRUE(m_db->exec("UPDATE sqlite_sequence SET seq = 1 WHERE name = 'index_log'"));
    reopen();
    EXPECT_TRUE(m_engine->opening().rebuilt);
    EXPECT_NE(m_engine->opening().rebuildReason.find("another copy"), std::string::npos)
        << m_engine->opening().rebuildReason;
    EXPECT_EQ(find("gamma"), (std::vector<std::int64_t> { 4 }));
}

TEST_F(XapianEngineTest, SearchesRunAlongsideWritesAndSeeEachApplyAtOnce)
{
    std::atomic<bool> done { false };
    std::atomic<int> failures { 0 };
    std::vector<std::thread> readers;
    for (int t = 0; t < 4; ++t)
        readers.emplace_back([&] {
            auto parsed = parseQuery("word", QuerySchema { kEngineFields });
            while (!done) {
                auto hits = m_engine->search({ "acme" }, *parsed, 0, 20);
                if (!hits)
                    ++failures;
            }
        });
    for (int batch = 0; batch < 50; ++batch) {
        std::vector<IndexedRow> rows;
        for (int i = 0; i < 20; ++i)
            rows.push_back(engineRow(batch * 20 + i + 1, "acme", "word " + std::to_string(batch)));
        write(rows);
        EXPECT_EQ(find(std::to_string(batch)).size(), 20u) << "batch " << batch << " is searchable after its apply";
    }
    done = true;
    for (auto& reader : readers)
        reader.join();
    EXPECT_EQ(failures, 0);
}

// A child process writes and is killed (SIGKILL) at `when`; the parent reopens and finds every
// row the child committed to SQLite, as a fresh index of the same rows would.
enum class KillAt { AfterSqliteCommit, AfterIndexCommit };

class XapianEngineKillTest : public XapianEngineTest, public ::testing::WithParamInterface<KillAt> { };

TEST_P(XapianEngineKillTest, AKilledWriterLosesNothing)
{
    write({ engineRow(1, "acme", "before the child") });
    m_engine.reset();
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        XapianEngineOptions options;
        options.checkpointChanges = 1000000;
        options.checkpointInterval = std::chrono::hours(1);
        // A connection of its own: SQLite's must not cross a fork.
        auto db = SqliteDb::open(m_dir.file("shard.db"), {});
        if (!db)
            _exit(2);
        auto engine = XapianEngine::open(*db, m_dir.file("shard.xapian"), kEngineFields, options);
        if (!engine)
            _exit(3);
        for (int batch = 0; batch < 10; ++batch) {
            if (!db->exec("BEGIN IMMEDIATE"))
                _exit(4);
            for (int i = 0; i < 10; ++i)
                (void)(*engine)->insert(engineRow(100 + batch * 10 + i, "acme", "child row " + std::to_string(batch)));
            if (!db->exec("COMMIT"))
                _exit(5);
            const bool last = batch == 9;
            if (last && GetParam() == KillAt::AfterSqliteCommit)
                raise(SIGKILL);
            if (!(*engine)->applyCommitted())
                _exit(6);
            if (last)
                raise(SIGKILL);
        }
        _exit(7);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "child exit " << WEXITSTATUS(status);

    reopen();
    EXPECT_FALSE(m_engine->opening().rebuilt) << m_engine->opening().rebuildReason;
    EXPECT_EQ(find("before"), (std::vector<std::int64_t> { 1 }));
    EXPECT_EQ(find("child").size(), 100u);
    for (int batch = 0; batch < 10; ++batch)
        EXPECT_EQ(find("child " + std::to_string(batch)).size(), 10u) << batch;
}

INSTANTIATE_TEST_SUITE_P(KillPoints, XapianEngineKillTest,
    ::testing::Values(KillAt::AfterSqliteCommit, KillAt::AfterIndexCommit),
    [](const ::testing::TestParamInfo<KillAt>& point) {
        return point.param == KillAt::AfterSqliteCommit ? std::string("AfterSqliteCommit")
                                                        : std::string("AfterIndexCommit");
    });

} // namespace
