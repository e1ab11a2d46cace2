// shardmapctl simulate: the what-if simulator (core/plan/simulator.h) on the fleet as the planner
// sees it. Every placement strategy side by side on the administrator's own spaces, optionally
// grown: how even the shards would be, and how much data each would move when shards are added
// or removed (seed 000's case for dynamic lookup, in numbers). It reads the map and the nodes'
// metrics and writes nothing.
#include "app/ctl/admin.h"
#include "app/ctl/command_line.h"
#include "app/ctl/output.h"
#include "core/plan/simulator.h"
#include "core/util/units.h"

#include <CLI/CLI.hpp>
#include <cmath>
#include <ostream>

namespace shardmap::app {

using nlohmann::json;

namespace {

struct SimulateArgs {
    core::SimulationOptions options;
    std::string boundedBy = "bytes";
};

json spreadJson(const core::FillSpread& spread)
{
    return { { "mean", spread.mean }, { "max", spread.max }, { "max_over_mean", spread.maxOverMean },
        { "stddev_over_mean", spread.stddevOverMean } };
}

json movedJson(const core::DataMoved& moved)
{
    return { { "known", moved.known }, { "bytes", moved.bytes }, { "docs", moved.docs }, { "spaces", moved.spaces },
        { "share_of_bytes", moved.shareOfBytes } };
}

json outcomeJson(const core::StrategyOutcome& outcome)
{
    json shards = json::array();
    for (const auto& shard : outcome.shards) {
        json entry = loadFiguresJson(shard.load);
        entry["shard"] = shard.shard;
        entry["spaces"] = shard.spaces;
        shards.push_back(std::move(entry));
    }
    return { { "name", outcome.name }, { "dynamic_lookup", outcome.dynamicLookup },
        { "explanation", core::simulatedStrategyExplanation(outcome.strategy) }, { "bytes", spreadJson(outcome.bytes) },
        { "docs", spreadJson(outcome.docs) }, { "queries", spreadJson(outcome.queries) },
        { "hottest_shard", outcome.hottestShard }, { "moved_from_current", movedJson(outcome.fromCurrent) },
        { "moved_on_add", movedJson(outcome.onAdd) }, { "moved_on_remove", movedJson(outcome.onRemove) },
        { "overflow", outcome.overflow }, { "notes", outcome.notes }, { "shards", shards } };
}

json resultJson(const core::SimulationResult& result, const SimulateArgs& args)
{
    const core::SimulationOptions& options = args.options;
    json strategies = json::array();
    for (const auto& outcome : result.strategies)
        strategies.push_back(outcomeJson(outcome));
    return { { "options",
                 { { "grow_all", options.growth.allFactor }, { "grow_top", options.growth.topN },
                     { "top_factor", options.growth.topFactor }, { "new_spaces", options.growth.newSpaces },
                     { "seed", options.growth.seed }, { "add_shards", options.addShards },
                     { "remove_shards", options.removeShards }, { "epsilon", options.boundedLoadEpsilon },
                     { "bounded_by", args.boundedBy } } },
        { "spaces", result.spaces }, { "new_spaces", result.newSpaces }, { "total", loadFiguresJson(result.total) },
        { "shards", result.shards }, { "added_shards", result.addedShards }, { "removed_shards", result.removedShards },
        { "excluded_spaces", result.excludedSpaces }, { "excluded_bytes", result.excludedBytes },
        { "excluded_shards", result.excludedShards }, { "minimum_moved_on_add", result.minimumMovedOnAdd },
        { "strategies", strategies } };
}

std::string bytesText(double bytes)
{
    return core::formatBytes(static_cast<std::uint64_t>(std::llround(std::max(0.0, bytes))));
}

std::string movedText(const core::DataMoved& moved, bool asked)
{
    if (!asked)
        return "-";
    if (!moved.known)
        return "n/a";
    return bytesText(moved.bytes) + " (" + fixed(100 * moved.shareOfBytes, 1) + "%)";
}

void printHeader(std::ostream& out, const core::SimulationResult& result)
{
    out << result.spaces << " space(s)";
    if (result.newSpaces > 0)
        out << " (" << result.newSpaces << " new)";
    out << ", " << bytesText(result.total.bytes) << " on " << result.shards.size() << " shard(s) taking part";
    if (!result.addedShards.empty())
        out << "; adding " << result.addedShards.size() << " empty shard(s) moves at least "
            << bytesText(result.minimumMovedOnAdd) << " for an even share";
    out << "\n";
    if (!result.excludedShards.empty())
        out << "left out: " << result.excludedSpaces << " space(s), " << bytesText(result.excludedBytes)
            << ", on shard(s) not active or on a retired node (" << result.excludedShards.size() << ")\n";
    out << "\n";
}

void printResult(std::ostream& out, const core::SimulationResult& result, const core::SimulationOptions& options)
{
    printHeader(out, result);
    const std::string add = "MOVED +" + std::to_string(options.addShards);
    const std::string remove = "MOVED -" + std::to_string(options.removeShards);
    Table table({ "STRATEGY", "MAX/MEAN BYTES", "STDDEV/MEAN", "HOTTEST Q/S x MEAN", add, remove });
    for (const auto& outcome : result.strategies) {
        const std::string hottest = outcome.hottestShard.empty()
            ? "-"
            : fixed(outcome.queries.maxOverMean, 2) + "x (" + outcome.hottestShard + ")";
        table.addRow({ outcome.name, fixed(outcome.bytes.maxOverMean, 2), fixed(outcome.bytes.stddevOverMean, 3),
            hottest, movedText(outcome.onAdd, options.addShards > 0),
            movedText(outcome.onRemove, options.removeShards > 0) });
    }
    table.print(out);
    out << "\n";
    for (const auto& outcome : result.strategies)
        out << outcome.name << ": " << core::simulatedStrategyExplanation(outcome.strategy) << "\n";
    for (const auto& outcome : result.strategies) {
        for (const auto& note : outcome.notes)
            out << "note (" << outcome.name << "): " << note << "\n";
    }
}

CommandResult cmdSimulate(const CtlOptions& options, SimulateArgs args)
{
    args.options.boundedLoadMeasure
        = args.boundedBy == "spaces" ? core::BoundedLoadMeasure::Spaces : core::BoundedLoadMeasure::Bytes;
    auto input = readPlannerInput(options);
    if (!input)
        return input.error();
    auto result = core::simulate(*input, args.options);
    if (!result)
        return result.error();
    const core::SimulationOptions simulated = args.options;
    return CommandOutput { resultJson(*result, args),
        [shown = std::move(*result), simulated](std::ostream& out) { printResult(out, shown, simulated); } };
}

} // namespace

void addSimulateCommand(CLI::App& app, const CtlOptions& options, CommandResult& result)
{
    static SimulateArgs args;
    core::Growth& growth = args.options.growth;
    auto* command = app.add_subcommand(
        "simulate", "Compare placement strategies on the fleet's spaces: balance and data moved when shards change");
    command->add_option("--grow-all", growth.allFactor, "Every space grows this many times")
        ->check(CLI::NonNegativeNumber);
    auto* top = command->add_option("--grow-top", growth.topN, "The N largest spaces grow --top-factor times more");
    command->add_option("--top-factor", growth.topFactor, "Growth of the --grow-top spaces")
        ->check(CLI::NonNegativeNumber)
        ->needs(top);
    command->add_option("--new-spaces", growth.newSpaces, "Add M spaces drawn from the observed sizes");
    command->add_option("--seed", growth.seed, "Seed of the draw of new spaces")->capture_default_str();
    command->add_option("--add-shards", args.options.addShards, "Empty shards to add")
        ->capture_default_str()
        ->check(CLI::Range(0, 1000));
    command->add_option("--remove-shards", args.options.removeShards, "Shards to remove (the last by id)")
        ->capture_default_str()
        ->check(CLI::Range(0, 1000));
    command->add_option("--epsilon", args.options.boundedLoadEpsilon, "Bounded-load slack over the mean")
        ->capture_default_str()
        ->check(CLI::Range(0.01, 10.0));
    command->add_option("--bounded-by", args.boundedBy, "What bounded-load caps per shard")
        ->capture_default_str()
        ->check(CLI::IsMember({ "bytes", "spaces" }));
    command->callback(runInto(result)([&options] { return cmdSimulate(options, args); }));
}

} // namespace shardmap::app
