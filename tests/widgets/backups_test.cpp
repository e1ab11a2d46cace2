// The Backups page (issue 32) against a real store, a real node and a real shardmapd whose
// executor leader takes the snapshots: the repository line, a snapshot taken, shown verified and
// deleted through the page's requests, and a fleet without a repository offering nothing to take.
#include "core/migration/migration_requests.h"
#include "core/snapshot/snapshot_requests.h"
#include "tests/support/controller_process.h"
#include "tests/support/fleet_test.h"
#include "tests/widgets/wait_for.h"
#include "widgets/alerts/alert_monitor.h"
#include "widgets/backups/backups_page.h"
#include "widgets/session/fleet_connection.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <filesystem>
#include <gtest/gtest.h>

using namespace shardmap;
using namespace shardmap::widgets;
using shardmap::testing::waitFor;

namespace {

class BackupsPageTest : public shardmap::testing::FleetTest<::testing::Test> {
protected:
    void SetUp() override { startFleet(1); }

    void connect()
    {
        ConnectionSpec spec;
        spec.storeUri = QString::fromStdString(storeUri());
        m_connection.open(spec);
        ASSERT_TRUE(waitFor([&] { return m_connection.map() && m_connection.map()->shard("s0"); }));
    }

    QString cell(const QTableWidget& table, int row, int column)
    {
        return table.item(row, column) ? table.item(row, column)->text() : QString();
    }

    FleetConnection m_connection;
};

} // namespace

TEST_F(BackupsPageTest, ASnapshotTakenFromThePageIsShownVerifiedAndDeleted)
{
    const std::string repository = m_dir.file("repository");
    std::filesystem::create_directories(repository);
    core::MigrationSettings settings;
    settings.snapshotRepository = repository;
    settings.snapshotPauseMs = 0;
    ASSERT_TRUE(core::MigrationRequests(*m_store, m_pool).setSettings(settings, m_actor));
    auto controller = shardmap::testing::ControllerProcess::start(
        m_dir.file("c1.stderr.log"), { "--store", storeUri(), "--id", "c1", "--lease-ttl-ms", "1000" });
    ASSERT_TRUE(controller);
    connect();

    BackupsPage page(&m_connection);
    page.show();
    EXPECT_TRUE(page.repositoryText().contains(QString::fromStdString(repository)))
        << page.repositoryText().toStdString();
    EXPECT_TRUE(page.repositoryText().contains(QStringLiteral("on demand only")));
    ASSERT_TRUE(page.takeButton()->isEnabled()) << page.takeButton()->toolTip().toStdString();
    EXPECT_FALSE(page.verifyButton()->isEnabled()) << "nothing selected";

    QSignalSpy finished(&page, &BackupsPage::actionFinished);
    page.takeSnapshot(QStringLiteral("before the upgrade"));
    ASSERT_TRUE(waitFor([&] { return finished.count() == 1; }));
    EXPECT_TRUE(finished.front().at(0).toBool()) << finished.front().at(1).toString().toStdString();
    QTableWidget& table = *page.table();
    ASSERT_TRUE(waitFor(
        [&] { return table.rowCount() == 1 && cell(table, 0, 1).startsWith(QStringLiteral("verified")); }, 30000))
        << cell(table, 0, 1).toStdString() << "\n"
        << controller->stderrText();
    EXPECT_EQ(cell(table, 0, 5), QStringLiteral("1 of 1")) << "s0's file copied";
    const QString id = cell(table, 0, 0);
    EXPECT_TRUE(std::filesystem::exists(repository + "/" + id.toStdString() + "/manifest.json"));
    table.selectRow(0);
    EXPECT_TRUE(page.verifyButton()->isEnabled());
    ASSERT_TRUE(page.deleteButton()->isEnabled()) << page.deleteButton()->toolTip().toStdString();

    page.deleteSnapshot(id, QStringLiteral("a drill"));
    ASSERT_TRUE(waitFor([&] { return finished.count() == 2; }));
    EXPECT_TRUE(finished.back().at(0).toBool()) << finished.back().at(1).toString().toStdString();
    ASSERT_TRUE(waitFor([&] { return table.rowCount() == 0; }, 30000)) << controller->stderrText();
    EXPECT_FALSE(std::filesystem::exists(repository + "/" + id.toStdString())) << "its folder is removed";
    auto history = m_store->history(0, 0, 0);
    ASSERT_TRUE(history);
    EXPECT_TRUE(std::any_of(history->begin(), history->end(),
        [](const core::AuditRecord& r) { return r.action == "create-snapshot" && r.reason == "before the upgrade"; }));
}

TEST_F(BackupsPageTest, WithoutARepositoryNothingCanBeTakenAndThePageSaysHowToNameOne)
{
    connect();
    BackupsPage page(&m_connection);
    EXPECT_TRUE(page.repositoryText().contains(QStringLiteral("--snapshot-repository")))
        << page.repositoryText().toStdString();
    EXPECT_FALSE(page.takeButton()->isEnabled());
    QSignalSpy finished(&page, &BackupsPage::actionFinished);
    page.takeSnapshot(QStringLiteral("anyway"));
    ASSERT_TRUE(waitFor([&] { return finished.count() == 1; }));
    EXPECT_FALSE(finished.front().at(0).toBool()) << "refused by the change itself, with why";
    EXPECT_TRUE(finished.front().at(1).toString().contains(QStringLiteral("repository")))
        << finished.front().at(1).toString().toStdString();
}

// The console's alerts read the snapshot records too: with a schedule set and no usable snapshot
// twice its interval after the first was asked for (here nobody leads to take it), the console
// fires snapshot-too-old as shardmapctl health and Prometheus do.
TEST_F(BackupsPageTest, TheConsolesAlertsSayWhenTheScheduleHasNoUsableSnapshot)
{
    core::MigrationSettings settings;
    settings.snapshotRepository = m_dir.file("repository");
    std::filesystem::create_directories(settings.snapshotRepository);
    settings.snapshotIntervalSeconds = 1;
    ASSERT_TRUE(core::MigrationRequests(*m_store, m_pool).setSettings(settings, m_actor));
    ASSERT_TRUE(core::SnapshotRequests(*m_store).create(m_actor));
    connect();
    AlertMonitor monitor(&m_connection);
    const auto tooOld = [&]() -> const core::Alert* {
        for (const core::Alert& alert : monitor.firing()) {
            if (alert.kind == core::AlertKind::SnapshotTooOld)
                return &alert;
        }
        return nullptr;
    };
    ASSERT_TRUE(waitFor([&] { return tooOld() != nullptr; }, 20000));
    const std::string said = tooOld()->detail + " | " + tooOld()->summary;
    EXPECT_NE(said.find("no usable snapshot"), std::string::npos) << said;
}
