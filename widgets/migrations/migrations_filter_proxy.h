#pragma once

// The migrations history's filter and sort: by state, space, shard, operation and creation time.

#include "widgets/migrations/migrations_model.h"

#include <QSortFilterProxyModel>
#include <optional>

namespace shardmap::widgets {

// Filters and sorts MigrationsModel for the history: by state, by space (substring), by shard
// (source or target, exact) and by creation time. Setters return early when nothing changed;
// sorting uses MigrationsModel::SortRole.
class MigrationsFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit MigrationsFilterProxy(QObject* parent = nullptr);

    // nullopt: every state.
    void setStateFilter(std::optional<MigrationsModel::StateCategory> state);
    std::optional<MigrationsModel::StateCategory> stateFilter() const { return m_state; }
    void setSpaceFilter(const QString& text);
    QString spaceFilter() const { return m_space; }
    void setShardFilter(const QString& shardId);
    QString shardFilter() const { return m_shard; }
    // Only the migrations of one operation (empty: any).
    void setOperationFilter(const QString& operationId);
    QString operationFilter() const { return m_operation; }
    // Migrations created at or after sinceUnixMs (0: any time).
    void setCreatedSince(qint64 sinceUnixMs);
    qint64 createdSince() const { return m_since; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    std::optional<MigrationsModel::StateCategory> m_state;
    QString m_space;
    QString m_shard;
    QString m_operation;
    qint64 m_since = 0;
};

} // namespace shardmap::widgets
