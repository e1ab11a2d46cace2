// MoveRules' implementation: a target's state, pin, migration and capacity checks, on the shards'
// loads projected through the map's queued migrations and the plan's earlier moves.
#include "core/plan/move_rules.h"

#include "core/map/space_placement.h"
#include "core/plan/space_holds.h"
#include "core/util/units.h"

#include <algorithm>
#include <cmath>

namespace shardmap::core {

namespace {

MoveVerdict refuse(MoveRefusal refusal, std::string reason)
{
    return MoveVerdict { refusal, std::move(reason), 0, 0 };
}

// Moves a space's figures from one shard's load to another's.
void shift(std::map<std::string, ShardFigures>& loads, const SpaceFigures& figures, const std::string& from,
    const std::string& to)
{
    ShardFigures& source = loads[from];
    source.docs -= std::min(source.docs, figures.docs);
    source.bytes -= std::min(source.bytes, figures.bytes);
    ShardFigures& target = loads[to];
    target.docs += figures.docs;
    target.bytes += figures.bytes;
}

} // namespace

MoveRules::MoveRules(
    const MapSnapshot& map, std::map<std::string, SpaceFigures> spaces, std::map<std::string, ShardFigures> shardLoads)
    : m_map(map)
    , m_spaces(std::move(spaces))
    , m_loads(std::move(shardLoads))
{
    // Summed from the spaces with known figures (a few per shard at most), not by scanning every
    // space per shard: that was shards x spaces (hours at 10,000 shards and a million spaces).
    // Only for shards without a load of their own: once every shard is sampled (the console's
    // steady state), the tens of thousands of spaces with figures are not looked up at all.
    const bool everyShardHasALoad = std::all_of(
        m_map.shards.begin(), m_map.shards.end(), [&](const auto& entry) { return m_loads.contains(entry.first); });
    if (everyShardHasALoad)
        return;
    std::map<std::string, ShardFigures> sums;
    for (const auto& [spaceId, f] : m_spaces) {
        const SpaceRecord* space = m_map.space(spaceId);
        if (!space || !m_map.shards.contains(space->shard))
            continue;
        ShardFigures& sum = sums[space->shard];
        sum.docs += f.docs;
        sum.bytes += f.bytes;
    }
    for (const auto& [id, shard] : m_map.shards) {
        if (!m_loads.contains(id))
            m_loads.emplace(id, sums[id]);
    }
}

SpaceFigures MoveRules::figures(const std::string& space) const
{
    const auto found = m_spaces.find(space);
    return found == m_spaces.end() ? SpaceFigures {} : found->second;
}

ShardFigures MoveRules::load(const std::string& shard) const
{
    const auto found = m_loads.find(shard);
    return found == m_loads.end() ? ShardFigures {} : found->second;
}

std::string MoveRules::projectedShard(const std::string& space, const std::vector<PlannedMove>& moves) const
{
    const SpaceRecord* record = m_map.space(space);
    std::string shard;
    if (record) {
        const SpacePlacement placement = placementOf(m_map, *record);
        shard = placement.moving() ? placement.movingTo : placement.shard;
    }
    for (const PlannedMove& move : moves) {
        if (move.space == space)
            shard = move.to;
    }
    return shard;
}

std::map<std::string, ShardFigures> MoveRules::projectedLoads(const std::vector<PlannedMove>& moves) const
{
    std::map<std::string, ShardFigures> loads = m_loads;
    // Where the spaces that move are: only those, not every space of the map.
    std::map<std::string, std::string> where;
    const auto migrate = [&](const SpaceRecord& space) {
        // Migrations before their cutover: the nodes still count the space at its source. One in
        // its rollback window has arrived; its old copy is not the shard's load.
        const SpacePlacement placement = placementOf(m_map, space);
        if (placement.moving()) {
            shift(loads, figures(space.id), placement.shard, placement.movingTo);
            where[space.id] = placement.movingTo;
        }
    };
    if (const MapIndex* index = m_map.index()) {
        for (const SpaceRecord* space : index->migrating())
            migrate(*space);
    } else {
        for (const auto& [id, space] : m_map.spaces)
            migrate(space.value);
    }
    for (const PlannedMove& move : moves) {
        auto found = where.find(move.space);
        if (found == where.end()) {
            const SpaceRecord* space = m_map.space(move.space);
            if (!space)
                continue;
            found = where.emplace(move.space, space->shard).first;
        }
        if (found->second == move.to)
            continue;
        shift(loads, figures(move.space), found->second, move.to);
        found->second = move.to;
    }
    return loads;
}

MoveVerdict MoveRules::checkTarget(const ShardRecord& target) const
{
    switch (target.state) {
    case ShardState::Active: break;
    case ShardState::Draining: return refuse(MoveRefusal::TargetDraining, "shard " + target.id + " is draining");
    case ShardState::Readonly: return refuse(MoveRefusal::TargetReadonly, "shard " + target.id + " is readonly");
    case ShardState::Retired: return refuse(MoveRefusal::TargetRetired, "shard " + target.id + " is retired");
    }
    const NodeRecord* node = m_map.node(target.node);
    if (!node || node->retired)
        return refuse(MoveRefusal::TargetNodeRetired, "node " + target.node + " of shard " + target.id + " is retired");
    return {};
}

MoveVerdict MoveRules::checkCapacity(
    const std::string& space, const ShardRecord& target, const std::vector<PlannedMove>& planned) const
{
    const double maxFill = m_map.settings.value.maxTargetFill > 0 ? m_map.settings.value.maxTargetFill : 1.0;
    const ShardFigures after = projectedLoads(planned)[target.id];
    const SpaceFigures f = figures(space);
    const auto limitOf = [maxFill](std::uint64_t capacity) {
        return static_cast<std::uint64_t>(std::floor(static_cast<double>(capacity) * maxFill));
    };
    if (target.capacityDocs > 0 && after.docs + f.docs > limitOf(target.capacityDocs)) {
        MoveVerdict verdict = refuse(MoveRefusal::OverCapacityDocs,
            "shard " + target.id + " is full: it would hold " + std::to_string(after.docs + f.docs)
                + " docs, its limit is " + std::to_string(limitOf(target.capacityDocs)));
        verdict.wouldHold = after.docs + f.docs;
        verdict.limit = limitOf(target.capacityDocs);
        return verdict;
    }
    if (target.capacityBytes > 0 && after.bytes + f.bytes > limitOf(target.capacityBytes)) {
        const std::uint64_t limit = limitOf(target.capacityBytes);
        const std::uint64_t free = limit > after.bytes ? limit - after.bytes : 0;
        MoveVerdict verdict = refuse(MoveRefusal::OverCapacityBytes,
            "shard " + target.id + " is full: it has " + formatBytes(free) + " free, space " + space + " needs "
                + formatBytes(f.bytes));
        verdict.wouldHold = after.bytes + f.bytes;
        verdict.limit = limit;
        return verdict;
    }
    return {};
}

MoveVerdict MoveRules::check(
    const std::string& space, const std::string& target, const std::vector<PlannedMove>& planned) const
{
    const SpaceRecord* record = m_map.space(space);
    if (!record)
        return refuse(MoveRefusal::UnknownSpace, "no space " + space + " in the map");
    const ShardRecord* shard = m_map.shard(target);
    if (!shard)
        return refuse(MoveRefusal::UnknownShard, "no shard " + target + " in the map");
    if (projectedShard(space, planned) == target)
        return refuse(MoveRefusal::SameShard, "space " + space + " is already on shard " + target);
    if (record->migrating())
        return refuse(MoveRefusal::Migrating, migrationHold(space, placementOf(m_map, *record)));
    if (!record->pin.empty() && record->pin != target)
        return refuse(MoveRefusal::PinnedElsewhere, "space " + space + " is pinned to shard " + record->pin);
    if (MoveVerdict verdict = checkTarget(*shard); !verdict.allowed())
        return verdict;
    return checkCapacity(space, *shard, planned);
}

} // namespace shardmap::core
