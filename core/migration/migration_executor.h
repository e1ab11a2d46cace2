#pragma once

// The migration executor: while this replica holds the executor lease, it schedules migrations
// within the concurrency limits and runs each one's phase steps on a worker thread.

#include "core/balancer/balancer_round.h"
#include "core/client/node_client.h"
#include "core/map/shard_map.h"
#include "core/metrics/prometheus.h"
#include "core/migration/catch_up.h"
#include "core/migration/failover_watch.h"
#include "core/migration/migration_phases.h"
#include "core/migration/migration_records.h"
#include "core/migration/operation_finisher.h"
#include "core/migration/retired_shard_cleanup.h"
#include "core/migration/snapshot_taker.h"
#include "core/store/metadata_store.h"
#include "core/util/log.h"
#include "core/util/result.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace shardmap::core {

struct ExecutorOptions {
    // Audit actor of the executor's commits (the replica's id).
    std::string actor = "executor";
    // How often the map is re-read when no change woke the executor.
    std::chrono::milliseconds poll { 500 };
    // Pause before retrying a step that failed (node unreachable, store busy), doubling up to
    // maxBackoff while it keeps failing.
    std::chrono::milliseconds backoff { 200 };
    std::chrono::milliseconds maxBackoff { 5000 };
    // Backfill progress is written to the store at most this often (and at the end).
    std::chrono::milliseconds progressInterval { 250 };
    // The executor stops acting this long before its lease would expire unrenewed, so that a
    // paused or partitioned former leader never races its successor.
    std::chrono::milliseconds leaseMargin { 300 };
    // An operation still "queuing" whose record has not changed for this long (by this
    // executor's clock) lost its writer between chunks and is finished as failed.
    std::chrono::milliseconds abandonedQueuing { 60000 };
    // Finished migrations are moved out of the working set (migrations/ -> archive/migrations/,
    // still in the map and in reports) this long after they ended.
    std::chrono::milliseconds archiveAfter { 600000 };
    LogSink log;
    // The balancer's clock (Unix ms); none: the wall clock. Tests move its window with it.
    std::function<std::int64_t()> balancerClock = {};
    // Prometheus figures: cutover write holds, documents backfilled, store commit latency and
    // migrations by phase (null: none).
    MetricsRegistry* metrics = nullptr;
};

// Drives migrations through the phases of ARCHITECTURE §6. It acts only while lead() keeps it
// supplied with a live lease grant (the ControllerServer election calls it on every renewal);
// every commit is fenced with that grant and every node call is made only while the grant has
// more than leaseMargin left, so a former leader that wakes up late does nothing.
//
// Each step reads the records it needs, does one idempotent transition, and commits it with a
// compare-and-set on the records it read, so a crash anywhere leaves a state the next executor
// resumes from (the phase, the backfill cursor, the epochs). The epochs it sends to nodes are
// derived from the space record's epoch E: E while dual writing, E + 1 for the cutover fence,
// committed to the map before anyone writes with it.
//
// One worker thread per migration in progress; a scheduler thread starts queued migrations as
// the concurrency limits of settings/migrations allow, retries failed steps with backoff, wakes
// migrations waiting for their rollback window, and finishes operations (drain, merge ...) once
// their migrations are final. The steps themselves are MigrationPhases'; this class is the
// scheduler (threads, lease, backoff, slots). A second thread runs the FailoverWatch (promotion of
// replicas, lost nodes, re-replication) with the same lease fence, a third the SnapshotTaker, a
// fourth the BalancerRound.
class MigrationExecutor {
public:
    MigrationExecutor(MetadataStore& store, NodeClientPool& nodes, ExecutorOptions options);
    ~MigrationExecutor();
    MigrationExecutor(const MigrationExecutor&) = delete;
    MigrationExecutor& operator=(const MigrationExecutor&) = delete;

