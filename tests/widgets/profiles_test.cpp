// Connection profiles and read-only connections (issue 16), offscreen against a real fleet:
// profiles keep their name, environment and read-only flag across starts; the environment shows in
// the title and the status bar (production in red); a read-only window disables every action and
// its store refuses every write, so nothing changes whatever is tried, also on etcd with a
// viewer's etcd user (issue 17), which etcd refuses every write itself; two windows each watch
// their own fleet.
#include "core/migration/migration_requests.h"
#include "core/store/lease_names.h"
#include "tests/support/etcd_process.h"
#include "tests/support/etcd_roles.h"
#include "tests/support/fleet_test.h"
#include "tests/widgets/console_window.h"
#include "tests/widgets/wait_for.h"
#include "widgets/alerts/alert_monitor.h"
#include "widgets/connect/connect_dialog.h"
#include "widgets/connect/recent_connections.h"
#include "widgets/console/main_window.h"
#include "widgets/map/map_page.h"
#include "widgets/map/shard_map_view.h"
#include "widgets/migrations/migrations_page.h"
#include "widgets/style/file_dialogs.h"
#include "widgets/style/inline_message.h"
#include "widgets/style/view_state.h"

#include <QAction>
#include <QDir>
#include <QHeaderView>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTableView>

namespace shardmap::widgets {
namespace {

using testing::waitFor;

// A read-only window: the shard map takes no drops (a move asked for is refused); every action and
// button of the window that changes something, the context menus' too, is disabled and says why; no
// wizard opens.
void expectNoEnabledAction(MainWindow& window, const std::string& queuedMigration)
{
    MapPage* map = window.mapPage();
    window.showPage(map);
    EXPECT_FALSE(map->view()->viewport()->acceptDrops());
    EXPECT_FALSE(map->requestMoves({ QStringLiteral("acme") }, QStringLiteral("s1"), QStringLiteral("test"), false));

    // The migrations page with a migration selected, so that its buttons would apply to one.
    MigrationsPage* migrations = window.migrationsPage();
    window.showPage(migrations);
    migrations->selectMigration(QString::fromStdString(queuedMigration));
    EXPECT_EQ(testing::expectMigrationActionsDisabled(*migrations, QStringLiteral("read-only")), 6);
    const QStringList swept = testing::expectNoEnabledChange(window, QStringLiteral("read-only"));
    for (const char* expected :
        { "Drain s0…", "Retire node n0…", "Rebalance the fleet…", "Wizards", "Move to…", "Apply plan", "Pause…" })
        EXPECT_TRUE(swept.contains(QString::fromUtf8(expected))) << expected << " was not swept";

    // Wizards queue migrations: none opens.
    EXPECT_EQ(window.openWizard(0, QStringLiteral("s0")), nullptr);
}

class ProfilesTest : public testing::FleetTest<::testing::Test> {
protected:
    ConnectionSpec spec(bool readOnly, const QString& environment = {})
    {
        ConnectionSpec out;
        out.storeUri = QString::fromStdString(storeUri());
        out.metricsIntervalMs = 200;
        out.readOnly = readOnly;
        out.environment = environment;
        out.profileName = QStringLiteral("search-eu");
        return out;
    }

