// MigrationsModel's implementation: rows inserted, removed and updated per snapshot, merged change
// ranges, and the one countdown timer.
#include "widgets/migrations/migrations_model.h"

#include "core/map/space_placement.h"
#include "core/migration/migration_history.h"
#include "widgets/style/conversions.h"
#include "widgets/style/format.h"

#include <QDateTime>
#include <QLocale>
#include <algorithm>

namespace shardmap::widgets {
namespace {

QString shortTime(std::int64_t unixMs)
{
    if (unixMs <= 0)
        return {};
    return QLocale().toString(QDateTime::fromMSecsSinceEpoch(unixMs), QLocale::ShortFormat);
}

QString doneOfTotal(std::uint64_t done, std::uint64_t total, bool bytes)
{
    const QLocale locale;
    const auto format
        = [&](std::uint64_t value) { return bytes ? formatBytes(value) : locale.toString(qulonglong(value)); };
    return MigrationsModel::tr("%1 / %2").arg(format(done), format(total));
}

QString durationText(std::int64_t seconds)
{
    return seconds < 0 ? QString() : formatDuration(seconds);
}

double progressOf(const core::MigrationRecord& record)
{
    if (record.phase == core::MigrationPhase::Done)
        return 1.0;
    if (record.progress.docsTotal == 0)
        return -1.0;
    return std::min(
        1.0, static_cast<double>(record.progress.docsDone) / static_cast<double>(record.progress.docsTotal));
}

} // namespace

MigrationsModel::MigrationsModel(QObject* parent)
    : QAbstractTableModel(parent)
{
    m_countdown.setSingleShot(true);
    // A coarse timer may fire early, before the text changed.
    m_countdown.setTimerType(Qt::PreciseTimer);
    connect(&m_countdown, &QTimer::timeout, this, &MigrationsModel::countDown);
}

void MigrationsModel::setMap(const MapPtr& map)
{
    if (!map)
        return;
    m_settings = map->settings.value;
    removeMissing(map);
    updateExisting(map);
    insertNew(map);
    scheduleCountdown();
}

void MigrationsModel::scheduleCountdown()
{
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    std::int64_t next = -1;
    for (const core::MigrationRecord& record : m_rows) {
        const std::int64_t in = rollbackWindowTextChangesInMs(core::rollbackWindowEnd(record, m_settings), now);
        if (in >= 0 && (next < 0 || in < next))
            next = in;
    }
    if (next < 0)
        m_countdown.stop();
    else
        m_countdown.start(static_cast<int>(std::min<std::int64_t>(next + 1, 3'600'000)));
}

void MigrationsModel::countDown()
{
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    std::vector<int> rows;
    for (std::size_t row = 0; row < m_rows.size(); ++row) {
        // Open now, or closed since the last repaint (its phase says "cleanup" again).
        if (core::rollbackWindowEnd(m_rows[row], m_settings) > m_countedDownMs)
            rows.push_back(static_cast<int>(row));
    }
    m_countedDownMs = now;
    emitChanged(rows, PhaseColumn, PhaseColumn, { Qt::DisplayRole });
    scheduleCountdown();
}

void MigrationsModel::removeMissing(const MapPtr& map)
{
    // From the bottom so that earlier rows keep their numbers; adjacent rows go in one call.
    int row = static_cast<int>(m_rows.size()) - 1;
    while (row >= 0) {
        if (map->migrations.contains(m_rows[static_cast<std::size_t>(row)].id)) {
            --row;
            continue;
        }
        int first = row;
        while (first > 0 && !map->migrations.contains(m_rows[static_cast<std::size_t>(first - 1)].id))
            --first;
        beginRemoveRows({}, first, row);
        m_rows.erase(m_rows.begin() + first, m_rows.begin() + row + 1);
        reindex();
        endRemoveRows();
        row = first - 1;
    }
}

void MigrationsModel::updateExisting(const MapPtr& map)
{
    std::vector<int> changed;
    for (std::size_t row = 0; row < m_rows.size(); ++row) {
        const auto& fresh = map->migrations.at(m_rows[row].id).value;
        if (fresh == m_rows[row])
            continue;
        const bool finished = m_rows[row].active() && !fresh.active();
        m_rows[row] = fresh;
        changed.push_back(static_cast<int>(row));
        if (finished) {
            const QString reason = qs(fresh.error.empty() ? fresh.status : fresh.error);
            emit migrationFinished(qs(fresh.id), categoryOf(fresh), reason);
        }
    }
    static const QList<int> roles { Qt::DisplayRole, Qt::ToolTipRole, SortRole, PhaseRole, StateRole, ProgressRole,
        StatusRole, SourceRole, TargetRole };
    emitChanged(changed, 0, ColumnCount - 1, roles);
}

void MigrationsModel::insertNew(const MapPtr& map)
{
    std::vector<const core::MigrationRecord*> fresh;
    for (const auto& [id, versioned] : map->migrations) {
        if (!m_rowOf.contains(qs(id)))
            fresh.push_back(&versioned.value);
    }
    if (fresh.empty())
        return;
    const int first = static_cast<int>(m_rows.size());
    beginInsertRows({}, first, first + static_cast<int>(fresh.size()) - 1);
    for (const auto* record : fresh)
        m_rows.push_back(*record);
    reindex();
    endInsertRows();
}

void MigrationsModel::emitChanged(
    const std::vector<int>& rows, int firstColumn, int lastColumn, const QList<int>& roles)
{
    std::size_t i = 0;
    while (i < rows.size()) {
        std::size_t last = i;
        while (last + 1 < rows.size() && rows[last + 1] == rows[last] + 1)
            ++last;
        emit dataChanged(index(rows[i], firstColumn), index(rows[last], lastColumn), roles);
        i = last + 1;
    }
}

void MigrationsModel::reindex()
{
    m_rowOf.clear();
    for (std::size_t row = 0; row < m_rows.size(); ++row)
        m_rowOf.insert(qs(m_rows[row].id), static_cast<int>(row));
}

int MigrationsModel::rowOf(const QString& migrationId) const
{
    return m_rowOf.value(migrationId, -1);
}

const core::MigrationRecord* MigrationsModel::record(int row) const
{
    if (row < 0 || row >= static_cast<int>(m_rows.size()))
        return nullptr;
    return &m_rows[static_cast<std::size_t>(row)];
}

const core::MigrationRecord* MigrationsModel::record(const QString& migrationId) const
{
    return record(rowOf(migrationId));
}

MigrationsModel::StateCategory MigrationsModel::categoryOf(const core::MigrationRecord& record)
{
    switch (record.phase) {
    case core::MigrationPhase::Queued: return StateCategory::Queued;
    case core::MigrationPhase::Done: return StateCategory::Done;
    case core::MigrationPhase::Failed: return StateCategory::Failed;
    case core::MigrationPhase::Cancelled: return StateCategory::Cancelled;
    default: return StateCategory::Running;
    }
}

bool MigrationsModel::showsEta(const core::MigrationRecord& record)
{
    return record.active() && !record.backfilled && record.phase < core::MigrationPhase::Verify;
}

QString MigrationsModel::phaseText(const core::MigrationRecord& record, std::int64_t rollbackUntilUnixMs)
{
    if (QString window = formatRollbackWindow(rollbackUntilUnixMs, QDateTime::currentMSecsSinceEpoch());
        !window.isEmpty() && !record.rollbackRequested)
        return window;
    QString text = migrationPhaseText(record.phase);
    if (record.paused && record.active())
        text = tr("%1 (paused)").arg(text);
    else if (record.cancelRequested && record.active())
        text = tr("%1 (cancelling)").arg(text);
    else if (record.rollbackRequested && record.active())
        text = tr("%1 (rolling back)").arg(text);
    else if (record.rolledBack)
        text = tr("%1 (rolled back)").arg(text);
    return text;
}

QString MigrationsModel::routeText(const core::MigrationRecord& record)
{
    if (record.isCatchUp())
        return tr("catch-up of %1: %2 → %3").arg(qs(record.source), qs(record.copyPrimary), qs(record.copyNode));
    // As asked: a rollback swaps the record's source and target for the way back.
    const QString route = tr("%1 → %2").arg(qs(core::askedSource(record)), qs(core::askedTarget(record)));
    return record.rolledBack ? tr("%1, rolled back").arg(route) : route;
}

int MigrationsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int MigrationsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MigrationsModel::data(const QModelIndex& index, int role) const
{
    const auto* row = index.isValid() ? record(index.row()) : nullptr;
    if (!row)
        return {};
    switch (role) {
    case Qt::DisplayRole: return displayValue(*row, index.column());
    case Qt::ToolTipRole: return qs(row->error.empty() ? row->status : row->error);
    case SortRole: return sortValue(*row, index.column());
    case MigrationIdRole: return qs(row->id);
    case SpaceRole: return qs(row->space);
    case SourceRole: return qs(row->source);
    case TargetRole: return qs(row->target);
    case PhaseRole: return static_cast<int>(row->phase);
    case StateRole: return static_cast<int>(categoryOf(*row));
    case CreatedRole: return qint64(row->createdUnixMs);
    case ProgressRole: return progressOf(*row);
    case StatusRole: return qs(row->error.empty() ? row->status : row->error);
    case OperationRole: return qs(row->operation);
    default: return {};
    }
}

QVariant MigrationsModel::displayValue(const core::MigrationRecord& record, int column) const
{
    switch (column) {
    case IdColumn: return qs(record.id);
    case SpaceColumn: return qs(record.space);
    case RouteColumn: return routeText(record);
    case PhaseColumn: return phaseText(record, core::rollbackWindowEnd(record, m_settings));
    case ProgressColumn: {
        const double progress = progressOf(record);
        return progress < 0 ? QString() : tr("%1 %").arg(qRound(progress * 100));
    }
    case DocsColumn: return doneOfTotal(record.progress.docsDone, record.progress.docsTotal, false);
    case BytesColumn: return doneOfTotal(record.progress.bytesDone, record.progress.bytesTotal, true);
    case RateColumn:
        return record.active() && record.progress.docsPerSecond > 0
            ? tr("%1 docs/s").arg(QLocale().toString(record.progress.docsPerSecond, 'f', 0))
            : QString();
    case EtaColumn: return showsEta(record) ? durationText(record.progress.etaSeconds) : QString();
    case StartedColumn: return shortTime(record.startedUnixMs);
    case FinishedColumn: return shortTime(record.finishedUnixMs);
    case RequestedByColumn: return qs(record.requestedBy);
    default: return {};
    }
}

QVariant MigrationsModel::sortValue(const core::MigrationRecord& record, int column) const
{
    switch (column) {
    case IdColumn: return qs(record.id);
    case SpaceColumn: return qs(record.space);
    case RouteColumn: return qs(core::askedSource(record) + "\n" + core::askedTarget(record));
    case PhaseColumn: return static_cast<int>(record.phase);
    case ProgressColumn: return progressOf(record);
    case DocsColumn: return qulonglong(record.progress.docsDone);
    case BytesColumn: return qulonglong(record.progress.bytesDone);
    case RateColumn: return record.progress.docsPerSecond;
    case EtaColumn: return qlonglong(record.progress.etaSeconds);
    case StartedColumn: return qlonglong(record.startedUnixMs);
    case FinishedColumn: return qlonglong(record.finishedUnixMs);
    case RequestedByColumn: return qs(record.requestedBy);
    default: return {};
    }
}

QVariant MigrationsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case IdColumn: return tr("Migration");
    case SpaceColumn: return tr("Space");
    case RouteColumn: return tr("Source → target");
    case PhaseColumn: return tr("Phase");
    case ProgressColumn: return tr("Progress");
    case DocsColumn: return tr("Docs");
    case BytesColumn: return tr("Bytes");
    case RateColumn: return tr("Rate");
    case EtaColumn: return tr("ETA");
    case StartedColumn: return tr("Started");
    case FinishedColumn: return tr("Finished");
    case RequestedByColumn: return tr("Requested by");
    default: return {};
    }
}

} // namespace shardmap::widgets
