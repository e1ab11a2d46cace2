// The conformance suite of MetadataStore: every backend passes the same cases.
//
// A backend is a traits struct:
//   static std::string uri(const TempDir& dir)
//       the URI of a fresh, empty store for one test. It is called more than once per test and
//       must name the same store each time (an etcd backend derives its key prefix from the
//       directory's unique name and ignores the directory otherwise).
//   static std::optional<std::string> unavailable()
//       a reason to skip the suite (e.g. no etcd binary), or nullopt.
//   static constexpr std::chrono::milliseconds kShortTtl
//       a lease TTL the backend honours, short enough to wait out in a test.
// Adding a backend is a traits struct and one more entry in Backends.

#include "core/map/map_editor.h"
#include "core/store/audit_chain.h"
#include "core/store/metadata_store.h"
#include "core/util/clock.h"
#include "tests/core/test_helpers.h"
#include "tests/support/etcd_process.h"
#include "tests/support/test_dir.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <gtest/gtest.h>
#include <latch>
#include <mutex>
#include <thread>

using namespace shardmap::core;
using shardmap::testing::errorText;
using namespace std::chrono_literals;
using shardmap::testing::TempDir;

namespace {

struct SqliteBackend {
    static std::string uri(const TempDir& dir) { return "sqlite:" + dir.file("map.db"); }
    static std::optional<std::string> unavailable() { return std::nullopt; }
    static constexpr std::chrono::milliseconds kShortTtl { 150 };
};

// A real etcd server on loopback, one per test binary; each test's map lives under a prefix of its
// own. CI installs etcd, so a missing or broken etcd fails every case here (loudly, not skipped)
// unless SHARDMAP_ALLOW_NO_ETCD=1 says that this machine is not expected to have it.
struct EtcdBackend {
    static std::string uri(const TempDir& dir)
    {
        std::string ignored;
        const auto* etcd = shardmap::testing::EtcdProcess::shared(ignored);
        const auto name = std::filesystem::path(dir.path()).filename().string();
        return "etcd://" + (etcd ? etcd->endpoint() : std::string("127.0.0.1:1")) + "/shardmap-test/" + name;
    }
    static std::optional<std::string> unavailable()
    {
        std::string error;
        if (shardmap::testing::EtcdProcess::shared(error))
            return std::nullopt;
        const char* allowed = std::getenv("SHARDMAP_ALLOW_NO_ETCD");
        if (!allowed || std::string(allowed) != "1")
            ADD_FAILURE() << "the etcd backend cannot be tested: " << error
                          << " (set SHARDMAP_ALLOW_NO_ETCD=1 to skip these cases instead)";
        return error;
    }
    static constexpr std::chrono::milliseconds kShortTtl { 150 };
};

using Backends = ::testing::Types<SqliteBackend, EtcdBackend>;

Mutation put(std::string key, std::string value, std::optional<std::uint64_t> expectModRevision = std::nullopt)
{
    return Mutation { std::move(key), std::move(value), expectModRevision };
}

Mutation erase(std::string key, std::optional<std::uint64_t> expectModRevision = std::nullopt)
{
    return Mutation { std::move(key), std::nullopt, expectModRevision };
}

CommitRequest request(std::vector<Mutation> mutations, std::string action = "test")
{
    CommitRequest result;
    result.mutations = std::move(mutations);
    result.actor = "tester";
    result.action = std::move(action);
    result.reason = "conformance";
    return result;
}

// Collects what a watch delivers, for the test thread to wait on.
class Collector {
public:
    WatchCallback callback()
    {
        return [this](const AuditRecord& record) {
            std::lock_guard lock(m_mutex);
            m_records.push_back(record);
            m_changed.notify_all();
        };
    }
    WatchErrorCallback errorCallback()
    {
        return [this](const Error& error) {
            std::lock_guard lock(m_mutex);
            m_errors.push_back(error);
            m_changed.notify_all();
        };
    }
    bool waitForCount(std::size_t count, std::chrono::milliseconds timeout = 20s)
    {
        std::unique_lock lock(m_mutex);
        return m_changed.wait_for(lock, timeout, [&] { return m_records.size() >= count; });
    }
    std::vector<AuditRecord> records() const
    {
        std::lock_guard lock(m_mutex);
        return m_records;
    }
    std::vector<std::uint64_t> revisions() const
    {
        std::vector<std::uint64_t> out;
        for (const auto& record : records())
            out.push_back(record.revision);
        return out;
    }
    std::size_t errorCount() const
    {
        std::lock_guard lock(m_mutex);
        return m_errors.size();
    }

private:
    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    std::vector<AuditRecord> m_records;
    std::vector<Error> m_errors;
};

std::vector<std::uint64_t> oneTo(std::uint64_t last, std::uint64_t first = 1)
{
    std::vector<std::uint64_t> out;
    for (auto revision = first; revision <= last; ++revision)
        out.push_back(revision);
    return out;
}

// One successful read-modify-CAS increment of "counter"; false on an error other than Conflict.
bool incrementCounter(MetadataStore& store, const std::string& actor)
{
    while (true) {
        auto listed = store.list("counter");
        if (!listed)
            return false;
        const auto found = listed->records.find("counter");
        const bool exists = found != listed->records.end();
        const auto value = exists ? std::stoull(found->second.value) : 0;
        auto cas = request(
            { put("counter", std::to_string(value + 1), exists ? found->second.modRevision : 0) }, "increment");
        cas.actor = actor;
        auto committed = store.commit(cas);
        if (committed)
            return true;
        if (committed.error().code != ErrorCode::Conflict)
            return false;
    }
}

template <typename Backend> class StoreConformance : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (auto reason = Backend::unavailable())
            GTEST_SKIP() << *reason;
        m_store = openInstance();
        ASSERT_TRUE(m_store);
    }

    // Another client of the same store (another process, controller or console).
    std::unique_ptr<MetadataStore> openInstance()
    {
        auto store = openStore(Backend::uri(m_dir), true);
        EXPECT_TRUE(store) << errorText(store.error());
        return store ? std::move(*store) : nullptr;
    }

    std::uint64_t commit(std::vector<Mutation> mutations)
    {
        auto revision = m_store->commit(request(std::move(mutations)));
        EXPECT_TRUE(revision) << errorText(revision.error());
        return revision ? *revision : 0;
    }

    Error refused(const CommitRequest& cas, ErrorCode expected)
    {
        auto revision = m_store->commit(cas);
        EXPECT_FALSE(revision) << "committed revision " << (revision ? *revision : 0);
        if (revision)
            return {};
        EXPECT_EQ(revision.error().code, expected) << errorText(revision.error());
        return revision.error();
    }

    StoreSnapshot snapshot()
    {
        auto snap = m_store->snapshot();
        EXPECT_TRUE(snap) << errorText(snap.error());
        return snap ? *snap : StoreSnapshot {};
    }

    std::vector<AuditRecord> history(std::uint64_t from = 0, std::uint64_t to = 0, std::size_t limit = 0)
    {
        auto records = m_store->history(from, to, limit);
        EXPECT_TRUE(records) << errorText(records.error());
        return records ? *records : std::vector<AuditRecord> {};
    }

    std::unique_ptr<WatchHandle> watch(std::uint64_t from, Collector& collector)
    {
        auto handle = m_store->watch(from, collector.callback(), collector.errorCallback());
        EXPECT_TRUE(handle) << errorText(handle.error());
        return handle ? std::move(*handle) : nullptr;
    }

    LeaseGrant acquire(const std::string& holder, std::chrono::milliseconds ttl = 10s)
    {
        auto grant = m_store->acquireLease("leader", holder, ttl);
        EXPECT_TRUE(grant) << errorText(grant.error());
        return grant ? *grant : LeaseGrant {};
    }

    TempDir m_dir;
    std::unique_ptr<MetadataStore> m_store;
};