    void addSpace(const std::string& space, const std::string& shard)
    {
        addSpaceRecord(space, shard);
        ASSERT_TRUE(nodeOf(shard)->setOwnership(shard, { space, core::SpaceRole::Owner, 1 }));
    }
};

TEST_F(ProfilesTest, AReadOnlyProductionWindowSaysSoAndRefusesEveryAction)
{
    startFleet(2);
    addSpace("acme", "s0");
    addSpace("globex", "s0");
    core::MigrationRequests requests(*m_store, m_pool);
    auto queued = requests.queue("globex", "s1", m_actor);
    ASSERT_TRUE(queued) << queued.error().describe();

    MainWindow window;
    window.connection()->setReconnectBackoff(100, 500);
    window.resize(1280, 800);
    window.show();
    window.connectTo(spec(true, QStringLiteral("production")));
    ASSERT_TRUE(waitFor([&] { return window.connection()->state() == FleetConnection::State::Connected; }));
    ASSERT_TRUE(waitFor([&] { return window.connection()->map() != nullptr; }));
    const auto revision = window.connection()->map()->revision;

    EXPECT_EQ(window.windowTitle(), QStringLiteral("search-eu (production, read-only) — Shardmap"));
    EXPECT_EQ(window.environmentText(), QStringLiteral("PRODUCTION · READ-ONLY"));
    EXPECT_EQ(window.environmentColour(), QColor(0xc6, 0x28, 0x28)) << "production is red";

    expectNoEnabledAction(window, queued->id);

    // Whatever gets through to the store is refused there, and nothing changed.
    auto store = window.connection()->store();
    auto refused = core::MigrationRequests(*store, m_pool).cancel(queued->id, m_actor);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("read-only connection"), std::string::npos) << refused.error().message;
    EXPECT_EQ(*m_store->currentRevision(), revision);
}

// A read-only window whose etcd user is a viewer (docs/SHARD_MAP.md, "etcd users and roles": read
// permission on the prefix only) loads and follows the map and offers no action; what gets through
// to the store is refused by the connection, and by etcd for anyone who opens it writable.
TEST_F(ProfilesTest, AReadOnlyWindowWorksWithAViewersEtcdUser)
{
    std::string error;
    auto etcd = testing::EtcdProcess::start(error);
    ASSERT_TRUE(etcd) << error;
    ASSERT_TRUE(testing::enableEtcdRoles(*etcd, error)) << error;
    m_storeUri = testing::etcdUriAs(*etcd, "shardmap", "shardmapd");
    startFleet(2);
    addSpace("acme", "s0");
    addSpace("globex", "s0");
    auto queued = core::MigrationRequests(*m_store, m_pool).queue("globex", "s1", m_actor);
    ASSERT_TRUE(queued) << queued.error().describe();

    MainWindow window;
    window.connection()->setReconnectBackoff(100, 500);
    window.resize(1280, 800);
    window.show();
    ConnectionSpec viewer;
    viewer.storeUri = QStringLiteral("etcd://%1/shardmap?user=viewer").arg(QString::fromStdString(etcd->endpoint()));
    viewer.password = QString::fromStdString(testing::etcdPasswordOf("viewer"));
    viewer.metricsIntervalMs = 200;
    viewer.readOnly = true;
    window.connectTo(viewer);
    ASSERT_TRUE(waitFor([&] { return window.connection()->state() == FleetConnection::State::Connected; }));
    ASSERT_TRUE(waitFor([&] { return window.connection()->map() != nullptr; }));
    EXPECT_TRUE(window.connection()->map()->spaces.contains("acme"));

    // The viewer's watch follows what a writer changes.
    addSpace("initech", "s1");
    ASSERT_TRUE(waitFor([&] { return window.connection()->map()->spaces.contains("initech"); }));
    EXPECT_EQ(window.connection()->state(), FleetConnection::State::Connected);
    EXPECT_TRUE(window.connection()->lastError().isEmpty()) << window.connection()->lastError().toStdString();

    // The alerts read who holds the executor lease, which needs only read permission too.
    ASSERT_TRUE(m_store->acquireLease(std::string(core::kExecutorLease), "shardmapd-a", std::chrono::minutes(1)));
    window.alertMonitor()->refreshLeases();
    ASSERT_TRUE(waitFor([&] {
        const auto& executor = window.alertMonitor()->executor();
        return window.alertMonitor()->leasesKnown() && executor && executor->holder == "shardmapd-a";
    }));

    expectNoEnabledAction(window, queued->id);
    const auto revision = *m_store->currentRevision();
    auto refused = core::MigrationRequests(*window.connection()->store(), m_pool).cancel(queued->id, m_actor);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("read-only connection"), std::string::npos) << refused.error().message;

    // Opened writable, the viewer's etcd user is still refused, by etcd, in so many words.
    auto writable = core::openStore(viewer.storeUriWithSecret(), false);
    ASSERT_TRUE(writable) << writable.error().describe();
    auto denied = core::MigrationRequests(**writable, m_pool).cancel(queued->id, m_actor);
    ASSERT_FALSE(denied);
    EXPECT_EQ(denied.error().code, core::ErrorCode::PermissionDenied) << denied.error().describe();
    EXPECT_NE(denied.error().message.find("etcd user 'viewer' may not write under 'shardmap/'"), std::string::npos)
        << denied.error().describe();
    EXPECT_EQ(*m_store->currentRevision(), revision);
}

