// The copies chaos harness (issue 30): what happens to a shard's copies when their nodes fail, with
// real processes. Four nodes, every shard at replication factor 2 (s<i> on n<i>, its replica on
// n<i+1>), a shardmapd leader (executor and router) and a second shardmapd that only routes and
// serves the writers, the adversarial workload (adversarial_workload.h, without large documents)
// on four spaces (sp0 on s0, sp1 on s1, sp2 and sp3 on s2; s3 holds none). The failover settings
// are short (failover after 1.5 s; lose after 3 s while lose_node runs, never otherwise, see
// SetUp) and no command is typed. Three faults, in an
// order and after pauses the seed picks, each checked to have happened:
//
// - lose_node: n0, holding s0's primary, is killed (kill -9) and its data dir deleted. The
//   executor must promote s0's replica, mark n0 lost and re-replicate every copy n0 held until
//   every shard has its factor in sync again.
// - partition_primary: the leader runs in a network namespace (network_namespaces.h); its route to
//   n1, alone on its host address, is blackholed while the writers' shardmapd still reaches n1.
//   The leader must promote the replicas of n1's primaries; then the cut heals, n1 must be told the
//   new epochs (refuse a write at the old one) and end an in-sync replica. Needs root: skipped
//   with its reason otherwise.
// - fill_replica_disk: n3's data dir is a small tmpfs (small_filesystem.h); a file fills it while
//   n3 holds an in-sync replica of a shard with spaces, so that the replica's writes fail (ENOSPC).
//   The router must mark the copy catching up and still acknowledge writes on the other copy; once
//   the file is removed, catch-up must bring the copy in sync. Needs root: skipped otherwise.
//
// Invariants, checked about every 200 ms while it runs and at the end:
//
// a. Every acknowledged write is on every in-sync copy. The model is read first, then the map: a
//    write acknowledged before the model was read was applied by every copy in sync then, or that
//    copy was marked catching up (a fenced map change) before the acknowledgement and could be in
//    sync again in the later map only after a catch-up verified it against the primary. Versions
//    only grow, so the copy's rows, scanned after that map, must hold each acknowledged version or a
//    newer one, and the acknowledged content at that version. No false alarm from writes racing the
//    check, and a lost acknowledged write, or another content at its version, is caught.
// b. At most one primary accepts writes at the map's epoch. A router acknowledges a write only when
//    the primary of its route and every in-sync copy of that route applied it at the route's epoch;
//    the map names one primary per epoch, so a second primary can only be a router routing by an
//    older map (the old primary, e.g. the partitioned one, at the old epoch). Its write needs the
//    copies in sync at that old epoch, the new primary among them, and fencing means: once the map
//    moved a space to epoch E and a copy holds E, that copy refuses epoch E-1. So for every space at
//    an epoch above 1 (promotions raised it), the map's primary and its in-sync replicas that hold E
//    are sent a probe write at E-1 (an id the model does not know) that must be refused; a copy of
//    the map still behind E 10 s after the map moved there (the map still at E) is a violation too
//    (never told); and no node outside the shard's copies may hold the space writable at E. A probe
//    is applied only when fencing broke, and then the probe's row also shows in the final
//    comparison. (Checked: with the node's epoch check loosened to take E-1, the run fails at once.)
//
// At the end: the writers settled, every shard at its factor with every copy in sync, nothing lost
// left in the map, every acknowledged write (the whole model) on every copy, no anomaly in the
// writers' answers. SHARDMAP_COPIES_CHAOS_SEEDS (default "1") and SHARDMAP_CHAOS_SECONDS (default
// 20) choose the runs, on both stores.
#include "core/admin/fleet_admin.h"
#include "core/map/shard_map.h"
#include "tests/support/adversarial_workload.h"
#include "tests/support/controller_process.h"
#include "tests/support/etcd_process.h"
#include "tests/support/fleet_test.h"
#include "tests/support/network_namespaces.h"
#include "tests/support/small_filesystem.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>

using namespace shardmap;
using namespace shardmap::testing;
using Clock = std::chrono::steady_clock;

