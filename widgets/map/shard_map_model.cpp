#include "widgets/map/shard_map_model.h"

#include <QMimeData>
#include <QSet>
#include <algorithm>

namespace shardmap::widgets {

namespace {

constexpr quintptr kLaneId = 0;

double fill(std::uint64_t value, std::uint64_t capacity)
{
    return capacity == 0 ? -1.0 : static_cast<double>(value) / static_cast<double>(capacity);
}

} // namespace

ShardMapModel::ShardMapModel(QObject* parent)
    : QAbstractItemModel(parent)
{
    // Samples arrive from every node several times a second; projecting the whole map's loads
    // for each one kept the UI thread busy at 100,000 spaces (console_bench, issue 12).
    m_projectionTimer.setSingleShot(true);
    m_projectionTimer.setInterval(kProjectionDelayMs);
    connect(&m_projectionTimer, &QTimer::timeout, this, &ShardMapModel::updateProjections);
}

ShardMapModel::~ShardMapModel() = default;

bool ShardMapModel::laneBefore(const Lane& lane, const QString& node, const QString& id)
{
    return lane.node != node ? lane.node < node : lane.id < id;
}

void ShardMapModel::setMap(const MapPtr& map)
{
    invalidateRules();
    m_map = map;
    removeLanes(map);
    insertLanes(map);
    // The spaces each shard owns, in one pass: asking the map per lane scanned every space for
    // every lane (4.4 s per map change at 2,000 shards and 100,000 spaces; console_bench).
    SpacesByShard owned;
    if (map) {
        for (const auto& [id, space] : map->spaces)
            owned[space.value.shard].push_back(&space.value);
    }
    static const std::vector<const core::SpaceRecord*> none;
    const auto ownedBy = [&](int row) -> const std::vector<const core::SpaceRecord*>& {
        const auto found = owned.find(m_lanes[static_cast<std::size_t>(row)]->id.toStdString());
        return found == owned.end() ? none : found->second;
    };
    // All removals first: a space that moved between lanes leaves one before it enters the other.
    for (int row = 0; row < static_cast<int>(m_lanes.size()); ++row)
        removeSpaces(row, map, ownedBy(row));
    for (int row = 0; row < static_cast<int>(m_lanes.size()); ++row)
        addSpaces(row, map, ownedBy(row));
    m_departed.clear();
    updateProjections();
}

void ShardMapModel::removeLanes(const MapPtr& map)
{
    for (int row = static_cast<int>(m_lanes.size()) - 1; row >= 0; --row) {
        const Lane& lane = *m_lanes[static_cast<std::size_t>(row)];
        const core::ShardRecord* shard = map ? map->shard(lane.id.toStdString()) : nullptr;
        // A shard that moved to another node changes its place: removed here, inserted again.
        if (shard && QString::fromStdString(shard->node) == lane.node)
            continue;
        beginRemoveRows({}, row, row);
        for (const Space& space : lane.spaces)
            m_spaceLane.remove(space.id);
        m_lanes.erase(m_lanes.begin() + row);
        reindexLanes();
        endRemoveRows();
    }
}

void ShardMapModel::insertLanes(const MapPtr& map)
{
    if (!map)
        return;
    for (const auto& [id, shard] : map->shards) {
        const QString shardId = QString::fromStdString(id);
        const QString node = QString::fromStdString(shard.value.node);
        if (m_laneRow.contains(shardId))
            continue;
        const auto at = std::find_if(m_lanes.begin(), m_lanes.end(),
            [&](const std::unique_ptr<Lane>& lane) { return !laneBefore(*lane, node, shardId); });
        const int row = static_cast<int>(at - m_lanes.begin());
        beginInsertRows({}, row, row);
        auto lane = std::make_unique<Lane>();
        lane->id = shardId;
        lane->node = node;
        lane->record = shard.value;
        m_lanes.insert(at, std::move(lane));
        reindexLanes();
        endInsertRows();
    }
}

void ShardMapModel::removeSpaces(int row, const MapPtr& map, const std::vector<const core::SpaceRecord*>& spaces)
{
    Lane& lane = *m_lanes[static_cast<std::size_t>(row)];
    const QModelIndex parentIndex = index(row, 0);
    const core::ShardRecord* shard = map->shard(lane.id.toStdString());
    if (shard && !(*shard == lane.record)) {
        lane.record = *shard;
        emit dataChanged(parentIndex, parentIndex);
    }
    QSet<QString> owned;
    for (const core::SpaceRecord* space : spaces)
        owned.insert(QString::fromStdString(space->id));
    // Removed (or moved away): from the end so that earlier rows keep their numbers.
    for (int child = static_cast<int>(lane.spaces.size()) - 1; child >= 0; --child) {
        if (owned.contains(lane.spaces[static_cast<std::size_t>(child)].id))
            continue;
        beginRemoveRows(parentIndex, child, child);
        const Space& gone = lane.spaces[static_cast<std::size_t>(child)];
        m_spaceLane.remove(gone.id);
        if (gone.known)
            m_departed.insert(gone.id, gone.figures);
        lane.spaces.erase(lane.spaces.begin() + child);
        lane.rowOf.clear();
        for (int i = 0; i < static_cast<int>(lane.spaces.size()); ++i)
            lane.rowOf.insert(lane.spaces[static_cast<std::size_t>(i)].id, i);
        endRemoveRows();
    }
    // Changed records: one merged range.
    int first = -1;
    int last = -1;
    for (int child = 0; child < static_cast<int>(lane.spaces.size()); ++child) {
        Space& space = lane.spaces[static_cast<std::size_t>(child)];
        const core::SpaceRecord* record = map->space(space.id.toStdString());
        if (!record || *record == space.record)
            continue;
        space.record = *record;
        first = first < 0 ? child : first;
        last = child;
    }
    if (first >= 0)
        emit dataChanged(index(first, 0, parentIndex), index(last, 0, parentIndex));
}

void ShardMapModel::addSpaces(int row, const MapPtr& map, const std::vector<const core::SpaceRecord*>& spaces)
{
    Lane& lane = *m_lanes[static_cast<std::size_t>(row)];
    const QModelIndex parentIndex = index(row, 0);
    // New ones, appended (the view orders tiles by size).
    QStringList added;
    for (const core::SpaceRecord* space : spaces) {
        const QString id = QString::fromStdString(space->id);
        if (!lane.rowOf.contains(id))
            added.push_back(id);
    }
    if (added.isEmpty())
        return;
    added.sort();
    const int begin = static_cast<int>(lane.spaces.size());
    beginInsertRows(parentIndex, begin, begin + static_cast<int>(added.size()) - 1);
    for (const QString& id : added) {
        // A space that moved here from another lane keeps its figures.
        Space space { id, *map->space(id.toStdString()), m_departed.contains(id), m_departed.value(id) };
        lane.rowOf.insert(id, static_cast<int>(lane.spaces.size()));
        lane.spaces.push_back(std::move(space));
        m_spaceLane.insert(id, lane.id);
    }
    endInsertRows();
}

void ShardMapModel::reindexLanes()
{
    m_laneRow.clear();
    for (int row = 0; row < static_cast<int>(m_lanes.size()); ++row)
        m_laneRow.insert(m_lanes[static_cast<std::size_t>(row)]->id, row);
}

void ShardMapModel::applySample(const QString& nodeId, const SamplePtr& sample)
{
    if (!sample)
        return;
    bool changed = false;
    for (const core::ShardMetricsValue& figures : sample->shards) {
        const int row = laneRow(QString::fromStdString(figures.shard));
        if (row < 0 || m_lanes[static_cast<std::size_t>(row)]->node != nodeId)
            continue;
        Lane& lane = *m_lanes[static_cast<std::size_t>(row)];
        lane.sampled = true;
        std::vector<core::SpaceMetricsValue> spaces = figures.spaceMetrics;
        lane.figures = figures;
        const QModelIndex parentIndex = index(row, 0);
        int first = -1;
        int last = -1;
        for (const core::SpaceMetricsValue& value : spaces) {
            const auto found = lane.rowOf.constFind(QString::fromStdString(value.space));
            if (found == lane.rowOf.constEnd())
                continue;
            Space& space = lane.spaces[static_cast<std::size_t>(*found)];
            if (space.known && space.figures.liveDocs == value.liveDocs
                && space.figures.bytesEstimate == value.bytesEstimate
                && space.figures.queriesPerSecond == value.queriesPerSecond
                && space.figures.writesPerSecond == value.writesPerSecond)
                continue;
            space.known = true;
            space.figures = value;
            first = first < 0 ? *found : std::min(first, *found);
            last = std::max(last, *found);
        }
        if (first >= 0)
            emit dataChanged(index(first, 0, parentIndex), index(last, 0, parentIndex),
                { DocsRole, BytesRole, SizeRole, LoadRole, FiguresKnownRole, Qt::DisplayRole, Qt::ToolTipRole });
        changed = true;
    }
    if (changed) {
        // Cheap: the rules are rebuilt when next asked for (a drag, a refusal).
        invalidateRules();
        // At once when the last projection is old enough, else once the delay has passed: at
        // most one projection per delay however many nodes report.
        if (!m_projectionTimer.isActive()) {
            const qint64 since = m_lastProjection.isValid() ? m_lastProjection.elapsed() : kProjectionDelayMs;
            if (since >= kProjectionDelayMs)
                updateProjections();
            else
                m_projectionTimer.start(static_cast<int>(kProjectionDelayMs - since));
        }
    }
}

void ShardMapModel::setSizeBy(SizeBy sizeBy)
{
    if (sizeBy == m_sizeBy)
        return;
    m_sizeBy = sizeBy;
    for (int row = 0; row < static_cast<int>(m_lanes.size()); ++row) {
        const QModelIndex lane = index(row, 0);
        emit dataChanged(lane, lane, { SizeRole, FillRole, ProjectedFillRole, CapacityRole });
        const int children = rowCount(lane);
        if (children > 0)
            emit dataChanged(index(0, 0, lane), index(children - 1, 0, lane), { SizeRole });
    }
}

void ShardMapModel::setPlannedMoves(const std::vector<core::PlannedMove>& moves)
{
    if (moves == m_planned)
        return;
    QSet<QString> touched;
    for (const auto& move : m_planned)
        touched.insert(QString::fromStdString(move.space));
    for (const auto& move : moves)
        touched.insert(QString::fromStdString(move.space));
    m_planned = moves;
    invalidateRules();
    for (const QString& id : touched) {
        const QModelIndex space = spaceIndex(id);
        if (space.isValid())
            emit dataChanged(space, space, { PlannedToRole });
    }
    updateProjections();
}

void ShardMapModel::invalidateRules()
{
    m_rules.reset();
}

const core::MoveRules& ShardMapModel::rules() const
{
    if (!m_rules) {
        static const core::MapSnapshot empty;
        std::map<std::string, core::SpaceFigures> spaces;
        std::map<std::string, core::ShardFigures> loads;
        for (const auto& lane : m_lanes) {
            if (lane->sampled)
                loads[lane->id.toStdString()] = { lane->figures.liveDocs, lane->figures.bytesEstimate };
            for (const Space& space : lane->spaces) {
                if (space.known)
                    spaces[space.id.toStdString()] = { space.figures.liveDocs, space.figures.bytesEstimate };
            }
        }
        m_rules.emplace(m_map ? *m_map : empty, std::move(spaces), std::move(loads));
    }
    return *m_rules;
}

void ShardMapModel::flushProjections()
{
    m_projectionTimer.stop();
    updateProjections();
}

void ShardMapModel::updateProjections()
{
    m_lastProjection.start();
    const auto loads = rules().projectedLoads(m_planned);
    for (int row = 0; row < static_cast<int>(m_lanes.size()); ++row) {
        Lane& lane = *m_lanes[static_cast<std::size_t>(row)];
        const auto found = loads.find(lane.id.toStdString());
        const core::ShardFigures projected = found == loads.end() ? core::ShardFigures {} : found->second;
        if (projected == lane.projected && !lane.sampled)
            continue;
        lane.projected = projected;
        const QModelIndex laneIndex = index(row, 0);
        emit dataChanged(laneIndex, laneIndex,
            { DocsRole, BytesRole, SizeRole, LoadRole, FillRole, ProjectedFillRole, ProjectedDocsRole,
                ProjectedBytesRole, Qt::DisplayRole, Qt::ToolTipRole });
    }
}

int ShardMapModel::laneRow(const QString& shardId) const
{
    return m_laneRow.value(shardId, -1);
}

QModelIndex ShardMapModel::laneIndex(const QString& shardId) const
{
    const int row = laneRow(shardId);
    return row < 0 ? QModelIndex() : index(row, 0);
}

QModelIndex ShardMapModel::spaceIndex(const QString& spaceId) const
{
    const int row = laneRow(m_spaceLane.value(spaceId));
    if (row < 0)
        return {};
    const Lane& lane = *m_lanes[static_cast<std::size_t>(row)];
    const int child = lane.rowOf.value(spaceId, -1);
    return child < 0 ? QModelIndex() : index(child, 0, index(row, 0));
}

QModelIndex ShardMapModel::laneOf(const QModelIndex& index) const
{
    if (!index.isValid())
        return {};
    return index.parent().isValid() ? index.parent() : index.siblingAtColumn(0);
}

ShardMapModel::Lane* ShardMapModel::laneAt(const QModelIndex& index) const
{
    return static_cast<Lane*>(index.internalPointer());
}

QModelIndex ShardMapModel::index(int row, int column, const QModelIndex& parent) const
{
    if (row < 0 || column != 0)
        return {};
    if (!parent.isValid())
        return row < static_cast<int>(m_lanes.size()) ? createIndex(row, 0, kLaneId) : QModelIndex();
    if (parent.internalId() != kLaneId || parent.column() != 0)
        return {};
    Lane* lane = m_lanes[static_cast<std::size_t>(parent.row())].get();
    return row < static_cast<int>(lane->spaces.size()) ? createIndex(row, 0, lane) : QModelIndex();
}

QModelIndex ShardMapModel::parent(const QModelIndex& child) const
{
    if (!child.isValid() || child.internalId() == kLaneId)
        return {};
    const int row = laneRow(laneAt(child)->id);
    return row < 0 ? QModelIndex() : createIndex(row, 0, kLaneId);
}

int ShardMapModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return static_cast<int>(m_lanes.size());
    if (parent.internalId() != kLaneId || parent.column() != 0)
        return 0;
    return static_cast<int>(m_lanes[static_cast<std::size_t>(parent.row())]->spaces.size());
}

