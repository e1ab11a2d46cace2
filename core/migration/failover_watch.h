#pragma once

// The executor leader's watch over its nodes (issue 30): which nodes stopped answering and since
// when, and what the settings make of it: a primary's in-sync replica promoted after
// failover-after, a node marked lost after lose-node-after, every shard kept at its replication
// factor (copies of lost or retiring nodes made again, new copies for a raised factor or a new
// shard) on other nodes (throttled), and replaced copies dropped from the map.

#include "core/admin/fleet_admin.h"
#include "core/client/node_client.h"
#include "core/map/shard_map.h"
#include "core/metrics/prometheus.h"
#include "core/store/metadata_store.h"
#include "core/util/log.h"

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace shardmap::core {

// The node for a new copy of shard: among the nodes in `reachable` (each with its latest metrics)
// that checkCopyPlacement allows, the one the allocator's load-aware score (allocateShard) ranks
// first, each node's shards summed as one load (docs, bytes, free disk; ties: fewer copies).
// nullopt when no node may take it.
std::optional<std::string> chooseCopyNode(
    const MapSnapshot& map, const ShardRecord& shard, const std::map<std::string, NodeMetricsValue>& reachable);

// How long a probe waits for a node's metrics before the node counts as unreachable this round.
inline constexpr std::chrono::milliseconds kFailoverProbeTimeout { 3000 };

// One round at a time, called by the executor's watch thread while it leads:
//
// - every node neither retired nor lost is asked for its metrics (the call `shardmapctl health`
//   makes), all at once, within kFailoverProbeTimeout; a node that does not answer is unreachable
//   from the moment it was asked, and stays so until it answers. The times live in this leader's memory only: a new
//   leader counts afresh, which can only delay a promotion, never hasten one;
// - failover: a shard whose primary's node has been unreachable for failoverAfterMs, with an
//   in-sync replica on a node that answers, has that replica promoted (MapEditor::promote's rule:
//   epochs + 1, the old primary demoted to catching up), then every copy is told the new epochs;
//   a migration of one of its spaces that has not cut over is cancelled first (the promotion
//   waits for it to stop);
// - a node unreachable for loseNodeAfterMs is marked lost (MapEditor::loseNode's rule);
// - a shard (active or read-only, its primary on a live node not being retired) with fewer live
//   copies than its factor, not counting lost copies and replicas on a node being retired
//   (nodesBeingRetired): a copy lost, a factor raised, a new shard, gets a new copy on the node
//   chooseCopyNode picks
//   (FleetAdmin::addReplica: made on its node, listed catching up, brought in sync by the
//   executor's catch-up), at most maxReReplications catching up at once; once the shard has its
//   factor in sync without them, its lost copies are taken off the map and its copies on a node
//   being retired dropped (a replica beyond the factor goes at once), so the retire-node ends;
// - a node that answers again after being unreachable is told the epochs of the spaces of the
//   copies it holds, so that an old primary refuses writes at the old epoch before its catch-up
//   starts.
//
// Every commit is fenced with the executor's lease (FleetAdmin with its fence).
class FailoverWatch {
public:
    struct Options {
        std::string actor = "executor";
        LogSink log;
        // shardmapd_failovers_total, shardmapd_nodes_lost_total, shardmapd_re_replications_total.
        MetricsRegistry* metrics = nullptr;
    };

    FailoverWatch(MetadataStore& store, NodeClientPool& nodes, MapEditor::FenceSource fence, Options options);

    void round();
    // Forgets every unreachable time (a leader counts afresh each time it starts leading).
    void forget();

private:
    using Clock = std::chrono::steady_clock;
    struct Probe {
        Clock::time_point askedAt;
        std::set<std::string> asked;
        std::map<std::string, NodeMetricsValue> reachable;
    };
    Probe probe(const MapSnapshot& map);
    // Updates the unreachable times from a probe; the nodes that answer again.
    std::vector<std::string> track(const MapSnapshot& map, const Probe& probe);
    bool downFor(const std::string& nodeId, std::uint64_t ms, Clock::time_point now) const;
    void failOver(const MapSnapshot& map, const Probe& probe);
    void promoteShard(const MapSnapshot& map, const ShardRecord& shard, const Probe& probe);
    void cancelMigrationsOf(const MapSnapshot& map, const ShardRecord& shard, const std::string& why);
    void loseNodes(const MapSnapshot& map, Clock::time_point now);
    void restoreCopies(const MapSnapshot& map, const Probe& probe);
    void dropReplacedCopies(const MapSnapshot& map);
    bool dropCopy(const std::string& shardId, const ShardCopy& copy);
    void fenceReturned(const MapSnapshot& map, const std::vector<std::string>& back);
    // Logs a refusal once per subject until it changes (a round runs twice a second).
    void refusedOnce(const std::string& subject, const std::string& message);
    void log(LogLevel level, const std::string& message) const;
    Actor actor(const std::string& reason) const { return { m_options.actor, reason }; }

    MetadataStore& m_store;
    // The probes' own clients, with a deadline of kFailoverProbeTimeout: a black-holed node
    // (partitioned, SIGSTOPped) must not hold a round for the 10 s deadline of the other calls,
    // which would delay its promotion by as much.
    NodeClientPool m_probes;
    MapEditor::FenceSource m_fence;
    FleetAdmin m_admin;
    Options m_options;
    std::map<std::string, Clock::time_point> m_unreachableSince;
    std::map<std::string, std::string> m_refusals;
    MetricCounter* m_failovers = nullptr;
    MetricCounter* m_nodesLost = nullptr;
    MetricCounter* m_reReplications = nullptr;
};

} // namespace shardmap::core
