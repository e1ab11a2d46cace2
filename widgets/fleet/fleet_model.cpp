// The fleet model's rows: membership from the map, live figures and health from the samples,
// and merged change signals; what the cells and headers say is in fleet_model_text.cpp.

#include "widgets/fleet/fleet_model.h"

#include "widgets/fleet/sparkline_history.h"
#include "widgets/session/sample_rows.h"

#include <QBrush>
#include <QColor>
#include <algorithm>
#include <bit>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>

namespace shardmap::widgets {

namespace {

constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
constexpr std::size_t kFirstMetricColumn = FleetModel::RssColumn;
constexpr std::uint32_t kAllColumns = (1U << FleetModel::ColumnCount) - 1;
// Extra bits of a change mask: what changed besides the figures.
constexpr std::uint32_t kHealthChanged = 1U << 30;
constexpr std::uint32_t kAddressChanged = 1U << 31;
static_assert(FleetModel::ColumnCount < 30);
static_assert(FleetModel::IndexingColumn - FleetModel::RssColumn + 1 == FleetModel::kMetricCount);

constexpr std::uint32_t bit(int column)
{
    return 1U << column;
}

bool sameValue(double a, double b)
{
    return a == b || (std::isnan(a) && std::isnan(b));
}

QBrush healthBrush(core::HealthLevel level)
{
    switch (level) {
    case core::HealthLevel::Critical: return QBrush(QColor(229, 57, 53, 90));
    case core::HealthLevel::Warning: return QBrush(QColor(255, 179, 0, 90));
    case core::HealthLevel::Info: return QBrush(QColor(30, 136, 229, 50));
    case core::HealthLevel::Ok: break;
    }
    return {};
}

} // namespace

struct FleetModel::Row {
    explicit Row(const std::string& rowId)
        : id(rowId)
        , displayId(QString::fromStdString(rowId))
    {
        values.fill(kUnknown);
    }

    std::string id;
    QString displayId;
    Values values;
    core::HealthAssessment health;
    SparklineHistory history;
};

struct FleetModel::NodeRow : Row {
    using Row::Row;

    int row = 0;
    std::string address;
    QString displayAddress;
    bool retired = false;
    std::optional<bool> reachable;
    SamplePtr latest;
    core::NodeSampleWindow window;
    std::vector<std::unique_ptr<ShardRow>> shards;
    // The shard row of each of the node's last sample's shards (null: not this node's).
    SampleRows<ShardRow*> sampleRows;
};

struct FleetModel::ShardRow : Row {
    ShardRow(const std::string& rowId, NodeRow* parentNode)
        : Row(rowId)
        , node(parentNode)
    {
    }

    NodeRow* node;
    int row = 0;
    core::ShardState state = core::ShardState::Active;
    bool reported = false;
    bool healthy = true;
    // Copies in sync and serving, and wanted (core::evaluateCopies; issue 30).
    std::size_t copiesInSync = 0;
    std::uint32_t copiesWanted = 0;
};

// The map, indexed the way the model walks it: the snapshot's own index when it has one (the
// connection builds it on its pool), else one pass over the records.
struct FleetModel::MapIndex {
    explicit MapIndex(const core::MapSnapshot* snapshot)
        : map(snapshot)
        , index(snapshot ? snapshot->index() : nullptr)
    {
        if (!map || index) {
            return;
        }
        for (const auto& [id, shard] : map->shards) {
            shardsByNode[shard.value.node].push_back(&shard.value);
        }
        for (const auto& [id, space] : map->spaces) {
            ++spacesByShard[space.value.shard];
        }
    }

    // The node's shard ids in id order.
    std::vector<std::string> shardsOf(const std::string& nodeId) const
    {
        std::vector<std::string> ids;
        if (index) {
            for (const core::ShardRecord* shard : index->shardsOn(nodeId)) {
                ids.push_back(shard->id);
            }
        } else if (const auto it = shardsByNode.find(nodeId); it != shardsByNode.end()) {
            for (const core::ShardRecord* shard : it->second) {
                ids.push_back(shard->id);
            }
        }
        return ids;
    }

    double spacesOf(const std::string& shardId) const
    {
        if (index) {
            return static_cast<double>(index->ownedCount(shardId));
        }
        const auto it = spacesByShard.find(shardId);
        return it == spacesByShard.end() ? 0.0 : static_cast<double>(it->second);
    }

