// shardmapctl: the shard map's operations from a shell. Wires CLI11 subcommands to the command
// functions and prints their output as a table or, with --json, as JSON.
#include "app/common/node_tls_flags.h"
#include "app/ctl/commands.h"
#include "app/ctl/completion.h"
#include "app/ctl/controller.h"
#include "app/ctl/output.h"
#include "app/ctl/usage.h"
#include "core/util/login_name.h"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <string_view>

using namespace shardmap::app;

namespace {

std::string envOr(const char* name, std::string fallback)
{
    const char* value = std::getenv(name);
    return value && *value ? value : fallback;
}

std::map<std::string, std::string> parsePairs(const std::vector<std::string>& pairs)
{
    std::map<std::string, std::string> out;
    for (const auto& pair : pairs) {
        const auto equals = pair.find('=');
        if (equals == std::string::npos || equals == 0)
            throw CLI::ValidationError("'" + pair + "' is not KEY=VALUE");
        out[pair.substr(0, equals)] = pair.substr(equals + 1);
    }
    return out;
}

int report(const CommandResult& result, bool json)
{
    if (!result) {
        const auto& error = result.error();
        if (json)
            std::cout << nlohmann::json {
                { "error", { { "code", shardmap::core::errorCodeName(error.code) }, { "message", error.describe() } } }
            }.dump(2) << "\n";
        std::cerr << "shardmapctl: " << error.describe() << "\n";
        return exitCodeFor(error.code);
    }
    if (result->printed)
        return result->exitCode;
    if (json)
        std::cout << result->json.dump(2) << "\n";
    else if (result->human)
        result->human(std::cout);
    return result->exitCode;
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app {
        "shardmapctl: inspect and change the Shardmap shard map.\n"
        "Exit codes: 0 ok, 2 invalid input, 3 not found, 4 conflict/exists, 5 refused (precondition), "
        "6 unavailable, 7 permission denied or not authenticated, 10 awaiting approval (--controller), 1 other."
    };
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("shardmapctl ") + SHARDMAP_VERSION);
    // --json, --reason and the other global options also after the subcommand.
    app.fallthrough();
    CtlOptions options;
    options.storeUri = envOr("SHARDMAP_STORE", "");
    options.actor.name = shardmap::core::loginName();
    if (options.actor.name.empty())
        options.actor.name = "shardmapctl";
    app.add_option("--store", options.storeUri,
        "Store URI: sqlite:PATH or etcd://HOST:PORT[,HOST:PORT...]/PREFIX[?user=U&password_file=F&ca=F&cert=F&key=F] "
        "(default: $SHARDMAP_STORE)");
    app.add_flag("--json", options.json, "Print JSON for scripts");
    app.add_option(
        "--actor", options.actor.name, "Who is acting, for the audit log (default: $USER, else the login name)");
    app.add_option("--reason", options.actor.reason, "Why, for the audit log");
    // Set as the option is parsed: the command callbacks run inside app.parse().
    app.add_option_function<int>(
           "--timeout-ms", [&options](const int& ms) { options.timeout = std::chrono::milliseconds(ms); },
           "Deadline of each call to a node")
        ->check(CLI::Range(100, 600000));
    addNodeTlsFlags(app, options.nodeClient);
    addControllerFlags(app, options);

    CommandResult result = shardmap::core::makeError(shardmap::core::ErrorCode::Internal, "no command ran");
    auto run = [&](auto command) { return [&, command] { result = command(); }; };
    // A change made here, or sent to shardmapd's Admin API with --controller.
    auto change = [&](auto local, auto remote) {
        return run(
            [&, local, remote] { return viaController(options) ? changeViaController(options, remote()) : local(); });
    };

    app.add_subcommand("init", "Create the store (if missing) and print its revision")->callback(run([&] {
        return cmdInit(options);
    }));

    auto* storeCmd = app.add_subcommand("store", "The store itself")->require_subcommand(1);
    static std::string copyFrom, copyTo;
    auto* storeCopy = storeCmd->add_subcommand(
        "copy", "Copy the whole map with its history into a new, empty store (e.g. SQLite to etcd)");
    storeCopy->add_option("--from", copyFrom, "Store URI to copy from")->required();
    storeCopy->add_option("--to", copyTo, "Store URI to copy into; must be empty")->required();
    storeCopy->callback(run([&] { return cmdStoreCopy(options, copyFrom, copyTo); }));