TEST_F(ProfilesTest, AWritableWindowKeepsItsActionsAndTwoWindowsWatchTheirOwnFleets)
{
    startFleet(1);
    addSpace("acme", "s0");
    MainWindow first;
    first.connectTo(spec(false, QStringLiteral("staging")));
    ASSERT_TRUE(waitFor([&] { return first.connection()->map() != nullptr; }));
    EXPECT_EQ(first.environmentText(), QStringLiteral("STAGING"));
    EXPECT_EQ(first.environmentColour(), QColor(0xef, 0x6c, 0x00));
    EXPECT_TRUE(first.mapPage()->view()->viewport()->acceptDrops()) << "a writable window takes drops";

    // A second window on another fleet (its own store and node): each sees only its own.
    testing::TempDir otherDir;
    auto otherNode = testing::NodeProcess::start(otherDir.file("node"));
    ASSERT_TRUE(otherNode);
    auto otherStore = core::openStore("sqlite:" + otherDir.file("map.db"), true);
    ASSERT_TRUE(otherStore);
    ASSERT_TRUE(core::MapEditor(**otherStore).addNode({ "other", otherNode->address(), {}, false }, m_actor));
    MainWindow* second = MainWindow::openNewWindow();
    ConnectionSpec otherSpec;
    otherSpec.storeUri = QStringLiteral("sqlite:") + QString::fromStdString(otherDir.file("map.db"));
    otherSpec.environment = QStringLiteral("development");
    second->connectTo(otherSpec);
    ASSERT_TRUE(waitFor([&] { return second->connection()->map() != nullptr; }));
    EXPECT_TRUE(second->connection()->map()->nodes.contains("other"));
    EXPECT_FALSE(second->connection()->map()->nodes.contains("n0"));
    EXPECT_TRUE(first.connection()->map()->nodes.contains("n0"));
    EXPECT_EQ(second->environmentColour(), QColor(0x2e, 0x7d, 0x32));
    EXPECT_TRUE(second->testAttribute(Qt::WA_DeleteOnClose));
    second->close();
}

TEST(ConnectionProfiles, AreRememberedWithTheirEnvironmentAndReadOnlyFlag)
{
    const auto group = QStringLiteral("tests/profiles");
    QSettings().remove(group);
    RecentConnections recent(group, QStringLiteral("shardmap-tests"));
    ConnectionSpec watch;
    watch.storeUri = QStringLiteral("sqlite:/var/lib/shardmap/map.db");
    watch.profileName = QStringLiteral("prod-watch");
    watch.environment = QStringLiteral("production");
    watch.readOnly = true;
    ConnectionSpec act = watch;
    act.profileName = QStringLiteral("prod-act");
    act.readOnly = false;
    act.colour = QStringLiteral("#7b1fa2");
    recent.remember(watch);
    recent.remember(act);
    // Two profiles of one store are two entries.
    const auto list = RecentConnections(group, QStringLiteral("shardmap-tests")).list();
    ASSERT_EQ(list.size(), 2);
    EXPECT_EQ(list[0], act);
    EXPECT_EQ(list[1], watch);
    EXPECT_EQ(recent.profile(QStringLiteral("prod-watch")), watch);
    EXPECT_FALSE(recent.profile(QStringLiteral("nope")));
    EXPECT_EQ(RecentConnections::displayName(watch), QStringLiteral("prod-watch (production, read-only)"));
    EXPECT_EQ(act.environmentColour(), QColor(0x7b, 0x1f, 0xa2)) << "its own colour wins";

    // The connect dialog edits them.
    ConnectDialog dialog(&recent);
    dialog.setSpec(watch);
    EXPECT_EQ(dialog.spec().profileName, watch.profileName);
    EXPECT_EQ(dialog.spec().environment, watch.environment);
    EXPECT_TRUE(dialog.spec().readOnly);
    QSettings().remove(group);
}

} // namespace
} // namespace shardmap::widgets

