// The shard and node detail page: the spaces model (incremental, under QAbstractItemModelTester),
// the chart layer (batched, decimated, exported), the page's handling of history answers, and
// the page against a real node with a real SQLite shard map.
#include "core/map/map_editor.h"
#include "core/store/metadata_store.h"
#include "tests/support/node_process.h"
#include "tests/support/test_dir.h"
#include "tests/widgets/wait_for.h"
#include "widgets/charts/time_series_chart.h"
#include "widgets/detail/detail_page.h"
#include "widgets/detail/spaces_model.h"
#include "widgets/session/fleet_connection.h"

#include <QAbstractItemModelTester>
#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QItemSelectionModel>
#include <QMenu>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QThread>
#include <cmath>
#include <gtest/gtest.h>

namespace shardmap::widgets {
namespace {

using testing::waitFor;

// A map of shards (id -> node) and spaces (id -> shard).
MapPtr detailMap(const std::vector<std::pair<std::string, std::string>>& shards,
    const std::vector<std::pair<std::string, std::string>>& spaces, std::uint64_t revision = 1)
{
    auto map = std::make_shared<core::MapSnapshot>();
    map->revision = revision;
    for (const auto& [shard, node] : shards) {
        map->nodes[node] = { core::NodeRecord { node, "127.0.0.1:1", {}, false }, 1 };
        map->shards[shard] = { core::ShardRecord { shard, node, core::ShardState::Active, 0, 0 }, 1 };
    }
    for (const auto& [space, shard] : spaces) {
        core::SpaceRecord record;
        record.id = space;
        record.shard = shard;
        map->spaces[space] = { record, 1 };
    }
    return map;
}

core::SpaceMetricsValue spaceFigures(const std::string& space, std::uint64_t docs, std::uint64_t bytes, double qps = 0)
{
    return { space, docs, bytes, qps, 0 };
}

// A sample of a node with one shard (docs = value) and optional per-space figures.
SamplePtr makeSample(const std::string& node, const std::string& shard, std::int64_t unixMs, double value,
    std::vector<core::SpaceMetricsValue> spaces = {})
{
    auto sample = std::make_shared<core::NodeMetricsValue>();
    sample->unixMs = unixMs;
    sample->nodeId = node;
    sample->rssBytes = static_cast<std::uint64_t>(value) * 1024;
    core::ShardMetricsValue figures;
    figures.shard = shard;
    figures.liveDocs = static_cast<std::uint64_t>(value);
    figures.spaces = spaces.size();
    for (const auto& space : spaces)
        figures.bytesEstimate += space.bytesEstimate;
    figures.spaceMetrics = std::move(spaces);
    sample->shards.push_back(figures);
    return sample;
}

core::MetricsHistoryValue makeHistory(const std::string& node, const std::string& shard, int count, double value)
{
    core::MetricsHistoryValue history;
    history.intervalMs = 1000;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    for (int i = 0; i < count; ++i)
        history.samples.push_back(*makeSample(node, shard, now - 60000 + i * 1000, value));
    return history;
}

int countWithRole(const QList<int>& roles, int role)
{
    return static_cast<int>(std::count(roles.begin(), roles.end(), role));
}

// ---------------------------------------------------------------------------------------------
// SpacesModel

class SpacesModelTest : public ::testing::Test {
protected:
    SpacesModelTest()
    {
        m_proxy.setSortRole(SpacesModel::SortRole);
        m_proxy.setSourceModel(&m_model);
    }

    QVariant sortValue(const QString& space, int column) const
    {
        return m_model.data(m_model.index(m_model.rowOf(space), column), SpacesModel::SortRole);
    }

