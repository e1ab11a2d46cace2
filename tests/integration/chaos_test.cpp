// The chaos harness (issue 14): what the fault harness of migration_faults_test.cpp cannot reach.
// Real nodes, a routing shardmapd replica, two executor replicas (restarted with new ids when
// they die), a router that never follows the map, and the adversarial workload (shared ids,
// equal-version races, replays, ghost deletes, large documents) on six spaces that migrate back
// and forth for the whole run, with the rollback window on. Faults land at times the seed picks:
// the leader killed, the leader stopped (SIGSTOP) in a cutover and in a cleanup while the other
// replica takes over, a node killed, the store unavailable, the leader cut off from etcd but not
// from the nodes (each executor runs in a network namespace the test makes, and a blackhole route
// there drops its packets to etcd; without root, a blackholing TCP proxy), rollbacks asked for just before
// the window closes, cancels, and a node lost for good (killed and its data deleted while a
// migration copies onto it and another leaves it in cleanup; the administrator's way out,
// `migrations abandon` and retire-node, must then end both and lose nothing). Every fault is
// checked to have happened.
//
// Invariants are checked while it runs, not only at the end: never two owners of a space at one
// epoch; every acknowledged write readable from the owner the map names, with its content; the
// owner's live count never below the anchors (ids that are never deleted); no writer answer that
// contradicts the versions (adversarial_workload.h); and no space refused writes for longer than
// the cutover timeout plus a retry, outside node and store outages.
//
// SHARDMAP_CHAOS_SEEDS (default "1,2") and SHARDMAP_CHAOS_SECONDS (default 20) choose the runs,
// on both stores; SHARDMAP_CHAOS_SUMMARY=DIR writes one JSON summary per run (scripts/soak.sh).
#include "core/map/shard_map.h"
#include "core/migration/migration_requests.h"
#include "core/router/router.h"
#include "tests/support/adversarial_workload.h"
#include "tests/support/controller_process.h"
#include "tests/support/etcd_process.h"
#include "tests/support/fleet_test.h"
#include "tests/support/network_namespaces.h"
#include "tests/support/sqlite_store_lock.h"
#include "tests/support/tcp_proxy.h"

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sqlite3.h>

using namespace shardmap;
using namespace shardmap::testing;
using Clock = std::chrono::steady_clock;

namespace {

std::string joinedList(const std::vector<std::string>& items, const std::string& separator)
{
    std::string out;
    for (const auto& item : items)
        out += (out.empty() ? "" : separator) + item;
    return out.empty() ? "none" : out;
}

// The spaces a shard owns (not the ones being copied onto it).
std::vector<std::string> ownedBy(const core::MapSnapshot& map, const std::string& shard)
{
    std::vector<std::string> owned;
    for (const auto& [id, space] : map.spaces) {
        if (space.value.shard == shard)
            owned.push_back(id);
    }
    return owned;
}

struct ChaosRun {
    std::string store;
    std::uint32_t seed = 1;
};

std::ostream& operator<<(std::ostream& out, const ChaosRun& run)
{
    return out << run.store << "/seed" << run.seed;
}

std::vector<ChaosRun> chaosRuns()
{
    std::vector<std::uint32_t> seeds;
    const char* env = std::getenv("SHARDMAP_CHAOS_SEEDS");
    std::stringstream list(env && *env ? env : "1,2");
    for (std::string item; std::getline(list, item, ',');) {
        if (!item.empty())
            seeds.push_back(static_cast<std::uint32_t>(std::stoul(item)));
    }
    std::vector<ChaosRun> runs;
    for (const char* store : { "sqlite", "etcd" }) {
        for (const auto seed : seeds)
            runs.push_back({ store, seed });
    }
    return runs;
}

std::chrono::seconds chaosDuration()
{
    const char* env = std::getenv("SHARDMAP_CHAOS_SECONDS");
    return std::chrono::seconds(env && *env ? std::stol(env) : 20);
}

enum class FaultKind {
    KillLeader,
    StopLeaderInCutover,
    StopLeaderInCleanup,
    KillNode,
    StoreOutage,
    CutLeaderFromStore,
    RollbackNearWindowEnd,
    Cancel,
    LoseNode
};

const char* faultName(FaultKind kind)
{
    switch (kind) {
    case FaultKind::KillLeader: return "kill_leader";
    case FaultKind::StopLeaderInCutover: return "stop_leader_in_cutover";
    case FaultKind::StopLeaderInCleanup: return "stop_leader_in_cleanup";
    case FaultKind::KillNode: return "kill_node";
    case FaultKind::StoreOutage: return "store_outage";
    case FaultKind::CutLeaderFromStore: return "cut_leader_from_store";
    case FaultKind::RollbackNearWindowEnd: return "rollback_near_window_end";
    case FaultKind::Cancel: return "cancel";
    case FaultKind::LoseNode: return "lose_node";
    }
    return "?";
}

struct FaultRecord {
    FaultKind kind;
    double atSeconds = 0;
    bool happened = false;
    std::string detail;
};

// A time span in which writes may be refused for reasons outside the migration engine.
struct Outage {
    Clock::time_point start;
    Clock::time_point end;
};

constexpr std::uint64_t kCutoverTimeoutMs = 1500;
constexpr std::uint64_t kRollbackWindowSeconds = 2;
constexpr int kLeaseTtlMs = 1000;
// Four nodes: the last one is lost for good during the run.
constexpr std::size_t kNodes = 4;
constexpr std::size_t kLostNode = kNodes - 1;
const std::string kLostShard = "s" + std::to_string(kLostNode);

class ChaosTest : public FleetTest<::testing::TestWithParam<ChaosRun>> {
protected:
    void SetUp() override
    {
        if (GetParam().store == "etcd") {
            // Its own server: the outage stops it.
            // Each executor in a network namespace of its own, to cut it off from etcd alone.
            std::string error;
            m_network = NetworkNamespaces::create(2, m_networkUnavailable);
            std::vector<std::string> storeHosts;
            if (m_network) {
                m_nodeHost = m_network->serviceHost();
                storeHosts.push_back(m_network->storeHost());
            }
            m_etcd = EtcdProcess::start(error, std::nullopt, storeHosts);
            ASSERT_TRUE(m_etcd) << "etcd is needed for this test and did not start: " << error;
            m_storeUri = "etcd://" + m_etcd->endpoint() + "/chaos";
        }
        startFleet(kNodes);
        for (const auto& node : m_nodes)
            m_addresses.push_back(node->address());
        core::MigrationSettings settings;
        settings.rollbackWindowSeconds = kRollbackWindowSeconds;
        settings.cutoverTimeoutMs = kCutoverTimeoutMs;
        settings.backfillBatch = 50;
        settings.maxPerShard = 2;
        settings.maxConcurrent = 3;
        settings.startRetrySeconds = 30;
        core::MigrationRequests requests(*m_store, m_pool);
        ASSERT_TRUE(requests.setSettings(settings, m_actor));
    }