TYPED_TEST_SUITE(StoreConformance, Backends);

TYPED_TEST(StoreConformance, CommitSnapshotAndListBasics)
{
    EXPECT_EQ(this->snapshot().revision, 0u);
    EXPECT_TRUE(this->snapshot().records.empty());
    EXPECT_FALSE(this->m_store->describe().empty());

    EXPECT_EQ(this->commit({ put("spaces/acme", "s1"), put("spaces/globex", "s2"), put("nodes/n1", "{}") }), 1u);
    auto snap = this->snapshot();
    EXPECT_EQ(snap.revision, 1u);
    ASSERT_EQ(snap.records.size(), 3u);
    EXPECT_EQ(snap.records.at("spaces/acme"), (StoredRecord { "spaces/acme", "s1", 1, 1 }));

    EXPECT_EQ(this->commit({ put("spaces/acme", "s3") }), 2u);
    auto spaces = this->m_store->list("spaces/");
    ASSERT_TRUE(spaces) << errorText(spaces.error());
    EXPECT_EQ(spaces->revision, 2u);
    ASSERT_EQ(spaces->records.size(), 2u);
    EXPECT_EQ(spaces->records.at("spaces/acme"), (StoredRecord { "spaces/acme", "s3", 1, 2 }));
    EXPECT_EQ(spaces->records.at("spaces/globex"), (StoredRecord { "spaces/globex", "s2", 1, 1 }));

    auto none = this->m_store->list("shards/");
    ASSERT_TRUE(none);
    EXPECT_EQ(none->revision, 2u);
    EXPECT_TRUE(none->records.empty());
}

