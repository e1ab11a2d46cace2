// The Backups page's restore of a space (issue 32) against a real store, two real nodes and a real
// shardmapd: the dialog lists the snapshot's spaces, previews what a restore does with core's
// words (the documents then and now, replaced or made beside), refuses the space's own shard, and
// the restore it queues runs to the end with the snapshot's documents back; a lost shard is offered,
// previewed and restored onto a live node.
#include "core/migration/migration_requests.h"
#include "core/router/router.h"
#include "core/snapshot/snapshot_requests.h"
#include "tests/support/controller_process.h"
#include "tests/support/fleet_test.h"
#include "tests/widgets/wait_for.h"
#include "widgets/backups/backups_page.h"
#include "widgets/backups/restore_shard_dialog.h"
#include "widgets/backups/restore_space_dialog.h"
#include "widgets/session/fleet_connection.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <filesystem>
#include <gtest/gtest.h>

using namespace shardmap;
using namespace shardmap::widgets;
using shardmap::testing::waitFor;

namespace {

class RestoreDialogTest : public shardmap::testing::FleetTest<::testing::Test> {
protected:
    void SetUp() override
    {
        startFleet(2);
        core::MigrationSettings settings;
        settings.snapshotRepository = m_dir.file("repository");
        std::filesystem::create_directories(settings.snapshotRepository);
        settings.snapshotPauseMs = 0;
        ASSERT_TRUE(core::MigrationRequests(*m_store, m_pool).setSettings(settings, m_actor));
        m_controller = shardmap::testing::ControllerProcess::start(
            m_dir.file("c1.stderr.log"), { "--store", storeUri(), "--id", "c1", "--lease-ttl-ms", "1000" });
        ASSERT_TRUE(m_controller);
        auto router = core::Router::start(*m_store, m_pool, {});
        ASSERT_TRUE(router) << router.error().describe();
        std::vector<core::Document> docs;
        for (int i = 0; i < 30; ++i)
            docs.push_back({ "acme", "d" + std::to_string(i), 1, { { "title", "doc" } }, false });
        ASSERT_TRUE((*router)->write(docs));
        m_router = std::move(*router);
    }

    // A snapshot taken by the leader, verified: its id.
    std::string snapshot()
    {
        auto made = core::SnapshotRequests(*m_store).create(m_actor);
        EXPECT_TRUE(made) << made.error().describe();
        std::string id = made ? made->id : std::string();
        EXPECT_TRUE(waitFor(
            [&] {
                auto found = core::SnapshotRequests(*m_store).find(id);
                return found && found->value.state == core::SnapshotState::Verified;
            },
            30000))
            << m_controller->stderrText();
        return id;
    }

    void connect()
    {
        ConnectionSpec spec;
        spec.storeUri = QString::fromStdString(storeUri());
        m_connection.open(spec);
        ASSERT_TRUE(waitFor([&] { return m_connection.map() && m_connection.map()->space("acme"); }));
    }

    std::unique_ptr<shardmap::testing::ControllerProcess> m_controller;
    std::shared_ptr<core::Router> m_router;
    FleetConnection m_connection;
};

} // namespace