int ShardMapModel::columnCount(const QModelIndex&) const
{
    return 1;
}

std::uint64_t ShardMapModel::measure(const core::ShardFigures& load) const
{
    return m_sizeBy == SizeBy::Docs ? load.docs : load.bytes;
}

QVariant ShardMapModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid())
        return {};
    if (index.internalId() == kLaneId)
        return laneData(*m_lanes[static_cast<std::size_t>(index.row())], role);
    const Lane& lane = *laneAt(index);
    return spaceData(lane, lane.spaces[static_cast<std::size_t>(index.row())], role);
}

QVariant ShardMapModel::laneData(const Lane& lane, int role) const
{
    const core::ShardFigures now = rules().load(lane.id.toStdString());
    const std::uint64_t capacity = m_sizeBy == SizeBy::Docs ? lane.record.capacityDocs : lane.record.capacityBytes;
    switch (role) {
    case Qt::DisplayRole:
    case IdRole: return lane.id;
    case Qt::ToolTipRole:
        return tr("Shard %1 on node %2 (%3)")
            .arg(lane.id, lane.node, QString::fromUtf8(core::shardStateName(lane.record.state)));
    case KindRole: return QVariant::fromValue(ItemKind::Lane);
    case NodeRole: return lane.node;
    case StateRole: return QString::fromUtf8(core::shardStateName(lane.record.state));
    case DocsRole: return QVariant::fromValue<qulonglong>(now.docs);
    case BytesRole: return QVariant::fromValue<qulonglong>(now.bytes);
    case SizeRole: return QVariant::fromValue<qulonglong>(measure(now));
    case LoadRole: return lane.figures.queriesPerSecond + lane.figures.writesPerSecond;
    case FillRole: return fill(measure(now), capacity);
    case ProjectedFillRole: return fill(measure(lane.projected), capacity);
    case ProjectedDocsRole: return QVariant::fromValue<qulonglong>(lane.projected.docs);
    case ProjectedBytesRole: return QVariant::fromValue<qulonglong>(lane.projected.bytes);
    case CapacityRole: return QVariant::fromValue<qulonglong>(capacity);
    default: return {};
    }
}

