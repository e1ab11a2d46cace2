// Several shardmapd replicas on one shard map: all route, exactly one runs the executor, and a
// replica that lost its lease (killed, or stopped past its TTL) cannot act when it comes back.
#include "core/migration/migration_history.h"
#include "core/migration/migration_requests.h"
#include "node_test_helpers.h"
#include "tests/support/controller_process.h"
#include "tests/support/etcd_process.h"
#include "tests/support/fleet_test.h"
#include "tests/support/sqlite_store_lock.h"
#include "tests/support/tcp_proxy.h"
#include "tests/support/workload.h"

#include <algorithm>
#include <csignal>

using namespace shardmap;
using namespace shardmap::testing;

namespace {

// Runs on each store backend: "sqlite" (one file) and "etcd" (a real etcd server on loopback,
// shared by the tests of this binary, a fresh key prefix per test).
class MultiControllerTest : public FleetTest<::testing::TestWithParam<std::string>> {
protected:
    void SetUp() override
    {
        if (GetParam() == "etcd") {
            std::string error;
            ASSERT_TRUE(useSharedEtcd(error)) << "etcd is needed for this test and did not start: " << error;
        }
        startFleet(2);
        core::MigrationSettings settings;
        settings.rollbackWindowSeconds = 0;
        settings.backfillBatch = 50;
        core::MigrationRequests requests(*m_store, m_pool);
        ASSERT_TRUE(requests.setSettings(settings, m_actor));
    }

    std::unique_ptr<ControllerProcess> replica(const std::string& id, const std::vector<std::string>& env = {})
    {
        return ControllerProcess::start(
            m_dir.file(id + ".stderr.log"), { "--store", storeUri(), "--id", id, "--lease-ttl-ms", "1500" }, env);
    }

    // The SQLite store's file, or empty on etcd.
    std::string sqliteStorePath() const { return GetParam() == "sqlite" ? m_dir.file("map.db") : std::string(); }

    core::MigrationRecord migration(const std::string& id)
    {
        auto map = core::MapSnapshot::decode(*m_store->snapshot());
        return map->migrations.at(id).value;
    }

    // Commits made by one replica after a revision.
    std::vector<core::AuditRecord> commitsBy(const std::string& replicaId, std::uint64_t after)
    {
        std::vector<core::AuditRecord> out;
        const auto history = m_store->history(after, 0, 0);
        for (const auto& record : *history) {
            if (record.actor == "shardmapd/" + replicaId)
                out.push_back(record);
        }
        return out;
    }
};

} // namespace

TEST_P(MultiControllerTest, AStoppedLeaderIsReplacedMidBackfillAndCannotActWhenItWakes)
{
    // Both replicas copy slowly, so the backfill spans the takeover.
    const std::vector<std::string> slow { "SHARDMAP_FAILPOINTS=migration.backfill.batch=sleep(60)" };
    auto a = replica("a", slow);
    ASSERT_TRUE(a);
    ASSERT_TRUE(pollUntil(std::chrono::seconds(5), [&] { return a->leads(); }));
    auto b = replica("b", slow);
    ASSERT_TRUE(b);
    Workload workload(
        { { "acme" }, 1500, 1, 4, 0.2, std::chrono::milliseconds(5), 21 }, { routerServicePath(b->address()) });
    ASSERT_TRUE(workload.prefill()) << workload.lastError();
    const std::string source = core::MapSnapshot::decode(*m_store->snapshot())->space("acme")->shard;
    const std::string target = source == "s0" ? "s1" : "s0";
    workload.start();
    core::MigrationRequests requests(*m_store, m_pool);
    auto queued = requests.queue("acme", target, m_actor);
    ASSERT_TRUE(queued) << queued.error().describe();
    ASSERT_TRUE(pollUntil(std::chrono::seconds(20), [&] { return migration(queued->id).progress.docsDone >= 200; }));

    // Frozen outside a commit: on an SQLite store a process stopped inside one keeps the file's
    // write lock, and no one can take the lease over until it runs (see sqlite_store_lock.h).
    ASSERT_TRUE(stopOutsideSqliteCommit(a->process(), sqliteStorePath()));
    const auto stoppedAt = std::chrono::steady_clock::now();
    const auto cursorAtStop = migration(queued->id).progress.docsDone;
    ASSERT_TRUE(pollUntil(std::chrono::seconds(10), [&] { return b->leads(); })) << b->stderrText();
    const auto takeover = std::chrono::steady_clock::now() - stoppedAt;
    EXPECT_LT(takeover, std::chrono::milliseconds(1500 + 1500 / 3 + 1000)) << "within the lease TTL and a tick";
    const auto revisionAtTakeover = *m_store->currentRevision();
    // b resumes from the persisted cursor, not from the start.
    ASSERT_TRUE(pollUntil(std::chrono::seconds(20), [&] {
        for (const auto& record : commitsBy("b", 0)) {
            if (record.action == "migration-progress")
                return true;
        }
        return false;
    })) << b->stderrText();
    EXPECT_GE(migration(queued->id).progress.docsDone, cursorAtStop);

    a->process().signal(SIGCONT);
    ASSERT_TRUE(pollUntil(std::chrono::seconds(60), [&] { return !migration(queued->id).active(); }))
        << b->stderrText();
    workload.stop();
    ASSERT_TRUE(workload.settle(std::chrono::seconds(20))) << workload.lastError();

    EXPECT_EQ(migration(queued->id).phase, core::MigrationPhase::Done) << migration(queued->id).error;
    EXPECT_TRUE(commitsBy("a", revisionAtTakeover).empty()) << "the old leader wrote after losing its lease";
    EXPECT_FALSE(a->leads());
    const auto record = *core::MapSnapshot::decode(*m_store->snapshot())->space("acme");
    EXPECT_EQ(record.shard, target);
    EXPECT_EQ(compareWithModel(*nodeOf(target), target, "acme", workload.model("acme")), std::vector<std::string> {});
    EXPECT_EQ(rowsOf(*nodeOf(source), source, "acme"), 0u);
}

