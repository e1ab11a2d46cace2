#pragma once

// The overview page: the landing page's tiles, tables and charts, and the tile they are made of.

#include "core/fleet/fleet_totals.h"
#include "widgets/session/fleet_connection.h"

#include <QFrame>
#include <QHash>
#include <QSet>
#include <QStringList>
#include <QTimer>
#include <QWidget>
#include <map>
#include <vector>

class QGridLayout;
class QLabel;
class QListWidget;
class QStandardItemModel;
class QTableView;

namespace shardmap::widgets {

class AlertMonitor;
class TimeSeriesChart;

// One figure of the overview: a title, a value and a line under it; labels are elided, never
// wrapped mid-word; clicking it (or Enter/Space when focused) emits activated().
class OverviewTile : public QFrame {
    Q_OBJECT
public:
    OverviewTile(const QString& title, QWidget* parent = nullptr);
    void setValue(const QString& value, const QString& detail = {});
    // Warning look (an amber frame) for a figure that needs attention.
    void setWarning(bool warning);
    QString value() const { return m_valueText; }
    QString detail() const { return m_detailText; }
    bool warning() const { return m_warning; }

signals:
    void activated();

protected:
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void elide();

    QString m_title;
    QLabel* m_titleLabel;
    QLabel* m_valueLabel;
    QLabel* m_detailLabel;
    QString m_valueText;
    QString m_detailText;
    bool m_warning = false;
};

// The landing page: is the fleet all right? Tiles (nodes up, shards by state, spaces, documents,
// size, the fullest disk, migrations with their combined progress and ETA, the executor and the
// replicas alive, the store and its revision), what needs attention (the alerts firing), the ten
// hottest shards (queries and writes per second, growth over 24 h) and spaces, and charts of the
// fleet's write and search rates and disk use over 24 h. Everything is a click away from its
// page. The figures are core's (core/fleet/fleet_totals.h), computed every kRefreshMs from what
// the connection already holds (proportional to nodes and shards); the hottest spaces are read
// from the nodes on the pool every kSpacesMs.
class OverviewPage : public QWidget {
    Q_OBJECT
public:
    static constexpr int kRefreshMs = 2000;
    static constexpr int kSpacesMs = 30000;
    static constexpr int kHottest = 10;

    enum class Target { Fleet, Map, Migrations, Alerts, Audit, Balancer };
    Q_ENUM(Target)

    OverviewPage(FleetConnection* connection, AlertMonitor* monitor, QWidget* parent = nullptr);

    // Recomputes every figure now (the timer does it every kRefreshMs).
    void refresh();
    // Reads the hottest spaces from the nodes now (the timer does it every kSpacesMs).
    void refreshSpaces();

    OverviewTile* tile(const QString& name) const;
    QStringList tileNames() const;
    // The balancer's tile (issue 33): its mode and state as the Balancer page last read them; amber
    // while a guard holds it.
    void setBalancerStatus(const QString& mode, const QString& sentence, bool held);
    QTableView* hottestShards() const { return m_shardsView; }
    QTableView* hottestSpaces() const { return m_spacesView; }
    QListWidget* attention() const { return m_attention; }
    TimeSeriesChart* ratesChart() const { return m_rates; }
    TimeSeriesChart* diskChart() const { return m_disk; }

signals:
    void pageRequested(shardmap::widgets::OverviewPage::Target target);
    void detailRequested(const QString& nodeId, const QString& shardId);
    void spaceRequested(const QString& spaceId);
    void alertRequested(int kind, const QString& subject);

private:
    OverviewTile* addTile(const QString& name, const QString& title, Target target);
    // The constructor's steps.
    QGridLayout* buildTiles();
    void setUpAttention();
    void setUpHottestTables();
    void setUpCharts();
    void layOut(QGridLayout* tiles);
    void followFleet();
    void startTimers();
    void forgetConnection();

    void mapChanged(const MapPtr& map);
    void seedHistory(const MapPtr& map);
    void seedNodeHistory(const QString& nodeId);
    void declareSeries();
    void addHistory(const QString& nodeId, const core::HistoryDigest& history);
    void rebuildHistoryCharts();
    void updateAttention();
    // What the fleet totals read of a node: the connection's link and latest sample.
    core::NodeReader nodeReader() const;
    // refresh()'s steps: the tiles from the totals, then the tables and charts.
    void showNoFleet();
    void showNodesAndShards(const core::MapSnapshot& map, const core::FleetTotals& totals);
    void showDisk(const core::FleetTotals& totals);
    void showExecutor(int openMigrations);
    void showHottestShards(const std::vector<core::HotShard>& hot, qint64 now);
    void showHottestSpaces(const std::vector<core::HotSpace>& hot);
    void appendChartPoint(qint64 now, const core::FleetLoadPoint& load);

    FleetConnection* m_connection;
    AlertMonitor* m_monitor;
    QHash<QString, OverviewTile*> m_tiles;
    QStringList m_tileOrder;
    QListWidget* m_attention;
    QStandardItemModel* m_shards;
    QTableView* m_shardsView;
    QStandardItemModel* m_spaces;
    QTableView* m_spacesView;
    TimeSeriesChart* m_rates;
    TimeSeriesChart* m_disk;
    QTimer m_refresh;
    QTimer m_spacesTimer;
    bool m_seeded = false;
    // Nodes whose 24 hours are in the charts, and those asked for them now.
    QSet<QString> m_historySeeded;
    QSet<QString> m_historyAsked;
    bool m_spacesRunning = false;
    Generation m_generation;
    // Each shard's oldest bytes in the last 24 h (history or live), for the hottest shards' growth.
    core::ShardGrowth m_growth;
    // The charts are rebuilt once after a burst of node histories, not once per node.
    QTimer m_chartRebuild;
    // Fleet totals per minute from the nodes' histories, summed as they arrive.
    std::map<qint64, std::map<QString, core::FleetLoadPoint>> m_historyBuckets;
};

} // namespace shardmap::widgets
