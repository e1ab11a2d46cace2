#pragma once

// The shard detail page: one shard's (or node's) metric over time, compared shards, its spaces.

#include "widgets/bridge/background.h"
#include "widgets/session/fleet_connection.h"

#include <QHash>
#include <QStringList>
#include <QWidget>
#include <deque>
#include <functional>
#include <vector>

QT_BEGIN_NAMESPACE
class QButtonGroup;
class QComboBox;
class QLabel;
class QMenu;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class QToolButton;
QT_END_NAMESPACE

namespace shardmap::widgets {

class CopiesPanel;
class InlineMessage;

class ShardPickerModel;
class SpacesModel;
class TimeSeriesChart;

// The detail page of a shard (or of a node and its shards), picked on the page itself (a box with
// a completer over the map's shards and nodes) or from elsewhere: a time series of one metric over
// 5 min / 1 h / 24 h, drawn from the nodes' own history and extended by their live samples,
// optionally overlaid with other shards for comparison, and the shard's spaces as a table.
//
// Changing what is shown (shard, node, compared shards, range) fetches the history again; an
// answer to a question the user has since left is dropped (Generation). History that cannot be
// read is reported inline above the chart, per node.
class DetailPage : public QWidget {
    Q_OBJECT
public:
    // The first five are figures of each shard, the others of each node that holds a shown shard.
    enum class Metric { Docs, Bytes, QueriesPerSecond, P99Latency, IndexingRate, Rss, DiskFree, Cpu, IoWait };
    Q_ENUM(Metric)
    enum class Range { FiveMinutes, OneHour, OneDay };
    Q_ENUM(Range)

    // Where history comes from: FleetConnection::fetchHistory unless a test replaces it.
    using HistoryFetcher = std::function<void(const QString& nodeId, qint64 sinceUnixMs, QObject* context,
        std::function<void(core::Result<core::MetricsHistoryValue>)> done)>;

    explicit DetailPage(FleetConnection* connection, QWidget* parent = nullptr);
    ~DetailPage() override;

    // A node and all of its shards; the spaces table shows the first of them.
    void showNode(const QString& nodeId);
    void showShard(const QString& shardId);
    // Opens the shard the map puts the space on and selects its row. False, and nothing
    // changed, when the map has no such space.
    bool showSpace(const QString& spaceId);

    void setMetric(Metric metric);
    Metric metric() const { return m_metric; }
    void setRange(Range range);
    Range range() const { return m_range; }
    // Other shards drawn beside the shown ones.
    void setComparedShards(const QStringList& shardIds);
    QStringList comparedShards() const { return m_compared; }

    // Saves the visible chart as PNG or PDF (by the suffix of path).
    bool exportChart(const QString& path, QString* error);

    QString title() const { return m_title; }
    // The shard whose spaces are listed (empty if none), the shards and nodes the chart draws.
    QString shardId() const { return m_primaryShard; }
    QStringList shownShards() const;
    QStringList shownNodes() const { return m_nodes; }
    // What the warning line above the chart says (empty: hidden).
    QString errorText() const;
    // Series keys of the chart: one per shard or per node, depending on the metric.
    static QString shardSeriesKey(const QString& shardId);
    static QString nodeSeriesKey(const QString& nodeId);

    TimeSeriesChart* chart() const { return m_chart; }
    SpacesModel* spacesModel() const { return m_spacesModel; }
    // The picker: an editable box over pickerModel(); choosing a row or typing an id and Enter
    // shows that shard or node.
    QComboBox* picker() const { return m_picker; }
    ShardPickerModel* pickerModel() const { return m_pickerModel; }
    // What the page says while nothing is chosen (hidden once something is).
    QLabel* emptyHint() const { return m_emptyHint; }
    QSortFilterProxyModel* spacesProxy() const { return m_spacesProxy; }
    QTableView* spacesView() const { return m_spacesView; }
    // The shown shard's copies (or the shown node's), beside the spaces in a tab.
    CopiesPanel* copiesPanel() const { return m_copies; }
    QTabWidget* lowerTabs() const { return m_lowerTabs; }
    void setHistoryFetcher(HistoryFetcher fetcher);

public slots:
    void exportChartInteractive();

signals:
    void titleChanged(const QString& title);
    // A node's history was applied to the chart (samples: how many the node sent).
    void historyLoaded(const QString& nodeId, int samples);

private:
    struct NodeData {
        // Oldest first: the node's history, then the live samples newer than it.
        std::deque<SamplePtr> samples;
        bool historyLoaded = false;
        bool historyPending = false;
        QString historyError;
        QString linkError;
    };
    struct SeriesSpec {
        QString key;
        QString label;
        QString nodeId;
        std::string shardId; // empty for node-level metrics
    };

    void buildUi();
    QWidget* buildContent();
    QWidget* buildToolbar();
    QWidget* buildPicker(QWidget* parent);
    void pickRow(int row);
    void pickTyped();
    void syncPicker();
    void mapArrived(const MapPtr& map);
    void sampleArrived(const QString& nodeId, const SamplePtr& sample);
    void linkChanged(const QString& nodeId, bool reachable, const QString& error);
    // Recomputes shown shards and nodes from the map; refetches history if asked or if they changed.
    void reload(bool refetch);
    // reload()'s steps.
    QStringList sortedShardsOfNodeView() const;
    QStringList shardsToChart();
    QStringList nodesToChart(const QStringList& shards) const;
    void showSpaces();
    void refetchHistories();
    void fetchHistory(const QString& nodeId);
    void historyArrived(
        std::uint64_t ticket, const QString& nodeId, const core::Result<core::MetricsHistoryValue>& history);
    void rebuildChart();
    std::vector<SeriesSpec> seriesSpecs() const;
    void updateTitle();
    void updateErrors();
    void updateCompareMenu();
    void fillCompareMenu();
    void setSpaceDetailNode(const QString& nodeId);
    qint64 rangeMs() const;

    FleetConnection* m_connection;
    HistoryFetcher m_fetchHistory;
    MapPtr m_map;
    QString m_nodeView;
    QString m_primaryShard;
    QStringList m_compared;
    QStringList m_shards;
    QStringList m_nodes;
    QString m_spaceDetailNode;
    Metric m_metric = Metric::Docs;
    Range m_range = Range::FiveMinutes;
    Generation m_generation;
    std::uint64_t m_ticket = 0;
    QHash<QString, NodeData> m_data;
    QString m_title;
    QString m_exportError;
    QString m_pickError;

    QLabel* m_header = nullptr;
    QLabel* m_emptyHint = nullptr;
    QWidget* m_content = nullptr;
    QComboBox* m_picker = nullptr;
    ShardPickerModel* m_pickerModel = nullptr;
    InlineMessage* m_warning = nullptr;
    QComboBox* m_metricBox = nullptr;
    QButtonGroup* m_rangeButtons = nullptr;
    QToolButton* m_compareButton = nullptr;
    QMenu* m_compareMenu = nullptr;
    TimeSeriesChart* m_chart = nullptr;
    QLabel* m_spacesLabel = nullptr;
    SpacesModel* m_spacesModel = nullptr;
    QSortFilterProxyModel* m_spacesProxy = nullptr;
    QTableView* m_spacesView = nullptr;
    CopiesPanel* m_copies = nullptr;
    QTabWidget* m_lowerTabs = nullptr;
};

} // namespace shardmap::widgets