    const core::MapSnapshot* map;
    const core::MapIndex* index;
    std::unordered_map<std::string, std::vector<const core::ShardRecord*>> shardsByNode;
    std::unordered_map<std::string, std::uint64_t> spacesByShard;
};

FleetModel::FleetModel(QObject* parent)
    : QAbstractItemModel(parent)
{
}

FleetModel::~FleetModel() = default;

// --- membership -------------------------------------------------------------------------------

void FleetModel::setMap(const MapPtr& map)
{
    const MapIndex index(map.get());
    const MapPtr shown = std::exchange(m_map, map);
    // Most map changes touch a few spaces: only their shards' rows (and their nodes') change.
    const core::MapChanges* changes = map && shown && map->changes ? map->changes.get() : nullptr;
    if (changes && changes->fromRevision == shown->revision && applyChanges(*changes, index)) {
        return;
    }
    ++m_rowsGeneration; // the full walk: rows may come, go or move
    std::vector<std::string> nodeIds;
    if (map) {
        nodeIds.reserve(map->nodes.size());
        for (const auto& entry : map->nodes) {
            nodeIds.push_back(entry.first);
        }
    }
    syncRows(
        QModelIndex(), m_nodes, nodeIds, [&](const std::string& id) { return makeNode(id, index); },
        [this](NodeRow& node) { forgetNode(node); });

    std::vector<ChangeMask> nodeMasks;
    nodeMasks.reserve(m_nodes.size());
    for (const auto& node : m_nodes) {
        const QModelIndex parent = createIndex(node->row, 0, nullptr);
        syncRows(
            parent, node->shards, index.shardsOf(node->id),
            [&](const std::string& id) { return makeShard(*node, id, index); },
            [this](ShardRow& shard) { forgetShard(shard); });
        std::vector<ChangeMask> masks;
        masks.reserve(node->shards.size());
        for (const auto& shard : node->shards) {
            masks.push_back(updateShardFromMap(*shard, index));
        }
        emitChanged(parent, masks);
        nodeMasks.push_back(updateNodeFromMap(*node, index));
        if (nodeMasks.back() & kAddressChanged) {
            // Shard rows carry their node's address (AddressRole).
            std::vector<ChangeMask> all(node->shards.size(), kAddressChanged | bit(NameColumn));
            emitChanged(parent, all);
        }
    }
    emitChanged(QModelIndex(), nodeMasks);
}

bool FleetModel::applyChanges(const core::MapChanges& changes, const MapIndex& index)
{
    if (!changes.nodes.empty() || !changes.shards.added.empty() || !changes.shards.removed.empty()) {
        return false; // rows come or go: the full walk
    }
    std::vector<std::string> touched = changes.spaceShards;
    touched.insert(touched.end(), changes.shards.changed.begin(), changes.shards.changed.end());
    std::map<NodeRow*, std::vector<ShardRow*>> byNode;
    for (const std::string& id : touched) {
        const auto found = m_shardById.find(id);
        const core::ShardRecord* record = index.map->shard(id);
        if (found == m_shardById.end() || !record) {
            continue; // a space on a shard the map does not list
        }
        if (found->second->node->id != record->node) {
            return false; // the shard moved to another node: its row moves
        }
        byNode[found->second->node].push_back(found->second);
    }
    std::vector<ChangeMask> nodeMasks(m_nodes.size(), 0);
    for (auto& [node, shards] : byNode) {
        std::vector<ChangeMask> masks(node->shards.size(), 0);
        for (ShardRow* shard : shards) {
            masks[static_cast<std::size_t>(shard->row)] = updateShardFromMap(*shard, index);
        }
        emitChanged(createIndex(node->row, 0, nullptr), masks);
        nodeMasks[static_cast<std::size_t>(node->row)] = updateNodeFromMap(*node, index);
    }
    emitChanged(QModelIndex(), nodeMasks);
    return true;
}

template <typename T, typename Make, typename Forget>
void FleetModel::syncRows(const QModelIndex& parent, std::vector<std::unique_ptr<T>>& rows,
    const std::vector<std::string>& wanted, Make make, Forget forget)
{
    // rows and wanted are sorted by id; rows stay sorted, so every run of rows that goes or comes
    // is one contiguous remove or insert.
    const auto isWanted
        = [&wanted](const std::string& id) { return std::binary_search(wanted.begin(), wanted.end(), id); };
    const auto renumber = [&rows](std::size_t from) {
        for (std::size_t i = from; i < rows.size(); ++i) {
            rows[i]->row = static_cast<int>(i);
        }
    };
    for (std::size_t end = rows.size(); end > 0;) {
        if (isWanted(rows[end - 1]->id)) {
            --end;
            continue;
        }
        std::size_t first = end - 1;
        while (first > 0 && !isWanted(rows[first - 1]->id)) {
            --first;
        }
        beginRemoveRows(parent, static_cast<int>(first), static_cast<int>(end - 1));
        for (std::size_t i = first; i < end; ++i) {
            forget(*rows[i]);
        }
        rows.erase(rows.begin() + static_cast<std::ptrdiff_t>(first), rows.begin() + static_cast<std::ptrdiff_t>(end));
        renumber(first);
        endRemoveRows();
        end = first;
    }
    std::size_t pos = 0;
    for (std::size_t next = 0; next < wanted.size();) {
        if (pos < rows.size() && rows[pos]->id == wanted[next]) {
            ++pos;
            ++next;
            continue;
        }
        std::vector<std::unique_ptr<T>> fresh;
        for (; next < wanted.size() && (pos >= rows.size() || rows[pos]->id != wanted[next]); ++next) {
            fresh.push_back(make(wanted[next]));
        }
        beginInsertRows(parent, static_cast<int>(pos), static_cast<int>(pos + fresh.size() - 1));
        rows.insert(rows.begin() + static_cast<std::ptrdiff_t>(pos), std::make_move_iterator(fresh.begin()),
            std::make_move_iterator(fresh.end()));
        renumber(pos);
        endInsertRows();
        pos += fresh.size();
    }
}

std::unique_ptr<FleetModel::NodeRow> FleetModel::makeNode(const std::string& id, const MapIndex& map)
{
    auto node = std::make_unique<NodeRow>(id);
    m_nodeById[id] = node.get();
    for (const auto& shardId : map.shardsOf(id)) {
        node->shards.push_back(makeShard(*node, shardId, map));
        node->shards.back()->row = static_cast<int>(node->shards.size() - 1);
    }
    updateNodeFromMap(*node, map);
    return node;
}

std::unique_ptr<FleetModel::ShardRow> FleetModel::makeShard(NodeRow& node, const std::string& id, const MapIndex& map)
{
    auto shard = std::make_unique<ShardRow>(id, &node);
    m_shardById[id] = shard.get();
    updateShardFromMap(*shard, map);
    // A shard that appears between two samples gets the figures of the node's latest one.
    const core::ShardMetricsValue* metrics = nullptr;
    if (node.latest) {
        const auto& all = node.latest->shards;
        const auto it = std::find_if(all.begin(), all.end(), [&id](const auto& m) { return m.shard == id; });
        metrics = it == all.end() ? nullptr : &*it;
    }
    applyShardMetrics(*shard, metrics, node.latest != nullptr);
    return shard;
}

void FleetModel::forgetNode(NodeRow& node)
{
    for (const auto& shard : node.shards) {
        forgetShard(*shard);
    }
    if (const auto it = m_nodeById.find(node.id); it != m_nodeById.end() && it->second == &node) {
        m_nodeById.erase(it);
    }
}

void FleetModel::forgetShard(const ShardRow& shard)
{
    // A shard that moved to another node may already be registered under its new row.
    if (const auto it = m_shardById.find(shard.id); it != m_shardById.end() && it->second == &shard) {
        m_shardById.erase(it);
    }
}

FleetModel::ChangeMask FleetModel::updateNodeFromMap(NodeRow& node, const MapIndex& map)
{
    ChangeMask mask = 0;
    if (const core::NodeRecord* record = map.map ? map.map->node(node.id) : nullptr) {
        if (record->address != node.address) {
            node.address = record->address;
            node.displayAddress = QString::fromStdString(record->address);
            mask |= bit(AddressColumn) | kAddressChanged;
        }
        if (record->retired != node.retired) {
            node.retired = record->retired;
            mask |= bit(StateColumn);
        }
    }
    Values values = node.values;
    values[SpacesColumn] = 0;
    for (const auto& shard : node.shards) {
        values[SpacesColumn] += shard->values[SpacesColumn];
    }
    mask |= setValues(node, values);
    return mask | evaluateNode(node);
}

FleetModel::ChangeMask FleetModel::updateShardFromMap(ShardRow& shard, const MapIndex& map)
{
    ChangeMask mask = 0;
    if (const core::ShardRecord* record = map.map ? map.map->shard(shard.id) : nullptr) {
        if (record->state != shard.state) {
            shard.state = record->state;
            mask |= bit(StateColumn);
        }
        // A shard kept as one copy is judged by its node's row, as the alerts do (not once per shard).
        const core::ShardCopiesHealth copies = core::evaluateCopies(*map.map, *record, m_unreachable);
        const bool judged = !record->replicas.empty() || copies.wanted > 1;
        shard.copiesInSync = copies.inSync;
        shard.copiesWanted = judged ? copies.wanted : 0;
    }
    Values values = shard.values;
    values[SpacesColumn] = map.spacesOf(shard.id);
    mask |= setValues(shard, values);
    return mask | evaluateShard(shard);
}

// --- live figures -----------------------------------------------------------------------------

void FleetModel::applySample(const QString& nodeId, const SamplePtr& sample)
{
    const auto found = sample ? m_nodeById.find(nodeId.toStdString()) : m_nodeById.end();
    if (found == m_nodeById.end()) {
        return;
    }
    NodeRow& node = *found->second;
    node.latest = sample;
    node.window.add(core::NodeVitals::of(*sample), m_thresholds.cpuWindowMs);

    std::vector<const core::ShardMetricsValue*> metricsOf(node.shards.size(), nullptr);
    const auto& rows = node.sampleRows.of(*sample, m_rowsGeneration, [this, &node](const std::string& id) {
        const auto it = m_shardById.find(id);
        return it != m_shardById.end() && it->second->node == &node ? it->second : nullptr;
    });
    double docs = 0;
    for (std::size_t i = 0; i < sample->shards.size(); ++i) {
        const auto& metrics = sample->shards[i];
        docs += static_cast<double>(metrics.liveDocs);
        if (rows[i]) {
            metricsOf[static_cast<std::size_t>(rows[i]->row)] = &metrics;
        }
    }
    std::vector<ChangeMask> masks(node.shards.size(), 0);
    for (std::size_t i = 0; i < node.shards.size(); ++i) {
        masks[i] = applyShardMetrics(*node.shards[i], metricsOf[i], true);
    }

    Values values = node.values;
    values[DocsColumn] = docs;
    values[DiskSizeColumn] = static_cast<double>(sample->bytesOnDisk);
    values[RssColumn] = static_cast<double>(sample->rssBytes);
    values[DiskFreeColumn] = sample->diskTotalBytes == 0
        ? kUnknown
        : 100.0 * static_cast<double>(std::min(sample->diskFreeBytes, sample->diskTotalBytes))
            / static_cast<double>(sample->diskTotalBytes);
    values[CpuColumn] = sample->cpuPercent;
    values[IoWaitColumn] = sample->iowaitPercent;
    values[QueriesColumn] = sample->queriesPerSecond;
    values[P99Column] = sample->queryP99Ms;
    values[IndexingColumn] = sample->docsIndexedPerSecond;
    const ChangeMask nodeMask = setValues(node, values) | pushHistory(node) | evaluateNode(node);

    emitChanged(createIndex(node.row, 0, nullptr), masks);
    emitNodeChanged(node, nodeMask);
}

FleetModel::ChangeMask FleetModel::applyShardMetrics(
    ShardRow& shard, const core::ShardMetricsValue* metrics, bool nodeSampled)
{
    Values values = shard.values;
    const auto set = [&values](int column, double value) { values[static_cast<std::size_t>(column)] = value; };
    set(DocsColumn, metrics ? static_cast<double>(metrics->liveDocs) : kUnknown);
    set(DiskSizeColumn, metrics ? static_cast<double>(metrics->bytesOnDisk) : kUnknown);
    set(QueriesColumn, metrics ? metrics->queriesPerSecond : kUnknown);
    set(P99Column, metrics ? metrics->queryP99Ms : kUnknown);
    set(IndexingColumn, metrics ? metrics->docsIndexedPerSecond : kUnknown);
    shard.reported = metrics != nullptr;
    shard.healthy = metrics ? metrics->healthy : true;
    ChangeMask mask = setValues(shard, values) | evaluateShard(shard);
    if (nodeSampled) {
        // Only samples advance the history (not map changes).
        mask |= pushHistory(shard);
    }
    return mask;
}

FleetModel::ChangeMask FleetModel::pushHistory(Row& row)
{
    SparklineHistory::Point point;
    for (std::size_t m = 0; m < point.size(); ++m) {
        point[m] = static_cast<float>(row.values[kFirstMetricColumn + m]);
    }
    const auto dropped = row.history.push(point);
    // The history cell changed if the shown series gained or lost a value.
    const auto metric = static_cast<std::size_t>(m_metric);
    return !std::isnan(point[metric]) || !std::isnan(dropped[metric]) ? bit(HistoryColumn) : 0;
}

FleetModel::ChangeMask FleetModel::setValues(Row& row, const Values& values)
{
    ChangeMask mask = 0;
    for (std::size_t c = 0; c < values.size(); ++c) {
        if (!sameValue(row.values[c], values[c])) {
            mask |= bit(static_cast<int>(c));
        }
    }
    row.values = values;
    return mask;
}

// --- health ---------------------------------------------------------------------------------

FleetModel::ChangeMask FleetModel::evaluateNode(NodeRow& node)
{
    ChangeMask mask = 0;
    std::optional<bool> reachable;
    std::string error;
    if (const auto it = m_links.find(node.id); it != m_links.end()) {
        reachable = it->second.reachable;
        error = it->second.error;
    }
    if (reachable != node.reachable) {
        node.reachable = reachable;
        mask |= bit(StateColumn);
    }
    auto health = core::evaluateNode({ reachable, error, node.retired, &node.window }, m_thresholds);
    if (health != node.health) {
        node.health = std::move(health);
        mask |= kAllColumns | kHealthChanged;
    }
    return mask;
}

FleetModel::ChangeMask FleetModel::evaluateShard(ShardRow& shard)
{
    auto health = core::evaluateShard({ shard.state, shard.node->latest != nullptr, shard.reported, shard.healthy,
        shard.copiesInSync, shard.copiesWanted });
    if (health == shard.health) {
        return 0;
    }
    shard.health = std::move(health);
    return kAllColumns | kHealthChanged;
}

void FleetModel::seedHistory(const QString& nodeId, const core::MetricsHistoryValue& history)
{
    const auto found = m_nodeById.find(nodeId.toStdString());
    if (found == m_nodeById.end() || history.samples.empty()) {
        return;
    }
    std::vector<core::NodeVitals> vitals;
    vitals.reserve(history.samples.size());
    for (const auto& sample : history.samples) {
        vitals.push_back(core::NodeVitals::of(sample));
    }
    NodeRow& node = *found->second;
    node.window.seed(vitals, m_thresholds.cpuWindowMs);
    emitNodeChanged(node, evaluateNode(node));
}

void FleetModel::setNodeLink(const QString& nodeId, bool reachable, const QString& error)
{
    const std::string id = nodeId.toStdString();
    Link link { reachable, reachable ? std::string() : error.toStdString() };
    if (const auto it = m_links.find(id);
        it != m_links.end() && it->second.reachable == link.reachable && it->second.error == link.error) {
        return;
    }
    m_links[id] = std::move(link);
    if (const auto it = m_nodeById.find(id); it != m_nodeById.end()) {
        emitNodeChanged(*it->second, evaluateNode(*it->second));
    }
    if (reachable == !m_unreachable.contains(id))
        return;
    if (reachable)
        m_unreachable.erase(id);
    else
        m_unreachable.insert(id);
    // A copy on a node that does not answer serves none: the shards with one there are judged again.
    if (!m_map)
        return;
    const MapIndex index(m_map.get());
    for (const auto& shards : { m_map->shardsOn(id), m_map->copiesOn(id) }) {
        for (const core::ShardRecord* record : shards) {
            if (const auto row = m_shardById.find(record->id); row != m_shardById.end()) {
                ShardRow& shard = *row->second;
                std::vector<ChangeMask> masks(shard.node->shards.size(), 0);
                masks[static_cast<std::size_t>(shard.row)] = updateShardFromMap(shard, index);
                emitChanged(createIndex(shard.node->row, 0, nullptr), masks);
            }
        }
    }
}

void FleetModel::setThresholds(const core::HealthThresholds& thresholds)
{
    if (thresholds == m_thresholds) {
        return;
    }
    m_thresholds = thresholds;
    // Shards' health does not depend on thresholds; nodes' does.
    std::vector<ChangeMask> masks;
    masks.reserve(m_nodes.size());
    for (const auto& node : m_nodes) {
        masks.push_back(evaluateNode(*node));
    }
    emitChanged(QModelIndex(), masks);
}

void FleetModel::setSparklineMetric(Metric metric)
{
    if (metric == m_metric) {
        return;
    }
    m_metric = metric;
    emit headerDataChanged(Qt::Horizontal, HistoryColumn, HistoryColumn);
    emitColumn(HistoryColumn, { HistoryRole, SortRole });
}

// --- change signals ---------------------------------------------------------------------------

void FleetModel::emitChanged(const QModelIndex& parent, const std::vector<ChangeMask>& masks)
{
    // One dataChanged per run of changed rows, spanning the columns that changed in any of them.
    for (std::size_t first = 0; first < masks.size();) {
        if ((masks[first] & kAllColumns) == 0) {
            ++first;
            continue;
        }
        ChangeMask merged = 0;
        std::size_t end = first;
        for (; end < masks.size() && (masks[end] & kAllColumns) != 0; ++end) {
            merged |= masks[end];
        }
        const int firstColumn = std::countr_zero(merged & kAllColumns);
        const int lastColumn = 31 - std::countl_zero(merged & kAllColumns);
        QList<int> roles { Qt::DisplayRole, SortRole, HistoryRole };
        if (merged & kHealthChanged) {
            roles << Qt::ToolTipRole << Qt::BackgroundRole << HealthLevelRole;
        }
        if (merged & kAddressChanged) {
            roles << AddressRole;
        }
        const auto* node = parent.isValid() ? m_nodes[static_cast<std::size_t>(parent.row())].get() : nullptr;
        emit dataChanged(createIndex(static_cast<int>(first), firstColumn, node),
            createIndex(static_cast<int>(end - 1), lastColumn, node), roles);
        first = end;
    }
}

void FleetModel::emitNodeChanged(const NodeRow& node, ChangeMask mask)
{
    std::vector<ChangeMask> masks(m_nodes.size(), 0);
    if (mask & kAllColumns) {
        masks[static_cast<std::size_t>(node.row)] = mask;
        emitChanged(QModelIndex(), masks);
    }
}

void FleetModel::emitColumn(int column, const QList<int>& roles)
{
    if (m_nodes.empty()) {
        return;
    }
    emit dataChanged(
        createIndex(0, column, nullptr), createIndex(static_cast<int>(m_nodes.size() - 1), column, nullptr), roles);
    for (const auto& node : m_nodes) {
        if (!node->shards.empty()) {
            emit dataChanged(createIndex(0, column, node.get()),
                createIndex(static_cast<int>(node->shards.size() - 1), column, node.get()), roles);
        }
    }
}

// --- QAbstractItemModel -----------------------------------------------------------------------

QModelIndex FleetModel::index(int row, int column, const QModelIndex& parent) const
{
    if (!hasIndex(row, column, parent)) {
        return {};
    }
    if (!parent.isValid()) {
        return createIndex(row, column, nullptr);
    }
    return createIndex(row, column, m_nodes[static_cast<std::size_t>(parent.row())].get());
}

QModelIndex FleetModel::parent(const QModelIndex& child) const
{
    const auto* node = child.isValid() ? static_cast<const NodeRow*>(child.internalPointer()) : nullptr;
    return node ? createIndex(node->row, 0, nullptr) : QModelIndex();
}

int FleetModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid()) {
        return static_cast<int>(m_nodes.size());
    }
    if (parent.column() != 0 || parent.internalPointer() != nullptr) {
        return 0;
    }
    return static_cast<int>(m_nodes[static_cast<std::size_t>(parent.row())]->shards.size());
}

int FleetModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

QModelIndex FleetModel::nodeIndex(const QString& nodeId, int column) const
{
    const auto it = m_nodeById.find(nodeId.toStdString());
    return it == m_nodeById.end() ? QModelIndex() : createIndex(it->second->row, column, nullptr);
}

QModelIndex FleetModel::shardIndex(const QString& shardId, int column) const
{
    const auto it = m_shardById.find(shardId.toStdString());
    return it == m_shardById.end() ? QModelIndex() : createIndex(it->second->row, column, it->second->node);
}

QVariant FleetModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) {
        return {};
    }
    const auto* parentNode = static_cast<const NodeRow*>(index.internalPointer());
    const NodeRow& node = parentNode ? *parentNode : *m_nodes[static_cast<std::size_t>(index.row())];
    const ShardRow* shard = parentNode ? node.shards[static_cast<std::size_t>(index.row())].get() : nullptr;
    const Row& row = shard ? static_cast<const Row&>(*shard) : static_cast<const Row&>(node);
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole: return displayValue(node, shard, column);
    case Qt::ToolTipRole: {
        const QString text = healthText(row);
        return text.isEmpty() ? QVariant() : QVariant(text);
    }
    case Qt::BackgroundRole:
        if (row.health.level == core::HealthLevel::Info && column != StateColumn) {
            return {};
        }
        return row.health.level == core::HealthLevel::Ok ? QVariant() : QVariant(healthBrush(row.health.level));
    case Qt::TextAlignmentRole: return columnAlignment(column);
    case NodeIdRole: return node.displayId;
    case ShardIdRole: return shard ? shard->displayId : QString();
    case AddressRole: return node.displayAddress;
    case HealthLevelRole: return static_cast<int>(row.health.level);
    case SortRole: return sortValue(node, shard, column);
    case HistoryRole:
        return column == HistoryColumn ? QVariant::fromValue(row.history.series(static_cast<int>(m_metric)))
                                       : QVariant();
    default: return {};
    }
}

