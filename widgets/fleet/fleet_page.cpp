// FleetPage's implementation: the model fed from the connection's map, samples and links, the
// rows re-sorted on a timer, and the row actions that open the planner's wizards.

#include "widgets/fleet/fleet_page.h"

#include "core/plan/scenario.h"
#include "widgets/fleet/fleet_filter_proxy.h"
#include "widgets/fleet/fleet_model.h"
#include "widgets/fleet/health_settings.h"
#include "widgets/fleet/sparkline_delegate.h"
#include "widgets/session/fleet_connection.h"
#include "widgets/style/change_action.h"
#include "widgets/style/view_state.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>
#include <memory>

namespace shardmap::widgets {

FleetPage::FleetPage(FleetConnection* connection, QWidget* parent)
    : QWidget(parent)
    , m_connection(connection)
    , m_model(new FleetModel(this))
    , m_proxy(new FleetFilterProxy(this))
    , m_filter(new QLineEdit(this))
    , m_metric(new QComboBox(this))
    , m_onlyProblems(new QCheckBox(tr("Only problems"), this))
    , m_view(new QTreeView(this))
{
    setUpModel();
    QPushButton* thresholds = setUpControls();
    setUpView();
    layOut(thresholds);
    if (connection) {
        connectTo(connection);
        showCurrent(connection);
    }
}

void FleetPage::setUpModel()
{
    QSettings settings;
    m_model->setThresholds(loadHealthThresholds(settings));
    m_proxy->setSourceModel(m_model);
    // Rows are re-sorted and re-filtered on a timer, not on every metrics tick: rows that jump
    // every second cannot be read, and Qt 6.4's live re-sort inside dataChanged can hand out
    // stale indexes when a slot reads unexplored children during its layout signals.
    m_proxy->setDynamicSortFilter(false);
    m_reorder.setInterval(kReorderMs);
    connect(&m_reorder, &QTimer::timeout, this, &FleetPage::reorder);
    m_reorder.start();
}

// The filter, the sparkline's metric, "only problems" and the thresholds button (returned).
QPushButton* FleetPage::setUpControls()
{
    m_filter->setPlaceholderText(tr("Filter nodes and shards"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &FleetFilterProxy::setFilterText);
    connect(m_onlyProblems, &QCheckBox::toggled, m_proxy, &FleetFilterProxy::setOnlyProblems);

    for (int i = 0; i < FleetModel::kMetricCount; ++i) {
        const auto metric = static_cast<FleetModel::Metric>(i);
        m_metric->addItem(FleetModel::metricName(metric), i);
    }
    m_metric->setCurrentIndex(m_metric->findData(static_cast<int>(m_model->sparklineMetric())));
    connect(m_metric, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_model->setSparklineMetric(static_cast<FleetModel::Metric>(m_metric->itemData(index).toInt()));
    });
    auto* thresholds = new QPushButton(tr("Thresholds…"), this);
    connect(thresholds, &QPushButton::clicked, this, &FleetPage::editThresholds);
    return thresholds;
}

void FleetPage::setUpView()
{
    m_view->setModel(m_proxy);
    m_view->setUniformRowHeights(true);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(FleetModel::NameColumn, Qt::AscendingOrder);
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setItemDelegateForColumn(FleetModel::HistoryColumn, new SparklineDelegate(m_view));
    // Every column as wide as what it shows (the tree measures the rows on screen), the sparkline
    // takes the rest: nothing is cut at 1280 px.
    m_view->header()->setStretchLastSection(false);
    m_view->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->header()->setSectionResizeMode(FleetModel::HistoryColumn, QHeaderView::Stretch);
    rememberState(m_view->header(), QStringLiteral("fleet/columns"));
    // activated covers double-click and Enter (platform-dependent: single click where the
    // style activates on single click).
    connect(m_view, &QTreeView::activated, this, &FleetPage::activate);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view, &QWidget::customContextMenuRequested, this, &FleetPage::showRowMenu);
}

void FleetPage::layOut(QPushButton* thresholds)
{
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_filter, 1);
    auto* metricLabel = new QLabel(tr("Sparkline:"), this);
    metricLabel->setBuddy(m_metric);
    bar->addWidget(metricLabel);
    bar->addWidget(m_metric);
    bar->addWidget(m_onlyProblems);
    bar->addWidget(thresholds);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);
}

FleetPage::~FleetPage() = default;

void FleetPage::reorder()
{
    // Only what can change with the figures: the sort by a live column, the "only problems"
    // filter (health moves). Names and ids keep their order as rows come and go.
    const int column = m_proxy->sortColumn();
    const bool liveSort = column != FleetModel::NameColumn && column != FleetModel::AddressColumn && column >= 0;
    if (liveSort || m_onlyProblems->isChecked()) {
        m_proxy->invalidate();
    }
}

