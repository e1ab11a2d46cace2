#pragma once

// The fleet page's tree model: nodes and their shards with live figures, health and sparklines.

#include "core/fleet/health.h"
#include "widgets/session/fleet_connection.h"

#include <QAbstractItemModel>
#include <array>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace shardmap::widgets {

// The fleet as a tree: nodes at the top, the shards the map places on each node below it, with
// live figures from the nodes' samples and a health level (with reasons) per row.
//
// Membership follows the map (setMap): rows are inserted and removed in place, never by a reset.
// Samples (applySample) update values in place and emit dataChanged for the cells that changed,
// merged into one range per run of changed rows, with explicit roles. The model keeps bounded
// memory per row: a ring of the last kHistoryLength values of every sparkline metric and, per
// node, the samples of the CPU averaging window (core::NodeSampleWindow).
class FleetModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        StateColumn,
        AddressColumn,
        SpacesColumn,
        DocsColumn,
        DiskSizeColumn,
        RssColumn,
        DiskFreeColumn,
        CpuColumn,
        IoWaitColumn,
        QueriesColumn,
        P99Column,
        IndexingColumn,
        HistoryColumn,
        ColumnCount
    };
    Q_ENUM(Column)

    enum Role {
        // QString, every column: the node of the row (for a shard row, the node it is on).
        NodeIdRole = Qt::UserRole,
        // QString, every column: the shard of a shard row, empty on node rows.
        ShardIdRole,
        // QString, every column: the node's address (shard rows: their node's).
        AddressRole,
        // int (core::HealthLevel), every column: the row's health.
        HealthLevelRole,
        // The raw value for sorting: a number (double) in the figure columns, the text otherwise;
        // invalid while the figure is unknown (sorts last).
        SortRole,
        // QList<qreal>, oldest first, the recent values of the sparkline metric (empty when the
        // row has no such figure, e.g. CPU of a shard).
        HistoryRole,
    };
    Q_ENUM(Role)

    // The metrics a sparkline can show; each is one of the figure columns.
    enum class Metric { Rss, DiskFree, Cpu, IoWait, QueriesPerSecond, P99, DocsIndexedPerSecond };
    Q_ENUM(Metric)
    static constexpr int kMetricCount = 7;
    static constexpr int kHistoryLength = 120;

    explicit FleetModel(QObject* parent = nullptr);
    ~FleetModel() override;

    // Shows the nodes and shards of map (nullptr: none).
    void setMap(const MapPtr& map);
    // Takes a node's newest sample. Samples of nodes the map does not list are dropped.
    void applySample(const QString& nodeId, const SamplePtr& sample);
    // The console's link to a node came up or went down. Until the first call for a node its
    // link counts as "connecting" (no verdict).
    void setNodeLink(const QString& nodeId, bool reachable, const QString& error);
    // The node's history from before its first live sample: fills the CPU window at once
    // instead of five minutes after connecting.
    void seedHistory(const QString& nodeId, const core::MetricsHistoryValue& history);
    void setThresholds(const core::HealthThresholds& thresholds);
    const core::HealthThresholds& thresholds() const { return m_thresholds; }
    void setSparklineMetric(Metric metric);
    Metric sparklineMetric() const { return m_metric; }

    // The index of a node or shard row (invalid if there is none).
    QModelIndex nodeIndex(const QString& nodeId, int column = NameColumn) const;
    QModelIndex shardIndex(const QString& shardId, int column = NameColumn) const;

    // Translated names, for the metric chooser and the health tooltips.
    static QString metricName(Metric metric);
    static QString describeReason(const core::HealthReason& reason, const core::HealthThresholds& thresholds);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row;
    struct NodeRow;
    struct ShardRow;
    struct MapIndex;
    using Values = std::array<double, ColumnCount>;
    // One bit per column that changed.
    using ChangeMask = std::uint32_t;

    QVariant displayValue(const NodeRow& node, const ShardRow* shard, int column) const;
    // A figure of the column in its unit ("1.5 GiB", "82.5 %", "12/s"); fleet_model_text.cpp.
    static QVariant figureText(int column, double value);
    // Figures right-aligned, text as the style has it.
    static QVariant columnAlignment(int column);
    QVariant sortValue(const NodeRow& node, const ShardRow* shard, int column) const;
    QString stateText(const NodeRow& node, const ShardRow* shard) const;
    QString healthText(const Row& row) const;

    std::unique_ptr<NodeRow> makeNode(const std::string& id, const MapIndex& map);
    std::unique_ptr<ShardRow> makeShard(NodeRow& node, const std::string& id, const MapIndex& map);
    template <typename T, typename Make, typename Forget>
    void syncRows(const QModelIndex& parent, std::vector<std::unique_ptr<T>>& rows,
        const std::vector<std::string>& wanted, Make make, Forget forget);
    void forgetNode(NodeRow& node);
    void forgetShard(const ShardRow& shard);

    // Applies changes from the shown map to the new one in place; false when rows must come, go
    // or move (the caller then walks the whole map).
    bool applyChanges(const core::MapChanges& changes, const MapIndex& index);
    ChangeMask updateNodeFromMap(NodeRow& node, const MapIndex& map);
    ChangeMask updateShardFromMap(ShardRow& shard, const MapIndex& map);
    ChangeMask applyShardMetrics(ShardRow& shard, const core::ShardMetricsValue* metrics, bool nodeSampled);
    ChangeMask evaluateNode(NodeRow& node);
    ChangeMask evaluateShard(ShardRow& shard);
    ChangeMask setValues(Row& row, const Values& values);
    ChangeMask pushHistory(Row& row);
    void emitChanged(const QModelIndex& parent, const std::vector<ChangeMask>& masks);
    void emitNodeChanged(const NodeRow& node, ChangeMask mask);
    void emitColumn(int column, const QList<int>& roles);

    MapPtr m_map;
    std::vector<std::unique_ptr<NodeRow>> m_nodes;
    std::unordered_map<std::string, NodeRow*> m_nodeById;
    std::unordered_map<std::string, ShardRow*> m_shardById;
    // Bumped by every full walk of the map, which may add, remove or move rows (SampleRows).
    std::uint64_t m_rowsGeneration = 0;
    struct Link {
        bool reachable = false;
        std::string error;
    };
    std::unordered_map<std::string, Link> m_links;
    // Nodes whose link is down: their copies serve none.
    std::set<std::string> m_unreachable;
    core::HealthThresholds m_thresholds;
    Metric m_metric = Metric::Cpu;
};

} // namespace shardmap::widgets
