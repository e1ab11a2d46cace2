#pragma once

// The planner's search: the moves that empty what must leave and even the fleet out, chosen on
// the fleet model (planner_model.h), and the split's two even halves.

#include "core/plan/planner_model.h"
#include "core/util/result.h"

#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace shardmap::core::planning {

// Moves every item marked mustLeave, largest first, each to the receiving bin (among allowed,
// when given) where it lowers the deviation most. Fails naming the first space no bin takes when
// failWhenStuck, else warns and leaves it.
Status evacuate(Fleet& fleet, const std::set<std::size_t>& allowed, bool failWhenStuck);

// The improvement loop. Each round the sources (outside the band first) offer their movable
// spaces to the targets; the first source with a move that lowers the weighted deviation and
// relieves a shard outside the band gives, to each target, its best such space, best first,
// each checked again against the moves before it. Ends when `done` says so, no move helps, or
// the budget runs out. Empty sources or targets: every balanced bin (that receives). `what` names
// the scenario in the moves' reasons; capTargetsAtBand fills new shards without passing the top
// of their band and without taking a source below it.
void improve(Fleet& fleet, const std::set<std::size_t>& sources, const std::set<std::size_t>& targets,
    const std::string& what, bool capTargetsAtBand, const std::function<bool()>& done);

// Two bins of spaces as even in bytes as the spaces allow: largest first into the lighter bin,
// then single moves and swaps between the bins while they narrow the gap. fixed[i]: items[i]
// stays in the first bin. True for the items of the second bin.
std::vector<bool> evenHalves(const std::vector<const Item*>& items, const std::vector<bool>& fixed);

} // namespace shardmap::core::planning
