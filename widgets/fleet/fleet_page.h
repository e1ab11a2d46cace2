#pragma once

// The fleet page: the fleet tree with its filter, sparkline metric and health thresholds.

#include <QTimer>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QMenu;
class QModelIndex;
class QPushButton;
class QTreeView;

namespace shardmap::widgets {

class FleetConnection;
class FleetFilterProxy;
class FleetModel;

// The fleet overview: every node with its shards, live figures, health colours with reasons,
// a sparkline of a chosen metric, a filter and an "only problems" switch. Fed by a
// FleetConnection (map, samples, link changes); health thresholds come from the settings and
// can be edited (editThresholds).
class FleetPage : public QWidget {
    Q_OBJECT
public:
    explicit FleetPage(FleetConnection* connection, QWidget* parent = nullptr);
    ~FleetPage() override;

    FleetModel* model() const { return m_model; }
    FleetFilterProxy* proxy() const { return m_proxy; }
    QTreeView* view() const { return m_view; }

    // The context menu of a row (a shard's when shard is set, else the node's), owned by parent:
    // the wizards that change the fleet, disabled with the reason on a read-only connection.
    QMenu* rowMenu(const QString& node, const QString& shard, QWidget* parent);

    // Opens the threshold dialog; on OK applies the thresholds and saves them in the settings.
    void editThresholds();

    // How often rows are re-sorted by a live column and re-filtered by health.
    static constexpr int kReorderMs = 2000;
    // History fetched beyond the CPU window, so one sample before it shows it is covered.
    static constexpr qint64 kHistoryMarginMs = 60000;
    // Re-sorts and re-filters now (the timer's work).
    void reorder();

signals:
    // The health thresholds were edited (and saved to the settings).
    void thresholdsChanged();
    // A row was double-clicked or activated with Enter; shardId is empty for a node row.
    void detailRequested(const QString& nodeId, const QString& shardId);
    // A wizard asked for from a row's context menu (int(core::Scenario); the shard or node).
    void wizardRequested(int scenario, const QString& subject);

private:
    // The constructor's steps.
    void setUpModel();
    QPushButton* setUpControls();
    void setUpView();
    void layOut(QPushButton* thresholds);
    void connectTo(FleetConnection* connection);
    void showCurrent(FleetConnection* connection);
    // A node's link and latest sample, from the connection.
    void catchUp(FleetConnection* connection, const QString& nodeId);
    void fetchHealthHistory(FleetConnection* connection, const QString& nodeId);
    void activate(const QModelIndex& proxyIndex);
    void showRowMenu(const QPoint& viewportPoint);

    FleetConnection* m_connection = nullptr;
    FleetModel* m_model = nullptr;
    FleetFilterProxy* m_proxy = nullptr;
    QLineEdit* m_filter = nullptr;
    QComboBox* m_metric = nullptr;
    QCheckBox* m_onlyProblems = nullptr;
    QTreeView* m_view = nullptr;
    QTimer m_reorder;
};

} // namespace shardmap::widgets