namespace {

struct CopiesRun {
    std::string store;
    std::uint32_t seed = 1;
};

std::ostream& operator<<(std::ostream& out, const CopiesRun& run)
{
    return out << run.store << "/seed" << run.seed;
}

std::vector<CopiesRun> copiesRuns()
{
    std::vector<std::uint32_t> seeds;
    const char* env = std::getenv("SHARDMAP_COPIES_CHAOS_SEEDS");
    std::stringstream list(env && *env ? env : "1");
    for (std::string item; std::getline(list, item, ',');) {
        if (!item.empty())
            seeds.push_back(static_cast<std::uint32_t>(std::stoul(item)));
    }
    std::vector<CopiesRun> runs;
    for (const char* store : { "sqlite", "etcd" }) {
        for (const auto seed : seeds)
            runs.push_back({ store, seed });
    }
    return runs;
}

std::chrono::seconds copiesDuration()
{
    const char* env = std::getenv("SHARDMAP_CHAOS_SECONDS");
    return std::chrono::seconds(env && *env ? std::stol(env) : 20);
}

enum class CopyFault { LoseNode, PartitionPrimary, FillReplicaDisk };

const char* faultName(CopyFault kind)
{
    switch (kind) {
    case CopyFault::LoseNode: return "lose_node";
    case CopyFault::PartitionPrimary: return "partition_primary";
    case CopyFault::FillReplicaDisk: return "fill_replica_disk";
    }
    return "?";
}

struct CopyFaultRecord {
    CopyFault kind;
    double atSeconds = 0;
    double tookSeconds = 0;
    bool happened = false;
    bool skipped = false;
    std::string detail;
};

constexpr std::size_t kCopiesNodes = 4;
constexpr std::size_t kCopiesLostNode = 0; // primary of s0, lost for good
constexpr std::size_t kCutNode = 1; // primary of s1, alone on its host address
constexpr std::size_t kFullNode = 3; // its data dir on a small tmpfs; replica of s2 (sp2, sp3)
const std::vector<std::pair<std::string, std::string>> kSpaces {
    { "sp0", "s0" }, { "sp1", "s1" }, { "sp2", "s2" }, { "sp3", "s2" }
};

std::string nodeName(std::size_t i)
{
    return "n" + std::to_string(i);
}

// The primary and the in-sync replicas of a shard.
std::vector<std::string> inSyncCopies(const core::ShardRecord& shard)
{
    std::vector<std::string> nodes { shard.node };
    for (const auto& copy : shard.replicas) {
        if (copy.state == core::CopyState::InSync)
            nodes.push_back(copy.node);
    }
    return nodes;
}

bool isCopyOf(const core::ShardRecord& shard, const std::string& node)
{
    return shard.node == node || shard.replicaOn(node) != nullptr;
}

// Every shard at its factor, every copy in sync, no copy on a lost node, no primary on one.
std::string unsettledCopies(const core::MapSnapshot& map)
{
    std::string out;
    for (const auto& [id, versioned] : map.shards) {
        const auto& shard = versioned.value;
        const auto* primaryNode = map.node(shard.node);
        if (primaryNode && primaryNode->lost)
            out += " " + id + ": primary on lost " + shard.node + ";";
        std::size_t inSync = 1;
        for (const auto& copy : shard.replicas) {
            if (copy.state != core::CopyState::InSync)
                out += " " + id + ": copy on " + copy.node + " " + core::copyStateName(copy.state) + ";";
            else
                ++inSync;
        }
        if (inSync != std::max<std::uint32_t>(1, shard.replicationFactor) || shard.replicas.size() + 1 != inSync)
            out += " " + id + ": " + std::to_string(inSync) + " in-sync copies of " + std::to_string(shard.replicationFactor)
                + ";";
    }
    return out;
}

class CopiesChaosTest : public FleetTest<::testing::TestWithParam<CopiesRun>> {
protected:
    void SetUp() override
    {
        m_network = NetworkNamespaces::create(1, m_networkUnavailable);
        std::vector<std::string> storeHosts;
        if (m_network) {
            // The cut node alone on the service address; the others, and etcd, on the store's.
            m_nodeHosts = std::vector<std::string>(kCopiesNodes, m_network->storeHost());
            m_nodeHosts[kCutNode] = m_network->serviceHost();
            storeHosts.push_back(m_network->storeHost());
        }
        if (GetParam().store == "etcd") {
            std::string error;
            m_etcd = EtcdProcess::start(error, std::nullopt, storeHosts);
            ASSERT_TRUE(m_etcd) << "etcd is needed for this test and did not start: " << error;
            m_storeUri = "etcd://" + m_etcd->endpoint() + "/copies";
        }
        m_smallDisk = std::make_unique<SmallFilesystem>(m_dir.file("node" + std::to_string(kFullNode)), "32m");
        if (!m_smallDisk->mounted())
            m_smallDisk.reset();
        startFleet(kCopiesNodes);
        core::MigrationSettings settings;
        settings.rollbackWindowSeconds = 0;
        settings.backfillBatch = 100;
        settings.failoverAfterMs = 1500;
        // Off but during lose_node (3 s then). The leader finds a blackholed node unreachable only
        // when its probe's call deadline (10 s) passes, and counts it unreachable from the ask:
        // any lose-after below that would mark the partitioned primary lost in the very round
        // that promotes its replica.
        settings.loseNodeAfterMs = 0;
        settings.maxReReplications = 2;
        core::FleetAdmin admin(*m_store, m_pool);
        auto set = admin.setSettings(settings, m_actor);
        ASSERT_TRUE(set) << set.error().describe();
    }