namespace shardmap::widgets {
namespace {

TEST(FileDialogs, StartInTheDocumentsFolderUnlessAFolderIsGiven)
{
    const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    ASSERT_FALSE(documents.isEmpty());
    EXPECT_EQ(inDocuments(), documents);
    EXPECT_EQ(inDocuments(QStringLiteral("plan.json")), QDir(documents).filePath(QStringLiteral("plan.json")));
    EXPECT_EQ(inDocuments(QStringLiteral("/srv/plans/plan.json")), QStringLiteral("/srv/plans/plan.json"));
}

} // namespace
} // namespace shardmap::widgets

namespace shardmap::widgets {
namespace {

TEST(ViewState, ColumnWidthsAndSplittersAreRememberedAcrossWindows)
{
    QSettings().remove(QStringLiteral("viewState"));
    QStandardItemModel model(3, 4);
    int width = 0;
    {
        QTableView table;
        table.setModel(&model);
        rememberState(table.horizontalHeader(), QStringLiteral("test/columns"));
        table.horizontalHeader()->resizeSection(2, 237);
        width = table.horizontalHeader()->sectionSize(2);
        ASSERT_TRUE(waitFor([] { return QSettings().contains(QStringLiteral("viewState/test/columns")); }, 5000));
    }
    QTableView again;
    again.setModel(&model);
    EXPECT_NE(again.horizontalHeader()->sectionSize(2), width);
    rememberState(again.horizontalHeader(), QStringLiteral("test/columns"));
    EXPECT_EQ(again.horizontalHeader()->sectionSize(2), width);

    QList<int> saved;
    {
        QSplitter splitter;
        splitter.addWidget(new QWidget);
        splitter.addWidget(new QWidget);
        splitter.resize(600, 300);
        rememberState(&splitter, QStringLiteral("test/splitter"));
        splitter.setSizes({ 150, 450 });
        emit splitter.splitterMoved(150, 1);
        saved = splitter.sizes();
        ASSERT_TRUE(waitFor([] { return QSettings().contains(QStringLiteral("viewState/test/splitter")); }, 5000));
    }
    QSplitter restored;
    restored.addWidget(new QWidget);
    restored.addWidget(new QWidget);
    restored.resize(600, 300);
    rememberState(&restored, QStringLiteral("test/splitter"));
    EXPECT_EQ(restored.sizes(), saved);
    EXPECT_LT(restored.sizes().value(0), restored.sizes().value(1) / 2) << "the 1:3 split, not an even one";
    QSettings().remove(QStringLiteral("viewState"));
}

} // namespace
} // namespace shardmap::widgets

namespace shardmap::widgets {
namespace {

TEST(InlineMessage, OneWidgetForEveryInlineMessageHiddenWhenEmpty)
{
    InlineMessage message;
    EXPECT_TRUE(message.isHidden());
    message.show(QStringLiteral("Refused: shard s1 is full"), InlineMessage::Kind::Error);
    EXPECT_FALSE(message.isHidden());
    EXPECT_EQ(message.kind(), InlineMessage::Kind::Error);
    EXPECT_EQ(message.shownText(), QStringLiteral("Refused: shard s1 is full"));
    EXPECT_TRUE(message.styleSheet().contains(QStringLiteral("#f8d7da")));
    message.show(QStringLiteral("Queued"), InlineMessage::Kind::Success);
    EXPECT_TRUE(message.styleSheet().contains(QStringLiteral("#d1e7dd")));
    message.show({}, InlineMessage::Kind::Info);
    EXPECT_TRUE(message.isHidden());
    EXPECT_TRUE(message.shownText().isEmpty());

    // The pages use it: a read-only map page's refusal is an error message of this widget.
    FleetConnection connection;
    MapPage page(&connection);
    const auto messages = page.findChildren<InlineMessage*>();
    ASSERT_EQ(messages.size(), 1);
    EXPECT_FALSE(page.requestMoves({ QStringLiteral("x") }, QStringLiteral("s1"), {}, false));
    EXPECT_EQ(messages.front()->kind(), InlineMessage::Kind::Error);
    EXPECT_FALSE(page.messageText().isEmpty());
}

} // namespace
} // namespace shardmap::widgets
