// FailoverWatch's implementation: the nodes probed in parallel each round, their unreachable times,
// and the fenced changes the settings call for (promote, lose, restore, drop the replaced copies).
#include "core/migration/failover_watch.h"

#include "core/map/copy_placement.h"
#include "core/migration/migration_phases.h"
#include "core/placement/allocator.h"

#include <algorithm>
#include <future>

namespace shardmap::core {

namespace {

bool failoverLiveNode(const MapSnapshot& map, const std::string& nodeId)
{
    const NodeRecord* node = map.node(nodeId);
    return node && !node->lost && !node->retired;
}

bool failoverHasLostCopy(const ShardRecord& shard)
{
    return std::any_of(shard.replicas.begin(), shard.replicas.end(),
        [](const ShardCopy& copy) { return copy.state == CopyState::Lost; });
}

// A copy to be made again elsewhere: lost, or on a node being retired.
bool failoverCopyGoing(const ShardCopy& copy, const std::set<std::string>& leaving)
{
    return copy.state == CopyState::Lost || leaving.contains(copy.node);
}

bool failoverHasCopyGoing(const ShardRecord& shard, const std::set<std::string>& leaving)
{
    return std::any_of(shard.replicas.begin(), shard.replicas.end(),
        [&](const ShardCopy& copy) { return failoverCopyGoing(copy, leaving); });
}

// The reason of a new copy's audit record.
std::string failoverWhyACopy(const ShardRecord& shard, const std::set<std::string>& leaving)
{
    if (failoverHasLostCopy(shard))
        return "restores a copy lost with its node";
    if (failoverHasCopyGoing(shard, leaving))
        return "moves a copy off a retiring node";
    return "brings the shard to its replication factor";
}

// Copies that count towards the factor: the primary and every copy not lost, on nodes neither
// lost nor being retired (a copy catching up counts: it is on its way).
std::size_t failoverCopiesOf(
    const MapSnapshot& map, const ShardRecord& shard, bool inSyncOnly, const std::set<std::string>& leaving)
{
    std::size_t live = failoverLiveNode(map, shard.node) ? 1 : 0;
    for (const ShardCopy& copy : shard.replicas) {
        const bool counts = inSyncOnly ? copy.state == CopyState::InSync : copy.state != CopyState::Lost;
        live += counts && failoverLiveNode(map, copy.node) && !leaving.contains(copy.node) ? 1 : 0;
    }
    return live;
}

bool failoverSpaceMigrating(const MapSnapshot& map, const std::string& shardId)
{
    const auto spaces = map.spacesOn(shardId);
    return std::any_of(spaces.begin(), spaces.end(), [](const SpaceRecord* space) { return space->migrating(); });
}

std::string failoverElapsed(std::chrono::steady_clock::duration elapsed)
{
    return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count()) + " ms";
}

} // namespace

std::optional<std::string> chooseCopyNode(
    const MapSnapshot& map, const ShardRecord& shard, const std::map<std::string, NodeMetricsValue>& reachable)
{
    std::vector<ShardLoad> loads;
    for (const auto& [nodeId, metrics] : reachable) {
        if (!checkCopyPlacement(map, shard, nodeId))
            continue;
        // The node as one shard of the allocator: what all its shards hold.
        ShardRecord asShard;
        asShard.id = nodeId;
        asShard.node = nodeId;
        ShardLoad load { asShard, 0, 0, map.shardsOn(nodeId).size() + map.copiesOn(nodeId).size(), 1.0, true };
        for (const ShardMetricsValue& entry : metrics.shards) {
            load.docs += entry.liveDocs;
            load.bytes += entry.bytesEstimate;
        }
        if (metrics.diskTotalBytes > 0)
            load.nodeDiskFreeRatio
                = static_cast<double>(metrics.diskFreeBytes) / static_cast<double>(metrics.diskTotalBytes);
        loads.push_back(std::move(load));
    }
    if (loads.empty())
        return std::nullopt;
    auto chosen = allocateShard(AllocationStrategy::LoadAware, shard.id, loads);
    return chosen ? std::optional<std::string>(*chosen) : std::nullopt;
}

