// A space in its migration's rollback window has arrived on its new shard (issue 26): the map
// page's tile names no move back, the lanes project it where it is, and the console says "done,
// rollback possible until HH:MM" the same way wherever it shows such a migration, counting down
// as the clock goes (the migrations page, the detail view, the overview's tile). And the map and
// the detail view in German: states, numbers and dates as the locale writes them.
#include "core/store/metadata_store.h"
#include "tests/support/test_dir.h"
#include "tests/widgets/wait_for.h"
#include "widgets/map/shard_map_model.h"
#include "widgets/map/shard_map_view.h"
#include "widgets/migrations/migration_detail_dialog.h"
#include "widgets/migrations/migrations_model.h"
#include "widgets/overview/migrations_summary.h"
#include "widgets/session/fleet_connection.h"
#include "widgets/style/format.h"
#include "widgets/style/i18n.h"

#include <QAbstractItemModelTester>
#include <QCoreApplication>
#include <QDateTime>
#include <QRegularExpression>
#include <QSignalSpy>
#include <gtest/gtest.h>

namespace shardmap::widgets {
namespace {

constexpr std::int64_t kWindowMs = 600'000;

// c moved from s1 to s2 a minute ago; s1 keeps its copy for a rollback.
std::shared_ptr<core::MapSnapshot> movedMap(std::int64_t cutoverUnixMs)
{
    auto map = std::make_shared<core::MapSnapshot>();
    map->revision = 7;
    map->settings.value.rollbackWindowSeconds = kWindowMs / 1000;
    map->nodes["n1"] = { core::NodeRecord { "n1", "127.0.0.1:2", {}, false }, 1 };
    for (const std::string shard : { "s0", "s1", "s2" })
        map->shards[shard] = { core::ShardRecord { shard, "n1", core::ShardState::Active, 0, 0 }, 1 };
    core::SpaceRecord c;
    c.id = "c";
    c.shard = "s2";
    c.target = "s1";
    c.migrationId = "m-1";
    c.phase = core::MigrationPhase::Cleanup;
    map->spaces["c"] = { c, 3 };
    core::MigrationRecord migration;
    migration.id = "m-1";
    migration.space = "c";
    migration.source = "s1";
    migration.target = "s2";
    migration.phase = core::MigrationPhase::Cleanup;
    migration.cutoverUnixMs = cutoverUnixMs;
    map->migrations["m-1"] = { migration, 3 };
    return map;
}

SamplePtr sampleWithC()
{
    auto sample = std::make_shared<core::NodeMetricsValue>();
    sample->nodeId = "n1";
    for (const std::string shard : { "s0", "s1", "s2" }) {
        core::ShardMetricsValue figures;
        figures.shard = shard;
        if (shard == "s2")
            figures.spaceMetrics = { { "c", 40, 4000, 0, 0 } };
        figures.liveDocs = shard == "s2" ? 40 : 0;
        figures.bytesEstimate = shard == "s2" ? 4000 : 0;
        sample->shards.push_back(figures);
    }
    return sample;
}

// German for the test's length, English again after it.
struct German {
    German() { installTranslations(*QCoreApplication::instance(), QStringLiteral("de")); }
    ~German() { installTranslations(*QCoreApplication::instance(), QStringLiteral("en")); }
    German(const German&) = delete;
    German& operator=(const German&) = delete;
};

// movedMap() in a real SQLite store, and a connection that reads it (its node does not answer).
class StoredWindow : public ::testing::Test {
protected:
    void open(std::int64_t cutoverUnixMs)
    {
        auto store = core::openStore("sqlite:" + m_dir.file("map.db"), true);
        ASSERT_TRUE(store) << store.error().describe();
        const auto map = movedMap(cutoverUnixMs);
        core::MigrationRecord& migration = map->migrations.at("m-1").value;
        migration.createdUnixMs = migration.startedUnixMs = cutoverUnixMs - 5000;
        // What the executor leaves once the copy is done: its rate, and an ETA of 0 s.
        migration.backfilled = true;
        migration.progress.docsDone = migration.progress.docsTotal = 1200;
        migration.progress.docsPerSecond = 34486;
        migration.progress.etaSeconds = 0;
        std::vector<core::Mutation> records;
        for (const auto& [id, node] : map->nodes)
            records.push_back({ core::keys::node(id), core::encode(node.value), 0 });
        for (const auto& [id, shard] : map->shards)
            records.push_back({ core::keys::shard(id), core::encode(shard.value), 0 });
        records.push_back({ core::keys::space("c"), core::encode(map->spaces.at("c").value), 0 });
        records.push_back({ core::keys::migration("m-1"), core::encode(migration), 0 });
        ASSERT_TRUE((*store)->commit({ records, std::nullopt, std::nullopt, "executor", "migration-cutover", "" }));
        ConnectionSpec spec;
        spec.storeUri = QString::fromStdString("sqlite:" + m_dir.file("map.db"));
        m_connection.open(spec);
        ASSERT_TRUE(testing::waitFor([&] { return m_connection.map() && m_connection.map()->migrations.size() == 1; }));
    }

