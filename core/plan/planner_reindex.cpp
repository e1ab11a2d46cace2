// The planner's reindex (issue 31): every space of each source shard into a new shard built with
// another index template, the new shard on its source's node when that node has room for a second
// copy of the source's documents, else on the node with the most room that has it.
#include "core/map/index_templates.h"
#include "core/plan/planner.h"
#include "core/plan/planner_model.h"
#include "core/plan/scenario.h"
#include "core/plan/space_holds.h"
#include "core/util/units.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace shardmap::core {

namespace {

// Bytes each shard's spaces hold, as the planner measured them.
std::map<std::string, std::uint64_t> reindexBytes(const PlannerInput& input)
{
    std::map<std::string, double> sums;
    for (const PlannerSpace& space : input.spaces)
        sums[space.shard] += space.load.bytes;
    std::map<std::string, std::uint64_t> out;
    for (const auto& [shard, bytes] : sums)
        out[shard] = static_cast<std::uint64_t>(std::llround(bytes));
    return out;
}

// The node each new shard is built on: its source's when it has room (free disk less what earlier
// shards of this plan take there), else the one with the most room left; none: why, with numbers.
Result<std::string> reindexNode(const PlannerInput& input, const ShardRecord& source, std::uint64_t bytes,
    std::map<std::string, std::uint64_t>& reserved)
{
    const auto roomOn = [&](const PlannerNode& node) -> std::optional<std::uint64_t> {
        if (node.retired || !node.diskFreeBytes)
            return std::nullopt;
        const std::uint64_t taken = reserved[node.id];
        return *node.diskFreeBytes > taken ? *node.diskFreeBytes - taken : 0;
    };
    std::string best;
    std::uint64_t bestRoom = 0;
    std::string numbers;
    for (const PlannerNode& node : input.nodes) {
        const auto room = roomOn(node);
        numbers += (numbers.empty() ? "" : ", ") + node.id + " "
            + (room ? formatBytes(*room) + " free" : std::string(node.retired ? "retired" : "did not report its disk"));
        if (!room || *room < bytes)
            continue;
        if (node.id == source.node)
            return (reserved[node.id] += bytes, node.id);
        if (best.empty() || *room > bestRoom) {
            best = node.id;
            bestRoom = *room;
        }
    }
    if (best.empty())
        return makeError(ErrorCode::FailedPrecondition,
            "no node has room to rebuild shard " + source.id + " (" + formatBytes(bytes)
                + " of documents, held twice until the old shard is dropped): " + numbers);
    reserved[best] += bytes;
    return best;
}

// The new shards with their nodes (reindexNode), each source checked.
Result<std::vector<ShardRecord>> placeReindexed(
    const PlannerInput& input, const std::vector<std::string>& sources, const std::vector<ShardRecord>& newShards)
{
    const auto bytes = reindexBytes(input);
    std::map<std::string, std::uint64_t> reserved;
    std::vector<ShardRecord> placed = newShards;
    for (std::size_t i = 0; i < sources.size(); ++i) {
        const auto found = std::find_if(
            input.shards.begin(), input.shards.end(), [&](const PlannerShard& s) { return s.record.id == sources[i]; });
        if (found == input.shards.end())
            return makeError(ErrorCode::NotFound, "no shard " + sources[i] + " in the shard map");
        if (found->record.state == ShardState::Retired)
            return makeError(
                ErrorCode::FailedPrecondition, "shard " + sources[i] + " is retired; there is nothing to reindex");
        auto node = reindexNode(input, found->record, bytes.contains(sources[i]) ? bytes.at(sources[i]) : 0, reserved);
        if (!node)
            return node.error();
        placed[i].node = *node;
    }
    return placed;
}

Result<IndexTemplateRecord> reindexTarget(const PlannerInput& input, const std::string& text)
{
    if (text.empty())
        return makeError(ErrorCode::InvalidArgument, "reindex needs the template to build with (NAME or NAME:VERSION)");
    auto ref = parseTemplateRef(text);
    if (!ref)
        return ref.error();
    MapSnapshot map;
    for (const IndexTemplateRecord& record : input.templates)
        map.templates.emplace(
            record.name + "/" + std::to_string(record.version), Versioned<IndexTemplateRecord> { record, 0 });
    return findTemplate(map, *ref);
}

// Which shards a reindex rebuilds: those named, built with a template, or all, less the retired
// and those built with the target already.
Result<std::vector<const PlannerShard*>> reindexSources(
    const PlannerInput& input, const ScenarioRequest& request, const IndexTemplateRecord& target)
{
    const int ways
        = (request.subjects.empty() ? 0 : 1) + (request.fromTemplate.empty() ? 0 : 1) + (request.all ? 1 : 0);
    if (ways != 1)
        return makeError(ErrorCode::InvalidArgument, "name the shards to reindex one way: shards, a template, or all");
    std::optional<TemplateRef> from;
    if (!request.fromTemplate.empty()) {
        auto parsed = parseTemplateRef(request.fromTemplate);
        if (!parsed)
            return parsed.error();
        from = *parsed;
    }
    for (const std::string& id : request.subjects) {
        if (std::none_of(
                input.shards.begin(), input.shards.end(), [&](const PlannerShard& s) { return s.record.id == id; }))
            return makeError(ErrorCode::NotFound, "no shard " + id + " in the shard map");
    }
    std::vector<const PlannerShard*> out;
    for (const PlannerShard& shard : input.shards) {
        const TemplateRef built = templateOf(shard.record);
        const bool chosen = request.all
            || std::find(request.subjects.begin(), request.subjects.end(), shard.record.id) != request.subjects.end()
            || (from && built.name == from->name && (from->version == 0 || built.version == from->version));
        if (chosen && shard.record.state != ShardState::Retired
            && !(built.name == target.name && built.version == target.version))
            out.push_back(&shard);
    }
    if (out.empty())
        return makeError(ErrorCode::FailedPrecondition,
            "nothing to reindex: every shard chosen is retired or built with "
                + templateLabel(target.name, target.version) + " already");
    return out;
}

} // namespace

