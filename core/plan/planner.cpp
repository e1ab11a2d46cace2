// The planner's scenarios (planner.h): each checks its subject, marks what must leave or which
// shards give and take on the fleet model, runs the search and reads the plan back.
#include "core/plan/planner.h"

#include "core/plan/planner_model.h"
#include "core/plan/planner_search.h"
#include "core/plan/space_holds.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace shardmap::core {

namespace {

Status requireShard(planning::Fleet& fleet, const std::string& id)
{
    if (fleet.binOf(id) == planning::kNone)
        return makeError(ErrorCode::NotFound, "no shard " + id + " in the shard map");
    return {};
}

// Marks every space on the bins to leave; one already migrating or pinned there refuses the
// whole operation, naming them.
Status markAllLeaving(planning::Fleet& fleet, const std::set<std::string>& shards, const PlanNote& reason)
{
    std::vector<const PlannerSpace*> held;
    std::vector<std::string> pinned;
    for (std::size_t i = 0; i < fleet.items().size(); ++i) {
        const planning::Item& item = fleet.items()[i];
        const bool leaving = !item.space->migratingFrom.empty() && shards.contains(item.space->migratingFrom);
        if (!shards.contains(fleet.bins()[item.bin].record.id) && !leaving)
            continue;
        if (item.space->migrating)
            held.push_back(item.space);
        else if (!item.space->pin.empty() && shards.contains(item.space->pin))
            pinned.push_back(item.space->id + " (pinned to " + item.space->pin + ")");
        else
            fleet.markMustLeave(i, reason);
    }
    if (auto status = refuseHeld(held); !status)
        return status;
    if (!pinned.empty()) {
        std::string text;
        for (std::size_t i = 0; i < pinned.size() && i < 5; ++i)
            text += (i ? ", " : "") + pinned[i];
        if (pinned.size() > 5)
            text += " and " + std::to_string(pinned.size() - 5) + " more";
        return makeError(
            ErrorCode::FailedPrecondition, "space(s) pinned where they are: " + text + "; unpin them first");
    }
    return {};
}

std::uint64_t bytesLeaving(planning::Fleet& fleet)
{
    double sum = 0;
    for (const planning::Item& item : fleet.items())
        sum += item.mustLeave ? item.space->load.bytes : 0;
    return static_cast<std::uint64_t>(std::llround(sum));
}

Status checkNewShard(const PlannerInput& input, const ShardRecord& shard)
{
    for (const PlannerShard& existing : input.shards) {
        if (existing.record.id == shard.id)
            return makeError(ErrorCode::AlreadyExists, "shard " + shard.id + " already exists");
    }
    for (const PlannerNode& node : input.nodes) {
        if (node.id == shard.node)
            return node.retired ? makeError(
                       ErrorCode::FailedPrecondition, "node " + shard.node + " is retired; a new shard cannot go there")
                                : Status {};
    }
    return makeError(ErrorCode::NotFound, "no node " + shard.node + " in the shard map");
}

} // namespace

Result<PlanResult> planRebalance(const PlannerInput& input, const PlannerOptions& options)
{
    planning::Fleet fleet(input, options, {});
    fleet.settle({}, true);
    const bool balancedBefore = fleet.fleetBalanced();
    if (auto status = planning::evacuate(fleet, {}, false); !status)
        return status.error();
    planning::improve(fleet, {}, {}, "rebalance", false, [&] { return fleet.fleetBalanced(); });
    return fleet.result("move", "rebalance", {}, {}, balancedBefore, 0);
}

