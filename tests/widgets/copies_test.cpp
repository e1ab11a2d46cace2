// The copies of a shard in the console (issue 30): the model of core's copy rows, the health line,
// and the copy changes made from the detail page against a real store and real nodes.
#include "core/map/shard_map.h"
#include "tests/support/fleet_test.h"
#include "tests/widgets/wait_for.h"
#include "widgets/detail/copies_model.h"
#include "widgets/detail/copies_panel.h"
#include "widgets/detail/detail_page.h"
#include "widgets/session/fleet_connection.h"
#include "widgets/style/inline_message.h"

#include <QAbstractItemModelTester>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <gtest/gtest.h>

using namespace shardmap;
using namespace shardmap::widgets;

namespace {

// s0 on n0 with replicas on n1 (in sync) and n2 (catching up, 40 of 100); s1 on n1; n3 in n0's zone.
std::shared_ptr<core::MapSnapshot> copiesMap()
{
    auto map = std::make_shared<core::MapSnapshot>();
    map->revision = 3;
    for (const char* node : { "n0", "n1", "n2", "n3" })
        map->nodes[node] = { core::NodeRecord { node, "127.0.0.1:1", {}, false }, 1 };
    map->nodes["n0"].value.zone = "eu-1";
    map->nodes["n3"].value.zone = "eu-1";
    core::ShardRecord s0 { "s0", "n0", core::ShardState::Active, 0, 0 };
    s0.replicas.push_back({ "n1", core::CopyState::InSync });
    s0.replicas.push_back({ "n2", core::CopyState::CatchingUp, 40, 100, 1'700'000'000'000, "added" });
    s0.replicationFactor = 3;
    map->shards["s0"] = { s0, 1 };
    map->shards["s1"] = { core::ShardRecord { "s1", "n1", core::ShardState::Active, 0, 0 }, 1 };
    return map;
}

QString cell(const QAbstractItemModel& model, int row, int column)
{
    return model.data(model.index(row, column)).toString();
}

} // namespace

TEST(CopiesModel, ListsAShardsCopiesAndANodesWithTheirState)
{
    CopiesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    const auto map = copiesMap();
    model.setRows(core::copyRowsOf(*map->shard("s0")), map.get());
    ASSERT_EQ(model.rowCount(), 3);
    EXPECT_EQ(cell(model, 0, CopiesModel::NodeColumn), QStringLiteral("n0"));
    EXPECT_EQ(cell(model, 0, CopiesModel::RoleColumn), QStringLiteral("primary"));
    EXPECT_EQ(cell(model, 0, CopiesModel::ZoneColumn), QStringLiteral("eu-1"));
    EXPECT_EQ(cell(model, 1, CopiesModel::StateColumn), QStringLiteral("in sync"));
    EXPECT_EQ(cell(model, 2, CopiesModel::StateColumn), QStringLiteral("catching up"));
    EXPECT_EQ(cell(model, 2, CopiesModel::ProgressColumn), QStringLiteral("40 of 100 documents"));
    EXPECT_TRUE(cell(model, 2, CopiesModel::WhyColumn).startsWith(QStringLiteral("added (since ")));
    EXPECT_TRUE(model.data(model.index(2, CopiesModel::StateColumn), Qt::ForegroundRole).isValid());

    // n1 holds s0's replica and s1's primary, by shard id.
    model.setRows(core::copyRowsOn(*map, "n1"), map.get());
    ASSERT_EQ(model.rowCount(), 2);
    EXPECT_EQ(cell(model, 0, CopiesModel::ShardColumn), QStringLiteral("s0"));
    EXPECT_EQ(cell(model, 0, CopiesModel::RoleColumn), QStringLiteral("replica"));
    EXPECT_EQ(cell(model, 1, CopiesModel::ShardColumn), QStringLiteral("s1"));
    EXPECT_EQ(cell(model, 1, CopiesModel::RoleColumn), QStringLiteral("primary"));
}