FailoverWatch::FailoverWatch(MetadataStore& store, NodeClientPool& nodes, MapEditor::FenceSource fence, Options options)
    : m_store(store)
    , m_probes([&nodes] {
        NodeClientOptions probing = nodes.options();
        probing.callTimeout = std::min(probing.callTimeout, kFailoverProbeTimeout);
        return probing;
    }())
    , m_fence(fence)
    , m_admin(store, nodes, std::move(fence))
    , m_options(std::move(options))
{
    if (MetricsRegistry* metrics = m_options.metrics) {
        m_failovers = &metrics->counter("shardmapd_failovers_total",
            "Primaries this controller promoted a replica for (their node unreachable past failover-after, or lost)");
        m_nodesLost = &metrics->counter(
            "shardmapd_nodes_lost_total", "Nodes this controller marked lost (unreachable past lose-node-after)");
        m_reReplications = &metrics->counter("shardmapd_re_replications_total",
            "Copies this controller made to keep shards at their replication factor (lost or retiring copies, "
            "raised factors)");
    }
}

void FailoverWatch::forget()
{
    m_unreachableSince.clear();
    m_refusals.clear();
}

void FailoverWatch::round()
{
    auto listed = m_admin.map().snapshot();
    if (!listed)
        return;
    const Probe probed = probe(*listed);
    // Read again: a node that takes its whole call deadline to fail makes the probe last seconds.
    auto map = m_admin.map().snapshot();
    if (!map)
        return;
    const std::vector<std::string> back = track(*map, probed);
    fenceReturned(*map, back);
    failOver(*map, probed);
    loseNodes(*map, Clock::now());
    // The changes above are read back before copies are counted.
    auto after = m_admin.map().snapshot();
    if (!after)
        return;
    restoreCopies(*after, probed);
    dropReplacedCopies(*after);
}

FailoverWatch::Probe FailoverWatch::probe(const MapSnapshot& map)
{
    Probe out { Clock::now(), {}, {} };
    std::map<std::string, std::future<Result<NodeMetricsValue>>> asked;
    for (const auto& [nodeId, node] : map.nodes) {
        if (!failoverLiveNode(map, nodeId))
            continue;
        out.asked.insert(nodeId);
        asked.emplace(nodeId, std::async(std::launch::async, [this, address = node.value.address] {
            auto client = m_probes.get(address);
            return client ? (*client)->metrics(false) : Result<NodeMetricsValue>(client.error());
        }));
    }
    for (auto& [nodeId, answer] : asked) {
        auto metrics = answer.get();
        if (metrics)
            out.reachable.emplace(nodeId, std::move(*metrics));
    }
    return out;
}

std::vector<std::string> FailoverWatch::track(const MapSnapshot& map, const Probe& probe)
{
    std::vector<std::string> back;
    for (const auto& [nodeId, node] : map.nodes) {
        if (failoverLiveNode(map, nodeId) && !probe.asked.contains(nodeId))
            continue; // added since the probe listed the nodes
        if (!failoverLiveNode(map, nodeId) || probe.reachable.contains(nodeId)) {
            if (m_unreachableSince.erase(nodeId) && failoverLiveNode(map, nodeId))
                back.push_back(nodeId);
            continue;
        }
        if (m_unreachableSince.emplace(nodeId, probe.askedAt).second)
            log(LogLevel::Warn, "node " + nodeId + " does not answer");
    }
    std::erase_if(m_unreachableSince, [&](const auto& entry) { return !map.node(entry.first); });
    return back;
}

bool FailoverWatch::downFor(const std::string& nodeId, std::uint64_t ms, Clock::time_point now) const
{
    const auto since = m_unreachableSince.find(nodeId);
    return ms != 0 && since != m_unreachableSince.end() && now - since->second >= std::chrono::milliseconds(ms);
}

void FailoverWatch::failOver(const MapSnapshot& map, const Probe& probe)
{
    const std::uint64_t after = map.settings.value.failoverAfterMs;
    const auto now = Clock::now();
    for (const auto& [shardId, versioned] : map.shards) {
        const ShardRecord& shard = versioned.value;
        if (failoverLiveNode(map, shard.node) && downFor(shard.node, after, now))
            promoteShard(map, shard, probe);
    }
}

