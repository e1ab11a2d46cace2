#pragma once

// The refusals of moves and scenarios that a migration still holds (issue 26): each names the
// spaces and says when they can move, so a refused wizard says when it can run. They are notes
// (core/plan/plan_note.h) carried by the error: English with UTC times for the daemon and
// shardmapctl, the console's language and local time in the console.

#include "core/map/space_placement.h"
#include "core/plan/planner.h"
#include "core/util/result.h"

#include <set>
#include <string>
#include <vector>

namespace shardmap::core {

// Why no new migration of the space can be queued now, and when it can; nullopt when nothing
// holds it. InRollbackWindow ("space t is in its rollback window after moving to s2 (m-1) until
// 17:45 UTC; it can move then"), JustMoved or AlreadyMigrating.
std::optional<PlanNote> holdNote(const std::string& space, const SpacePlacement& placement);
// The same in English; empty when nothing holds it.
std::string migrationHold(const std::string& space, const SpacePlacement& placement);

// The hold of a planner space; AlreadyMigrating for a migrating space without one.
PlanNote holdOf(const PlannerSpace& space);

// Refuses moving spaces that a migration holds, naming at most five of them.
Status refuseHeld(const std::vector<const PlannerSpace*>& held);
// The same for space records (an operation's or a console plan's moves); ok when none is held.
Status refuseHeld(const MapSnapshot& map, const std::vector<const SpaceRecord*>& spaces);

// An operation that retires shards (operation "merge" of shard subject, "retire-node" of node
// subject) must wait for the rollback windows whose old copies are on them: a retired shard
// cannot take a rollback. Ok when none is.
Status refuseRollbackCopies(const PlannerInput& input, const std::set<std::string>& retired,
    const std::string& operation, const std::string& subject);

} // namespace shardmap::core