Result<PlanResult> planAddShards(
    const PlannerInput& input, const std::vector<ShardRecord>& newShards, const PlannerOptions& options)
{
    if (newShards.empty())
        return makeError(ErrorCode::InvalidArgument, "no shards to fill");
    std::vector<ShardRecord> created;
    for (const ShardRecord& shard : newShards) {
        const bool exists = std::any_of(input.shards.begin(), input.shards.end(),
            [&](const PlannerShard& existing) { return existing.record.id == shard.id; });
        if (exists)
            continue;
        if (auto status = checkNewShard(input, shard); !status)
            return status.error();
        created.push_back(shard);
    }
    planning::Fleet fleet(input, options, newShards);
    fleet.settle({});
    std::set<std::size_t> fresh;
    std::set<std::size_t> old;
    for (std::size_t b = 0; b < fleet.bins().size(); ++b)
        (fleet.bins()[b].isNew ? fresh : old).insert(b);
    double lowerBound = 0;
    for (std::size_t b : fresh) {
        const planning::Bin& bin = fleet.bins()[b];
        if (!bin.receives)
            return makeError(ErrorCode::FailedPrecondition,
                "shard " + bin.record.id
                    + " cannot receive spaces (not active, excluded, or its node did not report its disk)");
        lowerBound += std::max(0.0, fleet.target(bin, 0) - bin.load.bytes);
    }
    const bool balancedBefore = fleet.fleetBalanced();
    // Filled when no new shard is below the band in any objective; the bytes each takes stay
    // within the band's top (capTargetsAtBand), so at most (1 + band) x the lower bound moves.
    const auto filled = [&] {
        return std::none_of(fresh.begin(), fresh.end(), [&](std::size_t b) { return fleet.outBelow(fleet.bins()[b]); });
    };
    planning::improve(fleet, old, fresh, "fill new shard", true, filled);
    std::string subject;
    for (const ShardRecord& shard : newShards)
        subject += (subject.empty() ? "" : ",") + shard.id;
    return fleet.result("move", "add " + subject, {}, created, balancedBefore, static_cast<std::uint64_t>(lowerBound));
}

Result<PlanResult> planDrain(const PlannerInput& input, const std::string& shard, const PlannerOptions& options)
{
    planning::Fleet fleet(input, options, {});
    if (auto status = requireShard(fleet, shard); !status)
        return status.error();
    if (fleet.bins()[fleet.binOf(shard)].record.state == ShardState::Retired)
        return makeError(ErrorCode::FailedPrecondition, "shard " + shard + " is retired; there is nothing to drain");
    if (auto status = markAllLeaving(fleet, { shard }, { PlanNoteKind::Drain, { shard } }); !status)
        return status.error();
    fleet.settle({ shard });
    const bool balancedBefore = fleet.fleetBalanced();
    const std::uint64_t bound = bytesLeaving(fleet);
    if (auto status = planning::evacuate(fleet, {}, true); !status)
        return status.error();
    return fleet.result("drain", shard, {}, {}, balancedBefore, bound);
}

namespace {

// The replicas the retiring node holds (of shards not retired): the executor makes them again
// elsewhere before it retires the node, and the preview says so.
void noteReplicasMovingOff(const PlannerInput& input, const std::string& node, PlanResult& result)
{
    std::vector<std::string> shards;
    for (const PlannerShard& shard : input.shards) {
        if (shard.record.state != ShardState::Retired && shard.record.replicaOn(node))
            shards.push_back(shard.record.id);
    }
    if (shards.empty())
        return;
    std::string named;
    for (std::size_t i = 0; i < shards.size() && i < 3; ++i)
        named += (i == 0 ? "" : ", ") + shards[i];
    if (shards.size() > 3)
        named += ", …";
    const PlanNote note { PlanNoteKind::ReplicasMoveOff, { node, std::to_string(shards.size()), named } };
    result.warnings.push_back(describe(note));
    result.warningNotes.push_back(note);
}

} // namespace

Result<PlanResult> planRetireNode(const PlannerInput& input, const std::string& node, const PlannerOptions& options)
{
    const auto found = std::find_if(
        input.nodes.begin(), input.nodes.end(), [&](const PlannerNode& value) { return value.id == node; });
    if (found == input.nodes.end())
        return makeError(ErrorCode::NotFound, "no node " + node + " in the shard map");
    if (found->retired)
        return makeError(ErrorCode::FailedPrecondition, "node " + node + " is already retired");
    std::set<std::string> shards;
    for (const PlannerShard& shard : input.shards) {
        if (shard.record.node == node)
            shards.insert(shard.record.id);
    }
    if (auto status = refuseRollbackCopies(input, shards, "retire-node", node); !status)
        return status.error();
    planning::Fleet fleet(input, options, {});
    if (auto status = markAllLeaving(fleet, shards, { PlanNoteKind::RetireNode, { node } }); !status)
        return status.error();
    fleet.settle(shards);
    const bool balancedBefore = fleet.fleetBalanced();
    const std::uint64_t bound = bytesLeaving(fleet);
    if (auto status = planning::evacuate(fleet, {}, true); !status)
        return status.error();
    PlanResult result = fleet.result("retire-node", node, {}, {}, balancedBefore, bound);
    noteReplicasMovingOff(input, node, result);
    return result;
}

