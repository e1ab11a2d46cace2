#include "core/plan/plan.h"

#include "core/map/space_placement.h"
#include "core/util/json_input.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

using nlohmann::json;

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

std::string Plan::encode() const
{
    json list = json::array();
    for (const PlannedMove& move : moves) {
        json entry = { { "space", move.space }, { "from", move.from }, { "to", move.to } };
        if (!move.reason.empty())
            entry["reason"] = move.reason;
        if (move.docs || move.bytes) {
            entry["docs"] = move.docs;
            entry["bytes"] = move.bytes;
        }
        list.push_back(std::move(entry));
    }
    json created = json::array();
    for (const ShardRecord& shard : newShards)
        created.push_back(json::parse(core::encode(shard)));
    const json document = { { "version", 1 }, { "baseRevision", baseRevision }, { "createdBy", createdBy },
        { "createdUnixMs", createdUnixMs }, { "reason", reason }, { "kind", kind }, { "subject", subject },
        { "into", into }, { "newShards", created }, { "remaining", remaining }, { "moves", list } };
    return document.dump(2);
}

namespace {

// A shard the plan creates, as encode() writes it (the map's shard record), read from the plan's
// value itself rather than re-serialised for decodeShard.
ShardRecord newShardOf(const json& shard)
{
    const std::string stateName = shard.at("state").get<std::string>();
    const auto state = parseShardState(stateName);
    if (!state)
        throw json::other_error::create(501, "unknown shard state '" + stateName + "'", &shard);
    return ShardRecord { shard.at("id").get<std::string>(), shard.at("node").get<std::string>(), *state,
        shard.value("capacity_docs", std::uint64_t { 0 }), shard.value("capacity_bytes", std::uint64_t { 0 }) };
}

} // namespace

Result<Plan> Plan::decode(const std::string& text)
{
    auto parsed = readJsonInput(text, "the plan");
    if (!parsed)
        return parsed.error();
    const json& document = *parsed;
    if (!document.is_object())
        return makeError(ErrorCode::InvalidArgument, "not a plan: the file is not a JSON object");
    if (document.value("version", 0) != 1)
        return makeError(ErrorCode::InvalidArgument, "not a plan of this version (expected \"version\": 1)");
    try {
        Plan plan;
        plan.baseRevision = document.at("baseRevision").get<std::uint64_t>();
        plan.createdBy = document.value("createdBy", "");
        plan.createdUnixMs = document.value("createdUnixMs", std::int64_t { 0 });
        plan.reason = document.value("reason", "");
        plan.kind = document.value("kind", "move");
        plan.subject = document.value("subject", "");
        plan.into = document.value("into", "");
        plan.remaining = document.value("remaining", std::vector<std::string> {});
        for (const json& shard : document.value("newShards", json::array())) {
            try {
                plan.newShards.push_back(newShardOf(shard));
            } catch (const json::exception& error) {
                return makeError(
                    ErrorCode::InvalidArgument, std::string("a new shard of the plan is malformed: ") + error.what());
            }
        }
        for (const json& move : document.at("moves")) {
            PlannedMove value { move.at("space").get<std::string>(), move.at("from").get<std::string>(),
                move.at("to").get<std::string>(), move.value("reason", ""), move.value("docs", std::uint64_t { 0 }),
                move.value("bytes", std::uint64_t { 0 }) };
            if (value.space.empty() || value.to.empty())
                return makeError(ErrorCode::InvalidArgument, "a move of the plan names no space or target");
            plan.moves.push_back(std::move(value));
        }
        return plan;
    } catch (const json::exception& error) {
        return makeError(ErrorCode::InvalidArgument, std::string("not a plan: ") + error.what());
    }
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
        else if (change.before)
            lines.push_back("shard " + change.shard + " went from " + shardStateName(*change.before) + " to "
                + shardStateName(*change.after));
    }
    return lines;
}

} // namespace shardmap::core
