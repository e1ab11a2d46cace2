#pragma once

// What a change of the Admin API moves, measured from the map and the nodes and never taken from
// the caller's word: the spaces' bytes, and what a plan does besides its moves that only an admin
// may do. The change kinds (change_kinds.cpp) prepare their changes with these.

#include "core/admin/admin_changes.h"
#include "core/plan/plan.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace shardmap::core {

// The listed spaces' size: bytes from the sampled metrics, measured on the nodes where the
// sample has none or says 0. Unavailable when a space cannot be measured (an unmeasured space
// would pass every byte limit).
Result<ChangeSize> sizeOfSpaces(
    FleetAdmin& admin, const std::vector<std::string>& spaces, const std::map<std::string, std::uint64_t>& sampled);

// The bytes of the listed spaces, from the planner's view of the fleet (each space's owner
// measured them), and how many there are.
Result<ChangeSize> measureSpaces(FleetAdmin& admin, const std::vector<std::string>& spaces);

// "move acme to s2: 1 space, 2.0 GiB".
std::string movesSummary(const std::string& what, const ChangeSize& size);

// A plan measured: its moves' size, what it does that only an admin may (ChangeSize::adminEffects)
// and its summary.
Result<PreparedChange> preparePlan(FleetAdmin& admin, PreparedChange prepared, const Plan& plan);

} // namespace shardmap::core