Result<PlanResult> planSplit(
    const PlannerInput& input, const std::string& shard, const ShardRecord& newShard, const PlannerOptions& options)
{
    if (std::none_of(
            input.shards.begin(), input.shards.end(), [&](const PlannerShard& s) { return s.record.id == shard; }))
        return makeError(ErrorCode::NotFound, "no shard " + shard + " in the shard map");
    if (auto status = checkNewShard(input, newShard); !status)
        return status.error();
    planning::Fleet fleet(input, options, { newShard });
    if (auto status = requireShard(fleet, shard); !status)
        return status.error();
    const planning::Bin& source = fleet.bins()[fleet.binOf(shard)];
    if (source.record.state == ShardState::Retired)
        return makeError(ErrorCode::FailedPrecondition, "shard " + shard + " is retired; there is nothing to split");
    if (options.shardBytesLimit > 0 && source.load.bytes <= static_cast<double>(options.shardBytesLimit))
        return makeError(ErrorCode::FailedPrecondition,
            "shard " + shard + " holds " + std::to_string(static_cast<std::uint64_t>(source.load.bytes))
                + " bytes, not more than the split limit of " + std::to_string(options.shardBytesLimit));
    std::vector<const planning::Item*> items;
    std::vector<std::size_t> indices;
    std::vector<bool> fixed;
    for (std::size_t i : source.items) {
        const planning::Item& item = fleet.items()[i];
        if (item.space->migrating)
            return refuseHeld({ item.space }).error();
        items.push_back(&item);
        indices.push_back(i);
        fixed.push_back(!item.space->pin.empty());
    }
    if (items.size() < 2)
        return makeError(ErrorCode::FailedPrecondition,
            "shard " + shard + " holds " + std::to_string(items.size()) + " space(s); a split needs at least 2");
    fleet.settle({});
    const bool balancedBefore = fleet.fleetBalanced();
    const std::vector<bool> second = planning::evenHalves(items, fixed);
    const std::size_t target = fleet.binOf(newShard.id);
    for (std::size_t k = 0; k < items.size(); ++k) {
        if (!second[k])
            continue;
        if (std::string refused = fleet.refusal(indices[k], target); !refused.empty())
            return makeError(ErrorCode::FailedPrecondition, "cannot split " + shard + ": " + refused);
        fleet.move(indices[k], target, { PlanNoteKind::Split, { shard } });
    }
    return fleet.result("split", shard, newShard.id, { newShard }, balancedBefore, 0);
}

Result<PlanResult> planMerge(
    const PlannerInput& input, const std::string& from, const std::string& into, const PlannerOptions& options)
{
    if (from == into)
        return makeError(ErrorCode::InvalidArgument, "shard " + from + " cannot be merged into itself");
    if (auto status = refuseRollbackCopies(input, { from }, "merge", from); !status)
        return status.error();
    planning::Fleet fleet(input, options, {});
    for (const std::string& id : { from, into }) {
        if (auto status = requireShard(fleet, id); !status)
            return status.error();
    }
    if (fleet.bins()[fleet.binOf(from)].record.state == ShardState::Retired)
        return makeError(ErrorCode::FailedPrecondition, "shard " + from + " is retired; there is nothing to merge");
    if (auto status = markAllLeaving(fleet, { from }, { PlanNoteKind::Merge, { from, into } }); !status)
        return status.error();
    fleet.settle({ from });
    fleet.letReceive(fleet.binOf(into));
    if (!fleet.bins()[fleet.binOf(into)].receives)
        return makeError(ErrorCode::FailedPrecondition,
            "shard " + into
                + " cannot receive spaces (not active, excluded, dedicated, or its node did not report its disk)");
    const bool balancedBefore = fleet.fleetBalanced();
    const std::uint64_t bound = bytesLeaving(fleet);
    if (auto status = planning::evacuate(fleet, { fleet.binOf(into) }, true); !status)
        return status.error();
    return fleet.result("merge", from, into, {}, balancedBefore, bound);
}