    // The administrator's lose_node_after_ms (0: never), the other settings as they are.
    bool setLoseNodeAfter(std::uint64_t ms)
    {
        const auto map = readMap();
        if (!map)
            return false;
        core::MigrationSettings settings = map->settings.value;
        settings.loseNodeAfterMs = ms;
        core::FleetAdmin admin(*m_store, m_pool);
        return static_cast<bool>(admin.setSettings(settings, m_actor));
    }

    // The leader: in network namespace 0 when there is one (reaching the store and the nodes by
    // their host addresses), so that its route to the cut node alone can be blackholed.
    std::unique_ptr<ControllerProcess> startLeader()
    {
        std::vector<std::string> args { "--store", storeUri(), "--id", "c1", "--lease-ttl-ms", "1000" };
        std::vector<std::string> launcher;
        if (m_network) {
            if (m_etcd) {
                const auto& endpoint = m_etcd->endpoint();
                args[1] = "etcd://" + m_network->storeHost() + endpoint.substr(endpoint.rfind(':')) + "/copies";
            }
            args.insert(args.end(), { "--listen", m_network->hostInside(0) + ":0", "--insecure" });
            launcher = m_network->inside(0, {});
        }
        return ControllerProcess::start(m_dir.file("c1.stderr.log"), args, {}, launcher);
    }

    std::optional<core::MapSnapshot> readMap()
    {
        auto snapshot = m_store->snapshot();
        if (!snapshot)
            return std::nullopt;
        auto decoded = core::MapSnapshot::decode(*snapshot);
        if (!decoded)
            return std::nullopt;
        return std::move(*decoded);
    }

    std::shared_ptr<core::NodeClient> clientOfNode(const core::MapSnapshot& map, const std::string& node)
    {
        const auto* record = map.node(node);
        if (!record)
            return nullptr;
        auto client = m_pool.get(record->address);
        return client ? *client : nullptr;
    }

    // Every row of a space on a node's copy of shard (nullopt when it cannot be read whole).
    std::optional<std::map<std::string, core::Document>> scanAll(
        core::NodeClient& client, const std::string& shard, const std::string& space)
    {
        std::map<std::string, core::Document> rows;
        std::string after;
        for (;;) {
            auto page = client.scanPage(shard, space, after, 200, true);
            if (!page)
                return std::nullopt;
            for (auto& doc : page->docs)
                rows.emplace(doc.id, std::move(doc));
            if (page->done)
                return rows;
            after = page->cursor;
        }
    }

    void violation(const std::string& what)
    {
        std::lock_guard lock(m_violationMutex);
        if (m_violations.size() < 50)
            m_violations.push_back(what);
    }

    // Invariant a on one space: every acknowledged write of `model` (read before `map`) on every
    // copy `map` lists in sync.
    void checkAcknowledgedOnCopies(const core::MapSnapshot& map, const std::string& space,
        const std::map<std::string, AdversarialEntry>& model)
    {
        const auto* record = map.space(space);
        const auto* shard = record ? map.shard(record->shard) : nullptr;
        if (!shard)
            return;
        for (const auto& node : inSyncCopies(*shard)) {
            auto client = clientOfNode(map, node);
            const auto rows = client ? scanAll(*client, shard->id, space) : std::nullopt;
            if (!rows)
                continue; // a node killed or partitioned from the test: nothing read, nothing claimed
            ++m_checks;
            for (const auto& [id, entry] : model) {
                if (entry.acked == 0)
                    continue;
                const auto found = rows->find(id);
                const std::string where = " on " + node + ", in sync for " + shard->id + " in the map";
                if (found == rows->end() || found->second.version < entry.acked) {
                    violation(space + "/" + id + " v" + std::to_string(entry.acked) + " acknowledged but "
                        + (found == rows->end() ? std::string("absent") : "at v" + std::to_string(found->second.version))
                        + where);
                } else if (found->second.version == entry.acked
                    && (found->second.deleted != entry.deleted
                        || (!entry.deleted && found->second.fields.at("body") != entry.body))) {
                    violation(space + "/" + id + " v" + std::to_string(entry.acked)
                        + " has another content than the acknowledged one" + where);
                }
            }
        }
    }

