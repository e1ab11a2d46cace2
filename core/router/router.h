#pragma once

// How application traffic finds its shard: routes by space, the write and search paths over them.

#include "core/client/node_client.h"
#include "core/map/copy_faults.h"
#include "core/map/shard_map.h"
#include "core/metrics/prometheus.h"
#include "core/placement/allocator.h"
#include "core/store/metadata_store.h"
#include "core/util/task_pool.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace shardmap::core {

// One copy of a shard as the router reaches it: its node and that node's address.
struct RouteCopy {
    std::string node;
    std::string address;
    bool operator==(const RouteCopy&) const = default;
};

// A shard's replicas as a route names them (the primary is the route's node): the in-sync ones,
// written with every write and searched, and those catching up, written best effort only.
struct RouteCopies {
    std::vector<RouteCopy> inSync;
    std::vector<RouteCopy> catchingUp;
    // Copies wanted, the primary included (the shard's or the fleet's).
    std::uint32_t replicationFactor = 1;
    bool operator==(const RouteCopies&) const = default;
};

// Where a space's writes and reads go right now.
struct Route {
    std::string space;
    std::string shard;
    std::string nodeAddress;
    std::uint64_t epoch = 0;
    // While a migration is open: the target shard, which receives every write too.
    std::string targetShard;
    std::string targetAddress;
    bool paused = false;
    // The store revision this route was read at.
    std::uint64_t revision = 0;
    // The owner shard's primary node and its replicas; the same for the target during a migration.
    std::string node = {};
    RouteCopies copies = {};
    RouteCopies targetCopies = {};
    // The fleet's write quorum (MigrationSettings::writeQuorum).
    WriteQuorum quorum = WriteQuorum::All;

    bool migrating() const { return !targetShard.empty(); }
};

struct RouterWriteResult {
    // One per input document, in input order.
    std::vector<ItemResult> results;
    std::uint32_t applied = 0;
    std::uint32_t stale = 0;
    std::uint32_t rejected = 0;
    // How often a node answered with another epoch and the router refreshed and retried.
    std::uint32_t retries = 0;
    // Spaces created by this write (allocated and owned on a node).
    std::vector<std::string> createdSpaces;
};

// A dual write that reached the source but not the migration target. The write succeeded; the
// migration must react (set back or fail), so it is reported rather than returned as an error.
struct TargetWriteFailure {
    std::string space;
    std::string targetShard;
    Error error;
};

// A write a replica missed: an in-sync copy, of the owner or of a migration's target (then marked
// catching up, or the write refused when the mark did not commit), or a catching-up copy (best
// effort: the write stands, catch-up repairs the copy).
struct CopyWriteFailure {
    std::string shard;
    std::string node;
    bool inSync = false;
    Error error;
};

struct RouterOptions {
    AllocationStrategy strategy = AllocationStrategy::LoadAware;
    // Refresh-and-retry rounds after a node refuses an epoch, with a growing pause between them
    // (first, 2x, 4x ...): a refusal during a migration's cutover lasts until the map switches
    // owner, tens of milliseconds, and retrying at once would only be refused again.
    int maxRetries = 4;
    std::chrono::milliseconds retryPause { 15 };
    // Who the router says it is in the audit records of the spaces it creates.
    std::string actor = "router";
    // How long shard loads read from the nodes are reused for allocation.
    std::chrono::milliseconds loadCacheTtl { 5000 };
    std::function<void(const TargetWriteFailure&)> onTargetFailure;
    // Called on a copy-writer thread.
    std::function<void(const CopyWriteFailure&)> onCopyFailure;
    // Threads that write a shard's replicas while the caller writes its primary: writes to every
    // copy go out at once, with no thread per write. More concurrent writes than this wait their turn
    // for the replicas' part.
    std::size_t copyWriters = 8;
    // Threads that write migration targets after the source applied, while the caller is answered
    // (Router::writeTarget); how many of them one target node may take at once; and how many writes
    // to one target node may be out (queued or running) before a writer to it waits its turn.
    std::size_t targetWriters = 8;
    std::size_t targetWritersPerNode = 4;
    std::size_t maxTargetWritesInFlight = 64;
    // Counters of copy write failures and searches retried on another copy (shardmapd's
    // /metrics); none when null. Must outlive the router.
    MetricsRegistry* metrics = nullptr;
    // Follow the store's watch. Short-lived routers (one CLI command) skip it and rely on
    // refresh-on-refusal alone.
    bool followChanges = true;
    // Called (from the router's watch keeper thread) when the watch dies (false, why) and when it
    // follows the map again (true): a router with a dead watch serves a frozen table, so its
    // owner reports NOT_SERVING meanwhile (issue 14).
    std::function<void(bool following, const std::string& why)> onFollowing;
    // First and longest pause between attempts to watch again.
    std::chrono::milliseconds rewatchBackoff { 100 };
    std::chrono::milliseconds rewatchMaxBackoff { 5000 };
};

