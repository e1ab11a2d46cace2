// The console at its default size, 1280 x 800 (issue 26): no column of the fleet, overview and
// audit pages is clipped, the navigation's labels fit in English and in German, and the pages
// that share the navigation have icons of their own. Against a real fleet (shardmap-node
// processes and an SQLite shard map) with the ids, actors and reasons an administrator sees.
#include "core/map/map_editor.h"
#include "tests/support/fleet_test.h"
#include "tests/support/seed_spaces.h"
#include "tests/widgets/console_window.h"
#include "tests/widgets/layout_checks.h"
#include "tests/widgets/wait_for.h"
#include "widgets/audit/audit_page.h"
#include "widgets/console/main_window.h"
#include "widgets/fleet/fleet_model.h"
#include "widgets/fleet/fleet_page.h"
#include "widgets/overview/overview_page.h"
#include "widgets/style/format.h"
#include "widgets/style/i18n.h"
#include "widgets/style/plan_note_text.h"

#include <QApplication>
#include <QDateTime>
#include <QDir>
#include <QHeaderView>
#include <QListWidget>
#include <QLocale>
#include <QTableView>
#include <QTreeView>

namespace shardmap::widgets {
namespace {

using testing::waitFor;

class LayoutTest : public testing::FleetTest<::testing::Test> {
protected:
    void TearDown() override { installTranslations(*qApp, QStringLiteral("en")); }

    // Three nodes; tenants with a dozen documents each on every shard; audit entries by people
    // with the reasons change boards write.
    void startDemoLikeFleet()
    {
        startFleet(3);
        for (int shard = 0; shard < 3; ++shard) {
            std::vector<std::string> spaces;
            for (int i = 0; i < 4; ++i)
                spaces.push_back("tenant-" + std::to_string(shard * 4 + i + 10));
            const std::string id = "s" + std::to_string(shard);
            testing::seedSpaces(*m_store, *nodeOf(id), id, spaces, { 12, 30, 7, 21 });
        }
        core::MapEditor editor(*m_store);
        ASSERT_TRUE(editor.pinSpace("tenant-10", "s0",
            { "administrator@console", "keep tenant-10 on its shard until the quarterly audit is over" }));
    }

    QTreeView* fleetView(MainWindow& window) { return window.fleetPage()->findChild<QTreeView*>(); }

