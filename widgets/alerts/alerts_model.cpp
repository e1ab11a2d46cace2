// AlertsModel's implementation: the log reloaded on every alertsChanged, and each kind of alert
// worded in the console's language.

#include "widgets/alerts/alerts_model.h"

#include "widgets/alerts/alert_monitor.h"
#include "widgets/style/format.h"
#include "widgets/style/theme.h"

#include <QDateTime>
#include <QFont>
#include <QLocale>

namespace shardmap::widgets {

namespace {

QString when(std::int64_t unixMs)
{
    return unixMs == 0 ? QString() : QLocale().toString(QDateTime::fromMSecsSinceEpoch(unixMs), QLocale::ShortFormat);
}

QString percent(double value)
{
    return QLocale().toString(value, 'f', value < 10 ? 1 : 0) + QStringLiteral(" %");
}

} // namespace

AlertsModel::AlertsModel(AlertMonitor* monitor, QObject* parent)
    : QAbstractTableModel(parent)
    , m_monitor(monitor)
{
    connect(monitor, &AlertMonitor::alertsChanged, this, &AlertsModel::reload);
    reload();
}

void AlertsModel::reload()
{
    beginResetModel();
    const auto& entries = m_monitor->log().entries();
    m_entries.assign(entries.rbegin(), entries.rend());
    endResetModel();
}

int AlertsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_entries.size());
}

int AlertsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString AlertsModel::kindName(core::AlertKind kind)
{
    switch (kind) {
    case core::AlertKind::StoreUnreachable: return tr("Store unreachable");
    case core::AlertKind::StoreAccessDenied: return tr("Store access denied");
    case core::AlertKind::NoExecutor: return tr("No executor");
    case core::AlertKind::NodeUnreachable: return tr("Node unreachable");
    case core::AlertKind::DiskFull: return tr("Disk filling up");
    case core::AlertKind::CpuHigh: return tr("CPU high");
    case core::AlertKind::MemoryHigh: return tr("Memory high");
    case core::AlertKind::ShardOverCapacity: return tr("Shard over capacity");
    case core::AlertKind::MigrationFailed: return tr("Migration failed");
    case core::AlertKind::MigrationStalled: return tr("Migration stalled");
    case core::AlertKind::EtaGrowing: return tr("Migration slowing down");
    case core::AlertKind::AuditChainBroken: return tr("Audit broken");
    case core::AlertKind::ShardUnderReplicated: return tr("Shard under-replicated");
    case core::AlertKind::ShardWithoutCopy: return tr("Shard without in-sync copy");
    case core::AlertKind::ShardFailedOver: return tr("Shard failed over");
    case core::AlertKind::SnapshotTooOld: return tr("Snapshot too old");
    }
    return {};
}

// Issue 32: value is the newest usable snapshot's age (0: none), threshold the schedule's interval.
QString AlertsModel::describeSnapshotAge(const core::Alert& alert)
{
    const QString interval = formatDuration(static_cast<std::int64_t>(alert.threshold));
    if (alert.value <= 0)
        return tr("No usable snapshot; the schedule takes one every %1").arg(interval);
    return tr("The newest usable snapshot is %1 old; the schedule takes one every %2")
        .arg(formatDuration(static_cast<std::int64_t>(alert.value)), interval);
}

