// FleetConnection against real shard nodes and a real SQLite shard map: the map arrives and
// follows commits, every node streams metrics, a killed node is reported and comes back, a
// store that cannot be opened is retried with backoff, and nothing arrives after close().
#include "core/map/map_editor.h"
#include "tests/support/etcd_process.h"
#include "tests/support/fleet_test.h"
#include "tests/widgets/wait_for.h"
#include "widgets/session/fleet_connection.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QThread>
#include <atomic>
#include <filesystem>

namespace shardmap::widgets {
namespace {

using testing::waitFor;

class FleetConnectionTest : public testing::FleetTest<::testing::Test> {
protected:
    ConnectionSpec spec() const
    {
        ConnectionSpec spec;
        spec.storeUri = QString::fromStdString(storeUri());
        spec.metricsIntervalMs = 200;
        return spec;
    }
};

TEST_F(FleetConnectionTest, MapArrivesAndFollowsCommits)
{
    startFleet(2);
    FleetConnection connection;
    QSignalSpy maps(&connection, &FleetConnection::mapChanged);
    connection.open(spec());
    ASSERT_TRUE(waitFor([&] { return connection.state() == FleetConnection::State::Connected; }))
        << connection.lastError().toStdString();
    ASSERT_TRUE(connection.map());
    EXPECT_EQ(connection.map()->nodes.size(), 2u);
    EXPECT_EQ(connection.map()->shards.size(), 2u);

    // A commit by someone else reaches the console as a new map.
    const std::uint64_t before = connection.map()->revision;
    core::MapEditor editor(*m_store);
    ASSERT_TRUE(editor.addShard({ "s9", "n0", core::ShardState::Active, 0, 0 }, m_actor));
    ASSERT_TRUE(waitFor([&] { return connection.map()->revision > before; }));
    EXPECT_TRUE(connection.map()->shard("s9"));
    EXPECT_GE(maps.count(), 2);
}

// The same console on a shard map kept in a real etcd (started by the test on loopback).
TEST_F(FleetConnectionTest, MapFromEtcdArrivesAndFollowsCommits)
{
    std::string error;
    ASSERT_TRUE(useSharedEtcd(error)) << "etcd is needed for this test and did not start: " << error;
    startFleet(1);
    FleetConnection connection;
    connection.open(spec());
    ASSERT_TRUE(waitFor([&] { return connection.state() == FleetConnection::State::Connected; }))
        << connection.lastError().toStdString();
    EXPECT_EQ(connection.map()->nodes.size(), 1u);
    const std::uint64_t before = connection.map()->revision;
    core::MapEditor editor(*m_store);
    ASSERT_TRUE(editor.addShard({ "s5", "n0", core::ShardState::Active, 0, 0 }, m_actor));
    ASSERT_TRUE(waitFor([&] { return connection.map()->revision > before; }));
    EXPECT_TRUE(connection.map()->shard("s5"));
    EXPECT_TRUE(waitFor([&] { return connection.nodeLink(QStringLiteral("n0")).reachable; }));
}

// The real store, with its whole-map reads counted, and optionally one watched commit kept from
// the connection (a watch that skipped a record: the fault the connection must survive).
class CountingStore final : public core::MetadataStore {
public:
    explicit CountingStore(std::shared_ptr<core::MetadataStore> inner)
        : m_inner(std::move(inner))
    {
    }

    std::atomic<int> snapshots { 0 };
    std::atomic<std::uint64_t> dropRevision { 0 };