// Routes application writes and searches by the shard map. resolve() answers from an in-memory
// table kept current by the store's watch, so the hot path never touches the store. Writes carry
// the space's epoch; while a space migrates they go to the source (authoritative) and then, not
// waited for, the target. A node's FAILED_PRECONDITION about the epoch makes the router re-read that space from
// the store (and push the map's ownership to a node that lags), then retry, a bounded number of
// times. A write for an unknown space allocates it with one compare-and-set.
class Router {
public:
    static Result<std::unique_ptr<Router>> start(MetadataStore& store, NodeClientPool& nodes, RouterOptions options);
    ~Router();
    Router(const Router&) = delete;
    Router& operator=(const Router&) = delete;

    // Whether the table follows the store's watch (always true without followChanges: such a
    // router never claimed to).
    bool following() const { return m_following.load(); }

    // The route of a space, or null. Shared and immutable: no copy, no allocation on the hot path.
    std::shared_ptr<const Route> resolve(std::string_view space) const;
    std::uint64_t revision() const { return m_revision.load(); }
    // Waits until the watch has applied at least this revision (false on timeout).
    bool waitForRevision(std::uint64_t revision, std::chrono::milliseconds timeout) const;

    Result<RouterWriteResult> write(const std::vector<Document>& docs);
    // Searches the spaces on their owners (the source until cutover) and merges by score. Each
    // owner shard is asked on one of its in-sync copies (the primary only with primaryOnly), and a
    // copy that is unavailable or times out is replaced by the next within the same call.
    Result<SearchResult> search(const ShardSearchRequest& request, bool primaryOnly = false);

    // Waits until every migration target write this router sent out has been answered (tests, and
    // callers that must know the targets were written before they go on).
    void awaitTargetWrites();

    // Re-reads one space from the store and updates the table; NotFound if it does not exist.
    Result<Route> refresh(const std::string& space);
    // Creates a space on the allocated (or pinned) shard and sets its ownership on the node.
    Result<Route> createSpace(const std::string& space, const std::string& pin = {});

private:
    Router(MetadataStore& store, NodeClientPool& nodes, RouterOptions options);
    Status load();
    Status watchFrom(std::uint64_t revision);
    void keepWatching();
    void apply(const AuditRecord& record);
    void rebuildRoutes();
    std::optional<Route> routeFor(const SpaceRecord& space, std::uint64_t revision) const;
    struct WriteGroup;
    // Waits until the watched map has at least this epoch for the space, or the timeout passed.
    void waitForSpaceEpoch(const std::string& space, std::uint64_t epoch, std::chrono::milliseconds timeout) const;
    Result<Route> routeForWrite(const std::string& space, RouterWriteResult& result);
    Status writeGroup(WriteGroup group, const std::vector<Document>& docs, std::map<std::string, Route>& routes,
        std::vector<WriteGroup>& pending, RouterWriteResult& result);
    // Counts what the owner applied and sends it on to catching-up copies and migration targets;
    // an error when an in-sync copy of a target missed it unmarked (the write is not acknowledged).
    Status record(const WriteGroup& group, const WriteSummary& summary, const std::vector<Document>& docs,
        const std::map<std::string, Route>& routes, RouterWriteResult& result);
    Status writeTarget(const Route& route, std::vector<WriteItem> items);
    // Sends a write to a migration's target primary (and its catching-up copies) on a target writer.
    void postTargetWrite(const Route& route, std::shared_ptr<const std::vector<WriteItem>> items);
    // Runs the queued writes of one target node's lane until it is empty.
    void drainTargetLane(const std::string& address);
    Status reconcileEpoch(const Route& route, const Error& refusal);
    struct CopyRound;
    // Writes the primary on this thread and the in-sync replicas on the copy writers, and waits
    // until the write quorum is decided: the primary's answer, or the quorum's refusal.
    Result<WriteSummary> writeCopies(
        const Route& lead, const std::string& address, const std::string& shard, std::vector<WriteItem> items);
    void replicate(
        CopyRound& round, const RouteCopy& copy, const std::string& shard, const std::vector<WriteItem>& items);
    // Posts the write to every in-sync copy of copies on the copy writers.
    std::shared_ptr<CopyRound> replicateAll(const RouteCopies& copies, const std::string& shard,
        const std::shared_ptr<const std::vector<WriteItem>>& items);
    // Writes again, as a repair, the items a copy answered STALE at the version the primary APPLIED
    // (it may hold another content there); marks it catching up when that fails, and fails the
    // write when the mark cannot be committed.
    Status repairCopiesHoldingTheVersion(const std::vector<std::pair<RouteCopy, WriteSummary>>& answers,
        const std::string& shard, const std::vector<WriteItem>& items, const WriteSummary& primary);
    // Counts the primary's write applied and waits until the quorum is decided; why not, if not met.
    Status awaitQuorum(CopyRound& round, const RouteCopies& copies, WriteQuorum quorum, const std::string& shard);
    // A write to one copy; a copy that refuses an epoch it lags behind is told the map's and asked once more.
    Result<WriteSummary> writeCopy(
        const std::string& address, const std::string& shard, const std::vector<WriteItem>& items, bool primary);
    // Writes copies that may miss a write (catching up) in parallel, reporting failures; the copies
    // that failed, with why.
    std::vector<std::pair<RouteCopy, Error>> writeBestEffort(
        const std::string& shard, const std::vector<RouteCopy>& copies, const std::vector<WriteItem>& items);
    Status noteCatchingUpMisses(const std::string& shard, const std::vector<std::pair<RouteCopy, Error>>& missed);
    void reportCopyFailure(const CopyWriteFailure& failure, const char* outcome);
    // The in-sync copies to ask for one owner shard, the least busy first.
    std::vector<std::string> searchOrder(const Route& route, bool primaryOnly);
    Result<SearchResult> searchShard(
        const std::string& shard, const std::vector<std::string>& addresses, const ShardSearchRequest& part);
    // One pass of search(): each shard asked by the routes as they are.
    Result<SearchResult> searchRoutes(const ShardSearchRequest& request, bool primaryOnly);
    Result<std::vector<ShardLoad>> shardLoads();