QString AlertsModel::describe(const core::Alert& alert)
{
    const QString subject = QString::fromStdString(alert.subject);
    const QString detail = QString::fromStdString(alert.detail);
    switch (alert.kind) {
    case core::AlertKind::StoreUnreachable: return tr("The store cannot be read: %1").arg(detail);
    case core::AlertKind::StoreAccessDenied: return tr("Not allowed to read the store: %1").arg(detail);
    case core::AlertKind::NoExecutor:
        return alert.value > 0 ? tr("No shardmapd holds the executor lease: %n open migration(s) wait until one does",
                   nullptr, static_cast<int>(alert.value))
                               : tr("No shardmapd holds the executor lease: migrations queued now would wait");
    case core::AlertKind::NodeUnreachable:
        return detail.isEmpty() ? tr("Node %1 cannot be reached").arg(subject)
                                : tr("Node %1 cannot be reached: %2").arg(subject, detail);
    case core::AlertKind::DiskFull:
        return tr("Node %1: disk %2 used (limit %3)").arg(subject, percent(alert.value), percent(alert.threshold));
    case core::AlertKind::CpuHigh:
        return tr("Node %1: CPU %2 on average (limit %3)").arg(subject, percent(alert.value), percent(alert.threshold));
    case core::AlertKind::MemoryHigh:
        return tr("Node %1: memory at %2 of its limit on average (limit %3)")
            .arg(subject, percent(alert.value), percent(alert.threshold));
    case core::AlertKind::ShardOverCapacity:
        return tr("Shard %1: %2 of its capacity").arg(subject, percent(alert.value));
    case core::AlertKind::MigrationFailed:
        return detail.isEmpty() ? tr("Migration %1 failed").arg(subject)
                                : tr("Migration %1 failed: %2").arg(subject, detail);
    case core::AlertKind::MigrationStalled:
        return tr("Migration %1 made no progress for %2")
            .arg(subject, formatDuration(static_cast<std::int64_t>(alert.value)));
    case core::AlertKind::EtaGrowing:
        return tr("Migration %1: expected time left grew from %2 to %3")
            .arg(subject, formatDuration(static_cast<std::int64_t>(alert.threshold)),
                formatDuration(static_cast<std::int64_t>(alert.value)));
    case core::AlertKind::AuditChainBroken:
        return tr("The audit is broken at revision %1: %2").arg(static_cast<qulonglong>(alert.value)).arg(detail);
    case core::AlertKind::ShardUnderReplicated:
        return tr("Shard %1: %2 of %3 copies in sync")
            .arg(subject)
            .arg(static_cast<int>(alert.value))
            .arg(static_cast<int>(alert.threshold));
    case core::AlertKind::ShardWithoutCopy:
        return tr("Shard %1 has no in-sync copy serving (primary's node %2 lost or unreachable)").arg(subject, detail);
    case core::AlertKind::ShardFailedOver:
        return tr("Shard %1's primary moved away from node %2 at %3; the old primary catches up or was lost")
            .arg(subject, detail, formatDateTime(static_cast<std::int64_t>(alert.value)));
    case core::AlertKind::SnapshotTooOld: return describeSnapshotAge(alert);
    }
    return QString::fromStdString(alert.summary);
}

QVariant AlertsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= static_cast<int>(m_entries.size()))
        return {};
    const core::AlertEntry& entry = m_entries[static_cast<std::size_t>(index.row())];
    const core::Alert& alert = entry.alert;
    const bool critical = alert.severity == core::AlertSeverity::Critical;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Severity: return critical ? tr("Critical") : tr("Warning");
        case Kind: return kindName(alert.kind);
        case Subject: return QString::fromStdString(alert.subject);
        case What: return describe(alert);
        case Fired: return when(entry.firedUnixMs);
        case Cleared: return entry.active() ? tr("firing") : when(entry.clearedUnixMs);
        case Acknowledged:
            return entry.acknowledged
                ? tr("%1 at %2").arg(QString::fromStdString(entry.acknowledgedBy), when(entry.acknowledgedUnixMs))
                : QString();
        default: return {};
        }
    case Qt::ToolTipRole: return describe(alert);
    case Qt::AccessibleTextRole:
        return tr("%1 alert, %2: %3")
            .arg(critical ? tr("Critical") : tr("Warning"), entry.active() ? tr("firing") : tr("cleared"),
                describe(alert));
    case Qt::ForegroundRole:
        if (index.column() == Severity && entry.active())
            return healthColor(critical ? HealthColorRole::Critical : HealthColorRole::Warning);
        return {};
    case Qt::FontRole:
        if (entry.active() && !entry.acknowledged) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    case KeyRole: return QString::fromStdString(alert.key());
    case ActiveRole: return entry.active();
    case AcknowledgedRole: return entry.acknowledged;
    case KindRole: return static_cast<int>(alert.kind);
    case SeverityRole: return static_cast<int>(alert.severity);
    case SubjectRole: return QString::fromStdString(alert.subject);
    default: return {};
    }
}

QVariant AlertsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Severity: return tr("Severity");
    case Kind: return tr("Alert");
    case Subject: return tr("Subject");
    case What: return tr("What");
    case Fired: return tr("Fired");
    case Cleared: return tr("Cleared");
    case Acknowledged: return tr("Acknowledged");
    default: return {};
    }
}

} // namespace shardmap::widgets
