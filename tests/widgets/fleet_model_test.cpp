// The fleet overview: FleetModel (membership, incremental updates, health, history), its filter
// proxy, the sparkline delegate and the page, every model under QAbstractItemModelTester.
#include "tests/widgets/map_changes.h"
#include "widgets/fleet/fleet_filter_proxy.h"
#include "widgets/fleet/fleet_model.h"
#include "widgets/fleet/fleet_page.h"
#include "widgets/fleet/health_settings.h"
#include "widgets/fleet/sparkline_delegate.h"
#include "widgets/session/fleet_connection.h"
#include "widgets/session/sample_rows.h"

#include <QAbstractItemModelTester>
#include <QImage>
#include <QLineEdit>
#include <QLocale>
#include <QPainter>
#include <QSettings>
#include <QSignalSpy>
#include <QStyleOptionViewItem>
#include <QTest>
#include <QTreeView>
#include <gtest/gtest.h>
#include <set>

using namespace shardmap;
using namespace shardmap::widgets;

namespace {

constexpr std::uint64_t kGiB = std::uint64_t { 1 } << 30;
constexpr std::int64_t kStartMs = 1'700'000'000'000;

struct ShardSpec {
    std::string id;
    std::string node;
    core::ShardState state = core::ShardState::Active;
};

MapPtr fleetMap(const std::vector<std::pair<std::string, std::string>>& nodes, const std::vector<ShardSpec>& shards,
    const std::vector<std::pair<std::string, std::string>>& spaces = {})
{
    auto map = std::make_shared<core::MapSnapshot>();
    for (const auto& [id, address] : nodes) {
        map->nodes[id].value = core::NodeRecord { id, address, {}, false };
    }
    for (const auto& shard : shards) {
        map->shards[shard.id].value = core::ShardRecord { shard.id, shard.node, shard.state, 0, 0 };
    }
    for (const auto& [space, shard] : spaces) {
        map->spaces[space].value.id = space;
        map->spaces[space].value.shard = shard;
    }
    return map;
}

// The standard fleet of the tests: n1 (s1, s2), n2 (s3).
MapPtr smallMap()
{
    return fleetMap({ { "n1", "10.0.0.1:7000" }, { "n2", "10.0.0.2:7000" } },
        { { "s1", "n1" }, { "s2", "n1" }, { "s3", "n2" } }, { { "sp1", "s1" }, { "sp2", "s1" }, { "sp3", "s3" } });
}

struct SampleSpec {
    std::string node;
    std::int64_t unixMs = kStartMs;
    double cpu = 10;
    double diskUsedPercent = 50;
    std::uint64_t rss = kGiB;
    std::vector<std::string> shards = {};
    double queriesPerSecond = 5;
    std::uint64_t docs = 1000;
};

SamplePtr makeSample(const SampleSpec& spec)
{
    auto sample = std::make_shared<core::NodeMetricsValue>();
    sample->unixMs = spec.unixMs;
    sample->nodeId = spec.node;
    sample->cpuPercent = spec.cpu;
    sample->rssBytes = spec.rss;
    sample->diskTotalBytes = 100 * kGiB;
    sample->diskFreeBytes = static_cast<std::uint64_t>((100 - spec.diskUsedPercent) * static_cast<double>(kGiB));
    sample->queriesPerSecond = spec.queriesPerSecond;
    sample->queryP99Ms = 12;
    sample->bytesOnDisk = 3 * kGiB;
    for (const auto& id : spec.shards) {
        core::ShardMetricsValue shard;
        shard.shard = id;
        shard.liveDocs = spec.docs;
        shard.bytesOnDisk = kGiB;
        shard.queriesPerSecond = spec.queriesPerSecond;
        shard.queryP99Ms = 12;
        sample->shards.push_back(shard);
    }
    return sample;
}

// The texts below are English with English number formats, whatever the machine's locale.
struct EnglishLocale {
    EnglishLocale() { QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); }
    ~EnglishLocale() { QLocale::setDefault(previous); }
    EnglishLocale(const EnglishLocale&) = delete;
    EnglishLocale& operator=(const EnglishLocale&) = delete;
    QLocale previous;
};

// Every model and proxy of these tests runs under the tester, created before data is fed.
struct TestedModel {
    TestedModel()
        : tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal)
    {
    }
    EnglishLocale locale;
    FleetModel model;
    QAbstractItemModelTester tester;
};

struct TestedProxy {
    TestedProxy()
        : modelTester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal)
        , proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal)
    {
        proxy.setSourceModel(&model);
    }
    EnglishLocale locale;
    FleetModel model;
    FleetFilterProxy proxy;
    QAbstractItemModelTester modelTester;
    QAbstractItemModelTester proxyTester;
};

QString cell(const QModelIndex& index, int role = Qt::DisplayRole)
{
    return index.data(role).toString();
}

int level(const QModelIndex& index)
{
    return index.data(FleetModel::HealthLevelRole).toInt();
}

// The ids of the rows under parent, in order.
QStringList childIds(const QAbstractItemModel& model, const QModelIndex& parent = {})
{
    QStringList out;
    for (int row = 0; row < model.rowCount(parent); ++row) {
        out << model.index(row, 0, parent).data().toString();
    }
    return out;
}

} // namespace

