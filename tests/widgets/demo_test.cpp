// Demo mode against the real binaries: DemoFleet starts 3 nodes and shardmapd and hands over a
// shard map the console opens, the load generator's documents become searchable through the
// router, stop() leaves no child alive, a killed console takes its children with it, and a
// missing binary is named.
#include "core/balancer/balancer_policy.h"
#include "shardmap/v1/router.grpc.pb.h"
#include "tests/widgets/wait_for.h"
#include "widgets/demo/demo_fleet.h"
#include "widgets/demo/load_generator.h"
#include "widgets/session/fleet_connection.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThread>
#include <cerrno>
#include <csignal>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

namespace shardmap::widgets {
namespace {

using testing::waitFor;

// Gone, or a zombie waiting for a reaper that is not ours to be (an orphan's new parent).
bool processGone(qint64 pid)
{
    if (::kill(static_cast<pid_t>(pid), 0) == -1 && errno == ESRCH)
        return true;
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return true;
    const QByteArray text = stat.readAll();
    const qsizetype close = text.lastIndexOf(')');
    return close < 0 || text.mid(close + 2, 1) == "Z";
}

QList<qint64> childrenOf(qint64 parent)
{
    QList<qint64> children;
    const auto entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& entry : entries) {
        bool numeric = false;
        const qint64 pid = entry.toLongLong(&numeric);
        QFile stat(QStringLiteral("/proc/%1/stat").arg(entry));
        if (!numeric || !stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray text = stat.readAll();
        const auto fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
        if (fields.size() > 1 && fields[1].toLongLong() == parent && fields[0] != "Z")
            children << pid;
    }
    return children;
}

// Points DemoFleet at the binaries of this build, and restores the environment afterwards.
class DemoTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        qputenv("SHARDMAP_NODE_BINARY", SHARDMAP_DEMO_NODE_BINARY);
        qputenv("SHARDMAP_CONTROLLER_BINARY", SHARDMAP_DEMO_CONTROLLER_BINARY);
    }
    void TearDown() override
    {
        qunsetenv("SHARDMAP_NODE_BINARY");
        qunsetenv("SHARDMAP_CONTROLLER_BINARY");
    }
};

