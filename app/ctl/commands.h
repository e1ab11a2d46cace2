#pragma once

// What every shardmapctl command shares: its options, its result, the command functions and the
// functions that add each command group to the command line.

#include "core/client/admin_client.h"
#include "core/client/node_client.h"
#include "core/fleet/alerts.h"
#include "core/map/map_editor.h"
#include "core/report/migration_report.h"
#include "core/store/metadata_store.h"

#include <chrono>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace shardmap::app {

// What a command produced: JSON for --json, and a printer for people.
struct CommandOutput {
    nlohmann::json json;
    std::function<void(std::ostream&)> human;
    // A command that printed as it went (watch) leaves nothing more to print.
    bool printed = false;
    // Exit code of a command that succeeded but has an outcome to report (watch: 1 when a
    // migration it waited for failed).
    int exitCode = 0;
};

using CommandResult = core::Result<CommandOutput>;

struct CtlOptions {
    std::string storeUri;
    core::Actor actor;
    std::chrono::milliseconds timeout { 10000 };
    bool json = false;
    // How commands reach the nodes: TLS files (--node-tls-*); the deadline is `timeout`.
    core::NodeClientOptions nodeClient;
    // --controller: reads and changes go through shardmapd's Admin API (app/ctl/controller.h).
    core::AdminClientOptions controller;
    std::string tokenFile;
};

// The node client options of every command: --node-tls-* and --timeout-ms.
inline core::NodeClientOptions nodeClientOptions(const CtlOptions& options)
{
    core::NodeClientOptions out = options.nodeClient;
    out.callTimeout = options.timeout;
    return out;
}

// Opens the store named by --store (or SHARDMAP_STORE), with a message that says how to fix it.
core::Result<std::unique_ptr<core::MetadataStore>> openCtlStore(const CtlOptions& options, bool create = false);
// The map as of now, read from the store named by the options.
core::Result<core::MapSnapshot> readMap(const CtlOptions& options);

CommandResult cmdInit(const CtlOptions& options);
// The alert rules over the whole fleet, once. Exit kExitWarning when only warnings fire,
// kExitCritical when anything critical does (the store unreachable included).
inline constexpr int kExitWarning = 8;
inline constexpr int kExitCritical = 9;
CommandResult cmdHealth(const CtlOptions& options, const core::AlertThresholds& thresholds);
// Copies the map and its history from one store into a new, empty one.
CommandResult cmdStoreCopy(const CtlOptions& options, const std::string& fromUri, const std::string& toUri);
CommandResult cmdNodeAdd(const CtlOptions& options, const std::string& id, const std::string& address,
    const std::map<std::string, std::string>& labels, const std::string& zone = {});
CommandResult cmdNodeRemove(const CtlOptions& options, const std::string& id);
CommandResult cmdNodeList(const CtlOptions& options);
struct ShardCreateArgs {
    std::string id;
    std::string node;
    std::vector<std::string> fields;
    std::uint64_t capacityDocs = 0;
    std::uint64_t capacityBytes = 0;
    // An index engine's name (core/util/index_engine.h); empty: the fleet's default_engine setting.
    std::string engine;
};
CommandResult cmdShardCreate(const CtlOptions& options, const ShardCreateArgs& args);
CommandResult cmdShardList(const CtlOptions& options);
CommandResult cmdShardSetState(const CtlOptions& options, const std::string& id, const std::string& state);
// A shard's copies and a node's zone and loss (copy_commands.cpp, issue 30). Removing a copy and
// losing a node are said and refused without yes (exit 2), as abandoning a migration is.
CommandResult cmdReplicaAdd(const CtlOptions& options, const std::string& shard, const std::string& node);
CommandResult cmdReplicaRemove(const CtlOptions& options, const std::string& shard, const std::string& node, bool yes);
CommandResult cmdReplicaList(const CtlOptions& options, const std::string& shard);
CommandResult cmdShardPromote(const CtlOptions& options, const std::string& shard, const std::string& node);
CommandResult cmdShardSetReplication(
    const CtlOptions& options, const std::string& shard, std::uint32_t factor, std::optional<bool> allowSameZone);
CommandResult cmdNodeLose(const CtlOptions& options, const std::string& node, bool yes);
CommandResult cmdNodeSetZone(const CtlOptions& options, const std::string& node, const std::string& zone);
CommandResult cmdSpaceList(const CtlOptions& options, const std::string& shard);
CommandResult cmdSpaceWhere(const CtlOptions& options, const std::string& space);
CommandResult cmdSpacePin(const CtlOptions& options, const std::string& space, const std::string& shard);
CommandResult cmdSpaceUnpin(const CtlOptions& options, const std::string& space);
CommandResult cmdSpaceReassign(const CtlOptions& options, const std::string& space, const std::string& shard);
CommandResult cmdMapHistory(const CtlOptions& options, std::uint64_t from, std::size_t limit);
CommandResult cmdMapDiff(const CtlOptions& options, std::uint64_t a, std::uint64_t b);
// Checks the audit's hash chain and the live records against it (core/store/audit_chain.h);
// exits kExitAuditBroken naming the first broken record when it does not verify.
inline constexpr int kExitAuditBroken = 11;
CommandResult cmdMapVerifyAudit(const CtlOptions& options);