    void TearDown() override
    {
        for (auto& executor : m_executors) {
            if (executor.process)
                executor.process->process().signal(SIGCONT);
        }
        if (m_etcd)
            m_etcd->signal(SIGCONT);
    }

    struct Executor {
        std::string id;
        std::unique_ptr<TcpProxy> proxy;
        std::unique_ptr<ControllerProcess> process;
    };

    // Executor slot i, incarnation n: id "x<i>-<n>", a new lease token every time. On etcd it runs
    // in network namespace i (or, without root, reaches etcd through a proxy of its own), so that
    // it alone can be cut off.
    void startExecutor(std::size_t slot)
    {
        auto& executor = m_executors[slot];
        executor.id = "x" + std::to_string(slot) + "-" + std::to_string(++m_incarnations);
        std::string store = storeUri();
        std::vector<std::string> args;
        std::vector<std::string> launcher;
        if (m_network) {
            const auto& endpoint = m_etcd->endpoint();
            store = "etcd://" + m_network->storeHost() + endpoint.substr(endpoint.rfind(':')) + "/chaos";
            args = { "--listen", m_network->hostInside(static_cast<int>(slot)) + ":0", "--insecure" };
            launcher = m_network->inside(static_cast<int>(slot), {});
        } else if (m_etcd) {
            std::string error;
            executor.proxy = TcpProxy::start(m_etcd->endpoint(), error);
            ASSERT_TRUE(executor.proxy) << error;
            store = "etcd://" + executor.proxy->address() + "/chaos";
        }
        args.insert(
            args.end(), { "--store", store, "--id", executor.id, "--lease-ttl-ms", std::to_string(kLeaseTtlMs) });
        executor.process = ControllerProcess::start(m_dir.file(executor.id + ".stderr.log"), args,
            // Cutovers last long enough to be caught in.
            { "SHARDMAP_FAILPOINTS=migration.cutover.fenced=sleep(150)" }, launcher);
        ASSERT_TRUE(executor.process) << "executor " << executor.id << " did not start";
    }

    // Restarts the executors that died, as a supervisor would, with new ids.
    void reviveExecutors()
    {
        std::lock_guard lock(m_executorMutex);
        for (std::size_t slot = 0; slot < m_executors.size(); ++slot) {
            auto& process = m_executors[slot].process;
            if (process && process->process().wait(std::chrono::milliseconds(0)))
                startExecutor(slot);
        }
    }

    bool leads(std::size_t slot)
    {
        std::lock_guard lock(m_executorMutex);
        return m_executors[slot].process && m_executors[slot].process->leads();
    }

    // The leader's slot, waiting up to `timeout` for one (after an outage no one leads a while).
    std::optional<std::size_t> waitForLeader(std::chrono::milliseconds timeout)
    {
        std::optional<std::size_t> slot;
        pollUntil(timeout, [&] { return (slot = leader()).has_value(); });
        return slot;
    }

    // The slot of the replica that holds the lease, if one does.
    std::optional<std::size_t> leader()
    {
        std::lock_guard lock(m_executorMutex);
        for (std::size_t i = 0; i < m_executors.size(); ++i) {
            auto& process = m_executors[i].process;
            if (process && !m_stopped[i] && process->leads())
                return i;
        }
        return std::nullopt;
    }

    std::optional<core::MapSnapshot> map()
    {
        auto snapshot = m_store->snapshot();
        if (!snapshot)
            return std::nullopt;
        auto decoded = core::MapSnapshot::decode(*snapshot);
        if (!decoded)
            return std::nullopt;
        return std::move(*decoded);
    }

