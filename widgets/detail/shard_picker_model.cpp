// ShardPickerModel's implementation: a full rebuild for an unknown map, else row inserts, removals
// and updates from the snapshot's changes.

#include "widgets/detail/shard_picker_model.h"

#include "core/map/map_index.h"

#include <algorithm>

namespace shardmap::widgets {

ShardPickerModel::ShardPickerModel(QObject* parent)
    : QAbstractListModel(parent)
{
}

void ShardPickerModel::setMap(const MapPtr& map)
{
    if (!map)
        return;
    // Changes apply only on top of the map they were computed from.
    if (m_hasMap && map->changes && map->changes->fromRevision == m_revision)
        applyChanges(*map, *map->changes);
    else if (!m_hasMap || map->revision != m_revision)
        rebuild(*map);
    m_revision = map->revision;
    m_hasMap = true;
}

void ShardPickerModel::rebuild(const core::MapSnapshot& map)
{
    beginResetModel();
    m_entries.clear();
    m_entries.reserve(map.shards.size() + map.nodes.size());
    for (const auto& [id, shard] : map.shards)
        m_entries.push_back({ Kind::Shard, id, shard.value.node });
    for (const auto& [id, node] : map.nodes)
        m_entries.push_back({ Kind::Node, id, {} });
    m_shardCount = map.shards.size();
    endResetModel();
}

void ShardPickerModel::applyChanges(const core::MapSnapshot& map, const core::MapChanges& changes)
{
    for (const std::string& id : changes.shards.removed)
        removeEntry(Kind::Shard, id);
    for (const std::string& id : changes.nodes.removed)
        removeEntry(Kind::Node, id);
    for (const std::string& id : changes.shards.added) {
        if (const core::ShardRecord* shard = map.shard(id))
            insertEntry({ Kind::Shard, id, shard->node });
    }
    for (const std::string& id : changes.nodes.added)
        insertEntry({ Kind::Node, id, {} });
    for (const std::string& id : changes.shards.changed) {
        if (const core::ShardRecord* shard = map.shard(id))
            updateShard(*shard);
    }
}

int ShardPickerModel::firstRow(Kind kind) const
{
    return kind == Kind::Shard ? 0 : static_cast<int>(m_shardCount);
}

int ShardPickerModel::position(Kind kind, const std::string& id) const
{
    const auto begin = m_entries.begin() + firstRow(kind);
    const auto end
        = kind == Kind::Shard ? m_entries.begin() + static_cast<std::ptrdiff_t>(m_shardCount) : m_entries.end();
    const auto found
        = std::lower_bound(begin, end, id, [](const Entry& entry, const std::string& key) { return entry.id < key; });
    return static_cast<int>(found - m_entries.begin());
}

int ShardPickerModel::rowOf(Kind kind, const QString& id) const
{
    const std::string key = id.toStdString();
    const int row = position(kind, key);
    const bool found = row < static_cast<int>(m_entries.size()) && m_entries[static_cast<std::size_t>(row)].kind == kind
        && m_entries[static_cast<std::size_t>(row)].id == key;
    return found ? row : -1;
}

void ShardPickerModel::removeEntry(Kind kind, const std::string& id)
{
    const int row = rowOf(kind, QString::fromStdString(id));
    if (row < 0)
        return;
    beginRemoveRows({}, row, row);
    m_entries.erase(m_entries.begin() + row);
    if (kind == Kind::Shard)
        --m_shardCount;
    endRemoveRows();
}

void ShardPickerModel::insertEntry(Entry entry)
{
    if (rowOf(entry.kind, QString::fromStdString(entry.id)) >= 0)
        return;
    const int row = position(entry.kind, entry.id);
    beginInsertRows({}, row, row);
    if (entry.kind == Kind::Shard)
        ++m_shardCount;
    m_entries.insert(m_entries.begin() + row, std::move(entry));
    endInsertRows();
}

void ShardPickerModel::updateShard(const core::ShardRecord& shard)
{
    const int row = rowOf(Kind::Shard, QString::fromStdString(shard.id));
    if (row < 0 || m_entries[static_cast<std::size_t>(row)].node == shard.node)
        return;
    m_entries[static_cast<std::size_t>(row)].node = shard.node;
    const QModelIndex changed = index(row);
    emit dataChanged(changed, changed, { Qt::DisplayRole, Qt::EditRole, Qt::ToolTipRole });
}

int ShardPickerModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_entries.size());
}

QVariant ShardPickerModel::data(const QModelIndex& index, int role) const
{
    // QComboBox asks for its current row, -1 while nothing is chosen.
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Entry& entry = m_entries[static_cast<std::size_t>(index.row())];
    const QString id = QString::fromStdString(entry.id);
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
        return entry.kind == Kind::Shard ? tr("%1 — %2").arg(id, QString::fromStdString(entry.node))
                                         : tr("node %1").arg(id);
    case Qt::ToolTipRole:
        return entry.kind == Kind::Shard ? tr("Shard %1 on node %2").arg(id, QString::fromStdString(entry.node))
                                         : tr("Node %1 and all of its shards").arg(id);
    case IdRole: return id;
    case KindRole: return static_cast<int>(entry.kind);
    default: return {};
    }
}

} // namespace shardmap::widgets
