#pragma once

// One look at the whole fleet for a one-shot caller (`shardmapctl health`, cron, monitoring):
// the map, the executor lease and the replicas alive, the histories of open migrations, and from
// every node that is not retired its current metrics and its recent history (so that averages
// over the alert window are known at once). Nodes are asked in parallel, each call with the
// client's deadline. The result owns everything an AlertEvaluator observation points into.

#include "core/client/node_client.h"
#include "core/fleet/alerts.h"
#include "core/map/shard_map.h"
#include "core/migration/migration_history.h"
#include "core/store/metadata_store.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shardmap::core {

struct ProbedNode {
    std::string id;
    std::string address;
    bool retired = false;
    bool reachable = false;
    std::string error;
    NodeSampleWindow vitals;
    std::optional<NodeMetricsValue> latest;
};

struct FleetProbe {
    std::int64_t unixMs = 0;
    std::string store;
    std::optional<Error> storeError;
    std::optional<MapSnapshot> map;
    bool executorKnown = false;
    std::optional<LeaseGrant> executor;
    // Live replica presence leases (name "replicas/<holder>", holder: the replica's address).
    std::vector<LeaseGrant> replicas;
    std::map<std::string, MigrationHistory> histories;
    std::vector<ProbedNode> nodes;
    // The audit's first break, when checkAudit asked for the check and it found one.
    std::optional<AuditChainBreak> auditBreak;
    // The map's snapshot records (issue 32; not read: nullopt).
    std::optional<std::vector<SnapshotRecord>> snapshots;

    // The observation of this probe, pointing into it (keep the probe alive while it is used).
    FleetObservation observation() const;
};

// Reads the store (store may be null: storeError says why it could not be opened) and asks the
// nodes. historyWindowMs: how much node history to read (the alert window). checkAudit: also
// verify the audit's hash chain and the live records against it (reads the whole history).
FleetProbe probeFleet(MetadataStore* store, std::optional<Error> storeError, NodeClientPool& nodes,
    std::int64_t historyWindowMs, bool checkAudit = false);

} // namespace shardmap::core
