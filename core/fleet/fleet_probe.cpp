// The fleet probe's implementation: the store read once, then every node that is not retired asked
// in parallel for its metrics and history.
#include "core/fleet/fleet_probe.h"

#include "core/snapshot/snapshot_requests.h"
#include "core/store/lease_names.h"

#include <chrono>
#include <future>

namespace shardmap::core {

namespace {

std::int64_t nowMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

ProbedNode probeNode(const NodeRecord& record, NodeClientPool& nodes, std::int64_t sinceUnixMs, std::int64_t windowMs)
{
    ProbedNode out { record.id, record.address, record.retired, false, {}, {}, std::nullopt };
    if (record.retired)
        return out;
    auto client = nodes.get(record.address);
    if (!client) {
        out.error = client.error().describe();
        return out;
    }
    auto latest = (*client)->metrics(false);
    if (!latest) {
        out.error = latest.error().describe();
        return out;
    }
    out.reachable = true;
    // The history seeds the averages; a node that cannot give it still has its current sample.
    if (auto history = (*client)->metricsHistory(sinceUnixMs)) {
        for (const NodeMetricsValue& sample : history->samples) {
            if (sample.unixMs < latest->unixMs)
                out.vitals.add(NodeVitals::of(sample), windowMs);
        }
    }
    out.vitals.add(NodeVitals::of(*latest), windowMs);
    out.latest = std::move(*latest);
    return out;
}

// The map, the executor and replica leases, open migrations' histories, the snapshot records and,
// when asked, the audit's check, into the probe (a map that cannot be read is its store error).
void readStore(FleetProbe& probe, MetadataStore& store, bool checkAudit)
{
    probe.store = store.describe();
    auto snapshot = store.snapshot();
    auto map = snapshot ? MapSnapshot::decode(*snapshot) : Result<MapSnapshot>(snapshot.error());
    if (!map) {
        probe.storeError = map.error();
    } else {
        probe.map = std::move(*map);
        if (auto executor = store.liveLeases(std::string(kExecutorLease)); executor) {
            probe.executorKnown = true;
            for (const LeaseGrant& lease : *executor) {
                if (lease.name == kExecutorLease)
                    probe.executor = lease;
            }
        }
        if (auto replicas = store.liveLeases(std::string(kReplicaLeasePrefix)))
            probe.replicas = std::move(*replicas);
        for (const auto& [id, migration] : probe.map->migrations) {
            if (!migration.value.active())
                continue;
            if (auto history = readMigrationHistory(store, id); history && *history)
                probe.histories[id] = std::move(**history);
        }
        if (auto listed = store.list(std::string(keys::kSnapshots))) {
            probe.snapshots.emplace();
            for (auto& [record, revision] : snapshotsOf(*listed))
                probe.snapshots->push_back(std::move(record));
        }
        if (checkAudit) {
            // A read that fails here is no alert of its own: the map was read a moment ago.
            if (auto audit = verifyAuditChain(store, true))
                probe.auditBreak = audit->broken;
        }
    }
}

} // namespace

FleetObservation FleetProbe::observation() const
{
    FleetObservation out;
    out.nowUnixMs = unixMs;
    out.storeError = storeError;
    out.map = map ? &*map : nullptr;
    out.executorKnown = executorKnown;
    out.executor = executor;
    for (const ProbedNode& node : nodes) {
        out.nodes.push_back({ node.id, node.retired, node.retired ? std::optional<bool>() : node.reachable, node.error,
            &node.vitals, node.latest ? &*node.latest : nullptr });
    }
    for (const auto& [id, history] : histories)
        out.histories[id] = &history;
    out.auditBreak = auditBreak;
    out.snapshots = snapshots ? &*snapshots : nullptr;
    return out;
}

FleetProbe probeFleet(MetadataStore* store, std::optional<Error> storeError, NodeClientPool& nodes,
    std::int64_t historyWindowMs, bool checkAudit)
{
    FleetProbe probe;
    probe.storeError = std::move(storeError);
    if (store)
        readStore(probe, *store, checkAudit);
    if (probe.map) {
        const std::int64_t since = nowMs() - historyWindowMs - 60'000;
        std::vector<std::future<ProbedNode>> asked;
        for (const auto& [id, node] : probe.map->nodes) {
            asked.push_back(std::async(std::launch::async, [&nodes, record = node.value, since, historyWindowMs] {
                return probeNode(record, nodes, since, historyWindowMs);
            }));
        }
        for (auto& answer : asked)
            probe.nodes.push_back(answer.get());
    }
    probe.unixMs = nowMs();
    return probe;
}

} // namespace shardmap::core
