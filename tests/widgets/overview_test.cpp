// The overview landing page and the alerts panel (issue 16), offscreen, against a real fleet
// (shardmap-node processes, an SQLite store and, where named, a real shardmapd): the figures
// agree with the fleet, every tile and row leads to its page, alerts fire from real conditions
// (a killed node, no executor, a migration held by a failpoint), notify, are acknowledged and
// clear, and the models pass QAbstractItemModelTester.
#include "core/migration/migration_requests.h"
#include "tests/support/controller_process.h"
#include "tests/support/fleet_test.h"
#include "tests/widgets/console_window.h"
#include "tests/widgets/wait_for.h"
#include "widgets/alerts/alert_monitor.h"
#include "widgets/alerts/alerts_model.h"
#include "widgets/alerts/alerts_page.h"
#include "widgets/charts/time_series_chart.h"
#include "widgets/console/main_window.h"
#include "widgets/detail/detail_page.h"
#include "widgets/fleet/fleet_page.h"
#include "widgets/migrations/migrations_page.h"
#include "widgets/overview/overview_page.h"

#include <QAbstractButton>
#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>

namespace shardmap::widgets {
namespace {

using testing::waitFor;

class OverviewTest : public testing::FleetTest<::testing::Test> {
protected:
    void SetUp() override
    {
        // Alert thresholds are settings: start from the defaults.
        QSettings().remove(QStringLiteral("alerts"));
        QSettings().remove(QStringLiteral("health"));
    }

    void connectWindow(MainWindow& window) { testing::connectWindow(window, storeUri(), 1400, 900); }

    // A space owned by shard with docs documents written to its node.
    void addSpace(const std::string& space, const std::string& shard, int docs)
    {
        addSpaceRecord(space, shard);
        auto node = nodeOf(shard);
        ASSERT_TRUE(node->setOwnership(shard, { space, core::SpaceRole::Owner, 1 }));
        std::vector<core::WriteItem> items;
        for (int i = 0; i < docs; ++i)
            items.push_back({ { space, "d" + std::to_string(i), 1,
                                  { { "title", "hello world" }, { "body", std::string(300, 'b') } }, false },
                1 });
        if (!items.empty()) {
            ASSERT_TRUE(node->bulkWrite(shard, items));
        }
    }

    std::unique_ptr<testing::ControllerProcess> startController(const std::vector<std::string>& env = {})
    {
        auto controller = testing::ControllerProcess::start(
            m_dir.file("c1.stderr.log"), { "--store", storeUri(), "--id", "c1", "--lease-ttl-ms", "1000" }, env);
        EXPECT_TRUE(controller);
        return controller;
    }

