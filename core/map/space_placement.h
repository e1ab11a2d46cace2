#pragma once

// Where a space lives, read the same way by every reader of the map (issue 26).
//
// A space record keeps its migration's id from the moment the migration is queued until its
// cleanup ends, and its target field means two things: before the cutover the shard the space is
// moving to, after the cutover (phase cleanup, the rollback window) the old shard that still
// follows its writes so that a rollback needs no copy. A reader that takes "migrating" for
// "moving to target" sees every finished move as a move back for the whole window. placementOf()
// is the one reading of those fields: the planner, the simulator, the projections of the shard
// map page and the refusals of new moves ask it (core/plan/space_holds.h words those).

#include "core/map/shard_map.h"

#include <cstdint>
#include <string>

namespace shardmap::core {

struct SpacePlacement {
    // The shard that owns the space now: its load counts there, a plan moves it from there.
    std::string shard;
    // Before the cutover: the shard a migration is moving it to. Empty once the move is settled.
    std::string movingTo;
    // During the rollback window: the old shard that keeps a copy for a rollback, and until when
    // (Unix ms, 0 when the migration's cutover time is unknown).
    std::string rollbackCopyOn;
    std::int64_t rollbackUntilUnixMs = 0;
    // The migration that holds the space record; no other migration of the space can be queued
    // until it ends (its cleanup included).
    std::string migrationId;
    // Past its migration's cutover (the move is settled; a rollback is a move back).
    bool cutOver = false;

    bool moving() const { return !movingTo.empty(); }
    bool inRollbackWindow() const { return !rollbackCopyOn.empty(); }
    bool migrationOpen() const { return !migrationId.empty(); }
};

SpacePlacement placementOf(const MapSnapshot& map, const SpaceRecord& space);

// Until when the migration's rollback window is open (Unix ms): its cutover plus the window of
// the settings; 0 when it has none (not cut over, rolled back, no window configured).
std::int64_t rollbackWindowEnd(const MigrationRecord& migration, const MigrationSettings& settings);

// "17:45 UTC": the clock time of a Unix time in ms, for messages of the daemon and shardmapctl
// (the console shows local time).
std::string utcClock(std::int64_t unixMs);

} // namespace shardmap::core