TEST(CopiesPanel, SaysTheHealthAndRefusesWhatCannotBeDone)
{
    FleetConnection connection;
    CopiesPanel panel(&connection);
    const auto map = copiesMap();
    panel.showShard(map, "s0");
    EXPECT_EQ(panel.summary()->shownText(), QStringLiteral("Shard s0: 2 of 3 copies in sync (yellow)"));
    EXPECT_EQ(panel.summary()->kind(), InlineMessage::Kind::Warning);
    // The placement rule: n1 and n2 hold copies, n3 shares the primary's zone.
    EXPECT_EQ(panel.placeableNodes(), QStringList {});
    EXPECT_FALSE(panel.refusal(CopiesPanel::Action::AddReplica).isEmpty());
    EXPECT_EQ(panel.refusal(CopiesPanel::Action::Promote), QStringLiteral("Select a replica of shard s0 first."));
    panel.view()->selectRow(2);
    EXPECT_EQ(panel.refusal(CopiesPanel::Action::Promote),
        QStringLiteral("Only an in-sync replica can become the primary: the copy on n2 is catching up."));
    EXPECT_FALSE(panel.button(CopiesPanel::Action::Promote)->isEnabled());
    panel.view()->selectRow(1);
    EXPECT_EQ(panel.refusal(CopiesPanel::Action::Promote), QString());
    EXPECT_TRUE(panel.button(CopiesPanel::Action::Promote)->isEnabled());

    panel.showShard(map, "s1");
    EXPECT_EQ(panel.summary()->shownText(), QStringLiteral("Shard s1: 1 of 1 copies in sync (green)"));
    EXPECT_EQ(panel.summary()->kind(), InlineMessage::Kind::Success);
    panel.showNode(map, "n2");
    EXPECT_EQ(panel.summary()->shownText(), QStringLiteral("Node n2 holds 1 copy."));
    EXPECT_FALSE(panel.refusal(CopiesPanel::Action::SetReplicationFactor).isEmpty()) << "no shard shown";
}

// End to end: three real nodes and an SQLite map; the detail page adds a replica, promotes it, sets
// the factor and removes the old primary's copy, each through the connection's change seam.
class CopiesPanelEndToEnd : public shardmap::testing::FleetTest<::testing::Test> { };

TEST_F(CopiesPanelEndToEnd, AddsPromotesSetsTheFactorAndRemovesThroughTheChangeSeam)
{
    startFleet(3);
    FleetConnection connection;
    ConnectionSpec spec;
    spec.storeUri = QString::fromStdString(storeUri());
    connection.open(spec);
    ASSERT_TRUE(waitFor([&] { return connection.map() && connection.map()->shard("s0"); }))
        << connection.lastError().toStdString();
    DetailPage page(&connection);
    page.showShard("s0");
    CopiesPanel* panel = page.copiesPanel();
    ASSERT_EQ(panel->model()->rowCount(), 1);
    EXPECT_EQ(panel->placeableNodes(), (QStringList { "n1", "n2" }));

    CopiesPanel::Request asked;
    panel->setAsker([&](CopiesPanel::Action, CopiesPanel::Request& request) {
        if (!asked.node.isEmpty())
            request.node = asked.node;
        request.factor = asked.factor;
        request.reason = QStringLiteral("console test");
        return true;
    });
    QSignalSpy finished(panel, &CopiesPanel::changeFinished);
    const auto runAndWait = [&](CopiesPanel::Action action) {
        const int before = finished.count();
        panel->run(action);
        return waitFor([&] { return finished.count() > before; }) && finished.last().at(0).toBool();
    };

    asked.node = "n1";
    ASSERT_TRUE(runAndWait(CopiesPanel::Action::AddReplica)) << panel->message()->shownText().toStdString();
    ASSERT_TRUE(waitFor([&] { return panel->model()->rowCount() == 2; })) << "the page follows the map";
    EXPECT_EQ(cell(*panel->model(), 1, CopiesModel::StateColumn), QStringLiteral("in sync")) << "it held no space";

    panel->view()->selectRow(1);
    asked.node.clear();
    ASSERT_TRUE(runAndWait(CopiesPanel::Action::Promote)) << panel->message()->shownText().toStdString();
    ASSERT_TRUE(waitFor([&] { return connection.map()->shard("s0")->node == "n1"; }));

    asked.factor = 2;
    ASSERT_TRUE(runAndWait(CopiesPanel::Action::SetReplicationFactor)) << panel->message()->shownText().toStdString();
    ASSERT_TRUE(waitFor([&] { return connection.map()->shard("s0")->replicationFactor == 2u; }));

    ASSERT_TRUE(waitFor([&] { return panel->model()->rowCount() == 2; }));
    panel->view()->selectRow(1);
    ASSERT_TRUE(runAndWait(CopiesPanel::Action::RemoveReplica)) << panel->message()->shownText().toStdString();
    ASSERT_TRUE(waitFor([&] { return connection.map()->shard("s0")->replicas.empty(); }));
    ASSERT_TRUE(waitFor([&] { return panel->summary()->shownText().contains(QStringLiteral("1 of 2")); }))
        << panel->summary()->shownText().toStdString();
    EXPECT_EQ(panel->summary()->kind(), InlineMessage::Kind::Warning);

    // The audit records each change with the console's reason.
    std::size_t withReason = 0;
    for (const auto& record : *m_store->history(0, 0, 0))
        withReason += record.reason == "console test" ? 1 : 0;
    EXPECT_EQ(withReason, 4u);
}
