// The console's main window offscreen against a real fleet (shardmap-node processes and an
// SQLite shard map started by the test): connect, rows appear, a killed node turns red and back
// when restarted, find-space opens where the space lives, and a screenshot of every page is kept
// as a test artifact.
#include "core/fleet/health.h"
#include "tests/support/fleet_test.h"
#include "tests/widgets/console_window.h"
#include "tests/widgets/wait_for.h"
#include "widgets/alerts/alerts_page.h"
#include "widgets/audit/audit_page.h"
#include "widgets/console/main_window.h"
#include "widgets/detail/detail_page.h"
#include "widgets/fleet/fleet_model.h"
#include "widgets/fleet/fleet_page.h"
#include "widgets/map/map_page.h"
#include "widgets/map/shard_map_model.h"
#include "widgets/migrations/migrations_page.h"
#include "widgets/overview/overview_page.h"
#include "widgets/style/inline_message.h"
#include "widgets/whatif/whatif_page.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QImage>
#include <QStatusBar>
#include <QThread>
#include <QTreeView>

namespace shardmap::widgets {
namespace {

using testing::waitFor;

int healthOf(const FleetModel& model, const QString& nodeId)
{
    return model.data(model.nodeIndex(nodeId), FleetModel::HealthLevelRole).toInt();
}

// Distinct colours in an image: a blank or single-colour grab means nothing was painted.
int distinctColours(const QImage& image)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 4) {
        for (int x = 0; x < image.width(); x += 4) {
            colours.insert(image.pixel(x, y));
            if (colours.size() > 16) {
                return static_cast<int>(colours.size());
            }
        }
    }
    return static_cast<int>(colours.size());
}

class ConsoleTest : public testing::FleetTest<::testing::Test> {
protected:
    void connectWindow(MainWindow& window) { testing::connectWindow(window, storeUri()); }
    void addSpace(const std::string& space, const std::string& shard) { addSpaceRecord(space, shard); }
};

TEST_F(ConsoleTest, TheBannerSaysNotConnectedThenWarnsWhileTheStoreIsMissing)
{
    MainWindow window;
    auto* banner = window.findChild<InlineMessage*>(QStringLiteral("connectionBanner"));
    ASSERT_NE(banner, nullptr);
    EXPECT_TRUE(window.bannerText().contains(QStringLiteral("Not connected")));
    EXPECT_EQ(banner->kind(), InlineMessage::Kind::Info);
    connectWindow(window); // the store does not exist yet: the connection retries and says why
    ASSERT_TRUE(waitFor([&] { return !window.connection()->lastError().isEmpty(); }));
    ASSERT_TRUE(waitFor([&] { return !window.bannerText().isEmpty(); }));
    EXPECT_EQ(banner->kind(), InlineMessage::Kind::Warning);
    EXPECT_TRUE(window.bannerText().contains(QStringLiteral("retrying"))) << window.bannerText().toStdString();
}

TEST_F(ConsoleTest, ConnectsAndShowsNodesAndShardsWithLiveFigures)
{
    startFleet(2);
    MainWindow window;
    EXPECT_FALSE(window.bannerText().isEmpty()); // "Not connected" until it is
    connectWindow(window);
    FleetModel* model = window.fleetPage()->model();
    ASSERT_TRUE(waitFor([&] { return model->rowCount() == 2; }));
    ASSERT_TRUE(waitFor([&] { return window.connection()->state() == FleetConnection::State::Connected; }));
    EXPECT_EQ(model->rowCount(model->nodeIndex(QStringLiteral("n0"))), 1);
    EXPECT_TRUE(model->shardIndex(QStringLiteral("s1")).isValid());
    EXPECT_TRUE(window.connectionText().contains(QStringLiteral("Connected")));
    EXPECT_TRUE(window.revisionText().contains(QString::number(window.connection()->map()->revision)));
    EXPECT_TRUE(window.bannerText().isEmpty());

    // Live figures reach the table and the status bar says how fresh they are.
    const QModelIndex cpu = model->nodeIndex(QStringLiteral("n1"), FleetModel::CpuColumn);
    ASSERT_TRUE(waitFor([&] { return !model->data(cpu).toString().isEmpty(); }));
    ASSERT_TRUE(waitFor([&] { return window.metricsAgeText().contains(QStringLiteral("s old")); }));

    // A shard added by someone else appears without reconnecting.
    core::MapEditor editor(*m_store);
    ASSERT_TRUE(editor.addShard({ "s7", "n1", core::ShardState::Draining, 0, 0 }, m_actor));
    EXPECT_TRUE(waitFor([&] { return model->shardIndex(QStringLiteral("s7")).isValid(); }));
}