    // Invariant b on one space (see the file's first comment).
    void checkFencing(const core::MapSnapshot& map, const std::string& space)
    {
        const auto* record = map.space(space);
        const auto* shard = record ? map.shard(record->shard) : nullptr;
        if (!shard)
            return;
        const std::uint64_t epoch = record->epoch;
        const auto now = Clock::now();
        const auto firstSeen = m_epochSeen.emplace(space + "@" + std::to_string(epoch), now).first->second;
        for (const auto& [nodeId, node] : map.nodes) {
            if (node.value.lost || (nodeId == nodeName(kCopiesLostNode) && m_nodeLost))
                continue;
            auto client = clientOfNode(map, nodeId);
            if (!client)
                continue;
            auto held = client->ownerships(shard->id, space);
            if (!held)
                continue;
            bool holdsEpoch = false;
            for (const auto& ownership : *held) {
                if (ownership.epoch == epoch && core::acceptsWrites(ownership.role)) {
                    holdsEpoch = true;
                    if (!isCopyOf(*shard, nodeId) && !copyNow(shard->id, nodeId))
                        violation(space + ": " + nodeId + " accepts writes at the map's epoch "
                            + std::to_string(epoch) + " but holds no copy of " + shard->id);
                }
            }
            const auto inSync = inSyncCopies(*shard);
            if (std::find(inSync.begin(), inSync.end(), nodeId) == inSync.end() || epoch <= 1)
                continue;
            if (!holdsEpoch) {
                // Behind the map, and the map still at that epoch after the read (a promotion
                // committed since tells the copy a newer one).
                const bool behind = std::all_of(
                    held->begin(), held->end(), [&](const core::Ownership& o) { return o.epoch < epoch; });
                if (behind && now - firstSeen > std::chrono::seconds(10) && !isPartitionedFromLeader(nodeId)
                    && spaceEpochNow(space) == epoch)
                    violation(space + ": " + nodeId + ", in sync for " + shard->id
                        + ", still does not hold the map's epoch " + std::to_string(epoch) + " 10 s after the map moved");
                continue;
            }
            core::Document probe;
            probe.space = space;
            probe.id = "fence-probe";
            probe.version = 1;
            probe.fields = { { "title", "probe" }, { "body", "probe" } };
            ++m_probes;
            if (client->bulkWrite(shard->id, { { probe, epoch - 1 } }))
                violation(space + ": " + nodeId + ", in sync for " + shard->id + " at epoch " + std::to_string(epoch)
                    + ", accepted a write at epoch " + std::to_string(epoch - 1)
                    + ": a router routing by the older map could have it acknowledged by a second primary");
        }
    }

    // Whether the map lists node as a copy of shard now (a copy added since an earlier read).
    bool copyNow(const std::string& shard, const std::string& node)
    {
        const auto map = readMap();
        const auto* record = map ? map->shard(shard) : nullptr;
        return !record || isCopyOf(*record, node);
    }

    std::uint64_t spaceEpochNow(const std::string& space)
    {
        const auto map = readMap();
        const auto* record = map ? map->space(space) : nullptr;
        return record ? record->epoch : 0;
    }

    bool isPartitionedFromLeader(const std::string& node) { return m_cutActive && node == nodeName(kCutNode); }

    void checkInvariants(const AdversarialWorkload& workload)
    {
        for (const auto& [space, shard] : kSpaces) {
            const auto model = workload.model(space);
            const auto map = readMap();
            if (!map)
                continue;
            checkAcknowledgedOnCopies(*map, space, model);
            checkFencing(*map, space);
        }
    }

    // The sum of the acknowledged versions of the spaces on a set of shards: grows with every
    // write acknowledged there.
    std::uint64_t ackedOn(const AdversarialWorkload& workload, const std::set<std::string>& shards)
    {
        const auto map = readMap();
        std::uint64_t sum = 0;
        for (const auto& [space, initial] : kSpaces) {
            const auto* record = map ? map->space(space) : nullptr;
            if (!record || !shards.contains(record->shard))
                continue;
            for (const auto& [id, entry] : workload.model(space))
                sum += entry.acked;
        }
        return sum;
    }

    bool fire(CopyFault kind, const AdversarialWorkload& workload, std::string& detail, bool& skipped)
    {
        switch (kind) {
        case CopyFault::LoseNode: return loseNode(detail);
        case CopyFault::PartitionPrimary:
            if (!m_network) {
                skipped = true;
                detail = "skipped: network namespaces unavailable (" + m_networkUnavailable + ")";
                return true;
            }
            return partitionPrimary(workload, detail);
        case CopyFault::FillReplicaDisk:
            if (!m_smallDisk) {
                skipped = true;
                detail = "skipped: no small filesystem for n" + std::to_string(kFullNode) + "'s data (needs root)";
                return true;
            }
            return fillReplicaDisk(workload, detail);
        }
        return false;
    }

