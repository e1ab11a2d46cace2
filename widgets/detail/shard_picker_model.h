#pragma once

// The detail page picker's list of shards and nodes, kept in step with the map incrementally.

#include "widgets/session/fleet_connection.h"

#include <QAbstractListModel>
#include <string>
#include <vector>

namespace shardmap::widgets {

// What the detail page's picker offers: every shard of the map ("s12 — n3"), then every node
// ("node n3"), each group in id order. Fed by map snapshots: when a snapshot says what changed
// since the one the model shows (MapSnapshot::changes), only those rows are inserted, removed or
// updated, so that a map change at 10,000 shards costs what changed; otherwise (the first map, a
// skipped revision) the rows are built anew in one reset.
class ShardPickerModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum class Kind { Shard, Node };
    Q_ENUM(Kind)

    enum Role {
        // The shard or node id.
        IdRole = Qt::UserRole,
        // A Kind as int.
        KindRole,
    };
    Q_ENUM(Role)

    explicit ShardPickerModel(QObject* parent = nullptr);

    void setMap(const MapPtr& map);

    // The row of a shard or node, -1 if the map has none.
    int rowOf(Kind kind, const QString& id) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    struct Entry {
        Kind kind = Kind::Shard;
        std::string id;
        // The shard's node (empty for a node).
        std::string node;
    };

    void rebuild(const core::MapSnapshot& map);
    void applyChanges(const core::MapSnapshot& map, const core::MapChanges& changes);
    int firstRow(Kind kind) const;
    // Where id is or would go among the rows of its kind.
    int position(Kind kind, const std::string& id) const;
    void removeEntry(Kind kind, const std::string& id);
    void insertEntry(Entry entry);
    void updateShard(const core::ShardRecord& shard);

    // Shards first, then nodes; each group in id order.
    std::vector<Entry> m_entries;
    std::size_t m_shardCount = 0;
    std::uint64_t m_revision = 0;
    bool m_hasMap = false;
};

} // namespace shardmap::widgets
