// The audit page: the revisions model (incremental, paged, under QAbstractItemModelTester) and
// the page against a real SQLite shard map: revisions with actor, action and reason, older
// pages on request, new revisions as the map changes, and the diff of two revisions.
#include "core/map/map_editor.h"
#include "tests/support/fleet_test.h"
#include "tests/widgets/wait_for.h"
#include "widgets/audit/audit_model.h"
#include "widgets/audit/audit_page.h"
#include "widgets/session/fleet_connection.h"

#include <QAbstractItemModelTester>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QItemSelectionModel>
#include <QSignalSpy>
#include <QTableView>
#include <QThread>
#include <gtest/gtest.h>

namespace shardmap::widgets {
namespace {

using testing::waitFor;

std::vector<AuditModel::Entry> entries(quint64 from, quint64 to)
{
    std::vector<AuditModel::Entry> result;
    for (quint64 revision = from; revision <= to; ++revision) {
        AuditModel::Entry entry;
        entry.revision = revision;
        entry.actor = QStringLiteral("alice");
        entry.action = QStringLiteral("add-shard");
        entry.reason = QStringLiteral("revision %1").arg(revision);
        entry.keys = { QStringLiteral("shards/s%1").arg(revision) };
        result.push_back(entry);
    }
    return result;
}

TEST(AuditModel, NewerAtTheTopOlderAtTheBottomWithoutReset)
{
    AuditModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    model.addNewer(entries(11, 20));
    ASSERT_EQ(model.rowCount(), 10);
    EXPECT_EQ(model.newestRevision(), 20u);
    EXPECT_EQ(model.oldestRevision(), 11u);
    EXPECT_EQ(model.index(0, AuditModel::RevisionColumn).data().toULongLong(), 20u);

    model.addNewer(entries(19, 23)); // overlaps: only 21..23 are new
    ASSERT_EQ(model.rowCount(), 13);
    EXPECT_EQ(model.index(0, 0).data(AuditModel::RevisionRole).toULongLong(), 23u);
    model.addOlder(entries(5, 12));
    ASSERT_EQ(model.rowCount(), 19);
    EXPECT_EQ(model.oldestRevision(), 5u);
    EXPECT_EQ(model.rowOf(5), 18);
    EXPECT_EQ(model.rowOf(17), 6);
    EXPECT_EQ(model.rowOf(99), -1);
    EXPECT_EQ(model.index(model.rowOf(7), AuditModel::ReasonColumn).data().toString(), QStringLiteral("revision 7"));
    EXPECT_EQ(resets.count(), 0);
}

class AuditPageTest : public testing::FleetTest<::testing::Test> {
protected:
    void openPage()
    {
        ConnectionSpec spec;
        spec.storeUri = QString::fromStdString(storeUri());
        spec.metricsIntervalMs = 200;
        m_connection = std::make_unique<FleetConnection>();
        m_page = std::make_unique<AuditPage>(m_connection.get());
        m_connection->open(spec);
        ASSERT_TRUE(waitFor([&] { return m_connection->state() == FleetConnection::State::Connected; }))
            << m_connection->lastError().toStdString();
    }

    std::uint64_t currentRevision() { return *m_store->currentRevision(); }