struct WriteArgs {
    std::string space;
    std::string id;
    std::map<std::string, std::string> fields;
    std::uint64_t version = 0;
    bool deleted = false;
    std::string file; // JSON lines: {"space","id","version","fields":{},"deleted"}
};
CommandResult cmdWrite(const CtlOptions& options, const WriteArgs& args);
struct SearchArgs {
    std::vector<std::string> spaces;
    std::string query;
    std::uint32_t limit = 20;
    std::uint32_t offset = 0;
};
CommandResult cmdSearch(const CtlOptions& options, const SearchArgs& args);
CommandResult cmdStats(const CtlOptions& options, bool spaces);

// Migrations and the operations built from them (migration_commands.cpp, operation_commands.cpp,
// watch_command.cpp).
CommandResult cmdMigrate(
    const CtlOptions& options, const std::string& space, const std::string& target, std::uint64_t throttle);
struct MigrationFilter {
    bool all = false;
    std::string space;
    std::string shard;
    std::string state; // queued, running, finished
};
CommandResult cmdMigrationList(const CtlOptions& options, const MigrationFilter& filter);
CommandResult cmdMigrationShow(const CtlOptions& options, const std::string& id);
enum class MigrationAction { Pause, Resume, Cancel, Rollback };
CommandResult cmdMigrationAction(const CtlOptions& options, MigrationAction action, const std::string& id);
CommandResult cmdMigrationThrottle(const CtlOptions& options, const std::string& id, std::uint64_t docsPerSecond);
// Without yes: says what abandoning costs and exits 2; with it: abandons.
CommandResult cmdMigrationAbandon(const CtlOptions& options, const std::string& id, bool yes);
// Unset fields keep their value; nothing set: show the settings.
struct SettingsChange {
    std::optional<std::uint32_t> maxConcurrent;
    std::optional<std::uint32_t> maxPerNode;
    std::optional<std::uint32_t> maxPerShard;
    std::optional<std::uint64_t> defaultThrottle;
    std::optional<std::uint32_t> backfillBatch;
    std::optional<std::uint64_t> rollbackWindowSeconds;
    std::optional<std::uint64_t> cutoverTimeoutMs;
    std::optional<std::uint32_t> cleanupRowsPerSecond;
    std::optional<double> maxTargetFill;
    std::optional<std::uint32_t> maxRepairs;
    std::optional<std::uint64_t> startRetrySeconds;
    std::optional<std::string> defaultEngine;
    // Copies of a shard that names no factor, and how many must apply a write (all, majority).
    std::optional<std::uint32_t> replicationFactor;
    std::optional<std::string> writeQuorum;
    // The executor's failover watch: promote after, mark lost after (ms, 0: off), new copies at once.
    std::optional<std::uint64_t> failoverAfterMs;
    std::optional<std::uint64_t> loseNodeAfterMs;
    std::optional<std::uint32_t> maxReReplications;
    // Snapshots (issue 32): the repository ("" : none), the schedule, retention and throttle.
    std::optional<std::string> snapshotRepository;
    std::optional<std::uint64_t> snapshotIntervalSeconds;
    std::optional<std::uint32_t> snapshotKeep;
    std::optional<std::uint64_t> snapshotMaxAgeSeconds;
    std::optional<std::uint32_t> snapshotPauseMs;
};
CommandResult cmdMigrationSettings(const CtlOptions& options, const SettingsChange& change);

struct OperationArgs {
    core::OperationKind kind = core::OperationKind::Drain;
    std::string subject; // the shard, node or space acted on
    std::string into; // merge: the receiving shard; split, isolate: the new shard
    std::string node; // split, isolate: where the new shard goes (default: the subject's node)
};
CommandResult cmdOperation(const CtlOptions& options, const OperationArgs& args);
CommandResult cmdOperationList(const CtlOptions& options);
CommandResult cmdOperationShow(const CtlOptions& options, const std::string& id);

struct WatchArgs {
    std::vector<std::string> ids;
    bool once = false;
};
CommandResult cmdWatch(const CtlOptions& options, const WatchArgs& args);

} // namespace shardmap::app

namespace CLI {
class App;
}

