// SQLite-only cases of the metadata store: opening errors, persistence, locking, and two real
// processes on one file (store_test_helper): a CAS race and SIGKILL in the middle of a commit.

#include "core/map/shard_map.h"
#include "core/store/audit_chain.h"
#include "core/store/sqlite_store.h"
#include "tests/core/test_helpers.h"
#include "tests/support/process.h"
#include "tests/support/test_dir.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <random>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace shardmap::core;
using shardmap::testing::errorText;
using namespace std::chrono_literals;
using shardmap::testing::ChildProcess;
using shardmap::testing::readWholeFile;
using shardmap::testing::TempDir;

namespace {

// Every file in a directory with its size, a hash of its bytes and its permission bits: "nothing
// changed" means equal.
std::map<std::string, std::string> directoryState(const std::string& dir)
{
    std::map<std::string, std::string> state;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const auto bytes = readWholeFile(entry.path().string());
        const auto perms = static_cast<int>(entry.status().permissions());
        state[entry.path().filename().string()] = "size " + std::to_string(bytes.size()) + " hash "
            + std::to_string(std::hash<std::string> {}(bytes)) + " mode " + std::to_string(perms);
    }
    return state;
}

// Runs SQL on the file with a plain connection, as another tool would.
void rawSql(const std::string& path, const std::string& sql)
{
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* message = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
    EXPECT_EQ(rc, SQLITE_OK) << (message ? message : "");
    sqlite3_free(message);
    sqlite3_close(db);
}

std::string integrityCheck(const std::string& path)
{
    sqlite3* db = nullptr;
    sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &stmt, nullptr);
    std::string result
        = sqlite3_step(stmt) == SQLITE_ROW ? reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)) : "no row";
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return result;
}

// The rows of a table, counted with a plain read-only connection.
int rowCount(const std::string& path, const std::string& table)
{
    sqlite3* db = nullptr;
    sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db, ("SELECT count(*) FROM " + table).c_str(), -1, &stmt, nullptr);
    const int count = sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int(stmt, 0) : -1;
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return count;
}

SqliteStoreOptions shortBusyTimeout()
{
    SqliteStoreOptions options;
    options.busyTimeoutMs = 100;
    return options;
}

CommitRequest sqliteCommit(std::vector<Mutation> mutations)
{
    CommitRequest result;
    result.mutations = std::move(mutations);
    result.actor = "tester";
    result.action = "test";
    return result;
}

class SqliteStoreTest : public ::testing::Test {
protected:
    std::string path() const { return m_dir.file("map.db"); }

    std::unique_ptr<SqliteStore> open(bool create = true, SqliteStoreOptions options = {})
    {
        auto store = SqliteStore::open(path(), create, std::move(options));
        EXPECT_TRUE(store) << errorText(store.error());
        return store ? std::move(*store) : nullptr;
    }

    Error openFails(const std::string& file, bool create, ErrorCode expected)
    {
        auto store = SqliteStore::open(file, create);
        EXPECT_FALSE(store);
        if (store)
            return {};
        EXPECT_EQ(store.error().code, expected) << errorText(store.error());
        return store.error();
    }

    std::optional<ChildProcess> spawnHelper(std::vector<std::string> args)
    {
        args.insert(args.begin(), SHARDMAP_STORE_TEST_HELPER);
        auto child = ChildProcess::spawn(args, m_logs.file("helper.stderr." + std::to_string(m_children++)));
        EXPECT_TRUE(child) << "cannot start " << SHARDMAP_STORE_TEST_HELPER;
        return child;
    }

    // Opens the store in a helper process, as user nobody when the test runs as root (root writes
    // to read-only files anyway). Returns its one line of output.
    std::string openInHelper(const std::string& file, bool create)
    {
        auto child = spawnHelper({ "open", file, create ? "create" : "existing", "--unprivileged" });
        if (!child)
            return "no helper";
        auto line = child->readLine(20s);
        child->wait(20s);
        return line.value_or("no output");
    }

    void makeStoreWithData()
    {
        auto store = open();
        ASSERT_TRUE(store);
        ASSERT_TRUE(store->commit(sqliteCommit({ { "spaces/acme", "s1", std::nullopt } })));
    }

    TempDir m_dir;
    TempDir m_logs; // helper stderr, apart from the store's directory
    int m_children = 0;
};