TYPED_TEST(StoreConformance, RevisionsAreConsecutive)
{
    for (std::uint64_t i = 1; i <= 10; ++i)
        EXPECT_EQ(this->commit({ put("k" + std::to_string(i % 3), std::to_string(i)) }), i);
    auto current = this->m_store->currentRevision();
    ASSERT_TRUE(current);
    EXPECT_EQ(*current, 10u);
    EXPECT_EQ(this->snapshot().revision, 10u);
}

TYPED_TEST(StoreConformance, AuditRecordsSayWhoWhenWhatAndWhy)
{
    const auto before = nowUnixMs();
    this->commit({ put("spaces/acme", "v1") });
    auto move = request({ put("spaces/acme", "v2"), put("spaces/globex", "g1") }, "move-space");
    move.actor = "alice";
    move.reason = "rebalance shard s-07";
    ASSERT_TRUE(this->m_store->commit(move));
    this->commit({ erase("spaces/acme") });
    const auto after = nowUnixMs();

    const auto records = this->history();
    ASSERT_EQ(records.size(), 3u);
    EXPECT_EQ(records[0].changes, (std::vector<RecordChange> { { "spaces/acme", std::nullopt, "v1" } }));
    EXPECT_EQ(records[1].revision, 2u);
    EXPECT_EQ(records[1].actor, "alice");
    EXPECT_EQ(records[1].action, "move-space");
    EXPECT_EQ(records[1].reason, "rebalance shard s-07");
    EXPECT_GE(records[1].unixMs, before);
    EXPECT_LE(records[1].unixMs, after);
    EXPECT_EQ(records[1].changes,
        (std::vector<RecordChange> { { "spaces/acme", "v1", "v2" }, { "spaces/globex", std::nullopt, "g1" } }));
    EXPECT_EQ(records[2].changes, (std::vector<RecordChange> { { "spaces/acme", "v2", std::nullopt } }));
}

// Each record links to the one before by hash (core/store/audit_chain.h), also when the commits come
// through different clients of the store; the watch delivers the hashes history() returns.
TYPED_TEST(StoreConformance, EveryAuditRecordIsLinkedToTheOneBeforeByItsHash)
{
    Collector collector;
    auto handle = this->watch(0, collector);
    this->commit({ put("spaces/acme", "v1"), put("nodes/n1", "{}") });
    auto other = this->openInstance();
    ASSERT_TRUE(other);
    ASSERT_TRUE(other->commit(request({ put("spaces/acme", "v2") })));
    this->commit({ erase("spaces/acme") });
    ASSERT_TRUE(other->commit(request({ put("access/policy", "{}") })));

    const auto records = this->history();
    ASSERT_EQ(records.size(), 4u);
    std::string previous;
    for (const auto& record : records) {
        EXPECT_EQ(record.hash, auditChainHash(auditChainPrevious(previous), record)) << "revision " << record.revision;
        previous = record.hash;
    }
    ASSERT_TRUE(collector.waitForCount(4));
    const auto delivered = collector.records();
    for (std::size_t i = 0; i < records.size(); ++i)
        EXPECT_EQ(delivered[i].hash, records[i].hash) << "revision " << records[i].revision;

    auto report = verifyAuditChain(*this->m_store, true);
    ASSERT_TRUE(report) << errorText(report.error());
    EXPECT_FALSE(report->broken) << report->broken->message;
    EXPECT_EQ(report->records, 4u);
    EXPECT_EQ(report->liveRecords, 2u);
    EXPECT_EQ(report->chainStart, 1u);
    EXPECT_EQ(report->headHash, records.back().hash);
}

TYPED_TEST(StoreConformance, StaleExpectRevisionIsAConflictThatAppliesNothing)
{
    this->commit({ put("spaces/acme", "1") });
    this->commit({ put("spaces/globex", "1") });
    auto cas = request({ put("spaces/initech", "1") });
    cas.expectRevision = 1;
    const auto error = this->refused(cas, ErrorCode::Conflict);
    EXPECT_NE(error.message.find("spaces/globex"), std::string::npos) << error.message;
    EXPECT_EQ(error.details.at("current_revision"), "2");
    const auto snap = this->snapshot();
    EXPECT_EQ(snap.revision, 2u);
    EXPECT_EQ(snap.records.count("spaces/initech"), 0u);

    cas.expectRevision = 2;
    auto committed = this->m_store->commit(cas);
    ASSERT_TRUE(committed) << errorText(committed.error());
    EXPECT_EQ(*committed, 3u);
}

