// The sizes of changes' implementation: a sample that says 0 bytes is measured again on the
// space's node, one call per shard, so that a space written since the sample is not judged empty.
#include "core/admin/change_sizes.h"

#include "core/map/shard_map.h"
#include "core/plan/move_rules.h"
#include "core/util/units.h"

#include <algorithm>

namespace shardmap::core {

namespace {

// The listed spaces' bytes from their owners' nodes, one call per shard. A sample taken before a
// space's first write says 0 bytes, and a change judged by it would pass every byte limit, so a
// space that cannot be measured refuses the change. Spaces the map does not have are left out:
// the change itself refuses them.
Result<std::map<std::string, std::uint64_t>> measureOnNodes(
    FleetAdmin& admin, const MapSnapshot& map, const std::vector<std::string>& spaces)
{
    std::map<std::string, std::vector<std::string>> byShard;
    for (const std::string& id : spaces) {
        if (const SpaceRecord* space = map.space(id))
            byShard[space->shard].push_back(id);
    }
    std::map<std::string, std::uint64_t> bytes;
    for (const auto& [shardId, ids] : byShard) {
        const auto cannot = [&](const std::string& why) {
            return makeError(ErrorCode::Unavailable,
                "cannot measure space " + ids.front() + " on shard " + shardId + ": " + why
                    + "; a change that moves a space is judged by its size, so try again when the node answers");
        };
        const ShardRecord* shard = map.shard(shardId);
        const NodeRecord* node = shard ? map.node(shard->node) : nullptr;
        if (!node)
            return cannot("the map names no node for the shard");
        auto client = admin.nodes().get(node->address);
        auto stats = client ? (*client)->spaceStats(shardId, ids) : Result<std::vector<SpaceStats>>(client.error());
        if (!stats)
            return cannot(
                "node " + node->id + " at " + node->address + " did not answer (" + stats.error().message + ")");
        for (const std::string& id : ids)
            bytes[id] = 0;
        for (const SpaceStats& entry : *stats)
            bytes[entry.space] = entry.bytesEstimate;
    }
    return bytes;
}

std::vector<std::string> spacesOf(const Plan& plan)
{
    std::vector<std::string> spaces;
    for (const PlannedMove& move : plan.moves)
        spaces.push_back(move.space);
    return spaces;
}

// New shards an operator may create: active ones that a move of the plan fills (a split, an
// isolate, shards added to a rebalance). Anything else is CreateShard, an admin's.
void newShardEffects(const Plan& plan, std::vector<std::string>& effects)
{
    for (const ShardRecord& shard : plan.newShards) {
        const bool filled = std::any_of(
            plan.moves.begin(), plan.moves.end(), [&](const PlannedMove& move) { return move.to == shard.id; });
        if (shard.state != ShardState::Active)
            effects.push_back("it creates shard " + shard.id + " as " + shardStateName(shard.state)
                + "; creating a shard that is not active needs the admin role");
        else if (!filled)
            effects.push_back("it creates shard " + shard.id + " on node " + shard.node
                + " and moves no space into it; creating a shard needs the admin role");
    }
}

// A drain or merge sets its shard draining (migration_operations.cpp operationChanges). An
// operator may do that only as the end of moving every space off it; a plan that leaves spaces
// there, or moves none, is SetShardState, an admin's.
void drainEffects(const MapSnapshot& map, const Plan& plan, std::vector<std::string>& effects)
{
    if (plan.kind != "drain" && plan.kind != "merge")
        return;
    const ShardRecord* shard = map.shard(plan.subject);
    if (!shard || shard->state == ShardState::Draining || shard->state == ShardState::Retired)
        return;
    const bool movesOff = std::any_of(
        plan.moves.begin(), plan.moves.end(), [&](const PlannedMove& move) { return move.from == plan.subject; });
    const std::string because = "; setting a shard's state needs the admin role";
    if (!movesOff)
        effects.push_back("it sets shard " + plan.subject + " draining without moving a space off it" + because);
    else if (!plan.remaining.empty())
        effects.push_back("it sets shard " + plan.subject + " draining and leaves "
            + std::to_string(plan.remaining.size()) + (plan.remaining.size() == 1 ? " space" : " spaces") + " on it ("
            + plan.remaining.front() + (plan.remaining.size() > 1 ? ", ..." : "") + ")" + because);
}

// An isolate pins each space it moves to the shard it names (into); an operator's may pin only
// into a shard it creates and only the spaces it moves there. Other pins are PinSpace, an admin's.
void pinEffects(const Plan& plan, std::vector<std::string>& effects)
{
    if (plan.kind != "isolate")
        return;
    const bool created = std::any_of(
        plan.newShards.begin(), plan.newShards.end(), [&](const ShardRecord& shard) { return shard.id == plan.into; });
    for (const PlannedMove& move : plan.moves) {
        if (!created || move.to != plan.into) {
            effects.push_back("it pins space " + move.space + " to shard " + plan.into
                + (created ? " while moving it to " + move.to : std::string(", a shard it does not create"))
                + "; pinning a space needs the admin role");
            return;
        }
    }
}

// What applying the plan does besides queueing its moves (MigrationRequests::applyPlan: shards
// created on nodes and in the map, shard states, pins) that an operator may not do on its own.
Result<std::vector<std::string>> planAdminEffects(FleetAdmin& admin, const Plan& plan)
{
    auto map = admin.map().snapshot();
    if (!map)
        return map.error();
    std::vector<std::string> effects;
    newShardEffects(plan, effects);
    drainEffects(*map, plan, effects);
    pinEffects(plan, effects);
    return effects;
}

} // namespace

Result<ChangeSize> sizeOfSpaces(
    FleetAdmin& admin, const std::vector<std::string>& spaces, const std::map<std::string, std::uint64_t>& sampled)
{
    std::vector<std::string> unsized;
    for (const std::string& space : spaces) {
        if (const auto found = sampled.find(space); found == sampled.end() || found->second == 0)
            unsized.push_back(space);
    }
    std::map<std::string, std::uint64_t> measured;
    if (!unsized.empty()) {
        auto map = admin.map().snapshot();
        if (!map)
            return map.error();
        auto exact = measureOnNodes(admin, *map, unsized);
        if (!exact)
            return exact.error();
        measured = std::move(*exact);
    }
    ChangeSize size;
    size.spaces = spaces.size();
    for (const std::string& space : spaces) {
        if (const auto found = measured.find(space); found != measured.end())
            size.bytes += found->second;
        else if (const auto sample = sampled.find(space); sample != sampled.end())
            size.bytes += sample->second;
    }
    return size;
}

Result<ChangeSize> measureSpaces(FleetAdmin& admin, const std::vector<std::string>& spaces)
{
    auto input = admin.migrations().plannerInput();
    if (!input)
        return input.error();
    std::map<std::string, std::uint64_t> sampled;
    for (const PlannerSpace& space : input->spaces)
        sampled[space.id] = static_cast<std::uint64_t>(space.load.bytes);
    return sizeOfSpaces(admin, spaces, sampled);
}

std::string movesSummary(const std::string& what, const ChangeSize& size)
{
    return what + ": " + std::to_string(size.spaces) + (size.spaces == 1 ? " space, " : " spaces, ")
        + formatBytes(size.bytes);
}

Result<PreparedChange> preparePlan(FleetAdmin& admin, PreparedChange prepared, const Plan& plan)
{
    auto size = measureSpaces(admin, spacesOf(plan));
    if (!size)
        return size.error();
    auto effects = planAdminEffects(admin, plan);
    if (!effects)
        return effects.error();
    prepared.size = *size;
    prepared.size.adminEffects = std::move(*effects);
    prepared.size.retiresNode = plan.kind == "retire-node";
    std::string what = plan.kind == "move" ? std::string("move") : plan.kind + " " + plan.subject;
    if (!plan.into.empty())
        what += " into " + plan.into;
    prepared.summary = movesSummary(what, prepared.size);
    return prepared;
}

} // namespace shardmap::core
