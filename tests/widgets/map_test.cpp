// The shard map page: the lanes-and-tiles model (incremental, under QAbstractItemModelTester),
// its drag and drop contract with refusals and their reasons, drag events on the view, plan
// mode (undo/redo, save/open, apply against a map that moved on), and a drop that queues a real
// migration run by a real shardmapd against real nodes.
#include "core/fleet/health.h"
#include "core/map/map_editor.h"
#include "core/migration/migration_requests.h"
#include "core/store/metadata_store.h"
#include "tests/support/controller_process.h"
#include "tests/support/fleet_test.h"
#include "tests/support/workload.h"
#include "tests/widgets/map_changes.h"
#include "tests/widgets/map_fixtures.h"
#include "tests/widgets/wait_for.h"
#include "widgets/map/map_page.h"
#include "widgets/map/shard_map_model.h"
#include "widgets/map/shard_map_view.h"
#include "widgets/wizards/plan_wizard.h"

#include <QAbstractItemModelTester>
#include <QAccessible>
#include <QAction>
#include <QCoreApplication>
#include <QDragEnterEvent>
#include <QElapsedTimer>
#include <QMimeData>
#include <QSignalSpy>
#include <QTest>
#include <QThread>
#include <QUndoStack>
#include <gtest/gtest.h>

