// planScenario's implementation: the scenarios' names, what each needs named, add-shard's
// ID and ID@NODE, and a new shard on its source's node unless the request names one.
#include "core/plan/scenario.h"

#include <algorithm>

namespace shardmap::core {

namespace {

constexpr std::pair<Scenario, const char*> kNames[] = {
    { Scenario::Rebalance, "rebalance" },
    { Scenario::AddShards, "add-shard" },
    { Scenario::Drain, "drain" },
    { Scenario::RetireNode, "retire-node" },
    { Scenario::Split, "split" },
    { Scenario::Merge, "merge" },
    { Scenario::Isolate, "isolate" },
    { Scenario::Reindex, "reindex" },
};

const PlannerShard* findShard(const PlannerInput& input, const std::string& id)
{
    const auto found = std::find_if(
        input.shards.begin(), input.shards.end(), [&](const PlannerShard& shard) { return shard.record.id == id; });
    return found == input.shards.end() ? nullptr : &*found;
}

std::string nodeOfShard(const PlannerInput& input, const std::string& shard)
{
    const PlannerShard* found = findShard(input, shard);
    return found ? found->record.node : std::string();
}

std::string nodeOfSpace(const PlannerInput& input, const std::string& space)
{
    for (const PlannerSpace& candidate : input.spaces) {
        if (candidate.id == space)
            return nodeOfShard(input, candidate.migratingFrom.empty() ? candidate.shard : candidate.migratingFrom);
    }
    return {};
}

Result<std::vector<ShardRecord>> shardsToFill(const PlannerInput& input, const std::vector<std::string>& specs)
{
    std::vector<ShardRecord> out;
    for (const std::string& spec : specs) {
        const auto at = spec.find('@');
        const std::string id = spec.substr(0, at);
        if (id.empty())
            return makeError(ErrorCode::InvalidArgument, "\"" + spec + "\" names no shard");
        if (std::any_of(out.begin(), out.end(), [&](const ShardRecord& shard) { return shard.id == id; }))
            return makeError(ErrorCode::InvalidArgument, "shard " + id + " is named twice");
        if (at != std::string::npos) {
            out.push_back({ id, spec.substr(at + 1), ShardState::Active, 0, 0 });
            continue;
        }
        const PlannerShard* existing = findShard(input, id);
        if (!existing)
            return makeError(ErrorCode::NotFound,
                "no shard " + id + " in the shard map; name a new shard as ID@NODE to have the plan create it");
        out.push_back(existing->record);
    }
    return out;
}

Status needs(const ScenarioRequest& request, std::size_t subjects, bool newShard, bool into)
{
    const std::string name = scenarioName(request.scenario);
    if (request.subjects.size() < subjects)
        return makeError(ErrorCode::InvalidArgument, name + " needs what it acts on");
    if (newShard && request.newShard.empty())
        return makeError(ErrorCode::InvalidArgument, name + " needs the id of the shard to create");
    if (into && request.into.empty())
        return makeError(ErrorCode::InvalidArgument, name + " needs the shard that receives");
    return {};
}

} // namespace

const char* scenarioName(Scenario scenario)
{
    for (const auto& [value, name] : kNames) {
        if (value == scenario)
            return name;
    }
    return "?";
}

std::optional<Scenario> parseScenario(std::string_view name)
{
    for (const auto& [value, text] : kNames) {
        if (name == text)
            return value;
    }
    return std::nullopt;
}

Result<PlanResult> planScenario(
    const PlannerInput& input, const ScenarioRequest& request, const PlannerOptions& options)
{
    const auto created = [&](const std::string& defaultNode) {
        return ShardRecord { request.newShard, request.node.empty() ? defaultNode : request.node, ShardState::Active, 0,
            0 };
    };
    switch (request.scenario) {
    case Scenario::Rebalance: return planRebalance(input, options);
    case Scenario::AddShards: {
        if (auto status = needs(request, 1, false, false); !status)
            return status.error();
        auto shards = shardsToFill(input, request.subjects);
        if (!shards)
            return shards.error();
        return planAddShards(input, *shards, options);
    }
    case Scenario::Drain:
        if (auto status = needs(request, 1, false, false); !status)
            return status.error();
        return planDrain(input, request.subjects[0], options);
    case Scenario::RetireNode:
        if (auto status = needs(request, 1, false, false); !status)
            return status.error();
        return planRetireNode(input, request.subjects[0], options);
    case Scenario::Split:
        if (auto status = needs(request, 1, true, false); !status)
            return status.error();
        return planSplit(input, request.subjects[0], created(nodeOfShard(input, request.subjects[0])), options);
    case Scenario::Merge:
        if (request.into.empty() && request.subjects.empty() && request.belowBytes > 0)
            return planMergeBelow(input, request.belowBytes, options);
        if (auto status = needs(request, 1, false, true); !status)
            return status.error();
        return planMerge(input, request.subjects[0], request.into, options);
    case Scenario::Isolate:
        if (auto status = needs(request, 1, true, false); !status)
            return status.error();
        return planIsolate(input, request.subjects[0], created(nodeOfSpace(input, request.subjects[0])), options);
    case Scenario::Reindex: return planReindexScenario(input, request, options);
    }
    return makeError(ErrorCode::InvalidArgument, "unknown scenario");
}

} // namespace shardmap::core
