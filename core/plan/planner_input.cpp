// The planner's copy of the fleet from a map snapshot (every space where placementOf() puts it),
// and that copy as it will be once a plan is applied.
#include "core/map/index_templates.h"
#include "core/map/space_placement.h"
#include "core/plan/planner.h"
#include "core/plan/space_holds.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace shardmap::core {

namespace {

// The shards an isolate gave to a space that is still pinned there, with that space.
std::map<std::string, std::string> isolatedShards(const MapSnapshot& map)
{
    std::map<std::string, std::string> isolated;
    for (const auto& [id, operation] : map.operations) {
        const OperationRecord& op = operation.value;
        if (op.kind != OperationKind::Isolate || op.state == OperationState::Failed)
            continue;
        if (const SpaceRecord* space = map.space(op.subject); space && space->pin == op.into)
            isolated[op.into] = op.subject;
    }
    return isolated;
}

} // namespace

// Every space where placementOf() says it lives: a space in its rollback window on its new shard,
// one moving before its cutover at its target (the plan must not fill that shard twice).
PlannerInput plannerInputFrom(const MapSnapshot& map, const std::map<std::string, LoadFigures>& spaces,
    const std::map<std::string, PlannerNode>& nodes)
{
    PlannerInput input;
    input.baseRevision = map.revision;
    input.settings = map.settings.value;
    input.templates = templatesOf(map);
    for (const auto& [id, node] : map.nodes) {
        const auto facts = nodes.find(id);
        PlannerNode value = facts != nodes.end() ? facts->second : PlannerNode {};
        value.id = id;
        value.retired = node.value.retired;
        input.nodes.push_back(std::move(value));
    }
    const std::map<std::string, std::string> isolated = isolatedShards(map);
    for (const auto& [id, shard] : map.shards) {
        const auto found = isolated.find(id);
        input.shards.push_back({ shard.value, found != isolated.end() ? found->second : std::string() });
    }
    input.spaces.reserve(map.spaces.size());
    for (const auto& [id, space] : map.spaces) {
        const SpacePlacement placement = placementOf(map, space.value);
        PlannerSpace value;
        value.id = id;
        value.migrating = placement.migrationOpen();
        value.migrationId = placement.migrationId;
        value.shard = placement.moving() ? placement.movingTo : placement.shard;
        value.migratingFrom = placement.moving() ? placement.shard : std::string();
        value.rollbackCopyOn = placement.rollbackCopyOn;
        value.rollbackUntilUnixMs = placement.rollbackUntilUnixMs;
        value.hold = holdNote(id, placement);
        value.pin = space.value.pin;
        if (const auto found = spaces.find(id); found != spaces.end())
            value.load = found->second;
        input.spaces.push_back(std::move(value));
    }
    return input;
}

PlannerInput applyPlanToInput(const PlannerInput& input, const Plan& plan)
{
    PlannerInput out = input;
    for (const ShardRecord& shard : plan.newShards)
        out.shards.push_back({ shard, plan.kind == "isolate" ? plan.subject : std::string() });
    std::map<std::string, const PlannedMove*> moves;
    for (const PlannedMove& move : plan.moves)
        moves[move.space] = &move;
    std::map<std::string, std::string> shardNode;
    for (const PlannerShard& shard : out.shards)
        shardNode[shard.record.id] = shard.record.node;
    // Free disk once the moves are done and their sources cleaned up.
    std::map<std::string, double> received;
    for (PlannerSpace& space : out.spaces) {
        const auto found = moves.find(space.id);
        if (found == moves.end())
            continue;
        if (shardNode[space.shard] != shardNode[found->second->to]) {
            received[shardNode[found->second->to]] += space.load.bytes;
            received[shardNode[space.shard]] -= space.load.bytes;
        }
        space.shard = found->second->to;
        if (plan.kind == "isolate")
            space.pin = found->second->to;
    }
    // What the operation does to shards and nodes once its moves are done.
    for (PlannerShard& shard : out.shards) {
        if ((plan.kind == "drain" || plan.kind == "merge") && shard.record.id == plan.subject)
            shard.record.state = ShardState::Draining;
        if (plan.kind == "retire-node" && shard.record.node == plan.subject)
            shard.record.state = ShardState::Retired;
    }
    for (PlannerNode& node : out.nodes) {
        if (plan.kind == "retire-node" && node.id == plan.subject)
            node.retired = true;
        if (node.diskFreeBytes && received.contains(node.id)) {
            const double free = static_cast<double>(*node.diskFreeBytes) - received[node.id];
            node.diskFreeBytes = static_cast<std::uint64_t>(std::max(0.0, std::floor(free)));
        }
    }
    return out;
}

} // namespace shardmap::core