TEST_F(SqliteStoreTest, RestartedReplicasLeaveNoPresenceRowsBehind)
{
    auto store = open();
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->acquireLease("executor", "r#0", 60s));
    // Each shardmapd run takes a presence lease of its own name and gives it back when it stops.
    for (int run = 1; run <= 20; ++run) {
        auto presence = store->acquireLease("replicas/r#" + std::to_string(run), "127.0.0.1:7500", 60s);
        ASSERT_TRUE(presence) << errorText(presence.error());
        ASSERT_TRUE(store->releaseLease(*presence));
    }
    EXPECT_EQ(rowCount(path(), "leases"), 2) << "the executor's lease and the last run's presence lease";
}

TEST_F(SqliteStoreTest, MissingFileWithoutCreateIsNotFoundAndNothingIsCreated)
{
    const auto error = openFails(path(), false, ErrorCode::NotFound);
    EXPECT_NE(error.message.find("no Shardmap store at " + path()), std::string::npos) << error.message;
    EXPECT_NE(error.message.find("shardmapctl init"), std::string::npos) << error.message;
    EXPECT_TRUE(directoryState(m_dir.path()).empty());
    openFails(m_dir.file("no/such/dir/map.db"), true, ErrorCode::NotFound);
    EXPECT_TRUE(directoryState(m_dir.path()).empty());
}

TEST_F(SqliteStoreTest, RandomBytesAreNotAStoreAndStayUntouched)
{
    std::mt19937 random(7);
    std::string bytes(8192, '\0');
    for (auto& byte : bytes)
        byte = static_cast<char>(random());
    std::ofstream(path(), std::ios::binary) << bytes;
    const auto before = directoryState(m_dir.path());
    for (const bool create : { false, true }) {
        const auto error = openFails(path(), create, ErrorCode::FailedPrecondition);
        EXPECT_NE(error.message.find(path() + " is not a Shardmap store"), std::string::npos) << error.message;
    }
    EXPECT_EQ(directoryState(m_dir.path()), before);
}

TEST_F(SqliteStoreTest, PlainSqliteDatabaseIsNotAStoreAndStaysUntouched)
{
    rawSql(path(), "CREATE TABLE meta(key TEXT PRIMARY KEY, value); INSERT INTO meta VALUES ('schema_version', 1);");
    const auto before = directoryState(m_dir.path());
    for (const bool create : { false, true }) {
        const auto error = openFails(path(), create, ErrorCode::FailedPrecondition);
        EXPECT_NE(error.message.find(path() + " is not a Shardmap store"), std::string::npos) << error.message;
    }
    EXPECT_EQ(directoryState(m_dir.path()), before);
}

TEST_F(SqliteStoreTest, EmptyFileIsInitialisedOnlyWhenCreating)
{
    std::ofstream(path()).close();
    openFails(path(), false, ErrorCode::FailedPrecondition);
    auto store = open(true);
    ASSERT_TRUE(store);
    EXPECT_EQ(*store->currentRevision(), 0u);
}

TEST_F(SqliteStoreTest, NewerSchemaVersionIsRefused)
{
    makeStoreWithData();
    rawSql(path(), "UPDATE meta SET value = 99 WHERE key = 'schema_version'");
    const auto error = openFails(path(), false, ErrorCode::FailedPrecondition);
    EXPECT_NE(error.message.find("store schema version 99 is newer than this build understands (2)"), std::string::npos)
        << error.message;
}

// A store of schema version 1 (before the audit's hash chain) is upgraded when opened: its records
// keep no hash, the first record written after links to the anchor, and the whole audit verifies.
TEST_F(SqliteStoreTest, AVersionOneStoreIsUpgradedAndItsChainStartsAtTheNextCommit)
{
    makeStoreWithData();
    rawSql(path(), "ALTER TABLE audit DROP COLUMN hash; UPDATE meta SET value = 1 WHERE key = 'schema_version'");
    auto store = open(false);
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->commit(sqliteCommit({ { "spaces/acme", "s2", std::nullopt } })));
    auto history = store->history(0, 0, 0);
    ASSERT_TRUE(history);
    ASSERT_EQ(history->size(), 2u);
    EXPECT_EQ((*history)[0].hash, "");
    EXPECT_EQ((*history)[1].hash, auditChainHash(kAuditChainAnchor, (*history)[1]));
    auto report = verifyAuditChain(*store, true);
    ASSERT_TRUE(report) << errorText(report.error());
    EXPECT_FALSE(report->broken) << report->broken->message;
    EXPECT_EQ(report->chainStart, 2u);
    store.reset();

    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path().c_str(), &db), SQLITE_OK);
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'schema_version'", -1, &stmt, nullptr);
    ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int(stmt, 0), SqliteStore::kSchemaVersion);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
}