TYPED_TEST(StoreConformance, StaleExpectModRevisionIsAConflictNamingTheKey)
{
    this->commit({ put("spaces/acme", "1") });
    this->commit({ put("spaces/acme", "2") });
    this->commit({ put("nodes/n1", "x") });
    const auto before = this->snapshot();

    const auto error
        = this->refused(request({ put("spaces/acme", "3", 1), put("spaces/new", "1") }), ErrorCode::Conflict);
    EXPECT_NE(error.message.find("spaces/acme"), std::string::npos) << error.message;
    EXPECT_NE(error.message.find('2'), std::string::npos) << "names the current mod revision: " << error.message;
    EXPECT_EQ(error.details.at("current_revision"), "3");
    const auto missing = this->refused(request({ put("spaces/ghost", "1", 5) }), ErrorCode::Conflict);
    EXPECT_NE(missing.message.find("spaces/ghost"), std::string::npos) << missing.message;
    EXPECT_EQ(this->snapshot().records, before.records);
    EXPECT_EQ(this->snapshot().revision, before.revision);

    EXPECT_EQ(this->commit({ put("spaces/acme", "3", 2) }), 4u);
    EXPECT_EQ(this->snapshot().records.at("spaces/acme").modRevision, 4u);
}

TYPED_TEST(StoreConformance, ExpectModRevisionZeroMeansMustNotExist)
{
    EXPECT_EQ(this->commit({ put("nodes/n1", "a", 0) }), 1u);
    const auto error = this->refused(request({ put("nodes/n1", "b", 0) }), ErrorCode::Conflict);
    EXPECT_NE(error.message.find("nodes/n1"), std::string::npos) << error.message;
    EXPECT_EQ(this->snapshot().records.at("nodes/n1").value, "a");
}

TYPED_TEST(StoreConformance, DeleteRemovesTheRecordAndRecreateStartsOver)
{
    this->commit({ put("shards/s1", "a") });
    this->refused(request({ erase("shards/s1", 7) }), ErrorCode::Conflict);
    EXPECT_EQ(this->commit({ erase("shards/s1", 1) }), 2u);
    EXPECT_EQ(this->snapshot().records.count("shards/s1"), 0u);
    EXPECT_EQ(this->commit({ put("shards/s1", "b", 0) }), 3u);
    EXPECT_EQ(this->snapshot().records.at("shards/s1"), (StoredRecord { "shards/s1", "b", 3, 3 }));
}

TYPED_TEST(StoreConformance, MalformedCommitsAreRefused)
{
    this->refused(request({}), ErrorCode::InvalidArgument);
    this->refused(request({ put("", "x") }), ErrorCode::InvalidArgument);
    this->refused(request({ put("k", "1"), erase("k") }), ErrorCode::InvalidArgument);
    EXPECT_EQ(this->snapshot().revision, 0u);
}

TYPED_TEST(StoreConformance, CasRaceHasExactlyOneWinnerPerRevision)
{
    constexpr int kThreads = 8;
    constexpr int kIncrements = 25;
    std::vector<std::unique_ptr<MetadataStore>> stores;
    for (int i = 0; i < kThreads; ++i)
        stores.push_back(this->openInstance());
    std::latch start(kThreads);
    std::atomic<int> failures { 0 };
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i) {
        threads.emplace_back([&, i] {
            start.arrive_and_wait();
            for (int n = 0; n < kIncrements; ++n)
                failures
                    += incrementCounter(*stores[static_cast<std::size_t>(i)], "thread-" + std::to_string(i)) ? 0 : 1;
        });
    }
    for (auto& thread : threads)
        thread.join();
    ASSERT_EQ(failures, 0);

    const auto total = std::uint64_t { kThreads * kIncrements };
    const auto snap = this->snapshot();
    EXPECT_EQ(snap.revision, total);
    EXPECT_EQ(snap.records.at("counter").value, std::to_string(total));
    const auto records = this->history();
    ASSERT_EQ(records.size(), total);
    for (std::uint64_t i = 0; i < total; ++i) {
        ASSERT_EQ(records[i].changes.size(), 1u) << "revision " << records[i].revision;
        const auto& change = records[i].changes[0];
        EXPECT_EQ(change.before, i == 0 ? std::nullopt : std::optional(std::to_string(i)));
        EXPECT_EQ(change.after, std::to_string(i + 1));
    }
}

TYPED_TEST(StoreConformance, HistoryRangesAndLimit)
{
    for (int i = 1; i <= 10; ++i)
        this->commit({ put("k", std::to_string(i)) });
    const auto revisionsOf = [](const std::vector<AuditRecord>& records) {
        std::vector<std::uint64_t> out;
        for (const auto& record : records)
            out.push_back(record.revision);
        return out;
    };
    EXPECT_EQ(revisionsOf(this->history()), oneTo(10));
    EXPECT_EQ(revisionsOf(this->history(3, 7)), oneTo(7, 4));
    EXPECT_EQ(revisionsOf(this->history(0, 0, 3)), oneTo(3));
    EXPECT_EQ(revisionsOf(this->history(8)), oneTo(10, 9));
    EXPECT_EQ(revisionsOf(this->history(4, 0, 2)), oneTo(6, 5));
    EXPECT_TRUE(this->history(10).empty());
    EXPECT_TRUE(this->history(20).empty());
    EXPECT_EQ(this->history(4, 5)[0].changes[0].after, "5");
}

