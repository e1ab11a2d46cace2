// SpacesModel's implementation: rows from the map, inserted and removed in place, figures from the
// node's samples emitted as dataChanged only where they changed.

#include "widgets/detail/spaces_model.h"

#include "widgets/style/format.h"

#include <QLocale>
#include <QSet>
#include <algorithm>

namespace shardmap::widgets {

namespace {

QString rate(double perSecond)
{
    return SpacesModel::tr("%1/s").arg(QLocale().toString(perSecond, 'f', perSecond < 10 ? 1 : 0));
}

bool sameFigures(const core::SpaceMetricsValue& a, const core::SpaceMetricsValue& b)
{
    return a.liveDocs == b.liveDocs && a.bytesEstimate == b.bytesEstimate && a.queriesPerSecond == b.queriesPerSecond
        && a.writesPerSecond == b.writesPerSecond;
}

} // namespace

SpacesModel::SpacesModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void SpacesModel::setShard(const MapPtr& map, const QString& shardId)
{
    setShards(map, shardId.isEmpty() ? QStringList() : QStringList { shardId });
}

void SpacesModel::setShards(const MapPtr& map, const QStringList& shardIds)
{
    // (space, shard) in the map's order, shard by shard.
    std::vector<std::pair<QString, QString>> spaces;
    if (map) {
        for (const QString& shard : shardIds) {
            for (const core::SpaceRecord* space : map->spacesOn(shard.toStdString()))
                spaces.emplace_back(QString::fromStdString(space->id), shard);
        }
    }
    if (shardIds != m_shardIds) {
        // Other shards: every row changes, so this is the one place that resets.
        beginResetModel();
        m_shardIds = shardIds;
        m_rows.clear();
        for (const auto& [id, shard] : spaces)
            m_rows.push_back({ id, shard, false, {}, 0 });
        reindex();
        endResetModel();
        return;
    }
    QHash<QString, bool> present;
    for (const auto& [id, shard] : spaces)
        present.insert(id, true);
    removeMissing(present);
    insertNew(spaces);
}

void SpacesModel::removeMissing(const QHash<QString, bool>& present)
{
    // From the end, in runs of adjacent rows, so that earlier row numbers stay valid.
    int last = static_cast<int>(m_rows.size()) - 1;
    while (last >= 0) {
        if (present.contains(m_rows[static_cast<std::size_t>(last)].id)) {
            --last;
            continue;
        }
        int first = last;
        while (first > 0 && !present.contains(m_rows[static_cast<std::size_t>(first - 1)].id))
            --first;
        beginRemoveRows({}, first, last);
        m_rows.erase(m_rows.begin() + first, m_rows.begin() + last + 1);
        reindex();
        endRemoveRows();
        last = first - 1;
    }
}

void SpacesModel::insertNew(const std::vector<std::pair<QString, QString>>& spaces)
{
    std::vector<std::pair<QString, QString>> added;
    std::copy_if(spaces.begin(), spaces.end(), std::back_inserter(added),
        [this](const auto& space) { return !m_rowOf.contains(space.first); });
    if (added.empty())
        return;
    const int first = static_cast<int>(m_rows.size());
    beginInsertRows({}, first, first + static_cast<int>(added.size()) - 1);
    for (const auto& [id, shard] : added)
        m_rows.push_back({ id, shard, false, {}, 0 });
    reindex();
    endInsertRows();
}

void SpacesModel::reindex()
{
    m_rowOf.clear();
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        m_rowOf.insert(m_rows[i].id, static_cast<int>(i));
}

void SpacesModel::applySample(const SamplePtr& sample)
{
    if (!sample || m_rows.empty())
        return;
    // Per shard shown: its spaces' figures and its bytes (what a space's share is of).
    QHash<QString, const core::SpaceMetricsValue*> figures;
    QHash<QString, std::uint64_t> shardBytes;
    QSet<QString> reported;
    for (const core::ShardMetricsValue& shard : sample->shards) {
        const QString shardId = QString::fromStdString(shard.shard);
        // A stream without per-space figures (not asked for yet) says nothing about the spaces.
        if (!m_shardIds.contains(shardId) || (shard.spaceMetrics.empty() && shard.spaces > 0))
            continue;
        reported.insert(shardId);
        for (const auto& space : shard.spaceMetrics) {
            figures.insert(QString::fromStdString(space.space), &space);
            shardBytes[shardId] += space.bytesEstimate;
        }
    }
    if (reported.isEmpty())
        return;
    int top = -1;
    int bottom = -1;
    int left = ColumnCount;
    int right = -1;
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        Row& row = m_rows[i];
        if (!reported.contains(row.shard))
            continue;
        const core::SpaceMetricsValue* found = figures.value(row.id);
        core::SpaceMetricsValue next = found ? *found : core::SpaceMetricsValue {};
        const std::uint64_t totalBytes = shardBytes.value(row.shard);
        const double share = totalBytes > 0 ? 100.0 * static_cast<double>(next.bytesEstimate) / totalBytes : 0.0;
        const bool figuresChanged = !row.hasFigures || !sameFigures(row.figures, next);
        const bool shareChanged = !row.hasFigures || row.share != share;
        if (!figuresChanged && !shareChanged)
            continue;
        row.hasFigures = true;
        row.figures = std::move(next);
        row.share = share;
        const int rowNumber = static_cast<int>(i);
        top = top < 0 ? rowNumber : top;
        bottom = rowNumber;
        left = std::min(left, figuresChanged ? static_cast<int>(DocsColumn) : static_cast<int>(ShareColumn));
        right = std::max(right, shareChanged ? static_cast<int>(ShareColumn) : static_cast<int>(WritesColumn));
    }
    if (top >= 0)
        emit dataChanged(index(top, left), index(bottom, right), { Qt::DisplayRole, SortRole, Qt::ToolTipRole });
}