QVariant ShardMapModel::spaceData(const Lane& lane, const Space& space, int role) const
{
    const auto planned = std::find_if(m_planned.begin(), m_planned.end(),
        [&](const core::PlannedMove& move) { return move.space == space.record.id; });
    switch (role) {
    case Qt::DisplayRole:
    case IdRole: return space.id;
    case Qt::ToolTipRole:
        return space.known ? tr("Space %1: %2 docs, %3")
                                 .arg(space.id)
                                 .arg(space.figures.liveDocs)
                                 .arg(QString::fromStdString(core::formatBytes(space.figures.bytesEstimate)))
                           : tr("Space %1 (no figures yet)").arg(space.id);
    case KindRole: return QVariant::fromValue(ItemKind::Space);
    case NodeRole: return lane.node;
    case StateRole: return QString::fromUtf8(core::shardStateName(lane.record.state));
    case DocsRole: return QVariant::fromValue<qulonglong>(space.figures.liveDocs);
    case BytesRole: return QVariant::fromValue<qulonglong>(space.figures.bytesEstimate);
    case SizeRole:
        return QVariant::fromValue<qulonglong>(
            m_sizeBy == SizeBy::Docs ? space.figures.liveDocs : space.figures.bytesEstimate);
    case LoadRole: return space.figures.queriesPerSecond + space.figures.writesPerSecond;
    case FiguresKnownRole: return space.known;
    case MigratingToRole: return QString::fromStdString(space.record.target);
    case PinRole: return QString::fromStdString(space.record.pin);
    case PlannedToRole: return planned == m_planned.end() ? QString() : QString::fromStdString(planned->to);
    default: return {};
    }
}