    // n0 killed with its data deleted; the executor alone promotes, marks it lost and restores
    // every copy it held.
    bool loseNode(std::string& detail)
    {
        const std::string lost = nodeName(kCopiesLostNode);
        auto before = readMap();
        std::set<std::string> primaries;
        std::set<std::string> held;
        for (const auto& [id, shard] : before ? before->shards : decltype(before->shards) {}) {
            if (shard.value.node == lost)
                primaries.insert(id);
            if (isCopyOf(shard.value, lost))
                held.insert(id);
        }
        if (primaries.empty()) {
            detail = lost + " holds no primary";
            return false;
        }
        if (!setLoseNodeAfter(3000)) {
            detail = "lose_node_after_ms could not be set";
            return false;
        }
        const auto start = Clock::now();
        m_nodes[kCopiesLostNode]->kill9();
        std::error_code ignored;
        std::filesystem::remove_all(m_dataDirs[kCopiesLostNode], ignored);
        m_nodeLost = true;
        auto seconds = [&] { return std::to_string(std::chrono::duration<double>(Clock::now() - start).count()); };
        const bool promoted = pollUntil(std::chrono::seconds(20), [&] {
            const auto now = readMap();
            return now && std::none_of(primaries.begin(), primaries.end(), [&](const auto& id) {
                return now->shard(id)->node == lost;
            });
        });
        detail = lost + " (primary of " + joined(primaries) + ", copies of " + joined(held)
            + ") killed and its data deleted; " + (promoted ? "promoted after " + seconds() + " s" : "not promoted");
        const bool markedLost = pollUntil(std::chrono::seconds(20), [&] {
            const auto now = readMap();
            return now && now->node(lost) && now->node(lost)->lost;
        });
        detail += markedLost ? ", marked lost after " + seconds() + " s" : ", not marked lost";
        std::string unsettled;
        const bool restored = pollUntil(std::chrono::seconds(60), [&] {
            const auto now = readMap();
            if (!now)
                return false;
            unsettled = unsettledCopies(*now);
            for (const auto& id : held) {
                if (isCopyOf(*now->shard(id), lost))
                    unsettled += " " + id + " still lists " + lost + ";";
            }
            return unsettled.empty();
        });
        detail += restored ? ", factor restored in sync after " + seconds() + " s" : ", factor not restored:" + unsettled;
        return setLoseNodeAfter(0) && promoted && markedLost && restored;
    }

