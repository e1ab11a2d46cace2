#pragma once

// The planner's scenarios by name, as the console's wizards and `shardmapctl plan` ask for them:
// one place that turns "drain s3", "split s7 into s7b on n2" or "add s9@n4" into a planner call,
// with the defaults both front ends share (a new shard goes to its source's node unless one is
// named; add-shard takes existing empty shards by id and new ones as ID@NODE).

#include "core/plan/planner.h"
#include "core/util/result.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardmap::core {

enum class Scenario { Rebalance, AddShards, Drain, RetireNode, Split, Merge, Isolate, Reindex };

// "rebalance", "add-shard", "drain", "retire-node", "split", "merge", "isolate".
const char* scenarioName(Scenario scenario);
std::optional<Scenario> parseScenario(std::string_view name);

struct ScenarioRequest {
    Scenario scenario = Scenario::Rebalance;
    // The shard (drain, split, merge's source), node (retire-node) or space (isolate) acted on;
    // add-shard: the shards to fill, SHARD or SHARD@NODE each.
    std::vector<std::string> subjects;
    // merge: the shard that receives; without one, belowBytes picks both shards (seed 002's rule).
    std::string into;
    std::uint64_t belowBytes = 0;
    // split, isolate: the shard to create and its node (empty: the source's node).
    std::string newShard;
    std::string node;
    // reindex (issue 31): the template to build with (NAME or NAME:VERSION, the newest when no
    // version), and which shards: the subjects, or those built with fromTemplate (NAME: any of its
    // versions), or with all every shard not retired. Shards built with the target already are left.
    std::string toTemplate = {};
    std::string fromTemplate = {};
    bool all = false;
};

// Plans the scenario on the input. InvalidArgument when a parameter the scenario needs is
// missing; otherwise what the planner says.
Result<PlanResult> planScenario(
    const PlannerInput& input, const ScenarioRequest& request, const PlannerOptions& options);

// The reindex scenario (planner_reindex.cpp): resolves the request's target template and shards
// and names each new shard SOURCE-NAME-vVERSION (a number added when that id is taken), built with
// the source's engine, capacity and replication, then planReindex.
Result<PlanResult> planReindexScenario(
    const PlannerInput& input, const ScenarioRequest& request, const PlannerOptions& options);

} // namespace shardmap::core