    static const core::Alert* firing(const AlertMonitor& monitor, core::AlertKind kind, const std::string& subject = {})
    {
        for (const core::Alert& alert : monitor.firing()) {
            if (alert.kind == kind && (subject.empty() || alert.subject == subject))
                return &alert;
        }
        return nullptr;
    }
};

TEST_F(OverviewTest, TheConsoleOpensOnTheOverviewAndItsFiguresAgreeWithTheFleet)
{
    startFleet(2);
    addSpace("acme", "s0", 30);
    addSpace("globex", "s1", 12);
    addSpace("initech", "s1", 0);
    MainWindow window;
    connectWindow(window);
    OverviewPage* page = window.overviewPage();
    EXPECT_EQ(window.currentPage(), static_cast<QWidget*>(page)) << "the landing page";

    ASSERT_TRUE(waitFor([&] { return page->tile(QStringLiteral("nodes"))->value() == QStringLiteral("2 of 2"); }));
    EXPECT_EQ(page->tile(QStringLiteral("shards"))->value(), QStringLiteral("2"));
    EXPECT_EQ(page->tile(QStringLiteral("shards"))->detail(), QStringLiteral("2 active"));
    EXPECT_EQ(page->tile(QStringLiteral("spaces"))->value(), QStringLiteral("3"));
    ASSERT_TRUE(waitFor([&] { return page->tile(QStringLiteral("documents"))->value() == QStringLiteral("42"); }))
        << page->tile(QStringLiteral("documents"))->value().toStdString();
    EXPECT_TRUE(page->tile(QStringLiteral("size"))->value().contains(QStringLiteral("iB")))
        << "binary units: " << page->tile(QStringLiteral("size"))->value().toStdString();
    EXPECT_TRUE(page->tile(QStringLiteral("disk"))->value().endsWith(QStringLiteral(" %")));
    EXPECT_TRUE(page->tile(QStringLiteral("disk"))->detail().startsWith(QStringLiteral("n")));
    EXPECT_EQ(page->tile(QStringLiteral("migrations"))->value(), QStringLiteral("none running"));
    EXPECT_EQ(page->tile(QStringLiteral("store"))->value(),
        QStringLiteral("revision %1").arg(window.connection()->map()->revision));
    EXPECT_EQ(page->tile(QStringLiteral("store"))->detail(), QString::fromStdString(storeUri()));

    // No shardmapd: the executor tile warns; one starts: it names it and its address.
    ASSERT_TRUE(waitFor([&] { return window.alertMonitor()->leasesKnown(); }));
    page->refresh();
    EXPECT_EQ(page->tile(QStringLiteral("executor"))->value(), QStringLiteral("none"));
    EXPECT_TRUE(page->tile(QStringLiteral("executor"))->warning());
    auto controller = startController();
    ASSERT_TRUE(controller);
    ASSERT_TRUE(waitFor([&] { return page->tile(QStringLiteral("executor"))->value() == QStringLiteral("c1"); }));
    EXPECT_FALSE(page->tile(QStringLiteral("executor"))->warning());
    EXPECT_TRUE(
        page->tile(QStringLiteral("executor"))->detail().contains(QString::fromStdString(controller->address())))
        << page->tile(QStringLiteral("executor"))->detail().toStdString();

    // The hottest shards list every shard here (fewer than ten), and lead to their detail.
    QTableView* shards = page->hottestShards();
    ASSERT_TRUE(waitFor([&] { return shards->model()->rowCount() == 2; }));
    QStringList ids;
    for (int row = 0; row < 2; ++row)
        ids << shards->model()->index(row, 0).data().toString();
    ids.sort();
    EXPECT_EQ(ids, (QStringList { QStringLiteral("s0"), QStringLiteral("s1") }));
    emit shards->activated(shards->model()->index(0, 2));
    EXPECT_EQ(window.currentPage(), static_cast<QWidget*>(window.detailPage()));

    // The hottest spaces, read from the nodes with their figures.
    page->refreshSpaces();
    QTableView* spaces = page->hottestSpaces();
    ASSERT_TRUE(waitFor([&] { return spaces->model()->rowCount() >= 2; }));
    QStringList spaceIds;
    for (int row = 0; row < spaces->model()->rowCount(); ++row)
        spaceIds << spaces->model()->index(row, 0).data().toString();
    EXPECT_TRUE(spaceIds.contains(QStringLiteral("acme")));
    EXPECT_TRUE(spaceIds.contains(QStringLiteral("globex")));
    window.showPage(page);
    emit spaces->activated(spaces->model()->index(spaceIds.indexOf(QStringLiteral("globex")), 0));
    EXPECT_EQ(window.currentPage(), static_cast<QWidget*>(window.detailPage())) << "find-space opens where it lives";

    // Charts of the fleet's rates and disk use fill as figures arrive.
    ASSERT_TRUE(waitFor([&] { return page->diskChart()->storedPointCount(QStringLiteral("disk")) >= 2; }));
    EXPECT_TRUE(page->ratesChart()->seriesKeys().contains(QStringLiteral("writes")));
    EXPECT_TRUE(page->ratesChart()->seriesKeys().contains(QStringLiteral("searches")));

    // Every tile is a click away from its page.
    window.showPage(page);
    emit page->tile(QStringLiteral("migrations"))->activated();
    EXPECT_EQ(window.currentPage(), static_cast<QWidget*>(window.migrationsPage()));
    emit page->tile(QStringLiteral("executor"))->activated();
    EXPECT_EQ(window.currentPage(), static_cast<QWidget*>(window.alertsPage()));
    emit page->tile(QStringLiteral("nodes"))->activated();
    EXPECT_EQ(window.currentPage(), static_cast<QWidget*>(window.fleetPage()));
    for (const QString& name : page->tileNames())
        EXPECT_FALSE(page->tile(name)->accessibleName().isEmpty()) << name.toStdString();
}

// The shards tile says how many shards are under-replicated (yellow) and warns (issue 30).
TEST_F(OverviewTest, TheShardsTileCountsUnderReplicatedShards)
{
    startFleet(2);
    MainWindow window;
    connectWindow(window);
    OverviewPage* page = window.overviewPage();
    ASSERT_TRUE(waitFor([&] { return page->tile(QStringLiteral("nodes"))->value() == QStringLiteral("2 of 2"); }));
    EXPECT_EQ(page->tile(QStringLiteral("shards"))->detail(), QStringLiteral("2 active"));
    EXPECT_FALSE(page->tile(QStringLiteral("shards"))->warning());

    core::MapEditor editor(*m_store);
    ASSERT_TRUE(editor.setReplication("s1", 2, std::nullopt, m_actor));
    ASSERT_TRUE(waitFor([&] {
        page->refresh();
        return page->tile(QStringLiteral("shards"))->detail()
            == QStringLiteral("2 active, 1 under-replicated (yellow)");
    })) << page->tile(QStringLiteral("shards"))->detail().toStdString();
    EXPECT_TRUE(page->tile(QStringLiteral("shards"))->warning());
}

TEST_F(OverviewTest, AKilledNodeFiresNotifiesIsAcknowledgedAndClearsWhenItReturns)
{
    startFleet(2);
    auto controller = startController();
    ASSERT_TRUE(controller);
    MainWindow window;
    connectWindow(window);
    AlertMonitor* monitor = window.alertMonitor();
    QAbstractItemModelTester tester(
        window.alertsPage()->model(), QAbstractItemModelTester::FailureReportingMode::Warning);
    ASSERT_TRUE(waitFor([&] { return window.connection()->nodeLink(QStringLiteral("n1")).reachable; }));
    ASSERT_TRUE(waitFor([&] { return monitor->leasesKnown() && monitor->executor().has_value(); }));
    monitor->evaluateNow();
    EXPECT_TRUE(monitor->firing().empty()) << monitor->firing().front().summary;
    EXPECT_EQ(window.alertsNavigationText(), QStringLiteral("Alerts"));

    QSignalSpy notified(&window, &MainWindow::alertNotified);
    const std::string address = m_nodes[1]->address();
    m_nodes[1]->kill9();
    ASSERT_TRUE(waitFor([&] { return firing(*monitor, core::AlertKind::NodeUnreachable, "n1") != nullptr; }));
    EXPECT_EQ(firing(*monitor, core::AlertKind::NodeUnreachable, "n1")->severity, core::AlertSeverity::Critical);
    ASSERT_TRUE(waitFor([&] { return notified.count() > 0; }));
    EXPECT_TRUE(window.lastNotification().contains(QStringLiteral("n1"))) << window.lastNotification().toStdString();
    EXPECT_EQ(window.alertsNavigationText(), QStringLiteral("Alerts (1)"));
    EXPECT_EQ(window.alertsPage()->summaryText(), QStringLiteral("1 alert firing, 1 not acknowledged."));

    // The overview says so and leads to the node.
    QListWidget* attention = window.overviewPage()->attention();
    ASSERT_EQ(attention->count(), 1);
    EXPECT_TRUE(attention->item(0)->text().contains(QStringLiteral("Node n1 cannot be reached")))
        << attention->item(0)->text().toStdString();
    emit attention->itemActivated(attention->item(0));
    EXPECT_EQ(window.currentPage(), static_cast<QWidget*>(window.detailPage()));

    // Acknowledged on the alerts page: still firing, no longer unacknowledged.
    AlertsPage* alerts = window.alertsPage();
    window.showPage(alerts);
    ASSERT_EQ(alerts->table()->model()->rowCount(), 1);
    EXPECT_FALSE(alerts->acknowledgeButton()->isEnabled()) << "nothing selected";
    alerts->table()->selectRow(0);
    EXPECT_TRUE(alerts->acknowledgeButton()->isEnabled());
    EXPECT_EQ(alerts->acknowledgeSelected(), 1);
    EXPECT_EQ(monitor->log().unacknowledgedCount(), 0u);
    EXPECT_EQ(monitor->log().activeCount(), 1u);
    EXPECT_TRUE(alerts->summaryText().contains(QStringLiteral("all acknowledged")))
        << alerts->summaryText().toStdString();
    EXPECT_TRUE(alerts->table()
                    ->model()
                    ->index(0, AlertsModel::Acknowledged)
                    .data()
                    .toString()
                    .contains(QStringLiteral("@console")));

    // The node comes back: the alert clears and stays in the history, shown with "Show cleared".
    m_nodes[1] = testing::NodeProcess::start(m_dataDirs[1], { "--listen", address });
    ASSERT_TRUE(m_nodes[1]);
    ASSERT_TRUE(waitFor([&] { return monitor->log().activeCount() == 0; }));
    EXPECT_EQ(alerts->table()->model()->rowCount(), 0);
    alerts->setShowCleared(true);
    ASSERT_EQ(alerts->table()->model()->rowCount(), 1);
    EXPECT_FALSE(alerts->table()->model()->index(0, 0).data(AlertsModel::ActiveRole).toBool());
    EXPECT_EQ(window.alertsNavigationText(), QStringLiteral("Alerts"));
    EXPECT_EQ(attention->count(), 1);
    EXPECT_EQ(attention->item(0)->text(), QStringLiteral("Nothing needs attention."));
}

TEST_F(OverviewTest, NoExecutorAndAStalledMigrationFireFromTheMapAndTheLeases)
{
    startFleet(2);
    addSpace("acme", "s0", 50);
    QSettings settings;
    core::AlertThresholds thresholds;
    thresholds.migrationStallSeconds = 2;
    saveAlertThresholds(settings, thresholds);
    MainWindow window;
    connectWindow(window);
    AlertMonitor* monitor = window.alertMonitor();
    EXPECT_EQ(monitor->thresholds().migrationStallSeconds, 2) << "read from the settings";
    ASSERT_TRUE(waitFor([&] { return firing(*monitor, core::AlertKind::NoExecutor) != nullptr; }));
    EXPECT_EQ(firing(*monitor, core::AlertKind::NoExecutor)->severity, core::AlertSeverity::Warning);

    // A migration queued while no executor runs makes it critical.
    core::MigrationRequests requests(*m_store, m_pool);
    auto queued = requests.queue("acme", "s1", m_actor, 100);
    ASSERT_TRUE(queued) << queued.error().describe();
    ASSERT_TRUE(waitFor([&] {
        const auto* none = firing(*monitor, core::AlertKind::NoExecutor);
        return none && none->severity == core::AlertSeverity::Critical;
    }));

    // An executor whose first backfill batch hangs: the executor alert clears, the stall fires.
    auto controller = startController({ "SHARDMAP_FAILPOINTS=migration.backfill.batch=sleep(6000)@1" });
    ASSERT_TRUE(controller);
    ASSERT_TRUE(waitFor([&] { return firing(*monitor, core::AlertKind::MigrationStalled, queued->id) != nullptr; }));
    EXPECT_EQ(firing(*monitor, core::AlertKind::NoExecutor), nullptr);
    EXPECT_TRUE(AlertsModel::describe(*firing(*monitor, core::AlertKind::MigrationStalled))
                    .contains(QStringLiteral("made no progress")));
    // It moves again and finishes: cleared.
    ASSERT_TRUE(waitFor([&] { return monitor->log().activeCount() == 0; }));
}

TEST_F(OverviewTest, AlertThresholdsRoundTripThroughTheSettings)
{
    QSettings settings;
    core::AlertThresholds thresholds;
    thresholds.migrationStallSeconds = 77;
    thresholds.etaWindowSeconds = 600;
    thresholds.etaGrowthPercent = 25;
    thresholds.etaGrowthMinSeconds = 0;
    thresholds.failedLookbackSeconds = 3600;
    thresholds.shardFillWarningPercent = 80;
    thresholds.health.diskUsedWarningPercent = 70;
    saveAlertThresholds(settings, thresholds);
    EXPECT_EQ(loadAlertThresholds(settings), thresholds);
    settings.setValue(QStringLiteral("alerts/stallSeconds"), QStringLiteral("nonsense"));
    settings.setValue(QStringLiteral("alerts/shardFillWarningPercent"), -5);
    const auto read = loadAlertThresholds(settings);
    EXPECT_EQ(read.migrationStallSeconds, core::AlertThresholds {}.migrationStallSeconds);
    EXPECT_EQ(read.shardFillWarningPercent, core::AlertThresholds {}.shardFillWarningPercent);

    AlertThresholdsDialog dialog(thresholds);
    EXPECT_EQ(dialog.thresholds(), thresholds);
}

// A fleet seeded just before the console starts: the nodes report their spaces from their next
// one-second sample on, so the first read of the hottest spaces found none and the list stayed
// empty until the next read 30 s later. A space in its
// rollback window is listed once, on its new shard, though the old shard still reports its copy.
TEST_F(OverviewTest, TheHottestSpacesArriveWithTheNodesAndAMovedSpaceIsListedOnceWhereItLives)
{
    startFleet(2);
    addSpace("acme", "s0", 30);
    addSpace("globex", "s1", 12);
    // acme moved to s1 a moment ago: s1 has its documents, s0 keeps its copy for a rollback.
    {
        auto target = nodeOf("s1");
        ASSERT_TRUE(target->setOwnership("s1", { "acme", core::SpaceRole::Owner, 2 }));
        std::vector<core::WriteItem> items;
        for (int i = 0; i < 30; ++i)
            items.push_back({ { "acme", "d" + std::to_string(i), 1, { { "title", "hello world" } }, false }, 2 });
        const auto written = target->bulkWrite("s1", items);
        ASSERT_TRUE(written) << written.error().describe();
        const auto snapshot = core::MapSnapshot::decode(*m_store->snapshot());
        ASSERT_TRUE(snapshot);
        const auto& space = snapshot->spaces.at("acme");
        core::SpaceRecord moved = space.value;
        moved.shard = "s1";
        moved.target = "s0";
        moved.migrationId = "m-1";
        moved.phase = core::MigrationPhase::Cleanup;
        core::MigrationRecord migration;
        migration.id = "m-1";
        migration.space = "acme";
        migration.source = "s0";
        migration.target = "s1";
        migration.phase = core::MigrationPhase::Cleanup;
        migration.cutoverUnixMs = QDateTime::currentMSecsSinceEpoch();
        ASSERT_TRUE(m_store->commit({ { { core::keys::migration("m-1"), core::encode(migration), 0 },
                                          { core::keys::space("acme"), core::encode(moved), space.modRevision } },
            std::nullopt, std::nullopt, "tester", "test-fixture", "acme in its rollback window" }));
    }

    MainWindow window;
    connectWindow(window);
    QTableView* spaces = window.overviewPage()->hottestSpaces();
    // Well before the timer's next read (kSpacesMs): an empty read is tried again soon.
    ASSERT_TRUE(waitFor([&] { return spaces->model()->rowCount() >= 2; }, OverviewPage::kSpacesMs / 2))
        << spaces->model()->rowCount() << " rows";
    QStringList rows;
    for (int row = 0; row < spaces->model()->rowCount(); ++row) {
        rows << spaces->model()->index(row, 0).data().toString() + QLatin1Char('@')
                + spaces->model()->index(row, 1).data().toString();
    }
    rows.sort();
    EXPECT_EQ(rows.join(QLatin1Char(' ')).toStdString(), "acme@s1 globex@s1");
}

// The 24 h charts start with the nodes' history, not with what arrives after connecting.
TEST_F(OverviewTest, TheChartsStartWithTheNodesHistory)
{
    m_extraNodeArgs = { "--history-interval-ms", "200" };
    startFleet(1);
    addSpace("acme", "s0", 20);
    ASSERT_TRUE(waitFor([&] {
        auto history = nodeOf("s0")->metricsHistory(0);
        return history && history->samples.size() >= 3;
    }));
    const qint64 connected = QDateTime::currentMSecsSinceEpoch();
    MainWindow window;
    connectWindow(window);
    TimeSeriesChart* disk = window.overviewPage()->diskChart();
    // Live points are stamped when they arrive (after connecting); only the history is older.
    ASSERT_TRUE(waitFor([&] {
        disk->flushNow();
        const auto points = disk->drawnPoints(QStringLiteral("disk"));
        return !points.empty() && points.front().first < connected;
    }));
    EXPECT_GT(disk->drawnPoints(QStringLiteral("disk")).front().second, 0) << "the disk the node used then";
    // The legends name what is drawn, not the series' keys.
    EXPECT_EQ(window.overviewPage()->ratesChart()->seriesLabel(QStringLiteral("writes")), QStringLiteral("Writes/s"));
}

// One button for thresholds on the Alerts page (issue 26, point 11): its menu has the alerts' own
// and the node health thresholds, and there is no second "Health thresholds…" button.
TEST(AlertsPage, HasOneThresholdsButtonForBothKindsOfThreshold)
{
    FleetConnection connection;
    AlertMonitor monitor(&connection);
    AlertsPage page(&monitor);
    QStringList thresholdButtons;
    for (const QAbstractButton* button : page.findChildren<QAbstractButton*>()) {
        if (button->text().remove(QLatin1Char('&')).contains(QStringLiteral("hreshold"), Qt::CaseInsensitive))
            thresholdButtons << button->text();
    }
    ASSERT_EQ(thresholdButtons, QStringList { QStringLiteral("&Thresholds") });
    auto* button = page.findChild<QPushButton*>(QStringLiteral("thresholds"));
    ASSERT_NE(button, nullptr);
    ASSERT_NE(button->menu(), nullptr);
    QStringList entries;
    for (const QAction* action : button->menu()->actions())
        entries << action->text().remove(QLatin1Char('&'));
    EXPECT_EQ(entries, (QStringList { QStringLiteral("Migration and shard alerts…"), QStringLiteral("Node health…") }));
    QSignalSpy health(&page, &AlertsPage::healthThresholdsRequested);
    button->menu()->actions().at(1)->trigger();
    EXPECT_EQ(health.count(), 1) << "Node health… opens the health thresholds";
}

} // namespace
} // namespace shardmap::widgets