TEST(FleetModel, RowsForNodesAndShardsOfTheMap)
{
    TestedModel t;
    t.model.setMap(smallMap());
    EXPECT_EQ(childIds(t.model), QStringList({ "n1", "n2" }));
    const QModelIndex n1 = t.model.nodeIndex("n1");
    EXPECT_EQ(childIds(t.model, n1), QStringList({ "s1", "s2" }));
    EXPECT_EQ(childIds(t.model, t.model.nodeIndex("n2")), QStringList({ "s3" }));
    EXPECT_EQ(cell(t.model.nodeIndex("n1", FleetModel::AddressColumn)), "10.0.0.1:7000");
    EXPECT_EQ(cell(t.model.shardIndex("s1", FleetModel::SpacesColumn)), "2");
    EXPECT_EQ(cell(t.model.nodeIndex("n1", FleetModel::SpacesColumn)), "2");
    EXPECT_EQ(t.model.shardIndex("s3").parent(), t.model.nodeIndex("n2"));
    EXPECT_EQ(cell(t.model.shardIndex("s3"), FleetModel::NodeIdRole), "n2");
    EXPECT_EQ(cell(t.model.shardIndex("s3"), FleetModel::ShardIdRole), "s3");
    EXPECT_FALSE(t.model.shardIndex("nope").isValid());
    EXPECT_EQ(cell(t.model.nodeIndex("n1", FleetModel::StateColumn)), "connecting");
    EXPECT_EQ(cell(t.model.shardIndex("s1", FleetModel::StateColumn)), "active");
}