    // A migration in a phase, polled for up to `timeout`.
    std::optional<core::MigrationRecord> waitForPhase(core::MigrationPhase phase, std::chrono::milliseconds timeout)
    {
        const auto deadline = Clock::now() + timeout;
        while (Clock::now() < deadline) {
            if (auto snapshot = map()) {
                for (const auto& [id, versioned] : snapshot->migrations) {
                    if (versioned.value.phase == phase)
                        return versioned.value;
                }
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        return std::nullopt;
    }

    // Holds the SQLite store's write lock past its busy timeout: commits and lease renewals fail.
    bool lockSqliteStore(std::chrono::milliseconds duration)
    {
        sqlite3* db = nullptr;
        if (sqlite3_open(m_dir.file("map.db").c_str(), &db) != SQLITE_OK)
            return false;
        sqlite3_busy_timeout(db, 5000);
        const bool locked = sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_OK;
        if (locked) {
            std::this_thread::sleep_for(duration);
            sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
        }
        sqlite3_close(db);
        return locked;
    }

    // Stops the leader while a migration is in `phase`; true when the other replica took over.
    bool stopLeaderIn(core::MigrationPhase phase, std::string& detail)
    {
        for (int attempt = 0; attempt < 10; ++attempt) {
            if (!waitForLeader(std::chrono::seconds(5)) || !waitForPhase(phase, std::chrono::seconds(3)))
                continue;
            const auto slot = leader();
            if (!slot)
                continue;
            std::string stoppedId;
            {
                std::lock_guard lock(m_executorMutex);
                m_executors[*slot].process->process().signal(SIGSTOP);
                m_stopped[*slot] = true;
                stoppedId = m_executors[*slot].id;
            }
            const auto stoppedAt = Clock::now();
            const std::size_t other = 1 - *slot;
            const bool takenOver = pollUntil(std::chrono::seconds(5), [&] { return leads(other); });
            // An SQLite store is one file: a process stopped inside a commit holds its write lock,
            // and no one can take the lease over until it runs again (an outage of the store).
            const bool storeLocked = !takenOver && !m_etcd && sqliteWriteLocked(m_dir.file("map.db"));
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
            std::lock_guard lock(m_executorMutex);
            m_executors[*slot].process->process().signal(SIGCONT);
            m_stopped[*slot] = false;
            if (storeLocked)
                noteOutage(stoppedAt, Clock::now() + std::chrono::seconds(2));
            detail = stoppedId + " stopped in " + core::migrationPhaseName(phase)
                + (takenOver          ? ", " + m_executors[other].id + " took over"
                        : storeLocked ? ", holding the SQLite store's write lock: no one could take over until it ran"
                                      : ", no one took over");
            return takenOver || storeLocked;
        }
        detail = std::string("no migration was seen in ") + core::migrationPhaseName(phase) + " with a leader";
        return false;
    }

    bool fire(FaultKind kind, std::mt19937& random, std::string& detail)
    {
        core::MigrationRequests requests(*m_store, m_pool);
        switch (kind) {
        case FaultKind::KillLeader: {
            const auto slot = waitForLeader(std::chrono::seconds(10));
            if (!slot) {
                detail = "no leader";
                return false;
            }
            int incarnations = 0;
            {
                std::lock_guard lock(m_executorMutex);
                m_executors[*slot].process->process().signal(SIGKILL);
                incarnations = m_incarnations;
                detail = m_executors[*slot].id + " killed";
            }
            // The run's supervisor loop restarts it with a new id.
            const bool restarted = pollUntil(std::chrono::seconds(5), [&] {
                std::lock_guard lock(m_executorMutex);
                return m_incarnations > incarnations;
            });
            std::lock_guard lock(m_executorMutex);
            detail += restarted ? ", restarted as " + m_executors[*slot].id : ", not restarted";
            return restarted;
        }
        case FaultKind::StopLeaderInCutover: return stopLeaderIn(core::MigrationPhase::Cutover, detail);
        case FaultKind::StopLeaderInCleanup: return stopLeaderIn(core::MigrationPhase::Cleanup, detail);
        case FaultKind::KillNode: {
            // Killed here, restarted by the run's loop (a child dies with the thread that
            // spawned it, and this one ends before the run does).
            const std::size_t index = random() % kLostNode; // not the one lost for good
            const auto start = Clock::now();
            m_nodes[index]->kill9();
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            m_nodeToRestart = static_cast<int>(index);
            const bool restarted = pollUntil(std::chrono::seconds(20), [&] { return m_nodeToRestart < 0; });
            noteOutage(start, Clock::now() + std::chrono::seconds(1));
            detail = "node " + std::to_string(index) + " killed" + (restarted ? " and restarted" : ", not restarted");
            return restarted && m_nodeRestarted;
        }
        case FaultKind::StoreOutage: {
            const auto start = Clock::now();
            bool done = true;
            if (m_etcd) {
                m_etcd->signal(SIGSTOP);
                std::this_thread::sleep_for(std::chrono::seconds(3));
                m_etcd->signal(SIGCONT);
                detail = "etcd stopped for 3 s";
            } else {
                done = lockSqliteStore(std::chrono::milliseconds(6500));
                detail = "store locked for 6.5 s";
            }
            noteOutage(start, Clock::now() + std::chrono::seconds(2));
            return done;
        }
        case FaultKind::CutLeaderFromStore: {
            const auto slot = waitForLeader(std::chrono::seconds(10));
            if (!slot) {
                detail = "no leader";
                return false;
            }
            std::string cutId;
            std::string how = "a blackhole route to etcd in its network namespace";
            {
                std::lock_guard lock(m_executorMutex);
                if (m_network) {
                    std::string error;
                    if (!m_network->cut(static_cast<int>(*slot), m_network->storeHost(), error)) {
                        detail = error;
                        return false;
                    }
                } else {
                    m_executors[*slot].proxy->blackhole();
                    how = "its proxy to etcd blackholed (" + m_networkUnavailable + ")";
                }
                cutId = m_executors[*slot].id;
            }
            const std::size_t other = 1 - *slot;
            const bool takenOver = pollUntil(std::chrono::seconds(6), [&] { return leads(other); });
            const bool steppedDown = pollUntil(std::chrono::seconds(3), [&] { return !leads(*slot); });
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
            std::lock_guard lock(m_executorMutex);
            std::string healed;
            if (m_network && !m_network->heal(static_cast<int>(*slot), m_network->storeHost(), healed))
                ADD_FAILURE() << healed;
            if (m_executors[*slot].proxy)
                m_executors[*slot].proxy->restore();
            detail = cutId + " cut off from etcd by " + how + " (still reaching the nodes); "
                + (takenOver ? m_executors[other].id + " took over" : "no one took over")
                + (steppedDown ? "" : "; the cut-off replica still reported leading");
            return takenOver && steppedDown;
        }
        case FaultKind::RollbackNearWindowEnd: {
            detail = "no migration was seen in cleanup with its rollback window open";
            const auto deadline = Clock::now() + std::chrono::seconds(10);
            while (Clock::now() < deadline) {
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
                const auto snapshot = map();
                if (!snapshot)
                    continue;
                const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                                     .count();
                for (const auto& [id, versioned] : snapshot->migrations) {
                    const auto& m = versioned.value;
                    const auto closes = m.cutoverUnixMs + static_cast<std::int64_t>(kRollbackWindowSeconds) * 1000;
                    if (m.phase != core::MigrationPhase::Cleanup || m.cutoverUnixMs == 0 || m.rollbackRequested
                        || closes - now < 450)
                        continue;
                    std::this_thread::sleep_for(std::chrono::milliseconds(closes - now - 400));
                    auto rolled = requests.rollback(m.id, m_actor);
                    detail = "rollback of " + m.id + " 400 ms before its window closed: "
                        + (rolled ? std::string("accepted") : rolled.error().message);
                    if (rolled) {
                        m_rolledBack.push_back(m.id);
                        return true;
                    }
                    break;
                }
            }
            return false;
        }
        case FaultKind::LoseNode: return loseNode(requests, detail);
        case FaultKind::Cancel: {
            for (int attempt = 0; attempt < 10; ++attempt) {
                auto m = waitForPhase(core::MigrationPhase::Backfill, std::chrono::milliseconds(500));
                if (!m)
                    m = waitForPhase(core::MigrationPhase::DualWrite, std::chrono::milliseconds(500));
                if (!m)
                    continue;
                auto cancelled = requests.cancel(m->id, m_actor);
                detail = "cancel of " + m->id + " in " + core::migrationPhaseName(m->phase) + ": "
                    + (cancelled ? std::string("accepted") : cancelled.error().message);
                if (cancelled) {
                    m_cancelled.push_back(m->id);
                    return true;
                }
            }
            return false;
        }
        }
        return false;
    }

    // The node of kLostShard is lost for good: killed and its data deleted while a migration
    // copies a space onto it (throttled, so that it is caught in backfill) and, when the timing
    // allows, another one that left it is in cleanup with its rollback window open. No
    // acknowledged write may be lost: the node goes only when no space lives on it and nothing
    // moving onto it is past backfill. Then the administrator's way out: `abandon` every
    // migration that needs the lost node (after reading its cost), and retire-node, which must
    // end at once.
    bool loseNode(core::MigrationRequests& requests, std::string& detail)
    {
        std::optional<core::MapSnapshot> snapshot;
        auto needsLostShard = [&](const core::MigrationRecord& m) {
            return m.active() && (m.source == kLostShard || m.target == kLostShard);
        };
        auto freeSpace = [&](bool onLostShard) -> std::string {
            for (const auto& [id, space] : snapshot->spaces) {
                if (space.value.migrationId.empty() && (space.value.shard == kLostShard) == onLostShard)
                    return id;
            }
            return {};
        };
        // 1. A space living on the shard, to leave it (moved there first if none does).
        std::string resident;
        pollUntil(std::chrono::seconds(20), [&] {
            if (!(snapshot = map()))
                return false;
            resident = freeSpace(true);
            const bool arriving
                = std::any_of(snapshot->migrations.begin(), snapshot->migrations.end(), [&](const auto& entry) {
                      return entry.second.value.active() && entry.second.value.target == kLostShard;
                  });
            if (resident.empty() && !arriving && !freeSpace(false).empty())
                (void)requests.queue(freeSpace(false), kLostShard, m_actor);
            return !resident.empty();
        });
        // 2. From now on nothing else moves onto it and the run's loop moves its spaces off; a
        // slow copy onto it, and the resident leaving.
        m_evacuating = true;
        std::string copying;
        pollUntil(std::chrono::seconds(10), [&] {
            if (!(snapshot = map()) || freeSpace(false).empty())
                return false;
            if (auto queued = requests.queue(freeSpace(false), kLostShard, m_actor, 2))
                copying = queued->id;
            return !copying.empty();
        });
        if (copying.empty()) {
            detail = "no space could be queued onto " + kLostShard;
            return false;
        }
        if (!resident.empty())
            (void)requests.queue(resident, "s0", m_actor);
        // 3. Wait for the moment: no space on it, the copy in backfill, nothing else onto it past
        // backfill, nothing off it before cutover; for the first 10 s only with one leaving it in
        // cleanup.
        const auto started = Clock::now();
        std::string leaving;
        const bool ready = pollUntil(std::chrono::seconds(25), [&] {
            if (!(snapshot = map()) || !ownedBy(*snapshot, kLostShard).empty())
                return false;
            leaving.clear();
            bool copyInBackfill = false;
            for (const auto& [id, versioned] : snapshot->migrations) {
                const auto& m = versioned.value;
                if (!needsLostShard(m))
                    continue;
                if (m.source == kLostShard && m.phase == core::MigrationPhase::Cleanup && !m.rolledBack)
                    leaving = id;
                else if (m.target == kLostShard
                    && (m.phase == core::MigrationPhase::Queued || m.phase == core::MigrationPhase::Backfill))
                    copyInBackfill |= id == copying && m.phase == core::MigrationPhase::Backfill;
                else
                    return false;
            }
            return copyInBackfill && (!leaving.empty() || Clock::now() - started > std::chrono::seconds(10));
        });
        if (!ready) {
            detail = "no moment came with " + kLostShard + " empty and " + copying + " copying onto it in backfill:";
            for (const auto& space : snapshot ? ownedBy(*snapshot, kLostShard) : std::vector<std::string> {})
                detail += " space " + space + " on it;";
            for (const auto& [id, versioned] : snapshot ? snapshot->migrations : decltype(snapshot->migrations) {}) {
                if (needsLostShard(versioned.value))
                    detail += " " + id + " " + versioned.value.source + "->" + versioned.value.target + " "
                        + core::migrationPhaseName(versioned.value.phase) + " (" + versioned.value.status + ");";
            }
            return false;
        }
        // 3. Lost for good.
        m_nodes[kLostNode]->kill9();
        std::error_code ignored;
        std::filesystem::remove_all(m_dataDirs[kLostNode], ignored);
        m_nodeLost = true;
        std::this_thread::sleep_for(std::chrono::seconds(1));
        // 4. The way out, as an administrator would take it.
        std::vector<std::string> abandoned;
        std::vector<std::string> refused;
        pollUntil(std::chrono::seconds(10), [&] {
            snapshot = map();
            if (!snapshot)
                return false;
            bool left = false;
            for (const auto& [id, versioned] : snapshot->migrations) {
                if (!needsLostShard(versioned.value))
                    continue;
                left = true;
                auto cost = requests.abandonCost(id);
                if (!cost || cost->find("lost for good") == std::string::npos) {
                    refused.push_back(id + ": " + (cost ? "its cost does not say so" : cost.error().message));
                    continue;
                }
                if (requests.abandon(id, m_actor))
                    abandoned.push_back(id + " (" + core::migrationPhaseName(versioned.value.phase) + ")");
            }
            return !left;
        });
        auto retired = requests.retireNode("n" + std::to_string(kLostNode), m_actor);
        const bool retiredAtOnce = retired && pollUntil(std::chrono::seconds(10), [&] {
            snapshot = map();
            const auto* shard = snapshot ? snapshot->shard(kLostShard) : nullptr;
            return shard && shard->state == core::ShardState::Retired;
        });
        detail = "node " + std::to_string(kLostNode) + " killed and its data deleted while " + copying
            + " copied onto it" + (leaving.empty() ? "" : " and " + leaving + " left it in cleanup")
            + "; abandoned: " + joinedList(abandoned, ", ")
            + (refused.empty() ? "" : "; cost refused: " + joinedList(refused, ", ")) + "; retire-node "
            + (retired ? (retiredAtOnce ? "retired its shard" : "did not retire its shard") : retired.error().message);
        const bool copyAbandoned = std::any_of(
            abandoned.begin(), abandoned.end(), [&](const auto& entry) { return entry.starts_with(copying); });
        return copyAbandoned && refused.empty() && retiredAtOnce;
    }

    void noteOutage(Clock::time_point start, Clock::time_point end)
    {
        std::lock_guard lock(m_outageMutex);
        m_outages.push_back({ start, end });
    }

    bool duringOutage(const AdversarialWorkload::Gap& gap)
    {
        std::lock_guard lock(m_outageMutex);
        return std::any_of(m_outages.begin(), m_outages.end(),
            [&](const Outage& outage) { return gap.start < outage.end && outage.start < gap.end; });
    }

    // One round of the invariants every space must satisfy at any time.
    void checkInvariants(const std::vector<std::string>& spaces, const AdversarialWorkload& workload)
    {
        for (const auto& space : spaces) {
            const auto model = workload.model(space);
            const auto before = map();
            if (!before || !before->space(space))
                continue;
            const auto record = *before->space(space);
            // Never two owners at one epoch.
            std::map<std::uint64_t, std::vector<std::string>> owners;
            for (const auto& [shardId, shard] : before->shards) {
                auto held = clientOf(shardId)->ownerships(shardId, space);
                if (!held)
                    continue;
                for (const auto& ownership : *held) {
                    if (ownership.role == core::SpaceRole::Owner)
                        owners[ownership.epoch].push_back(shardId);
                }
            }
            for (const auto& [epoch, shards] : owners) {
                if (shards.size() > 1)
                    violation(
                        space + ": " + std::to_string(shards.size()) + " owners at epoch " + std::to_string(epoch));
            }
            // Acknowledged writes readable from the owner the map names (when the map did not
            // change while we read it).
            std::map<std::string, core::Document> rows;
            std::string after;
            bool complete = true;
            for (std::uint32_t batch = 200;;) {
                auto page = clientOf(record.shard)->scanPage(record.shard, space, after, batch, true);
                if (!page && page.error().code == core::ErrorCode::ResourceExhausted && batch > 1) {
                    batch /= 2;
                    continue;
                }
                if (!page) {
                    complete = false;
                    break;
                }
                for (auto& doc : page->docs)
                    rows.emplace(doc.id, std::move(doc));
                if (page->done)
                    break;
                after = page->cursor;
            }
            const auto afterMap = map();
            if (!complete || !afterMap || !afterMap->space(space) || afterMap->space(space)->epoch != record.epoch
                || afterMap->space(space)->shard != record.shard)
                continue;
            ++m_checks;
            std::size_t live = 0;
            for (const auto& [id, row] : rows)
                live += row.deleted ? 0 : 1;
            if (live < static_cast<std::size_t>(workload.anchors()))
                violation(space + ": the owner " + record.shard + " has " + std::to_string(live)
                    + " live documents, fewer than the " + std::to_string(workload.anchors()) + " anchors");
            for (const auto& [id, entry] : model) {
                if (entry.acked == 0)
                    continue;
                const auto found = rows.find(id);
                if (found == rows.end() || found->second.version < entry.acked) {
                    violation(space + "/" + id + " v" + std::to_string(entry.acked) + " acknowledged but "
                        + (found == rows.end() ? std::string("absent") : "at v" + std::to_string(found->second.version))
                        + " on the owner " + record.shard + " at epoch " + std::to_string(record.epoch));
                } else if (found->second.version == entry.acked
                    && (found->second.deleted != entry.deleted
                        || (!entry.deleted && found->second.fields.at("body") != entry.body))) {
                    violation(space + "/" + id + " v" + std::to_string(entry.acked)
                        + " has another content on the owner " + record.shard + " than the one acknowledged");
                }
            }
        }
    }

    void violation(const std::string& what)
    {
        std::lock_guard lock(m_outageMutex);
        if (m_violations.size() < 50)
            m_violations.push_back(what);
    }

    // The client of the node of shard "s<i>" (by address: nodes restart on theirs).
    std::shared_ptr<core::NodeClient> clientOf(const std::string& shard)
    {
        return *m_pool.get(m_addresses.at(std::stoul(shard.substr(1))));
    }

    // A node the fault thread killed, for the run's loop to restart (-1: none).
    void restartRequestedNode()
    {
        const int index = m_nodeToRestart;
        if (index < 0)
            return;
        const std::string address = m_nodes[static_cast<std::size_t>(index)]->address();
        auto node = NodeProcess::start(m_dataDirs[static_cast<std::size_t>(index)], nodeListenArgs(address));
        m_nodeRestarted = node != nullptr;
        if (node)
            m_nodes[static_cast<std::size_t>(index)] = std::move(node);
        m_nodeToRestart = -1;
    }

    std::vector<std::string> m_addresses;
    std::unique_ptr<EtcdProcess> m_etcd;
    std::unique_ptr<NetworkNamespaces> m_network; // etcd runs, as root
    std::string m_networkUnavailable; // why there is none
    std::atomic<int> m_nodeToRestart { -1 };
    std::atomic<bool> m_nodeRestarted { false };
    std::atomic<bool> m_evacuating { false }; // lose_node is under way: no moves onto kLostShard
    std::atomic<bool> m_nodeLost { false };
    std::mutex m_executorMutex; // m_executors, m_stopped, m_incarnations
    std::vector<Executor> m_executors = std::vector<Executor>(2);
    bool m_stopped[2] = { false, false };
    int m_incarnations = 0;
    std::mutex m_outageMutex;
    std::vector<Outage> m_outages;
    std::vector<std::string> m_violations;
    std::atomic<std::uint64_t> m_checks { 0 };
    std::vector<std::string> m_rolledBack;
    std::vector<std::string> m_cancelled;
};

double percentile(std::vector<double> values, double p)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    return values[std::min(values.size() - 1, static_cast<std::size_t>(p * static_cast<double>(values.size())))];
}

} // namespace

TEST_P(ChaosTest, NothingIsLostAndEveryInvariantHoldsWhileFaultsLandAtRandomTimes)
{
    const auto run = GetParam();
    SCOPED_TRACE("store " + run.store + ", seed " + std::to_string(run.seed));
    std::mt19937 random(run.seed);
    const auto duration = chaosDuration();

    auto routing = ControllerProcess::start(m_dir.file("router.stderr.log"),
        { "--store", storeUri(), "--id", "router", "--no-executor", "--lease-ttl-ms", std::to_string(kLeaseTtlMs) });
    ASSERT_TRUE(routing);
    startExecutor(0);
    startExecutor(1);
    ASSERT_TRUE(pollUntil(std::chrono::seconds(10), [&] { return leader().has_value(); }));

    core::RouterOptions staleOptions;
    staleOptions.followChanges = false;
    staleOptions.actor = "stale-router";
    auto stale = core::Router::start(*m_store, m_pool, staleOptions);
    ASSERT_TRUE(stale) << stale.error().describe();
    std::shared_ptr<core::Router> staleRouter = std::move(*stale);
    WritePath stalePath = inProcessRouterPath(staleRouter);

    std::vector<std::string> spaces;
    for (int i = 0; i < 6; ++i)
        spaces.push_back("sp" + std::to_string(i));
    AdversarialOptions options;
    options.spaces = spaces;
    options.idsPerSpace = 100 + static_cast<int>(random() % 100);
    options.seed = run.seed;
    AdversarialWorkload workload(
        options, { routerServicePath(routing->address()), routerServicePath(routing->address()), stalePath });
    ASSERT_TRUE(workload.prefill()) << workload.lastError();
    for (const auto& space : spaces)
        ASSERT_TRUE(staleRouter->refresh(space));
    workload.start();

    std::atomic<bool> running { true };
    std::thread checker([&] {
        while (running) {
            checkInvariants(spaces, workload);
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    });

    // The faults of this store, in an order and at times the seed picks: one per slot.
    std::vector<FaultKind> kinds { FaultKind::KillLeader, FaultKind::StopLeaderInCutover,
        FaultKind::StopLeaderInCleanup, FaultKind::KillNode, FaultKind::StoreOutage, FaultKind::RollbackNearWindowEnd,
        FaultKind::Cancel, FaultKind::LoseNode };
    if (m_etcd)
        kinds.push_back(FaultKind::CutLeaderFromStore);
    std::shuffle(kinds.begin(), kinds.end(), random);
    const auto started = Clock::now();
    std::vector<FaultRecord> faults;
    std::mt19937 faultRandom(run.seed * 31 + 7);
    std::atomic<bool> faultsDone { false };
    std::thread faulter([&] {
        const auto slot = duration / static_cast<int>(kinds.size());
        for (std::size_t i = 0; i < kinds.size(); ++i) {
            const auto at = started + slot * static_cast<int>(i)
                + std::chrono::milliseconds(faultRandom() % std::max<std::int64_t>(1, slot.count() * 500));
            std::this_thread::sleep_until(at);
            FaultRecord record { kinds[i], std::chrono::duration<double>(Clock::now() - started).count(), false, {} };
            record.happened = fire(kinds[i], faultRandom, record.detail);
            faults.push_back(record);
        }
        faultsDone = true;
    });

    // Keep migrations going (until the last fault is over): up to three at a time, each space to a
    // shard it is not on.
    std::set<std::string> queued;
    core::MigrationRequests requests(*m_store, m_pool);
    while (Clock::now() - started < duration || !faultsDone) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        reviveExecutors();
        restartRequestedNode();
        const auto snapshot = map();
        if (!snapshot)
            continue;
        std::size_t active = 0;
        for (const auto& [id, versioned] : snapshot->migrations)
            active += versioned.value.active() ? 1 : 0;
        if (active >= 3)
            continue;
        std::string space = spaces[random() % spaces.size()];
        if (m_evacuating) { // spaces on the shard about to be lost go first
            for (const auto& owned : ownedBy(*snapshot, kLostShard)) {
                if (snapshot->space(owned)->migrationId.empty())
                    space = owned;
            }
        }
        const auto record = snapshot->space(space);
        if (!record || !record->migrationId.empty())
            continue;
        // Another shard; not the one being lost once the fault is under way.
        const std::size_t choices = m_evacuating ? kLostNode : kNodes;
        const std::size_t from = std::stoul(record->shard.substr(1));
        std::string target = "s" + std::to_string((from + 1 + random() % (choices - 1)) % choices);
        if (target == record->shard)
            target = "s" + std::to_string((from + 1) % choices);
        if (auto migration = requests.queue(space, target, m_actor))
            queued.insert(migration->id);
    }
    faulter.join();
    for (const auto& fault : faults)
        std::cout << "fault at " << fault.atSeconds << " s: " << faultName(fault.kind) << ": " << fault.detail
                  << (fault.happened ? "" : " (did not happen)") << "\n";
    reviveExecutors();

    // Let every migration finish (and every rollback window close) while the writers go on.
    auto allFinished = [&] {
        const auto snapshot = map();
        if (!snapshot)
            return false;
        return std::none_of(snapshot->migrations.begin(), snapshot->migrations.end(),
            [](const auto& entry) { return entry.second.value.active(); });
    };
    const bool finished = pollUntil(std::chrono::seconds(90), [&] {
        reviveExecutors();
        return allFinished();
    });
    if (!finished) {
        std::string active;
        if (const auto snapshot = map()) {
            for (const auto& [id, versioned] : snapshot->migrations) {
                if (versioned.value.active())
                    active += "\n  " + id + " " + versioned.value.space + ": " + versioned.value.status;
            }
        }
        std::lock_guard lock(m_executorMutex);
        ADD_FAILURE() << "migrations still active after the run:" << active << "\nexecutor " << m_executors[0].id
                      << ":\n"
                      << m_executors[0].process->stderrText() << "\nexecutor " << m_executors[1].id << ":\n"
                      << m_executors[1].process->stderrText();
    }
    running = false;
    checker.join();
    workload.stop();
    ASSERT_TRUE(workload.settle(std::chrono::seconds(30))) << workload.lastError();

    // Every fault happened.
    for (const auto& fault : faults)
        EXPECT_TRUE(fault.happened) << faultName(fault.kind) << " did not happen: " << fault.detail;
    EXPECT_EQ(faults.size(), kinds.size());

    // No anomaly in the answers, no invariant broken while it ran.
    const auto anomalies = workload.anomalies();
    EXPECT_TRUE(anomalies.empty()) << anomalies.size() << " anomalies, the first: " << anomalies.front();
    EXPECT_TRUE(m_violations.empty()) << m_violations.size() << " violations, the first: " << m_violations.front();
    EXPECT_GT(m_checks.load(), 0u);

    // At the end: each space exactly as acknowledged on its owner, nowhere else, one owner.
    const auto final = map();
    ASSERT_TRUE(final);
    for (const auto& space : spaces) {
        SCOPED_TRACE("space " + space);
        const auto record = *final->space(space);
        EXPECT_EQ(compareWithModel(*clientOf(record.shard), record.shard, space, workload.model(space)),
            std::vector<std::string> {});
        for (const auto& [shardId, shard] : final->shards) {
            if (shardId == kLostShard && m_nodeLost)
                continue;
            auto held = clientOf(shardId)->ownerships(shardId, space);
            ASSERT_TRUE(held) << held.error().describe();
            for (const auto& ownership : *held) {
                if (shardId == record.shard) {
                    EXPECT_EQ(ownership.role, core::SpaceRole::Owner);
                    EXPECT_EQ(ownership.epoch, record.epoch);
                } else {
                    EXPECT_NE(ownership.role, core::SpaceRole::Owner) << "a second owner on " << shardId;
                }
            }
            if (shardId != record.shard) {
                EXPECT_TRUE(pollUntil(
                    std::chrono::seconds(20), [&] { return rowsOf(*clientOf(shardId), shardId, space) == 0; }))
                    << "rows left on " << shardId;
            }
        }
    }

    // Writes refused for at most the cutover timeout plus a retry, outside node and store outages.
    const auto bound = std::chrono::milliseconds(kCutoverTimeoutMs + 2 * kLeaseTtlMs + 1000);
    for (const auto& gap : workload.gaps(bound)) {
        EXPECT_TRUE(duringOutage(gap)) << gap.space << " went " << gap.ms() << " ms without an acknowledged write at "
                                       << std::chrono::duration<double>(gap.start - started).count() << " s";
    }

    // The run's figures, for the soak's summary.
    std::map<std::string, std::size_t> outcomes;
    const auto ended = map();
    for (const auto& id : queued) {
        const auto found = ended->migrations.find(id);
        if (found != ended->migrations.end())
            ++outcomes[found->second.value.rolledBack ? "rolled_back"
                                                      : core::migrationPhaseName(found->second.value.phase)];
    }
    const auto counts = workload.counts();
    const auto gapValues = workload.gapMillis();
    nlohmann::json summary {
        { "store", run.store },
        { "seed", run.seed },
        { "seconds", duration.count() },
        { "migrations", outcomes },
        { "writes",
            { { "calls", counts.calls }, { "failed_calls", counts.failedCalls },
                { "items_acknowledged", counts.itemsAcknowledged }, { "races", counts.races },
                { "replays", counts.replays }, { "ghost_deletes", counts.ghostDeletes },
                { "big_writes", counts.bigWrites } } },
        { "anomalies", anomalies.size() },
        { "invariant_checks", m_checks.load() },
        { "violations", m_violations.size() },
        { "write_gap_ms",
            { { "p50", percentile(gapValues, 0.5) }, { "p99", percentile(gapValues, 0.99) },
                { "max", percentile(gapValues, 1.0) } } },
    };
    for (const auto& fault : faults)
        summary["faults"].push_back({ { "kind", faultName(fault.kind) }, { "at_s", fault.atSeconds },
            { "happened", fault.happened }, { "detail", fault.detail } });
    std::cout << summary.dump() << "\n";
    if (const char* dir = std::getenv("SHARDMAP_CHAOS_SUMMARY"); dir && *dir) {
        std::filesystem::create_directories(dir);
        std::ofstream(std::string(dir) + "/" + run.store + "-seed" + std::to_string(run.seed) + ".json")
            << summary.dump(2) << "\n";
    }
}

INSTANTIATE_TEST_SUITE_P(
    Chaos, ChaosTest, ::testing::ValuesIn(chaosRuns()), [](const ::testing::TestParamInfo<ChaosRun>& test) {
        return test.param.store + "_seed" + std::to_string(test.param.seed);
    });
