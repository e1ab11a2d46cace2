// ShardMapModel's implementation: lanes and tiles kept in step with each map without a reset, node
// samples applied as merged changes, and the lanes' projected loads.
#include "widgets/map/shard_map_model.h"

#include "core/fleet/health.h"
#include "core/map/space_placement.h"
#include "widgets/style/format.h"

#include <QDateTime>
#include <QSet>
#include <algorithm>
#include <numeric>

namespace shardmap::widgets {

namespace {

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
    const MapPtr shown = std::exchange(m_map, map);
    // What changed since the shown map, when the connection computed it: then only the lanes it
    // names are synced. Without it (the first map, a new store) every lane is.
    const core::MapChanges* changes
        = map && shown && map->changes && map->changes->fromRevision == shown->revision ? map->changes.get() : nullptr;
    const bool shardsChanged = !changes || !changes->shards.empty();
    if (shardsChanged)
        removeLanes(map);
    const std::vector<QString> inserted = shardsChanged ? insertLanes(map) : std::vector<QString> {};
    if (!map) {
        m_departed.clear();
        return;
    }
    const SpacesOf spacesOf(*map);
    std::vector<int> rows;
    if (changes) {
        QSet<QString> names;
        for (const auto* ids : { &changes->spaceShards, &changes->shards.changed })
            for (const std::string& id : *ids)
                names.insert(QString::fromStdString(id));
        for (const QString& id : inserted)
            names.insert(id);
        for (const QString& id : std::as_const(names))
            if (const int row = laneRow(id); row >= 0)
                rows.push_back(row);
        std::sort(rows.begin(), rows.end());
    } else {
        rows.resize(m_lanes.size());
        std::iota(rows.begin(), rows.end(), 0);
    }
    // All removals first: a space that moved between lanes leaves one before it enters the other.
    std::vector<const core::SpaceRecord*> buffer;
    const auto shownOn = [&](int row) -> const std::vector<const core::SpaceRecord*>& {
        return tilesOf(*map, m_lanes[static_cast<std::size_t>(row)]->id.toStdString(), spacesOf, buffer);
    };
    for (const int row : rows)
        removeSpaces(row, *map, shownOn(row));
    for (const int row : rows)
        addSpaces(row, *map, shownOn(row));
    m_departed.clear();
    if (shown) // the first map's tiles are all new
        spacesChanged(changes, rows);
    updateProjections();
}

// A lane shows the spaces that live on its shard and those moving to it; the copy an old shard
// keeps through a rollback window is not a tile there (the space has moved: its tile on the new
// shard says until when it can roll back). Only migrating records need the placement.
const std::vector<const core::SpaceRecord*>& ShardMapModel::tilesOf(const core::MapSnapshot& map,
    const std::string& shardId, const SpacesOf& spacesOf, std::vector<const core::SpaceRecord*>& buffer)
{
    const std::vector<const core::SpaceRecord*>& all = spacesOf(shardId);
    const auto copyOnly = [&](const core::SpaceRecord* space) {
        if (space->shard == shardId || !space->migrating())
            return false;
        return core::placementOf(map, *space).movingTo != shardId;
    };
    if (std::none_of(all.begin(), all.end(), copyOnly))
        return all;
    buffer.clear();
    std::copy_if(all.begin(), all.end(), std::back_inserter(buffer),
        [&](const core::SpaceRecord* space) { return !copyOnly(space); });
    return buffer;
}

ShardMapModel::SpacesOf::SpacesOf(const core::MapSnapshot& map)
    : m_index(map.index())
{
    // A snapshot built by hand has no index: group its spaces in one pass (asking the map per
    // lane scanned every space for every lane).
    if (m_index)
        return;
    for (const auto& [id, space] : map.spaces) {
        m_grouped[space.value.shard].push_back(&space.value);
        if (!space.value.target.empty() && space.value.target != space.value.shard)
            m_grouped[space.value.target].push_back(&space.value);
    }
}

const std::vector<const core::SpaceRecord*>& ShardMapModel::SpacesOf::operator()(const std::string& shardId) const
{
    static const std::vector<const core::SpaceRecord*> none;
    if (m_index)
        return m_index->spacesOn(shardId);
    const auto found = m_grouped.find(shardId);
    return found == m_grouped.end() ? none : found->second;
}

void ShardMapModel::spacesChanged(const core::MapChanges* changes, const std::vector<int>& syncedRows)
{
    // Tiles show a space's migration target and pin: their records changed.
    if (!changes) {
        for (const int row : syncedRows) {
            const QModelIndex lane = index(row, 0);
            if (const int children = rowCount(lane); children > 0)
                emit dataChanged(index(0, 0, lane), index(children - 1, 0, lane), { MigratingToRole, PinRole });
        }
        return;
    }
    for (const std::string& id : changes->spaces.changed) {
        const QModelIndex space = spaceIndex(QString::fromStdString(id));
        if (space.isValid())
            emit dataChanged(space, space, { MigratingToRole, PinRole });
    }
}

void ShardMapModel::removeLanes(const MapPtr& map)
{
    const auto keep = [&](int row) {
        const Lane& lane = *m_lanes[static_cast<std::size_t>(row)];
        const core::ShardRecord* shard = map ? map->shard(lane.id.toStdString()) : nullptr;
        // A shard that moved to another node changes its place: removed here, inserted again.
        return shard && QString::fromStdString(shard->node) == lane.node;
    };
    // In runs of adjacent lanes, from the end, so that earlier row numbers stay valid.
    for (int end = static_cast<int>(m_lanes.size()); end > 0;) {
        if (keep(end - 1)) {
            --end;
            continue;
        }
        int first = end - 1;
        while (first > 0 && !keep(first - 1))
            --first;
        beginRemoveRows({}, first, end - 1);
        for (int row = first; row < end; ++row) { }
        m_lanes.erase(m_lanes.begin() + first, m_lanes.begin() + end);
        reindexLanes();
        endRemoveRows();
        end = first;
    }
}

std::vector<QString> ShardMapModel::insertLanes(const MapPtr& map)
{
    std::vector<std::unique_ptr<Lane>> fresh;
    if (map) {
        for (const auto& [id, shard] : map->shards) {
            const QString shardId = QString::fromStdString(id);
            if (m_laneRow.contains(id))
                continue;
            auto lane = std::make_unique<Lane>();
            lane->id = shardId;
            lane->node = QString::fromStdString(shard.value.node);
            lane->record = shard.value;
            fresh.push_back(std::move(lane));
        }
    }
    std::sort(fresh.begin(), fresh.end(), [](const auto& a, const auto& b) { return laneBefore(*a, b->node, b->id); });
    std::vector<QString> ids;
    ids.reserve(fresh.size());
    // Every run of new lanes that goes between the same two lanes is one insert (all of them when
    // the model is empty): one insert per lane renumbered every lane, quadratic at 10,000 shards.
    for (std::size_t i = 0; i < fresh.size();) {
        const auto at = std::lower_bound(m_lanes.begin(), m_lanes.end(), fresh[i],
            [](const auto& lane, const auto& value) { return laneBefore(*lane, value->node, value->id); });
        std::size_t j = i + 1;
        while (j < fresh.size() && (at == m_lanes.end() || laneBefore(*fresh[j], (*at)->node, (*at)->id)))
            ++j;
        const int row = static_cast<int>(at - m_lanes.begin());
        beginInsertRows({}, row, row + static_cast<int>(j - i) - 1);
        for (std::size_t k = i; k < j; ++k)
            ids.push_back(fresh[k]->id);
        m_lanes.insert(at, std::make_move_iterator(fresh.begin() + static_cast<std::ptrdiff_t>(i)),
            std::make_move_iterator(fresh.begin() + static_cast<std::ptrdiff_t>(j)));
        reindexLanes();
        endInsertRows();
        i = j;
    }
    return ids;
}

void ShardMapModel::removeSpaces(
    int row, const core::MapSnapshot& map, const std::vector<const core::SpaceRecord*>& spaces)
{
    Lane& lane = *m_lanes[static_cast<std::size_t>(row)];
    const QModelIndex parentIndex = index(row, 0);
    const core::ShardRecord* shard = map.shard(lane.id.toStdString());
    if (shard && !(*shard == lane.record)) {
        lane.record = *shard;
        emit dataChanged(parentIndex, parentIndex);
    }
    if (lane.spaces.empty())
        return;
    // Both lists are in id order: one merge walk marks what stays.
    std::vector<bool> keep(lane.spaces.size(), false);
    auto wanted = spaces.begin();
    for (std::size_t child = 0; child < lane.spaces.size(); ++child) {
        const std::string& id = lane.spaces[child].id;
        while (wanted != spaces.end() && (*wanted)->id < id)
            ++wanted;
        keep[child] = wanted != spaces.end() && (*wanted)->id == id;
    }
    // Removed (or moved away): in runs, from the end so that earlier rows keep their numbers.
    for (int end = static_cast<int>(lane.spaces.size()); end > 0;) {
        if (keep[static_cast<std::size_t>(end - 1)]) {
            --end;
            continue;
        }
        int first = end - 1;
        while (first > 0 && !keep[static_cast<std::size_t>(first - 1)])
            --first;
        beginRemoveRows(parentIndex, first, end - 1);
        for (int child = first; child < end; ++child) {
            Space& gone = lane.spaces[static_cast<std::size_t>(child)];
            if (gone.known) {
                m_departed[gone.id] = gone.figures;
                --lane.known;
            }
        }
        lane.spaces.erase(lane.spaces.begin() + first, lane.spaces.begin() + end);
        lane.maxLoadStale = true;
        m_maxSpaceLoadStale = true;
        endRemoveRows();
        end = first;
    }
}

void ShardMapModel::addSpaces(int row, const core::MapSnapshot&, const std::vector<const core::SpaceRecord*>& spaces)
{
    Lane& lane = *m_lanes[static_cast<std::size_t>(row)];
    const QModelIndex parentIndex = index(row, 0);
    // Lanes keep their spaces in id order (the view orders tiles by size): every run of new ids
    // that goes between the same two rows is one insert; a fresh lane is one insert in all.
    struct Run {
        std::size_t at;
        std::vector<const core::SpaceRecord*> spaces;
    };
    std::vector<Run> runs;
    std::size_t at = 0;
    for (const core::SpaceRecord* space : spaces) {
        while (at < lane.spaces.size() && lane.spaces[at].id < space->id)
            ++at;
        if (at < lane.spaces.size() && lane.spaces[at].id == space->id)
            continue;
        if (runs.empty() || runs.back().at != at)
            runs.push_back({ at, {} });
        runs.back().spaces.push_back(space);
    }
    if (runs.empty())
        return;
    // From the last run, so that the positions of the earlier ones stay valid.
    for (auto run = runs.rbegin(); run != runs.rend(); ++run) {
        const int first = static_cast<int>(run->at);
        beginInsertRows(parentIndex, first, first + static_cast<int>(run->spaces.size()) - 1);
        std::vector<Space> fresh;
        fresh.reserve(run->spaces.size());
        for (const core::SpaceRecord* space : run->spaces) {
            // A space that moved here from another lane keeps its figures.
            const auto departed = m_departed.find(space->id);
            const bool known = departed != m_departed.end();
            fresh.push_back({ space->id, known, known ? departed->second : Figures {} });
            lane.known += known ? 1 : 0;
        }
        lane.spaces.insert(
            lane.spaces.begin() + first, std::make_move_iterator(fresh.begin()), std::make_move_iterator(fresh.end()));
        lane.maxLoadStale = true;
        m_maxSpaceLoadStale = true;
        endInsertRows();
    }
}

int ShardMapModel::childRow(const Lane& lane, const std::string& spaceId)
{
    const auto found = std::lower_bound(lane.spaces.begin(), lane.spaces.end(), spaceId,
        [](const Space& space, const std::string& id) { return space.id < id; });
    return found == lane.spaces.end() || found->id != spaceId ? -1 : static_cast<int>(found - lane.spaces.begin());
}

double ShardMapModel::maxSpaceLoad() const
{
    if (!m_maxSpaceLoadStale)
        return m_maxSpaceLoad;
    m_maxSpaceLoad = 0;
    for (const auto& lane : m_lanes) {
        if (lane->maxLoadStale) {
            lane->maxLoad = 0;
            for (const Space& space : lane->spaces)
                lane->maxLoad = std::max(lane->maxLoad, space.figures.queries + space.figures.writes);
            lane->maxLoadStale = false;
        }
        m_maxSpaceLoad = std::max(m_maxSpaceLoad, lane->maxLoad);
    }
    m_maxSpaceLoadStale = false;
    return m_maxSpaceLoad;
}

void ShardMapModel::reindexLanes()
{
    // Lanes came or went: the busiest space may have gone with them.
    m_maxSpaceLoadStale = true;
    ++m_lanesGeneration;
    m_laneRow.clear();
    m_laneRow.reserve(m_lanes.size());
    for (int row = 0; row < static_cast<int>(m_lanes.size()); ++row)
        m_laneRow.emplace(m_lanes[static_cast<std::size_t>(row)]->record.id, row);
}

void ShardMapModel::applySample(const QString& nodeId, const SamplePtr& sample)
{
    if (!sample)
        return;
    bool changed = false;
    const auto& rows = m_sampleRows[nodeId].of(
        *sample, m_lanesGeneration, [this](const std::string& shardId) { return laneRow(shardId); });
    for (std::size_t i = 0; i < sample->shards.size(); ++i) {
        const int row = rows[i];
        if (row < 0 || m_lanes[static_cast<std::size_t>(row)]->node != nodeId)
            continue;
        applyShardFigures(row, sample->shards[i]);
        changed = true;
    }
    if (changed) {
        // Cheap: the rules are rebuilt when next asked for (a drag, a refusal).
        invalidateRules();
        projectSoon();
    }
}

void ShardMapModel::applyShardFigures(int row, const core::ShardMetricsValue& figures)
{
    Lane& lane = *m_lanes[static_cast<std::size_t>(row)];
    const Figures sampled { figures.liveDocs, figures.bytesEstimate, figures.queriesPerSecond,
        figures.writesPerSecond };
    // Announced with the next projection, which names only the lanes that changed.
    lane.figuresChanged = lane.figuresChanged || !lane.sampled || !(lane.figures == sampled);
    lane.sampled = true;
    lane.figures = sampled;
    applySpaceFigures(row, lane, figures.spaceMetrics);
}

// The figures of the lane's spaces that the sample carries: one merged dataChanged over the
// tiles whose figures changed.
void ShardMapModel::applySpaceFigures(int row, Lane& lane, const std::vector<core::SpaceMetricsValue>& values)
{
    int first = -1;
    int last = -1;
    for (const core::SpaceMetricsValue& value : values) {
        const int child = childRow(lane, value.space);
        if (child < 0)
            continue;
        Space& space = lane.spaces[static_cast<std::size_t>(child)];
        const Figures next { value.liveDocs, value.bytesEstimate, value.queriesPerSecond, value.writesPerSecond };
        if (space.known && space.figures == next)
            continue;
        lane.known += space.known ? 0 : 1;
        space.known = true;
        space.figures = next;
        first = first < 0 ? child : std::min(first, child);
        last = std::max(last, child);
    }
    if (first < 0)
        return;
    lane.maxLoadStale = true;
    m_maxSpaceLoadStale = true;
    const QModelIndex parentIndex = index(row, 0);
    emit dataChanged(index(first, 0, parentIndex), index(last, 0, parentIndex),
        { DocsRole, BytesRole, SizeRole, LoadRole, FiguresKnownRole, Qt::DisplayRole, Qt::ToolTipRole });
}

// At once when the last projection is old enough, else once the delay has passed: at most one
// projection per delay however many nodes report.
void ShardMapModel::projectSoon()
{
    if (m_projectionTimer.isActive())
        return;
    const qint64 since = m_lastProjection.isValid() ? m_lastProjection.elapsed() : kProjectionDelayMs;
    if (since >= kProjectionDelayMs)
        updateProjections();
    else
        m_projectionTimer.start(static_cast<int>(kProjectionDelayMs - since));
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
                loads[lane->id.toStdString()] = { lane->figures.docs, lane->figures.bytes };
            // Most lanes have no space with figures: a million spaces are not walked per rebuild.
            if (lane->known == 0)
                continue;
            for (const Space& space : lane->spaces) {
                if (space.known)
                    spaces[space.id] = { space.figures.docs, space.figures.bytes };
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
    // With nothing planned, no migration in flight and every lane sampled (the steady state), a
    // lane's projection is its own figures: the rules are not rebuilt from every lane's and
    // space's figures twice a second for that (at 35,000 shards, the most of a projection).
    const core::MapIndex* mapIndex = m_map ? m_map->index() : nullptr;
    const bool ownFigures = m_planned.empty() && mapIndex && mapIndex->migrating().empty()
        && std::all_of(m_lanes.begin(), m_lanes.end(), [](const auto& lane) { return lane->sampled; });
    const auto loads = ownFigures ? std::map<std::string, core::ShardFigures> {} : rules().projectedLoads(m_planned);
    ++m_projections;
    m_projectionsWithRules += ownFigures ? 0 : 1;
    // One dataChanged per run of changed lanes: 10,000 single-lane signals cost more than the
    // projection itself.
    int first = -1;
    const auto flush = [&](int end) {
        if (first >= 0)
            emit dataChanged(index(first, 0), index(end - 1, 0),
                { DocsRole, BytesRole, SizeRole, LoadRole, FillRole, ProjectedFillRole, ProjectedDocsRole,
                    ProjectedBytesRole, Qt::DisplayRole, Qt::ToolTipRole });
        first = -1;
    };
    for (int row = 0; row < static_cast<int>(m_lanes.size()); ++row) {
        Lane& lane = *m_lanes[static_cast<std::size_t>(row)];
        core::ShardFigures projected { lane.figures.docs, lane.figures.bytes };
        if (!ownFigures) {
            const auto found = loads.find(lane.record.id);
            projected = found == loads.end() ? core::ShardFigures {} : found->second;
        }
        if (projected == lane.projected && !lane.figuresChanged) {
            flush(row);
            continue;
        }
        lane.projected = projected;
        lane.figuresChanged = false;
        first = first < 0 ? row : first;
    }
    flush(static_cast<int>(m_lanes.size()));
}

int ShardMapModel::laneRow(const QString& shardId) const
{
    return laneRow(shardId.toStdString());
}

int ShardMapModel::laneRow(const std::string& shardId) const
{
    const auto found = m_laneRow.find(shardId);
    return found == m_laneRow.end() ? -1 : found->second;
}

QModelIndex ShardMapModel::laneIndex(const QString& shardId) const
{
    const int row = laneRow(shardId);
    return row < 0 ? QModelIndex() : index(row, 0);
}

QModelIndex ShardMapModel::spaceIndex(const QString& spaceId) const
{
    // The map says which lanes list the space: its owner's, and its migration target's.
    const std::string id = spaceId.toStdString();
    const core::SpaceRecord* record = m_map ? m_map->space(id) : nullptr;
    if (!record)
        return {};
    for (const std::string* shard : { &record->shard, &record->target }) {
        const int row = shard->empty() ? -1 : laneRow(*shard);
        const int child = row < 0 ? -1 : childRow(*m_lanes[static_cast<std::size_t>(row)], id);
        if (child >= 0)
            return index(child, 0, index(row, 0));
    }
    return {};
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
    const int row = laneRow(laneAt(child)->record.id);
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
    case Qt::ToolTipRole: {
        const QString tip = tr("Shard %1 on node %2 (%3)").arg(lane.id, lane.node, shardStateText(lane.record.state));
        const QString copies = laneData(lane, CopiesTextRole).toString();
        return copies.isEmpty() ? tip : tr("%1; %2").arg(tip, copies);
    }
    case KindRole: return QVariant::fromValue(ItemKind::Lane);
    case NodeRole: return lane.node;
    case StateRole: return QString::fromUtf8(core::shardStateName(lane.record.state));
    case StateTextRole: return shardStateText(lane.record.state);
    case DocsRole: return QVariant::fromValue<qulonglong>(now.docs);
    case BytesRole: return QVariant::fromValue<qulonglong>(now.bytes);
    case SizeRole: return QVariant::fromValue<qulonglong>(measure(now));
    case LoadRole: return lane.figures.queries + lane.figures.writes;
    case FillRole: return fill(measure(now), capacity);
    case ProjectedFillRole: return fill(measure(lane.projected), capacity);
    case ProjectedDocsRole: return QVariant::fromValue<qulonglong>(lane.projected.docs);
    case ProjectedBytesRole: return QVariant::fromValue<qulonglong>(lane.projected.bytes);
    case CapacityRole: return QVariant::fromValue<qulonglong>(capacity);
    case CopyHealthRole:
    case CopiesTextRole: {
        if (!m_map || (lane.record.replicas.empty() && m_map->settings.value.replicationFactorOf(lane.record) <= 1))
            return role == CopyHealthRole ? QVariant(-1) : QVariant(QString());
        const core::ShardCopiesHealth copies = core::evaluateCopies(*m_map, lane.record);
        return role == CopyHealthRole ? QVariant(static_cast<int>(copies.health))
                                      : QVariant(QString::fromStdString(core::describeCopies(copies)));
    }
    default: return {};
    }
}

QVariant ShardMapModel::spaceData(const Lane& lane, const Space& space, int role) const
{
    // Records are not copied per tile (a million of them): the shown map has them.
    const auto record = [&]() -> const core::SpaceRecord* { return m_map ? m_map->space(space.id) : nullptr; };
    switch (role) {
    case Qt::DisplayRole:
    case IdRole: return QString::fromStdString(space.id);
    case Qt::ToolTipRole: {
        const QString figures = space.known ? tr("Space %1: %2 docs, %3")
                                                  .arg(QString::fromStdString(space.id),
                                                      formatCount(space.figures.docs), formatBytes(space.figures.bytes))
                                            : tr("Space %1 (no figures yet)").arg(QString::fromStdString(space.id));
        const core::SpaceRecord* found = record();
        const core::SpacePlacement placement = found ? core::placementOf(*m_map, *found) : core::SpacePlacement {};
        const QString window = formatRollbackWindow(placement.rollbackUntilUnixMs, QDateTime::currentMSecsSinceEpoch());
        return window.isEmpty()
            ? figures
            : tr("%1\nMoved to %2: %3").arg(figures, QString::fromStdString(placement.shard), window);
    }
    case KindRole: return QVariant::fromValue(ItemKind::Space);
    case NodeRole: return lane.node;
    case StateRole: return QString::fromUtf8(core::shardStateName(lane.record.state));
    case DocsRole: return QVariant::fromValue<qulonglong>(space.figures.docs);
    case BytesRole: return QVariant::fromValue<qulonglong>(space.figures.bytes);
    case SizeRole:
        return QVariant::fromValue<qulonglong>(m_sizeBy == SizeBy::Docs ? space.figures.docs : space.figures.bytes);
    case LoadRole: return space.figures.queries + space.figures.writes;
    case FiguresKnownRole: return space.known;
    case MigratingToRole: {
        // Only a move before its cutover: in its rollback window the space has arrived.
        const core::SpaceRecord* found = record();
        return found ? QString::fromStdString(core::placementOf(*m_map, *found).movingTo) : QString();
    }
    case PinRole: {
        const core::SpaceRecord* found = record();
        return found ? QString::fromStdString(found->pin) : QString();
    }
    case PlannedToRole: {
        const std::string& id = space.id;
        const auto planned = std::find_if(
            m_planned.begin(), m_planned.end(), [&](const core::PlannedMove& move) { return move.space == id; });
        return planned == m_planned.end() ? QString() : QString::fromStdString(planned->to);
    }
    default: return {};
    }
}

} // namespace shardmap::widgets