    auto* node = app.add_subcommand("node", "Nodes of the fleet")->require_subcommand(1);
    static std::string id, address, shard, space, state;
    static std::vector<std::string> labels;
    auto* nodeAdd = node->add_subcommand("add", "Register a shard node");
    nodeAdd->add_option("id", id, "Node id")->required();
    nodeAdd->add_option("address", address, "HOST:PORT of the node")->required();
    nodeAdd->add_option("--label", labels, "KEY=VALUE label (repeatable)");
    nodeAdd->callback(change([&] { return cmdNodeAdd(options, id, address, parsePairs(labels)); },
        [&] { return changes::addNode(id, address, parsePairs(labels)); }));
    auto* nodeRemove = node->add_subcommand("remove", "Remove a node that has no shards");
    nodeRemove->add_option("id", id, "Node id")->required();
    nodeRemove->callback(change([&] { return cmdNodeRemove(options, id); }, [&] { return changes::removeNode(id); }));
    node->add_subcommand("list", "List nodes")->callback(run([&] { return cmdNodeList(options); }));

    auto* shardCmd = app.add_subcommand("shard", "Shards")->require_subcommand(1);
    static ShardCreateArgs create;
    auto* shardCreate = shardCmd->add_subcommand("create", "Create a shard on a node and add it to the map");
    shardCreate->add_option("id", create.id, "Shard id")->required();
    shardCreate->add_option("--node", create.node, "Node that hosts it")->required();
    shardCreate->add_option("--fields", create.fields, "Searchable fields (default: title body tags)")->delimiter(',');
    shardCreate->add_option("--capacity-docs", create.capacityDocs, "Most documents (0: no limit)");
    shardCreate->add_option("--capacity-bytes", create.capacityBytes, "Most bytes (0: no limit)");
    shardCreate->callback(
        change([&] { return cmdShardCreate(options, create); }, [&] { return changes::createShard(create); }));
    shardCmd->add_subcommand("list", "List shards with their state and size")->callback(run([&] {
        return cmdShardList(options);
    }));
    auto* setState = shardCmd->add_subcommand("set-state", "Set a shard's state");
    setState->add_option("id", shard, "Shard id")->required();
    setState->add_option("state", state, "active, draining, readonly or retired")->required();
    setState->callback(change(
        [&] { return cmdShardSetState(options, shard, state); }, [&] { return changes::setShardState(shard, state); }));

    auto* spaceCmd = app.add_subcommand("space", "Spaces (tenants)")->require_subcommand(1);
    auto* spaceList = spaceCmd->add_subcommand("list", "List spaces");
    spaceList->add_option("--shard", shard, "Only spaces on this shard");
    spaceList->callback(run([&] { return cmdSpaceList(options, shard); }));
    auto* where = spaceCmd->add_subcommand("where", "Where a space lives");
    where->add_option("space", space, "Space id")->required();
    where->callback(run([&] { return cmdSpaceWhere(options, space); }));
    auto* pin = spaceCmd->add_subcommand("pin", "Pin a space to a shard");
    pin->add_option("space", space, "Space id")->required();
    pin->add_option("shard", shard, "Shard id")->required();
    pin->callback(
        change([&] { return cmdSpacePin(options, space, shard); }, [&] { return changes::pinSpace(space, shard); }));
    auto* unpin = spaceCmd->add_subcommand("unpin", "Remove a space's pin");
    unpin->add_option("space", space, "Space id")->required();
    unpin->callback(
        change([&] { return cmdSpaceUnpin(options, space); }, [&] { return changes::pinSpace(space, {}); }));
    auto* reassign = spaceCmd->add_subcommand(
        "reassign", "Hand a space's ownership to another shard by hand (epoch + 1; documents are not moved)");
    reassign->add_option("space", space, "Space id")->required();
    reassign->add_option("shard", shard, "New owner shard")->required();
    reassign->callback(change(
        [&] { return cmdSpaceReassign(options, space, shard); }, [&] { return changes::reassignSpace(space, shard); }));

    auto* mapCmd = app.add_subcommand("map", "The map's history")->require_subcommand(1);
    static std::uint64_t from = 0, revA = 0, revB = 0;
    static std::size_t limit = 50;
    auto* history = mapCmd->add_subcommand("history", "Audit records, oldest first");
    history->add_option("--from", from, "Start after this revision");
    history->add_option("--limit", limit, "At most this many records")->capture_default_str();
    history->callback(run([&] { return cmdMapHistory(options, from, limit); }));
    auto* diff = mapCmd->add_subcommand("diff", "What changed between two revisions");
    diff->add_option("rev1", revA, "Revision")->required();
    diff->add_option("rev2", revB, "Revision")->required();
    diff->callback(run([&] { return cmdMapDiff(options, revA, revB); }));
    auto* verifyAudit = mapCmd->add_subcommand("verify-audit",
        "Check the audit's hash chain and the live records against it; name the first broken record (exit 11)");
    verifyAudit->callback(run([&] { return cmdMapVerifyAudit(options); }));