    void expectNavigationFits(MainWindow& window, const char* language)
    {
        auto* navigation = window.findChild<QListWidget*>(QStringLiteral("navigation"));
        ASSERT_NE(navigation, nullptr);
        EXPECT_EQ(testing::clippedEntries(*navigation).join(QStringLiteral("; ")).toStdString(), "") << language;
    }
};

TEST_F(LayoutTest, NoColumnOfTheFleetOverviewAndAuditPagesIsClippedAt1280x800)
{
    startDemoLikeFleet();
    MainWindow window;
    testing::connectWindow(window, storeUri());
    ASSERT_TRUE(waitFor([&] { return window.connection()->map() && window.connection()->map()->spaces.size() == 12; }));

    window.showPage(window.fleetPage());
    QTreeView* fleet = fleetView(window);
    ASSERT_NE(fleet, nullptr);
    ASSERT_TRUE(waitFor([&] {
        const QModelIndex node = window.fleetPage()->model()->nodeIndex(QStringLiteral("n2"), FleetModel::DocsColumn);
        return node.isValid() && !node.data().toString().isEmpty();
    }));
    fleet->expandAll();
    QApplication::processEvents();
    EXPECT_EQ(testing::clippedColumns(*fleet, *fleet->header()).join(QStringLiteral("; ")).toStdString(), "")
        << "fleet page";

    window.showPage(window.overviewPage());
    for (const char* name : { "hottestShards", "hottestSpaces" }) {
        auto* table = window.overviewPage()->findChild<QTableView*>(QLatin1String(name));
        ASSERT_NE(table, nullptr) << name;
        ASSERT_TRUE(waitFor([&] { return table->model()->rowCount() > 0; })) << name;
        QApplication::processEvents();
        EXPECT_EQ(
            testing::clippedColumns(*table, *table->horizontalHeader()).join(QStringLiteral("; ")).toStdString(), "")
            << name;
    }

    window.showPage(window.auditPage());
    auto* audit = window.auditPage()->findChild<QTableView*>();
    ASSERT_NE(audit, nullptr);
    ASSERT_TRUE(waitFor([&] { return audit->model()->rowCount() >= 10; }));
    QApplication::processEvents();
    EXPECT_EQ(testing::clippedColumns(*audit, *audit->horizontalHeader()).join(QStringLiteral("; ")).toStdString(), "")
        << "audit page";

    expectNavigationFits(window, "en");
    const QString dir = QStringLiteral(SHARDMAP_TEST_ARTIFACTS) + QStringLiteral("/screenshots");
    ASSERT_TRUE(QDir().mkpath(dir));
    for (QWidget* page : { static_cast<QWidget*>(window.fleetPage()), static_cast<QWidget*>(window.overviewPage()),
             static_cast<QWidget*>(window.auditPage()) }) {
        window.showPage(page);
        QApplication::processEvents();
        const QString name = QString::fromLatin1(page->metaObject()->className()).section(QLatin1String("::"), -1);
        EXPECT_TRUE(window.grab().save(dir + QStringLiteral("/layout-%1.png").arg(name)));
    }
}

TEST_F(LayoutTest, TheNavigationLabelsFitInEnglishAndGerman)
{
    for (const char* language : { "en", "de" }) {
        ASSERT_EQ(installTranslations(*qApp, QLatin1String(language)), QLatin1String(language));
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        QApplication::processEvents();
        expectNavigationFits(window, language);
        if (QLatin1String(language) == QLatin1String("de")) {
            auto* navigation = window.findChild<QListWidget*>(QStringLiteral("navigation"));
            EXPECT_EQ(navigation->item(0)->text(), QStringLiteral("Übersicht")) << "the German labels are shown";
        }
    }
}

TEST_F(LayoutTest, AuditAlertsAndApprovalsHaveIconsOfTheirOwn)
{
    MainWindow window;
    auto* navigation = window.findChild<QListWidget*>(QStringLiteral("navigation"));
    ASSERT_NE(navigation, nullptr);
    QMap<QString, QImage> icons;
    for (int row = 0; row < navigation->count(); ++row)
        icons[navigation->item(row)->text()] = navigation->item(row)->icon().pixmap(24, 24).toImage();
    const QStringList pages { QStringLiteral("Audit"), QStringLiteral("Alerts"), QStringLiteral("Approvals"),
        QStringLiteral("Shard map"), QStringLiteral("Fleet") };
    for (const QString& page : pages)
        ASSERT_TRUE(icons.contains(page)) << page.toStdString();
    for (qsizetype a = 0; a < pages.size(); ++a) {
        for (qsizetype b = a + 1; b < pages.size(); ++b)
            EXPECT_NE(icons[pages[a]], icons[pages[b]]) << pages[a].toStdString() << " and " << pages[b].toStdString();
    }
}

TEST_F(LayoutTest, GermanSaysStatesPhasesNumbersAndSizesTheGermanWay)
{
    ASSERT_EQ(installTranslations(*qApp, QStringLiteral("de")), QStringLiteral("de"));
    EXPECT_EQ(formatCount(433410), QStringLiteral("433.410"));
    EXPECT_EQ(formatBytes(35861709), QStringLiteral("34,2 MiB"));
    EXPECT_EQ(shardStateText(core::ShardState::Active), QStringLiteral("aktiv"));
    EXPECT_EQ(migrationPhaseText(core::MigrationPhase::Cleanup), QStringLiteral("Aufräumen"));
    EXPECT_EQ(migrationPhaseText(core::MigrationPhase::Done), QStringLiteral("fertig"));
    EXPECT_TRUE(QLocale()
                    .toString(QDateTime(QDate(2026, 12, 3), QTime(16, 5)), QLocale::ShortFormat)
                    .startsWith(QStringLiteral("03.12.")));
    ASSERT_EQ(installTranslations(*qApp, QStringLiteral("en")), QStringLiteral("en"));
    EXPECT_EQ(shardStateText(core::ShardState::Active), QStringLiteral("active"));
    EXPECT_EQ(migrationPhaseText(core::MigrationPhase::Cleanup), QStringLiteral("cleanup"));
}

// The planner's reasons and warnings in the console's language, numbers as the locale writes them.
TEST_F(LayoutTest, ThePlannersReasonsAndWarningsAreGerman)
{
    ASSERT_EQ(installTranslations(*qApp, QStringLiteral("de")), QStringLiteral("de"));
    using core::PlanNoteKind;
    EXPECT_EQ(planNoteText({ PlanNoteKind::Balance, { "rebalance", "s1", "1.41", "s2", "0.80" } }),
        QStringLiteral("Neuverteilung: s1 hält 1,41× seines Anteils an Bytes, s2 0,80×"));
    EXPECT_EQ(planNoteText({ PlanNoteKind::Drain, { "s3" } }), QStringLiteral("s3 leeren"));
    core::PlanNote band { PlanNoteKind::OutsideBand, { "7" } };
    for (int i = 0; i < 5; ++i)
        band.args.insert(band.args.end(), { "s" + std::to_string(i), "1.5", "queries" });
    band.args.push_back("2");
    const QString text = planNoteText(band);
    EXPECT_TRUE(text.startsWith(QStringLiteral("7 Shards bleiben nach dem Plan außerhalb des Bands: s0 (1,50× "
                                               "seines Anteils an Abfragen)")))
        << text.toStdString();
    EXPECT_TRUE(text.endsWith(QStringLiteral(" und 2 weitere"))) << text.toStdString();
    EXPECT_EQ(planNoteText({ PlanNoteKind::ReplicasMoveOff, { "n2", "2", "a, b" } }),
        QStringLiteral("Knoten n2 hält 2 Replikate (a, b); der Executor legt jedes auf einem anderen Knoten neu an, "
                       "bevor der Knoten stillgelegt wird"));

    installTranslations(*qApp, QStringLiteral("en"));
    const core::PlanNote one { PlanNoteKind::OutsideBand, { "1", "s4", "1.25", "bytes", "0" } };
    EXPECT_EQ(planNoteText(one),
        QStringLiteral("1 shard remains outside the band after the plan: s4 (1.25× its share of bytes)"));
    EXPECT_EQ(planNoteText({ PlanNoteKind::ReplicasMoveOff, { "n2", "1", "a" } }),
        QStringLiteral("node n2 holds 1 replica (a); the executor makes it again on another node before the node retires"));
}

} // namespace
} // namespace shardmap::widgets