TYPED_TEST(StoreConformance, WatchFromZeroDeliversEveryRevisionInOrderWhileWritersCommit)
{
    constexpr int kWriters = 4;
    constexpr int kCommits = 30;
    constexpr std::uint64_t kBacklog = 5;
    for (std::uint64_t i = 0; i < kBacklog; ++i)
        this->commit({ put("backlog", std::to_string(i)) });
    Collector collector;
    auto handle = this->watch(0, collector);
    // Half the writers share the watched client, half are other clients of the same store.
    std::vector<std::unique_ptr<MetadataStore>> others;
    for (int i = 0; i < kWriters / 2; ++i)
        others.push_back(this->openInstance());
    std::vector<std::thread> writers;
    std::atomic<int> failures { 0 };
    for (int w = 0; w < kWriters; ++w) {
        MetadataStore& store = w % 2 == 0 ? *this->m_store : *others[static_cast<std::size_t>(w / 2)];
        writers.emplace_back([&store, &failures, w] {
            for (int i = 0; i < kCommits; ++i)
                failures += store.commit(request({ put("writer/" + std::to_string(w), std::to_string(i)) })) ? 0 : 1;
        });
    }
    for (auto& writer : writers)
        writer.join();
    ASSERT_EQ(failures, 0);

    const std::uint64_t total = kBacklog + kWriters * kCommits;
    ASSERT_TRUE(collector.waitForCount(total)) << "got " << collector.records().size() << " of " << total;
    EXPECT_EQ(collector.revisions(), oneTo(total));
    const auto delivered = collector.records();
    const auto stored = this->history();
    for (std::size_t i = 0; i < stored.size() && i < delivered.size(); ++i) {
        EXPECT_EQ(delivered[i].changes, stored[i].changes) << "revision " << stored[i].revision;
        EXPECT_EQ(delivered[i].hash, stored[i].hash) << "revision " << stored[i].revision;
    }
    EXPECT_EQ(collector.errorCount(), 0u);
    // Racing writers on several clients still leave one unbroken chain.
    auto report = verifyAuditChain(*this->m_store, true);
    ASSERT_TRUE(report) << errorText(report.error());
    EXPECT_FALSE(report->broken) << report->broken->message;
}

TYPED_TEST(StoreConformance, WatchResumesFromTheMiddle)
{
    for (int i = 1; i <= 10; ++i)
        this->commit({ put("k", std::to_string(i)) });
    Collector collector;
    auto handle = this->watch(6, collector);
    ASSERT_TRUE(collector.waitForCount(4));
    this->commit({ put("k", "11") });
    this->commit({ put("k", "12") });
    ASSERT_TRUE(collector.waitForCount(6));
    EXPECT_EQ(collector.revisions(), oneTo(12, 7));
    EXPECT_EQ(collector.records().back().changes[0].after, "12");
}

TYPED_TEST(StoreConformance, WatchFromAheadOfTheStoreStartsOnceTheRevisionIsReached)
{
    this->commit({ put("k", "1") });
    Collector collector;
    auto handle = this->watch(3, collector);
    this->commit({ put("k", "2") });
    this->commit({ put("k", "3") });
    this->commit({ put("k", "4") });
    ASSERT_TRUE(collector.waitForCount(1));
    this->commit({ put("k", "5") });
    ASSERT_TRUE(collector.waitForCount(2));
    EXPECT_EQ(collector.revisions(), oneTo(5, 4));
}

TYPED_TEST(StoreConformance, DestroyingAWatchStopsItsCallbacks)
{
    Collector collector;
    auto handle = this->watch(0, collector);
    this->commit({ put("k", "1") });
    ASSERT_TRUE(collector.waitForCount(1));
    handle.reset();
    this->commit({ put("k", "2") });
    this->commit({ put("k", "3") });
    std::this_thread::sleep_for(200ms);
    EXPECT_EQ(collector.revisions(), oneTo(1));
}

TYPED_TEST(StoreConformance, DestroyingAWatchWaitsForTheCallbackInProgress)
{
    std::atomic<bool> entered { false };
    std::atomic<bool> finished { false };
    auto handle = this->m_store->watch(
        0,
        [&](const AuditRecord&) {
            entered = true;
            std::this_thread::sleep_for(200ms);
            finished = true;
        },
        nullptr);
    ASSERT_TRUE(handle) << errorText(handle.error());
    this->commit({ put("k", "1") });
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!entered && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(1ms);
    ASSERT_TRUE(entered);
    handle->reset();
    EXPECT_TRUE(finished);
}

