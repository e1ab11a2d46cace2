// CopiesModel: core's copy rows as table cells, with the state's colour for the view.
#include "widgets/detail/copies_model.h"

#include "widgets/style/format.h"

#include <QBrush>
#include <QColor>

namespace shardmap::widgets {

CopiesModel::CopiesModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void CopiesModel::setRows(std::vector<core::CopyRow> rows, const core::MapSnapshot* map)
{
    std::vector<QString> zones;
    for (const core::CopyRow& row : rows) {
        const core::NodeRecord* node = map ? map->node(row.node) : nullptr;
        zones.push_back(node ? QString::fromStdString(node->zone) : QString());
    }
    if (rows == m_rows && zones == m_zones)
        return;
    if (rows.size() != m_rows.size()) {
        beginResetModel();
        m_rows = std::move(rows);
        m_zones = std::move(zones);
        endResetModel();
        return;
    }
    m_rows = std::move(rows);
    m_zones = std::move(zones);
    if (!m_rows.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

const core::CopyRow* CopiesModel::row(int index) const
{
    return index >= 0 && index < rowCount() ? &m_rows[static_cast<std::size_t>(index)] : nullptr;
}

int CopiesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int CopiesModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString CopiesModel::stateText(core::CopyState state)
{
    switch (state) {
    case core::CopyState::InSync: return tr("in sync");
    case core::CopyState::CatchingUp: return tr("catching up");
    case core::CopyState::Lost: return tr("lost");
    }
    return {};
}

QString CopiesModel::cellText(const core::CopyRow& row, int column, const QString& zone) const
{
    switch (column) {
    case ShardColumn: return QString::fromStdString(row.shard);
    case NodeColumn: return QString::fromStdString(row.node);
    case ZoneColumn: return zone;
    case RoleColumn: return row.primary ? tr("primary") : tr("replica");
    case StateColumn: return stateText(row.state);
    case ProgressColumn:
        if (row.primary || row.docsTotal == 0)
            return {};
        return tr("%1 of %2 documents").arg(formatCount(row.docsDone), formatCount(row.docsTotal));
    case WhyColumn:
        if (row.sinceUnixMs == 0)
            return QString::fromStdString(row.reason);
        return tr("%1 (since %2)").arg(QString::fromStdString(row.reason), formatDateTime(row.sinceUnixMs));
    default: return {};
    }
}

QVariant CopiesModel::data(const QModelIndex& index, int role) const
{
    const core::CopyRow* copy = row(index.row());
    if (!copy || index.column() < 0 || index.column() >= ColumnCount)
        return {};
    switch (role) {
    case Qt::DisplayRole: return cellText(*copy, index.column(), m_zones[static_cast<std::size_t>(index.row())]);
    case CopyStateRole: return static_cast<int>(copy->state);
    case PrimaryRole: return copy->primary;
    case Qt::ForegroundRole:
        if (index.column() != StateColumn || copy->state == core::CopyState::InSync)
            return {};
        return QBrush(copy->state == core::CopyState::Lost ? QColor(0xc6, 0x28, 0x28) : QColor(0xb2, 0x6a, 0x00));
    default: return {};
    }
}

QVariant CopiesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case ShardColumn: return tr("Shard");
    case NodeColumn: return tr("Node");
    case ZoneColumn: return tr("Zone");
    case RoleColumn: return tr("Role");
    case StateColumn: return tr("State");
    case ProgressColumn: return tr("Catch-up");
    case WhyColumn: return tr("Why");
    default: return {};
    }
}

} // namespace shardmap::widgets