TEST_P(MultiControllerTest, AKilledLeaderIsReplacedWithinTheLeaseAndTheBackfillResumesFromItsCursor)
{
    const std::vector<std::string> slow { "SHARDMAP_FAILPOINTS=migration.backfill.batch=sleep(60)" };
    auto a = replica("a", slow);
    ASSERT_TRUE(a);
    ASSERT_TRUE(pollUntil(std::chrono::seconds(5), [&] { return a->leads(); }));
    auto b = replica("b", slow);
    ASSERT_TRUE(b);
    Workload workload(
        { { "acme" }, 1500, 2, 4, 0.2, std::chrono::milliseconds(5), 22 }, { routerServicePath(b->address()) });
    ASSERT_TRUE(workload.prefill()) << workload.lastError();
    const std::string source = core::MapSnapshot::decode(*m_store->snapshot())->space("acme")->shard;
    const std::string target = source == "s0" ? "s1" : "s0";
    workload.start();
    core::MigrationRequests requests(*m_store, m_pool);
    auto queued = requests.queue("acme", target, m_actor);
    ASSERT_TRUE(queued) << queued.error().describe();
    ASSERT_TRUE(pollUntil(std::chrono::seconds(20), [&] { return migration(queued->id).progress.docsDone >= 300; }));

    a->process().signal(SIGKILL);
    const auto killedAt = std::chrono::steady_clock::now();
    const auto cursorAtKill = migration(queued->id).progress.docsDone;
    const auto revisionAtKill = *m_store->currentRevision();
    // The first step of the new leader: a commit by b after the kill.
    ASSERT_TRUE(pollUntil(std::chrono::seconds(10), [&] { return !commitsBy("b", revisionAtKill).empty(); }))
        << b->stderrText();
    EXPECT_LT(std::chrono::steady_clock::now() - killedAt, std::chrono::milliseconds(1500 + 1500 / 3 + 1000));
    // Its first commit writes the migration (and may append to its history beside it).
    const auto first = commitsBy("b", revisionAtKill).front();
    const auto migrationKey = std::string(core::keys::kMigrations) + queued->id;
    const auto change = std::find_if(
        first.changes.begin(), first.changes.end(), [&](const core::RecordChange& c) { return c.key == migrationKey; });
    ASSERT_NE(change, first.changes.end()) << first.action;
    for (const auto& other : first.changes)
        EXPECT_TRUE(other.key == migrationKey || other.key.starts_with(core::keys::kMigrationHistory)) << other.key;
    ASSERT_TRUE(change->after);
    auto resumed = core::decodeMigration(*change->after);
    ASSERT_TRUE(resumed);
    // Resumed from the cursor: its first progress already counts what a had copied.
    EXPECT_GE(resumed->progress.docsDone, cursorAtKill);
    EXPECT_GT(resumed->progress.docsDone, 0u);

    ASSERT_TRUE(pollUntil(std::chrono::seconds(60), [&] { return !migration(queued->id).active(); }))
        << b->stderrText();
    workload.stop();
    ASSERT_TRUE(workload.settle(std::chrono::seconds(20))) << workload.lastError();
    EXPECT_EQ(migration(queued->id).phase, core::MigrationPhase::Done) << migration(queued->id).error;
    EXPECT_EQ(compareWithModel(*nodeOf(target), target, "acme", workload.model("acme")), std::vector<std::string> {});
    EXPECT_EQ(rowsOf(*nodeOf(source), source, "acme"), 0u);
}

