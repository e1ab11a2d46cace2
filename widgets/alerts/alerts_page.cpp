// The alerts page's implementation: the thresholds dialog's form, the page's table behind a filter
// of the active rows, and acknowledging the selected alerts.

#include "widgets/alerts/alerts_page.h"

#include "widgets/alerts/alert_monitor.h"
#include "widgets/alerts/alerts_model.h"
#include "widgets/style/view_state.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

namespace shardmap::widgets {

namespace {

// Rows that fire, or every row when cleared ones are shown.
class ActiveFilter : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void setShowCleared(bool show)
    {
        m_showCleared = show;
        invalidateFilter();
    }
    bool showCleared() const { return m_showCleared; }

protected:
    bool filterAcceptsRow(int row, const QModelIndex& parent) const override
    {
        return m_showCleared || sourceModel()->index(row, 0, parent).data(AlertsModel::ActiveRole).toBool();
    }

private:
    bool m_showCleared = false;
};

QSpinBox* secondsBox(int maximum, QWidget* parent)
{
    auto* box = new QSpinBox(parent);
    box->setRange(1, maximum);
    box->setSuffix(QStringLiteral(" s"));
    return box;
}

} // namespace

AlertThresholdsDialog::AlertThresholdsDialog(const core::AlertThresholds& thresholds, QWidget* parent)
    : QDialog(parent)
    , m_base(thresholds)
{
    setWindowTitle(tr("Alert Thresholds"));
    auto* form = new QFormLayout;
    m_stallSeconds = secondsBox(7 * 86400, this);
    m_stallSeconds->setAccessibleName(tr("Migration stalled after"));
    form->addRow(tr("Migration &stalled after no progress for:"), m_stallSeconds);
    m_etaWindowSeconds = secondsBox(86400, this);
    m_etaWindowSeconds->setAccessibleName(tr("Time-left comparison window"));
    form->addRow(tr("Compare a backfill's time &left with:"), m_etaWindowSeconds);
    m_etaGrowthPercent = new QDoubleSpinBox(this);
    m_etaGrowthPercent->setRange(0, 10000);
    m_etaGrowthPercent->setSuffix(QStringLiteral(" %"));
    m_etaGrowthPercent->setAccessibleName(tr("Time-left growth that fires"));
    form->addRow(tr("... and fire when it &grew by more than:"), m_etaGrowthPercent);
    m_etaGrowthMinSeconds = secondsBox(86400, this);
    m_etaGrowthMinSeconds->setMinimum(0);
    m_etaGrowthMinSeconds->setAccessibleName(tr("Least time-left growth that fires"));
    form->addRow(tr("... and by at &least:"), m_etaGrowthMinSeconds);
    m_failedLookbackHours = new QDoubleSpinBox(this);
    m_failedLookbackHours->setRange(0, 24 * 365);
    m_failedLookbackHours->setSuffix(tr(" h"));
    m_failedLookbackHours->setAccessibleName(tr("Failed migrations fire for"));
    form->addRow(tr("&Failed migrations fire for:"), m_failedLookbackHours);
    m_shardFillPercent = new QDoubleSpinBox(this);
    m_shardFillPercent->setRange(1, 1000);
    m_shardFillPercent->setSuffix(QStringLiteral(" %"));
    m_shardFillPercent->setAccessibleName(tr("Shard fill that warns"));
    form->addRow(tr("A shard &warns when filled to:"), m_shardFillPercent);
    auto* buttons = new QDialogButtonBox(
        QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, this, [this] {
        core::AlertThresholds defaults;
        defaults.health = m_base.health;
        setThresholds(defaults);
    });
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);
    setThresholds(thresholds);
}

void AlertThresholdsDialog::setThresholds(const core::AlertThresholds& thresholds)
{
    m_stallSeconds->setValue(static_cast<int>(thresholds.migrationStallSeconds));
    m_etaWindowSeconds->setValue(static_cast<int>(thresholds.etaWindowSeconds));
    m_etaGrowthPercent->setValue(thresholds.etaGrowthPercent);
    m_etaGrowthMinSeconds->setValue(static_cast<int>(thresholds.etaGrowthMinSeconds));
    m_failedLookbackHours->setValue(static_cast<double>(thresholds.failedLookbackSeconds) / 3600);
    m_shardFillPercent->setValue(thresholds.shardFillWarningPercent);
}

core::AlertThresholds AlertThresholdsDialog::thresholds() const
{
    core::AlertThresholds out = m_base;
    out.migrationStallSeconds = m_stallSeconds->value();
    out.etaWindowSeconds = m_etaWindowSeconds->value();
    out.etaGrowthPercent = m_etaGrowthPercent->value();
    out.etaGrowthMinSeconds = m_etaGrowthMinSeconds->value();
    out.failedLookbackSeconds = static_cast<std::int64_t>(m_failedLookbackHours->value() * 3600);
    out.shardFillWarningPercent = m_shardFillPercent->value();
    return out;
}