TYPED_TEST(StoreConformance, SnapshotsNeverMixTwoRevisions)
{
    constexpr int kCommits = 200;
    std::atomic<bool> done { false };
    std::atomic<int> torn { 0 };
    std::atomic<int> reads { 0 };
    const auto reader = [&](bool useList) {
        auto store = this->openInstance();
        while (!done) {
            auto snap = useList ? store->list("") : store->snapshot();
            if (!snap) {
                ++torn;
                continue;
            }
            ++reads;
            const auto a = snap->records.find("pair/a");
            const auto b = snap->records.find("pair/b");
            const bool bothAbsent = a == snap->records.end() && b == snap->records.end();
            const bool consistent = a != snap->records.end() && b != snap->records.end()
                && a->second.value == b->second.value && a->second.modRevision == snap->revision
                && b->second.modRevision == snap->revision;
            torn += bothAbsent || consistent ? 0 : 1;
        }
    };
    std::thread snapshots(reader, false);
    std::thread lists(reader, true);
    for (int i = 1; i <= kCommits; ++i)
        this->commit({ put("pair/a", std::to_string(i)), put("pair/b", std::to_string(i)) });
    done = true;
    snapshots.join();
    lists.join();
    EXPECT_EQ(torn, 0);
    EXPECT_GT(reads, 0);
}

TYPED_TEST(StoreConformance, LeaseIsExclusiveAndRenewedByItsHolder)
{
    const auto before = nowUnixMs();
    const auto grant = this->acquire("ctl-a");
    EXPECT_EQ(grant.name, "leader");
    EXPECT_EQ(grant.holder, "ctl-a");
    EXPECT_GE(grant.token, 1u);
    EXPECT_GE(grant.expiresUnixMs, before + 10000);

    auto refused = this->m_store->acquireLease("leader", "ctl-b", 10s);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ErrorCode::FailedPrecondition);
    EXPECT_NE(refused.error().message.find("ctl-a"), std::string::npos) << refused.error().message;

    EXPECT_EQ(this->acquire("ctl-a").token, grant.token);
    auto renewed = this->m_store->renewLease(grant, 20s);
    ASSERT_TRUE(renewed) << errorText(renewed.error());
    EXPECT_EQ(renewed->token, grant.token);
    EXPECT_GE(renewed->expiresUnixMs, before + 20000);
    EXPECT_EQ(this->snapshot().revision, 0u) << "lease changes are not map revisions";
    EXPECT_TRUE(this->history().empty());
}

TYPED_TEST(StoreConformance, ExpiredLeaseIsTakenOverAndTheOldHolderIsFenced)
{
    const auto ttl = TypeParam::kShortTtl;
    const auto old = this->acquire("ctl-a", ttl);
    std::this_thread::sleep_for(ttl + 100ms);
    const auto current = this->acquire("ctl-b", 10s);
    EXPECT_EQ(current.token, old.token + 1);

    auto renewed = this->m_store->renewLease(old, 10s);
    ASSERT_FALSE(renewed) << "the old holder renewed a lost lease";
    EXPECT_EQ(renewed.error().code, ErrorCode::FailedPrecondition);

    auto fenced = request({ put("spaces/acme", "s1") });
    fenced.fence = old;
    this->refused(fenced, ErrorCode::FailedPrecondition);
    EXPECT_EQ(this->snapshot().revision, 0u);
    EXPECT_TRUE(this->snapshot().records.empty());

    fenced.fence = current;
    auto committed = this->m_store->commit(fenced);
    ASSERT_TRUE(committed) << errorText(committed.error());
    EXPECT_EQ(*committed, 1u);
}

TYPED_TEST(StoreConformance, ExpiredLeaseFencesItsOwnHolder)
{
    const auto grant = this->acquire("ctl-a", TypeParam::kShortTtl);
    std::this_thread::sleep_for(TypeParam::kShortTtl + 100ms);
    auto fenced = request({ put("k", "v") });
    fenced.fence = grant;
    this->refused(fenced, ErrorCode::FailedPrecondition);
    EXPECT_EQ(this->snapshot().revision, 0u);
}

TYPED_TEST(StoreConformance, ReleasedLeaseIsFreeAndCannotBeRenewed)
{
    const auto grant = this->acquire("ctl-a");
    ASSERT_TRUE(this->m_store->releaseLease(grant));
    const auto next = this->acquire("ctl-b");
    EXPECT_EQ(next.token, grant.token + 1);
    auto renewed = this->m_store->renewLease(grant, 10s);
    ASSERT_FALSE(renewed);
    EXPECT_EQ(renewed.error().code, ErrorCode::FailedPrecondition);
    EXPECT_TRUE(this->m_store->releaseLease(grant)) << "releasing a lost lease changes nothing";
    auto refused = this->m_store->acquireLease("leader", "ctl-a", 10s);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("ctl-b"), std::string::npos) << refused.error().message;
}