Result<PlanResult> planMergeBelow(const PlannerInput& input, std::uint64_t limitBytes, const PlannerOptions& options)
{
    std::map<std::string, double> bytes;
    for (const PlannerShard& shard : input.shards)
        bytes[shard.record.id] = 0;
    for (const PlannerSpace& space : input.spaces)
        bytes[space.shard] += space.load.bytes;
    std::set<std::string> live;
    for (const PlannerNode& node : input.nodes) {
        if (!node.retired && node.diskFreeBytes)
            live.insert(node.id);
    }
    std::vector<std::pair<double, std::string>> small;
    for (const PlannerShard& shard : input.shards) {
        const double held = bytes[shard.record.id];
        if (shard.record.state == ShardState::Active && live.contains(shard.record.node)
            && !options.excludedShards.contains(shard.record.id) && held < static_cast<double>(limitBytes))
            small.emplace_back(held, shard.record.id);
    }
    std::sort(small.begin(), small.end());
    if (small.size() < 2)
        return makeError(ErrorCode::FailedPrecondition,
            std::to_string(small.size()) + " shard(s) hold less than " + std::to_string(limitBytes)
                + " bytes; a merge needs two");
    // The smallest into the fullest small shard that still stays under the limit with it.
    std::string lastError;
    for (const auto& [fromBytes, from] : small) {
        for (auto into = small.rbegin(); into != small.rend(); ++into) {
            if (into->second == from || fromBytes + into->first >= static_cast<double>(limitBytes))
                continue;
            auto plan = planMerge(input, from, into->second, options);
            if (!plan) {
                lastError = plan.error().message;
                continue;
            }
            if (small.size() > 2) {
                const PlanNote more { PlanNoteKind::MoreSmallShards, { std::to_string(small.size() - 2) } };
                plan->warnings.push_back(describe(more));
                plan->warningNotes.push_back(more);
            }
            return plan;
        }
    }
    return makeError(ErrorCode::FailedPrecondition,
        "no two shards below the limit fit together under it" + (lastError.empty() ? "" : ": " + lastError));
}

Result<PlanResult> planIsolate(
    const PlannerInput& input, const std::string& space, const ShardRecord& newShard, const PlannerOptions& options)
{
    if (std::none_of(input.spaces.begin(), input.spaces.end(), [&](const PlannerSpace& s) { return s.id == space; }))
        return makeError(ErrorCode::NotFound, "no space " + space + " in the shard map");
    if (auto status = checkNewShard(input, newShard); !status)
        return status.error();
    planning::Fleet fleet(input, options, { newShard });
    const std::size_t item = fleet.itemOf(space);
    if (item == planning::kNone)
        return makeError(ErrorCode::NotFound, "no space " + space + " in the shard map");
    const PlannerSpace& record = *fleet.items()[item].space;
    if (record.migrating)
        return refuseHeld({ &record }).error();
    if (!record.pin.empty())
        return makeError(ErrorCode::FailedPrecondition,
            "space " + space + " is pinned to shard " + record.pin + "; unpin it before isolating it");
    fleet.settle({});
    const bool balancedBefore = fleet.fleetBalanced();
    const std::size_t target = fleet.binOf(newShard.id);
    if (std::string refused = fleet.refusal(item, target); !refused.empty())
        return makeError(ErrorCode::FailedPrecondition, "cannot isolate " + space + ": " + refused);
    fleet.move(item, target, { PlanNoteKind::Isolate, { space, newShard.id } });
    return fleet.result("isolate", space, newShard.id, { newShard }, balancedBefore, 0);
}

MovesEstimate estimateMoves(
    const PlannerInput& input, const std::vector<PlannedMove>& moves, const PlannerOptions& options)
{
    planning::Fleet fleet(input, options, {});
    for (const PlannedMove& move : moves) {
        const std::size_t item = fleet.itemOf(move.space);
        const std::size_t bin = fleet.binOf(move.to);
        if (item != planning::kNone && bin != planning::kNone && fleet.items()[item].bin != bin)
            fleet.move(item, bin, { PlanNoteKind::Text, { move.reason } });
    }
    MovesEstimate estimate;
    estimate.seconds = fleet.estimatedSeconds();
    estimate.docsPerSecondPerMigration = fleet.rate().docsPerSecond;
    estimate.rateSource = fleet.rate().source;
    estimate.rateBasis = fleet.rate().basis;
    return estimate;
}

} // namespace shardmap::core