TEST(FleetModel, MapChangeInsertsAndRemovesExactlyThoseRows)
{
    TestedModel t;
    t.model.setMap(smallMap());
    QSignalSpy inserted(&t.model, &QAbstractItemModel::rowsInserted);
    QSignalSpy removed(&t.model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy reset(&t.model, &QAbstractItemModel::modelReset);
    QSignalSpy layout(&t.model, &QAbstractItemModel::layoutChanged);
    // (parent's id, first, last) of every insert or remove. The parent index is read when the
    // signal arrives (a removed node's row is gone afterwards).
    using Change = std::tuple<QString, int, int>;
    std::set<Change> removals;
    std::set<Change> insertions;
    QObject::connect(&t.model, &QAbstractItemModel::rowsRemoved, [&](const QModelIndex& parent, int first, int last) {
        removals.insert({ parent.data().toString(), first, last });
    });
    QObject::connect(&t.model, &QAbstractItemModel::rowsInserted, [&](const QModelIndex& parent, int first, int last) {
        insertions.insert({ parent.data().toString(), first, last });
    });

    // n2 (with s3) goes, n3 (with s5) comes; on n1 s2 goes and s4 comes.
    t.model.setMap(fleetMap(
        { { "n1", "10.0.0.1:7000" }, { "n3", "10.0.0.3:7000" } }, { { "s1", "n1" }, { "s4", "n1" }, { "s5", "n3" } }));

    EXPECT_EQ(reset.count(), 0);
    EXPECT_EQ(layout.count(), 0);
    EXPECT_EQ(removed.count(), 2);
    EXPECT_EQ(inserted.count(), 2);
    // s2 (row 1 under n1) and n2 (top-level row 1) went; n3 (top-level row 1, with its shard
    // already in it) and s4 (row 1 under n1) came.
    EXPECT_EQ(removals, (std::set<Change> { { QString(), 1, 1 }, { "n1", 1, 1 } }));
    EXPECT_EQ(insertions, (std::set<Change> { { QString(), 1, 1 }, { "n1", 1, 1 } }));

    EXPECT_EQ(childIds(t.model), QStringList({ "n1", "n3" }));
    EXPECT_EQ(childIds(t.model, t.model.nodeIndex("n1")), QStringList({ "s1", "s4" }));
    EXPECT_EQ(childIds(t.model, t.model.nodeIndex("n3")), QStringList({ "s5" }));
    EXPECT_FALSE(t.model.shardIndex("s2").isValid());
    EXPECT_FALSE(t.model.nodeIndex("n2").isValid());

    // The same map again changes nothing.
    inserted.clear();
    removed.clear();
    QSignalSpy changed(&t.model, &QAbstractItemModel::dataChanged);
    t.model.setMap(fleetMap(
        { { "n1", "10.0.0.1:7000" }, { "n3", "10.0.0.3:7000" } }, { { "s1", "n1" }, { "s4", "n1" }, { "s5", "n3" } }));
    EXPECT_EQ(inserted.count() + removed.count() + changed.count(), 0);
}

TEST(FleetModel, ChangesFromTheConnectionKeepRowsAndSpaceCountsEqualToTheMap)
{
    TestedModel t;
    QSignalSpy reset(&t.model, &QAbstractItemModel::modelReset);
    std::mt19937 random(6);
    MapPtr map = shardmap::testing::randomMap(random, 18, 400);
    t.model.setMap(map);
    for (int round = 0; round < 8; ++round) {
        auto next = shardmap::testing::nextMap(random, *map);
        t.model.setMap(next);
        map = next;
        QStringList nodes;
        for (const auto& [id, node] : map->nodes)
            nodes.push_back(QString::fromStdString(id));
        ASSERT_EQ(childIds(t.model), nodes);
        for (const auto& [nodeId, node] : map->nodes) {
            QStringList shards;
            std::size_t spaces = 0;
            for (const auto& [id, shard] : map->shards) {
                if (shard.value.node != nodeId)
                    continue;
                shards.push_back(QString::fromStdString(id));
                const auto owned = std::count_if(map->spaces.begin(), map->spaces.end(),
                    [&](const auto& space) { return space.second.value.shard == id; });
                spaces += static_cast<std::size_t>(owned);
                EXPECT_EQ(cell(t.model.shardIndex(QString::fromStdString(id), FleetModel::SpacesColumn)),
                    QString::number(owned))
                    << id;
                EXPECT_EQ(cell(t.model.shardIndex(QString::fromStdString(id), FleetModel::StateColumn)),
                    QString::fromUtf8(core::shardStateName(shard.value.state)))
                    << id;
            }
            const QModelIndex nodeIndex = t.model.nodeIndex(QString::fromStdString(nodeId));
            EXPECT_EQ(childIds(t.model, nodeIndex), shards);
            EXPECT_EQ(cell(t.model.nodeIndex(QString::fromStdString(nodeId), FleetModel::SpacesColumn)),
                QLocale().toString(static_cast<qulonglong>(spaces)));
        }
    }
    EXPECT_EQ(reset.count(), 0);
}

TEST(FleetModel, AMapChangeUpdatesOnlyTheShardsItsChangesName)
{
    // Counting the spaces of every shard per map change was the fleet page's share of the UI
    // time at a million spaces: with the connection's changes only the shards named are counted.
    TestedModel t;
    auto map = std::const_pointer_cast<core::MapSnapshot>(
        fleetMap({ { "n1", "a" } }, { { "s1", "n1" }, { "s2", "n1" } }, { { "x", "s1" }, { "y", "s2" } }));
    map->buildIndex();
    t.model.setMap(map);
    auto next = std::make_shared<core::MapSnapshot>(*map);
    next->revision = map->revision + 1;
    next->spaces["x"].value.shard = "s2";
    next->spaces["y"].value.shard = "s1";
    next->spaces["z"] = { core::SpaceRecord { "z", "s2", 1, {}, {}, core::MigrationPhase::Done, {}, false }, 2 };
    next->buildIndex();
    auto changes = std::make_shared<core::MapChanges>(core::diffMaps(*map, *next));
    EXPECT_EQ(changes->spaceShards, (std::vector<std::string> { "s1", "s2" }));
    changes->spaceShards = { "s2" }; // as if s1 had not changed
    next->changes = changes;
    QSignalSpy changed(&t.model, &QAbstractItemModel::dataChanged);
    t.model.setMap(next);
    EXPECT_EQ(cell(t.model.shardIndex("s2", FleetModel::SpacesColumn)), "2");
    EXPECT_EQ(cell(t.model.shardIndex("s1", FleetModel::SpacesColumn)), "1"); // not asked again
    EXPECT_EQ(cell(t.model.nodeIndex("n1", FleetModel::SpacesColumn)), "3");
    EXPECT_EQ(changed.count(), 2); // s2's row and n1's
}

TEST(FleetModel, ShardMovingToAnotherNodeMovesItsRow)
{
    TestedModel t;
    t.model.setMap(smallMap());
    t.model.setMap(fleetMap({ { "n1", "a" }, { "n2", "b" } }, { { "s1", "n1" }, { "s2", "n2" }, { "s3", "n2" } }));
    EXPECT_EQ(childIds(t.model, t.model.nodeIndex("n2")), QStringList({ "s2", "s3" }));
    EXPECT_EQ(t.model.shardIndex("s2").parent(), t.model.nodeIndex("n2"));
    EXPECT_EQ(cell(t.model.shardIndex("s2"), FleetModel::AddressRole), "b");
}

TEST(FleetModel, SampleTickChangesOnlyTheNodesRows)
{
    TestedModel t;
    t.model.setMap(smallMap());
    t.model.applySample("n2", makeSample({ .node = "n2", .shards = { "s3" } }));
    QSignalSpy changed(&t.model, &QAbstractItemModel::dataChanged);
    QSignalSpy reset(&t.model, &QAbstractItemModel::modelReset);
    QSignalSpy inserted(&t.model, &QAbstractItemModel::rowsInserted);

    t.model.applySample("n1", makeSample({ .node = "n1", .shards = { "s1", "s2" } }));

    EXPECT_EQ(reset.count(), 0);
    EXPECT_EQ(inserted.count(), 0);
    // One range for the shards of n1, one for n1 itself.
    ASSERT_EQ(changed.count(), 2);
    std::set<QString> touched;
    for (const auto& args : changed) {
        const auto topLeft = args[0].value<QModelIndex>();
        const auto bottomRight = args[1].value<QModelIndex>();
        const auto roles = args[2].value<QList<int>>();
        EXPECT_FALSE(roles.isEmpty());
        EXPECT_TRUE(roles.contains(Qt::DisplayRole));
        EXPECT_EQ(topLeft.parent(), bottomRight.parent());
        for (int row = topLeft.row(); row <= bottomRight.row(); ++row) {
            touched.insert(cell(t.model.index(row, 0, topLeft.parent())));
        }
    }
    EXPECT_EQ(touched, (std::set<QString> { "n1", "s1", "s2" }));
    EXPECT_EQ(cell(t.model.shardIndex("s1", FleetModel::DocsColumn)), "1,000");
    EXPECT_EQ(cell(t.model.nodeIndex("n1", FleetModel::DocsColumn)), "2,000");
    EXPECT_EQ(cell(t.model.nodeIndex("n1", FleetModel::CpuColumn)), "10.0 %");
    EXPECT_EQ(cell(t.model.nodeIndex("n1", FleetModel::DiskFreeColumn)), "50.0 %");
    EXPECT_EQ(cell(t.model.nodeIndex("n1", FleetModel::RssColumn)), "1.0 GiB");
    EXPECT_EQ(cell(t.model.nodeIndex("n1", FleetModel::P99Column)), "12 ms");
    EXPECT_EQ(t.model.nodeIndex("n1", FleetModel::CpuColumn).data(Qt::TextAlignmentRole).toInt(),
        int(Qt::AlignRight | Qt::AlignVCenter));

    // The same figures again: only the node's CPU history cell changes (shards have no CPU).
    changed.clear();
    t.model.applySample("n1", makeSample({ .node = "n1", .unixMs = kStartMs + 1000, .shards = { "s1", "s2" } }));
    ASSERT_EQ(changed.count(), 1);
    EXPECT_EQ(changed[0][0].value<QModelIndex>(), t.model.nodeIndex("n1", FleetModel::HistoryColumn));
    EXPECT_EQ(changed[0][1].value<QModelIndex>(), t.model.nodeIndex("n1", FleetModel::HistoryColumn));
    // With queries/s as the sparkline metric the shards' history cells change too, in one range.
    t.model.setSparklineMetric(FleetModel::Metric::QueriesPerSecond);
    changed.clear();
    t.model.applySample("n1", makeSample({ .node = "n1", .unixMs = kStartMs + 2000, .shards = { "s1", "s2" } }));
    ASSERT_EQ(changed.count(), 2);
    EXPECT_EQ(changed[0][0].value<QModelIndex>(), t.model.shardIndex("s1", FleetModel::HistoryColumn));
    EXPECT_EQ(changed[0][1].value<QModelIndex>(), t.model.shardIndex("s2", FleetModel::HistoryColumn));
}

// A node lists its shards in the same order each sample: the rows found for one sample are
// reused for the next, and found anew when the list or the model's rows change.
TEST(SampleRows, FindsOnlyWhenTheShardsOrTheRowsChange)
{
    SampleRows<int> rows;
    int finds = 0;
    const auto find = [&finds](const std::string& id) {
        ++finds;
        return id == "s9" ? -1 : std::stoi(id.substr(1));
    };
    const auto sample = makeSample({ .node = "n1", .shards = { "s1", "s9", "s3" } });
    EXPECT_EQ(rows.of(*sample, 1, find), (std::vector<int> { 1, -1, 3 }));
    EXPECT_EQ(finds, 3);
    EXPECT_EQ(rows.of(*makeSample({ .node = "n1", .shards = { "s1", "s9", "s3" } }), 1, find),
        (std::vector<int> { 1, -1, 3 }));
    EXPECT_EQ(finds, 3) << "the same shards in the same order: nothing looked up";
    EXPECT_EQ(rows.of(*sample, 2, find), (std::vector<int> { 1, -1, 3 }));
    EXPECT_EQ(finds, 6) << "the rows moved";
    EXPECT_EQ(rows.of(*makeSample({ .node = "n1", .shards = { "s3", "s1" } }), 2, find), (std::vector<int> { 3, 1 }));
    EXPECT_EQ(finds, 8) << "another order";
    EXPECT_EQ(rows.of(*makeSample({ .node = "n1", .shards = { "s3", "s2" } }), 2, find), (std::vector<int> { 3, 2 }));
    EXPECT_EQ(finds, 10) << "another shard";
}

TEST(FleetModel, ASampleLandsOnItsShardsRowsAfterTheRowsMoved)
{
    TestedModel t;
    t.model.setMap(fleetMap({ { "n1", "a" }, { "n2", "b" } }, { { "s1", "n1" }, { "s2", "n1" }, { "s3", "n1" } }));
    t.model.applySample("n1", makeSample({ .node = "n1", .shards = { "s1", "s2", "s3" }, .docs = 1000 }));
    EXPECT_EQ(cell(t.model.shardIndex("s1", FleetModel::DocsColumn)), "1,000");
    EXPECT_EQ(cell(t.model.shardIndex("s3", FleetModel::DocsColumn)), "1,000");

    // s1 moves to n2: n1's rows shift up. n1 still lists s1 (its copy, until dropped).
    t.model.setMap(fleetMap({ { "n1", "a" }, { "n2", "b" } }, { { "s1", "n2" }, { "s2", "n1" }, { "s3", "n1" } }));
    t.model.applySample("n1", makeSample({ .node = "n1", .shards = { "s1", "s2", "s3" }, .docs = 2000 }));
    EXPECT_EQ(cell(t.model.shardIndex("s2", FleetModel::DocsColumn)), "2,000");
    EXPECT_EQ(cell(t.model.shardIndex("s3", FleetModel::DocsColumn)), "2,000");
    EXPECT_NE(cell(t.model.shardIndex("s1", FleetModel::DocsColumn)), "2,000") << "n1's copy is not n2's shard";
    t.model.applySample("n2", makeSample({ .node = "n2", .shards = { "s1" }, .docs = 3000 }));
    EXPECT_EQ(cell(t.model.shardIndex("s1", FleetModel::DocsColumn)), "3,000");
}

TEST(FleetModel, FullFleetTickIsTwoRangesPerNode)
{
    // 50 nodes x 40 shards, every node ticking: the load of issue 6.
    TestedProxy t;
    // Sorted by a column the ticks do not change. Qt 6.4's QSortFilterProxyModel keeps a QHash
    // iterator across the layoutChanged of a live re-sort, and the tester's full walk in that
    // signal adds mappings (rehash): the emitted index is then garbage. Live re-sorting itself
    // is covered with a small fleet in FleetFilterProxy.SortsByRawNumbersAndNaturalIds.
    t.proxy.sort(FleetModel::NameColumn, Qt::AscendingOrder);
    std::vector<std::pair<std::string, std::string>> nodes;
    std::vector<ShardSpec> shards;
    std::map<std::string, std::vector<std::string>> shardsOf;
    for (int n = 0; n < 50; ++n) {
        const std::string node = "node-" + std::to_string(n);
        nodes.emplace_back(node, "10.0.0." + std::to_string(n) + ":7000");
        for (int s = 0; s < 40; ++s) {
            const std::string shard = node + "-shard-" + std::to_string(s);
            shards.push_back({ shard, node });
            shardsOf[node].push_back(shard);
        }
    }
    t.model.setMap(fleetMap(nodes, shards));
    ASSERT_EQ(t.model.rowCount(), 50);
    QSignalSpy changed(&t.model, &QAbstractItemModel::dataChanged);
    QSignalSpy reset(&t.model, &QAbstractItemModel::modelReset);
    // One tick of every node (the testers walk the whole tree on every dataChanged, so one is
    // what the test affords): one range for the node's shards and one for the node.
    for (const auto& [node, ids] : shardsOf) {
        t.model.applySample(QString::fromStdString(node), makeSample({ .node = node, .shards = ids }));
    }
    EXPECT_EQ(changed.count(), 50 * 2);
    EXPECT_EQ(reset.count(), 0);
    EXPECT_EQ(t.proxy.rowCount(), 50);
}

TEST(FleetModel, DiskUsedIsAmberWithTheReason)
{
    TestedModel t;
    t.model.setMap(smallMap());
    t.model.applySample("n1", makeSample({ .node = "n1", .diskUsedPercent = 86, .shards = { "s1", "s2" } }));
    const QModelIndex n1 = t.model.nodeIndex("n1", FleetModel::DiskFreeColumn);
    EXPECT_EQ(level(n1), int(core::HealthLevel::Warning));
    EXPECT_EQ(cell(n1, Qt::ToolTipRole), "disk 86 % used (amber at 80 %)");
    EXPECT_TRUE(n1.data(Qt::BackgroundRole).isValid());
    // Shards of an amber node are not amber themselves.
    EXPECT_EQ(level(t.model.shardIndex("s1")), int(core::HealthLevel::Ok));
    EXPECT_FALSE(t.model.shardIndex("s1").data(Qt::BackgroundRole).isValid());

    t.model.applySample(
        "n1", makeSample({ .node = "n1", .unixMs = kStartMs + 1000, .diskUsedPercent = 93, .shards = { "s1", "s2" } }));
    EXPECT_EQ(level(n1), int(core::HealthLevel::Critical));
    EXPECT_EQ(cell(n1, Qt::ToolTipRole), "disk 93 % used (red at 90 %)");
}

TEST(FleetModel, MemoryNearTheLimitIsAmber)
{
    TestedModel t;
    t.model.setMap(smallMap());
    t.model.applySample("n1", makeSample({ .node = "n1", .rss = 3'500'000'000ULL, .shards = { "s1", "s2" } }));
    EXPECT_EQ(level(t.model.nodeIndex("n1")), int(core::HealthLevel::Warning));
    EXPECT_EQ(
        cell(t.model.nodeIndex("n1"), Qt::ToolTipRole), "RSS at 81 % of the 4.0 GiB memory limit (amber at 80 %)");
}

TEST(FleetModel, UnreachableNodeIsRed)
{
    TestedModel t;
    t.model.setMap(smallMap());
    QSignalSpy changed(&t.model, &QAbstractItemModel::dataChanged);
    t.model.setNodeLink("n2", false, "connection refused");
    const QModelIndex n2 = t.model.nodeIndex("n2");
    EXPECT_EQ(level(n2), int(core::HealthLevel::Critical));
    EXPECT_EQ(cell(n2, Qt::ToolTipRole), "node unreachable: connection refused");
    EXPECT_EQ(cell(t.model.nodeIndex("n2", FleetModel::StateColumn)), "unreachable");
    ASSERT_EQ(changed.count(), 1);
    EXPECT_TRUE(changed[0][2].value<QList<int>>().contains(FleetModel::HealthLevelRole));

    t.model.setNodeLink("n2", true, {});
    EXPECT_EQ(level(n2), int(core::HealthLevel::Ok));
    EXPECT_EQ(cell(t.model.nodeIndex("n2", FleetModel::StateColumn)), "online");
    // Repeating the same link state is no change.
    changed.clear();
    t.model.setNodeLink("n2", true, {});
    EXPECT_EQ(changed.count(), 0);
}

TEST(FleetModel, CpuCountsAveragedOverFiveMinutes)
{
    TestedModel t;
    t.model.setMap(smallMap());
    // n1: 95 % for the last minute of five, 10 % before. n2: 90 % all along.
    for (int s = 0; s <= 300; ++s) {
        const std::int64_t ms = kStartMs + s * 1000LL;
        t.model.applySample("n1", makeSample({ .node = "n1", .unixMs = ms, .cpu = s >= 240 ? 95.0 : 10.0 }));
        t.model.applySample("n2", makeSample({ .node = "n2", .unixMs = ms, .cpu = 90 }));
    }
    EXPECT_EQ(cell(t.model.nodeIndex("n1", FleetModel::CpuColumn)), "95.0 %");
    EXPECT_EQ(level(t.model.nodeIndex("n1")), int(core::HealthLevel::Ok));
    EXPECT_EQ(level(t.model.nodeIndex("n2")), int(core::HealthLevel::Warning));
    EXPECT_EQ(cell(t.model.nodeIndex("n2"), Qt::ToolTipRole), "CPU 90 % averaged over 5 min (amber at 85 %)");
}

// A node's history fetched when it comes up covers the CPU window at once.
TEST(FleetModel, SeededHistoryCoversTheCpuWindow)
{
    TestedModel t;
    t.model.setMap(smallMap());
    t.model.setNodeLink("n1", true, {});
    const std::int64_t now = kStartMs + 600'000;
    t.model.applySample("n1", makeSample({ .node = "n1", .unixMs = now, .cpu = 92 }));
    EXPECT_EQ(level(t.model.nodeIndex("n1")), int(core::HealthLevel::Ok)); // one sample: no average

    core::MetricsHistoryValue history;
    history.intervalMs = 10000;
    for (std::int64_t ms = now - 360'000; ms < now; ms += 10'000) {
        history.samples.push_back(*makeSample({ .node = "n1", .unixMs = ms, .cpu = 90 }));
    }
    QSignalSpy changed(&t.model, &QAbstractItemModel::dataChanged);
    t.model.seedHistory("n1", history);
    EXPECT_EQ(level(t.model.nodeIndex("n1")), int(core::HealthLevel::Warning));
    EXPECT_GE(changed.count(), 1);
}

TEST(FleetModel, ThresholdChangeReevaluates)
{
    TestedModel t;
    t.model.setMap(smallMap());
    t.model.applySample("n1", makeSample({ .node = "n1", .diskUsedPercent = 86, .shards = { "s1", "s2" } }));
    ASSERT_EQ(level(t.model.nodeIndex("n1")), int(core::HealthLevel::Warning));
    QSignalSpy changed(&t.model, &QAbstractItemModel::dataChanged);

    core::HealthThresholds relaxed;
    relaxed.diskUsedWarningPercent = 88;
    t.model.setThresholds(relaxed);
    EXPECT_EQ(level(t.model.nodeIndex("n1")), int(core::HealthLevel::Ok));
    ASSERT_EQ(changed.count(), 1);
    EXPECT_EQ(changed[0][0].value<QModelIndex>(), t.model.nodeIndex("n1"));
    EXPECT_TRUE(changed[0][2].value<QList<int>>().contains(Qt::ToolTipRole));

    core::HealthThresholds strict;
    strict.diskUsedWarningPercent = 70;
    strict.diskUsedCriticalPercent = 85;
    t.model.setThresholds(strict);
    EXPECT_EQ(level(t.model.nodeIndex("n1")), int(core::HealthLevel::Critical));
    EXPECT_EQ(cell(t.model.nodeIndex("n1"), Qt::ToolTipRole), "disk 86 % used (red at 85 %)");

    changed.clear();
    t.model.setThresholds(strict);
    EXPECT_EQ(changed.count(), 0);
}

TEST(FleetModel, ShardHealthFromSampleAndState)
{
    TestedModel t;
    t.model.setMap(fleetMap({ { "n1", "a" } },
        { { "s1", "n1" }, { "s2", "n1", core::ShardState::Draining }, { "s3", "n1", core::ShardState::Readonly },
            { "s4", "n1" } }));
    auto sample = std::const_pointer_cast<core::NodeMetricsValue>(
        makeSample({ .node = "n1", .shards = { "s1", "s2", "s3", "s4" } }));
    sample->shards[0].healthy = false;
    t.model.applySample("n1", sample);

    EXPECT_EQ(level(t.model.shardIndex("s1")), int(core::HealthLevel::Critical));
    EXPECT_EQ(cell(t.model.shardIndex("s1"), Qt::ToolTipRole), "the node reports the shard unhealthy");
    EXPECT_EQ(level(t.model.shardIndex("s2")), int(core::HealthLevel::Info));
    EXPECT_EQ(cell(t.model.shardIndex("s2"), Qt::ToolTipRole), "shard is draining");
    EXPECT_EQ(cell(t.model.shardIndex("s2", FleetModel::StateColumn)), "draining");
    EXPECT_EQ(level(t.model.shardIndex("s3")), int(core::HealthLevel::Info));
    EXPECT_EQ(level(t.model.shardIndex("s4")), int(core::HealthLevel::Ok));
    // Informational rows are not painted like problems: only the state cell is tinted.
    EXPECT_FALSE(t.model.shardIndex("s2", FleetModel::DocsColumn).data(Qt::BackgroundRole).isValid());
    EXPECT_TRUE(t.model.shardIndex("s2", FleetModel::StateColumn).data(Qt::BackgroundRole).isValid());

    // A state change in the map re-evaluates the shard.
    t.model.setMap(fleetMap({ { "n1", "a" } },
        { { "s1", "n1" }, { "s2", "n1" }, { "s3", "n1", core::ShardState::Readonly }, { "s4", "n1" } }));
    EXPECT_EQ(level(t.model.shardIndex("s2")), int(core::HealthLevel::Ok));
    EXPECT_EQ(cell(t.model.shardIndex("s2", FleetModel::StateColumn)), "active");
}

// A shard's copies colour its row (issue 30): yellow with fewer in sync and serving than it
// wants, red with none; a copy on a node whose link is down serves none.
TEST(FleetModel, ShardCopiesColourTheShardRow)
{
    TestedModel t;
    auto map = std::const_pointer_cast<core::MapSnapshot>(
        fleetMap({ { "n1", "a" }, { "n2", "b" }, { "n3", "c" } }, { { "s1", "n1" }, { "s2", "n3" } }));
    map->shards["s1"].value.replicas.push_back({ "n2", core::CopyState::InSync });
    map->shards["s1"].value.replicationFactor = 2;
    t.model.setMap(map);
    EXPECT_EQ(level(t.model.shardIndex("s1")), int(core::HealthLevel::Ok));

    t.model.setNodeLink("n2", false, "connection refused");
    EXPECT_EQ(level(t.model.shardIndex("s1")), int(core::HealthLevel::Warning));
    EXPECT_EQ(cell(t.model.shardIndex("s1"), Qt::ToolTipRole), "1 of 2 copies in sync (under-replicated)");
    t.model.setNodeLink("n1", false, "connection refused");
    EXPECT_EQ(level(t.model.shardIndex("s1")), int(core::HealthLevel::Critical));
    EXPECT_EQ(cell(t.model.shardIndex("s1"), Qt::ToolTipRole), "no copy in sync serves (2 wanted)");
    t.model.setNodeLink("n2", true, {});
    EXPECT_EQ(level(t.model.shardIndex("s1")), int(core::HealthLevel::Warning));
    // A shard kept as one copy is its node's row's concern, not red once more.
    t.model.setNodeLink("n3", false, "connection refused");
    EXPECT_EQ(level(t.model.shardIndex("s2")), int(core::HealthLevel::Ok));
}

TEST(FleetModel, HistoryGrowsAndIsBounded)
{
    TestedModel t;
    t.model.setMap(smallMap());
    const auto history
        = [&](const QModelIndex& index) { return index.data(FleetModel::HistoryRole).value<QList<qreal>>(); };
    const QModelIndex n1 = t.model.nodeIndex("n1", FleetModel::HistoryColumn);
    const QModelIndex s1 = t.model.shardIndex("s1", FleetModel::HistoryColumn);
    EXPECT_TRUE(history(n1).isEmpty());
    for (int i = 0; i < 5; ++i) {
        t.model.applySample("n1",
            makeSample({ .node = "n1", .unixMs = kStartMs + i * 1000, .cpu = double(i), .shards = { "s1", "s2" } }));
    }
    EXPECT_EQ(history(n1), QList<qreal>({ 0, 1, 2, 3, 4 }));
    // CPU is a node figure: shard rows have no CPU history.
    EXPECT_TRUE(history(s1).isEmpty());

    for (int i = 5; i < 300; ++i) {
        t.model.applySample("n1",
            makeSample({ .node = "n1", .unixMs = kStartMs + i * 1000, .cpu = double(i), .shards = { "s1", "s2" } }));
    }
    const auto bounded = history(n1);
    ASSERT_EQ(bounded.size(), FleetModel::kHistoryLength);
    EXPECT_EQ(bounded.front(), 300 - FleetModel::kHistoryLength);
    EXPECT_EQ(bounded.back(), 299);

    // Switching the metric shows that metric's history at once, with a dataChanged on the column.
    QSignalSpy changed(&t.model, &QAbstractItemModel::dataChanged);
    QSignalSpy header(&t.model, &QAbstractItemModel::headerDataChanged);
    t.model.setSparklineMetric(FleetModel::Metric::QueriesPerSecond);
    EXPECT_EQ(header.count(), 1);
    EXPECT_EQ(t.model.headerData(FleetModel::HistoryColumn, Qt::Horizontal).toString(), "Queries/s history");
    ASSERT_GE(changed.count(), 1);
    for (const auto& args : changed) {
        EXPECT_EQ(args[0].value<QModelIndex>().column(), FleetModel::HistoryColumn);
        EXPECT_TRUE(args[2].value<QList<int>>().contains(FleetModel::HistoryRole));
    }
    EXPECT_EQ(history(s1).size(), FleetModel::kHistoryLength);
    EXPECT_EQ(history(s1).back(), 5);
}

TEST(FleetFilterProxy, TextFilterIsRecursive)
{
    TestedProxy t;
    t.model.setMap(smallMap());
    t.proxy.sort(FleetModel::NameColumn);

    t.proxy.setFilterText("s3");
    ASSERT_EQ(childIds(t.proxy), QStringList({ "n2" }));
    EXPECT_EQ(childIds(t.proxy, t.proxy.index(0, 0)), QStringList({ "s3" }));

    // A node's id or address keeps all its shards.
    t.proxy.setFilterText("10.0.0.1");
    ASSERT_EQ(childIds(t.proxy), QStringList({ "n1" }));
    EXPECT_EQ(childIds(t.proxy, t.proxy.index(0, 0)), QStringList({ "s1", "s2" }));
    t.proxy.setFilterText("N2");
    EXPECT_EQ(childIds(t.proxy), QStringList({ "n2" }));

    t.proxy.setFilterText("");
    EXPECT_EQ(childIds(t.proxy), QStringList({ "n1", "n2" }));
}

TEST(FleetFilterProxy, OnlyProblemsShowsAmberAndRedRows)
{
    TestedProxy t;
    t.model.setMap(fleetMap({ { "n1", "a" }, { "n2", "b" }, { "n3", "c" } },
        { { "s1", "n1" }, { "s2", "n1", core::ShardState::Draining }, { "s3", "n2" }, { "s4", "n3" } }));
    t.proxy.sort(FleetModel::NameColumn);
    auto sample
        = std::const_pointer_cast<core::NodeMetricsValue>(makeSample({ .node = "n1", .shards = { "s1", "s2" } }));
    sample->shards[0].healthy = false;
    t.model.applySample("n1", sample);
    t.model.applySample("n2", makeSample({ .node = "n2", .diskUsedPercent = 85, .shards = { "s3" } }));
    t.model.applySample("n3", makeSample({ .node = "n3", .shards = { "s4" } }));

    t.proxy.setOnlyProblems(true);
    // n1 is fine but its shard s1 is red (the draining s2 is not a problem); n2 is amber itself.
    ASSERT_EQ(childIds(t.proxy), QStringList({ "n1", "n2" }));
    EXPECT_EQ(childIds(t.proxy, t.proxy.index(0, 0)), QStringList({ "s1" }));
    EXPECT_EQ(childIds(t.proxy, t.proxy.index(1, 0)), QStringList());

    // Live: n3 goes red, n2 recovers.
    t.model.setNodeLink("n3", false, "timeout");
    t.model.applySample(
        "n2", makeSample({ .node = "n2", .unixMs = kStartMs + 1000, .diskUsedPercent = 40, .shards = { "s3" } }));
    EXPECT_EQ(childIds(t.proxy), QStringList({ "n1", "n3" }));

    t.proxy.setOnlyProblems(false);
    EXPECT_EQ(childIds(t.proxy), QStringList({ "n1", "n2", "n3" }));
}

TEST(FleetFilterProxy, SortsByRawNumbersAndNaturalIds)
{
    TestedProxy t;
    t.model.setMap(fleetMap({ { "node-10", "a" }, { "node-2", "b" }, { "node-9", "c" } }, {}));
    t.model.applySample("node-10", makeSample({ .node = "node-10", .cpu = 9 }));
    t.model.applySample("node-2", makeSample({ .node = "node-2", .cpu = 100 }));
    t.model.applySample("node-9", makeSample({ .node = "node-9", .cpu = 10 }));

    t.proxy.sort(FleetModel::NameColumn, Qt::AscendingOrder);
    EXPECT_EQ(childIds(t.proxy), QStringList({ "node-2", "node-9", "node-10" }));
    // As text "9.0 %" > "100.0 %" > "10.0 %"; as numbers 100 > 10 > 9.
    t.proxy.sort(FleetModel::CpuColumn, Qt::DescendingOrder);
    EXPECT_EQ(childIds(t.proxy), QStringList({ "node-2", "node-9", "node-10" }));
    t.proxy.sort(FleetModel::CpuColumn, Qt::AscendingOrder);
    EXPECT_EQ(childIds(t.proxy), QStringList({ "node-10", "node-9", "node-2" }));

    // A sample that changes the order re-sorts the live view.
    t.model.applySample("node-10", makeSample({ .node = "node-10", .unixMs = kStartMs + 1000, .cpu = 50 }));
    EXPECT_EQ(childIds(t.proxy), QStringList({ "node-9", "node-10", "node-2" }));
}

TEST(FleetSparklineDelegate, PaintsTheHistory)
{
    TestedModel t;
    t.model.setMap(smallMap());
    const QModelIndex index = t.model.nodeIndex("n1", FleetModel::HistoryColumn);
    SparklineDelegate delegate;
    QStyleOptionViewItem option;
    option.rect = QRect(0, 0, 120, 24);
    option.palette.setColor(QPalette::Base, Qt::white);
    option.palette.setColor(QPalette::Highlight, Qt::blue);
    const auto paint = [&] {
        QImage image(120, 24, QImage::Format_ARGB32);
        image.fill(Qt::white);
        QPainter painter(&image);
        delegate.paint(&painter, option, index);
        painter.end();
        int painted = 0;
        for (int y = 0; y < image.height(); ++y) {
            for (int x = 0; x < image.width(); ++x) {
                painted += image.pixel(x, y) != qRgb(255, 255, 255) ? 1 : 0;
            }
        }
        return painted;
    };
    EXPECT_EQ(paint(), 0);
    for (int i = 0; i < 10; ++i) {
        t.model.applySample("n1", makeSample({ .node = "n1", .unixMs = kStartMs + i * 1000, .cpu = double(i % 3) }));
    }
    EXPECT_GT(paint(), 20);
    EXPECT_GE(delegate.sizeHint(option, index).width(), 100);
}

TEST(FleetHealthSettings, SaveAndLoadRoundTrip)
{
    QSettings settings;
    settings.remove(QStringLiteral("health"));
    EXPECT_EQ(loadHealthThresholds(settings), core::HealthThresholds {});
    core::HealthThresholds custom;
    custom.diskUsedWarningPercent = 70;
    custom.cpuWindowMs = 10 * 60 * 1000;
    custom.memoryLimitBytes = 16 * kGiB;
    saveHealthThresholds(settings, custom);
    EXPECT_EQ(loadHealthThresholds(settings), custom);
    settings.remove(QStringLiteral("health"));

    HealthSettingsDialog dialog(custom);
    EXPECT_EQ(dialog.thresholds(), custom);
    dialog.setThresholds(core::HealthThresholds {});
    EXPECT_EQ(dialog.thresholds(), core::HealthThresholds {});
}

TEST(FleetPage, ShowsRowsAndRequestsDetail)
{
    FleetConnection connection;
    FleetPage page(&connection);
    QAbstractItemModelTester modelTester(page.model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester proxyTester(page.view()->model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    page.model()->setMap(smallMap());
    page.model()->applySample("n1", makeSample({ .node = "n1", .shards = { "s1", "s2" } }));
    page.resize(1200, 400);
    page.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&page));

    QTreeView* view = page.view();
    ASSERT_EQ(view->model()->rowCount(), 2);
    EXPECT_EQ(childIds(*view->model()), QStringList({ "n1", "n2" }));
    QSignalSpy detail(&page, &FleetPage::detailRequested);

    const QModelIndex n1 = view->model()->index(0, FleetModel::NameColumn);
    view->expand(n1);
    const QModelIndex s2 = view->model()->index(1, FleetModel::DocsColumn, n1);
    const QRect rect = view->visualRect(s2);
    ASSERT_TRUE(rect.isValid());
    // An item view only takes a double click on the item it saw pressed first.
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, rect.center());
    QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, rect.center());
    ASSERT_EQ(detail.count(), 1);
    EXPECT_EQ(detail[0][0].toString(), "n1");
    EXPECT_EQ(detail[0][1].toString(), "s2");

    // Enter on a node row: no shard.
    view->setCurrentIndex(view->model()->index(1, 0));
    QTest::keyClick(view, Qt::Key_Return);
    ASSERT_EQ(detail.count(), 2);
    EXPECT_EQ(detail[1][0].toString(), "n2");
    EXPECT_TRUE(detail[1][1].toString().isEmpty());

    // The filter box drives the proxy.
    auto* filter = page.findChild<QLineEdit*>();
    ASSERT_NE(filter, nullptr);
    EXPECT_EQ(filter->placeholderText(), "Filter nodes and shards");
    filter->setText("n2");
    EXPECT_EQ(childIds(*view->model()), QStringList({ "n2" }));
}

// The page re-sorts by a live column on its timer, not on every tick; rows keep their expansion.
TEST(FleetPage, LiveColumnSortIsRefreshedByTheReorderNotByTicks)
{
    FleetConnection connection;
    FleetPage page(&connection);
    QAbstractItemModelTester proxyTester(page.view()->model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    page.model()->setMap(smallMap());
    page.model()->applySample("n1", makeSample({ .node = "n1", .cpu = 10, .shards = { "s1", "s2" } }));
    page.model()->applySample("n2", makeSample({ .node = "n2", .cpu = 50, .shards = {} }));
    QTreeView* view = page.view();
    view->sortByColumn(FleetModel::CpuColumn, Qt::DescendingOrder);
    EXPECT_EQ(childIds(*view->model()), QStringList({ "n2", "n1" }));
    view->expand(view->model()->index(1, 0));

    // n1 becomes the busiest: the order holds until the reorder runs.
    page.model()->applySample(
        "n1", makeSample({ .node = "n1", .unixMs = kStartMs + 1000, .cpu = 90, .shards = { "s1", "s2" } }));
    EXPECT_EQ(childIds(*view->model()), QStringList({ "n2", "n1" }));
    page.reorder();
    EXPECT_EQ(childIds(*view->model()), QStringList({ "n1", "n2" }));
    EXPECT_TRUE(view->isExpanded(view->model()->index(0, 0)));
}