// A store file written before engines (issue 29) needs no schema step: a shard record is JSON, and
// one without an engine is an FTS5 shard, as every shard then was; through the oldest upgrade too.
TEST_F(SqliteStoreTest, AStoreFromBeforeEnginesKeepsItsShardsFts5)
{
    {
        auto store = open();
        ASSERT_TRUE(store);
        ASSERT_TRUE(store->commit(sqliteCommit({ { keys::shard("s1"),
            R"({"id":"s1","node":"n1","state":"active","capacity_docs":0,"capacity_bytes":0})", 0 } })));
    }
    rawSql(path(), "ALTER TABLE audit DROP COLUMN hash; UPDATE meta SET value = 1 WHERE key = 'schema_version'");
    auto store = open(false);
    ASSERT_TRUE(store);
    auto raw = store->snapshot();
    ASSERT_TRUE(raw) << errorText(raw.error());
    auto map = MapSnapshot::decode(*raw);
    ASSERT_TRUE(map) << errorText(map.error());
    ASSERT_TRUE(map->shard("s1"));
    EXPECT_EQ(map->shard("s1")->engine, IndexEngine::Fts5);
    EXPECT_EQ(map->shard("s1")->node, "n1");
}

TEST_F(SqliteStoreTest, EverythingPersistsAcrossReopen)
{
    {
        auto store = open();
        ASSERT_TRUE(store);
        ASSERT_TRUE(store->commit(sqliteCommit({ { "spaces/acme", "s1", std::nullopt } })));
        ASSERT_TRUE(store->commit(sqliteCommit({ { "spaces/acme", "s2", 1 }, { "nodes/n1", "{}", 0 } })));
        ASSERT_TRUE(store->acquireLease("leader", "ctl-a", 60s));
    }
    auto store = open(false);
    ASSERT_TRUE(store);
    auto snap = store->snapshot();
    ASSERT_TRUE(snap);
    EXPECT_EQ(snap->revision, 2u);
    EXPECT_EQ(snap->records.at("spaces/acme"), (StoredRecord { "spaces/acme", "s2", 1, 2 }));
    auto history = store->history(0, 0, 0);
    ASSERT_TRUE(history);
    ASSERT_EQ(history->size(), 2u);
    EXPECT_EQ(history->at(1).changes.size(), 2u);
    auto refused = store->acquireLease("leader", "ctl-b", 60s);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("ctl-a"), std::string::npos);
    EXPECT_EQ(store->describe(), "sqlite:" + path());
}

TEST_F(SqliteStoreTest, ConcurrentFirstOpensCreateOneStore)
{
    constexpr int kThreads = 6;
    std::vector<std::thread> threads;
    std::atomic<int> failures { 0 };
    for (int i = 0; i < kThreads; ++i)
        threads.emplace_back([&] { failures += SqliteStore::open(path(), true) ? 0 : 1; });
    for (auto& thread : threads)
        thread.join();
    EXPECT_EQ(failures, 0);
    auto store = open(false);
    ASSERT_TRUE(store);
    EXPECT_EQ(*store->currentRevision(), 0u);
}

TEST_F(SqliteStoreTest, StoreLockedByAnotherWriterIsUnavailable)
{
    makeStoreWithData();
    auto store = open(false, shortBusyTimeout());
    ASSERT_TRUE(store);
    sqlite3* other = nullptr;
    ASSERT_EQ(sqlite3_open(path().c_str(), &other), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);

    auto committed = store->commit(sqliteCommit({ { "k", "v", std::nullopt } }));
    ASSERT_FALSE(committed);
    EXPECT_EQ(committed.error().code, ErrorCode::Unavailable);
    EXPECT_NE(committed.error().message.find("store is locked by another process"), std::string::npos)
        << committed.error().message;
    auto lease = store->acquireLease("leader", "ctl-a", 10s);
    ASSERT_FALSE(lease);
    EXPECT_EQ(lease.error().code, ErrorCode::Unavailable);
    EXPECT_TRUE(store->snapshot()) << "readers do not wait for the writer";

    sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(other);
    EXPECT_TRUE(store->commit(sqliteCommit({ { "k", "v", std::nullopt } })));
}