TEST_P(MultiControllerTest, ALeaderCutOffFromTheStoreStopsSayingItLeadsWhenItsLeaseEnds)
{
    if (GetParam() != "etcd")
        GTEST_SKIP() << "an SQLite store is a local file: it cannot be cut off";
    // a reaches etcd through a proxy that can drop the network; b directly.
    std::string error;
    auto proxy = TcpProxy::start(m_storeUri.substr(7, m_storeUri.find('/', 7) - 7), error);
    ASSERT_TRUE(proxy) << error;
    const std::string viaProxy = "etcd://" + proxy->address() + m_storeUri.substr(m_storeUri.find('/', 7));
    auto a = ControllerProcess::start(
        m_dir.file("a.stderr.log"), { "--store", viaProxy, "--id", "a", "--lease-ttl-ms", "1500" });
    ASSERT_TRUE(a);
    ASSERT_TRUE(pollUntil(std::chrono::seconds(5), [&] { return a->leads(); }));
    auto b = replica("b");
    ASSERT_TRUE(b);

    proxy->blackhole();
    const auto cutAt = std::chrono::steady_clock::now();
    // a's renewals wait on etcd (up to its 30 s retry budget): its lease ends all the same.
    ASSERT_TRUE(pollUntil(std::chrono::seconds(10), [&] { return !a->leads(); })) << a->stderrText();
    const auto steppedDown = std::chrono::steady_clock::now() - cutAt;
    EXPECT_LT(steppedDown, std::chrono::milliseconds(1500 + 1500 / 3 + 500));
    ASSERT_TRUE(pollUntil(std::chrono::seconds(10), [&] { return b->leads(); })) << b->stderrText();
    EXPECT_FALSE(a->leads()) << "two replicas say they lead";
    EXPECT_NE(a->stderrText().find("the executor lease expired while renewing"), std::string::npos);

    // Back on the network, a stays a standby: b holds the lease.
    proxy->restore();
    std::this_thread::sleep_for(std::chrono::seconds(2));
    EXPECT_FALSE(a->leads());
    EXPECT_TRUE(b->leads());
}

TEST_P(MultiControllerTest, EveryReplicaRoutesAndSeesAMapChangeWithinASecond)
{
    auto a = replica("a");
    auto b = replica("b");
    ASSERT_TRUE(a && b);
    WritePath viaA = routerServicePath(a->address());
    std::vector<core::ItemResult> results;
    std::string error;
    core::Document doc { "acme", "d1", 1, { { "body", "hello" } }, false };
    ASSERT_TRUE(viaA({ doc }, results, error)) << error;
    // A hand move committed to the store reaches b's router through its watch.
    const std::string shard = core::MapSnapshot::decode(*m_store->snapshot())->space("acme")->shard;
    core::MapEditor editor(*m_store);
    const auto moved = editor.reassignSpace("acme", shard == "s0" ? "s1" : "s0", m_actor);
    ASSERT_TRUE(moved) << moved.error().describe();
    const auto committedAt = std::chrono::steady_clock::now();
    auto channel = grpc::CreateChannel(b->address(), grpc::InsecureChannelCredentials());
    auto stub = v1::Router::NewStub(channel);
    const bool seen = pollUntil(std::chrono::seconds(1), [&] {
        v1::ResolveRequest request;
        request.set_space("acme");
        v1::ResolveResponse response;
        grpc::ClientContext context;
        context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(1));
        return stub->Resolve(&context, request, &response).ok() && response.epoch() == moved->epoch;
    });
    EXPECT_TRUE(seen) << "b did not see the change within a second";
    EXPECT_LT(std::chrono::steady_clock::now() - committedAt, std::chrono::milliseconds(1000));
}

INSTANTIATE_TEST_SUITE_P(Stores, MultiControllerTest, ::testing::Values("sqlite", "etcd"),
    [](const ::testing::TestParamInfo<std::string>& test) { return test.param; });