void FleetPage::connectTo(FleetConnection* connection)
{
    // The connection streams a node's metrics before the first map is decoded: nodes new to the
    // model catch up on their link, latest sample and history when the map lists them.
    connect(connection, &FleetConnection::mapChanged, this, [this, connection](const MapPtr& map) {
        QStringList fresh;
        if (map) {
            for (const auto& entry : map->nodes) {
                const QString nodeId = QString::fromStdString(entry.first);
                if (!m_model->nodeIndex(nodeId).isValid()) {
                    fresh.push_back(nodeId);
                }
            }
        }
        m_model->setMap(map);
        for (const QString& nodeId : std::as_const(fresh)) {
            catchUp(connection, nodeId);
            if (connection->nodeLink(nodeId).reachable) {
                fetchHealthHistory(connection, nodeId);
            }
        }
    });
    connect(connection, &FleetConnection::nodeSample, m_model, &FleetModel::applySample);
    connect(connection, &FleetConnection::nodeLinkChanged, m_model, &FleetModel::setNodeLink);
    // A node that comes up: its recent history covers the health window (CPU over 5 minutes).
    connect(
        connection, &FleetConnection::nodeLinkChanged, this, [this, connection](const QString& nodeId, bool reachable) {
            if (reachable && m_model->nodeIndex(nodeId).isValid()) {
                fetchHealthHistory(connection, nodeId);
            }
        });
}

void FleetPage::fetchHealthHistory(FleetConnection* connection, const QString& nodeId)
{
    const qint64 since = QDateTime::currentMSecsSinceEpoch() - m_model->thresholds().cpuWindowMs - kHistoryMarginMs;
    connection->fetchHistory(nodeId, since, this, [this, nodeId](core::Result<core::MetricsHistoryValue> history) {
        if (history) {
            m_model->seedHistory(nodeId, *history);
        }
    });
}

void FleetPage::catchUp(FleetConnection* connection, const QString& nodeId)
{
    const FleetConnection::NodeLinkInfo link = connection->nodeLink(nodeId);
    // Neither up nor failed yet: the first attempt is still running ("connecting").
    if (link.reachable || !link.error.isEmpty()) {
        m_model->setNodeLink(nodeId, link.reachable, link.error);
    }
    if (const SamplePtr sample = connection->latestSample(nodeId)) {
        m_model->applySample(nodeId, sample);
    }
}

void FleetPage::showCurrent(FleetConnection* connection)
{
    const MapPtr map = connection->map();
    if (!map) {
        return;
    }
    m_model->setMap(map);
    for (const auto& entry : map->nodes) {
        catchUp(connection, QString::fromStdString(entry.first));
    }
}

void FleetPage::editThresholds()
{
    HealthSettingsDialog dialog(m_model->thresholds(), this);
    if (dialog.exec() != QDialog::Accepted) {
        return;
    }
    const core::HealthThresholds thresholds = dialog.thresholds();
    m_model->setThresholds(thresholds);
    QSettings settings;
    saveHealthThresholds(settings, thresholds);
    emit thresholdsChanged();
}

void FleetPage::activate(const QModelIndex& proxyIndex)
{
    if (!proxyIndex.isValid()) {
        return;
    }
    emit detailRequested(
        proxyIndex.data(FleetModel::NodeIdRole).toString(), proxyIndex.data(FleetModel::ShardIdRole).toString());
}

// Shard rows offer drain, split and merge; node rows retire-node and a new shard to fill.
void FleetPage::showRowMenu(const QPoint& point)
{
    const QModelIndex index = m_view->indexAt(point);
    if (!index.isValid())
        return;
    const std::unique_ptr<QMenu> menu(
        rowMenu(index.data(FleetModel::NodeIdRole).toString(), index.data(FleetModel::ShardIdRole).toString(), this));
    menu->exec(m_view->viewport()->mapToGlobal(point));
}

QMenu* FleetPage::rowMenu(const QString& node, const QString& shard, QWidget* parent)
{
    auto* menu = new QMenu(parent);
    // A disabled entry says why in its tooltip.
    menu->setToolTipsVisible(true);
    const auto offer = [&](const QString& text, core::Scenario scenario, const QString& subject) {
        QAction* action = menu->addAction(
            text, this, [this, scenario, subject] { emit wizardRequested(static_cast<int>(scenario), subject); });
        enableChange(action, m_connection);
    };
    if (!shard.isEmpty()) {
        offer(tr("Drain %1…").arg(shard), core::Scenario::Drain, shard);
        offer(tr("Split %1…").arg(shard), core::Scenario::Split, shard);
        offer(tr("Merge %1 into…").arg(shard), core::Scenario::Merge, shard);
    } else {
        offer(tr("Retire node %1…").arg(node), core::Scenario::RetireNode, node);
        offer(tr("Add a shard on %1 and fill it…").arg(node), core::Scenario::AddShards, QStringLiteral("@") + node);
    }
    menu->addSeparator();
    offer(tr("Rebalance the fleet…"), core::Scenario::Rebalance, {});
    return menu;
}

} // namespace shardmap::widgets
