// The command line of the migration commands: CLI11 subcommands wired to migration_commands.cpp,
// operation_commands.cpp and watch_command.cpp.
#include "app/ctl/command_line.h"

#include <CLI/CLI.hpp>

namespace shardmap::app {

namespace {

// An optional is set only when its flag was given.
template <typename T>
void addSetting(CLI::App* command, const std::string& flag, std::optional<T>& target, const std::string& help)
{
    command->add_option_function<T>(
        flag, [&target](const T& value) { target = value; }, help);
}

// migrations list and show.
void addMigrationReads(CLI::App* group, const CtlOptions& options, CommandResult& result)
{
    auto run = runInto(result);
    static MigrationFilter filter;
    auto* list = group->add_subcommand("list", "Migrations: active ones and the last 20 finished");
    list->add_flag("--all", filter.all, "Every migration ever queued");
    list->add_option("--space", filter.space, "Only this space's");
    list->add_option("--shard", filter.shard, "Only those from or to this shard");
    list->add_option("--state", filter.state, "queued, running or finished");
    list->callback(run([&] { return cmdMigrationList(options, filter); }));

    static std::string id;
    auto* show = group->add_subcommand("show", "Every field of a migration, and its history");
    show->add_option("id", id, "Migration id")->required();
    show->callback(run([&] { return cmdMigrationShow(options, id); }));
}

// migrations pause, resume, cancel, rollback, abandon and throttle.
void addMigrationSteering(CLI::App* group, const CtlOptions& options, CommandResult& result)
{
    auto viaApi = changeWith(options, result);
    static std::string id;
    const std::tuple<const char*, MigrationAction, v1::SteerMigration::Action> actions[] = {
        { "pause", MigrationAction::Pause, v1::SteerMigration::PAUSE },
        { "resume", MigrationAction::Resume, v1::SteerMigration::RESUME },
        { "cancel", MigrationAction::Cancel, v1::SteerMigration::CANCEL },
        { "rollback", MigrationAction::Rollback, v1::SteerMigration::ROLLBACK },
    };
    const char* help[] = { "Stop advancing a migration (dual writes go on)", "Let a paused migration continue",
        "Cancel before cutover; the target's copy is removed",
        "Move the space back after cutover, while the rollback window is open" };
    for (std::size_t i = 0; i < std::size(actions); ++i) {
        const auto [name, action, steer] = actions[i];
        auto* command = group->add_subcommand(name, help[i]);
        command->add_option("id", id, "Migration id")->required();
        command->callback(viaApi([&options, action] { return cmdMigrationAction(options, action, id); },
            [steer] { return changes::steerMigration(id, steer); }));
    }
    static bool yes = false;
    auto* abandon = group->add_subcommand("abandon",
        "End a migration now without the controller, leaving a copy on a node lost for good (says what it "
        "costs; --yes to do it)");
    abandon->add_option("id", id, "Migration id")->required();
    abandon->add_flag("--yes", yes, "Abandon it, knowing the cost");
    abandon->callback(runInto(result)([&] {
        // Through the Admin API only the act itself: what it costs is read here first.
        if (viaController(options) && yes)
            return changeViaController(options, changes::steerMigration(id, v1::SteerMigration::ABANDON));
        return cmdMigrationAbandon(options, id, yes);
    }));
    static std::uint64_t docsPerSecond = 0;
    auto* throttle = group->add_subcommand("throttle", "Set a migration's backfill rate (0: the default)");
    throttle->add_option("id", id, "Migration id")->required();
    throttle->add_option("docs_per_sec", docsPerSecond, "Documents per second")->required();
    throttle->callback(viaApi([&options] { return cmdMigrationThrottle(options, id, docsPerSecond); },
        [] { return changes::setThrottle(id, docsPerSecond); }));
}

// migrations settings, with a flag per setting.
void addMigrationSettings(CLI::App* group, const CtlOptions& options, CommandResult& result)
{
    static SettingsChange change;
    auto* settings = group->add_subcommand("settings", "Show the executor's settings, or change them with flags");
    addSetting(settings, "--max-concurrent", change.maxConcurrent, "Migrations running at once (0: no limit)");
    addSetting(settings, "--max-per-node", change.maxPerNode, "Per node as source or target (0: no limit)");
    addSetting(settings, "--max-per-shard", change.maxPerShard, "Per shard as source or target (0: no limit)");
    addSetting(settings, "--default-throttle", change.defaultThrottle, "Backfill docs/s without a throttle (0: none)");
    addSetting(settings, "--batch", change.backfillBatch, "Backfill batch, 1-5000 documents");
    addSetting(settings, "--rollback-window", change.rollbackWindowSeconds, "Seconds the old copy is kept");
    addSetting(settings, "--cutover-timeout-ms", change.cutoverTimeoutMs, "Longest write hold at cutover, >= 50");
    addSetting(settings, "--cleanup-rate", change.cleanupRowsPerSecond, "Rows/s deleted from the old source");
    addSetting(settings, "--max-target-fill", change.maxTargetFill, "Share of a target's capacity, (0, 1]");
    addSetting(settings, "--max-repairs", change.maxRepairs, "Aborted cutovers in a row before a migration fails");
    addSetting(settings, "--start-retry-seconds", change.startRetrySeconds,
        "How long a migration waits to start while its target's node is unreachable, then fails");
    addSetting(
        settings, "--default-engine", change.defaultEngine, "Index engine of new shards that name none (fts5, xapian)");
    addSetting(settings, "--replication-factor", change.replicationFactor,
        "Copies of a shard that names no factor, the primary included (1: no replicas)");
    addSetting(settings, "--write-quorum", change.writeQuorum,
        "Copies that must apply a write: all (in-sync copies) or majority (factors of 3 or more)");
    addSetting(settings, "--failover-after-ms", change.failoverAfterMs,
        "Promote an in-sync replica once its primary's node is unreachable this long (0: never)");
    addSetting(settings, "--lose-node-after-ms", change.loseNodeAfterMs,
        "Mark a node lost once it is unreachable this long, restoring its copies elsewhere (0: never)");
    addSetting(settings, "--max-re-replications", change.maxReReplications,
        "New copies made at once for lost nodes' copies (0: no limit)");
    addSetting(settings, "--snapshot-repository", change.snapshotRepository,
        "Directory (absolute) the leader and every node write snapshots into (\"\": none)");
    addSetting(settings, "--snapshot-interval", change.snapshotIntervalSeconds,
        "Seconds between scheduled snapshots (0: on demand only)");
    addSetting(settings, "--snapshot-keep", change.snapshotKeep, "Complete snapshots kept (0: no limit)");
    addSetting(settings, "--snapshot-max-age", change.snapshotMaxAgeSeconds,
        "Seconds a complete snapshot is kept (0: no limit; the newest usable one always stays)");
    addSetting(settings, "--snapshot-pause-ms", change.snapshotPauseMs,
        "Pause between a node's backup steps of 256 pages (the snapshot's throttle)");
    settings->callback(runInto(result)([&] { return cmdMigrationSettings(options, change); }));
}

void addMigrationsGroup(CLI::App& app, const CtlOptions& options, CommandResult& result)
{
    auto* group = app.add_subcommand("migrations", "List, inspect and steer live migrations")->require_subcommand(1);
    addMigrationReads(group, options, result);
    addMigrationSteering(group, options, result);
    addMigrationSettings(group, options, result);
}

void addOperations(CLI::App& app, const CtlOptions& options, CommandResult& result)
{
    auto run = runInto(result);
    static OperationArgs args;
    auto operation = [&](core::OperationKind kind) {
        return run([&, kind] {
            args.kind = kind;
            return viaController(options) ? changeViaController(options, changes::startOperation(args))
                                          : cmdOperation(options, args);
        });
    };
    auto* drain = app.add_subcommand("drain", "Move every space off a shard to the best other shards");
    drain->add_option("shard", args.subject, "Shard id")->required();
    drain->callback(operation(core::OperationKind::Drain));
    auto* retire = app.add_subcommand("retire-node", "Drain every shard of a node, then retire it");
    retire->add_option("node", args.subject, "Node id")->required();
    retire->callback(operation(core::OperationKind::RetireNode));
    auto* split = app.add_subcommand("split", "Create a shard and move about half of a shard's bytes to it");
    split->add_option("shard", args.subject, "Shard id")->required();
    split->add_option("--new-shard", args.into, "Id of the shard to create")->required();
    split->add_option("--node", args.node, "Node for the new shard (default: the shard's node)");
    split->callback(operation(core::OperationKind::Split));
    auto* merge = app.add_subcommand("merge", "Move every space of a shard into another");
    merge->add_option("from", args.subject, "Shard that empties")->required();
    merge->add_option("--into", args.into, "Shard that receives")->required();
    merge->callback(operation(core::OperationKind::Merge));
    auto* isolate = app.add_subcommand("isolate", "Move a space to a new shard of its own and pin it there");
    isolate->add_option("space", args.subject, "Space id")->required();
    isolate->add_option("--new-shard", args.into, "Id of the shard to create")->required();
    isolate->add_option("--node", args.node, "Node for the new shard (default: the space's node)");
    isolate->callback(operation(core::OperationKind::Isolate));

    auto* group
        = app.add_subcommand("operations", "Drains, splits, merges ... and their migrations")->require_subcommand(1);
    group->add_subcommand("list", "Every operation")->callback(run([&] { return cmdOperationList(options); }));
    static std::string id;
    auto* show = group->add_subcommand("show", "An operation and its migrations");
    show->add_option("id", id, "Operation id")->required();
    show->callback(run([&] { return cmdOperationShow(options, id); }));
}

} // namespace

void addMigrationCommands(CLI::App& app, const CtlOptions& options, CommandResult& result)
{
    auto run = runInto(result);
    static std::string space, target;
    static std::uint64_t throttle = 0;
    auto* migrate = app.add_subcommand("migrate", "Queue a live migration of a space to another shard");
    migrate->add_option("space", space, "Space id")->required();
    migrate->add_option("--to", target, "Target shard")->required();
    migrate->add_option("--throttle", throttle, "Backfill docs/s (default: the settings' default)");
    migrate->callback(changeWith(options, result)([&options] { return cmdMigrate(options, space, target, throttle); },
        [] { return changes::queueMigration(space, target, throttle); }));

    addMigrationsGroup(app, options, result);
    addOperations(app, options, result);

    static WatchArgs watchArgs;
    auto* watch = app.add_subcommand("watch", "Live progress of migrations (all active ones without ids)");
    watch->add_option("ids", watchArgs.ids, "Migrations to follow until they finish");
    watch->add_flag("--once", watchArgs.once, "Print one frame and exit");
    watch->callback(run([&] { return cmdWatch(options, watchArgs); }));
}

} // namespace shardmap::app
