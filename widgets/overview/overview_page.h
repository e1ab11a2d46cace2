#pragma once

#include "widgets/session/fleet_connection.h"

#include <QFrame>
#include <QHash>
#include <QSet>
#include <QStringList>
#include <QTimer>
#include <QWidget>
#include <map>
#include <unordered_map>
#include <vector>

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
// page. Figures refresh every kRefreshMs from what the connection already holds (proportional to
// nodes and shards); the hottest spaces are read from the nodes on the pool every kSpacesMs.
class OverviewPage : public QWidget {
    Q_OBJECT
public:
    static constexpr int kRefreshMs = 2000;
    static constexpr int kSpacesMs = 30000;
    static constexpr int kHottest = 10;

    enum class Target { Fleet, Map, Migrations, Alerts, Audit };
    Q_ENUM(Target)

    OverviewPage(FleetConnection* connection, AlertMonitor* monitor, QWidget* parent = nullptr);

    // Recomputes every figure now (the timer does it every kRefreshMs).
    void refresh();
    // Reads the hottest spaces from the nodes now (the timer does it every kSpacesMs).
    void refreshSpaces();

    OverviewTile* tile(const QString& name) const;
    QStringList tileNames() const;
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
    struct Point {
        double writes = 0;
        double searches = 0;
        double diskUsed = 0;
    };

    OverviewTile* addTile(const QString& name, const QString& title, Target target);
    void mapChanged(const MapPtr& map);
    void seedHistory(const MapPtr& map);
    void seedNodeHistory(const QString& nodeId);
    void declareSeries();
    void addHistory(const QString& nodeId, const core::HistoryDigest& history);
    void rebuildHistoryCharts();
    void updateAttention();
    void updateHottestShards(const MapPtr& map);
    void appendChartPoint(qint64 nowMs);

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
    // The oldest bytes seen of each shard in the last 24 h (history or live), for its growth.
    std::unordered_map<std::string, std::pair<qint64, std::uint64_t>> m_shardBytesSince;
    // When the baselines above were last renewed from the live samples (once a minute is enough
    // for a 24 h growth, and every shard of the fleet is a lot to walk every refresh).
    qint64 m_baselinesRenewedMs = 0;
    // The charts are rebuilt once after a burst of node histories, not once per node.
    QTimer m_chartRebuild;
    // Fleet totals per minute from the nodes' histories, summed as they arrive.
    std::map<qint64, std::map<QString, Point>> m_historyBuckets;
};

} // namespace shardmap::widgets