AlertsPage::AlertsPage(AlertMonitor* monitor, QWidget* parent)
    : QWidget(parent)
    , m_monitor(monitor)
    , m_model(new AlertsModel(monitor, this))
    , m_proxy(new ActiveFilter(this))
    , m_table(new QTableView(this))
    , m_summary(new QLabel(this))
    , m_showCleared(new QCheckBox(tr("Show &cleared"), this))
    , m_acknowledge(new QPushButton(tr("&Acknowledge"), this))
{
    setObjectName(QStringLiteral("alertsPage"));
    m_proxy->setSourceModel(m_model);
    setUpTable();
    m_summary->setObjectName(QStringLiteral("alertsSummary"));
    m_summary->setAccessibleName(tr("Alerts summary"));
    m_showCleared->setAccessibleName(tr("Show cleared alerts"));
    m_acknowledge->setAccessibleName(tr("Acknowledge the selected alerts"));

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_summary, 1);
    bar->addWidget(m_showCleared);
    bar->addWidget(m_acknowledge);
    bar->addWidget(thresholdsButton());
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_table, 1);

    connectActions();
    updateSummary();
    updateActions();
}

void AlertsPage::setUpTable()
{
    m_table->setObjectName(QStringLiteral("alertsTable"));
    m_table->setAccessibleName(tr("Alerts"));
    m_table->setModel(m_proxy);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(AlertsModel::What, QHeaderView::Stretch);
    m_table->setWordWrap(false);
    rememberState(m_table->horizontalHeader(), QStringLiteral("alerts/columns"));
}

// One button for both kinds of threshold: the migration and shard alerts' own, and the node
// health thresholds the node alerts follow.
QPushButton* AlertsPage::thresholdsButton()
{
    auto* thresholds = new QPushButton(tr("&Thresholds"), this);
    thresholds->setObjectName(QStringLiteral("thresholds"));
    thresholds->setAccessibleName(tr("Alert thresholds"));
    auto* thresholdsMenu = new QMenu(thresholds);
    thresholdsMenu->addAction(tr("&Migration and shard alerts…"), this, &AlertsPage::editThresholds);
    thresholdsMenu->addAction(tr("Node &health…"), this, &AlertsPage::healthThresholdsRequested);
    thresholds->setMenu(thresholdsMenu);
    return thresholds;
}

void AlertsPage::connectActions()
{
    connect(m_showCleared, &QCheckBox::toggled, this, &AlertsPage::setShowCleared);
    connect(m_acknowledge, &QPushButton::clicked, this, &AlertsPage::acknowledgeSelected);
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex& index) {
        emit subjectRequested(
            index.data(AlertsModel::KindRole).toInt(), index.data(AlertsModel::SubjectRole).toString());
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &AlertsPage::updateActions);
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        updateSummary();
        updateActions();
    });
}

void AlertsPage::setShowCleared(bool show)
{
    static_cast<ActiveFilter*>(m_proxy)->setShowCleared(show);
    if (m_showCleared->isChecked() != show)
        m_showCleared->setChecked(show);
}

QString AlertsPage::summaryText() const
{
    return m_summary->text();
}

void AlertsPage::updateSummary()
{
    const auto& log = m_monitor->log();
    const int firing = static_cast<int>(log.activeCount());
    const int open = static_cast<int>(log.unacknowledgedCount());
    if (firing == 0)
        m_summary->setText(tr("No alerts firing."));
    else if (open == 0)
        m_summary->setText(tr("%n alert(s) firing, all acknowledged.", nullptr, firing));
    else
        m_summary->setText(tr("%n alert(s) firing, ", nullptr, firing) + tr("%n not acknowledged.", nullptr, open));
}

void AlertsPage::updateActions()
{
    bool any = false;
    for (const QModelIndex& row : m_table->selectionModel()->selectedRows()) {
        any = any || (row.data(AlertsModel::ActiveRole).toBool() && !row.data(AlertsModel::AcknowledgedRole).toBool());
    }
    m_acknowledge->setEnabled(any);
}

int AlertsPage::acknowledgeSelected()
{
    QStringList keys;
    for (const QModelIndex& row : m_table->selectionModel()->selectedRows()) {
        if (row.data(AlertsModel::ActiveRole).toBool())
            keys << row.data(AlertsModel::KeyRole).toString();
    }
    int done = 0;
    for (const QString& key : keys)
        done += m_monitor->acknowledge(key) ? 1 : 0;
    return done;
}

void AlertsPage::editThresholds()
{
    AlertThresholdsDialog dialog(m_monitor->thresholds(), this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const core::AlertThresholds thresholds = dialog.thresholds();
    QSettings settings;
    saveAlertThresholds(settings, thresholds);
    m_monitor->setThresholds(thresholds);
}

} // namespace shardmap::widgets
