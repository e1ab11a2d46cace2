// The migrations page: the model (incremental, under QAbstractItemModelTester), the filters, and
// the page against real nodes, a real SQLite shard map and a real shardmapd running the executor.
#include "core/migration/migration_requests.h"
#include "tests/support/controller_process.h"
#include "tests/support/csv.h"
#include "tests/support/fleet_test.h"
#include "tests/support/pdf_text.h"
#include "tests/support/workload.h"
#include "tests/widgets/wait_for.h"
#include "widgets/charts/time_series_chart.h"
#include "widgets/migrations/migration_detail_dialog.h"
#include "widgets/migrations/migrations_filter_proxy.h"
#include "widgets/migrations/migrations_model.h"
#include "widgets/migrations/migrations_page.h"
#include "widgets/migrations/phase_timeline.h"
#include "widgets/report/report_export_dialog.h"
#include "widgets/report/report_preview_dialog.h"
#include "widgets/session/fleet_connection.h"

#include <QAbstractItemModelTester>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFontMetrics>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSystemTrayIcon>
#include <QTableView>
#include <QTest>
#include <QThread>
#include <QTreeWidget>
#include <gtest/gtest.h>

namespace shardmap::widgets {
namespace {

using testing::waitFor;

core::MigrationRecord makeMigration(const std::string& id, const std::string& space, const std::string& source,
    const std::string& target, core::MigrationPhase phase, std::int64_t createdMs = 1000)
{
    core::MigrationRecord record;
    record.id = id;
    record.space = space;
    record.source = source;
    record.target = target;
    record.phase = phase;
    record.createdUnixMs = createdMs;
    record.requestedBy = "alice@console";
    return record;
}

MapPtr migrationsMap(const std::vector<core::MigrationRecord>& migrations, std::uint64_t revision)
{
    auto map = std::make_shared<core::MapSnapshot>();
    map->revision = revision;
    for (const auto& record : migrations)
        map->migrations[record.id] = { record, revision };
    return map;
}

TEST(MigrationsModel, TheRouteOfARolledBackMigrationIsTheAskedOne)
{
    MigrationsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    // Asked s20 -> s11; the rollback swapped the record for the way back.
    auto rolled = makeMigration("m-1", "acme", "s11", "s20", core::MigrationPhase::Cancelled);
    rolled.rolledBack = true;
    model.setMap(migrationsMap({ rolled }, 1));
    const QModelIndex route = model.index(0, MigrationsModel::RouteColumn);
    EXPECT_EQ(route.data().toString(), QStringLiteral("s20 → s11, rolled back"));
    EXPECT_EQ(route.data(MigrationsModel::SortRole).toString(), QStringLiteral("s20\ns11"));
}

TEST(MigrationsModel, RowsFollowTheMapIncrementallyAndNeverReset)
{
    MigrationsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy inserts(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy removes(&model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy finished(&model, &MigrationsModel::migrationFinished);

    auto a = makeMigration("m-1", "acme", "s0", "s1", core::MigrationPhase::Queued);
    model.setMap(migrationsMap({ a }, 1));
    ASSERT_EQ(model.rowCount(), 1);
    EXPECT_EQ(inserts.count(), 1);
    EXPECT_EQ(model.index(0, MigrationsModel::RouteColumn).data().toString(), QStringLiteral("s0 → s1"));
    EXPECT_LT(model.index(0, 0).data(MigrationsModel::ProgressRole).toDouble(), 0);

    a.phase = core::MigrationPhase::Backfill;
    a.progress.docsDone = 50;
    a.progress.docsTotal = 200;
    auto b = makeMigration("m-2", "blue", "s1", "s0", core::MigrationPhase::Queued);
    model.setMap(migrationsMap({ a, b }, 2));
    ASSERT_EQ(model.rowCount(), 2);
    EXPECT_EQ(inserts.count(), 2);
    ASSERT_EQ(changes.count(), 1);
    const auto roles = changes.at(0).at(2).value<QList<int>>();
    EXPECT_FALSE(roles.isEmpty()) << "dataChanged names its roles";
    EXPECT_DOUBLE_EQ(model.index(0, 0).data(MigrationsModel::ProgressRole).toDouble(), 0.25);
    EXPECT_EQ(model.index(0, MigrationsModel::ProgressColumn).data().toString(), QStringLiteral("25 %"));
    EXPECT_EQ(model.index(0, MigrationsModel::DocsColumn).data(MigrationsModel::SortRole).toULongLong(), 50u);

    // The same map again changes nothing.
    model.setMap(migrationsMap({ a, b }, 3));
    EXPECT_EQ(changes.count(), 1);

    a.phase = core::MigrationPhase::Failed;
    a.error = "target node unreachable";
    model.setMap(migrationsMap({ a, b }, 4));
    ASSERT_EQ(finished.count(), 1);
    EXPECT_EQ(finished.at(0).at(0).toString(), QStringLiteral("m-1"));
    EXPECT_EQ(finished.at(0).at(1).value<MigrationsModel::StateCategory>(), MigrationsModel::StateCategory::Failed);
    EXPECT_EQ(finished.at(0).at(2).toString(), QStringLiteral("target node unreachable"));

    model.setMap(migrationsMap({ b }, 5));
    EXPECT_EQ(model.rowCount(), 1);
    EXPECT_EQ(removes.count(), 1);
    EXPECT_EQ(model.rowOf(QStringLiteral("m-2")), 0);
    EXPECT_EQ(resets.count(), 0);
}

TEST(MigrationsFilterProxy, FiltersByStateSpaceShardAndTime)
{
    MigrationsModel model;
    MigrationsFilterProxy proxy;
    QAbstractItemModelTester modelTester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    proxy.setSourceModel(&model);
    QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setMap(migrationsMap({ makeMigration("m-1", "acme", "s0", "s1", core::MigrationPhase::Done, 1000),
                                   makeMigration("m-2", "blue", "s1", "s2", core::MigrationPhase::Backfill, 5000),
                                   makeMigration("m-3", "acme-eu", "s2", "s0", core::MigrationPhase::Queued, 9000) },
        1));
    ASSERT_EQ(proxy.rowCount(), 3);

    proxy.setStateFilter(MigrationsModel::StateCategory::Running);
    ASSERT_EQ(proxy.rowCount(), 1);
    EXPECT_EQ(proxy.index(0, 0).data().toString(), QStringLiteral("m-2"));
    proxy.setStateFilter(std::nullopt);

    proxy.setSpaceFilter(QStringLiteral("ACME"));
    EXPECT_EQ(proxy.rowCount(), 2);
    proxy.setShardFilter(QStringLiteral("s1"));
    ASSERT_EQ(proxy.rowCount(), 1);
    EXPECT_EQ(proxy.index(0, 0).data().toString(), QStringLiteral("m-1"));
    proxy.setSpaceFilter({});
    EXPECT_EQ(proxy.rowCount(), 2);
    proxy.setShardFilter({});
    proxy.setCreatedSince(4000);
    EXPECT_EQ(proxy.rowCount(), 2);

    // Rows that appear while filtered show up when they pass.
    model.setMap(migrationsMap({ makeMigration("m-1", "acme", "s0", "s1", core::MigrationPhase::Done, 1000),
                                   makeMigration("m-2", "blue", "s1", "s2", core::MigrationPhase::Backfill, 5000),
                                   makeMigration("m-3", "acme-eu", "s2", "s0", core::MigrationPhase::Queued, 9000),
                                   makeMigration("m-4", "cyan", "s0", "s2", core::MigrationPhase::Queued, 9500) },
        2));
    EXPECT_EQ(proxy.rowCount(), 3);
}

TEST(MigrationsPage, ColumnWidthsOrderAndSortAreRemembered)
{
    const QString key = QStringLiteral("viewState/migrations/columns");
    QSettings().remove(key);
    FleetConnection connection;
    int width = 0;
    {
        MigrationsPage page(&connection);
        QHeaderView* header = page.view()->horizontalHeader();
        header->resizeSection(MigrationsModel::SpaceColumn, 233);
        width = header->sectionSize(MigrationsModel::SpaceColumn);
        header->moveSection(header->visualIndex(MigrationsModel::PhaseColumn), 0);
        page.view()->sortByColumn(MigrationsModel::SpaceColumn, Qt::AscendingOrder);
        ASSERT_TRUE(waitFor([&] { return QSettings().contains(key); }, 5000));
        // The last change is saved half a second after it.
        const QByteArray last = header->saveState();
        ASSERT_TRUE(waitFor([&] { return QSettings().value(key).toByteArray() == last; }, 5000));
    }
    MigrationsPage again(&connection);
    const QHeaderView* header = again.view()->horizontalHeader();
    EXPECT_EQ(header->sectionSize(MigrationsModel::SpaceColumn), width);
    EXPECT_EQ(header->logicalIndex(0), MigrationsModel::PhaseColumn);
    EXPECT_EQ(header->sortIndicatorSection(), MigrationsModel::SpaceColumn);
    EXPECT_EQ(header->sortIndicatorOrder(), Qt::AscendingOrder);
    const auto* proxy = qobject_cast<const QSortFilterProxyModel*>(again.view()->model());
    ASSERT_NE(proxy, nullptr);
    EXPECT_EQ(proxy->sortColumn(), MigrationsModel::SpaceColumn) << "the rows are sorted as the header says";
    EXPECT_EQ(proxy->sortOrder(), Qt::AscendingOrder);
    QSettings().remove(key);
}

// Migration ids share their first digits (the millisecond they were made): the page shortens
// them in the middle, so that two ids cut to fit still differ where they differ (issue 26,
// point 11), and sizes the id column to its ids.
TEST(MigrationsPage, MigrationIdsAreShortenedInTheMiddleAndKeepWhatTellsThemApart)
{
    FleetConnection connection;
    MigrationsPage page(&connection);
    const QStringList ids { QStringLiteral("m-1796297601234-00aa"), QStringLiteral("m-1796297601234-00bb") };
    page.model()->setMap(
        migrationsMap({ makeMigration(ids[0].toStdString(), "acme", "s0", "s1", core::MigrationPhase::Done),
                          makeMigration(ids[1].toStdString(), "blue", "s0", "s1", core::MigrationPhase::Done) },
            1));
    page.resize(1280, 800);
    page.show();
    QTableView* view = page.view();
    ASSERT_EQ(view->textElideMode(), Qt::ElideMiddle);
    const QFontMetrics metrics(view->font());
    EXPECT_GE(view->horizontalHeader()->sectionSize(MigrationsModel::IdColumn), metrics.horizontalAdvance(ids[0]))
        << "the id column is as wide as its ids";
    // Narrowed by hand, the cells are cut in the middle: the tails that tell the ids apart stay.
    const int narrow = metrics.horizontalAdvance(ids[0]) * 2 / 3;
    QStringList shown;
    for (const QString& id : ids) {
        const QModelIndex cell = view->model()->index(
            page.proxy()->mapFromSource(page.model()->index(page.model()->rowOf(id), MigrationsModel::IdColumn)).row(),
            MigrationsModel::IdColumn);
        shown << metrics.elidedText(cell.data().toString(), view->textElideMode(), narrow);
    }
    EXPECT_NE(shown[0], shown[1]) << shown.join(QStringLiteral(" | ")).toStdString();
    EXPECT_TRUE(shown[0].endsWith(QStringLiteral("00aa"))) << shown[0].toStdString();
    EXPECT_TRUE(shown[0].startsWith(QStringLiteral("m-"))) << shown[0].toStdString();
    EXPECT_TRUE(shown[0].contains(QChar(0x2026))) << "cut: " << shown[0].toStdString();
}

class MigrationsPageTest : public testing::FleetTest<::testing::Test> {
protected:
    void SetUp() override
    {
        startFleet(2);
        if (HasFatalFailure())
            return;
        core::MigrationSettings settings;
        settings.rollbackWindowSeconds = 0;
        settings.backfillBatch = 100;
        setSettings(settings);
    }

    void setSettings(const core::MigrationSettings& settings)
    {
        core::MigrationRequests requests(*m_store, m_pool);
        auto set = requests.setSettings(settings, m_actor);
        ASSERT_TRUE(set) << set.error().describe();
    }

    void startController(const std::vector<std::string>& env = {})
    {
        m_controller = testing::ControllerProcess::start(
            m_dir.file("c1.stderr.log"), { "--store", storeUri(), "--id", "c1", "--lease-ttl-ms", "1000" }, env);
        ASSERT_TRUE(m_controller);
    }

    // Writes `docs` documents of the space through shardmapd (which places the space).
    void writeDocuments(const std::string& space, int docs)
    {
        m_workload = std::make_unique<testing::Workload>(
            testing::WorkloadOptions { { space }, docs, 1, 10, 0.0, std::chrono::milliseconds(1), 7 },
            std::vector<testing::WritePath> { testing::routerServicePath(m_controller->address()) });
        ASSERT_TRUE(m_workload->prefill()) << m_workload->lastError();
    }

    void openPage()
    {
        ConnectionSpec spec;
        spec.storeUri = QString::fromStdString(storeUri());
        spec.metricsIntervalMs = 200;
        m_connection = std::make_unique<FleetConnection>();
        m_page = std::make_unique<MigrationsPage>(m_connection.get());
        m_connection->open(spec);
        ASSERT_TRUE(waitFor([&] { return m_connection->state() == FleetConnection::State::Connected; }))
            << m_connection->lastError().toStdString();
    }

    std::string shardOf(const std::string& space) { return map().space(space)->shard; }

    const core::MigrationRecord* shown(const std::string& id)
    {
        return m_page->model()->record(QString::fromStdString(id));
    }

    core::MigrationRecord queue(const std::string& space, std::uint64_t throttle)
    {
        const std::string target = shardOf(space) == "s0" ? "s1" : "s0";
        core::MigrationRequests requests(*m_store, m_pool);
        auto queued = requests.queue(space, target, m_actor, throttle);
        EXPECT_TRUE(queued) << queued.error().describe();
        return queued ? *queued : core::MigrationRecord {};
    }

    // The audit record of the newest commit with this action.
    std::optional<core::AuditRecord> lastAudit(const std::string& action)
    {
        auto history = m_store->history(0, 0, 0);
        if (!history)
            return std::nullopt;
        for (auto it = history->rbegin(); it != history->rend(); ++it) {
            if (it->action == action)
                return *it;
        }
        return std::nullopt;
    }

    // Runs an action of the page and waits for its outcome.
    std::pair<bool, QString> act(const std::function<void()>& action)
    {
        QSignalSpy done(m_page.get(), &MigrationsPage::actionFinished);
        action();
        if (!waitFor([&] { return done.count() > 0; }))
            return { false, QStringLiteral("no answer") };
        return { done.at(0).at(1).toBool(), done.at(0).at(2).toString() };
    }

    // Waits until the detail view shows the migration as the map has it now, final.
    bool detailShowsFinal(MigrationDetailDialog* dialog, const std::string& id)
    {
        return waitFor([&] {
            const auto& row = dialog->row();
            return row && !row->record.active() && row->history && !row->history->phases.empty()
                && core::isFinal(row->history->phases.back().phase) && shown(id) && row->record == *shown(id);
        });
    }

    static QStringList eventKinds(MigrationDetailDialog* dialog)
    {
        QStringList kinds;
        for (int i = 0; i < dialog->eventsView()->topLevelItemCount(); ++i)
            kinds << dialog->eventsView()->topLevelItem(i)->text(1);
        return kinds;
    }

    std::unique_ptr<testing::ControllerProcess> m_controller;
    std::unique_ptr<testing::Workload> m_workload;
    std::unique_ptr<FleetConnection> m_connection;
    std::unique_ptr<MigrationsPage> m_page;
};

TEST_F(MigrationsPageTest, ShowsProgressPauseAndResumeAreAuditedAndDoneIsNotified)
{
    startController();
    writeDocuments("acme", 1500);
    openPage();
    QAbstractItemModelTester tester(m_page->proxy(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSignalSpy resets(m_page->model(), &QAbstractItemModel::modelReset);
    QSignalSpy notified(m_page.get(), &MigrationsPage::migrationNotified);
    const auto queued = queue("acme", 300);
    const QString id = QString::fromStdString(queued.id);

    ASSERT_TRUE(waitFor([&] { return shown(queued.id) && shown(queued.id)->progress.docsDone > 0; }));
    EXPECT_EQ(m_page->model()->index(m_page->model()->rowOf(id), MigrationsModel::SpaceColumn).data().toString(),
        QStringLiteral("acme"));

    auto [paused, pauseMessage] = act([&] { m_page->pause(id, QStringLiteral("hold for the backup")); });
    ASSERT_TRUE(paused) << pauseMessage.toStdString();
    const auto pauseAudit = lastAudit("pause-migration");
    ASSERT_TRUE(pauseAudit);
    EXPECT_EQ(pauseAudit->reason, "hold for the backup");
    EXPECT_EQ(QString::fromStdString(pauseAudit->actor), MigrationsPage::actorName());
    EXPECT_TRUE(MigrationsPage::actorName().endsWith(QStringLiteral("@console")));
    ASSERT_TRUE(waitFor([&] { return shown(queued.id)->paused; }));
    m_page->selectMigration(id);
    EXPECT_FALSE(m_page->refusal(MigrationsPage::Action::Pause, id).isEmpty());
    EXPECT_TRUE(m_page->refusal(MigrationsPage::Action::Resume, id).isEmpty());

    auto [throttled, throttleMessage] = act([&] { m_page->setThrottle(id, 0, QStringLiteral("full speed")); });
    ASSERT_TRUE(throttled) << throttleMessage.toStdString();
    auto [resumed, resumeMessage] = act([&] { m_page->resume(id, QStringLiteral("backup done")); });
    ASSERT_TRUE(resumed) << resumeMessage.toStdString();
    EXPECT_EQ(lastAudit("resume-migration")->reason, "backup done");

    ASSERT_TRUE(waitFor([&] { return !shown(queued.id)->active(); }, 120000)) << m_controller->stderrText();
    EXPECT_EQ(shown(queued.id)->phase, core::MigrationPhase::Done) << shown(queued.id)->error;
    EXPECT_EQ(
        m_page->model()->index(m_page->model()->rowOf(id), 0).data(MigrationsModel::ProgressRole).toDouble(), 1.0);
    ASSERT_TRUE(waitFor([&] { return notified.count() > 0; }));
    EXPECT_EQ(notified.at(0).at(0).toString(), id);
    if (!QSystemTrayIcon::isSystemTrayAvailable()) {
        EXPECT_TRUE(m_page->messageText().contains(id)) << m_page->messageText().toStdString();
    }
    EXPECT_EQ(resets.count(), 0);

    // A finished migration cannot be paused: the store says why, inline.
    auto [refused, why] = act([&] { m_page->pause(id, QStringLiteral("too late")); });
    EXPECT_FALSE(refused);
    EXPECT_FALSE(why.isEmpty());
    EXPECT_TRUE(m_page->messageIsError());
    EXPECT_TRUE(m_page->messageText().contains(why));
}

TEST_F(MigrationsPageTest, CancelFromThePageIsAuditedAndAnUnknownIdIsAnInlineError)
{
    startController();
    writeDocuments("acme", 1500);
    openPage();
    const std::string source = shardOf("acme");
    const auto queued = queue("acme", 200);
    const QString id = QString::fromStdString(queued.id);
    ASSERT_TRUE(waitFor([&] { return shown(queued.id) && shown(queued.id)->progress.docsDone > 0; }));

    auto [cancelled, message] = act([&] { m_page->cancel(id, QStringLiteral("wrong target")); });
    ASSERT_TRUE(cancelled) << message.toStdString();
    EXPECT_EQ(lastAudit("cancel-migration")->reason, "wrong target");
    ASSERT_TRUE(waitFor([&] { return !shown(queued.id)->active(); }, 120000)) << m_controller->stderrText();
    EXPECT_EQ(shown(queued.id)->phase, core::MigrationPhase::Cancelled);
    EXPECT_EQ(shardOf("acme"), source);

    auto [unknown, why] = act([&] { m_page->resume(QStringLiteral("m-nope"), QStringLiteral("typo")); });
    EXPECT_FALSE(unknown);
    EXPECT_TRUE(m_page->messageIsError());
    EXPECT_TRUE(m_page->messageText().contains(QStringLiteral("m-nope"))) << m_page->messageText().toStdString();

    auto [limited, limitMessage] = act([&] { m_page->setMaxConcurrent(2, QStringLiteral("quiet hours")); });
    ASSERT_TRUE(limited) << limitMessage.toStdString();
    EXPECT_EQ(map().settings.value.maxConcurrent, 2u);
}

TEST_F(MigrationsPageTest, RollbackInTheWindowFromThePage)
{
    core::MigrationSettings settings;
    settings.rollbackWindowSeconds = 120;
    settings.backfillBatch = 100;
    setSettings(settings);
    startController();
    writeDocuments("acme", 300);
    openPage();
    const std::string source = shardOf("acme");
    const auto queued = queue("acme", 0);
    const QString id = QString::fromStdString(queued.id);
    ASSERT_TRUE(
        waitFor([&] { return shown(queued.id) && shown(queued.id)->phase == core::MigrationPhase::Cleanup; }, 120000))
        << m_controller->stderrText();
    EXPECT_TRUE(m_page->refusal(MigrationsPage::Action::Rollback, id).isEmpty());

    auto [rolled, message] = act([&] { m_page->rollback(id, QStringLiteral("latency regression")); });
    ASSERT_TRUE(rolled) << message.toStdString();
    EXPECT_EQ(lastAudit("rollback-migration")->reason, "latency regression");
    ASSERT_TRUE(waitFor([&] { return !shown(queued.id)->active(); }, 120000)) << m_controller->stderrText();
    EXPECT_TRUE(shown(queued.id)->rolledBack);
    EXPECT_EQ(shardOf("acme"), source);
    // The table's route is the one asked for, and says that it went back.
    EXPECT_EQ(m_page->model()->index(m_page->model()->rowOf(id), MigrationsModel::RouteColumn).data().toString(),
        QStringLiteral("%1 → %2, rolled back")
            .arg(QString::fromStdString(source), QString::fromStdString(queued.target)));

    // The detail view ("Details…" on the selected row) keeps the direction that was asked for.
    m_page->selectMigration(id);
    m_page->openSelectedDetail();
    auto* dialog = m_page->findChild<MigrationDetailDialog*>();
    ASSERT_TRUE(dialog);
    ASSERT_TRUE(detailShowsFinal(dialog, queued.id)) << dialog->messageText().toStdString();
    const QString requested
        = QStringLiteral("%1 → %2").arg(QString::fromStdString(source), QString::fromStdString(queued.target));
    EXPECT_EQ(dialog->fieldText(MigrationDetailDialog::Field::RequestedDirection), requested);
    EXPECT_TRUE(dialog->fieldText(MigrationDetailDialog::Field::CurrentDirection)
                    .startsWith(QStringLiteral("%1 → %2").arg(
                        QString::fromStdString(queued.target), QString::fromStdString(source))))
        << dialog->fieldText(MigrationDetailDialog::Field::CurrentDirection).toStdString();
    EXPECT_TRUE(eventKinds(dialog).contains(QStringLiteral("rollback requested")))
        << eventKinds(dialog).join(", ").toStdString();
    EXPECT_TRUE(eventKinds(dialog).contains(QStringLiteral("rolled back")))
        << eventKinds(dialog).join(", ").toStdString();
}

TEST_F(MigrationsPageTest, TheDetailViewCountsRetriesOfTheSameError)
{
    // Every backfill batch after the first fails: the executor retries with a growing backoff.
    startController({ "SHARDMAP_FAILPOINTS=migration.backfill.batch=error@2+" });
    writeDocuments("acme", 400);
    openPage();
    const auto queued = queue("acme", 0);
    const QString id = QString::fromStdString(queued.id);
    ASSERT_TRUE(waitFor([&] { return shown(queued.id) != nullptr; }));
    auto* dialog = m_page->openDetail(id);
    ASSERT_TRUE(dialog);
    const auto retryText = [&] {
        for (int i = 0; i < dialog->eventsView()->topLevelItemCount(); ++i) {
            const QTreeWidgetItem* item = dialog->eventsView()->topLevelItem(i);
            if (item->text(1) == QStringLiteral("retry"))
                return item->text(2);
        }
        return QString();
    };
    ASSERT_TRUE(waitFor([&] { return retryText().contains(QStringLiteral("3 times, the last at")); }, 60000))
        << retryText().toStdString() << m_controller->stderrText();
    EXPECT_TRUE(retryText().startsWith(QStringLiteral("failpoint migration.backfill.batch injected an error")))
        << retryText().toStdString();
    EXPECT_EQ(eventKinds(dialog).count(QStringLiteral("retry")), 1) << eventKinds(dialog).join(", ").toStdString();
    auto [cancelled, message] = act([&] { m_page->cancel(id, QStringLiteral("stop retrying")); });
    ASSERT_TRUE(cancelled) << message.toStdString();
    ASSERT_TRUE(waitFor([&] { return !shown(queued.id)->active(); }, 60000)) << m_controller->stderrText();
}

TEST_F(MigrationsPageTest, DetailViewOfARealMigrationShowsItsPhasesThroughputAndEvents)
{
    startController();
    writeDocuments("acme", 1500);
    openPage();
    m_page->resize(1200, 600);
    m_page->show();
    const std::string source = shardOf("acme");
    // 1,500 documents at 300/s: a backfill of about 5 s, a progress sample every 2 s.
    const auto queued = queue("acme", 300);
    const QString id = QString::fromStdString(queued.id);
    ASSERT_TRUE(waitFor([&] { return shown(queued.id) && shown(queued.id)->progress.docsDone > 0; }));

    // Enter on the row opens the view while the migration runs; it follows the migration to its end.
    const QModelIndex row = m_page->proxy()->mapFromSource(m_page->model()->index(m_page->model()->rowOf(id), 0));
    m_page->view()->setCurrentIndex(row);
    QTest::keyClick(m_page->view(), Qt::Key_Return);
    auto* dialog = m_page->findChild<MigrationDetailDialog*>();
    ASSERT_TRUE(dialog);
    EXPECT_EQ(dialog->migrationId(), id);
    EXPECT_EQ(m_page->openDetail(id), dialog) << "one view per migration";
    auto [paused, pauseMessage] = act([&] { m_page->pause(id, QStringLiteral("look at it")); });
    ASSERT_TRUE(paused) << pauseMessage.toStdString();
    // The view follows the running migration: the executor records the pause in the history.
    ASSERT_TRUE(waitFor([&] { return eventKinds(dialog).contains(QStringLiteral("paused")); }))
        << eventKinds(dialog).join(", ").toStdString();
    auto [resumed, resumeMessage] = act([&] { m_page->resume(id, QStringLiteral("go on")); });
    ASSERT_TRUE(resumed) << resumeMessage.toStdString();
    ASSERT_TRUE(waitFor([&] { return !shown(queued.id)->active(); }, 120000)) << m_controller->stderrText();
    ASSERT_EQ(shown(queued.id)->phase, core::MigrationPhase::Done) << shown(queued.id)->error;
    ASSERT_TRUE(detailShowsFinal(dialog, queued.id)) << dialog->messageText().toStdString();
    EXPECT_TRUE(dialog->messageText().isEmpty()) << dialog->messageText().toStdString();

    using Field = MigrationDetailDialog::Field;
    EXPECT_EQ(dialog->fieldText(Field::Space), QStringLiteral("acme"));
    EXPECT_EQ(dialog->fieldText(Field::RequestedDirection),
        QStringLiteral("%1 → %2").arg(QString::fromStdString(source), QString::fromStdString(queued.target)));
    EXPECT_EQ(dialog->fieldText(Field::Throttle), QStringLiteral("300 docs/s"));
    EXPECT_TRUE(dialog->fieldText(Field::Verification).contains(QStringLiteral("equal")))
        << dialog->fieldText(Field::Verification).toStdString();
    EXPECT_EQ(dialog->fieldText(Field::RequestedBy), QString::fromStdString(m_actor.name));

    // The phases in order, each with its times; done is the last, a mark.
    const auto& phases = dialog->row()->history->phases;
    const std::vector<PhaseTimeline::Row>& rows = dialog->timeline()->rows();
    ASSERT_EQ(rows.size(), phases.size());
    std::vector<core::MigrationPhase> order;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        order.push_back(rows[i].phase);
        EXPECT_EQ(rows[i].startedUnixMs, phases[i].startedUnixMs);
        EXPECT_FALSE(rows[i].timeText.isEmpty());
        if (i > 0) {
            EXPECT_LE(rows[i - 1].startedUnixMs, rows[i].startedUnixMs);
        }
        if (i + 1 < rows.size()) {
            EXPECT_GT(rows[i].endedUnixMs, 0) << "every phase but the last has ended";
        }
    }
    const auto at = [&](core::MigrationPhase phase) { return std::find(order.begin(), order.end(), phase); };
    EXPECT_EQ(order.front(), core::MigrationPhase::Queued);
    EXPECT_EQ(order.back(), core::MigrationPhase::Done);
    EXPECT_LT(at(core::MigrationPhase::DualWrite), at(core::MigrationPhase::Backfill));
    EXPECT_LT(at(core::MigrationPhase::Backfill), at(core::MigrationPhase::Cutover));
    EXPECT_LT(at(core::MigrationPhase::Cutover), at(core::MigrationPhase::Done));
    EXPECT_EQ(rows.back().label, QStringLiteral("done"));

    // Throughput: documents per second between the history's progress samples.
    TimeSeriesChart* chart = dialog->throughputChart();
    ASSERT_GE(dialog->row()->history->samples.size(), 2u);
    EXPECT_GE(chart->storedPointCount(MigrationDetailDialog::throughputKey()), 2);
    chart->flushNow();
    const auto drawn = chart->drawnPoints(MigrationDetailDialog::throughputKey());
    EXPECT_TRUE(std::any_of(drawn.begin(), drawn.end(), [](const auto& point) { return point.second > 0; }));

    // Events: the pause and the resume, and the end.
    const QStringList kinds = eventKinds(dialog);
    EXPECT_TRUE(kinds.contains(QStringLiteral("paused"))) << kinds.join(", ").toStdString();
    EXPECT_TRUE(kinds.contains(QStringLiteral("resumed"))) << kinds.join(", ").toStdString();
    EXPECT_TRUE(kinds.contains(QStringLiteral("done"))) << kinds.join(", ").toStdString();

    const QString dir = QStringLiteral(SHARDMAP_TEST_ARTIFACTS) + QStringLiteral("/screenshots");
    ASSERT_TRUE(QDir().mkpath(dir));
    for (int i = 0; i < 20; ++i) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    }
    const QImage image = dialog->grab().toImage();
    ASSERT_FALSE(image.isNull());
    EXPECT_TRUE(image.save(dir + QStringLiteral("/console-migration-detail.png")));
}

} // namespace
} // namespace shardmap::widgets

namespace shardmap::widgets {
namespace {

// Waits for the dialog to read its report; false when reading failed.
bool loaded(ReportExportDialog* dialog)
{
    QSignalSpy spy(dialog, &ReportExportDialog::loaded);
    if (!dialog->isLoaded() && dialog->messageText().isEmpty())
        testing::waitFor([&] { return spy.count() > 0; });
    return dialog->isLoaded();
}

std::pair<bool, QString> exportTo(
    ReportExportDialog* dialog, ReportExportDialog::Format format, const std::string& path)
{
    dialog->setFormat(format);
    dialog->setPath(QString::fromStdString(path));
    QSignalSpy done(dialog, &ReportExportDialog::exported);
    dialog->exportReport();
    if (!testing::waitFor([&] { return done.count() > 0; }))
        return { false, QStringLiteral("no answer") };
    return { done.at(0).at(0).toBool(), done.at(0).at(1).toString() };
}

} // namespace

TEST_F(MigrationsPageTest, ExportsReportsOfTheSelectionAnOperationAndTheFilterWithAPreview)
{
    startController();
    writeDocuments("acme", 600);
    writeDocuments("globex", 600);
    openPage();
    core::MigrationRequests requests(*m_store, m_pool);
    auto operation = requests.moveSpaces({ { "acme", shardOf("acme") == "s0" ? "s1" : "s0" } }, m_actor);
    ASSERT_TRUE(operation) << operation.error().describe();
    const auto single = queue("globex", 0);
    const std::string moved = operation->migrations.at(0);
    ASSERT_TRUE(waitFor(
        [&] { return shown(moved) && !shown(moved)->active() && shown(single.id) && !shown(single.id)->active(); },
        120000))
        << m_controller->stderrText();

    // The selection: both rows; actions take one migration, the report both.
    m_page->view()->selectAll();
    EXPECT_EQ(m_page->selectedMigrations().size(), 2);
    EXPECT_TRUE(m_page->selectedMigration().isEmpty());
    ReportExportDialog* dialog = m_page->exportReport();
    ASSERT_TRUE(dialog);
    ASSERT_TRUE(loaded(dialog)) << dialog->messageText().toStdString();
    EXPECT_EQ(dialog->report()->rows.size(), 2u);
    const auto [csvOk, csvMessage] = exportTo(dialog, ReportExportDialog::Format::Csv, m_dir.file("selection.csv"));
    ASSERT_TRUE(csvOk) << csvMessage.toStdString();
    const auto rows = testing::parseCsv(testing::readWholeFile(m_dir.file("selection.csv")));
    ASSERT_EQ(rows.size(), 3u);
    const auto [pdfOk, pdfMessage] = exportTo(dialog, ReportExportDialog::Format::Pdf, m_dir.file("selection.pdf"));
    ASSERT_TRUE(pdfOk) << pdfMessage.toStdString();
    const std::string text = testing::pdfText(m_dir.file("selection.pdf"), m_dir.file("pdftotext.err"));
    EXPECT_NE(text.find(moved), std::string::npos);
    EXPECT_NE(text.find(single.id), std::string::npos);
    EXPECT_NE(text.find("2 selected migrations"), std::string::npos) << text;
    // A file that cannot be written is an inline error, and the dialog stays usable.
    const auto [refused, why] = exportTo(dialog, ReportExportDialog::Format::Json, m_dir.file("no/such/dir/r.json"));
    EXPECT_FALSE(refused);
    EXPECT_TRUE(dialog->messageIsError());
    EXPECT_TRUE(why.contains(QStringLiteral("cannot write"))) << why.toStdString();
    dialog->close();

    // The operation filter alone: the operation's report, with its shards before and after.
    m_page->view()->clearSelection();
    m_page->showOperation(QString::fromStdString(operation->id));
    ReportExportDialog* ofOperation = m_page->exportReport();
    ASSERT_TRUE(ofOperation);
    ASSERT_TRUE(loaded(ofOperation)) << ofOperation->messageText().toStdString();
    ASSERT_EQ(ofOperation->report()->operations.size(), 1u);
    EXPECT_EQ(ofOperation->report()->scope.operation, operation->id);
    EXPECT_EQ(ofOperation->report()->operations[0].shards.size(), 2u);
    ReportPreviewDialog* preview = ofOperation->preview();
    ASSERT_TRUE(preview);
    QSignalSpy shownPage(preview, &ReportPreviewDialog::pageShown);
    ASSERT_TRUE(waitFor([&] { return shownPage.count() > 0; })) << preview->statusText().toStdString();
    EXPECT_GE(preview->pageCount(), 1);
    EXPECT_FALSE(preview->shownPage().isNull());
    ofOperation->close();

    // An operation the map does not have: said inline, nothing to export.
    ReportExportDialog* unknown = m_page->exportOperationReport(QStringLiteral("op-nope"));
    EXPECT_FALSE(loaded(unknown));
    EXPECT_TRUE(unknown->messageIsError());
    EXPECT_TRUE(unknown->messageText().contains(QStringLiteral("op-nope"))) << unknown->messageText().toStdString();
    unknown->close();
}

} // namespace shardmap::widgets
