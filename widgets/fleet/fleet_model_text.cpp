// What the fleet model's cells and headers say: each column's unit and heading, a figure in its
// unit, the sparkline metrics' names and a health reason as a sentence, in the user's language.

#include "widgets/fleet/fleet_model.h"
#include "widgets/style/format.h"

#include <QLocale>
#include <cmath>

namespace shardmap::widgets {

namespace {

enum class Unit { Text, Count, Bytes, Percent, Rate, Millis };

Unit unitOf(int column)
{
    switch (column) {
    case FleetModel::SpacesColumn:
    case FleetModel::DocsColumn: return Unit::Count;
    case FleetModel::DiskSizeColumn:
    case FleetModel::RssColumn: return Unit::Bytes;
    case FleetModel::DiskFreeColumn:
    case FleetModel::CpuColumn:
    case FleetModel::IoWaitColumn: return Unit::Percent;
    case FleetModel::QueriesColumn:
    case FleetModel::IndexingColumn: return Unit::Rate;
    case FleetModel::P99Column: return Unit::Millis;
    default: return Unit::Text;
    }
}

// Whole numbers without decimals, others with one: "80", "82.5".
QString formatNumber(double value)
{
    return QLocale().toString(value, 'f', value == std::floor(value) ? 0 : 1);
}

// A measured percentage, rounded down so that it never reads as a threshold it has not reached.
QString formatMeasuredPercent(double value)
{
    return QLocale().toString(std::floor(value), 'f', 0);
}

} // namespace

QVariant FleetModel::figureText(int column, double value)
{
    const QLocale locale;
    switch (unitOf(column)) {
    case Unit::Count: return locale.toString(static_cast<qulonglong>(value));
    case Unit::Bytes: return formatBytes(value);
    case Unit::Percent: return tr("%1 %").arg(locale.toString(value, 'f', 1));
    case Unit::Rate: return tr("%1/s").arg(locale.toString(value, 'f', value < 10 ? 1 : 0));
    case Unit::Millis: return tr("%1 ms").arg(locale.toString(value, 'f', value < 10 ? 1 : 0));
    case Unit::Text: break;
    }
    return {};
}

QVariant FleetModel::columnAlignment(int column)
{
    return unitOf(column) == Unit::Text ? QVariant() : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
}

QVariant FleetModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) {
        return {};
    }
    if (role == Qt::TextAlignmentRole) {
        return columnAlignment(section);
    }
    if (role == Qt::ToolTipRole && section == P99Column) {
        return tr("Search latency, 99th percentile");
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    // Short headings: at 1280 px the fourteen columns and the sparkline share about 1,140 px.
    switch (section) {
    case NameColumn: return tr("Name");
    case StateColumn: return tr("State");
    case AddressColumn: return tr("Address");
    case SpacesColumn: return tr("Spaces");
    case DocsColumn: return tr("Documents");
    case DiskSizeColumn: return tr("Size on disk");
    case RssColumn: return tr("RSS");
    case DiskFreeColumn: return tr("Disk free");
    case CpuColumn: return tr("CPU");
    case IoWaitColumn: return tr("IO wait");
    case QueriesColumn: return tr("Queries/s");
    case P99Column: return tr("p99");
    case IndexingColumn: return tr("Indexed/s");
    case HistoryColumn: return tr("%1 history").arg(metricName(m_metric));
    default: return {};
    }
}

QString FleetModel::metricName(Metric metric)
{
    switch (metric) {
    case Metric::Rss: return tr("RSS");
    case Metric::DiskFree: return tr("Disk free");
    case Metric::Cpu: return tr("CPU");
    case Metric::IoWait: return tr("IO wait");
    case Metric::QueriesPerSecond: return tr("Queries/s");
    case Metric::P99: return tr("p99 latency");
    case Metric::DocsIndexedPerSecond: return tr("Indexed/s");
    }
    return {};
}

QString FleetModel::describeReason(const core::HealthReason& reason, const core::HealthThresholds& thresholds)
{
    const bool red = reason.level == core::HealthLevel::Critical;
    const QString value = formatMeasuredPercent(reason.value);
    const QString threshold = formatNumber(reason.threshold);
    switch (reason.metric) {
    case core::HealthMetric::Unreachable:
        return reason.detail.empty() ? tr("node unreachable")
                                     : tr("node unreachable: %1").arg(QString::fromStdString(reason.detail));
    case core::HealthMetric::NodeRetired: return tr("node retired");
    case core::HealthMetric::DiskUsed:
        return red ? tr("disk %1 % used (red at %2 %)").arg(value, threshold)
                   : tr("disk %1 % used (amber at %2 %)").arg(value, threshold);
    case core::HealthMetric::CpuAverage:
        return tr("CPU %1 % averaged over %2 min (amber at %3 %)")
            .arg(value, formatNumber(static_cast<double>(thresholds.cpuWindowMs) / 60000.0), threshold);
    case core::HealthMetric::Memory: {
        const QString limit = formatBytes(thresholds.memoryLimitBytes);
        return red ? tr("RSS at %1 % of the %2 memory limit (red at %3 %)").arg(value, limit, threshold)
                   : tr("RSS at %1 % of the %2 memory limit (amber at %3 %)").arg(value, limit, threshold);
    }
    case core::HealthMetric::ShardUnhealthy: return tr("the node reports the shard unhealthy");
    case core::HealthMetric::ShardMissing: return tr("the node does not report this shard");
    case core::HealthMetric::ShardCopies:
        return red ? tr("no copy in sync serves (%1 wanted)").arg(threshold)
                   : tr("%1 of %2 copies in sync (under-replicated)").arg(formatNumber(reason.value), threshold);
    case core::HealthMetric::ShardState:
        switch (reason.state.value_or(core::ShardState::Active)) {
        case core::ShardState::Draining: return tr("shard is draining");
        case core::ShardState::Readonly: return tr("shard is read-only");
        case core::ShardState::Retired: return tr("shard is retired");
        case core::ShardState::Active: return tr("shard is active");
        }
        break;
    }
    return {};
}

} // namespace shardmap::widgets
