// A space in its migration's rollback window has arrived on its new shard (issue 26): the map
// page's tile names no move back, the lanes project it where it is, and the console says "done,
// rollback possible until HH:MM" the same way wherever it shows such a migration.
#include "widgets/map/shard_map_model.h"
#include "widgets/migrations/migration_detail_dialog.h"
#include "widgets/migrations/migrations_model.h"
#include "widgets/style/format.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
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