TEST_F(RestoreDialogTest, TheDialogPreviewsTheRestoreAndThePageQueuesItToTheEnd)
{
    const std::string id = snapshot();
    std::vector<core::Document> deletes;
    for (int i = 0; i < 30; ++i)
        deletes.push_back({ "acme", "d" + std::to_string(i), 2, {}, true });
    ASSERT_TRUE(m_router->write(deletes));
    connect();
    const QString live = QString::fromStdString(m_connection.map()->space("acme")->shard);
    const QString other = live == QStringLiteral("s0") ? QStringLiteral("s1") : QStringLiteral("s0");

    RestoreSpaceDialog dialog(&m_connection, QString::fromStdString(id));
    QSignalSpy previews(&dialog, &RestoreSpaceDialog::previewShown);
    ASSERT_TRUE(waitFor([&] { return dialog.spaceBox()->count() == 1; }));
    EXPECT_EQ(dialog.spaceBox()->currentText(), QStringLiteral("acme"));
    dialog.shardBox()->setCurrentText(live);
    ASSERT_TRUE(waitFor([&] { return dialog.previewLabel()->text().contains(QStringLiteral("another shard")); }))
        << dialog.previewLabel()->text().toStdString();
    dialog.reasonEdit()->setText(QStringLiteral("acme deleted by mistake"));
    EXPECT_FALSE(dialog.restoreButton()->isEnabled()) << "refused by the preview";
    dialog.shardBox()->setCurrentText(other);
    ASSERT_TRUE(waitFor([&] { return dialog.previewLabel()->text().contains(QStringLiteral("replaced")); }))
        << dialog.previewLabel()->text().toStdString();
    EXPECT_TRUE(dialog.previewLabel()->text().startsWith(QStringLiteral("30 documents then, 0 now on ") + live))
        << dialog.previewLabel()->text().toStdString();
    EXPECT_TRUE(dialog.restoreButton()->isEnabled());
    dialog.reasonEdit()->clear();
    EXPECT_FALSE(dialog.restoreButton()->isEnabled()) << "a reason is needed";
    dialog.reasonEdit()->setText(QStringLiteral("acme deleted by mistake"));

    BackupsPage page(&m_connection);
    QSignalSpy finished(&page, &BackupsPage::actionFinished);
    page.restoreSpace(dialog.request(), dialog.reason());
    ASSERT_TRUE(waitFor([&] { return finished.count() == 1; }));
    ASSERT_TRUE(finished.front().at(0).toBool()) << finished.front().at(1).toString().toStdString();
    ASSERT_TRUE(waitFor(
        [&] {
            const auto now = map();
            const auto* space = now.space("acme");
            return space && space->shard == other.toStdString() && !space->migrating();
        },
        30000))
        << m_controller->stderrText();
    auto stats = nodeOf(other.toStdString())->spaceStats(other.toStdString(), { "acme" });
    ASSERT_TRUE(stats && !stats->empty());
    EXPECT_EQ(stats->front().liveDocs, 30u);
    EXPECT_EQ(stats->front().tombstones, 0u);
}

TEST_F(RestoreDialogTest, ALostShardIsOfferedPreviewedAndRestoredOntoALiveNode)
{
    const std::string id = snapshot();
    const std::string lostShard = map().space("acme")->shard;
    const std::string lostNode = lostShard == "s0" ? "n0" : "n1";
    const std::string liveNode = lostShard == "s0" ? "n1" : "n0";
    m_nodes[lostShard == "s0" ? 0 : 1]->kill9();
    core::FleetAdmin admin(*m_store, m_pool);
    ASSERT_TRUE(admin.loseNode(lostNode, m_actor));
    connect();
    ASSERT_TRUE(waitFor([&] { return m_connection.map()->node(lostNode)->lost; }));

    RestoreShardDialog dialog(&m_connection, QString::fromStdString(id));
    ASSERT_EQ(dialog.shardBox()->count(), 1) << "only the shard whose every copy is lost";
    EXPECT_EQ(dialog.shardBox()->currentText().toStdString(), lostShard);
    ASSERT_EQ(dialog.nodeBox()->count(), 1) << "only live nodes";
    EXPECT_EQ(dialog.nodeBox()->currentText().toStdString(), liveNode);
    ASSERT_TRUE(waitFor([&] { return dialog.previewLabel()->text().contains(QStringLiteral("writes after")); }))
        << dialog.previewLabel()->text().toStdString();
    EXPECT_FALSE(dialog.restoreButton()->isEnabled()) << "no reason yet";
    dialog.reasonEdit()->setText(QStringLiteral("its disk died"));
    EXPECT_TRUE(dialog.restoreButton()->isEnabled());

    BackupsPage page(&m_connection);
    QSignalSpy finished(&page, &BackupsPage::actionFinished);
    page.restoreShard(dialog.request(), dialog.reason());
    ASSERT_TRUE(waitFor([&] { return finished.count() == 1; }));
    ASSERT_TRUE(finished.front().at(0).toBool()) << finished.front().at(1).toString().toStdString();
    EXPECT_EQ(map().shards.at(lostShard).value.node, liveNode);
    auto stats = nodeOf(liveNode == "n0" ? "s0" : "s1")->spaceStats(lostShard, { "acme" });
    ASSERT_TRUE(stats && !stats->empty()) << (stats ? "none" : stats.error().describe());
    EXPECT_EQ(stats->front().liveDocs, 30u);
}