Qt::ItemFlags ShardMapModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    if (index.internalId() == kLaneId)
        return Qt::ItemIsEnabled | Qt::ItemIsDropEnabled;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled | Qt::ItemNeverHasChildren;
}

QStringList ShardMapModel::mimeTypes() const
{
    return { QString::fromLatin1(kMimeType) };
}

QMimeData* ShardMapModel::mimeData(const QModelIndexList& indexes) const
{
    QStringList spaces;
    for (const QModelIndex& index : indexes) {
        if (index.isValid() && index.internalId() != kLaneId && !spaces.contains(index.data(IdRole).toString()))
            spaces.push_back(index.data(IdRole).toString());
    }
    if (spaces.isEmpty())
        return nullptr;
    auto* data = new QMimeData;
    data->setData(QString::fromLatin1(kMimeType), spaces.join(QLatin1Char('\n')).toUtf8());
    data->setText(spaces.join(QLatin1Char(' ')));
    return data;
}

QStringList ShardMapModel::spacesOf(const QMimeData* data)
{
    if (!data || !data->hasFormat(QString::fromLatin1(kMimeType)))
        return {};
    return QString::fromUtf8(data->data(QString::fromLatin1(kMimeType))).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

QString ShardMapModel::refusalText(const core::MoveVerdict& verdict, const QString& space, const QString& shard)
{
    using core::MoveRefusal;
    switch (verdict.refusal) {
    case MoveRefusal::None: return {};
    case MoveRefusal::UnknownSpace: return tr("No space %1 in the map").arg(space);
    case MoveRefusal::UnknownShard: return tr("No shard %1 in the map").arg(shard);
    case MoveRefusal::SameShard: return tr("Space %1 is already on shard %2").arg(space, shard);
    case MoveRefusal::TargetDraining: return tr("Shard %1 is draining").arg(shard);
    case MoveRefusal::TargetReadonly: return tr("Shard %1 is readonly").arg(shard);
    case MoveRefusal::TargetRetired: return tr("Shard %1 is retired").arg(shard);
    case MoveRefusal::TargetNodeRetired: return tr("The node of shard %1 is retired").arg(shard);
    case MoveRefusal::PinnedElsewhere: return tr("Space %1 is pinned to another shard").arg(space);
    case MoveRefusal::Migrating: return tr("Space %1 is already migrating").arg(space);
    case MoveRefusal::OverCapacityDocs:
        return tr("Shard %1 is full: it would hold %2 docs, its limit is %3")
            .arg(shard)
            .arg(verdict.wouldHold)
            .arg(verdict.limit);
    case MoveRefusal::OverCapacityBytes:
        return tr("Shard %1 is full: it would hold %2, its limit is %3")
            .arg(shard, QString::fromStdString(core::formatBytes(verdict.wouldHold)),
                QString::fromStdString(core::formatBytes(verdict.limit)));
    }
    return QString::fromStdString(verdict.reason);
}

QString ShardMapModel::moveRefusal(const QStringList& spaces, const QString& shard) const
{
    if (spaces.isEmpty())
        return tr("No spaces to move");
    std::vector<core::PlannedMove> planned = m_planned;
    for (const QString& space : spaces) {
        const core::MoveVerdict verdict = rules().check(space.toStdString(), shard.toStdString(), planned);
        if (!verdict.allowed())
            return refusalText(verdict, space, shard);
        // Later spaces of the same drop count the earlier ones against the target's capacity.
        planned.push_back(
            { space.toStdString(), rules().projectedShard(space.toStdString(), planned), shard.toStdString() });
    }
    return {};
}

QString ShardMapModel::dropRefusal(const QMimeData* data, const QModelIndex& target) const
{
    const QModelIndex lane = laneOf(target);
    if (!lane.isValid())
        return tr("Drop the spaces on a shard's lane");
    const QStringList spaces = spacesOf(data);
    if (spaces.isEmpty())
        return tr("Only spaces can be moved onto a shard");
    return moveRefusal(spaces, lane.data(IdRole).toString());
}

QModelIndex ShardMapModel::dropTarget(int row, const QModelIndex& parent) const
{
    // Between lanes (a view's drop indicator above or below one) means onto that lane.
    if (!parent.isValid() && row >= 0 && row < rowCount())
        return index(row, 0);
    return parent;
}

bool ShardMapModel::canDropMimeData(
    const QMimeData* data, Qt::DropAction action, int row, int, const QModelIndex& parent) const
{
    return action == Qt::MoveAction && dropRefusal(data, dropTarget(row, parent)).isEmpty();
}

bool ShardMapModel::dropMimeData(
    const QMimeData* data, Qt::DropAction action, int row, int column, const QModelIndex& parent)
{
    if (!canDropMimeData(data, action, row, column, parent))
        return false;
    emit movesRequested(spacesOf(data), laneOf(dropTarget(row, parent)).data(IdRole).toString());
    return true;
}

Qt::DropActions ShardMapModel::supportedDropActions() const
{
    return Qt::MoveAction;
}

Qt::DropActions ShardMapModel::supportedDragActions() const
{
    return Qt::MoveAction;
}

} // namespace shardmap::widgets