Result<PlanResult> planReindexScenario(
    const PlannerInput& input, const ScenarioRequest& request, const PlannerOptions& options)
{
    auto target = reindexTarget(input, request.toTemplate);
    if (!target)
        return target.error();
    auto sources = reindexSources(input, request, *target);
    if (!sources)
        return sources.error();
    std::set<std::string> taken;
    for (const PlannerShard& shard : input.shards)
        taken.insert(shard.record.id);
    std::vector<std::string> ids;
    std::vector<ShardRecord> created;
    for (const PlannerShard* source : *sources) {
        const std::string suffix = "-" + target->name + "-v" + std::to_string(target->version);
        std::string id = source->record.id.substr(0, 64 - std::min<std::size_t>(suffix.size() + 4, 60)) + suffix;
        for (int n = 2; taken.contains(id); ++n)
            id = source->record.id.substr(0, 64 - std::min<std::size_t>(suffix.size() + 4, 60)) + suffix + "-"
                + std::to_string(n);
        taken.insert(id);
        ShardRecord record { id, source->record.node, ShardState::Active, source->record.capacityDocs,
            source->record.capacityBytes, source->record.engine };
        record.replicationFactor = source->record.replicationFactor;
        record.allowSameZone = source->record.allowSameZone;
        record.templateName = target->name;
        record.templateVersion = target->version;
        ids.push_back(source->record.id);
        created.push_back(std::move(record));
    }
    return planReindex(input, ids, created, templateLabel(target->name, target->version), options);
}

Result<PlanResult> planReindex(const PlannerInput& input, const std::vector<std::string>& sources,
    const std::vector<ShardRecord>& newShards, const std::string& templateLabel, const PlannerOptions& options)
{
    if (sources.empty() || sources.size() != newShards.size())
        return makeError(ErrorCode::InvalidArgument, "a reindex names its shards and one new shard for each");
    auto placing = placeReindexed(input, sources, newShards);
    if (!placing)
        return placing.error();
    const std::vector<ShardRecord>& placed = *placing;
    planning::Fleet fleet(input, options, placed);
    std::vector<const PlannerSpace*> held;
    std::vector<std::pair<std::size_t, std::size_t>> moves;
    for (std::size_t i = 0; i < sources.size(); ++i) {
        const std::size_t target = fleet.binOf(placed[i].id);
        for (std::size_t item : fleet.bins()[fleet.binOf(sources[i])].items) {
            const PlannerSpace& space = *fleet.items()[item].space;
            if (space.migrating)
                held.push_back(&space);
            else if (!space.pin.empty())
                return makeError(ErrorCode::FailedPrecondition,
                    "space " + space.id + " is pinned to shard " + space.pin + "; unpin it before reindexing");
            moves.emplace_back(item, target);
        }
    }
    if (auto status = refuseHeld(held); !status)
        return status.error();
    fleet.settle({});
    const bool balancedBefore = fleet.fleetBalanced();
    for (const auto& [item, target] : moves) {
        const std::string from = fleet.bins()[fleet.items()[item].bin].record.id;
        if (std::string refused = fleet.refusal(item, target); !refused.empty())
            return makeError(ErrorCode::FailedPrecondition, "cannot reindex " + from + ": " + refused);
        fleet.move(item, target, { PlanNoteKind::Reindex, { from, fleet.bins()[target].record.id, templateLabel } });
    }
    std::string subject, into;
    for (std::size_t i = 0; i < sources.size(); ++i) {
        subject += (i ? "," : "") + sources[i];
        into += (i ? "," : "") + placed[i].id;
    }
    return fleet.result("reindex", subject, into, placed, balancedBefore, 0);
}

} // namespace shardmap::core
