// MigrationsFilterProxy's implementation: setters that invalidate only on a change, and one row check.
#include "widgets/migrations/migrations_filter_proxy.h"

namespace shardmap::widgets {

MigrationsFilterProxy::MigrationsFilterProxy(QObject* parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(MigrationsModel::SortRole);
    setDynamicSortFilter(true);
}

void MigrationsFilterProxy::setStateFilter(std::optional<MigrationsModel::StateCategory> state)
{
    if (state == m_state)
        return;
    m_state = state;
    invalidateRowsFilter();
}

void MigrationsFilterProxy::setSpaceFilter(const QString& text)
{
    const QString trimmed = text.trimmed();
    if (trimmed == m_space)
        return;
    m_space = trimmed;
    invalidateRowsFilter();
}

void MigrationsFilterProxy::setShardFilter(const QString& shardId)
{
    const QString trimmed = shardId.trimmed();
    if (trimmed == m_shard)
        return;
    m_shard = trimmed;
    invalidateRowsFilter();
}

void MigrationsFilterProxy::setOperationFilter(const QString& operationId)
{
    const QString trimmed = operationId.trimmed();
    if (trimmed == m_operation)
        return;
    m_operation = trimmed;
    invalidateRowsFilter();
}

void MigrationsFilterProxy::setCreatedSince(qint64 sinceUnixMs)
{
    if (sinceUnixMs == m_since)
        return;
    m_since = sinceUnixMs;
    invalidateRowsFilter();
}

bool MigrationsFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    if (m_state && index.data(MigrationsModel::StateRole).toInt() != static_cast<int>(*m_state))
        return false;
    if (!m_space.isEmpty() && !index.data(MigrationsModel::SpaceRole).toString().contains(m_space, Qt::CaseInsensitive))
        return false;
    if (!m_shard.isEmpty() && index.data(MigrationsModel::SourceRole).toString() != m_shard
        && index.data(MigrationsModel::TargetRole).toString() != m_shard)
        return false;
    if (!m_operation.isEmpty() && index.data(MigrationsModel::OperationRole).toString() != m_operation)
        return false;
    return m_since <= 0 || index.data(MigrationsModel::CreatedRole).toLongLong() >= m_since;
}

} // namespace shardmap::widgets