namespace shardmap::app {

// Each command group adds its subcommands; their callbacks leave what the command returned in
// result, which main reports.

// Adds init, store, node, shard, space, map, write, search and stats (fleet_cli.cpp).
void addFleetCommands(CLI::App& app, const CtlOptions& options, CommandResult& result);
// Adds shard replicas add|remove|list, shard promote, shard set-replication-factor (to the shard
// group) and node lose, node set-zone (to the node group): copy_commands.cpp.
void addShardCopyCommands(CLI::App& shard, const CtlOptions& options, CommandResult& result);
void addNodeCopyCommands(CLI::App& node, const CtlOptions& options, CommandResult& result);
// Adds health (health_command.cpp).
void addHealthCommand(CLI::App& app, const CtlOptions& options, CommandResult& result);
// Adds migrate, migrations, drain, retire-node, split, merge, isolate, operations and watch.
void addMigrationCommands(CLI::App& app, const CtlOptions& options, CommandResult& result);

// `template list|show|create|diff` (template_commands.cpp, issue 31). A new version starts from
// a settings file or another template (default: the built-in default) and applies the edits.
struct TemplateEdits {
    std::string file;
    std::string like;
    std::vector<std::string> fields; // NAME or NAME=WEIGHT: indexed
    std::vector<std::string> storedFields;
    std::vector<std::string> removeFields;
    std::string tokenizer;
    std::optional<int> removeDiacritics;
    std::optional<std::string> tokenChars;
    bool caseSensitive = false;
    std::string prefixes; // "2,3" or "none"
    std::string description;
};
CommandResult cmdTemplateList(const CtlOptions& options);
CommandResult cmdTemplateShow(const CtlOptions& options, const std::string& name);
CommandResult cmdTemplateCreate(const CtlOptions& options, const std::string& name, const TemplateEdits& edits);
CommandResult cmdTemplateDiff(const CtlOptions& options, const std::string& from, const std::string& to);
void addTemplateCommands(CLI::App& app, const CtlOptions& options, CommandResult& result);

// `snapshot create|list|show|verify|delete` (snapshot_commands.cpp, issue 32). A snapshot that
// failed or is corrupt exits kExitSnapshotBad.
inline constexpr int kExitSnapshotBad = 12;
void addSnapshotCommands(CLI::App& app, const CtlOptions& options, CommandResult& result);
// `restore space` (restore_commands.cpp, issue 32).
void addRestoreCommands(CLI::App& app, const CtlOptions& options, CommandResult& result);
// `balancer policy|enable|disable|dry-run` (balancer_commands.cpp, issue 33).
void addBalancerCommands(CLI::App& app, const CtlOptions& options, CommandResult& result);

// `plan SCENARIO ...` and `plan apply FILE` (plan_commands.cpp).
struct PlanArgs {
    std::string scenario; // rebalance, add-shard, drain, retire-node, split, merge, isolate, reindex
    std::vector<std::string> subjects; // the shard, node or space; add-shard: SHARD or SHARD@NODE...
    std::string into; // merge
    std::string newShard; // split, isolate
    std::string node; // split, isolate: the new shard's node
    std::uint64_t sizeLimit = 0; // split: seed 002's S_limit
    std::uint64_t belowBytes = 0; // merge without FROM/--into: the shards under this size
    double band = 0.10;
    std::size_t maxMoves = 0;
    std::uint64_t maxBytes = 0;
    double maxHours = 0;
    std::vector<std::string> exclude;
    std::string output;
    bool apply = false;
    // reindex (issue 31): the template to build with, and the shards by template or all.
    std::string toTemplate;
    std::string fromTemplate;
    bool all = false;
};
CommandResult cmdPlan(const CtlOptions& options, const PlanArgs& args);
CommandResult cmdPlanApply(const CtlOptions& options, const std::string& file);
void addPlanCommands(CLI::App& app, const CtlOptions& options, CommandResult& result);

// `report` (report_command.cpp).
struct ReportArgs {
    std::vector<std::string> migrations;
    std::string operation;
    std::string since;
    std::string until;
    std::string space;
    std::string shard;
    std::string state;
    std::string format = "json";
    std::string output;
    // PDF only: "a4", "letter", or empty (by the locale).
    std::string paper;
};
CommandResult cmdReport(const CtlOptions& options, const ReportArgs& args);
void addReportCommand(CLI::App& app, const CtlOptions& options, CommandResult& result);
// The PDF of a report, as the console renders it (report_pdf.cpp: Qt Gui, offscreen).
core::Status writeReportPdf(const core::MigrationReport& report, const std::string& path, const std::string& paper);

// `simulate`: placement strategies side by side on the fleet's spaces (simulate_command.cpp).
void addSimulateCommand(CLI::App& app, const CtlOptions& options, CommandResult& result);

} // namespace shardmap::app
