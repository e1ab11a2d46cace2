// FleetConnection against real shard nodes and a real SQLite shard map: the map arrives and
// follows commits, every node streams metrics, a killed node is reported and comes back, a
// store that cannot be opened is retried with backoff, and nothing arrives after close().
#include "tests/support/etcd_process.h"
#include "tests/support/fleet_test.h"
#include "tests/widgets/wait_for.h"
#include "widgets/session/fleet_connection.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QThread>
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
    auto* etcd = testing::EtcdProcess::shared(error);
    ASSERT_TRUE(etcd) << "etcd is needed for this test and did not start: " << error;
    m_storeUri = "etcd://" + etcd->endpoint() + "/" + std::filesystem::path(m_dir.path()).filename().string();
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
