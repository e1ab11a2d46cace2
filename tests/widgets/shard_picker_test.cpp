// The detail page's own shard picker: its model (incremental from the map's changes, under
// QAbstractItemModelTester) and the page against real nodes and a real SQLite shard map, where a
// shard added by someone else appears in the picker and choosing one shows it.
#include "core/map/map_editor.h"
#include "core/map/map_index.h"
#include "tests/support/fleet_test.h"
#include "tests/widgets/wait_for.h"
#include "widgets/detail/detail_page.h"
#include "widgets/detail/shard_picker_model.h"
#include "widgets/session/fleet_connection.h"

#include <QAbstractItemModelTester>
#include <QAbstractItemView>
#include <QApplication>
#include <QComboBox>
#include <QCompleter>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>
#include <gtest/gtest.h>

namespace shardmap::widgets {
namespace {

using testing::waitFor;
using Kind = ShardPickerModel::Kind;

// A map of shards (id -> node), with its changes since `before` when one is given.
MapPtr pickerMap(const std::vector<std::pair<std::string, std::string>>& shards, std::uint64_t revision,
    const MapPtr& before = nullptr)
{
    auto map = std::make_shared<core::MapSnapshot>();
    map->revision = revision;
    for (const auto& [shard, node] : shards) {
        map->nodes[node] = { core::NodeRecord { node, "127.0.0.1:1", {}, false }, revision };
        map->shards[shard] = { core::ShardRecord { shard, node, core::ShardState::Active, 0, 0 }, revision };
    }
    if (before)
        map->changes = std::make_shared<const core::MapChanges>(core::diffMaps(*before, *map));
    return map;
}

QStringList texts(const ShardPickerModel& model)
{
    QStringList rows;
    for (int row = 0; row < model.rowCount(); ++row)
        rows << model.index(row).data().toString();
    return rows;
}

TEST(ShardPickerModel, ListsShardsThenNodesAndAppliesOnlyWhatChanged)
{
    ShardPickerModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    const MapPtr first = pickerMap({ { "s0", "n0" }, { "s1", "n1" }, { "s2", "n0" } }, 1);
    model.setMap(first);
    EXPECT_EQ(texts(model),
        QStringList({ QStringLiteral("s0 — n0"), QStringLiteral("s1 — n1"), QStringLiteral("s2 — n0"),
            QStringLiteral("node n0"), QStringLiteral("node n1") }));
    EXPECT_EQ(model.rowOf(Kind::Node, QStringLiteral("n1")), 4);
    EXPECT_EQ(model.index(4).data(ShardPickerModel::IdRole).toString(), QStringLiteral("n1"));
    EXPECT_EQ(model.index(4).data(ShardPickerModel::KindRole).toInt(), static_cast<int>(Kind::Node));

    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy inserts(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy removes(&model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
    // s1 goes, s10 and node n2 come, s2 moves to n2.
    const MapPtr second = pickerMap({ { "s0", "n0" }, { "s10", "n1" }, { "s2", "n2" } }, 2, first);
    model.setMap(second);
    EXPECT_EQ(texts(model),
        QStringList({ QStringLiteral("s0 — n0"), QStringLiteral("s10 — n1"), QStringLiteral("s2 — n2"),
            QStringLiteral("node n0"), QStringLiteral("node n1"), QStringLiteral("node n2") }));
    EXPECT_EQ(resets.count(), 0);
    EXPECT_EQ(inserts.count(), 2);
    EXPECT_EQ(removes.count(), 1);
    ASSERT_EQ(changes.count(), 1);
    EXPECT_EQ(changes.at(0).at(0).toModelIndex().row(), 2);
    EXPECT_FALSE(changes.at(0).at(2).value<QList<int>>().isEmpty()) << "dataChanged names its roles";

    // The same revision again: nothing. Changes from a map the model never saw: built anew.
    model.setMap(second);
    EXPECT_EQ(resets.count(), 0);
    const MapPtr unrelated = pickerMap({ { "s5", "n5" } }, 9, pickerMap({}, 7));
    model.setMap(unrelated);
    EXPECT_EQ(resets.count(), 1);
    EXPECT_EQ(texts(model), QStringList({ QStringLiteral("s5 — n5"), QStringLiteral("node n5") }));
    EXPECT_EQ(model.rowOf(Kind::Shard, QStringLiteral("s0")), -1);
}

class ShardPickerEndToEnd : public testing::FleetTest<::testing::Test> {
protected:
    void openPage()
    {
        ConnectionSpec spec;
        spec.storeUri = QString::fromStdString(storeUri());
        spec.metricsIntervalMs = 200;
        m_connection.open(spec);
        ASSERT_TRUE(waitFor([&] { return m_connection.map() && m_connection.map()->shard("s1"); }))
            << m_connection.lastError().toStdString();
        m_page = std::make_unique<DetailPage>(&m_connection);
        m_page->resize(1000, 700);
        m_page->show();
    }

    bool lists(const QString& text) const { return m_page->picker()->findText(text, Qt::MatchExactly) >= 0; }

    FleetConnection m_connection;
    std::unique_ptr<DetailPage> m_page;
};

TEST_F(ShardPickerEndToEnd, ListsTheMapFollowsItAndShowsWhatIsChosen)
{
    startFleet(2);
    ASSERT_FALSE(HasFatalFailure());
    openPage();
    ASSERT_FALSE(HasFatalFailure());
    QAbstractItemModelTester tester(m_page->pickerModel(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    QComboBox* picker = m_page->picker();
    EXPECT_FALSE(picker->accessibleName().isEmpty());
    EXPECT_FALSE(picker->accessibleDescription().isEmpty());

    // Nothing chosen: the page says how to choose, and the picker lists the map.
    EXPECT_TRUE(m_page->shardId().isEmpty());
    EXPECT_TRUE(m_page->emptyHint()->isVisible());
    EXPECT_FALSE(m_page->emptyHint()->text().isEmpty());
    EXPECT_TRUE(lists(QStringLiteral("s0 — n0")));
    EXPECT_TRUE(lists(QStringLiteral("s1 — n1")));
    EXPECT_TRUE(lists(QStringLiteral("node n1")));
    EXPECT_EQ(picker->currentIndex(), -1);
    EXPECT_TRUE(picker->currentText().isEmpty());

    // Someone else adds a shard (node first, then the map): it appears in the picker.
    auto created = nodeOf("s1")->createShard("s7", {});
    ASSERT_TRUE(created) << created.error().describe();
    core::MapEditor editor(*m_store);
    auto added = editor.addShard({ "s7", "n1", core::ShardState::Active, 0, 0 }, m_actor);
    ASSERT_TRUE(added) << added.error().describe();
    ASSERT_TRUE(waitFor([&] { return lists(QStringLiteral("s7 — n1")); }));

    // Typed and picked from the completer's list: the page shows that shard.
    QApplication::setActiveWindow(m_page.get());
    ASSERT_TRUE(QTest::qWaitForWindowActive(m_page.get()));
    picker->lineEdit()->setFocus();
    QTest::keyClicks(picker->lineEdit(), QStringLiteral("s7"));
    QAbstractItemView* popup = picker->completer()->popup();
    ASSERT_TRUE(waitFor([&] { return popup->isVisible(); }));
    ASSERT_EQ(picker->completer()->completionCount(), 1);
    QTest::keyClick(popup, Qt::Key_Down);
    QTest::keyClick(popup, Qt::Key_Return);
    ASSERT_TRUE(waitFor([&] { return m_page->shardId() == QStringLiteral("s7"); }));
    EXPECT_EQ(m_page->shownNodes(), QStringList { QStringLiteral("n1") });
    EXPECT_FALSE(m_page->emptyHint()->isVisible());
    EXPECT_EQ(picker->currentText(), QStringLiteral("s7 — n1"));

    // A bare node id and Enter: the node and its shards.
    picker->lineEdit()->selectAll();
    QTest::keyClicks(picker->lineEdit(), QStringLiteral("n0"));
    popup->hide();
    QTest::keyClick(picker->lineEdit(), Qt::Key_Return);
    EXPECT_EQ(m_page->shownNodes(), QStringList { QStringLiteral("n0") });
    EXPECT_EQ(m_page->shardId(), QStringLiteral("s0"));

    // An id the map does not have: said inline, nothing else changes.
    picker->lineEdit()->selectAll();
    QTest::keyClicks(picker->lineEdit(), QStringLiteral("s99"));
    popup->hide();
    QTest::keyClick(picker->lineEdit(), Qt::Key_Return);
    EXPECT_TRUE(m_page->errorText().contains(QStringLiteral("s99"))) << m_page->errorText().toStdString();
    EXPECT_EQ(m_page->shardId(), QStringLiteral("s0"));

    // Chosen elsewhere (the fleet page): the picker follows.
    m_page->showShard(QStringLiteral("s1"));
    EXPECT_EQ(picker->currentText(), QStringLiteral("s1 — n1"));
}

} // namespace
} // namespace shardmap::widgets
