// Plan's implementation: one move per space, and the conflicts a later map has with the plan's
// moves and the shards it creates.
#include "core/plan/plan.h"

#include "core/map/space_placement.h"
#include "core/plan/space_holds.h"

#include <algorithm>
#include <set>

namespace shardmap::core {

void Plan::addMove(const PlannedMove& move)
{
    const auto found
        = std::find_if(moves.begin(), moves.end(), [&](const PlannedMove& m) { return m.space == move.space; });
    if (found == moves.end()) {
        if (move.from != move.to)
            moves.push_back(move);
        return;
    }
    found->to = move.to;
    if (found->from == found->to)
        moves.erase(found);
}

const PlannedMove* Plan::moveOf(const std::string& space) const
{
    const auto found = std::find_if(moves.begin(), moves.end(), [&](const PlannedMove& m) { return m.space == space; });
    return found == moves.end() ? nullptr : &*found;
}

std::vector<PlanConflict> Plan::checkAgainst(const MapSnapshot& map) const
{
    std::vector<PlanConflict> conflicts;
    std::map<std::string, const ShardRecord*> created;
    for (const ShardRecord& shard : newShards) {
        created[shard.id] = &shard;
        if (map.shard(shard.id))
            conflicts.push_back({ {}, "shard " + shard.id + " was created since the plan was made" });
        const NodeRecord* node = map.node(shard.node);
        if (!node)
            conflicts.push_back({ {}, "node " + shard.node + " of the new shard " + shard.id + " was removed" });
        else if (node->retired)
            conflicts.push_back({ {}, "node " + shard.node + " of the new shard " + shard.id + " was retired" });
    }
    for (const PlannedMove& move : moves) {
        const SpaceRecord* space = map.space(move.space);
        const auto fresh = created.find(move.to);
        const ShardRecord* target = fresh != created.end() ? fresh->second : map.shard(move.to);
        if (!space) {
            conflicts.push_back({ move.space, "space " + move.space + " was removed" });
            continue;
        }
        if (space->shard != move.from)
            conflicts.push_back(
                { move.space, "space " + move.space + " moved from shard " + move.from + " to " + space->shard });
        else if (const SpacePlacement placement = placementOf(map, *space); placement.moving())
            conflicts.push_back({ move.space,
                "space " + move.space + " is migrating to shard " + placement.movingTo + " (" + space->migrationId
                    + ")" });
        else if (placement.migrationOpen())
            conflicts.push_back({ move.space, migrationHold(move.space, placement) });
        else if (!space->pin.empty() && space->pin != move.to)
            conflicts.push_back({ move.space, "space " + move.space + " was pinned to shard " + space->pin });
        if (!target)
            conflicts.push_back({ move.space, "shard " + move.to + " was removed" });
        else if (target->state != ShardState::Active)
            conflicts.push_back(
                { move.space, "shard " + move.to + " is now " + std::string(shardStateName(target->state)) });
    }
    return conflicts;
}

std::vector<std::string> describeDiff(const MapDiff& diff, const Plan& plan)
{
    std::set<std::string> spaces;
    std::set<std::string> shards;
    for (const PlannedMove& move : plan.moves) {
        spaces.insert(move.space);
        shards.insert(move.from);
        shards.insert(move.to);
    }
    std::vector<std::string> lines;
    for (const SpaceMove& move : diff.spaces) {
        if (!spaces.contains(move.space) || move.fromShard == move.toShard)
            continue;
        if (move.toShard.empty())
            lines.push_back("space " + move.space + " was removed");
        else if (move.fromShard.empty())
            lines.push_back("space " + move.space + " was created on shard " + move.toShard);
        else
            lines.push_back("space " + move.space + " moved from shard " + move.fromShard + " to " + move.toShard);
    }
    for (const ShardChange& change : diff.shards) {
        if (!shards.contains(change.shard))
            continue;
        if (!change.after)
            lines.push_back("shard " + change.shard + " was removed");
        else if (change.before && *change.before != *change.after)
            lines.push_back("shard " + change.shard + " went from " + shardStateName(*change.before) + " to "
                + shardStateName(*change.after));
    }
    return lines;
}

} // namespace shardmap::core
