// shardmapctl health: the console's alert rules (core/fleet/alerts.h) evaluated once over the
// whole fleet, for cron and monitoring. Prints what fires and exits 0 (nothing), 8 (warnings
// only) or 9 (anything critical, the store unreachable included).
#include "app/ctl/commands.h"
#include "app/ctl/controller.h"
#include "app/ctl/output.h"
#include "core/fleet/fleet_probe.h"
#include "core/store/lease_names.h"

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

    bool critical = false;
    json alertsJson = json::array();
    Table table({ "SEVERITY", "ALERT", "SUBJECT", "WHAT" });
    for (const core::Alert& alert : alerts) {
        critical = critical || alert.severity == core::AlertSeverity::Critical;
        alertsJson.push_back(alertJson(alert));
        table.addRow({ core::alertSeverityName(alert.severity), core::alertKindName(alert.kind),
            alert.subject.empty() ? "-" : alert.subject, alert.summary });
    }
    std::size_t reachable = 0;
    std::size_t active = 0;
    for (const core::ProbedNode& node : probe.nodes) {
        reachable += node.reachable ? 1 : 0;
        active += node.retired ? 0 : 1;
    }
    json replicas = json::array();
    std::string replicaText;
    for (const core::LeaseGrant& replica : probe.replicas) {
        const std::string name = replica.name.substr(core::kReplicaLeasePrefix.size());
        replicas.push_back({ { "replica", name }, { "address", replica.holder } });
        replicaText += (replicaText.empty() ? "" : ", ") + name + " at " + replica.holder;
    }
    json out { { "checked_unix_ms", probe.unixMs }, { "store", store ? probe.store : options.storeUri },
        // A store that answered and refused the caller is reachable; store_access_denied says so.
        { "store_reachable", !probe.storeError || core::refusesCaller(probe.storeError->code) },
        { "store_access_denied", probe.storeError && core::refusesCaller(probe.storeError->code) },
        { "revision", probe.map ? probe.map->revision : 0 }, { "nodes", active }, { "nodes_reachable", reachable },
        { "executor",
            probe.executor ? json { { "holder", probe.executor->holder }, { "token", probe.executor->token } }
                           : json(nullptr) },
        { "replicas", replicas }, { "alerts", alertsJson } };
    CommandOutput output { out, [=](std::ostream& stream) {
                              if (alerts.empty())
                                  stream << "ok: no alerts";
                              else
                                  table.print(stream);
                              if (probe.map) {
                                  stream << (alerts.empty() ? "; " : "\n") << reachable << " of " << active
                                         << " nodes reachable; executor: "
                                         << (probe.executor ? probe.executor->holder : std::string("none"))
                                         << "; replicas alive: " << (replicaText.empty() ? "none" : replicaText);
                              }
                              stream << "\n";
                          } };
    output.exitCode = alerts.empty() ? 0 : (critical ? kExitCritical : kExitWarning);
    return output;
}

} // namespace shardmap::app