Qt::ItemFlags FleetModel::flags(const QModelIndex& index) const
{
    Qt::ItemFlags result = QAbstractItemModel::flags(index);
    if (index.isValid() && index.internalPointer() != nullptr) {
        result |= Qt::ItemNeverHasChildren;
    }
    return result;
}

QVariant FleetModel::displayValue(const NodeRow& node, const ShardRow* shard, int column) const
{
    switch (column) {
    case NameColumn: return shard ? shard->displayId : node.displayId;
    case StateColumn: return stateText(node, shard);
    case AddressColumn: return shard ? QString() : node.displayAddress;
    case HistoryColumn: return {};
    default: break;
    }
    const double value = (shard ? shard->values : node.values)[static_cast<std::size_t>(column)];
    if (std::isnan(value)) {
        return {};
    }
    return figureText(column, value);
}

QVariant FleetModel::sortValue(const NodeRow& node, const ShardRow* shard, int column) const
{
    switch (column) {
    case NameColumn:
    case StateColumn:
    case AddressColumn: return displayValue(node, shard, column);
    default: break;
    }
    const std::size_t valueColumn = column == HistoryColumn ? kFirstMetricColumn + static_cast<std::size_t>(m_metric)
                                                            : static_cast<std::size_t>(column);
    const double value = (shard ? shard->values : node.values)[valueColumn];
    return std::isnan(value) ? QVariant() : QVariant(value);
}

QString FleetModel::stateText(const NodeRow& node, const ShardRow* shard) const
{
    if (shard) {
        switch (shard->state) {
        case core::ShardState::Active: return tr("active");
        case core::ShardState::Draining: return tr("draining");
        case core::ShardState::Readonly: return tr("read-only");
        case core::ShardState::Retired: return tr("retired");
        }
        return {};
    }
    if (node.retired) {
        return tr("retired");
    }
    if (!node.reachable) {
        return tr("connecting");
    }
    return *node.reachable ? tr("online") : tr("unreachable");
}

QString FleetModel::healthText(const Row& row) const
{
    QStringList lines;
    for (const auto& reason : row.health.reasons) {
        lines << describeReason(reason, m_thresholds);
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace shardmap::widgets
