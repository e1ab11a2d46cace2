#pragma once

// The copies of a shard, or the copies a node holds, as a table (issue 30): the rows are core's
// (core::copyRowsOf / copyRowsOn, which shardmapctl's `shard replicas list` prints too).

#include "core/fleet/health.h"

#include <QAbstractTableModel>
#include <vector>

namespace shardmap::widgets {

class CopiesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        ShardColumn,
        NodeColumn,
        ZoneColumn,
        RoleColumn,
        StateColumn,
        ProgressColumn,
        WhyColumn,
        ColumnCount
    };
    enum Role {
        // The row's core::CopyState as an int (the primary: InSync).
        CopyStateRole = Qt::UserRole + 1,
        // Whether the row is the shard's primary.
        PrimaryRole,
    };

    explicit CopiesModel(QObject* parent = nullptr);

    // Replaces the rows; zones come from the map's nodes (empty map: none).
    void setRows(std::vector<core::CopyRow> rows, const core::MapSnapshot* map);
    const core::CopyRow* row(int index) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // "in sync", "catching up", "lost" in the console's language.
    static QString stateText(core::CopyState state);

private:
    QString cellText(const core::CopyRow& row, int column, const QString& zone) const;

    std::vector<core::CopyRow> m_rows;
    std::vector<QString> m_zones;
};

} // namespace shardmap::widgets