    // This replica leads with this grant (renewed or new); starts acting if it was not.
    void lead(const LeaseGrant& grant);
    // Stops acting and waits for the workers to finish their current call.
    void stepDown();
    bool leading() const;
    // Migrations in the working set by phase, as the last scheduling round saw them.
    std::map<std::string, std::uint64_t> migrationsByPhase() const;
    // The shards' replicas by state ("in_sync", "catching_up", "lost") and, per catching-up copy
    // (shard, node), the documents it is behind (what its catch-up has left to copy), as the last
    // scheduling round listed them (issue 30's copies by state and replication lag).
    struct CopyFigures {
        std::map<std::string, std::uint64_t> byState;
        std::map<std::pair<std::string, std::string>, std::uint64_t> behind;
    };
    CopyFigures copyFigures() const;
    // Cutovers done or aborted by this executor, oldest first (for benchmarks and tests).
    std::vector<CutoverTiming> cutoverTimings() const;
    // The last usable snapshot and the schedule as the snapshot thread last read them (issue 32).
    SnapshotTaker::Figures snapshotFigures() const { return m_snapshots.figures(); }
    // What the balancer's rounds did (issue 33).
    BalancerRound::Figures balancerFigures() const { return m_balancer.figures(); }

private:
    using Next = MigrationPhases::Next;
    // The concurrency limits as one scheduling round fills them.
    class Slots;

    void schedulerLoop();
    // The failover watch's thread: a round every poll while leading, on its own thread so that a
    // node that takes a whole call deadline to fail never holds up the scheduling.
    void watchLoop();
    // The snapshot thread (issue 32): a SnapshotTaker round every poll while leading, on its own
    // thread because a snapshot copies shard after shard for as long as that takes.
    void snapshotLoop();
    // The balancer's thread (issue 33): a BalancerRound every poll while leading (it evaluates when
    // its policy's interval or a map change makes one due), apart from the others because a
    // plan of a large fleet takes a while.
    void balancerLoop();
    // Wakes the scheduler now (a map change, a worker that ended, a new grant).
    void poke();
    void scheduleOnce();
    // The active migrations of the listing; the count of each phase kept for the metrics.
    std::vector<MigrationRecord> readWorkingSet(const StoreSnapshot& listed);
    // Queues a catch-up for every catching-up copy without an active one, adding it to active.
    void countCopies(const StoreSnapshot& shards);
    void queueCatchUps(const StoreSnapshot& shardList, std::vector<MigrationRecord>& active);
    // Starts a worker for each migration that is due and fits the limits; false when this
    // replica no longer leads.
    bool startDueMigrations(const std::vector<MigrationRecord>& active, Slots& slots);
    // Not waiting for a backoff, its start time or the end of a pause (m_mutex held).
    bool dueNow(const MigrationRecord& m, std::chrono::steady_clock::time_point now) const;
    void runWorker(const std::string& id);
    // Moves migrations final for longer than archiveAfter out of the working set.
    Status archiveFinished(const StoreSnapshot& listed);

    Status checkLease() const;
    // checkLease() and fence(), for the executor's parts.
    LeaseGuard lease();
    // The grant to fence a commit with, checked and read under one lock: never a commit without
    // a fence because the grant was reset between a check and its use (issue 14).
    Result<LeaseGrant> fence() const;
    void log(LogLevel level, const std::string& message) const;

    MetadataStore& m_store;
    ExecutorOptions m_options;

    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::atomic<bool> m_poked { false };
    std::optional<LeaseGrant> m_grant;
    bool m_leading = false;
    bool m_stopping = false;
    std::thread m_scheduler;
    std::thread m_watcher;
    std::thread m_snapshotter;
    std::thread m_balancerThread;
    std::unique_ptr<WatchHandle> m_watch;
    // What the last scheduling round listed (the working set), for the metrics.
    std::map<std::string, std::uint64_t> m_migrationsByPhase;
    CopyFigures m_copyFigures;
    // Migrations with a worker running; ids whose worker ended, to be joined.
    std::map<std::string, std::thread> m_workers;
    std::vector<std::string> m_finishedWorkers;
    // When a migration that waits (backoff, rollback window) is due again.
    std::map<std::string, std::chrono::steady_clock::time_point> m_dueAt;
    std::map<std::string, int> m_failures;
    MigrationRecords m_records;
    MigrationPhases m_phases;
    OperationFinisher m_operations;
    FailoverWatch m_failover;
    RetiredShardCleanup m_retiredShards;
    SnapshotTaker m_snapshots;
    BalancerRound m_balancer;
};

} // namespace shardmap::core
