// shardmapctl plan: the rebalance planner's scenarios from a shell. Every scenario prints the
// plan (moves with their reasons, shards before and after, the summary and warnings) and queues
// nothing unless --apply is given; -o writes the plan file that `plan apply` queues later,
// checked against the map as the console's plan mode checks its drafts.
#include "app/ctl/admin.h"
#include "app/ctl/command_line.h"
#include "app/ctl/migration_view.h"
#include "app/ctl/output.h"
#include "core/plan/scenario.h"
#include "core/util/units.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <fstream>
#include <ostream>
#include <sstream>

namespace shardmap::app {

using core::ErrorCode;
using nlohmann::json;

namespace {

json resultJson(const core::PlanResult& result)
{
    json shards = json::array();
    for (const auto& shard : result.shards)
        shards.push_back({ { "shard", shard.shard }, { "node", shard.node },
            { "state", core::shardStateName(shard.state) }, { "new", shard.isNew },
            { "capacity_docs", shard.capacityDocs }, { "capacity_bytes", shard.capacityBytes },
            { "before", loadFiguresJson(shard.before) }, { "after", loadFiguresJson(shard.after) },
            { "spaces_before", shard.spacesBefore }, { "spaces_after", shard.spacesAfter } });
    json nodes = json::array();
    for (const auto& node : result.nodes) {
        json entry
            = { { "node", node.node }, { "bytes_before", node.bytesBefore }, { "bytes_after", node.bytesAfter } };
        if (node.diskFreeBefore)
            entry["disk_free_before"] = *node.diskFreeBefore;
        if (node.diskFreeAfter)
            entry["disk_free_after"] = *node.diskFreeAfter;
        nodes.push_back(std::move(entry));
    }
    json objectives = json::array();
    for (const auto& spread : result.summary.objectives)
        objectives.push_back({ { "objective", core::objectiveName(spread.objective) }, { "mean", spread.mean },
            { "max_over_mean_before", spread.maxOverMeanBefore }, { "max_over_mean_after", spread.maxOverMeanAfter },
            { "stddev_before", spread.stddevBefore }, { "stddev_after", spread.stddevAfter } });
    const auto& summary = result.summary;
    return { { "plan", json::parse(result.plan.encode()) }, { "shards", shards }, { "nodes", nodes },
        { "summary",
            { { "moves", summary.moves }, { "bytes_moved", summary.bytesMoved }, { "docs_moved", summary.docsMoved },
                { "lower_bound_bytes", summary.lowerBoundBytes }, { "estimated_seconds", summary.estimatedSeconds },
                { "docs_per_second_per_migration", summary.docsPerSecondPerMigration },
                { "rate_source", summary.rateSource }, { "rate_basis", summary.rateBasis },
                { "balanced_before", summary.balancedBefore }, { "balanced_after", summary.balancedAfter },
                { "objectives", objectives } } },
        { "warnings", result.warnings } };
}

std::string duration(double seconds)
{
    const auto total = static_cast<std::int64_t>(seconds + 0.5);
    std::ostringstream out;
    if (total >= 3600)
        out << total / 3600 << " h " << (total % 3600) / 60 << " min";
    else if (total >= 60)
        out << total / 60 << " min " << total % 60 << " s";
    else
        out << total << " s";
    return out.str();
}

void printResult(std::ostream& out, const core::PlanResult& result)
{
    const auto& summary = result.summary;
    if (result.plan.moves.empty()) {
        out << (summary.balancedBefore ? "the fleet is within the band; nothing to move\n" : "nothing to move\n");
    } else {
        Table moves({ "SPACE", "FROM", "TO", "DOCS", "BYTES", "REASON" });
        for (const auto& move : result.plan.moves)
            moves.addRow({ move.space, move.from, move.to, std::to_string(move.docs), core::formatBytes(move.bytes),
                move.reason });
        moves.print(out);
        out << "\n";
    }
    Table shards({ "SHARD", "NODE", "STATE", "SPACES", "BYTES BEFORE", "BYTES AFTER", "DOCS BEFORE", "DOCS AFTER" });
    for (const auto& shard : result.shards) {
        if (shard.before == shard.after && !shard.isNew && result.shards.size() > 40)
            continue;
        shards.addRow({ shard.shard + (shard.isNew ? " (new)" : ""), shard.node, core::shardStateName(shard.state),
            std::to_string(shard.spacesBefore) + " -> " + std::to_string(shard.spacesAfter),
            core::formatBytes(static_cast<std::uint64_t>(shard.before.bytes)),
            core::formatBytes(static_cast<std::uint64_t>(shard.after.bytes)),
            std::to_string(static_cast<std::uint64_t>(shard.before.docs)),
            std::to_string(static_cast<std::uint64_t>(shard.after.docs)) });
    }
    shards.print(out);
    out << "\n";
    for (const auto& spread : summary.objectives) {
        if (spread.mean <= 0)
            continue;
        out << core::objectiveName(spread.objective) << ": max/mean " << fixed(spread.maxOverMeanBefore, 2) << " -> "
            << fixed(spread.maxOverMeanAfter, 2) << ", stddev/mean " << fixed(spread.stddevBefore, 3) << " -> "
            << fixed(spread.stddevAfter, 3) << "\n";
    }
    out << summary.moves << " move(s), " << core::formatBytes(summary.bytesMoved) << " and " << summary.docsMoved
        << " docs to copy";
    if (summary.lowerBoundBytes > 0)
        out << " (at least " << core::formatBytes(summary.lowerBoundBytes) << " must move)";
    out << "; about " << duration(summary.estimatedSeconds) << " at " << fixed(summary.docsPerSecondPerMigration, 0)
        << " docs/s per migration (" << summary.rateBasis << ")\n";
    for (const auto& warning : result.warnings)
        out << "warning: " << warning << "\n";
}

core::Status writePlan(const std::string& path, const core::Plan& plan)
{
    std::ofstream file(path, std::ios::trunc);
    if (!file)
        return core::makeError(ErrorCode::InvalidArgument, "cannot write the plan to " + path);
    file << plan.encode() << "\n";
    file.close();
    if (!file)
        return core::makeError(ErrorCode::Internal, "writing the plan to " + path + " failed (disk full?)");
    return {};
}

CommandResult applyAndReport(core::MigrationRequests& requests, const core::Plan& plan, const core::Actor& actor,
    json printed, std::function<void(std::ostream&)> before)
{
    auto op = requests.applyPlan(plan, actor);
    if (!op)
        return op.error();
    printed["operation"] = operationJson(*op);
    const std::string line = "queued operation " + op->id + " (" + core::operationKindName(op->kind)
        + "): " + std::to_string(op->migrations.size()) + " migration(s)";
    return CommandOutput { printed, [before, line](std::ostream& out) {
                              if (before)
                                  before(out);
                              out << line << "\n";
                          } };
}

} // namespace

namespace {

core::ScenarioRequest scenarioRequest(core::Scenario scenario, const PlanArgs& args)
{
    core::ScenarioRequest request;
    request.scenario = scenario;
    request.subjects = args.subjects;
    request.into = args.into;
    request.belowBytes = args.belowBytes;
    request.newShard = args.newShard;
    request.node = args.node;
    request.toTemplate = args.toTemplate;
    request.fromTemplate = args.fromTemplate;
    request.all = args.all;
    return request;
}

CommandResult planWith(core::MigrationRequests& requests, const CtlOptions& options, const PlanArgs& args)
{
    auto input = requests.plannerInput();
    if (!input)
        return input.error();
    core::PlannerOptions planner;
    planner.band = args.band;
    planner.maxMoves = args.maxMoves;
    planner.maxBytes = args.maxBytes;
    planner.maxHours = args.maxHours;
    planner.excludedShards = { args.exclude.begin(), args.exclude.end() };
    planner.shardBytesLimit = args.sizeLimit;
    const auto scenario = core::parseScenario(args.scenario);
    if (!scenario)
        return core::makeError(ErrorCode::InvalidArgument, "unknown scenario " + args.scenario);
    auto result = core::planScenario(*input, scenarioRequest(*scenario, args), planner);
    if (!result)
        return result.error();
    result->plan.createdBy = options.actor.name;
    result->plan.createdUnixMs
        = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
              .count();
    result->plan.reason = options.actor.reason;
    if (!args.output.empty()) {
        if (auto status = writePlan(args.output, result->plan); !status)
            return status.error();
    }
    json printed = resultJson(*result);
    const core::PlanResult shown = *result;
    const auto human = [shown, output = args.output](std::ostream& out) {
        printResult(out, shown);
        if (!output.empty())
            out << "plan written to " << output << "\n";
    };
    if (!args.apply)
        return CommandOutput { printed, human };
    if (result->plan.moves.empty() && result->plan.kind == "move")
        return CommandOutput { printed, human };
    if (viaController(options))
        return changeViaController(options, changes::applyPlan(result->plan.encode()));
    return applyAndReport(requests, result->plan, options.actor, printed, human);
}

} // namespace

CommandResult cmdPlan(const CtlOptions& options, const PlanArgs& args)
{
    return withAdmin(options, [&](core::FleetAdmin& admin) { return planWith(admin.migrations(), options, args); });
}

CommandResult cmdPlanApply(const CtlOptions& options, const std::string& file)
{
    std::ifstream in(file);
    if (!in)
        return core::makeError(ErrorCode::NotFound, "cannot read the plan file " + file);
    std::stringstream text;
    text << in.rdbuf();
    auto plan = core::Plan::decode(text.str());
    if (!plan)
        return core::makeError(plan.error().code, file + ": " + plan.error().message);
    core::Actor actor = options.actor;
    if (actor.reason.empty())
        actor.reason = plan->reason;
    return withAdmin(options,
        [&](core::FleetAdmin& admin) { return applyAndReport(admin.migrations(), *plan, actor, json::object(), {}); });
}

namespace {

// The output and the limits every scenario takes.
void addPlanOptions(CLI::App* command, PlanArgs& args)
{
    command->add_option("-o,--output", args.output, "Write the plan to FILE (for `plan apply`)");
    command->add_flag("--apply", args.apply, "Queue the plan now as one operation");
    command->add_option("--max-moves", args.maxMoves, "At most this many moves (0: no limit)");
    command->add_option("--max-bytes", args.maxBytes, "At most this many bytes moved (0: no limit)");
    command->add_option("--max-hours", args.maxHours, "At most this many estimated hours (0: no limit)");
    command->add_option("--exclude", args.exclude, "Shard that neither gives nor receives (repeatable)");
    command->add_option("--band", args.band, "Balanced within this share of the mean")
        ->capture_default_str()
        ->check(CLI::Range(0.01, 1.0));
}

// reindex's selection and target (issue 31), the same for `plan reindex` and `reindex`.
void addReindexOptions(CLI::App* command, PlanArgs& args)
{
    auto* shards = command->add_option("--shard", args.subjects, "A shard to rebuild (repeatable)");
    auto* from = command->add_option("--template", args.fromTemplate, "Rebuild the shards built with this template");
    auto* all = command->add_flag("--all", args.all, "Rebuild every shard not built with the target already");
    shards->excludes(from)->excludes(all);
    from->excludes(all);
    command->add_option("--to-template", args.toTemplate, "The template to build with: NAME or NAME:VERSION")
        ->required();
}

// plan SCENARIO: a subcommand per scenario, each with its subjects.
void addScenarioCommands(CLI::App* group, const CtlOptions& options, CommandResult& result, PlanArgs& args)
{
    auto run = runInto(result);
    const auto scenario = [&](const char* name, const char* help) {
        auto* command = group->add_subcommand(name, help);
        addPlanOptions(command, args);
        command->callback(run([&, name] {
            args.scenario = name;
            return cmdPlan(options, args);
        }));
        return command;
    };
    scenario("rebalance", "Even the fleet out within the band");
    scenario("add-shard", "Fill shards: existing empty ones by id, new ones as ID@NODE (created when applied)")
        ->add_option("shards", args.subjects, "SHARD or SHARD@NODE")
        ->required();
    scenario("drain", "Move every space off a shard, spread over the others")
        ->add_option("shard", args.subjects, "Shard id")
        ->required()
        ->expected(1);
    scenario("retire-node", "Move every space off a node's shards, spread over other nodes")
        ->add_option("node", args.subjects, "Node id")
        ->required()
        ->expected(1);
    auto* split = scenario("split", "Move about half of a shard's bytes to a new shard, halves balanced");
    split->add_option("shard", args.subjects, "Shard id")->required()->expected(1);
    split->add_option("--new-shard", args.newShard, "Id of the shard to create")->required();
    split->add_option("--node", args.node, "Node for the new shard (default: the shard's node)");
    split->add_option(
        "--limit", args.sizeLimit, "Refuse unless the shard holds more bytes than this (seed 002's S_limit)");
    auto* merge = scenario("merge", "Move every space of a shard into another");
    merge->add_option("from", args.subjects, "Shard that empties (or none, with --below)")->expected(0, 1);
    merge->add_option("--into", args.into, "Shard that receives");
    merge->add_option("--below", args.belowBytes,
        "Without FROM and --into: merge the smallest shard under this many bytes into the fullest other one that "
        "stays under it (seed 002's rule)");
    auto* isolate = scenario("isolate", "Move a space to a new shard of its own, pinned there");
    isolate->add_option("space", args.subjects, "Space id")->required()->expected(1);
    isolate->add_option("--new-shard", args.newShard, "Id of the shard to create")->required();
    isolate->add_option("--node", args.node, "Node for the new shard (default: the space's node)");
    addReindexOptions(scenario("reindex", "Rebuild shards with another index template, live (as `reindex`)"), args);
}

// plan apply FILE: here, or the file's text sent to shardmapd with --controller.
void addPlanApplyCommand(CLI::App* group, const CtlOptions& options, CommandResult& result)
{
    static std::string file;
    auto* apply = group->add_subcommand("apply", "Queue a plan file; refused when the map moved on under its moves");
    apply->add_option("file", file, "Plan file (from -o or the console)")->required();
    apply->callback(runInto(result)([&] {
        if (!viaController(options))
            return cmdPlanApply(options, file);
        std::ifstream in(file);
        std::stringstream text;
        text << in.rdbuf();
        if (!in)
            return CommandResult(core::makeError(ErrorCode::NotFound, "cannot read the plan file " + file));
        return changeViaController(options, changes::applyPlan(text.str()));
    }));
}

} // namespace

void addPlanCommands(CLI::App& app, const CtlOptions& options, CommandResult& result)
{
    static PlanArgs args;
    auto* group = app.add_subcommand("plan", "Plan moves with the rebalance planner; --apply queues them")
                      ->require_subcommand(1);
    addScenarioCommands(group, options, result, args);
    addPlanApplyCommand(group, options, result);
    auto* reindex = app.add_subcommand("reindex",
        "Rebuild shards with another index template: each gets a new shard its spaces migrate to, live; the plan "
        "is shown, --apply queues it as one operation");
    addPlanOptions(reindex, args);
    addReindexOptions(reindex, args);
    reindex->callback(runInto(result)([&] {
        args.scenario = "reindex";
        return cmdPlan(options, args);
    }));
}

} // namespace shardmap::app
