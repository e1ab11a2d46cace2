// FleetFilterProxy's implementation: setters that return early when nothing changed, and ids
// compared by a numeric collator (node-2 before node-10).

#include "widgets/fleet/fleet_filter_proxy.h"

#include "core/fleet/health.h"
#include "widgets/fleet/fleet_model.h"

namespace shardmap::widgets {

FleetFilterProxy::FleetFilterProxy(QObject* parent)
    : QSortFilterProxyModel(parent)
{
    setRecursiveFilteringEnabled(true);
    setSortRole(FleetModel::SortRole);
    m_collator.setNumericMode(true);
    m_collator.setCaseSensitivity(Qt::CaseInsensitive);
}

void FleetFilterProxy::setFilterText(const QString& text)
{
    const QString trimmed = text.trimmed();
    if (trimmed == m_text) {
        return;
    }
    m_text = trimmed;
    invalidateRowsFilter();
}

void FleetFilterProxy::setOnlyProblems(bool onlyProblems)
{
    if (onlyProblems == m_onlyProblems) {
        return;
    }
    m_onlyProblems = onlyProblems;
    invalidateRowsFilter();
}

bool FleetFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    if (m_onlyProblems) {
        const int level = index.data(FleetModel::HealthLevelRole).toInt();
        if (level < static_cast<int>(core::HealthLevel::Warning)) {
            return false;
        }
    }
    return m_text.isEmpty() || textMatches(index);
}

bool FleetFilterProxy::textMatches(const QModelIndex& index) const
{
    for (const int role : { FleetModel::NodeIdRole, FleetModel::ShardIdRole, FleetModel::AddressRole }) {
        if (index.data(role).toString().contains(m_text, Qt::CaseInsensitive)) {
            return true;
        }
    }
    return false;
}

bool FleetFilterProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const
{
    const QVariant a = left.data(sortRole());
    const QVariant b = right.data(sortRole());
    // Ids and texts in natural order; numbers, and unknown figures (invalid) after them, as Qt does.
    if (a.userType() == QMetaType::QString && b.userType() == QMetaType::QString) {
        return m_collator.compare(a.toString(), b.toString()) < 0;
    }
    return QSortFilterProxyModel::lessThan(left, right);
}

} // namespace shardmap::widgets