namespace shardmap::widgets {
namespace {

using testing::waitFor;

} // namespace

TEST(MapModel, LanesGroupedByNodeUpdateIncrementally)
{
    ShardMapModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    auto map = makeMap();
    model.setMap(map);
    ASSERT_EQ(model.rowCount(), 3);
    EXPECT_EQ((model.index(0, 0).data(ShardMapModel::NodeRole).toString()).toStdString(), "n0");
    EXPECT_EQ(model.rowCount(model.laneIndex(QStringLiteral("s0"))), 2);
    feed(model);
    EXPECT_EQ(model.spaceIndex(QStringLiteral("a")).data(ShardMapModel::DocsRole).toULongLong(), 100u);
    EXPECT_EQ(model.laneIndex(QStringLiteral("s0")).data(ShardMapModel::DocsRole).toULongLong(), 150u);

    // A space moves, one appears, a shard appears: rows move without a reset and keep figures.
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    auto next = std::make_shared<core::MapSnapshot>(*makeMap(2));
    next->spaces["a"].value.shard = "s1";
    next->spaces["d"] = { core::SpaceRecord { "d", "s2", 1, {}, {}, core::MigrationPhase::Done, {}, false }, 2 };
    next->shards["s3"] = { core::ShardRecord { "s3", "n0", core::ShardState::Draining, 0, 0 }, 2 };
    model.setMap(next);
    EXPECT_EQ(resets.count(), 0);
    EXPECT_EQ(model.rowCount(), 4);
    EXPECT_EQ((model.index(1, 0).data(ShardMapModel::IdRole).toString()).toStdString(), "s3"); // beside s0 on n0
    EXPECT_EQ((laneOf(model, QStringLiteral("a"))).toStdString(), "s1");
    EXPECT_EQ(model.spaceIndex(QStringLiteral("a")).data(ShardMapModel::DocsRole).toULongLong(), 100u);
    EXPECT_EQ((laneOf(model, QStringLiteral("d"))).toStdString(), "s2");
    model.setMap(makeMap(3));
    EXPECT_EQ(model.rowCount(), 3);
    model.setMap(nullptr);
    EXPECT_EQ(model.rowCount(), 0);
}

// Every lane in (node, shard) order, and in each the spaces the map puts there.
void expectRowsMatch(const ShardMapModel& model, const core::MapSnapshot& map)
{
    std::vector<std::pair<std::string, std::string>> lanes;
    for (const auto& [id, shard] : map.shards)
        lanes.emplace_back(shard.value.node, id);
    std::sort(lanes.begin(), lanes.end());
    ASSERT_EQ(model.rowCount(), static_cast<int>(lanes.size()));
    for (int row = 0; row < model.rowCount(); ++row) {
        const QModelIndex lane = model.index(row, 0);
        const std::string shard = lane.data(ShardMapModel::IdRole).toString().toStdString();
        EXPECT_EQ(shard, lanes[static_cast<std::size_t>(row)].second);
        EXPECT_EQ(model.laneIndex(QString::fromStdString(shard)), lane);
        EXPECT_EQ(lane.data(ShardMapModel::StateRole).toString().toStdString(),
            core::shardStateName(map.shards.at(shard).value.state));
        std::vector<std::string> tiles;
        for (int child = 0; child < model.rowCount(lane); ++child) {
            const QModelIndex tile = model.index(child, 0, lane);
            tiles.push_back(tile.data(ShardMapModel::IdRole).toString().toStdString());
            EXPECT_EQ(model.spaceIndex(tile.data(ShardMapModel::IdRole).toString()), tile);
        }
        std::sort(tiles.begin(), tiles.end());
        std::vector<std::string> expected;
        for (const auto& [id, space] : map.spaces) {
            if (space.value.shard == shard)
                expected.push_back(id);
        }
        EXPECT_EQ(tiles, expected) << shard;
    }
}

// With nothing planned or in flight and every lane sampled, a projection is each lane's own
// figures and asks no rules; a planned move asks them and shifts its space's figures.
// Lanes carry their copies' health (issue 30): none for a shard kept as one copy, yellow while a
// replica catches up, green once it is in sync; the tooltip says it.
TEST(MapModel, LanesCarryTheirCopiesHealth)
{
    ShardMapModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    auto map = std::make_shared<core::MapSnapshot>(*makeMap(1));
    map->shards["s1"].value.replicas.push_back({ "n0", core::CopyState::CatchingUp });
    map->shards["s1"].value.replicationFactor = 2;
    model.setMap(map);
    EXPECT_EQ(model.laneIndex(QStringLiteral("s0")).data(ShardMapModel::CopyHealthRole).toInt(), -1);
    const QModelIndex s1 = model.laneIndex(QStringLiteral("s1"));
    EXPECT_EQ(s1.data(ShardMapModel::CopyHealthRole).toInt(), int(core::CopyHealth::Yellow));
    EXPECT_EQ(s1.data(ShardMapModel::CopiesTextRole).toString(), QStringLiteral("1 of 2 copies in sync (yellow)"));
    EXPECT_TRUE(s1.data(Qt::ToolTipRole).toString().endsWith(QStringLiteral("; 1 of 2 copies in sync (yellow)")));

    auto next = std::make_shared<core::MapSnapshot>(*map);
    next->revision = 2;
    next->shards["s1"].value.replicas.front().state = core::CopyState::InSync;
    next->shards["s1"].modRevision = 2;
    model.setMap(next);
    EXPECT_EQ(model.laneIndex(QStringLiteral("s1")).data(ShardMapModel::CopyHealthRole).toInt(),
        int(core::CopyHealth::Green));
}

TEST(MapModel, ProjectionsAskTheRulesOnlyForWhatIsPlannedOrInFlight)
{
    ShardMapModel model;
    auto map = makeMap();
    map->buildIndex();
    model.setMap(map);
    feed(model); // every lane sampled
    const auto withRules = model.projectionsWithRules();
    model.flushProjections();
    EXPECT_EQ(model.projectionsWithRules(), withRules);
    EXPECT_EQ(projectedDocs(model, QStringLiteral("s0")), 150u);
    EXPECT_EQ(projectedDocs(model, QStringLiteral("s1")), 10u);

    model.setPlannedMoves({ core::PlannedMove("a", "s0", "s2") });
    model.flushProjections();
    EXPECT_GT(model.projectionsWithRules(), withRules);
    EXPECT_EQ(projectedDocs(model, QStringLiteral("s0")), 50u);
    EXPECT_EQ(projectedDocs(model, QStringLiteral("s2")), 100u);

    model.setPlannedMoves({});
    const auto before = model.projectionsWithRules();
    model.flushProjections();
    EXPECT_EQ(model.projectionsWithRules(), before);
    EXPECT_EQ(projectedDocs(model, QStringLiteral("s0")), 150u);
    EXPECT_EQ(projectedDocs(model, QStringLiteral("s2")), 0u);
}

// Samples reuse the lane rows found for the node's last sample; lanes that came or went move the
// rows, and the next sample (the same shards in the same order) still lands on its own lanes.
TEST(MapModel, ASampleLandsOnItsLanesAfterLanesCameAndWent)
{
    ShardMapModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    auto map = makeMap();
    model.setMap(map);
    feed(model);
    EXPECT_EQ(model.laneIndex(QStringLiteral("s1")).data(ShardMapModel::DocsRole).toULongLong(), 10u);

    auto next = std::make_shared<core::MapSnapshot>(*map);
    next->revision = 2;
    next->shards["r0"] = { core::ShardRecord { "r0", "n0", core::ShardState::Active, 0, 0 }, 2 };
    next->shards["r1"] = { core::ShardRecord { "r1", "n1", core::ShardState::Active, 0, 0 }, 2 };
    model.setMap(next);
    model.applySample(QStringLiteral("n1"), makeSample("n1", { { "s1", { { "c", 40, 400, 0, 0 } } }, { "s2", {} } }));
    model.flushProjections();
    EXPECT_EQ(model.laneIndex(QStringLiteral("s1")).data(ShardMapModel::DocsRole).toULongLong(), 40u);
    EXPECT_EQ(model.spaceIndex(QStringLiteral("c")).data(ShardMapModel::DocsRole).toULongLong(), 40u);
    EXPECT_EQ(model.laneIndex(QStringLiteral("r1")).data(ShardMapModel::DocsRole).toULongLong(), 0u);
    EXPECT_EQ(model.laneIndex(QStringLiteral("s0")).data(ShardMapModel::DocsRole).toULongLong(), 150u);
}

TEST(MapModel, ChangesFromTheConnectionKeepLanesAndTilesEqualToTheMap)
{
    ShardMapModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    std::mt19937 random(16);
    auto map = testing::randomMap(random, 24, 600);
    model.setMap(map);
    expectRowsMatch(model, *map);
    for (int round = 0; round < 8; ++round) {
        auto next = testing::nextMap(random, *map);
        ASSERT_FALSE(next->changes->spaces.empty());
        model.setMap(next);
        expectRowsMatch(model, *next);
        map = next;
    }
    EXPECT_EQ(resets.count(), 0);
}

TEST(MapModel, AMapChangeSyncsOnlyTheLanesItsChangesName)
{
    // The work per map change follows what changed: lanes the changes do not name are not
    // compared with the map at all (at 10,000 lanes and a million spaces that is the point).
    ShardMapModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    auto map = makeMap();
    map->buildIndex();
    model.setMap(map);
    auto next = std::make_shared<core::MapSnapshot>(*map);
    next->revision = 2;
    next->spaces["a"].value.shard = "s1";
    next->spaces["e"] = { core::SpaceRecord { "e", "s2", 1, {}, {}, core::MigrationPhase::Done, {}, false }, 2 };
    next->buildIndex();
    auto changes = std::make_shared<core::MapChanges>(core::diffMaps(*map, *next));
    EXPECT_EQ(changes->spaceShards, (std::vector<std::string> { "s0", "s1", "s2" }));
    // As if only a's move had been seen: e's lane is not named.
    changes->spaceShards = { "s0", "s1" };
    changes->spaces.added.clear();
    next->changes = changes;
    model.setMap(next);
    EXPECT_EQ(laneOf(model, QStringLiteral("a")).toStdString(), "s1");
    EXPECT_FALSE(model.spaceIndex(QStringLiteral("e")).isValid());
    // Without changes from the shown revision every lane is synced.
    auto third = std::make_shared<core::MapSnapshot>(*next);
    third->revision = 3;
    third->buildIndex();
    third->changes = std::make_shared<core::MapChanges>(core::MapChanges { 1, 3, {}, {}, {}, {}, {}, false, {} });
    model.setMap(third);
    EXPECT_EQ(laneOf(model, QStringLiteral("e")).toStdString(), "s2");
}

TEST(MapModel, DragContractAllowsAndRefusesWithReasons)
{
    ShardMapModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    auto map = makeMap();
    map->shards["s2"].value.state = core::ShardState::Draining;
    model.setMap(map);
    feed(model);

    EXPECT_EQ(model.mimeTypes(), QStringList { QString::fromLatin1(ShardMapModel::kMimeType) });
    EXPECT_TRUE(model.supportedDropActions() & Qt::MoveAction);
    const auto both = dragOf(model, { QStringLiteral("a"), QStringLiteral("b") });
    EXPECT_EQ(ShardMapModel::spacesOf(both.get()), (QStringList { QStringLiteral("a"), QStringLiteral("b") }));
    const QModelIndex s1 = model.laneIndex(QStringLiteral("s1"));
    EXPECT_TRUE(model.canDropMimeData(both.get(), Qt::MoveAction, -1, -1, s1));
    // Onto a space tile means onto its lane.
    EXPECT_TRUE(model.canDropMimeData(both.get(), Qt::MoveAction, -1, -1, model.spaceIndex(QStringLiteral("c"))));

    const QModelIndex s2 = model.laneIndex(QStringLiteral("s2"));
    EXPECT_FALSE(model.canDropMimeData(both.get(), Qt::MoveAction, -1, -1, s2));
    EXPECT_EQ((model.dropRefusal(both.get(), s2)).toStdString(), "Shard s2 is draining");
    const QModelIndex s0 = model.laneIndex(QStringLiteral("s0"));
    EXPECT_EQ((model.dropRefusal(both.get(), s0)).toStdString(), "Space a is already on shard s0");

    auto pinned = std::make_shared<core::MapSnapshot>(*map);
    pinned->revision = 2;
    pinned->spaces["b"].value.pin = "s0";
    pinned->spaces["c"].value.migrationId = "m-1";
    pinned->spaces["c"].value.target = "s2";
    // s1 holds 10 docs (c, which is leaving for s2): a (100) fits, a + b (150) do not.
    pinned->shards["s1"].value.capacityDocs = 120;
    model.setMap(pinned);
    EXPECT_EQ((model.dropRefusal(both.get(), s1)).toStdString(), "Space b is pinned to another shard");
    const auto c = dragOf(model, { QStringLiteral("c") });
    EXPECT_EQ((model.dropRefusal(c.get(), s0)).toStdString(),
        "Space c is already migrating to s2 (m-1); wait for it to finish or cancel it first");
    pinned->spaces["b"].value.pin.clear();
    model.setMap(std::make_shared<core::MapSnapshot>(*pinned));
    EXPECT_EQ((model.dropRefusal(both.get(), s1)).toStdString(),
        "Shard s1 is full: it would hold 150 docs, its limit is 120");
    const auto a = dragOf(model, { QStringLiteral("a") });
    EXPECT_TRUE(model.dropRefusal(a.get(), s1).isEmpty());

    // A refused drop requests nothing; an allowed one requests the moves and writes nothing itself.
    QSignalSpy requested(&model, &ShardMapModel::movesRequested);
    EXPECT_FALSE(model.dropMimeData(both.get(), Qt::MoveAction, -1, -1, s1));
    EXPECT_TRUE(model.dropMimeData(a.get(), Qt::MoveAction, -1, -1, s1));
    ASSERT_EQ(requested.count(), 1);
    EXPECT_EQ(requested.front().at(0).toStringList(), QStringList { QStringLiteral("a") });
    EXPECT_EQ((requested.front().at(1).toString()).toStdString(), "s1");
    EXPECT_EQ((laneOf(model, QStringLiteral("a"))).toStdString(), "s0");
}

TEST(MapView, DragEventsAcceptAllowedLanesAndShowWhyOthersRefuse)
{
    ShardMapModel model;
    auto map = makeMap();
    map->shards["s2"].value.state = core::ShardState::Draining;
    model.setMap(map);
    feed(model);
    ShardMapView view;
    view.setModel(&model);
    view.resize(900, 500);
    view.show();
    QSignalSpy requested(&model, &ShardMapModel::movesRequested);
    const auto drag = dragOf(model, { QStringLiteral("a") });
    const QPoint s1 = view.laneRect(QStringLiteral("s1")).center();
    const QPoint s2 = view.laneRect(QStringLiteral("s2")).center();

    QDragEnterEvent enter(s1, Qt::MoveAction, drag.get(), Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(view.viewport(), &enter);
    EXPECT_TRUE(enter.isAccepted());
    EXPECT_TRUE(view.dragActive());
    EXPECT_TRUE(view.laneRefusal(QStringLiteral("s1")).isEmpty());
    EXPECT_EQ((view.laneRefusal(QStringLiteral("s2"))).toStdString(), "Shard s2 is draining");
    EXPECT_EQ((view.laneRefusal(QStringLiteral("s0"))).toStdString(), "Space a is already on shard s0");
    const QImage duringDrag = view.viewport()->grab().toImage();
    EXPECT_FALSE(duringDrag.isNull());

    QDragMoveEvent overRefused(s2, Qt::MoveAction, drag.get(), Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(view.viewport(), &overRefused);
    EXPECT_FALSE(overRefused.isAccepted());
    QDragMoveEvent overAllowed(s1, Qt::MoveAction, drag.get(), Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(view.viewport(), &overAllowed);
    EXPECT_TRUE(overAllowed.isAccepted());

    QDropEvent refusedDrop(QPointF(s2), Qt::MoveAction, drag.get(), Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(view.viewport(), &refusedDrop);
    EXPECT_FALSE(refusedDrop.isAccepted());
    EXPECT_EQ(requested.count(), 0);
    EXPECT_FALSE(view.dragActive());

    QDragEnterEvent again(s1, Qt::MoveAction, drag.get(), Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(view.viewport(), &again);
    QDropEvent drop(QPointF(s1), Qt::MoveAction, drag.get(), Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(view.viewport(), &drop);
    EXPECT_TRUE(drop.isAccepted());
    ASSERT_EQ(requested.count(), 1);
    EXPECT_EQ((requested.front().at(1).toString()).toStdString(), "s1");

    // Something that is not spaces is not taken at all.
    QMimeData text;
    text.setText(QStringLiteral("hello"));
    QDragEnterEvent foreign(s1, Qt::MoveAction, &text, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(view.viewport(), &foreign);
    EXPECT_FALSE(foreign.isAccepted());
}

TEST(MapView, ManySmallSpacesAggregateAndFindZoomsToOne)
{
    ShardMapModel model;
    auto map = makeMap();
    std::vector<core::SpaceMetricsValue> figures { { "a", 1000000, 0, 0, 0 } };
    for (int i = 0; i < 2000; ++i) {
        const std::string id = "t" + std::to_string(i);
        map->spaces[id] = { core::SpaceRecord { id, "s0", 1, {}, {}, core::MigrationPhase::Done, {}, false }, 1 };
        figures.push_back({ id, 10, 100, 0, 0 });
    }
    model.setMap(map);
    model.applySample(QStringLiteral("n0"), makeSample("n0", { { "s0", figures } }));
    ShardMapView view;
    view.setModel(&model);
    view.resize(900, 400);
    view.show();
    const QStringList small = view.aggregatedSpaces(QStringLiteral("s0"));
    EXPECT_GT(small.size(), 1900);
    EXPECT_FALSE(small.contains(QStringLiteral("a")));
    EXPECT_TRUE(view.scrollToSpace(QStringLiteral("t1234")));
    EXPECT_EQ((view.highlightedSpace()).toStdString(), "t1234");
    EXPECT_GT(view.zoom(), 1.0);
    EXPECT_TRUE(view.viewport()->rect().intersects(view.visualRect(model.spaceIndex(QStringLiteral("t1234")))));
    EXPECT_FALSE(view.scrollToSpace(QStringLiteral("nope")));
}

struct PaintCounter : QObject {
    int count = 0;
    bool eventFilter(QObject*, QEvent* event) override
    {
        count += event->type() == QEvent::Paint ? 1 : 0;
        return false;
    }
};

// A map of 400 shards with 20 spaces each: far more lanes than a window shows.
std::shared_ptr<core::MapSnapshot> makeTallMap()
{
    auto map = std::make_shared<core::MapSnapshot>();
    map->revision = 1;
    map->nodes["n0"] = { core::NodeRecord { "n0", "127.0.0.1:1", {}, false }, 1 };
    for (int s = 0; s < 400; ++s) {
        const std::string shard = "s" + std::to_string(1000 + s);
        map->shards[shard] = { core::ShardRecord { shard, "n0", core::ShardState::Active, 0, 0 }, 1 };
        for (int i = 0; i < 20; ++i) {
            core::SpaceRecord record;
            record.id = shard + "-t" + std::to_string(i);
            record.shard = shard;
            map->spaces[record.id] = { record, 1 };
        }
    }
    return map;
}

// Tiles are laid out for the lanes on screen (and those asked about), not for the whole map: at
// 10,000 shards and a million spaces every change laid out every tile, seconds per paint. A
// sample re-lays only the lanes it touched, and the colour scale is still the whole map's.
TEST(MapView, OnlyTheLanesOnScreenLayOutTheirTilesAndASampleRelaysOnlyItsOwn)
{
    ShardMapModel model;
    model.setMap(makeTallMap());
    ShardMapView view;
    view.setModel(&model);
    view.resize(900, 400);
    view.show();
    (void)view.grab(); // paints the viewport as the screen would
    const int onScreen = view.laidOutLanes();
    EXPECT_GT(onScreen, 0);
    EXPECT_LT(onScreen, 40) << "of 400 lanes";

    // The hottest space is on the last lane, far off screen: it still sets the scale.
    model.applySample(QStringLiteral("n0"),
        makeSample("n0",
            { { "s1000", { { "s1000-t3", 500, 5000, 10, 0 } } }, { "s1399", { { "s1399-t7", 1, 10, 90, 30 } } } }));
    EXPECT_DOUBLE_EQ(model.maxSpaceLoad(), 120.0);
    (void)view.grab();
    EXPECT_LE(view.laidOutLanes(), onScreen) << "the sample re-laid only the lanes it changed";
    // The first lane's tiles follow the sample: the space with figures is now the widest.
    const QRect hot = view.visualRect(model.spaceIndex(QStringLiteral("s1000-t3")));
    const QRect cold = view.visualRect(model.spaceIndex(QStringLiteral("s1000-t4")));
    EXPECT_GT(hot.width(), 2 * cold.width());

    // The lanes' own figures (projections, every half second) are repainted, not re-laid.
    const int laidOut = view.laidOutLanes();
    model.flushProjections();
    EXPECT_EQ(view.laidOutLanes(), laidOut);

    // Asking about a lane off screen lays out that lane only.
    EXPECT_TRUE(view.visualRect(model.spaceIndex(QStringLiteral("s1300-t1"))).isValid());
    EXPECT_LE(view.laidOutLanes(), onScreen + 1);

    // A sample of lanes off screen paints nothing; one of a lane on screen paints again.
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    PaintCounter paints;
    view.viewport()->installEventFilter(&paints);
    QTest::qWait(100); // what earlier steps asked to paint
    paints.count = 0;
    model.applySample(QStringLiteral("n0"), makeSample("n0", { { "s1390", { { "s1390-t1", 5, 50, 1, 0 } } } }));
    model.flushProjections(); // the projection names the lanes that changed, not every sampled one
    QTest::qWait(100);
    EXPECT_EQ(paints.count, 0);
    model.applySample(QStringLiteral("n0"), makeSample("n0", { { "s1001", { { "s1001-t1", 5, 50, 1, 0 } } } }));
    QTest::qWait(100);
    EXPECT_GE(paints.count, 1);

    // The hot space goes: the scale falls to the next busiest.
    auto without = std::make_shared<core::MapSnapshot>(*makeTallMap());
    without->revision = 2;
    without->spaces.erase("s1399-t7");
    model.setMap(without);
    EXPECT_DOUBLE_EQ(model.maxSpaceLoad(), 10.0);
}

class MapPageTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        page = std::make_unique<MapPage>(&connection);
        page->model()->setMap(makeMap());
        feed(*page->model());
    }

    FleetConnection connection;
    std::unique_ptr<MapPage> page;
};

TEST_F(MapPageTest, PlanMovesUndoRedoAndProjectedLoads)
{
    ShardMapModel& model = *page->model();
    EXPECT_EQ(projectedDocs(model, QStringLiteral("s1")), 10u);
    page->setPlanMode(true);
    ASSERT_TRUE(page->requestMoves({ QStringLiteral("a") }, QStringLiteral("s1")));
    EXPECT_EQ(projectedDocs(model, QStringLiteral("s1")), 110u);
    EXPECT_EQ(projectedDocs(model, QStringLiteral("s0")), 50u);
    EXPECT_EQ(
        (model.spaceIndex(QStringLiteral("a")).data(ShardMapModel::PlannedToRole).toString()).toStdString(), "s1");
    ASSERT_TRUE(page->requestMoves({ QStringLiteral("b") }, QStringLiteral("s2")));
    EXPECT_EQ(projectedDocs(model, QStringLiteral("s2")), 50u);
    EXPECT_EQ(page->plan().moves.size(), 2u);
    // A drafted move counts: moving a to s1 again is refused, with the reason inline.
    EXPECT_FALSE(page->requestMoves({ QStringLiteral("a") }, QStringLiteral("s1")));
    EXPECT_EQ((page->messageText()).toStdString(), "Space a is already on shard s1");

    page->undoStack()->undo();
    EXPECT_EQ(projectedDocs(model, QStringLiteral("s2")), 0u);
    page->undoStack()->undo();
    EXPECT_EQ(projectedDocs(model, QStringLiteral("s1")), 10u);
    EXPECT_TRUE(page->plan().moves.empty());
    page->undoStack()->redo();
    EXPECT_EQ(projectedDocs(model, QStringLiteral("s1")), 110u);
    EXPECT_EQ(page->plan().baseRevision, 1u);

    // The estimate of a move: docs, bytes, where it leaves, the planner's duration at the
    // throttle, the target after it.
    const MoveEstimate estimate = page->estimate({ QStringLiteral("b") }, QStringLiteral("s1"));
    EXPECT_EQ(estimate.docs, 50u);
    EXPECT_EQ(estimate.bytes, 500u);
    EXPECT_EQ(estimate.sources, QStringList { QStringLiteral("s0") });
    EXPECT_EQ(estimate.rateSource, QStringLiteral("throttle"));
    EXPECT_DOUBLE_EQ(estimate.docsPerSecond, 100);
    EXPECT_GE(estimate.seconds, 0.5) << "at least 50 docs at 100 docs/s";
    EXPECT_EQ(estimate.targetDocsAfter, 160u);
}

TEST_F(MapPageTest, PlanSavesAndOpensAgain)
{
    page->setPlanMode(true);
    ASSERT_TRUE(page->requestMoves({ QStringLiteral("a"), QStringLiteral("b") }, QStringLiteral("s2")));
    testing::TempDir dir;
    const QString path = QString::fromStdString(dir.file("plan.json"));
    ASSERT_TRUE(page->savePlan(path)) << page->messageText().toStdString();
    const core::Plan saved = page->plan();
    page->discardPlan();
    EXPECT_TRUE(page->plan().moves.empty());
    EXPECT_EQ(projectedDocs(*page->model(), QStringLiteral("s2")), 0u);
    ASSERT_TRUE(page->openPlan(path)) << page->messageText().toStdString();
    EXPECT_EQ(page->plan(), saved);
    EXPECT_TRUE(page->planMode());
    EXPECT_EQ(projectedDocs(*page->model(), QStringLiteral("s2")), 150u);
    EXPECT_FALSE(page->openPlan(QString::fromStdString(dir.file("missing.json"))));
    EXPECT_FALSE(page->messageText().isEmpty());
}

// Against a real SQLite shard map (no nodes needed: applying a plan only writes records).
class MapPageStoreTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        auto opened = core::openStore(storeUri(), true);
        ASSERT_TRUE(opened) << opened.error().describe();
        store = std::move(*opened);
        core::MapEditor editor(*store);
        ASSERT_TRUE(editor.addNode({ "n0", "127.0.0.1:1", {}, false }, actor));
        ASSERT_TRUE(editor.addShard({ "s0", "n0", core::ShardState::Active, 0, 0 }, actor));
        ASSERT_TRUE(editor.addShard({ "s1", "n0", core::ShardState::Active, 0, 0 }, actor));
        for (const std::string space : { "x", "y" }) {
            core::SpaceRecord record;
            record.id = space;
            record.shard = "s0";
            core::CommitRequest request;
            request.mutations.push_back({ "spaces/" + space, core::encode(record), 0 });
            request.actor = "test";
            request.action = "add space";
            ASSERT_TRUE(store->commit(request));
        }
    }

    std::string storeUri() const { return "sqlite:" + dir.file("map.db"); }

    testing::TempDir dir;
    std::unique_ptr<core::MetadataStore> store;
    core::Actor actor { "test", "map page test" };
};

TEST_F(MapPageStoreTest, ApplyingAPlanOnAMapThatMovedOnSaysWhatChangedAndQueuesNothing)
{
    FleetConnection connection;
    MapPage page(&connection);
    ConnectionSpec spec;
    spec.storeUri = QString::fromStdString(storeUri());
    connection.open(spec);
    ASSERT_TRUE(waitFor([&] { return page.model()->spaceIndex(QStringLiteral("x")).isValid(); }));
    page.setPlanMode(true);
    ASSERT_TRUE(page.requestMoves({ QStringLiteral("x") }, QStringLiteral("s1")));
    ASSERT_TRUE(page.requestMoves({ QStringLiteral("y") }, QStringLiteral("s1")));

    core::MapEditor editor(*store);
    ASSERT_TRUE(editor.reassignSpace("x", "s1", actor));
    ASSERT_TRUE(waitFor([&] { return laneOf(*page.model(), QStringLiteral("x")) == QStringLiteral("s1"); }));

    QSignalSpy refused(&page, &MapPage::planRefused);
    QSignalSpy applied(&page, &MapPage::planApplied);
    page.applyPlan();
    ASSERT_TRUE(refused.wait(20000) || refused.count() == 1);
    EXPECT_EQ(applied.count(), 0);
    EXPECT_TRUE(refused.front().at(0).toString().contains(QStringLiteral("space x moved from shard s0 to s1")))
        << refused.front().at(0).toString().toStdString();
    auto map = core::MapSnapshot::decode(*store->snapshot());
    EXPECT_TRUE(map->migrations.empty());
    EXPECT_EQ(page.plan().moves.size(), 2u); // kept, to be fixed or discarded
}

class MapEndToEndTest : public testing::FleetTest<::testing::Test> { };

TEST_F(MapEndToEndTest, DropQueuesAMigrationThatMovesTheDocumentsAndTheTile)
{
    startFleet(2);
    core::MigrationSettings settings;
    settings.rollbackWindowSeconds = 0;
    settings.backfillBatch = 100;
    {
        core::MigrationRequests requests(*m_store, m_pool);
        ASSERT_TRUE(requests.setSettings(settings, m_actor));
    }
    auto controller = testing::ControllerProcess::start(
        m_dir.file("c1.stderr.log"), { "--store", storeUri(), "--id", "c1", "--lease-ttl-ms", "1000" });
    ASSERT_TRUE(controller);
    testing::Workload workload({ { "acme" }, 120, 1, 8, 0.0, std::chrono::milliseconds(0), 3 },
        { testing::routerServicePath(controller->address()) });
    ASSERT_TRUE(workload.prefill()) << workload.lastError();

    FleetConnection connection;
    connection.setReconnectBackoff(100, 500);
    MapPage page(&connection);
    page.resize(1000, 600);
    page.show();
    ConnectionSpec spec;
    spec.storeUri = QString::fromStdString(storeUri());
    spec.metricsIntervalMs = 200;
    connection.open(spec);
    ShardMapModel& model = *page.model();
    ASSERT_TRUE(waitFor([&] { return model.spaceIndex(QStringLiteral("acme")).isValid(); }));
    const QString source = laneOf(model, QStringLiteral("acme"));
    const QString target = source == QStringLiteral("s0") ? QStringLiteral("s1") : QStringLiteral("s0");
    // Per-space figures arrive because the visible page asked the node streams for them.
    EXPECT_TRUE(waitFor(
        [&] { return model.spaceIndex(QStringLiteral("acme")).data(ShardMapModel::DocsRole).toULongLong() > 0; }));

    MoveEstimate confirmed;
    page.setConfirmer([&](const MoveEstimate& estimate, QString& reason) {
        confirmed = estimate;
        reason = QStringLiteral("make room on ") + source;
        return true;
    });
    QSignalSpy queued(&page, &MapPage::movesQueued);
    const auto drag = dragOf(model, { QStringLiteral("acme") });
    ShardMapView* view = page.view();
    const QPoint lane = view->laneRect(target).center();
    QDragEnterEvent enter(lane, Qt::MoveAction, drag.get(), Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(view->viewport(), &enter);
    QDragMoveEvent move(lane, Qt::MoveAction, drag.get(), Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(view->viewport(), &move);
    EXPECT_TRUE(move.isAccepted()) << view->laneRefusal(target).toStdString();
    QDropEvent drop(QPointF(lane), Qt::MoveAction, drag.get(), Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(view->viewport(), &drop);
    EXPECT_TRUE(drop.isAccepted());
    EXPECT_EQ(confirmed.target, target);
    EXPECT_EQ(confirmed.spaces, QStringList { QStringLiteral("acme") });

    ASSERT_TRUE(queued.wait(20000) || queued.count() == 1) << page.messageText().toStdString();
    const std::string id = queued.front().at(0).toStringList().value(0).toStdString();
    EXPECT_EQ(page.messageText(), QStringLiteral("Queued ") + QString::fromStdString(id));
    EXPECT_TRUE(waitFor([&] { return page.messageText().isEmpty(); }, 4 * MapPage::kOutcomeShownMs))
        << "the outcome is news for a while, not for minutes";
    auto map = core::MapSnapshot::decode(*m_store->snapshot());
    ASSERT_TRUE(map->migrations.contains(id));
    EXPECT_EQ(map->migrations.at(id).value.reason, "make room on " + source.toStdString());
    EXPECT_EQ(map->migrations.at(id).value.target, target.toStdString());

    ASSERT_TRUE(testing::pollUntil(std::chrono::seconds(60), [&] {
        auto now = core::MapSnapshot::decode(*m_store->snapshot());
        return !now->migrations.at(id).value.active();
    })) << controller->stderrText();
    map = core::MapSnapshot::decode(*m_store->snapshot());
    EXPECT_EQ(map->migrations.at(id).value.phase, core::MigrationPhase::Done) << map->migrations.at(id).value.error;
    EXPECT_EQ(
        testing::compareWithModel(*nodeOf(target.toStdString()), target.toStdString(), "acme", workload.model("acme")),
        std::vector<std::string> {});
    EXPECT_TRUE(waitFor([&] { return laneOf(model, QStringLiteral("acme")) == target; }));

    // Moving it back without a throttle: the planner's estimate, at the rate it says it used.
    ASSERT_TRUE(waitFor([&] {
        return page.model()->map()->migrations.contains(id) && !page.model()->map()->migrations.at(id).value.active();
    }));
    page.setConfirmer([&](const MoveEstimate& estimate, QString&) {
        confirmed = estimate;
        return false;
    });
    EXPECT_FALSE(page.requestMoves({ QStringLiteral("acme") }, source));
    EXPECT_EQ(confirmed.sources, QStringList { target });
    EXPECT_GT(confirmed.seconds, 0);
    EXPECT_GT(confirmed.docsPerSecond, 0);
    EXPECT_TRUE(
        MapPage::durationText(confirmed).contains(PlanWizard::rateSourceText(confirmed.rateSource.toStdString())))
        << MapPage::durationText(confirmed).toStdString();
}

} // namespace shardmap::widgets

namespace shardmap::widgets {
namespace {

// A plan on an unchanged map is queued whole: one "move" operation with every migration, one commit.
TEST_F(MapEndToEndTest, ApplyingAPlanQueuesEveryMoveInOneCommit)
{
    startFleet(2);
    for (const char* id : { "p1", "p2" }) {
        core::SpaceRecord space;
        space.id = id;
        space.shard = "s0";
        core::CommitRequest request;
        request.mutations.push_back({ "spaces/" + std::string(id), core::encode(space), 0 });
        request.actor = "test";
        request.action = "add space";
        ASSERT_TRUE(m_store->commit(request));
    }
    FleetConnection connection;
    MapPage page(&connection);
    ConnectionSpec spec;
    spec.storeUri = QString::fromStdString(storeUri());
    connection.open(spec);
    ASSERT_TRUE(waitFor([&] { return page.model()->spaceIndex(QStringLiteral("p2")).isValid(); }));
    page.setPlanMode(true);
    ASSERT_TRUE(page.requestMoves({ QStringLiteral("p1") }, QStringLiteral("s1")));
    ASSERT_TRUE(page.requestMoves({ QStringLiteral("p2") }, QStringLiteral("s1")));
    const std::uint64_t before = core::MapSnapshot::decode(*m_store->snapshot())->revision;

    QSignalSpy applied(&page, &MapPage::planApplied);
    page.applyPlan();
    ASSERT_TRUE(applied.wait(20000) || applied.count() == 1) << page.messageText().toStdString();
    EXPECT_EQ(applied.front().at(0).toStringList().size(), 2);
    auto map = core::MapSnapshot::decode(*m_store->snapshot());
    ASSERT_TRUE(map);
    EXPECT_EQ(map->revision, before + 1); // one commit
    ASSERT_EQ(map->operations.size(), 1u);
    const core::OperationRecord& operation = map->operations.begin()->second.value;
    EXPECT_EQ(operation.kind, core::OperationKind::Move);
    EXPECT_EQ(operation.migrations.size(), 2u);
    for (const std::string& id : operation.migrations) {
        ASSERT_TRUE(map->migrations.contains(id));
        EXPECT_EQ(map->migrations.at(id).value.target, "s1");
    }
    EXPECT_TRUE(map->space("p1")->migrating());
    EXPECT_TRUE(map->space("p2")->migrating());
}

} // namespace
} // namespace shardmap::widgets

namespace shardmap::widgets {
namespace {

// Node samples arrive several times a second from every node: projections follow them at most
// every kProjectionDelayMs (projecting 100,000 spaces per sample saturated the UI thread).
TEST_F(MapPageTest, LaterSamplesProjectInBatches)
{
    ShardMapModel& model = *page->model();
    ASSERT_EQ(projectedDocs(model, QStringLiteral("s1")), 10u);
    model.applySample(QStringLiteral("n1"), makeSample("n1", { { "s1", { { "c", 30, 300, 0, 0 } } }, { "s2", {} } }));
    EXPECT_EQ(projectedDocs(model, QStringLiteral("s1")), 10u) << "not on every sample";
    EXPECT_TRUE(testing::waitFor([&] { return projectedDocs(model, QStringLiteral("s1")) == 30u; }, 5000));
}

} // namespace
} // namespace shardmap::widgets

namespace shardmap::widgets {
namespace {

TEST(MapPageKeys, UndoAndRedoUseThePlatformsStandardKeySequences)
{
    FleetConnection connection;
    MapPage page(&connection);
    int found = 0;
    for (QAction* action : page.findChildren<QAction*>()) {
        if (action->text().startsWith(QStringLiteral("Undo"))) {
            ++found;
            EXPECT_EQ(action->shortcuts(), QKeySequence::keyBindings(QKeySequence::Undo));
        } else if (action->text().startsWith(QStringLiteral("Redo"))) {
            ++found;
            EXPECT_EQ(action->shortcuts(), QKeySequence::keyBindings(QKeySequence::Redo));
        }
    }
    EXPECT_EQ(found, 2);
}

} // namespace
} // namespace shardmap::widgets

namespace shardmap::widgets {
namespace {

TEST(ShardMapTiles, LabelsAreElidedNeverWrappedMidWord)
{
    const QFontMetrics metrics(QFont {});
    const QString label = QStringLiteral("space-000123 → shard-0042");
    const QStringList words = label.split(QLatin1Char(' '));
    const int narrow = metrics.horizontalAdvance(QStringLiteral("space-000"));
    for (int lines = 1; lines <= 3; ++lines) {
        const QStringList out = ShardMapView::tileLabelLines(metrics, label, narrow, lines).split(QLatin1Char('\n'));
        EXPECT_LE(out.size(), lines);
        for (const QString& line : out) {
            EXPECT_LE(metrics.horizontalAdvance(line), narrow) << line.toStdString();
            // Each line is whole words, or whole words cut off at its end by an ellipsis.
            const QString body = line.endsWith(QChar(0x2026)) ? line.chopped(1) : line;
            const QStringList parts = body.split(QLatin1Char(' '), Qt::SkipEmptyParts);
            for (int i = 0; i < parts.size(); ++i) {
                const bool last = i + 1 == parts.size();
                EXPECT_TRUE(words.contains(parts[i]) || (last && line.endsWith(QChar(0x2026))))
                    << "'" << line.toStdString() << "' breaks a word";
            }
        }
    }
    const int wide = metrics.horizontalAdvance(label) + 10;
    EXPECT_EQ(ShardMapView::tileLabelLines(metrics, label, wide, 2), label) << "fits on one line";
    EXPECT_EQ(ShardMapView::tileLabelLines(
                  metrics, label, metrics.horizontalAdvance(QStringLiteral("space-000123 →")) + 2, 2),
        QStringLiteral("space-000123 →\nshard-0042"));
}

} // namespace
} // namespace shardmap::widgets

namespace shardmap::widgets {
namespace {

TEST(ShardMapAccessibility, ScreenReadersSeeLanesAndTheirTiles)
{
    ShardMapModel model;
    auto map = std::make_shared<core::MapSnapshot>();
    map->nodes["n0"] = { { "n0", "127.0.0.1:1", {}, false }, 1 };
    map->shards["s0"] = { { "s0", "n0", core::ShardState::Active, 0, 0 }, 1 };
    map->shards["s1"] = { { "s1", "n0", core::ShardState::Draining, 0, 0 }, 1 };
    for (const char* space : { "acme", "globex" }) {
        core::SpaceRecord record;
        record.id = space;
        record.shard = "s0";
        map->spaces[space] = { record, 1 };
    }
    model.setMap(map);
    ShardMapView view;
    view.setModel(&model);
    view.resize(800, 400);
    view.show();

    QAccessibleInterface* root = QAccessible::queryAccessibleInterface(&view);
    ASSERT_NE(root, nullptr);
    EXPECT_EQ(root->role(), QAccessible::Tree);
    EXPECT_EQ(root->text(QAccessible::Name), QStringLiteral("Shard map: 2 shards"));
    ASSERT_EQ(root->childCount(), 2);
    QAccessibleInterface* lane = root->child(0);
    ASSERT_NE(lane, nullptr);
    EXPECT_EQ(lane->role(), QAccessible::TreeItem);
    EXPECT_EQ(lane->text(QAccessible::Name), QStringLiteral("Shard s0 on node n0 (active)"));
    EXPECT_EQ(lane->parent(), root);
    EXPECT_EQ(root->indexOfChild(lane), 0);
    EXPECT_EQ(root->child(0), lane) << "one interface per item, reused";
    ASSERT_EQ(lane->childCount(), 2);
    QAccessibleInterface* tile = lane->child(1);
    EXPECT_EQ(tile->role(), QAccessible::ListItem);
    EXPECT_TRUE(tile->text(QAccessible::Name).startsWith(QStringLiteral("Space globex")))
        << tile->text(QAccessible::Name).toStdString();
    EXPECT_EQ(tile->parent(), lane);
    EXPECT_FALSE(tile->rect().isEmpty());
    EXPECT_EQ(root->child(1)->text(QAccessible::Name), QStringLiteral("Shard s1 on node n0 (draining)"));
    EXPECT_EQ(root->child(1)->childCount(), 0);

    view.selectionModel()->setCurrentIndex(
        model.spaceIndex(QStringLiteral("globex")), QItemSelectionModel::SelectCurrent);
    EXPECT_EQ(root->focusChild(), tile);
    EXPECT_TRUE(tile->state().selected);
    EXPECT_TRUE(tile->state().focused);
}

} // namespace
} // namespace shardmap::widgets