    core::Result<core::StoreSnapshot> snapshot() override
    {
        ++snapshots;
        return m_inner->snapshot();
    }
    core::Result<core::StoreSnapshot> list(const std::string& prefix) override { return m_inner->list(prefix); }
    core::Result<std::uint64_t> currentRevision() override { return m_inner->currentRevision(); }
    core::Result<std::uint64_t> commit(const core::CommitRequest& request) override { return m_inner->commit(request); }
    core::Result<std::vector<core::AuditRecord>> history(
        std::uint64_t fromRevision, std::uint64_t toRevision, std::size_t limit) override
    {
        return m_inner->history(fromRevision, toRevision, limit);
    }
    core::Result<std::unique_ptr<core::WatchHandle>> watch(
        std::uint64_t fromRevision, core::WatchCallback onRecord, core::WatchErrorCallback onError) override
    {
        return m_inner->watch(
            fromRevision,
            [this, onRecord = std::move(onRecord)](const core::AuditRecord& record) {
                if (record.revision != dropRevision.load())
                    onRecord(record);
            },
            std::move(onError));
    }
    core::Result<core::LeaseGrant> acquireLease(
        const std::string& name, const std::string& holder, std::chrono::milliseconds ttl) override
    {
        return m_inner->acquireLease(name, holder, ttl);
    }
    core::Result<core::LeaseGrant> renewLease(const core::LeaseGrant& grant, std::chrono::milliseconds ttl) override
    {
        return m_inner->renewLease(grant, ttl);
    }
    core::Status releaseLease(const core::LeaseGrant& grant) override { return m_inner->releaseLease(grant); }
    core::Result<std::vector<core::LeaseGrant>> liveLeases(const std::string& namePrefix) override
    {
        return m_inner->liveLeases(namePrefix);
    }
    std::string describe() const override { return m_inner->describe(); }

private:
    std::shared_ptr<core::MetadataStore> m_inner;
};

// Every store the connection opens is wrapped; counting points at the newest wrapper.
void wrapInCountingStore(FleetConnection& connection, CountingStore*& counting)
{
    connection.setStoreWrapper([&counting](std::shared_ptr<core::MetadataStore> store) {
        auto wrapped = std::make_shared<CountingStore>(std::move(store));
        counting = wrapped.get();
        return wrapped;
    });
}

// The connection's map against one decoded from the store, record by record.
void expectMapIsTheStores(const core::MapSnapshot& shown, core::MetadataStore& store)
{
    auto truth = core::MapSnapshot::decode(*store.snapshot());
    ASSERT_TRUE(truth);
    EXPECT_EQ(shown.revision, truth->revision);
    ASSERT_EQ(shown.shards.size(), truth->shards.size());
    for (const auto& [id, shard] : truth->shards) {
        const auto found = shown.shards.find(id);
        ASSERT_NE(found, shown.shards.end()) << id;
        EXPECT_TRUE(found->second.value == shard.value) << id;
        EXPECT_EQ(found->second.modRevision, shard.modRevision) << id;
    }
    ASSERT_EQ(shown.spaces.size(), truth->spaces.size());
    for (const auto& [id, space] : truth->spaces) {
        const auto found = shown.spaces.find(id);
        ASSERT_NE(found, shown.spaces.end()) << id;
        EXPECT_TRUE(found->second.value == space.value) << id;
    }
}

// Each commit reaches the console as its own audit record applied to the map shown: the whole
// map is read once, at connect (at a million spaces a whole read is seconds per commit).
TEST_F(FleetConnectionTest, CommitsArriveAsTheirRecordsWithoutReadingTheWholeMapAgain)
{
    startFleet(2);
    FleetConnection connection;
    CountingStore* counting = nullptr;
    wrapInCountingStore(connection, counting);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> steps; // (changes from, map revision)
    QObject::connect(&connection, &FleetConnection::mapChanged,
        [&](const MapPtr& map) { steps.emplace_back(map->changes ? map->changes->fromRevision : 0, map->revision); });
    connection.open(spec());
    ASSERT_TRUE(waitFor([&] { return connection.state() == FleetConnection::State::Connected; }))
        << connection.lastError().toStdString();
    ASSERT_NE(counting, nullptr);
    EXPECT_EQ(counting->snapshots.load(), 1);

    core::MapEditor editor(*m_store);
    for (int i = 0; i < 12; ++i) {
        const std::string shard = "s" + std::to_string(10 + i);
        ASSERT_TRUE(editor.addShard({ shard, i % 2 ? "n1" : "n0", core::ShardState::Active, 0, 0 }, m_actor));
        if (i % 3 == 0) {
            ASSERT_TRUE(editor.setShardState(shard, core::ShardState::Draining, m_actor));
        }
    }
    addSpaceRecord("acme", "s10");
    addSpaceRecord("globex", "s11");
    ASSERT_TRUE(editor.reassignSpace("acme", "s12", m_actor));
    ASSERT_TRUE(editor.setShardState("s21", core::ShardState::Retired, m_actor));
    ASSERT_TRUE(editor.removeShard("s21", m_actor));
    const std::uint64_t last = *m_store->currentRevision();
    ASSERT_TRUE(waitFor([&] { return connection.map()->revision == last; }));
    expectMapIsTheStores(*connection.map(), *m_store);
    EXPECT_EQ(counting->snapshots.load(), 1);
    // Every map the pages saw says what changed from the one before it.
    for (std::size_t i = 1; i < steps.size(); ++i) {
        EXPECT_EQ(steps[i].first, steps[i - 1].second) << i;
    }
}

// A watch that skipped a commit cannot be followed record by record: the connection notices the
// gap and reads the whole map, which then holds the skipped commit too.
TEST_F(FleetConnectionTest, AMissingCommitMakesTheConnectionReadTheWholeMap)
{
    startFleet(1);
    FleetConnection connection;
    CountingStore* counting = nullptr;
    wrapInCountingStore(connection, counting);
    connection.open(spec());
    ASSERT_TRUE(waitFor([&] { return connection.state() == FleetConnection::State::Connected; }))
        << connection.lastError().toStdString();
    ASSERT_NE(counting, nullptr);
    counting->dropRevision = *m_store->currentRevision() + 1;

    core::MapEditor editor(*m_store);
    ASSERT_TRUE(editor.addShard({ "s7", "n0", core::ShardState::Active, 0, 0 }, m_actor)); // dropped
    ASSERT_TRUE(editor.addShard({ "s8", "n0", core::ShardState::Active, 0, 0 }, m_actor));
    const std::uint64_t last = *m_store->currentRevision();
    ASSERT_TRUE(waitFor([&] { return connection.map()->revision == last; }));
    EXPECT_TRUE(connection.map()->shard("s7"));
    EXPECT_TRUE(connection.map()->shard("s8"));
    expectMapIsTheStores(*connection.map(), *m_store);
    EXPECT_EQ(counting->snapshots.load(), 2);
}

TEST_F(FleetConnectionTest, EveryNodeStreamsMetricsOnTheUiThread)
{
    startFleet(2);
    FleetConnection connection;
    QSet<QString> seen;
    bool offThread = false;
    QObject::connect(&connection, &FleetConnection::nodeSample, [&](const QString& node, const SamplePtr& sample) {
        offThread |= QThread::currentThread() != QCoreApplication::instance()->thread();
        if (sample && !sample->shards.empty()) {
            seen.insert(node);
        }
    });
    connection.open(spec());
    ASSERT_TRUE(waitFor([&] { return seen.size() == 2; }));
    EXPECT_FALSE(offThread);
    EXPECT_TRUE(connection.nodeLink(QStringLiteral("n0")).reachable);
    ASSERT_TRUE(connection.latestSample(QStringLiteral("n1")));
    EXPECT_EQ(connection.latestSample(QStringLiteral("n1"))->shards.front().shard, "s1");
    EXPECT_GT(connection.newestSampleArrivalMs(), 0);
}

// A UI thread that falls behind (a long map change, a starved CPU) gets each node's newest sample
// once it is back, not every sample the stream delivered meanwhile, and the stream is not taken
// for stale because its samples waited for the UI thread.
TEST_F(FleetConnectionTest, ABusyUiThreadGetsTheNewestSampleNotABacklog)
{
    startFleet(1);
    FleetConnection connection;
    connection.open(spec());
    ASSERT_TRUE(waitFor([&] { return connection.nodeLink(QStringLiteral("n0")).reachable; }));
    std::vector<SamplePtr> samples;
    QObject::connect(&connection, &FleetConnection::nodeSample,
        [&samples](const QString&, const SamplePtr& sample) { samples.push_back(sample); });
    QSignalSpy links(&connection, &FleetConnection::nodeLinkChanged);

    // Busy for longer than the stale-stream limit (5 intervals + 2 s), at 200 ms a sample.
    QThread::msleep(4000);
    const qint64 resumed = QDateTime::currentMSecsSinceEpoch();
    QCoreApplication::processEvents();
    ASSERT_GE(samples.size(), 1u);
    EXPECT_LE(samples.size(), 2u);
    EXPECT_GE(connection.skippedSamples(), 10u);
    ASSERT_TRUE(samples.back());
    EXPECT_GE(samples.back()->unixMs, resumed - 2000); // not the first of the 4 s

    QCoreApplication::processEvents();
    EXPECT_TRUE(links.isEmpty());
    EXPECT_TRUE(connection.nodeLink(QStringLiteral("n0")).reachable);
}

TEST_F(FleetConnectionTest, KilledNodeIsReportedAndComesBackOnRestart)
{
    startFleet(2);
    FleetConnection connection;
    connection.setReconnectBackoff(100, 400);
    connection.open(spec());
    ASSERT_TRUE(waitFor([&] {
        return connection.nodeLink(QStringLiteral("n0")).reachable
            && connection.nodeLink(QStringLiteral("n1")).reachable;
    }));

    QSignalSpy links(&connection, &FleetConnection::nodeLinkChanged);
    const std::string address = m_nodes[1]->address();
    m_nodes[1]->kill9();
    ASSERT_TRUE(waitFor([&] { return !connection.nodeLink(QStringLiteral("n1")).reachable; }));
    const auto lost = connection.nodeLink(QStringLiteral("n1"));
    EXPECT_FALSE(lost.error.isEmpty());
    EXPECT_GT(lost.retryAtMs, 0);
    EXPECT_TRUE(connection.nodeLink(QStringLiteral("n0")).reachable);
    ASSERT_GE(links.count(), 1);
    EXPECT_EQ(links.first().at(0).toString(), QStringLiteral("n1"));
    EXPECT_FALSE(links.first().at(1).toBool());

    m_nodes[1] = testing::NodeProcess::start(m_dataDirs[1], { "--listen", address });
    ASSERT_TRUE(m_nodes[1]);
    ASSERT_TRUE(waitFor([&] { return connection.nodeLink(QStringLiteral("n1")).reachable; }, 30000));
    EXPECT_TRUE(links.last().at(1).toBool());
}

TEST_F(FleetConnectionTest, StoppedNodeIsReportedWhenItsStreamGoesQuiet)
{
    startFleet(1);
    FleetConnection connection;
    connection.setReconnectBackoff(100, 400);
    connection.open(spec());
    ASSERT_TRUE(waitFor([&] { return connection.nodeLink(QStringLiteral("n0")).reachable; }));
    // SIGSTOP keeps the connection open but nothing arrives: the watchdog must notice.
    ASSERT_EQ(::kill(m_nodes[0]->process().pid(), SIGSTOP), 0);
    const bool noticed = waitFor([&] { return !connection.nodeLink(QStringLiteral("n0")).reachable; }, 20000);
    ::kill(m_nodes[0]->process().pid(), SIGCONT);
    ASSERT_TRUE(noticed);
    EXPECT_TRUE(waitFor([&] { return connection.nodeLink(QStringLiteral("n0")).reachable; }, 30000));
}

TEST_F(FleetConnectionTest, MissingStoreIsRetriedUntilItAppears)
{
    FleetConnection connection;
    connection.setReconnectBackoff(100, 300);
    QSignalSpy states(&connection, &FleetConnection::stateChanged);
    connection.open(spec()); // the SQLite file does not exist yet, and the console never creates it
    ASSERT_TRUE(waitFor([&] { return !connection.lastError().isEmpty(); }));
    EXPECT_EQ(connection.state(), FleetConnection::State::Connecting);
    EXPECT_FALSE(std::filesystem::exists(m_dir.file("map.db")));
    const QString detail = states.last().at(1).toString();
    EXPECT_TRUE(detail.contains(QStringLiteral("retrying"))) << detail.toStdString();

    startFleet(1); // creates the store
    ASSERT_TRUE(waitFor([&] { return connection.state() == FleetConnection::State::Connected; }, 30000));
    EXPECT_EQ(connection.map()->nodes.size(), 1u);
}

TEST_F(FleetConnectionTest, NothingArrivesAfterClose)
{
    startFleet(1);
    FleetConnection connection;
    QSignalSpy maps(&connection, &FleetConnection::mapChanged);
    QSignalSpy samples(&connection, &FleetConnection::nodeSample);
    connection.open(spec());
    connection.close(); // before the store even opened: its answer must be dropped
    for (int i = 0; i < 50; ++i) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(10);
    }
    EXPECT_EQ(maps.count(), 0);
    EXPECT_EQ(samples.count(), 0);
    EXPECT_EQ(connection.state(), FleetConnection::State::Disconnected);
    EXPECT_FALSE(connection.map());
}

TEST_F(FleetConnectionTest, HistoryComesFromTheNodeAndUnknownNodesFailClearly)
{
    startFleet(1);
    FleetConnection connection;
    connection.open(spec());
    ASSERT_TRUE(waitFor([&] { return connection.nodeLink(QStringLiteral("n0")).reachable; }));

    std::optional<core::Result<core::MetricsHistoryValue>> history;
    QObject context;
    connection.fetchHistory(QStringLiteral("n0"), 0, &context,
        [&](core::Result<core::MetricsHistoryValue> result) { history = std::move(result); });
    ASSERT_TRUE(waitFor([&] { return history.has_value(); }));
    ASSERT_TRUE(history->ok()) << history->error().describe();
    EXPECT_GT((*history)->intervalMs, 0);

    std::optional<core::Result<core::MetricsHistoryValue>> unknown;
    connection.fetchHistory(QStringLiteral("n42"), 0, &context,
        [&](core::Result<core::MetricsHistoryValue> result) { unknown = std::move(result); });
    ASSERT_TRUE(waitFor([&] { return unknown.has_value(); }));
    ASSERT_FALSE(unknown->ok());
    EXPECT_NE(unknown->error().message.find("n42"), std::string::npos);

    // An answer for a context that is gone is dropped, not delivered to a dangling object.
    bool delivered = false;
    {
        QObject shortLived;
        connection.fetchHistory(
            QStringLiteral("n0"), 0, &shortLived, [&](core::Result<core::MetricsHistoryValue>) { delivered = true; });
    }
    for (int i = 0; i < 100; ++i) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(5);
    }
    EXPECT_FALSE(delivered);
}

} // namespace
} // namespace shardmap::widgets