TYPED_TEST(StoreConformance, LiveLeasesListsHeldLeasesUnderAPrefixOnly)
{
    using namespace std::chrono_literals;
    ASSERT_TRUE(this->m_store->acquireLease("replicas/a#1", "10.0.0.1:7500", 10s));
    const auto b = this->m_store->acquireLease("replicas/b#2", "10.0.0.2:7500", 10s);
    ASSERT_TRUE(b);
    ASSERT_TRUE(this->m_store->acquireLease("replicas/c#3", "10.0.0.3:7500", TypeParam::kShortTtl));
    ASSERT_TRUE(this->m_store->acquireLease("replicasX", "elsewhere", 10s));
    ASSERT_TRUE(this->m_store->acquireLease("executor", "a#1", 10s));
    std::this_thread::sleep_for(TypeParam::kShortTtl + 100ms);
    ASSERT_TRUE(this->m_store->releaseLease(*b));

    auto live = this->m_store->liveLeases("replicas/");
    ASSERT_TRUE(live) << live.error().describe();
    ASSERT_EQ(live->size(), 1u) << "released and expired leases, and other prefixes, are not listed";
    EXPECT_EQ((*live)[0].name, "replicas/a#1");
    EXPECT_EQ((*live)[0].holder, "10.0.0.1:7500");
    EXPECT_GT((*live)[0].token, 0u);
    auto executor = this->m_store->liveLeases(std::string("executor"));
    ASSERT_TRUE(executor);
    ASSERT_EQ(executor->size(), 1u);
    EXPECT_EQ((*executor)[0].holder, "a#1");
    auto none = this->m_store->liveLeases("nothing/");
    ASSERT_TRUE(none);
    EXPECT_TRUE(none->empty());
}

TYPED_TEST(StoreConformance, ExpiredPresenceLeasesAreRemovedWhenAnotherIsGranted)
{
    using namespace std::chrono_literals;
    // A shardmapd run's presence lease, left by a crash (expired) and by a clean stop (released).
    const auto crashed = this->m_store->acquireLease("replicas/a#1", "10.0.0.1:7500", TypeParam::kShortTtl);
    ASSERT_TRUE(crashed);
    const auto stopped = this->m_store->acquireLease("replicas/b#2", "10.0.0.2:7500", 10s);
    ASSERT_TRUE(stopped);
    ASSERT_TRUE(this->m_store->releaseLease(*stopped));
    const auto executor = this->m_store->acquireLease("executor", "a#1", TypeParam::kShortTtl);
    ASSERT_TRUE(executor);
    std::this_thread::sleep_for(TypeParam::kShortTtl + 100ms);

    ASSERT_TRUE(this->m_store->acquireLease("replicas/c#3", "10.0.0.3:7500", 10s));

    // A removed lease granted again starts over; one still stored would have its next token.
    auto again = this->m_store->acquireLease("replicas/a#1", "10.0.0.1:7500", 10s);
    ASSERT_TRUE(again) << again.error().describe();
    EXPECT_EQ(again->token, 1u) << "the expired presence lease was not removed";
    auto restarted = this->m_store->acquireLease("replicas/b#2", "10.0.0.2:7500", 10s);
    ASSERT_TRUE(restarted) << restarted.error().describe();
    EXPECT_EQ(restarted->token, 1u) << "the released presence lease was not removed";
    auto taken = this->m_store->acquireLease("executor", "b#2", 10s);
    ASSERT_TRUE(taken) << taken.error().describe();
    EXPECT_EQ(taken->token, executor->token + 1) << "the executor lease's token keeps growing";
    auto live = this->m_store->liveLeases("replicas/");
    ASSERT_TRUE(live);
    EXPECT_EQ(live->size(), 3u);
}

} // namespace