    // The leader's route to n1 blackholed; the writers' router still reaches it.
    bool partitionPrimary(const AdversarialWorkload& workload, std::string& detail)
    {
        const std::string cut = nodeName(kCutNode);
        std::set<std::string> primaries;
        std::map<std::string, std::uint64_t> oldEpochs;
        // n1 must hold a primary with an in-sync replica on a node that answers.
        pollUntil(std::chrono::seconds(30), [&] {
            primaries.clear();
            const auto map = readMap();
            if (!map || !unsettledCopies(*map).empty())
                return false;
            for (const auto& [id, shard] : map->shards) {
                if (shard.value.node == cut && inSyncCopies(shard.value).size() > 1)
                    primaries.insert(id);
            }
            for (const auto& [space, initial] : kSpaces) {
                if (primaries.contains(map->space(space)->shard))
                    oldEpochs[space] = map->space(space)->epoch;
            }
            return !primaries.empty();
        });
        if (primaries.empty()) {
            detail = cut + " held no primary with an in-sync replica";
            return false;
        }
        std::string error;
        const auto start = Clock::now();
        if (!m_network->cut(0, m_network->serviceHost(), error)) {
            detail = "cut failed: " + error;
            return false;
        }
        m_cutActive = true;
        auto seconds = [&] { return std::to_string(std::chrono::duration<double>(Clock::now() - start).count()); };
        // The leader learns of the cut when its probe's call deadline (10 s) passes; telling the cut
        // node the new epochs can wait for that deadline again, shard by shard.
        const bool promoted = pollUntil(std::chrono::seconds(45), [&] {
            const auto now = readMap();
            return now && std::none_of(primaries.begin(), primaries.end(), [&](const auto& id) {
                return now->shard(id)->node == cut;
            });
        });
        detail = "the leader's route to " + cut + " (primary of " + joined(primaries) + ") blackholed; "
            + (promoted ? "promoted after " + seconds() + " s" : "not promoted");
        auto stillAnswers = [&] {
            const auto map = readMap();
            auto client = map ? clientOfNode(*map, cut) : nullptr;
            return client && client->metrics(false);
        };
        const bool answers = static_cast<bool>(stillAnswers());
        detail += answers ? ", " + cut + " still answering the test" : ", " + cut + " not answering the test";
        // Writes acknowledged on the new primaries while the old one is cut off.
        std::set<std::string> moved(primaries.begin(), primaries.end());
        const auto acked = ackedOn(workload, moved);
        const bool resumed
            = promoted && pollUntil(std::chrono::seconds(10), [&] { return ackedOn(workload, moved) > acked; });
        detail += resumed ? ", writes acknowledged on the new primaries" : ", no write acknowledged after it";
        const bool healed = m_network->heal(0, m_network->serviceHost(), error);
        m_cutActive = false;
        if (!healed)
            detail += ", heal failed: " + error;
        std::string unsettled;
        const bool inSync = pollUntil(std::chrono::seconds(60), [&] {
            const auto now = readMap();
            if (!now)
                return false;
            unsettled = unsettledCopies(*now);
            for (const auto& id : primaries) {
                const auto* copy = now->shard(id)->replicaOn(cut);
                if (!copy || copy->state != core::CopyState::InSync)
                    unsettled += " " + id + " has no in-sync copy on " + cut + ";";
            }
            return unsettled.empty();
        });
        detail += inSync ? ", healed and " + cut + " in sync after " + seconds() + " s" : ", not in sync:" + unsettled;
        // The healed old primary refuses the epoch it held.
        bool refused = true;
        const auto map = readMap();
        auto client = map ? clientOfNode(*map, cut) : nullptr;
        for (const auto& [space, epoch] : oldEpochs) {
            core::Document late;
            late.space = space;
            late.id = "written-at-the-old-epoch";
            late.version = 1;
            late.fields = { { "title", "late" }, { "body", "late" } };
            if (!client || client->bulkWrite(map->space(space)->shard, { { late, epoch } })) {
                refused = false;
                detail += ", " + cut + " took a write to " + space + " at the old epoch " + std::to_string(epoch);
            }
        }
        return promoted && answers && resumed && healed && inSync && refused;
    }

    // n3's small disk filled while it holds an in-sync replica of a shard with spaces.
    bool fillReplicaDisk(const AdversarialWorkload& workload, std::string& detail)
    {
        const std::string full = nodeName(kFullNode);
        std::string shard;
        pollUntil(std::chrono::seconds(30), [&] {
            const auto map = readMap();
            if (!map || !unsettledCopies(*map).empty())
                return false;
            for (const auto& [space, initial] : kSpaces) {
                const auto* record = map->shard(map->space(space)->shard);
                const auto* copy = record->replicaOn(full);
                if (copy && copy->state == core::CopyState::InSync)
                    shard = record->id;
            }
            return !shard.empty();
        });
        if (shard.empty()) {
            detail = full + " held no in-sync replica of a shard with spaces";
            return false;
        }
        const std::string filler = m_dataDirs[kFullNode] + "/filler";
        const std::string ballast = "ballast-" + shard;
        const auto start = Clock::now();
        std::uint64_t written = 0;
        {
            std::ofstream out(filler, std::ios::binary);
            const std::string chunk(64 * 1024, 'x');
            while (out.write(chunk.data(), static_cast<std::streamsize>(chunk.size())) && out.flush())
                written += chunk.size();
        }
        const auto info = std::filesystem::space(m_dataDirs[kFullNode]);
        auto seconds = [&] { return std::to_string(std::chrono::duration<double>(Clock::now() - start).count()); };
        detail = full + "'s disk filled (" + std::to_string(written >> 20) + " MiB written, "
            + std::to_string(info.available >> 10) + " KiB left) while in sync for " + shard;
        const auto acked = ackedOn(workload, { shard });
        // The workload's small updates reuse the pages SQLite has; documents that need new ones
        // (in a space of the shard the workload does not write) run the copy out of space.
        int ballastDocs = 0;
        std::string ballastError;
        const bool marked = pollUntil(std::chrono::seconds(20), [&] {
            const auto map = readMap();
            const auto* copy = map ? map->shard(shard)->replicaOn(full) : nullptr;
            if (copy && copy->state == core::CopyState::CatchingUp)
                return true;
            core::Document doc;
            doc.space = ballast;
            doc.id = "ballast-" + std::to_string(ballastDocs++);
            doc.version = 1;
            doc.fields = { { "title", doc.id }, { "body", std::string(256 * 1024, 'b') } };
            std::vector<core::ItemResult> results;
            std::string error;
            if (!m_writePath({ doc }, results, error) && ballastError.empty())
                ballastError = error;
            return false;
        });
        detail += ", " + std::to_string(ballastDocs) + " ballast documents of 256 KiB written to " + ballast
            + (ballastError.empty() ? "" : " (one failed: " + ballastError.substr(0, 200) + ")");
        std::string reason;
        if (const auto map = readMap(); map && map->shard(shard)->replicaOn(full))
            reason = map->shard(shard)->replicaOn(full)->reason;
        detail += marked ? ", marked catching up after " + seconds() + " s (" + reason.substr(0, 160) + ")"
                         : ", not marked catching up";
        const bool acknowledged
            = pollUntil(std::chrono::seconds(10), [&] { return ackedOn(workload, { shard }) > acked; });
        detail += acknowledged ? ", writes to " + shard + " acknowledged meanwhile" : ", no write to " + shard + " acknowledged";
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        std::error_code ignored;
        std::filesystem::remove(filler, ignored);
        const auto freed = Clock::now();
        std::string unsettled;
        const bool inSync = pollUntil(std::chrono::seconds(60), [&] {
            const auto map = readMap();
            if (!map)
                return false;
            unsettled = unsettledCopies(*map);
            return unsettled.empty();
        });
        detail += inSync ? ", freed and in sync " + std::to_string(std::chrono::duration<double>(Clock::now() - freed).count())
                + " s later"
                         : ", not in sync after freeing:" + unsettled;
        return written > 0 && marked && acknowledged && inSync;
    }