    std::unique_ptr<FleetConnection> m_connection;
    std::unique_ptr<AuditPage> m_page;
};

TEST_F(AuditPageTest, RevisionsPagesFollowingAndTheDiffOfTwo)
{
    startFleet(2);
    // A space on s0 (created by hand, as a router would), then moved to s1.
    core::SpaceRecord space;
    space.id = "acme";
    space.shard = "s0";
    auto created = m_store->commit({ { { core::keys::space("acme"), core::encode(space), 0 } }, std::nullopt,
        std::nullopt, "alice", "create-space", "new tenant" });
    ASSERT_TRUE(created) << created.error().describe();
    const std::uint64_t beforeMove = *created;
    core::MapEditor editor(*m_store);
    for (int i = 0; i < 6; ++i)
        ASSERT_TRUE(editor.addShard({ "x" + std::to_string(i), "n0", core::ShardState::Active, 0, 0 }, m_actor));

    openPage();
    QAbstractItemModelTester tester(m_page->model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSignalSpy resets(m_page->model(), &QAbstractItemModel::modelReset);
    // The page was built before the first map arrived, so it loaded the newest 500 (all of them).
    ASSERT_TRUE(waitFor([&] { return m_page->model()->newestRevision() == currentRevision(); }));
    const int row = m_page->model()->rowOf(beforeMove);
    ASSERT_GE(row, 0);
    EXPECT_EQ(m_page->model()->index(row, AuditModel::ActorColumn).data().toString(), QStringLiteral("alice"));
    EXPECT_EQ(m_page->model()->index(row, AuditModel::ActionColumn).data().toString(), QStringLiteral("create-space"));
    EXPECT_EQ(m_page->model()->index(row, AuditModel::ReasonColumn).data().toString(), QStringLiteral("new tenant"));

    // New revisions arrive at the top as the map changes.
    core::Actor mover { "bob@console", "rebalance" };
    auto moved = editor.reassignSpace("acme", "s1", mover);
    ASSERT_TRUE(moved) << moved.error().describe();
    const std::uint64_t afterMove = currentRevision();
    ASSERT_TRUE(waitFor([&] { return m_page->model()->newestRevision() == afterMove; }));
    EXPECT_EQ(m_page->model()->index(0, AuditModel::ActorColumn).data().toString(), QStringLiteral("bob@console"));
    EXPECT_EQ(m_page->model()->index(0, AuditModel::ReasonColumn).data().toString(), QStringLiteral("rebalance"));

    // Selecting two revisions shows the diff, which names the moved space.
    QSignalSpy diffs(m_page.get(), &AuditPage::diffReady);
    auto* selection = m_page->view()->selectionModel();
    selection->select(m_page->model()->index(0, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    selection->select(m_page->model()->index(m_page->model()->rowOf(beforeMove), 0),
        QItemSelectionModel::Select | QItemSelectionModel::Rows);
    ASSERT_TRUE(waitFor([&] { return diffs.count() > 0; }));
    const QString text = diffs.last().at(2).toString();
    EXPECT_TRUE(text.contains(QStringLiteral("acme"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("s0 → s1"))) << text.toStdString();
    EXPECT_EQ(m_page->diffText(), text);
    EXPECT_EQ(resets.count(), 0);
}

TEST_F(AuditPageTest, LoadsOlderPagesOnRequest)
{
    startFleet(1);
    core::MapEditor editor(*m_store);
    for (int i = 0; i < 12; ++i)
        ASSERT_TRUE(editor.addShard({ "x" + std::to_string(i), "n0", core::ShardState::Active, 0, 0 }, m_actor));
    const std::uint64_t newest = currentRevision();
    ConnectionSpec spec;
    spec.storeUri = QString::fromStdString(storeUri());
    FleetConnection connection;
    AuditPage page(&connection);
    page.setPageSize(5);
    QAbstractItemModelTester tester(page.model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    connection.open(spec);
    ASSERT_TRUE(waitFor([&] { return page.model()->newestRevision() == newest && !page.isLoading(); }));
    EXPECT_EQ(page.model()->rowCount(), 5);
    EXPECT_TRUE(page.canLoadOlder());
    while (page.canLoadOlder()) {
        const int before = page.model()->rowCount();
        page.loadOlder();
        ASSERT_TRUE(waitFor([&] { return !page.isLoading(); }));
        ASSERT_GT(page.model()->rowCount(), before);
    }
    EXPECT_EQ(page.model()->oldestRevision(), 1u);
    EXPECT_EQ(page.model()->rowCount(), static_cast<int>(newest));
    EXPECT_TRUE(page.errorText().isEmpty());
}

// An isolate moves the space and pins it to its new shard in the same change: the diff says both.
TEST(AuditDiff, NamesThePinAnIsolateSets)
{
    testing::TempDir dir;
    auto store = core::openStore("sqlite:" + dir.file("map.db"), true);
    ASSERT_TRUE(store) << store.error().describe();
    const core::Actor actor { "alice@console", "isolate acme" };
    core::MapEditor editor(**store);
    ASSERT_TRUE(editor.addNode({ "n0", "127.0.0.1:1", {}, false }, actor));
    ASSERT_TRUE(editor.addShard({ "s0", "n0", core::ShardState::Active, 0, 0 }, actor));
    ASSERT_TRUE(editor.addShard({ "s1", "n0", core::ShardState::Active, 0, 0 }, actor));
    core::SpaceRecord space;
    space.id = "acme";
    space.shard = "s0";
    auto created = (*store)->commit({ { { core::keys::space("acme"), core::encode(space), 0 } }, std::nullopt,
        std::nullopt, "alice", "create", "" });
    ASSERT_TRUE(created) << created.error().describe();
    space.shard = "s1";
    space.epoch = 2;
    space.pin = "s1";
    auto isolated = (*store)->commit({ { { core::keys::space("acme"), core::encode(space), *created } }, std::nullopt,
        std::nullopt, "alice", "isolate", "own shard" });
    ASSERT_TRUE(isolated) << isolated.error().describe();
    auto diff = core::diffRevisions(**store, *created, *isolated);
    ASSERT_TRUE(diff) << diff.error().describe();
    EXPECT_EQ(AuditPage::describeDiff(*diff),
        QStringLiteral("Space acme moved s0 → s1 (epoch 1 → 2)\nSpace acme pinned to s1"));

    ASSERT_TRUE(editor.unpinSpace("acme", actor));
    auto unpinned = core::diffRevisions(**store, *isolated, *(*store)->currentRevision());
    ASSERT_TRUE(unpinned) << unpinned.error().describe();
    EXPECT_EQ(AuditPage::describeDiff(*unpinned), QStringLiteral("Space acme unpinned (was pinned to s1)"));
}

} // namespace
} // namespace shardmap::widgets