TEST_F(SqliteStoreTest, ReadOnlyFileIsRefusedAndUntouched)
{
    makeStoreWithData();
    ::chmod(path().c_str(), 0444);
    const auto before = directoryState(m_dir.path());
    const auto line = openInHelper(path(), false);
    if (line.starts_with("skip"))
        GTEST_SKIP() << "running as root and " << line.substr(5) << ": chmod does not stop root";
    EXPECT_TRUE(line.starts_with("error\tfailed precondition\t")) << line;
    EXPECT_NE(line.find("read-only"), std::string::npos) << line;
    EXPECT_EQ(directoryState(m_dir.path()), before);
}

TEST_F(SqliteStoreTest, ReadOnlyDirectoryIsRefusedAndUntouched)
{
    const std::string dir = m_dir.file("ro");
    std::filesystem::create_directory(dir);
    {
        auto store = SqliteStore::open(dir + "/map.db", true);
        ASSERT_TRUE(store) << errorText(store.error());
    }
    // The file itself is writable by anyone: only the directory is read-only.
    ::chmod((dir + "/map.db").c_str(), 0666);
    ::chmod(dir.c_str(), 0555);
    const auto before = directoryState(dir);
    const auto existing = openInHelper(dir + "/map.db", false);
    const auto created = openInHelper(dir + "/new.db", true);
    ::chmod(dir.c_str(), 0755);
    if (existing.starts_with("skip"))
        GTEST_SKIP() << "running as root and " << existing.substr(5) << ": chmod does not stop root";
    for (const auto& line : { existing, created }) {
        EXPECT_TRUE(line.starts_with("error\tfailed precondition\t")) << line;
        EXPECT_NE(line.find("read-only"), std::string::npos) << line;
    }
    EXPECT_EQ(directoryState(dir), before);
}