    static std::string joined(const std::set<std::string>& items)
    {
        std::string out;
        for (const auto& item : items)
            out += (out.empty() ? "" : ", ") + item;
        return out;
    }

    std::unique_ptr<EtcdProcess> m_etcd;
    std::unique_ptr<NetworkNamespaces> m_network;
    std::string m_networkUnavailable;
    std::unique_ptr<SmallFilesystem> m_smallDisk;
    WritePath m_writePath; // the writers' router
    std::atomic<bool> m_nodeLost { false };
    std::atomic<bool> m_cutActive { false };
    std::map<std::string, Clock::time_point> m_epochSeen; // checker thread only
    std::mutex m_violationMutex;
    std::vector<std::string> m_violations;
    std::atomic<std::uint64_t> m_checks { 0 };
    std::atomic<std::uint64_t> m_probes { 0 };
};

} // namespace

TEST_P(CopiesChaosTest, NothingAcknowledgedIsLostWhileCopiesFail)
{
    const auto run = GetParam();
    SCOPED_TRACE("store " + run.store + ", seed " + std::to_string(run.seed));
    std::mt19937 random(run.seed);
    const auto duration = copiesDuration();
    const auto began = Clock::now();

    auto leader = startLeader();
    ASSERT_TRUE(leader);
    ASSERT_TRUE(pollUntil(std::chrono::seconds(15), [&] { return leader->leads(); })) << leader->stderrText();
    auto router = ControllerProcess::start(m_dir.file("c2.stderr.log"),
        { "--store", storeUri(), "--id", "c2", "--no-executor", "--lease-ttl-ms", "1000" });
    ASSERT_TRUE(router);

    m_writePath = routerServicePath(router->address());

    // The spaces where the test puts them (and one the disk-full fault writes large documents to
    // on each shard that may have a replica on the small disk), then every shard's replica,
    // caught up.
    auto placed = kSpaces;
    for (const std::string shard : { "s0", "s1", "s2" })
        placed.emplace_back("ballast-" + shard, shard);
    for (const auto& [space, shard] : placed) {
        addSpaceRecord(space, shard);
        ASSERT_TRUE(nodeOf(shard)->setOwnership(shard, { space, core::SpaceRole::Owner, 1 }));
    }
    core::FleetAdmin admin(*m_store, m_pool);
    for (std::size_t i = 0; i < kCopiesNodes; ++i) {
        const std::string shard = "s" + std::to_string(i);
        // The copy first: with the factor raised first, the leader would place one itself.
        auto added = admin.addReplica(shard, nodeName((i + 1) % kCopiesNodes), m_actor);
        ASSERT_TRUE(added) << added.error().describe();
        auto factor = admin.map().setReplication(shard, 2, std::nullopt, m_actor);
        ASSERT_TRUE(factor) << factor.error().describe();
    }
    std::string unsettled;
    ASSERT_TRUE(pollUntil(std::chrono::seconds(60), [&] {
        const auto map = readMap();
        return map && (unsettled = unsettledCopies(*map)).empty();
    })) << unsettled
        << "\n"
        << leader->stderrText();

    std::vector<std::string> spaces;
    for (const auto& [space, shard] : kSpaces)
        spaces.push_back(space);
    AdversarialOptions options;
    options.spaces = spaces;
    options.idsPerSpace = 60 + static_cast<int>(random() % 40);
    options.anchorsPerSpace = 10;
    options.ghostsPerSpace = 10;
    options.bigPerSpace = 0; // the small disk is for the replica's writes, not for large documents
    options.bigShare = 0;
    options.seed = run.seed;
    AdversarialWorkload workload(options, { routerServicePath(router->address()) });
    ASSERT_TRUE(workload.prefill()) << workload.lastError();
    workload.start();
    const double setupSeconds = std::chrono::duration<double>(Clock::now() - began).count();

    std::atomic<bool> running { true };
    std::thread checker([&] {
        while (running) {
            checkInvariants(workload);
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
        }
    });

    // The faults one after another, in an order and after pauses the seed picks; each waits for
    // its own recovery, so that every one is checked to have happened.
    std::vector<CopyFault> kinds { CopyFault::LoseNode, CopyFault::PartitionPrimary, CopyFault::FillReplicaDisk };
    std::shuffle(kinds.begin(), kinds.end(), random);
    const auto started = Clock::now();
    std::vector<CopyFaultRecord> faults;
    for (const auto kind : kinds) {
        std::this_thread::sleep_for(std::chrono::milliseconds(500 + random() % 2000));
        CopyFaultRecord record { kind, std::chrono::duration<double>(Clock::now() - started).count(), 0, false, false, {} };
        record.happened = fire(kind, workload, record.detail, record.skipped);
        record.tookSeconds = std::chrono::duration<double>(Clock::now() - started).count() - record.atSeconds;
        faults.push_back(record);
        std::cout << "fault at " << record.atSeconds << " s (" << record.tookSeconds << " s): " << faultName(kind)
                  << ": " << record.detail << (record.happened ? "" : " (did not happen)") << std::endl;
    }
    while (Clock::now() - started < duration)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));

    // Settled: every shard at its factor, every copy in sync.
    const bool settled = pollUntil(std::chrono::seconds(60), [&] {
        const auto map = readMap();
        return map && (unsettled = unsettledCopies(*map)).empty();
    });
    running = false;
    checker.join();
    workload.stop();
    ASSERT_TRUE(workload.settle(std::chrono::seconds(30))) << workload.lastError();
    EXPECT_TRUE(settled) << "copies not settled after the run:" << unsettled << "\n" << leader->stderrText();

    for (const auto& fault : faults)
        EXPECT_TRUE(fault.happened) << faultName(fault.kind) << " did not happen: " << fault.detail;
    EXPECT_EQ(faults.size(), kinds.size());
    const auto anomalies = workload.anomalies();
    EXPECT_TRUE(anomalies.empty()) << anomalies.size() << " anomalies, the first: " << anomalies.front();
    EXPECT_TRUE(m_violations.empty()) << m_violations.size() << " violations, the first: " << m_violations.front()
                                      << (m_violations.size() > 1 ? "\nthe last: " + m_violations.back() : "");
    EXPECT_GT(m_checks.load(), 0u);
    for (const auto& what : m_violations)
        std::cout << "violation: " << what << "\n";

    // At the end: the whole model on every copy, every copy in sync.
    const auto final = readMap();
    ASSERT_TRUE(final);
    EXPECT_EQ(unsettledCopies(*final), "");
    for (const auto& space : spaces) {
        SCOPED_TRACE("space " + space);
        const auto* shard = final->shard(final->space(space)->shard);
        const auto model = workload.model(space);
        for (const auto& node : inSyncCopies(*shard)) {
            auto client = clientOfNode(*final, node);
            ASSERT_TRUE(client);
            EXPECT_EQ(compareWithModel(*client, shard->id, space, model), std::vector<std::string> {})
                << "the copy of " << shard->id << " on " << node;
        }
    }
    const auto counts = workload.counts();
    std::cout << "copies chaos " << run.store << " seed " << run.seed << ": setup " << setupSeconds << " s, faults "
              << std::chrono::duration<double>(Clock::now() - started).count() << " s to the end; "
              << counts.itemsAcknowledged << " items acknowledged in " << counts.calls << " calls ("
              << counts.failedCalls << " failed), " << m_checks.load() << " copy checks, " << m_probes.load()
              << " fence probes, " << m_violations.size() << " violations" << std::endl;
}

INSTANTIATE_TEST_SUITE_P(
    CopiesChaos, CopiesChaosTest, ::testing::ValuesIn(copiesRuns()), [](const ::testing::TestParamInfo<CopiesRun>& test) {
        return test.param.store + "_seed" + std::to_string(test.param.seed);
    });