    SpacesModel m_model;
    QSortFilterProxyModel m_proxy;
    // Created before any data is fed, as every model test does.
    QAbstractItemModelTester m_modelTester { &m_model, QAbstractItemModelTester::FailureReportingMode::Fatal };
    QAbstractItemModelTester m_proxyTester { &m_proxy, QAbstractItemModelTester::FailureReportingMode::Fatal };
};

TEST_F(SpacesModelTest, RowsFollowTheMapAndTicksNeverReset)
{
    m_model.setShard(
        detailMap({ { "s0", "n0" }, { "s1", "n0" } }, { { "a", "s0" }, { "b", "s0" }, { "x", "s1" } }), "s0");
    ASSERT_EQ(m_model.rowCount(), 2);
    EXPECT_EQ(m_model.rowOf("x"), -1);

    QSignalSpy resets(&m_model, &QAbstractItemModel::modelReset);
    QSignalSpy inserted(&m_model, &QAbstractItemModel::rowsInserted);
    QSignalSpy removed(&m_model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy changed(&m_model, &QAbstractItemModel::dataChanged);

    m_model.applySample(makeSample("n0", "s0", 1000, 30, { spaceFigures("a", 10, 300), spaceFigures("b", 20, 100) }));
    ASSERT_EQ(changed.count(), 1);
    EXPECT_EQ(countWithRole(changed.first().at(2).value<QList<int>>(), SpacesModel::SortRole), 1);
    EXPECT_EQ(sortValue("a", SpacesModel::DocsColumn).toULongLong(), 10u);
    EXPECT_DOUBLE_EQ(sortValue("a", SpacesModel::ShareColumn).toDouble(), 75.0);

    // The same figures again change nothing; new figures change only what they touch.
    changed.clear();
    m_model.applySample(makeSample("n0", "s0", 2000, 30, { spaceFigures("a", 10, 300), spaceFigures("b", 20, 100) }));
    EXPECT_EQ(changed.count(), 0);
    m_model.applySample(makeSample("n0", "s0", 3000, 31, { spaceFigures("a", 10, 300), spaceFigures("b", 21, 100) }));
    ASSERT_EQ(changed.count(), 1);
    EXPECT_EQ(changed.first().at(0).value<QModelIndex>().row(), m_model.rowOf("b"));
    EXPECT_EQ(changed.first().at(1).value<QModelIndex>().row(), m_model.rowOf("b"));

    // A space arrives, another leaves: rows are inserted and removed, the rest keep their figures.
    m_model.setShard(detailMap({ { "s0", "n0" } }, { { "b", "s0" }, { "c", "s0" } }, 2), "s0");
    EXPECT_EQ(inserted.count(), 1);
    EXPECT_EQ(removed.count(), 1);
    EXPECT_EQ(m_model.rowCount(), 2);
    EXPECT_EQ(m_model.rowOf("a"), -1);
    EXPECT_EQ(sortValue("b", SpacesModel::DocsColumn).toULongLong(), 21u);
    EXPECT_FALSE(sortValue("c", SpacesModel::DocsColumn).isValid());
    EXPECT_EQ(resets.count(), 0);
}

TEST_F(SpacesModelTest, SampleWithoutSpaceFiguresKeepsTheLastOnes)
{
    m_model.setShard(detailMap({ { "s0", "n0" } }, { { "a", "s0" } }), "s0");
    m_model.applySample(makeSample("n0", "s0", 1000, 5, { spaceFigures("a", 5, 50) }));
    auto bare = std::make_shared<core::NodeMetricsValue>(*makeSample("n0", "s0", 2000, 5));
    bare->shards.front().spaces = 1;
    QSignalSpy changed(&m_model, &QAbstractItemModel::dataChanged);
    m_model.applySample(bare);
    EXPECT_EQ(changed.count(), 0);
    EXPECT_EQ(sortValue("a", SpacesModel::DocsColumn).toULongLong(), 5u);
}

TEST_F(SpacesModelTest, DisplayIsReadableAndProxySortsByRawNumbers)
{
    m_model.setShard(detailMap({ { "s0", "n0" } }, { { "nine", "s0" }, { "hundred", "s0" }, { "ten", "s0" } }), "s0");
    m_model.applySample(makeSample("n0", "s0", 1000, 119,
        { spaceFigures("nine", 9, 9), spaceFigures("hundred", 100, 3 * 1024 * 1024, 2.5),
            spaceFigures("ten", 10, 10) }));
    const QString bytes = m_model.data(m_model.index(m_model.rowOf("hundred"), SpacesModel::BytesColumn)).toString();
    EXPECT_TRUE(bytes.contains(QStringLiteral("3.0")) && bytes.contains(QStringLiteral("MiB"))) << bytes.toStdString();
    EXPECT_EQ(m_model.data(m_model.index(m_model.rowOf("hundred"), SpacesModel::QueriesColumn)).toString(),
        QStringLiteral("2.5/s"));

    // As text "9" > "100"; by SortRole the numbers decide.
    m_proxy.sort(SpacesModel::DocsColumn, Qt::AscendingOrder);
    QStringList order;
    for (int row = 0; row < m_proxy.rowCount(); ++row)
        order.append(m_proxy.index(row, 0).data(SpacesModel::SpaceIdRole).toString());
    EXPECT_EQ(order, QStringList({ "nine", "ten", "hundred" }));
}

// ---------------------------------------------------------------------------------------------
// TimeSeriesChart

TEST(TimeSeriesChart, DecimatesToThePixelWidthAndKeepsFirstAndLast)
{
    TimeSeriesChart chart;
    chart.resize(800, 400);
    chart.show();
    const qint64 start = 1'700'000'000'000;
    TimeSeriesChart::Points points;
    for (int i = 0; i < 20000; ++i)
        points.emplace_back(start + i * 1000, 100.0 + 50.0 * std::sin(i / 300.0) + (i % 97 == 0 ? 400.0 : 0.0));
    chart.setTimeRange(start, start + 20000 * 1000);
    chart.setSeries(QStringLiteral("k"), QStringLiteral("label"), points);
    // Axis labels take their width from the data: draw until the plot area has settled.
    int settled = -1;
    for (int round = 0; round < 10 && settled != chart.plotPixelWidth(); ++round) {
        settled = chart.plotPixelWidth();
        chart.flushNow();
        QCoreApplication::processEvents();
    }

    const int width = chart.plotPixelWidth();
    ASSERT_GT(width, 100);
    EXPECT_EQ(chart.storedPointCount(QStringLiteral("k")), 20000);
    const int drawn = chart.pointCount(QStringLiteral("k"));
    EXPECT_GT(drawn, width / 2);
    EXPECT_LE(drawn, 2 * width + 2);
    const auto shown = chart.drawnPoints(QStringLiteral("k"));
    ASSERT_FALSE(shown.empty());
    EXPECT_EQ(shown.front().first, points.front().first);
    EXPECT_EQ(shown.back().first, points.back().first);
    EXPECT_DOUBLE_EQ(shown.back().second, points.back().second);
}

TEST(TimeSeriesChart, UpdatesArePushedInOneBatch)
{
    TimeSeriesChart chart;
    chart.resize(600, 300);
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    chart.setSlidingWindow(5 * 60 * 1000);
    QSignalSpy repainted(&chart, &TimeSeriesChart::repainted);
    for (int i = 0; i < 200; ++i)
        chart.appendPoints(QStringLiteral("live"), { { now - 200000 + i * 1000, double(i) } });
    // Nothing reaches Qt Charts until the coalescing timer fires, and then all at once.
    EXPECT_EQ(chart.pointCount(QStringLiteral("live")), 0);
    ASSERT_TRUE(repainted.wait(10000));
    EXPECT_EQ(repainted.count(), 1);
    EXPECT_EQ(chart.pointCount(QStringLiteral("live")), 200);
    // Points older than the newest one are not appended twice.
    chart.appendPoints(QStringLiteral("live"), { { now - 200000, 5.0 } });
    EXPECT_EQ(chart.storedPointCount(QStringLiteral("live")), 200);
}

TEST(TimeSeriesChart, ExportsPngOfItsSizeAndPdf)
{
    testing::TempDir dir;
    TimeSeriesChart chart;
    chart.resize(640, 360);
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    chart.setValueTitle(QStringLiteral("Docs"));
    chart.setSeries(QStringLiteral("a"), QStringLiteral("a"), { { now - 60000, 1.0 }, { now, 3.0 } });

    QString error;
    const QString png = QString::fromStdString(dir.file("chart.png"));
    ASSERT_TRUE(chart.exportTo(png, &error)) << error.toStdString();
    QImage image(png);
    ASSERT_FALSE(image.isNull());
    EXPECT_EQ(image.size(), chart.size());

    const QString pdf = QString::fromStdString(dir.file("chart.PDF"));
    ASSERT_TRUE(chart.exportTo(pdf, &error)) << error.toStdString();
    QFile file(pdf);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    EXPECT_TRUE(file.read(4) == "%PDF");
    EXPECT_GT(file.size(), 500);

    EXPECT_FALSE(chart.exportTo(QString::fromStdString(dir.file("chart.bmp")), &error));
    EXPECT_FALSE(error.isEmpty());
    error.clear();
    EXPECT_FALSE(chart.exportTo(QString::fromStdString(dir.file("missing/dir/chart.png")), &error));
    EXPECT_FALSE(error.isEmpty());
}

// ---------------------------------------------------------------------------------------------
// DetailPage with fed values: the map and samples are emitted on an unopened connection and the
// history comes from a fetcher the test answers by hand.

class DetailPageTest : public ::testing::Test {
protected:
    using Done = std::function<void(core::Result<core::MetricsHistoryValue>)>;
    struct Request {
        QString node;
        qint64 since = 0;
        Done done;
    };

    DetailPageTest()
    {
        m_page.setHistoryFetcher([this](const QString& node, qint64 since, QObject*, Done done) {
            m_requests.push_back({ node, since, std::move(done) });
        });
        m_page.resize(900, 700);
        emit m_connection.mapChanged(detailMap(
            { { "s0", "n0" }, { "s1", "n1" }, { "s2", "n0" } }, { { "a", "s0" }, { "b", "s0" }, { "c", "s1" } }));
    }

    FleetConnection m_connection;
    DetailPage m_page { &m_connection };
    std::vector<Request> m_requests;
};

TEST_F(DetailPageTest, StaleHistoryAnswerIsDropped)
{
    const QString key = DetailPage::shardSeriesKey("s0");
    m_page.showShard("s0");
    ASSERT_EQ(m_requests.size(), 1u);
    m_page.setRange(DetailPage::Range::OneHour);
    ASSERT_EQ(m_requests.size(), 2u);
    EXPECT_LT(m_requests[1].since, m_requests[0].since);

    // The answer for the 5-minute range arrives after the user asked for an hour: dropped.
    m_requests[0].done(makeHistory("n0", "s0", 5, 11));
    EXPECT_EQ(m_page.chart()->storedPointCount(key), 0);
    m_requests[1].done(makeHistory("n0", "s0", 3, 22));
    EXPECT_EQ(m_page.chart()->storedPointCount(key), 3);

    // An answer for a shard no longer shown is dropped as well.
    m_page.showShard("s1");
    ASSERT_EQ(m_requests.size(), 3u);
    m_page.showShard("s0");
    ASSERT_EQ(m_requests.size(), 4u);
    m_requests[2].done(makeHistory("n1", "s1", 7, 33));
    EXPECT_EQ(m_page.chart()->seriesKeys(), QStringList({ key }));
    m_requests[3].done(makeHistory("n0", "s0", 4, 44));
    EXPECT_EQ(m_page.chart()->storedPointCount(key), 4);
}

TEST_F(DetailPageTest, TheTitleSaysTheShardsIndexEngine)
{
    auto map = std::make_shared<core::MapSnapshot>(*detailMap({ { "s0", "n0" }, { "s1", "n1" } }, {}, 2));
    map->shards["s1"].value.engine = core::IndexEngine::Xapian;
    emit m_connection.mapChanged(map);
    QSignalSpy titles(&m_page, &DetailPage::titleChanged);
    m_page.showShard("s1");
    ASSERT_GE(titles.count(), 1);
    EXPECT_EQ(titles.last().at(0).toString(), QStringLiteral("Shard s1 on node n1, xapian index"));
    m_page.showShard("s0");
    EXPECT_EQ(titles.last().at(0).toString(), QStringLiteral("Shard s0 on node n0, fts5 index"));
}

TEST_F(DetailPageTest, LiveSamplesExtendTheHistory)
{
    const QString key = DetailPage::shardSeriesKey("s0");
    QSignalSpy titles(&m_page, &DetailPage::titleChanged);
    m_page.showShard("s0");
    ASSERT_GE(titles.count(), 1);
    EXPECT_TRUE(titles.last().at(0).toString().contains("s0"));
    ASSERT_EQ(m_requests.size(), 1u);
    m_requests[0].done(makeHistory("n0", "s0", 3, 10));
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    emit m_connection.nodeSample("n0", makeSample("n0", "s0", now, 12));
    emit m_connection.nodeSample("n1", makeSample("n1", "s1", now, 99));
    EXPECT_EQ(m_page.chart()->storedPointCount(key), 4);
    m_page.chart()->flushNow();
    EXPECT_EQ(m_page.chart()->pointCount(key), 4);
    EXPECT_DOUBLE_EQ(m_page.chart()->drawnPoints(key).back().second, 12.0);
}

TEST_F(DetailPageTest, ComparedShardsAndNodeMetricsGetTheirOwnSeries)
{
    m_page.showShard("s0");
    m_page.setComparedShards({ "s1" });
    EXPECT_EQ(m_page.chart()->seriesKeys(),
        QStringList({ DetailPage::shardSeriesKey("s0"), DetailPage::shardSeriesKey("s1") }));
    EXPECT_EQ(m_page.shownNodes(), QStringList({ "n0", "n1" }));
    m_page.setComparedShards({ "s1", "s2" });
    EXPECT_EQ(m_page.chart()->seriesKeys().size(), 3);
    // RSS is a node's figure: one line per node, not per shard.
    m_page.setMetric(DetailPage::Metric::Rss);
    EXPECT_EQ(m_page.chart()->seriesKeys(),
        QStringList({ DetailPage::nodeSeriesKey("n0"), DetailPage::nodeSeriesKey("n1") }));
    emit m_connection.nodeSample("n1", makeSample("n1", "s1", QDateTime::currentMSecsSinceEpoch(), 7));
    EXPECT_EQ(m_page.chart()->storedPointCount(DetailPage::nodeSeriesKey("n1")), 1);
    EXPECT_EQ(m_page.chart()->unit(), TimeSeriesChart::Unit::Bytes);
}

TEST_F(DetailPageTest, TheCompareMenuListsTheOtherShardsWhenItOpens)
{
    // Filled when it opens, not on every map change: at 10,000 shards that was 10,000 actions
    // made twice a second on the UI thread.
    m_page.showShard("s0");
    auto* menu = m_page.findChild<QMenu*>();
    ASSERT_NE(menu, nullptr);
    emit m_connection.mapChanged(
        detailMap({ { "s0", "n0" }, { "s1", "n1" }, { "s2", "n0" } }, { { "a", "s0" }, { "b", "s0" }, { "c", "s1" } }));
    EXPECT_TRUE(menu->actions().isEmpty());
    emit menu->aboutToShow();
    QStringList shown;
    for (const QAction* action : menu->actions())
        shown.push_back(action->text());
    EXPECT_EQ(shown, QStringList({ "s1 (node n1)", "s2 (node n0)" }));
    m_page.showNode("n0");
    emit menu->aboutToShow();
    ASSERT_EQ(menu->actions().size(), 1);
    EXPECT_EQ(menu->actions().front()->text(), "s1 (node n1)");
}

TEST_F(DetailPageTest, ShowNodeDrawsAllItsShards)
{
    m_page.showNode("n0");
    EXPECT_EQ(m_page.shownShards(), QStringList({ "s0", "s2" }));
    EXPECT_EQ(m_page.shardId(), QStringLiteral("s0"));
    EXPECT_TRUE(m_page.title().contains("n0"));
    EXPECT_EQ(m_requests.size(), 1u);
}

TEST_F(DetailPageTest, ANodesSpacesAreThoseOfAllItsShards)
{
    emit m_connection.mapChanged(detailMap({ { "s0", "n0" }, { "s1", "n1" }, { "s2", "n0" } },
        { { "a", "s0" }, { "b", "s0" }, { "c", "s1" }, { "hot", "s2" } }, 2));
    m_page.showNode("n0");
    SpacesModel* spaces = m_page.spacesModel();
    EXPECT_EQ(spaces->shardIds(), QStringList({ "s0", "s2" }));
    ASSERT_EQ(spaces->rowCount(), 3) << "a and b on s0, hot on s2";
    EXPECT_GE(spaces->rowOf("hot"), 0) << "the busiest tenant may live on the node's other shard";
    EXPECT_EQ(spaces->index(spaces->rowOf("hot"), SpacesModel::ShardColumn).data().toString(), QStringLiteral("s2"));
    EXPECT_EQ(spaces->rowOf("c"), -1);

    // One sample of the node carries both shards' spaces; each space's share is of its own shard.
    auto sample = makeSample("n0", "s0", 1000, 30, { spaceFigures("a", 10, 300), spaceFigures("b", 20, 100) });
    core::ShardMetricsValue other;
    other.shard = "s2";
    other.spaces = 1;
    other.spaceMetrics = { spaceFigures("hot", 900, 5000, 40) };
    std::const_pointer_cast<core::NodeMetricsValue>(sample)->shards.push_back(other);
    spaces->applySample(sample);
    const auto value = [&](const char* space, int column) {
        return spaces->index(spaces->rowOf(space), column).data(SpacesModel::SortRole);
    };
    EXPECT_EQ(value("hot", SpacesModel::DocsColumn).toULongLong(), 900u);
    EXPECT_DOUBLE_EQ(value("hot", SpacesModel::ShareColumn).toDouble(), 100.0);
    EXPECT_DOUBLE_EQ(value("a", SpacesModel::ShareColumn).toDouble(), 75.0);

    m_page.showShard("s0");
    EXPECT_EQ(spaces->rowCount(), 2) << "a shard's view lists that shard's spaces";
}

TEST_F(DetailPageTest, UnreadableHistoryIsReportedInline)
{
    m_page.showShard("s1");
    ASSERT_EQ(m_requests.size(), 1u);
    m_requests[0].done(core::makeError(core::ErrorCode::Unavailable, "connection refused", "n1"));
    EXPECT_EQ(m_page.errorText(), QStringLiteral("node n1 is unreachable: connection refused"));
    // Back online: the history is asked for again and the warning goes away.
    emit m_connection.nodeLinkChanged("n1", true, QString());
    ASSERT_EQ(m_requests.size(), 2u);
    m_requests[1].done(makeHistory("n1", "s1", 2, 1));
    EXPECT_TRUE(m_page.errorText().isEmpty());
    EXPECT_EQ(m_page.chart()->storedPointCount(DetailPage::shardSeriesKey("s1")), 2);
}

TEST_F(DetailPageTest, ShowSpaceOpensItsShardAndSelectsTheRow)
{
    m_page.showShard("s0");
    EXPECT_FALSE(m_page.showSpace("nowhere"));
    EXPECT_EQ(m_page.shardId(), QStringLiteral("s0"));

    ASSERT_TRUE(m_page.showSpace("c"));
    EXPECT_EQ(m_page.shardId(), QStringLiteral("s1"));
    const QModelIndex current = m_page.spacesView()->selectionModel()->currentIndex();
    ASSERT_TRUE(current.isValid());
    EXPECT_EQ(current.data(SpacesModel::SpaceIdRole).toString(), QStringLiteral("c"));
    EXPECT_TRUE(m_page.spacesView()->selectionModel()->isRowSelected(current.row(), {}));

    ASSERT_TRUE(m_page.showSpace("b"));
    EXPECT_EQ(m_page.shardId(), QStringLiteral("s0"));
    EXPECT_EQ(m_page.spacesView()->selectionModel()->currentIndex().data(SpacesModel::SpaceIdRole).toString(),
        QStringLiteral("b"));
}

// ---------------------------------------------------------------------------------------------
// End to end: a real node keeping history every 200 ms, a real SQLite map, a real connection.

TEST(DetailPageEndToEnd, HistoryThenLivePointsAndTheSpacesOfAShard)
{
    testing::TempDir dir;
    auto node = testing::NodeProcess::start(dir.file("node0"), { "--history-interval-ms", "200" });
    ASSERT_TRUE(node);
    const std::string storeUri = "sqlite:" + dir.file("map.db");
    {
        auto store = core::openStore(storeUri, true);
        ASSERT_TRUE(store) << store.error().describe();
        core::MapEditor editor(**store);
        const core::Actor actor { "test", "detail page test" };
        ASSERT_TRUE(editor.addNode({ "n0", node->address(), {}, false }, actor));
        core::NodeClientPool pool;
        auto client = pool.get(node->address());
        ASSERT_TRUE(client);
        ASSERT_TRUE((*client)->createShard("s0", {}));
        ASSERT_TRUE(editor.addShard({ "s0", "n0", core::ShardState::Active, 0, 0 }, actor));
        core::SpaceRecord space;
        space.id = "acme";
        space.shard = "s0";
        ASSERT_TRUE((*store)->commit({ { { core::keys::space("acme"), core::encode(space), 0 } }, std::nullopt,
            std::nullopt, "test", "create-space", "" }));
        ASSERT_TRUE((*client)->setOwnership("s0", { "acme", core::SpaceRole::Owner, 1 }));
        std::vector<core::WriteItem> items;
        for (int i = 0; i < 7; ++i)
            items.push_back({ { "acme", "doc-" + std::to_string(i), 1, { { "title", "hello" } }, false }, 1 });
        auto written = (*client)->bulkWrite("s0", items);
        ASSERT_TRUE(written) << written.error().describe();
        // Let the node keep a few history samples that already count the documents.
        ASSERT_TRUE(waitFor([&] {
            auto history = (*client)->metricsHistory(0);
            return history && history->samples.size() >= 3 && !history->samples.back().shards.empty()
                && history->samples.back().shards.front().liveDocs == 7;
        }));
    }

    FleetConnection connection;
    ConnectionSpec spec;
    spec.storeUri = QString::fromStdString(storeUri);
    spec.metricsIntervalMs = 200;
    connection.open(spec);
    ASSERT_TRUE(waitFor([&] { return connection.map() && connection.map()->shard("s0"); }))
        << connection.lastError().toStdString();

    DetailPage page(&connection);
    page.resize(1000, 700);
    page.show();
    QSignalSpy loaded(&page, &DetailPage::historyLoaded);
    page.showShard("s0");
    ASSERT_TRUE(waitFor([&] { return loaded.count() > 0; })) << page.errorText().toStdString();
    EXPECT_EQ(loaded.first().at(0).toString(), QStringLiteral("n0"));
    EXPECT_GE(loaded.first().at(1).toInt(), 3);

    const QString key = DetailPage::shardSeriesKey("s0");
    TimeSeriesChart* chart = page.chart();
    chart->flushNow();
    const int fromHistory = chart->pointCount(key);
    EXPECT_GE(fromHistory, 3);
    ASSERT_TRUE(waitFor([&] {
        chart->flushNow();
        return chart->pointCount(key) > fromHistory + 2;
    }));
    EXPECT_DOUBLE_EQ(chart->drawnPoints(key).back().second, 7.0);

    // The spaces table gets per-space figures from the stream.
    SpacesModel* model = page.spacesModel();
    ASSERT_EQ(model->rowCount(), 1);
    ASSERT_TRUE(waitFor([&] {
        return model->data(model->index(0, SpacesModel::DocsColumn), SpacesModel::SortRole).toULongLong() == 7u;
    }));
    EXPECT_EQ(model->data(model->index(0, SpacesModel::DocsColumn)).toString(), QStringLiteral("7"));
    EXPECT_DOUBLE_EQ(model->data(model->index(0, SpacesModel::ShareColumn), SpacesModel::SortRole).toDouble(), 100.0);

    ASSERT_TRUE(page.showSpace("acme"));
    EXPECT_EQ(page.spacesView()->selectionModel()->currentIndex().data(SpacesModel::SpaceIdRole).toString(),
        QStringLiteral("acme"));
    EXPECT_TRUE(page.errorText().isEmpty()) << page.errorText().toStdString();

    testing::TempDir exports;
    QString error;
    EXPECT_TRUE(page.exportChart(QString::fromStdString(exports.file("s0.png")), &error)) << error.toStdString();
}

} // namespace
} // namespace shardmap::widgets