void FailoverWatch::promoteShard(const MapSnapshot& map, const ShardRecord& shard, const Probe& probe)
{
    const auto next = std::find_if(shard.replicas.begin(), shard.replicas.end(), [&](const ShardCopy& copy) {
        return copy.state == CopyState::InSync && failoverLiveNode(map, copy.node)
            && probe.reachable.contains(copy.node);
    });
    if (next == shard.replicas.end())
        return refusedOnce(shard.id,
            "shard " + shard.id + "'s primary's node " + shard.node
                + " does not answer and no in-sync replica on a node that answers can take over");
    const std::string down = failoverElapsed(Clock::now() - m_unreachableSince.at(shard.node));
    cancelMigrationsOf(map, shard, "failover: node " + shard.node + " unreachable for " + down);
    auto promoted
        = m_admin.promote(shard.id, next->node, actor("failover: node " + shard.node + " unreachable for " + down));
    if (!promoted)
        return refusedOnce(
            shard.id, "cannot fail shard " + shard.id + " over to " + next->node + ": " + promoted.error().describe());
    m_refusals.erase(shard.id);
    if (m_failovers)
        m_failovers->add();
    log(LogLevel::Warn,
        "failover: shard " + shard.id + "'s primary moved from " + shard.node + " (unreachable for " + down + ") to "
            + next->node + " (map revision " + std::to_string(promoted->change.revision) + ")");
    for (const std::string& warning : promoted->warnings)
        log(LogLevel::Info, "failover of " + shard.id + ": " + warning);
}

// A shard whose spaces migrate cannot be promoted (MapEditor::promote): its migrations that have
// not cut over yet are cancelled, by the fenced commit `migrations cancel` makes, so that the
// executor stops their dual writes and leaves each space on its source (the target's partial copy
// dropped), and the next round promotes. One cutting over ends within cutover_timeout_ms.
void FailoverWatch::cancelMigrationsOf(const MapSnapshot& map, const ShardRecord& shard, const std::string& why)
{
    for (const SpaceRecord* space : map.spacesOn(shard.id)) {
        const auto found = map.migrations.find(space->migrationId);
        if (!space->migrating() || found == map.migrations.end())
            continue;
        MigrationRecord migration = found->second.value;
        if (!beforeCutover(migration.phase) || migration.cancelRequested || migration.aborting)
            continue;
        auto grant = m_fence();
        if (!grant)
            return;
        migration.cancelRequested = true;
        CommitRequest request { { { keys::migration(migration.id), encode(migration), found->second.modRevision } },
            std::nullopt, *grant, m_options.actor, "cancel-migration", why };
        if (auto committed = m_store.commit(request); !committed) {
            refusedOnce(migration.id,
                "cannot cancel migration " + migration.id + " for the failover of shard " + shard.id + ": "
                    + committed.error().describe());
            continue;
        }
        log(LogLevel::Warn,
            "failover of shard " + shard.id + ": migration " + migration.id + " of space " + space->id + " cancelled ("
                + why + "); the shard fails over once it has stopped");
    }
}

void FailoverWatch::loseNodes(const MapSnapshot& map, Clock::time_point now)
{
    const std::uint64_t after = map.settings.value.loseNodeAfterMs;
    for (const auto& [nodeId, since] : std::map(m_unreachableSince)) {
        if (!failoverLiveNode(map, nodeId) || !downFor(nodeId, after, now))
            continue;
        auto lost = m_admin.loseNode(nodeId, actor("unreachable for " + failoverElapsed(now - since)));
        if (!lost) {
            refusedOnce(nodeId, "cannot mark node " + nodeId + " lost: " + lost.error().describe());
            continue;
        }
        m_unreachableSince.erase(nodeId);
        m_refusals.erase(nodeId);
        if (m_nodesLost)
            m_nodesLost->add();
        if (m_failovers)
            m_failovers->add(lost->loss.promoted.size());
        log(LogLevel::Warn,
            "node " + nodeId + " marked lost after " + failoverElapsed(now - since) + " unreachable; "
                + std::to_string(lost->loss.promoted.size()) + " primaries promoted elsewhere, "
                + std::to_string(lost->loss.withoutCopy.size()) + " shards left without an in-sync copy");
    }
}

void FailoverWatch::restoreCopies(const MapSnapshot& map, const Probe& probe)
{
    const MigrationSettings& settings = map.settings.value;
    const std::set<std::string> leaving = nodesBeingRetired(map);
    std::size_t inFlight = 0;
    std::vector<const ShardRecord*> wanting;
    for (const auto& [shardId, versioned] : map.shards) {
        const ShardRecord& shard = versioned.value;
        // A shard whose primary is on a lost node has nothing to copy from (red); one whose primary
        // is on a node being retired, or that is being drained or retired, is emptied, not copied.
        if (!failoverLiveNode(map, shard.node) || leaving.contains(shard.node) || shard.state == ShardState::Retired
            || shard.state == ShardState::Draining)
            continue;
        inFlight += failoverCopiesOf(map, shard, false, leaving) - failoverCopiesOf(map, shard, true, leaving);
        if (failoverCopiesOf(map, shard, false, leaving) < settings.replicationFactorOf(shard))
            wanting.push_back(&shard);
    }
    for (const ShardRecord* shard : wanting) {
        if (settings.maxReReplications != 0 && inFlight >= settings.maxReReplications)
            return;
        const auto node = chooseCopyNode(map, *shard, probe.reachable);
        if (!node) {
            refusedOnce(shard->id, "shard " + shard->id + " has fewer copies than its factor and no node may take one");
            continue;
        }
        auto added = m_admin.addReplica(shard->id, *node, actor(failoverWhyACopy(*shard, leaving)));
        if (!added) {
            refusedOnce(shard->id,
                "cannot restore a copy of shard " + shard->id + " on " + *node + ": " + added.error().describe());
            continue;
        }
        ++inFlight;
        m_refusals.erase(shard->id);
        if (m_reReplications)
            m_reReplications->add();
        log(LogLevel::Info,
            "re-replication: a new copy of shard " + shard->id + " on " + *node + " (map revision "
                + std::to_string(added->change.revision) + ")");
    }
}

