// shardmapctl health: the console's alert rules (core/fleet/alerts.h) evaluated once over the
// whole fleet, for cron and monitoring. Prints what fires and exits 0 (nothing), 8 (warnings
// only) or 9 (anything critical, the store unreachable included).
#include "app/ctl/command_line.h"
#include "app/ctl/output.h"
#include "core/fleet/fleet_probe.h"
#include "core/store/lease_names.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <ostream>

namespace shardmap::app {

using nlohmann::json;

namespace {

json alertJson(const core::Alert& alert)
{
    return { { "kind", core::alertKindName(alert.kind) }, { "severity", core::alertSeverityName(alert.severity) },
        { "subject", alert.subject }, { "value", alert.value }, { "threshold", alert.threshold },
        { "detail", alert.detail }, { "summary", alert.summary } };
}

} // namespace

namespace {

// What the output says beside the alerts: how many nodes answered, and the replicas alive.
struct FleetSummary {
    std::size_t reachable = 0;
    std::size_t active = 0;
    json replicas = json::array();
    std::string replicaText;
};

FleetSummary summarize(const core::FleetProbe& probe)
{
    FleetSummary summary;
    for (const core::ProbedNode& node : probe.nodes) {
        summary.reachable += node.reachable ? 1 : 0;
        summary.active += node.retired ? 0 : 1;
    }
    for (const core::LeaseGrant& replica : probe.replicas) {
        const std::string name = replica.name.substr(core::kReplicaLeasePrefix.size());
        summary.replicas.push_back({ { "replica", name }, { "address", replica.holder } });
        summary.replicaText += (summary.replicaText.empty() ? "" : ", ") + name + " at " + replica.holder;
    }
    return summary;
}

json healthJson(const CtlOptions& options, const core::FleetProbe& probe, bool storeOpened, const FleetSummary& summary,
    const std::vector<core::Alert>& alerts)
{
    json alertsJson = json::array();
    for (const core::Alert& alert : alerts)
        alertsJson.push_back(alertJson(alert));
    return { { "checked_unix_ms", probe.unixMs }, { "store", storeOpened ? probe.store : options.storeUri },
        // A store that answered and refused the caller is reachable; store_access_denied says so.
        { "store_reachable", !probe.storeError || core::refusesCaller(probe.storeError->code) },
        { "store_access_denied", probe.storeError && core::refusesCaller(probe.storeError->code) },
        { "revision", probe.map ? probe.map->revision : 0 }, { "nodes", summary.active },
        { "nodes_reachable", summary.reachable },
        { "executor",
            probe.executor ? json { { "holder", probe.executor->holder }, { "token", probe.executor->token } }
                           : json(nullptr) },
        { "replicas", summary.replicas }, { "alerts", alertsJson } };
}

std::function<void(std::ostream&)> healthPrinter(
    const core::FleetProbe& probe, const FleetSummary& summary, const std::vector<core::Alert>& alerts)
{
    Table table({ "SEVERITY", "ALERT", "SUBJECT", "WHAT" });
    for (const core::Alert& alert : alerts)
        table.addRow({ core::alertSeverityName(alert.severity), core::alertKindName(alert.kind),
            alert.subject.empty() ? "-" : alert.subject, alert.summary });
    const bool haveMap = static_cast<bool>(probe.map);
    const std::string executor = probe.executor ? probe.executor->holder : std::string("none");
    return [table, haveMap, executor, summary, none = alerts.empty()](std::ostream& stream) {
        if (none)
            stream << "ok: no alerts";
        else
            table.print(stream);
        if (haveMap) {
            stream << (none ? "; " : "\n") << summary.reachable << " of " << summary.active
                   << " nodes reachable; executor: " << executor
                   << "; replicas alive: " << (summary.replicaText.empty() ? "none" : summary.replicaText);
        }
        stream << "\n";
    };
}

} // namespace

CommandResult cmdHealth(const CtlOptions& options, const core::AlertThresholds& thresholds)
{
    std::optional<core::Error> storeError;
    std::unique_ptr<core::MetadataStore> store;
    if (auto opened = openCtlStore(options); opened) {
        store = std::move(*opened);
    } else if (opened.error().code == core::ErrorCode::InvalidArgument && options.storeUri.empty()) {
        return opened.error(); // no store given: a usage error, not an alert
    } else {
        storeError = opened.error();
    }
    core::NodeClientPool pool(nodeClientOptions(options));
    // Through --controller the Admin API hands out no audit hashes: the chain is checked with --store.
    const core::FleetProbe probe
        = core::probeFleet(store.get(), storeError, pool, thresholds.health.cpuWindowMs, !viaController(options));
    core::AlertEvaluator evaluator(thresholds);
    const std::vector<core::Alert> alerts = evaluator.evaluate(probe.observation());
    const bool critical = std::any_of(alerts.begin(), alerts.end(),
        [](const core::Alert& alert) { return alert.severity == core::AlertSeverity::Critical; });
    const FleetSummary summary = summarize(probe);
    CommandOutput output { healthJson(options, probe, store != nullptr, summary, alerts),
        healthPrinter(probe, summary, alerts) };
    output.exitCode = alerts.empty() ? 0 : (critical ? kExitCritical : kExitWarning);
    return output;
}

namespace {

// The flags given in other units than the thresholds' own.
struct HealthUnits {
    double cpuWindowMinutes = 5;
    double memoryLimitGiB = 4;
    double failedLookbackHours = 24;
};

void addNodeHealthFlags(CLI::App* health, core::HealthThresholds& h, HealthUnits& units)
{
    health->add_option("--disk-warning", h.diskUsedWarningPercent, "Disk used, % (warning)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 100.0));
    health->add_option("--disk-critical", h.diskUsedCriticalPercent, "Disk used, % (critical)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 100.0));
    health->add_option("--cpu-warning", h.cpuWarningPercent, "CPU averaged over the window, % (warning)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 10000.0));
    health->add_option("--window-minutes", units.cpuWindowMinutes, "The window CPU and memory are averaged over")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 1440.0));
    health->add_option("--memory-limit-gib", units.memoryLimitGiB, "A node's resident memory limit (0: not checked)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 1.0e6));
    health->add_option("--memory-warning", h.memoryWarningPercent, "Memory, % of the limit (warning)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 1000.0));
    health->add_option("--memory-critical", h.memoryCriticalPercent, "Memory, % of the limit (critical)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 1000.0));
}

void addMigrationHealthFlags(CLI::App* health, core::AlertThresholds& thresholds, HealthUnits& units)
{
    health
        ->add_option(
            "--stall-seconds", thresholds.migrationStallSeconds, "A migration without progress this long has stalled")
        ->capture_default_str()
        ->check(CLI::Range(1, 7 * 86400));
    health
        ->add_option("--eta-window-seconds", thresholds.etaWindowSeconds,
            "A backfill's time left is compared with this long ago")
        ->capture_default_str()
        ->check(CLI::Range(1, 86400));
    health
        ->add_option(
            "--eta-growth-percent", thresholds.etaGrowthPercent, "... and fires when it grew by more than this share")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 100000.0));
    health->add_option("--eta-growth-min-seconds", thresholds.etaGrowthMinSeconds, "... and at least this much")
        ->capture_default_str()
        ->check(CLI::Range(0, 86400));
    health
        ->add_option("--failed-lookback-hours", units.failedLookbackHours,
            "Failed migrations that ended this recently fire (0: none)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 24.0 * 365));
    health
        ->add_option("--shard-fill-warning", thresholds.shardFillWarningPercent,
            "A shard filled to this % of a capacity warns (over 100 % is critical)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 1000.0));
}

} // namespace

void addHealthCommand(CLI::App& app, const CtlOptions& options, CommandResult& result)
{
    static core::AlertThresholds alertThresholds;
    static HealthUnits units;
    auto* health = app.add_subcommand("health",
        "The console's alerts, once, for cron and monitoring: store and executor, nodes (unreachable, disk, "
        "CPU and memory over the window), shards over capacity, failed, stalled and slowing migrations. "
        "Exits 0 when nothing fires, 8 when only warnings do, 9 when anything critical does");
    addNodeHealthFlags(health, alertThresholds.health, units);
    addMigrationHealthFlags(health, alertThresholds, units);
    health->callback(runInto(result)([&] {
        alertThresholds.health.cpuWindowMs = static_cast<std::int64_t>(units.cpuWindowMinutes * 60'000);
        alertThresholds.health.memoryLimitBytes = static_cast<std::uint64_t>(units.memoryLimitGiB * (1 << 30));
        alertThresholds.failedLookbackSeconds = static_cast<std::int64_t>(units.failedLookbackHours * 3600);
        return cmdHealth(options, alertThresholds);
    }));
}

} // namespace shardmap::app
