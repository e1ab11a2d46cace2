// The shard map model's drag and drop (issue 7, issue 26): what a drag carries, where it may be
// dropped, and why not, in the administrator's words.
#include "core/map/space_placement.h"
#include "widgets/map/shard_map_model.h"
#include "widgets/style/format.h"

#include <QDateTime>
#include <QMimeData>

namespace shardmap::widgets {

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

QString ShardMapModel::refusalText(const core::MoveVerdict& verdict, const QString& space, const QString& shard) const
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
    case MoveRefusal::Migrating: return migratingText(space);
    case MoveRefusal::OverCapacityDocs:
        return tr("Shard %1 is full: it would hold %2 docs, its limit is %3")
            .arg(shard)
            .arg(verdict.wouldHold)
            .arg(verdict.limit);
    case MoveRefusal::OverCapacityBytes:
        return tr("Shard %1 is full: it would hold %2, its limit is %3")
            .arg(shard, formatBytes(verdict.wouldHold), formatBytes(verdict.limit));
    }
    return QString::fromStdString(verdict.reason);
}

// When the space can move: after its rollback window (with the clock time and what is left), or
// once its running migration ends.
QString ShardMapModel::migratingText(const QString& space) const
{
    const core::SpaceRecord* record = m_map ? m_map->space(space.toStdString()) : nullptr;
    if (!record)
        return tr("Space %1 is already migrating").arg(space);
    const core::SpacePlacement placement = core::placementOf(*m_map, *record);
    const QString migration = QString::fromStdString(placement.migrationId);
    const QString window = formatRollbackWindow(placement.rollbackUntilUnixMs, QDateTime::currentMSecsSinceEpoch());
    if (placement.inRollbackWindow()) {
        return window.isEmpty()
            ? tr("Space %1 moved to %2 (%3) and is in its rollback window; it can move when its cleanup ends")
                  .arg(space, QString::fromStdString(placement.shard), migration)
            : tr("Space %1 moved to %2 (%3): %4; it can move after that")
                  .arg(space, QString::fromStdString(placement.shard), migration, window);
    }
    if (placement.moving()) {
        return tr("Space %1 is already migrating to %2 (%3); wait for it to finish or cancel it first")
            .arg(space, QString::fromStdString(placement.movingTo), migration);
    }
    return tr("Space %1 is already migrating (%2); wait for it to finish or cancel it first").arg(space, migration);
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

QString ShardMapModel::takeDrop(const QMimeData* data, const QModelIndex& target)
{
    QString refusal = dropRefusal(data, target);
    if (refusal.isEmpty())
        emit movesRequested(spacesOf(data), laneOf(target).data(IdRole).toString());
    return refusal;
}

bool ShardMapModel::canDropMimeData(
    const QMimeData* data, Qt::DropAction action, int row, int, const QModelIndex& parent) const
{
    return action == Qt::MoveAction && dropRefusal(data, dropTarget(row, parent)).isEmpty();
}

bool ShardMapModel::dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int, const QModelIndex& parent)
{
    return action == Qt::MoveAction && takeDrop(data, dropTarget(row, parent)).isEmpty();
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
