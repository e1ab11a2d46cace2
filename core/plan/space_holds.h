#pragma once

// The refusals of scenarios that must move spaces a migration still holds (issue 26): each names
// the spaces and says when they can move, so a refused wizard says when it can run.

#include "core/plan/planner.h"
#include "core/util/result.h"

#include <set>
#include <string>
#include <vector>

namespace shardmap::core {

// "space t is in its rollback window ... until 17:45 UTC; it can move then", or the old
// "t (m-1)" for a space without a hold sentence.
std::string holdOf(const PlannerSpace& space);

// Refuses moving spaces that a migration holds, naming at most five of them.
Status refuseHeld(const std::vector<const PlannerSpace*>& held);

// An operation that retires shards (merge, retire-node) must wait for the rollback windows whose
// old copies are on them: a retired shard cannot take a rollback. Empty status when none is.
Status refuseRollbackCopies(const PlannerInput& input, const std::set<std::string>& retired, const std::string& what);

} // namespace shardmap::core