// A shard's index engine (issue 29) is kept in its record, and a record written before engines
// were a choice (no "engine") is an FTS5 shard, as every shard then was; written back, it says so.
TYPED_TEST(StoreConformance, AShardsEngineIsKeptAndARecordFromBeforeEnginesIsFts5)
{
    MapEditor editor(*this->m_store);
    const Actor actor { "tester", "engines" };
    ASSERT_TRUE(editor.addNode({ "n1", "127.0.0.1:1", {}, false }, actor));
    ASSERT_TRUE(editor.addShard({ "s-x", "n1", ShardState::Active, 0, 0, IndexEngine::Xapian }, actor));
    this->commit({ put(keys::shard("s-old"),
        R"({"id":"s-old","node":"n1","state":"active","capacity_docs":0,"capacity_bytes":0})", 0) });

    auto other = this->openInstance();
    ASSERT_TRUE(other);
    const auto readMap = [&]() {
        auto raw = other->snapshot();
        EXPECT_TRUE(raw) << errorText(raw.error());
        auto map = raw ? MapSnapshot::decode(*raw) : Result<MapSnapshot>(raw.error());
        EXPECT_TRUE(map) << errorText(map.error());
        return map ? *map : MapSnapshot {};
    };
    MapSnapshot map = readMap();
    ASSERT_TRUE(map.shard("s-x") && map.shard("s-old"));
    EXPECT_EQ(map.shard("s-x")->engine, IndexEngine::Xapian);
    EXPECT_EQ(map.shard("s-old")->engine, IndexEngine::Fts5);

    ASSERT_TRUE(editor.setShardState("s-old", ShardState::Draining, actor));
    auto listed = other->list(keys::shard("s-old"));
    ASSERT_TRUE(listed);
    EXPECT_NE(listed->records.at(keys::shard("s-old")).value.find(R"("engine":"fts5")"), std::string::npos);
    map = readMap();
    EXPECT_EQ(map.shard("s-old")->engine, IndexEngine::Fts5);
    EXPECT_EQ(map.shard("s-old")->state, ShardState::Draining);
}

// A shard's copies, its replication factor and a node's zone (issue 30) survive both stores; records
// from before replicas read as a shard without copies taking the fleet's factor (1 by default), and
// a stored copy in a state nobody knows is refused with the record's key rather than guessed.
TYPED_TEST(StoreConformance, ShardCopiesAndZonesAreKeptAndOldRecordsHaveNone)
{
    MapEditor editor(*this->m_store);
    const Actor actor { "tester", "replicas" };
    NodeRecord zoned { "n1", "127.0.0.1:1", {}, false };
    zoned.zone = "eu-1a";
    ASSERT_TRUE(editor.addNode(zoned, actor));
    ShardRecord copied { "s-r", "n1", ShardState::Active, 0, 0, IndexEngine::Fts5 };
    copied.replicas = { { "n2", CopyState::InSync, 0, 0, 1700000000000, "" },
        { "n3", CopyState::CatchingUp, 40, 100, 1700000000500, "refused a write: disk full" } };
    copied.replicationFactor = 3;
    copied.allowSameZone = true;
    ASSERT_TRUE(editor.addShard(copied, actor));
    this->commit({ put(keys::shard("s-old"),
        R"({"id":"s-old","node":"n1","state":"active","capacity_docs":0,"capacity_bytes":0})", 0) });

    auto other = this->openInstance();
    ASSERT_TRUE(other);
    auto raw = other->snapshot();
    ASSERT_TRUE(raw) << errorText(raw.error());
    auto map = MapSnapshot::decode(*raw);
    ASSERT_TRUE(map) << errorText(map.error());
    ASSERT_TRUE(map->shard("s-r") && map->shard("s-old") && map->node("n1"));
    EXPECT_EQ(*map->shard("s-r"), copied);
    EXPECT_EQ(map->node("n1")->zone, "eu-1a");
    EXPECT_FALSE(map->node("n1")->lost);
    EXPECT_EQ(map->shard("s-r")->inSyncNodes(), (std::vector<std::string> { "n1", "n2" }));
    ASSERT_NE(map->shard("s-r")->replicaOn("n3"), nullptr);
    EXPECT_EQ(map->shard("s-r")->replicaOn("n3")->docsDone, 40u);
    EXPECT_EQ(map->shard("s-r")->replicaOn("n1"), nullptr) << "the primary is not a replica";
    EXPECT_TRUE(map->shard("s-old")->replicas.empty());
    EXPECT_EQ(map->shard("s-old")->replicationFactor, 0u);
    EXPECT_EQ(map->settings.value.replicationFactorOf(*map->shard("s-old")), 1u);
    EXPECT_EQ(map->settings.value.replicationFactorOf(*map->shard("s-r")), 3u);
    EXPECT_EQ(map->settings.value.writeQuorum, WriteQuorum::All);
    MigrationSettings settings;
    settings.replicationFactor = 2;
    settings.writeQuorum = WriteQuorum::Majority;
    auto decoded = decodeMigrationSettings(encode(settings));
    ASSERT_TRUE(decoded) << errorText(decoded.error());
    EXPECT_EQ(*decoded, settings);
    EXPECT_FALSE(decodeMigrationSettings(R"({"write_quorum":"most"})"));

    this->commit({ put(keys::shard("s-bad"),
        R"({"id":"s-bad","node":"n1","state":"active","replicas":[{"node":"n2","state":"syncing"}]})", 0) });
    raw = other->snapshot();
    ASSERT_TRUE(raw);
    auto bad = MapSnapshot::decode(*raw);
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("unknown copy state"), std::string::npos) << errorText(bad.error());
}
