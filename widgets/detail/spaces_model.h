#pragma once

// The spaces of a shard (or of a node's shards) as a table with their live figures.

#include "widgets/session/fleet_connection.h"

#include <QAbstractTableModel>
#include <QHash>
#include <string>
#include <vector>

namespace shardmap::widgets {

// The spaces of one shard, or of all the shards of a node, as a table: which spaces live there
// comes from the shard map, their figures from the node's live samples (when the stream carries
// per-space figures). Map changes insert and remove rows; samples only emit dataChanged for what
// changed, never a reset. Only a switch to other shards resets the model.
class SpacesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        SpaceColumn,
        ShardColumn,
        DocsColumn,
        BytesColumn,
        QueriesColumn,
        WritesColumn,
        ShareColumn,
        ColumnCount
    };
    Q_ENUM(Column)

    enum Role {
        // The raw value for sorting: the id (QString) or the number (qulonglong / double);
        // invalid while no sample carried the space's figures.
        SortRole = Qt::UserRole,
        // The space id, in every column.
        SpaceIdRole,
    };
    Q_ENUM(Role)

    explicit SpacesModel(QObject* parent = nullptr);

    // Shows the spaces the map puts on shardId (owner or migration target).
    void setShard(const MapPtr& map, const QString& shardId);
    // The same for several shards (a node's): every space of each of them.
    void setShards(const MapPtr& map, const QStringList& shardIds);
    // Takes the figures of the shown shard's spaces from a sample of its node; samples without
    // per-space figures leave the current ones alone.
    void applySample(const SamplePtr& sample);

    // The first shard shown (empty: none), and all of them.
    QString shardId() const { return m_shardIds.value(0); }
    QStringList shardIds() const { return m_shardIds; }
    // The row of a space, -1 if the shard has no such space.
    int rowOf(const QString& spaceId) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        QString id;
        QString shard;
        bool hasFigures = false;
        core::SpaceMetricsValue figures;
        double share = 0;
    };

    QVariant displayValue(const Row& row, int column) const;
    QVariant sortValue(const Row& row, int column) const;
    void removeMissing(const QHash<QString, bool>& present);
    void insertNew(const std::vector<std::pair<QString, QString>>& spaces);
    void reindex();

    QStringList m_shardIds;
    std::vector<Row> m_rows;
    QHash<QString, int> m_rowOf;
};

} // namespace shardmap::widgets