// A lost copy stays listed (the shard shows yellow, the copy says why) until the shard has its
// factor in sync without it; then it goes, as `shard replicas remove` would take it off the map.
// So does a copy on a node being retired, which then lets the retire-node finish.
void FailoverWatch::dropReplacedCopies(const MapSnapshot& map)
{
    const std::set<std::string> leaving = nodesBeingRetired(map);
    for (const auto& [shardId, versioned] : map.shards) {
        const ShardRecord& shard = versioned.value;
        if (!failoverHasCopyGoing(shard, leaving)
            || failoverCopiesOf(map, shard, true, leaving) < map.settings.value.replicationFactorOf(shard))
            continue;
        for (const ShardCopy& copy : shard.replicas) {
            if (!failoverCopyGoing(copy, leaving))
                continue;
            if (!dropCopy(shardId, copy))
                break;
        }
    }
}

// A lost copy comes off the map only (its node is gone); one on a node being retired is also
// dropped on the node with its documents (a node that cannot is a warning).
bool FailoverWatch::dropCopy(const std::string& shardId, const ShardCopy& copy)
{
    const bool lost = copy.state == CopyState::Lost;
    std::optional<Error> refused;
    std::vector<std::string> warnings;
    if (lost) {
        if (auto removed = m_admin.map().removeReplica(shardId, copy.node, actor("its replacement is in sync"));
            !removed)
            refused = removed.error();
    } else if (auto removed = m_admin.removeReplica(shardId, copy.node, actor("its node is being retired")); !removed) {
        refused = removed.error();
    } else {
        warnings = removed->warnings;
    }
    if (refused) {
        refusedOnce(shardId + "/" + copy.node,
            "cannot drop shard " + shardId + "'s " + (lost ? "lost " : "") + "copy on " + copy.node + ": "
                + refused->describe());
        return false;
    }
    log(LogLevel::Info,
        "shard " + shardId + "'s "
            + (lost ? "lost copy on " + copy.node + " is replaced" : "copy on " + copy.node + " is made elsewhere")
            + "; dropped from the map");
    for (const std::string& warning : warnings)
        log(LogLevel::Warn, "shard " + shardId + "'s copy on " + copy.node + ": " + warning);
    return true;
}

void FailoverWatch::fenceReturned(const MapSnapshot& map, const std::vector<std::string>& back)
{
    for (const std::string& nodeId : back) {
        log(LogLevel::Info, "node " + nodeId + " answers again");
        std::vector<std::string> warnings;
        for (const ShardRecord* shard : map.copiesOn(nodeId)) {
            const ShardCopy* copy = shard->replicaOn(nodeId);
            // A migrating space's nodes hold the epochs its migration gave them.
            if (!copy || copy->state == CopyState::Lost || failoverSpaceMigrating(map, shard->id))
                continue;
            std::vector<SpaceRecord> spaces;
            for (const SpaceRecord* space : map.spacesOn(shard->id))
                spaces.push_back(*space);
            m_admin.tellEpochs(map, { *shard, std::move(spaces), map.revision }, warnings);
        }
        for (const std::string& warning : warnings)
            log(LogLevel::Info, "node " + nodeId + " back: " + warning);
    }
}

void FailoverWatch::refusedOnce(const std::string& subject, const std::string& message)
{
    auto [it, added] = m_refusals.emplace(subject, message);
    if (!added && it->second == message)
        return;
    it->second = message;
    log(LogLevel::Warn, message);
}

void FailoverWatch::log(LogLevel level, const std::string& message) const
{
    if (m_options.log)
        m_options.log(level, message);
}

} // namespace shardmap::core