int SpacesModel::rowOf(const QString& spaceId) const
{
    return m_rowOf.value(spaceId, -1);
}

int SpacesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int SpacesModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SpacesModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = m_rows[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole: return displayValue(row, index.column());
    case SortRole: return sortValue(row, index.column());
    case SpaceIdRole: return row.id;
    case Qt::TextAlignmentRole:
        return index.column() == SpaceColumn || index.column() == ShardColumn
            ? QVariant()
            : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (index.column() == ShareColumn && row.hasFigures)
            return tr("%1 of the shard's bytes").arg(displayValue(row, ShareColumn).toString());
        return {};
    default: return {};
    }
}

QVariant SpacesModel::displayValue(const Row& row, int column) const
{
    if (column == SpaceColumn)
        return row.id;
    if (column == ShardColumn)
        return row.shard;
    if (!row.hasFigures)
        return tr("–");
    const QLocale locale;
    switch (column) {
    case DocsColumn: return locale.toString(static_cast<qulonglong>(row.figures.liveDocs));
    case BytesColumn: return formatBytes(row.figures.bytesEstimate);
    case QueriesColumn: return rate(row.figures.queriesPerSecond);
    case WritesColumn: return rate(row.figures.writesPerSecond);
    case ShareColumn: return tr("%1 %").arg(locale.toString(row.share, 'f', 1));
    default: return {};
    }
}

QVariant SpacesModel::sortValue(const Row& row, int column) const
{
    if (column == SpaceColumn)
        return row.id;
    if (column == ShardColumn)
        return row.shard;
    if (!row.hasFigures)
        return {};
    switch (column) {
    case DocsColumn: return static_cast<qulonglong>(row.figures.liveDocs);
    case BytesColumn: return static_cast<qulonglong>(row.figures.bytesEstimate);
    case QueriesColumn: return row.figures.queriesPerSecond;
    case WritesColumn: return row.figures.writesPerSecond;
    case ShareColumn: return row.share;
    default: return {};
    }
}

QVariant SpacesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole && section == ShareColumn)
        return tr("The space's share of the bytes on this shard");
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case SpaceColumn: return tr("Space");
    case ShardColumn: return tr("Shard");
    case DocsColumn: return tr("Docs");
    case BytesColumn: return tr("Bytes");
    case QueriesColumn: return tr("Queries/s");
    case WritesColumn: return tr("Writes/s");
    case ShareColumn: return tr("Share of shard");
    default: return {};
    }
}

} // namespace shardmap::widgets
