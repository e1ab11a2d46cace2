// AuditModel's implementation: newer pages inserted at the top, older ones appended, never a reset.
#include "widgets/audit/audit_model.h"

#include <QDateTime>
#include <QLocale>
#include <algorithm>

namespace shardmap::widgets {

AuditModel::AuditModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

AuditModel::Entry AuditModel::fromRecord(const core::AuditRecord& record)
{
    Entry entry;
    entry.revision = record.revision;
    entry.unixMs = record.unixMs;
    entry.actor = QString::fromStdString(record.actor);
    entry.action = QString::fromStdString(record.action);
    entry.reason = QString::fromStdString(record.reason);
    for (const auto& change : record.changes)
        entry.keys.append(QString::fromStdString(change.key));
    return entry;
}

void AuditModel::addNewer(const std::vector<Entry>& entries)
{
    const quint64 newest = newestRevision();
    std::vector<const Entry*> fresh;
    for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
        if (it->revision > newest || m_rows.empty())
            fresh.push_back(&*it);
    }
    if (fresh.empty())
        return;
    beginInsertRows({}, 0, static_cast<int>(fresh.size()) - 1);
    for (auto it = fresh.rbegin(); it != fresh.rend(); ++it)
        m_rows.push_front(**it);
    endInsertRows();
}

void AuditModel::addOlder(const std::vector<Entry>& entries)
{
    const quint64 oldest = oldestRevision();
    std::vector<const Entry*> fresh;
    for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
        if (m_rows.empty() || it->revision < oldest)
            fresh.push_back(&*it);
    }
    if (fresh.empty())
        return;
    const int first = static_cast<int>(m_rows.size());
    beginInsertRows({}, first, first + static_cast<int>(fresh.size()) - 1);
    for (const auto* entry : fresh)
        m_rows.push_back(*entry);
    endInsertRows();
}

void AuditModel::clear()
{
    if (m_rows.empty())
        return;
    beginResetModel();
    m_rows.clear();
    endResetModel();
}

quint64 AuditModel::newestRevision() const
{
    return m_rows.empty() ? 0 : m_rows.front().revision;
}

quint64 AuditModel::oldestRevision() const
{
    return m_rows.empty() ? 0 : m_rows.back().revision;
}

int AuditModel::rowOf(quint64 revision) const
{
    // Rows are sorted by revision, newest first.
    const auto found = std::lower_bound(m_rows.begin(), m_rows.end(), revision,
        [](const Entry& entry, quint64 wanted) { return entry.revision > wanted; });
    return found != m_rows.end() && found->revision == revision ? static_cast<int>(found - m_rows.begin()) : -1;
}

const AuditModel::Entry* AuditModel::entry(int row) const
{
    if (row < 0 || row >= static_cast<int>(m_rows.size()))
        return nullptr;
    return &m_rows[static_cast<std::size_t>(row)];
}

int AuditModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int AuditModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AuditModel::data(const QModelIndex& index, int role) const
{
    const Entry* row = index.isValid() ? entry(index.row()) : nullptr;
    if (!row)
        return {};
    switch (role) {
    case Qt::DisplayRole: return displayValue(*row, index.column());
    case Qt::ToolTipRole: return index.column() == ChangesColumn ? row->keys.join(QLatin1Char('\n')) : row->reason;
    case SortRole: return sortValue(*row, index.column());
    case RevisionRole: return qulonglong(row->revision);
    default: return {};
    }
}

QVariant AuditModel::displayValue(const Entry& entry, int column) const
{
    switch (column) {
    case RevisionColumn: return qulonglong(entry.revision);
    case TimeColumn: return QLocale().toString(QDateTime::fromMSecsSinceEpoch(entry.unixMs), QLocale::ShortFormat);
    case ActorColumn: return entry.actor;
    case ActionColumn: return entry.action;
    case ReasonColumn: return entry.reason;
    case ChangesColumn:
        return entry.keys.size() == 1 ? entry.keys.front() : tr("%n record(s)", nullptr, int(entry.keys.size()));
    default: return {};
    }
}

QVariant AuditModel::sortValue(const Entry& entry, int column) const
{
    switch (column) {
    case RevisionColumn: return qulonglong(entry.revision);
    case TimeColumn: return qlonglong(entry.unixMs);
    case ChangesColumn: return int(entry.keys.size());
    default: return displayValue(entry, column);
    }
}

QVariant AuditModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case RevisionColumn: return tr("Revision");
    case TimeColumn: return tr("Time");
    case ActorColumn: return tr("Actor");
    case ActionColumn: return tr("Action");
    case ReasonColumn: return tr("Reason");
    case ChangesColumn: return tr("Changes");
    default: return {};
    }
}

} // namespace shardmap::widgets
