#include "core/map/space_placement.h"

// placementOf's implementation, with the end of a migration's rollback window and the UTC clock
// time the daemon's messages give.

#include <ctime>

namespace shardmap::core {

SpacePlacement placementOf(const MapSnapshot& map, const SpaceRecord& space)
{
    SpacePlacement placement;
    placement.shard = space.shard;
    placement.migrationId = space.migrationId;
    if (!space.migrating())
        return placement;
    const auto found = map.migrations.find(space.migrationId);
    const MigrationRecord* migration = found != map.migrations.end() ? &found->second.value : nullptr;
    if (space.phase == MigrationPhase::Cleanup) {
        // Cut over: the space lives on its record's shard; the target is the old copy, kept
        // until the window closes (then cleared while the copy is deleted).
        placement.cutOver = true;
        if (!space.target.empty() && space.target != space.shard) {
            placement.rollbackCopyOn = space.target;
            placement.rollbackUntilUnixMs = migration ? rollbackWindowEnd(*migration, map.settings.value) : 0;
        }
        return placement;
    }
    // A migration winding down goes nowhere: the source keeps the space.
    if (migration && migration->aborting)
        return placement;
    // Queued migrations name their target only in their record.
    const std::string& target = !space.target.empty() ? space.target : migration ? migration->target : space.target;
    if (target != space.shard)
        placement.movingTo = target;
    return placement;
}

std::int64_t rollbackWindowEnd(const MigrationRecord& migration, const MigrationSettings& settings)
{
    if (migration.phase != MigrationPhase::Cleanup || migration.rolledBack || migration.cutoverUnixMs <= 0
        || settings.rollbackWindowSeconds == 0)
        return 0;
    return migration.cutoverUnixMs + static_cast<std::int64_t>(settings.rollbackWindowSeconds) * 1000;
}

std::string utcClock(std::int64_t unixMs)
{
    const std::time_t seconds = static_cast<std::time_t>(unixMs / 1000);
    std::tm utc {};
    ::gmtime_r(&seconds, &utc);
    char text[16];
    std::strftime(text, sizeof text, "%H:%M UTC", &utc);
    return text;
}

} // namespace shardmap::core