TEST_F(DemoTest, FleetStartsServesLoadAndStopsEveryChild)
{
    DemoFleet fleet;
    QSignalSpy ready(&fleet, &DemoFleet::ready);
    QSignalSpy failed(&fleet, &DemoFleet::failed);
    QSignalSpy progress(&fleet, &DemoFleet::progress);
    fleet.start();
    ASSERT_TRUE(waitFor([&] { return ready.count() + failed.count() > 0; }));
    ASSERT_EQ(failed.count(), 0) << failed.first().first().toString().toStdString();
    EXPECT_GE(progress.count(), 4);
    const auto pids = fleet.childPids();
    ASSERT_EQ(pids.size(), 4); // three nodes and shardmapd
    EXPECT_FALSE(fleet.routerAddress().isEmpty());

    // The spec it hands over is one the console opens: three nodes, two shards each.
    const auto spec = ready.first().first().value<ConnectionSpec>();
    FleetConnection connection;
    connection.open(spec);
    ASSERT_TRUE(waitFor([&] { return connection.map() && connection.map()->nodes.size() == 3; }))
        << connection.lastError().toStdString();
    EXPECT_EQ(connection.map()->shards.size(), 6u);
    EXPECT_TRUE(waitFor([&] { return connection.nodeLink(QStringLiteral("node-3")).reachable; }));
    // The balancer decides in dry run: its page shows what it would do, it moves nothing.
    auto balancer = core::readBalancerPolicy(*connection.store());
    ASSERT_TRUE(balancer) << balancer.error().describe();
    EXPECT_EQ(balancer->value.mode, core::BalancerMode::DryRun);

    // The load generator writes through the router; what it wrote is found through the router.
    LoadGenerator::Options options;
    options.routerAddress = fleet.routerAddress().toStdString();
    options.docsPerSecond = 200;
    options.searchesPerSecond = 10;
    LoadGenerator load(options);
    load.start();
    ASSERT_TRUE(waitFor([&] { return load.writes() >= 100 && load.searches() >= 2; })) << load.lastError();
    load.stop();
    const auto written = load.writes();
    EXPECT_EQ(load.errors(), 0u) << load.lastError();

    auto stub = v1::Router::NewStub(grpc::CreateChannel(options.routerAddress, grpc::InsecureChannelCredentials()));
    v1::RouterSearchRequest request;
    request.add_spaces(LoadGenerator::spaceName(1));
    request.set_query("item");
    request.set_limit(1000);
    v1::RouterSearchResponse response;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    const auto status = stub->Search(&context, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_GT(response.hits_size(), 0);
    EXPECT_EQ(response.hits(0).space(), LoadGenerator::spaceName(1));
    // Zipf: the largest space holds a good share of all documents (1/H(40) ≈ 23 % on average).
    EXPECT_GE(static_cast<std::uint64_t>(response.hits_size()) * 10, written);
    EXPECT_EQ(load.writes(), written);

    connection.close();
    fleet.stop();
    for (const qint64 pid : pids)
        EXPECT_TRUE(processGone(pid)) << "child " << pid << " is still alive after stop()";
}

TEST_F(DemoTest, MissingBinaryIsNamed)
{
    for (const auto& [variable, name] : { std::pair { "SHARDMAP_NODE_BINARY", "shardmap-node" },
             std::pair { "SHARDMAP_CONTROLLER_BINARY", "shardmapd" } }) {
        const QByteArray missing = QByteArray("/nonexistent/") + name;
        qputenv(variable, missing);
        DemoFleet fleet;
        QSignalSpy failed(&fleet, &DemoFleet::failed);
        QSignalSpy ready(&fleet, &DemoFleet::ready);
        fleet.start();
        ASSERT_TRUE(waitFor([&] { return failed.count() > 0; }));
        const QString error = failed.first().first().toString();
        EXPECT_TRUE(error.contains(QLatin1String(name))) << error.toStdString();
        EXPECT_TRUE(error.contains(QString::fromLatin1(missing))) << error.toStdString();
        EXPECT_EQ(ready.count(), 0);
        EXPECT_TRUE(fleet.childPids().isEmpty());
        SetUp();
    }
}

// A console killed with SIGKILL runs no cleanup at all: its children must end by themselves
// (PR_SET_PDEATHSIG set by DemoFleet, --exit-with-parent in the binaries).
TEST_F(DemoTest, KilledConsoleLeavesNoOrphans)
{
    QTemporaryDir home;
    QProcess console;
    auto environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    environment.insert(QStringLiteral("HOME"), home.path());
    environment.insert(QStringLiteral("XDG_CONFIG_HOME"), home.filePath(QStringLiteral("config")));
    environment.insert(QStringLiteral("XDG_DATA_HOME"), home.filePath(QStringLiteral("data")));
    console.setProcessEnvironment(environment);
    console.setProcessChannelMode(QProcess::MergedChannels);
    console.start(QStringLiteral(SHARDMAP_DEMO_CONSOLE_BINARY), { QStringLiteral("--demo") });
    ASSERT_TRUE(console.waitForStarted());
    QByteArray output;
    const bool started = waitFor([&] {
        output += console.readAll();
        return output.contains("fleet ready") || console.state() == QProcess::NotRunning;
    });
    ASSERT_TRUE(started && output.contains("fleet ready")) << output.toStdString();
    const auto children = childrenOf(console.processId());
    EXPECT_EQ(children.size(), 4) << output.toStdString();

    ::kill(static_cast<pid_t>(console.processId()), SIGKILL);
    ASSERT_TRUE(console.waitForFinished(10000));
    for (const qint64 pid : children)
        EXPECT_TRUE(waitFor([&] { return processGone(pid); }, 20000)) << "orphan " << pid << " survived";
}

} // namespace
} // namespace shardmap::widgets