    static WriteArgs writeArgs;
    static std::vector<std::string> fields;
    auto* write = app.add_subcommand("write", "Write (or delete) documents through the router");
    write->add_option("--space", writeArgs.space, "Space id");
    write->add_option("--id", writeArgs.id, "Document id");
    write->add_option("--field", fields, "NAME=VALUE (repeatable)");
    write->add_option("--version", writeArgs.version, "Version (default: now in microseconds)");
    write->add_flag("--delete", writeArgs.deleted, "Write a tombstone");
    write->add_option("--file", writeArgs.file, "JSON lines of {space, id, version, fields, deleted}");
    write->callback(run([&] {
        writeArgs.fields = parsePairs(fields);
        return cmdWrite(options, writeArgs);
    }));

    static SearchArgs searchArgs;
    auto* search = app.add_subcommand("search", "Search spaces through the router");
    search->add_option("--space", searchArgs.spaces, "Space id (repeatable)")->required();
    search->add_option("query", searchArgs.query, "Query: terms, \"phrases\", prefix*, AND/OR/NOT, field:term")
        ->required();
    search->add_option("--limit", searchArgs.limit, "Hits")->capture_default_str()->check(CLI::Range(1, 1000));
    search->add_option("--offset", searchArgs.offset, "Skip this many hits");
    search->callback(run([&] { return cmdSearch(options, searchArgs); }));

    static bool withSpaces = false;
    auto* stats = app.add_subcommand("stats", "Live figures from the nodes: per node, shard and space");
    stats->add_flag("--spaces", withSpaces, "Also list every space");
    stats->callback(run([&] { return cmdStats(options, withSpaces); }));

    static shardmap::core::AlertThresholds alertThresholds;
    static double cpuWindowMinutes = 5;
    static double memoryLimitGiB = 4;
    static double failedLookbackHours = 24;
    auto* health = app.add_subcommand("health",
        "The console's alerts, once, for cron and monitoring: store and executor, nodes (unreachable, disk, "
        "CPU and memory over the window), shards over capacity, failed, stalled and slowing migrations. "
        "Exits 0 when nothing fires, 8 when only warnings do, 9 when anything critical does");
    auto& h = alertThresholds.health;
    health->add_option("--disk-warning", h.diskUsedWarningPercent, "Disk used, % (warning)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 100.0));
    health->add_option("--disk-critical", h.diskUsedCriticalPercent, "Disk used, % (critical)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 100.0));
    health->add_option("--cpu-warning", h.cpuWarningPercent, "CPU averaged over the window, % (warning)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 10000.0));
    health->add_option("--window-minutes", cpuWindowMinutes, "The window CPU and memory are averaged over")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 1440.0));
    health->add_option("--memory-limit-gib", memoryLimitGiB, "A node's resident memory limit (0: not checked)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 1.0e6));
    health->add_option("--memory-warning", h.memoryWarningPercent, "Memory, % of the limit (warning)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 1000.0));
    health->add_option("--memory-critical", h.memoryCriticalPercent, "Memory, % of the limit (critical)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 1000.0));
    health
        ->add_option("--stall-seconds", alertThresholds.migrationStallSeconds,
            "A migration without progress this long has stalled")
        ->capture_default_str()
        ->check(CLI::Range(1, 7 * 86400));
    health
        ->add_option("--eta-window-seconds", alertThresholds.etaWindowSeconds,
            "A backfill's time left is compared with this long ago")
        ->capture_default_str()
        ->check(CLI::Range(1, 86400));
    health
        ->add_option("--eta-growth-percent", alertThresholds.etaGrowthPercent,
            "... and fires when it grew by more than this share")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 100000.0));
    health->add_option("--eta-growth-min-seconds", alertThresholds.etaGrowthMinSeconds, "... and at least this much")
        ->capture_default_str()
        ->check(CLI::Range(0, 86400));
    health
        ->add_option(
            "--failed-lookback-hours", failedLookbackHours, "Failed migrations that ended this recently fire (0: none)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 24.0 * 365));
    health
        ->add_option("--shard-fill-warning", alertThresholds.shardFillWarningPercent,
            "A shard filled to this % of a capacity warns (over 100 % is critical)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 1000.0));
    health->callback(run([&] {
        alertThresholds.health.cpuWindowMs = static_cast<std::int64_t>(cpuWindowMinutes * 60'000);
        alertThresholds.health.memoryLimitBytes = static_cast<std::uint64_t>(memoryLimitGiB * (1 << 30));
        alertThresholds.failedLookbackSeconds = static_cast<std::int64_t>(failedLookbackHours * 3600);
        return cmdHealth(options, alertThresholds);
    }));

    addMigrationCommands(app, options, result);
    addPlanCommands(app, options, result);
    addSimulateCommand(app, options, result);
    addReportCommand(app, options, result);
    addAccessCommands(app, options, result);

    if (argc > 1 && std::string_view(argv[1]) == kCompleteCommand)
        return printCompletions(app, options, std::vector<std::string>(argv + 2, argv + argc));
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
        return reportUsageError(app, error, options.json || jsonRequested(argc, argv));
    }
    return report(result, options.json);
}