    testing::TempDir m_dir;
    FleetConnection m_connection;
};

} // namespace

TEST(RollbackWindow, TheTileOfAMovedSpaceNamesItsNewShardDuringTheWindow)
{
    const std::int64_t cutover = QDateTime::currentMSecsSinceEpoch() - 60'000;
    ShardMapModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setMap(movedMap(cutover));
    model.applySample(QStringLiteral("n1"), sampleWithC());
    model.flushProjections();

    const QModelIndex tile = model.spaceIndex(QStringLiteral("c"));
    ASSERT_TRUE(tile.isValid());
    EXPECT_EQ(tile.parent().data(ShardMapModel::IdRole).toString(), QStringLiteral("s2"));
    // Read as "migrating to its target", the tile said "c → s1": a move back.
    EXPECT_TRUE(tile.data(ShardMapModel::MigratingToRole).toString().isEmpty());
    const QString tip = tile.data(Qt::ToolTipRole).toString();
    EXPECT_TRUE(tip.contains(QStringLiteral("Moved to s2: done, rollback possible until "))) << tip.toStdString();
    // The lanes project c on s2, where it is, not back on s1.
    EXPECT_EQ(model.laneIndex(QStringLiteral("s2")).data(ShardMapModel::ProjectedDocsRole).toULongLong(), 40u);
    EXPECT_EQ(model.laneIndex(QStringLiteral("s1")).data(ShardMapModel::ProjectedDocsRole).toULongLong(), 0u);
}

TEST(RollbackWindow, TheOldShardsLaneHasNoTileAndADragSaysWhenTheSpaceCanMove)
{
    const std::int64_t cutover = QDateTime::currentMSecsSinceEpoch() - 60'000;
    ShardMapModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setMap(movedMap(cutover));
    // s1 keeps a copy of c for a rollback, but c lives on s2: one tile, on s2.
    EXPECT_EQ(model.rowCount(model.laneIndex(QStringLiteral("s1"))), 0);
    EXPECT_EQ(model.rowCount(model.laneIndex(QStringLiteral("s2"))), 1);

    const QString clock
        = QLocale().toString(QDateTime::fromMSecsSinceEpoch(cutover + kWindowMs).time(), QStringLiteral("HH:mm"));
    const QString refusal = model.moveRefusal({ QStringLiteral("c") }, QStringLiteral("s0"));
    EXPECT_TRUE(
        refusal.startsWith(QStringLiteral("Space c moved to s2 (m-1): done, rollback possible until %1 (").arg(clock)))
        << refusal.toStdString();
    EXPECT_TRUE(refusal.endsWith(QStringLiteral("; it can move after that"))) << refusal.toStdString();

    // The window closed and the cleanup cleared the record: c is an ordinary space on s2.
    auto settled = std::make_shared<core::MapSnapshot>(*movedMap(cutover));
    settled->revision = 8;
    core::SpaceRecord& c = settled->spaces["c"].value;
    c.target.clear();
    c.migrationId.clear();
    c.phase = core::MigrationPhase::Done;
    settled->migrations.clear();
    model.setMap(settled);
    EXPECT_EQ(model.rowCount(model.laneIndex(QStringLiteral("s1"))), 0);
    EXPECT_EQ(model.rowCount(model.laneIndex(QStringLiteral("s2"))), 1);
    EXPECT_TRUE(model.moveRefusal({ QStringLiteral("c") }, QStringLiteral("s0")).isEmpty());
}

TEST(RollbackWindow, TheMigrationsPageSaysDoneAndUntilWhenARollbackIsPossible)
{
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    const std::int64_t cutover = now - 60'000;
    const auto map = movedMap(cutover);
    MigrationsModel model;
    model.setMap(map);
    const QString clock
        = QLocale().toString(QDateTime::fromMSecsSinceEpoch(cutover + kWindowMs).time(), QStringLiteral("HH:mm"));
    const QString phase = model.index(0, MigrationsModel::PhaseColumn).data().toString();
    EXPECT_TRUE(phase.startsWith(QStringLiteral("done, rollback possible until %1 (").arg(clock)))
        << phase.toStdString();
    // One formatting for all: the same words, and nothing once the window has closed.
    EXPECT_EQ(formatRollbackWindow(cutover + kWindowMs, now).left(40), phase.left(40));
    EXPECT_TRUE(formatRollbackWindow(cutover + kWindowMs, cutover + kWindowMs).isEmpty());
    EXPECT_EQ(MigrationsModel::phaseText(map->migrations.at("m-1").value), QStringLiteral("cleanup"));
}

// The countdown steps when its text would: by the second under an hour, by the minute above.
TEST(RollbackWindow, TheCountdownSaysWhenItsTextChangesNext)
{
    const std::int64_t until = 1'700'000'600'000;
    for (std::int64_t left = 1; left <= 3 * 3600 * 1000; left += left < 200'000 ? 997 : 59'999) {
        const std::int64_t now = until - left;
        const std::int64_t in = rollbackWindowTextChangesInMs(until, now);
        ASSERT_GT(in, 0) << left;
        EXPECT_EQ(formatRollbackWindow(until, now + in - 1), formatRollbackWindow(until, now)) << left;
        EXPECT_NE(formatRollbackWindow(until, now + in), formatRollbackWindow(until, now)) << left;
    }
    EXPECT_EQ(rollbackWindowTextChangesInMs(until, until), -1);
    EXPECT_EQ(rollbackWindowTextChangesInMs(0, until), -1);
}

// The migrations page's phase column follows the clock in the window: one timer, and only the
// phase of the rows in their window is repainted; without a window open the timer is idle.
TEST(RollbackWindow, TheMigrationsPageCountsDownOnlyTheRowsInTheirWindow)
{
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    auto map = movedMap(now - kWindowMs + 90'000);
    core::MigrationRecord copying;
    copying.id = "m-2";
    copying.space = "d";
    copying.source = "s0";
    copying.target = "s1";
    copying.phase = core::MigrationPhase::Backfill;
    copying.progress.etaSeconds = 42;
    map->migrations["m-2"] = { copying, 3 };
    MigrationsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setMap(map);
    EXPECT_TRUE(model.countdownTimer().isActive());
    const int row = model.rowOf(QStringLiteral("m-1"));
    const QModelIndex phase = model.index(row, MigrationsModel::PhaseColumn);
    const QString before = phase.data().toString();
    ASSERT_TRUE(before.startsWith(QStringLiteral("done, rollback possible until "))) << before.toStdString();

    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    ASSERT_TRUE(testing::waitFor([&] { return !changed.isEmpty(); }, 10000));
    for (const QList<QVariant>& emitted : changed) {
        EXPECT_EQ(emitted.at(0).toModelIndex(), phase);
        EXPECT_EQ(emitted.at(1).toModelIndex(), phase);
    }
    EXPECT_NE(phase.data().toString(), before);
    EXPECT_TRUE(model.countdownTimer().isActive());
    // The ETA is the copy's: nothing for the move in its window, the copy's time for the other.
    EXPECT_TRUE(model.index(row, MigrationsModel::EtaColumn).data().toString().isEmpty());
    EXPECT_EQ(model.index(model.rowOf(QStringLiteral("m-2")), MigrationsModel::EtaColumn).data().toString(),
        QStringLiteral("42 s"));

    map = std::make_shared<core::MapSnapshot>(*map);
    map->migrations.erase("m-1");
    model.setMap(map);
    EXPECT_FALSE(model.countdownTimer().isActive());
}

// The detail view's phase counts down too, without reading the migration again.
TEST_F(StoredWindow, TheMigrationDetailCountsDownTheWindow)
{
    open(QDateTime::currentMSecsSinceEpoch() - kWindowMs + 90'000);
    MigrationDetailDialog dialog(&m_connection, QStringLiteral("m-1"));
    QSignalSpy loaded(&dialog, &MigrationDetailDialog::loaded);
    ASSERT_TRUE(testing::waitFor([&] { return !loaded.isEmpty(); }));
    const QString before = dialog.fieldText(MigrationDetailDialog::Field::Phase);
    ASSERT_TRUE(before.startsWith(QStringLiteral("done, rollback possible until "))) << before.toStdString();
    ASSERT_TRUE(
        testing::waitFor([&] { return dialog.fieldText(MigrationDetailDialog::Field::Phase) != before; }, 10000));
    EXPECT_TRUE(dialog.fieldText(MigrationDetailDialog::Field::Phase).startsWith(before.left(35)));
    EXPECT_EQ(loaded.count(), 1) << "the countdown reads nothing again";
    EXPECT_FALSE(dialog.fieldText(MigrationDetailDialog::Field::Progress).contains(QStringLiteral("left")))
        << dialog.fieldText(MigrationDetailDialog::Field::Progress).toStdString();
}

// German (issue 26, point 12): the detail view's dates are the locale's, not ISO.
TEST_F(StoredWindow, TheMigrationDetailWritesDatesAsTheLocaleDoes)
{
    const German german;
    const std::int64_t cutover = QDateTime::currentMSecsSinceEpoch() - 60'000;
    open(cutover);
    MigrationDetailDialog dialog(&m_connection, QStringLiteral("m-1"));
    QSignalSpy loaded(&dialog, &MigrationDetailDialog::loaded);
    ASSERT_TRUE(testing::waitFor([&] { return !loaded.isEmpty(); }));
    const QString created = dialog.fieldText(MigrationDetailDialog::Field::Created);
    EXPECT_EQ(created, formatDateTime(cutover - 5000));
    EXPECT_TRUE(QRegularExpression(QStringLiteral("^\\d{1,2}\\.\\d{1,2}\\.\\d{2,4} \\d{1,2}:\\d\\d:\\d\\d$"))
                    .match(created)
                    .hasMatch())
        << created.toStdString();
    EXPECT_TRUE(dialog.fieldText(MigrationDetailDialog::Field::Phase)
                    .startsWith(QStringLiteral("fertig, Rückabwicklung möglich bis ")))
        << dialog.fieldText(MigrationDetailDialog::Field::Phase).toStdString();
}

// The overview's tile: a move in its window is done and can be rolled back until a time; it is
// never "open" with "0 s left".
TEST(RollbackWindow, TheOverviewCountsAMoveInItsWindowAsDone)
{
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    auto map = movedMap(now - 60'000);
    const auto add = [&](const std::string& id, core::MigrationPhase phase, std::int64_t eta) {
        core::MigrationRecord record;
        record.id = id;
        record.space = id;
        record.source = "s0";
        record.target = "s1";
        record.phase = phase;
        record.progress.docsDone = 40;
        record.progress.docsTotal = 100;
        record.progress.etaSeconds = eta;
        map->migrations[id] = { record, 3 };
    };
    add("m-2", core::MigrationPhase::Backfill, 180);
    add("m-3", core::MigrationPhase::Queued, -1);
    const QString clock = formatClock(now - 60'000 + kWindowMs);
    MigrationsSummary summary = summarizeMigrations(*map, now);
    EXPECT_EQ(summary.value, QStringLiteral("2 active, 1 done (rollback possible until %1)").arg(clock));
    EXPECT_EQ(summary.detail, QStringLiteral("40 % copied, 1 queued, about 3 min 0 s left"));
    EXPECT_EQ(summary.open, 3);

    // Only the window: done, no ETA at all.
    map->migrations.erase("m-2");
    map->migrations.erase("m-3");
    summary = summarizeMigrations(*map, now);
    EXPECT_EQ(summary.value, QStringLiteral("1 done (rollback possible until %1)").arg(clock));
    EXPECT_TRUE(summary.detail.isEmpty()) << summary.detail.toStdString();
    // The window closed, the old copy is being removed.
    summary = summarizeMigrations(*map, now + kWindowMs);
    EXPECT_EQ(summary.value, QStringLiteral("1 done"));
    EXPECT_EQ(summary.detail, QStringLiteral("1 removing the old copy"));
    // A verify past the backfill has no time left to show.
    add("m-4", core::MigrationPhase::Verify, 0);
    summary = summarizeMigrations(*map, now);
    EXPECT_FALSE(summary.detail.contains(QStringLiteral("left"))) << summary.detail.toStdString();
}

// German (issue 26, point 12): the map page's lanes name their state in German, a tile's
// documents are counted as the locale writes numbers.
TEST(RollbackWindow, TheMapsLanesAndTilesSpeakGerman)
{
    const German german;
    auto map = movedMap(QDateTime::currentMSecsSinceEpoch() - 60'000);
    map->shards["s1"].value.state = core::ShardState::Draining;
    auto sample = std::make_shared<core::NodeMetricsValue>(*sampleWithC());
    for (core::ShardMetricsValue& shard : sample->shards) {
        for (auto& space : shard.spaceMetrics)
            space.liveDocs = 12'345;
    }
    ShardMapModel model;
    model.setMap(map);
    model.applySample(QStringLiteral("n1"), sample);
    ShardMapView view;
    view.setModel(&model);
    const QModelIndex draining = model.laneIndex(QStringLiteral("s1"));
    EXPECT_EQ(view.laneTitle(draining), QStringLiteral("s1 (wird geleert)"));
    EXPECT_EQ(view.laneTitle(model.laneIndex(QStringLiteral("s2"))), QStringLiteral("s2"));
    EXPECT_EQ(draining.data(Qt::ToolTipRole).toString(), QStringLiteral("Shard s1 auf Knoten n1 (wird geleert)"));
    const QString tip = model.spaceIndex(QStringLiteral("c")).data(Qt::ToolTipRole).toString();
    EXPECT_TRUE(tip.startsWith(QStringLiteral("Space c: 12.345 Dokumente, "))) << tip.toStdString();
}

// A backfill too quick for two samples: once it is done (in the window and after it) the detail
// says what it copied, never "no progress recorded yet".
TEST(RollbackWindow, AFinishedBackfillWithoutSamplesSaysWhatItCopied)
{
    core::MigrationRecord record;
    record.id = "m-1";
    record.progress.docsDone = 1200;
    record.progress.docsPerSecond = 34486;
    for (const core::MigrationPhase phase :
        { core::MigrationPhase::Verify, core::MigrationPhase::Cleanup, core::MigrationPhase::Done }) {
        record.phase = phase;
        const QString text = MigrationDetailDialog::backfillWithoutSamplesText(record);
        EXPECT_TRUE(text.startsWith(QStringLiteral("The backfill copied 1,200 documents at 34,486 docs/s")))
            << text.toStdString();
    }
    record.progress.docsPerSecond = 0;
    EXPECT_TRUE(MigrationDetailDialog::backfillWithoutSamplesText(record).startsWith(
        QStringLiteral("The backfill copied 1,200 documents, too quickly for a chart")));
    for (const core::MigrationPhase phase : { core::MigrationPhase::Backfill, core::MigrationPhase::Failed }) {
        record.phase = phase;
        EXPECT_TRUE(MigrationDetailDialog::backfillWithoutSamplesText(record).startsWith(
            QStringLiteral("No backfill progress recorded yet")));
    }
}

} // namespace shardmap::widgets