TEST_F(ConsoleTest, KilledNodeTurnsRedAndBackWhenRestarted)
{
    startFleet(2);
    MainWindow window;
    connectWindow(window);
    FleetModel* model = window.fleetPage()->model();
    const QString n1 = QStringLiteral("n1");
    ASSERT_TRUE(waitFor([&] { return window.connection()->nodeLink(n1).reachable; }));
    ASSERT_TRUE(waitFor([&] { return healthOf(*model, n1) != static_cast<int>(core::HealthLevel::Critical); }));

    const std::string address = m_nodes[1]->address();
    m_nodes[1]->kill9();
    ASSERT_TRUE(waitFor([&] { return healthOf(*model, n1) == static_cast<int>(core::HealthLevel::Critical); }));
    const QString why = model->data(model->nodeIndex(n1), Qt::ToolTipRole).toString();
    EXPECT_FALSE(why.isEmpty());
    EXPECT_NE(healthOf(*model, QStringLiteral("n0")), static_cast<int>(core::HealthLevel::Critical));

    m_nodes[1] = testing::NodeProcess::start(m_dataDirs[1], { "--listen", address });
    ASSERT_TRUE(m_nodes[1]);
    EXPECT_TRUE(waitFor([&] { return healthOf(*model, n1) != static_cast<int>(core::HealthLevel::Critical); }, 30000));
}

TEST_F(ConsoleTest, FindSpaceOpensTheShardWhereItLives)
{
    startFleet(2);
    addSpace("acme", "s1");
    MainWindow window;
    connectWindow(window);
    ASSERT_TRUE(waitFor([&] { return window.connection()->map() && window.connection()->map()->space("acme"); }));
    ASSERT_TRUE(window.findSpace(QStringLiteral("acme")));
    EXPECT_EQ(window.currentPage(), window.detailPage());
    EXPECT_EQ(window.detailPage()->shardId(), QStringLiteral("s1"));

    // On the shard map page the space's tile is found where it is.
    window.showPage(window.mapPage());
    ASSERT_TRUE(waitFor([&] { return window.mapPage()->model()->spaceIndex(QStringLiteral("acme")).isValid(); }));
    EXPECT_TRUE(window.findSpace(QStringLiteral("acme")));
    EXPECT_EQ(window.currentPage(), window.mapPage());

    window.showPage(window.fleetPage());
    EXPECT_FALSE(window.findSpace(QStringLiteral("no-such-space")));
    EXPECT_EQ(window.currentPage(), window.fleetPage());
    EXPECT_TRUE(window.statusBar()->currentMessage().contains(QStringLiteral("no-such-space")));
}

TEST_F(ConsoleTest, ScreenshotOfEveryPage)
{
    startFleet(2);
    addSpace("acme", "s0");
    MainWindow window;
    connectWindow(window);
    FleetModel* model = window.fleetPage()->model();
    ASSERT_TRUE(waitFor([&] { return model->rowCount() == 2; }));
    ASSERT_TRUE(waitFor([&] {
        return !model->data(model->nodeIndex(QStringLiteral("n0"), FleetModel::CpuColumn)).toString().isEmpty();
    }));
    window.fleetPage()->view()->expandAll();
    ASSERT_TRUE(window.findSpace(QStringLiteral("acme")));

    const QString dir = QStringLiteral(SHARDMAP_TEST_ARTIFACTS) + QStringLiteral("/screenshots");
    ASSERT_TRUE(QDir().mkpath(dir));
    const QList<QPair<QWidget*, QString>> pages
        = { { window.overviewPage(), QStringLiteral("overview") }, { window.alertsPage(), QStringLiteral("alerts") },
              { window.fleetPage(), QStringLiteral("fleet") }, { window.detailPage(), QStringLiteral("detail") },
              { window.mapPage(), QStringLiteral("map") }, { window.migrationsPage(), QStringLiteral("migrations") },
              { window.auditPage(), QStringLiteral("audit") }, { window.whatIfPage(), QStringLiteral("whatif") } };
    for (const auto& [page, name] : pages) {
        window.showPage(page);
        for (int i = 0; i < 20; ++i) {
            QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        }
        const QImage image = window.grab().toImage();
        ASSERT_FALSE(image.isNull()) << name.toStdString();
        EXPECT_GT(distinctColours(image), 8) << name.toStdString();
        EXPECT_TRUE(image.save(dir + QStringLiteral("/console-%1.png").arg(name))) << name.toStdString();
    }
}

} // namespace
} // namespace shardmap::widgets