    MetadataStore& m_store;
    NodeClientPool& m_nodes;
    RouterOptions m_options;

    mutable std::shared_mutex m_mutex;
    std::unordered_map<std::string, Versioned<SpaceRecord>> m_spaces;
    std::unordered_map<std::string, ShardRecord> m_shards;
    std::unordered_map<std::string, NodeRecord> m_nodeRecords;
    MigrationSettings m_settings;
    // Transparent hashing lets resolve() look up a string_view without building a std::string.
    struct IdHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view id) const { return std::hash<std::string_view> {}(id); }
    };
    std::unordered_map<std::string, std::shared_ptr<const Route>, IdHash, std::equal_to<>> m_routes;
    std::atomic<std::uint64_t> m_revision { 0 };
    mutable std::mutex m_revisionMutex;
    mutable std::condition_variable m_revisionChanged;

    std::mutex m_loadMutex;
    std::vector<ShardLoad> m_loads;
    std::chrono::steady_clock::time_point m_loadsAt;

    // The watch and the thread that watches again when it dies: the handle is replaced only on
    // that thread (a handle cannot be destroyed from its own callback).
    std::unique_ptr<WatchHandle> m_watch;
    std::atomic<bool> m_following { true };
    std::mutex m_keeperMutex;
    std::condition_variable m_keeperWake;
    bool m_watchFailed = false;
    bool m_stopping = false;
    std::string m_watchError;
    std::thread m_keeper;

    // Searches in flight per node address (searchOrder); a rotating start breaks ties.
    std::mutex m_searchMutex;
    std::unordered_map<std::string, std::uint32_t> m_searchesInFlight;
    std::atomic<std::uint32_t> m_searchTurn { 0 };
    MetricCounter* m_searchRetries = nullptr;

    // Last: destroyed first, so that a replica write still out (one a majority did not wait for)
    // finishes while everything it uses is alive; the target writers before the copy writers,
    // which they use for catching-up copies.
    std::unique_ptr<TaskPool> m_copyWriters;
    std::mutex m_targetMutex;
    std::condition_variable m_targetSlot;
    struct TargetLane {
        std::deque<std::function<void()>> tasks;
        std::size_t running = 0; // drains on the target writers
        std::size_t inFlight = 0; // queued or running
    };
    std::unordered_map<std::string, TargetLane> m_targetLanes; // by target node address
    std::size_t m_targetsInFlight = 0;
    // Set when the router goes: target writes still queued are dropped (the migration repairs
    // them) rather than each waiting out a dead target's deadline.
    std::atomic<bool> m_targetsClosing { false };
    std::unique_ptr<TaskPool> m_targetWriters;
};

} // namespace shardmap::core