TEST_F(SqliteStoreTest, WatchEndsWithAnErrorWhenTheStoreCloses)
{
    auto store = open();
    ASSERT_TRUE(store);
    std::atomic<int> errors { 0 };
    auto handle = store->watch(
        0, [](const AuditRecord&) {}, [&](const Error&) { ++errors; });
    ASSERT_TRUE(handle);
    store.reset();
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (errors == 0 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(1ms);
    handle->reset();
    EXPECT_EQ(errors, 1);
}

TEST_F(SqliteStoreTest, CallbackMayDestroyItsOwnWatch)
{
    auto store = open();
    ASSERT_TRUE(store);
    std::unique_ptr<WatchHandle> handle;
    std::atomic<bool> ready { false };
    std::atomic<int> calls { 0 };
    auto watch = store->watch(
        0,
        [&](const AuditRecord&) {
            while (!ready)
                std::this_thread::sleep_for(1ms);
            handle.reset(); // from here on only this thread touches handle
            ++calls;
        },
        nullptr);
    ASSERT_TRUE(watch);
    handle = std::move(*watch);
    ready = true;
    ASSERT_TRUE(store->commit(sqliteCommit({ { "k", "1", std::nullopt } })));
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (calls == 0 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(1ms);
    ASSERT_TRUE(store->commit(sqliteCommit({ { "k", "2", std::nullopt } })));
    std::this_thread::sleep_for(100ms);
    EXPECT_EQ(calls, 1);
}

TEST_F(SqliteStoreTest, OpenStoreUnderstandsSqliteUris)
{
    auto store = openStore("sqlite:" + path(), true);
    ASSERT_TRUE(store) << errorText(store.error());
    EXPECT_EQ((*store)->describe(), "sqlite:" + path());
    auto again = openStore("sqlite://" + path(), false);
    EXPECT_TRUE(again) << errorText(again.error());
    for (const std::string uri : { "mysql://127.0.0.1/shardmap", "sqlite:", "map.db" }) {
        auto refused = openStore(uri, true);
        ASSERT_FALSE(refused) << uri;
        EXPECT_EQ(refused.error().code, ErrorCode::InvalidArgument) << uri;
        EXPECT_NE(refused.error().message.find("sqlite:PATH"), std::string::npos) << refused.error().message;
    }
}

TEST_F(SqliteStoreTest, CasRaceBetweenTwoProcessesHasOneWinnerPerRevision)
{
    constexpr int kIncrements = 150;
    auto store = open();
    ASSERT_TRUE(store);
    std::mutex mutex;
    std::vector<std::uint64_t> watched;
    auto handle = store->watch(
        0,
        [&](const AuditRecord& record) {
            std::lock_guard lock(mutex);
            watched.push_back(record.revision);
        },
        nullptr);
    ASSERT_TRUE(handle);
    const std::string goFile = m_dir.file("go");
    std::vector<ChildProcess> children;
    for (int i = 0; i < 2; ++i) {
        auto child = spawnHelper({ "increment", path(), std::to_string(kIncrements), goFile });
        ASSERT_TRUE(child);
        ASSERT_EQ(child->readLine(20s).value_or("timeout"), "ready");
        children.push_back(std::move(*child));
    }
    std::ofstream(goFile).close();
    for (auto& child : children) {
        const auto line = child.readLine(120s).value_or("timeout");
        EXPECT_TRUE(line.starts_with("done " + std::to_string(kIncrements) + " ")) << line;
        EXPECT_EQ(child.wait(20s), 0);
    }

    constexpr std::uint64_t kTotal = 2 * kIncrements;
    auto snap = store->snapshot();
    ASSERT_TRUE(snap);
    EXPECT_EQ(snap->revision, kTotal);
    EXPECT_EQ(snap->records.at("counter").value, std::to_string(kTotal));
    auto history = store->history(0, 0, 0);
    ASSERT_TRUE(history);
    ASSERT_EQ(history->size(), kTotal);
    for (std::uint64_t i = 0; i < kTotal; ++i) {
        ASSERT_EQ(history->at(i).changes.size(), 1u);
        EXPECT_EQ(history->at(i).changes[0].after, std::to_string(i + 1));
    }
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < deadline) {
        {
            std::lock_guard lock(mutex);
            if (watched.size() >= kTotal)
                break;
        }
        std::this_thread::sleep_for(5ms);
    }
    std::lock_guard lock(mutex);
    ASSERT_EQ(watched.size(), kTotal);
    for (std::uint64_t i = 0; i < kTotal; ++i)
        ASSERT_EQ(watched[i], i + 1);
}

TEST_F(SqliteStoreTest, KillNineInTheMiddleOfACommitLeavesNoTornState)
{
    makeStoreWithData();
    auto store = open(false, shortBusyTimeout());
    ASSERT_TRUE(store);
    auto child = spawnHelper({ "hang", path() });
    ASSERT_TRUE(child);
    ASSERT_EQ(child->readLine(20s).value_or("timeout"), "in-transaction")
        << readWholeFile(m_logs.file("helper.stderr.0"));

    // While the writer sits inside its transaction: readers see the last commit, writers wait.
    const auto during = store->snapshot();
    ASSERT_TRUE(during);
    EXPECT_EQ(during->revision, 1u);
    EXPECT_EQ(during->records.size(), 1u);
    auto blocked = store->commit(sqliteCommit({ { "x", "1", std::nullopt } }));
    ASSERT_FALSE(blocked);
    EXPECT_EQ(blocked.error().code, ErrorCode::Unavailable);
    auto opened = SqliteStore::open(path(), false, shortBusyTimeout());
    EXPECT_TRUE(opened) << "opening does not need the write lock: " << errorText(opened.error());

    child->signal(SIGKILL);
    EXPECT_EQ(child->wait(20s), 128 + SIGKILL);

    auto fresh = open(false);
    for (auto* reader : { store.get(), fresh.get() }) {
        ASSERT_TRUE(reader);
        auto after = reader->snapshot();
        ASSERT_TRUE(after) << errorText(after.error());
        EXPECT_EQ(after->revision, 1u);
        EXPECT_EQ(after->records.count("a") + after->records.count("b") + after->records.count("c"), 0u);
        auto history = reader->history(0, 0, 0);
        ASSERT_TRUE(history);
        EXPECT_EQ(history->size(), 1u);
    }
    EXPECT_EQ(integrityCheck(path()), "ok");
    auto committed = store->commit(sqliteCommit({ { "a", "1", 0 } }));
    ASSERT_TRUE(committed) << errorText(committed.error());
    EXPECT_EQ(*committed, 2u);
}

} // namespace
