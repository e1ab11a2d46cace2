#pragma once

// The phase steps of a migration (ARCHITECTURE §6): start, dual write, backfill, verify, cutover,
// cleanup, rollback and abort, one idempotent transition a step.

#include "core/client/node_client.h"
#include "core/metrics/prometheus.h"
#include "core/migration/backfill_copier.h"
#include "core/migration/catch_up.h"
#include "core/migration/migration_copies.h"
#include "core/migration/migration_nodes.h"
#include "core/migration/migration_records.h"
#include "core/migration/phase_step.h"
#include "core/migration/space_copy.h"
#include "core/migration/space_restore.h"
#include "core/store/metadata_store.h"
#include "core/util/log.h"
#include "core/util/result.h"

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace shardmap::core {

// One cutover as the executor measured it: how long the space's writes were held.
struct CutoverTiming {
    std::string migration;
    std::chrono::microseconds held { 0 };
    bool committed = false;
};

// Migrations before the cutover can be paused and cancelled; after it only rolled back.
bool beforeCutover(MigrationPhase phase);

// Takes one migration one step through its phases: each step reads the records it needs
// (MigrationRecords), does one idempotent transition on the nodes (MigrationNodes) and commits
// it, so a crash anywhere leaves a state the next step resumes from. What a step needs: the store
// (preflight, settings), the nodes' clients (ownership, aggregates, copies), the migration's
// records and the lease, checked before every node call. The copy and the repair are
// BackfillCopier and RangeRepair; the scheduler that runs the steps is MigrationExecutor.
class MigrationPhases {
public:
    struct Options {
        // How long a paused migration waits before its next step.
        std::chrono::milliseconds poll { 500 };
        // Backfill progress is written to the store at most this often (and at the end).
        std::chrono::milliseconds progressInterval { 250 };
        LogSink log;
        // Cutover write holds and documents backfilled (null: none).
        MetricsRegistry* metrics = nullptr;
    };
    using Next = PhaseNext;
    using StepResult = PhaseStep;

    MigrationPhases(
        MetadataStore& store, NodeClientPool& nodes, MigrationRecords& records, LeaseGuard lease, Options options);

    // The next step of migration id: what its phase and its requests (abort, cancel, pause,
    // rollback) call for.
    Result<StepResult> step(const std::string& id);
    // Cutovers done or aborted, oldest first.
    std::vector<CutoverTiming> cutoverTimings() const;

private:
    using Context = MigrationContext;

    Result<StepResult> startMigration(Context& ctx);
    Result<StepResult> waitToStart(Context& ctx, const Error& why);
    Result<StepResult> enterBackfill(Context& ctx);
    Result<StepResult> backfill(Context& ctx);
    Result<bool> saveBackfillProgress(Context& ctx, const CopyProgress& progress, bool final, std::uint64_t& counted);
    Result<StepResult> verify(Context& ctx);
    Result<std::string> compareRounds(Context& ctx);
    Status noteRepair(Context& ctx, std::uint64_t docs, const std::string& difference);
    Result<std::uint64_t> repairByRange(Context& ctx, bool& targetOnly);
    Result<StepResult> cutover(Context& ctx);
    std::string awaitSameContent(Context& ctx, std::chrono::steady_clock::time_point deadline);
    // When the cutover fenced the source, and by when it must have committed.
    struct CutoverClock {
        std::chrono::steady_clock::time_point started;
        std::chrono::steady_clock::time_point deadline;
    };
    Result<StepResult> commitCutover(
        Context& ctx, std::uint64_t epoch, bool window, CutoverClock clock, const std::vector<std::string>& verified);
    Result<StepResult> finishCutover(Context& ctx, std::uint64_t next, std::chrono::steady_clock::time_point started);
    Result<StepResult> abortCutover(Context& ctx, std::uint64_t fenceEpoch, const std::string& why);
    Result<StepResult> cleanup(Context& ctx);
    Result<StepResult> rollback(Context& ctx);
    Result<StepResult> abort(Context& ctx);
    Result<StepResult> beginAbort(Context& ctx, MigrationPhase endPhase, const std::string& why);
    void recordCutover(CutoverTiming timing);
    void log(LogLevel level, const std::string& message) const;

    MetadataStore& m_store;
    LeaseGuard m_lease;
    MigrationNodes m_nodes;
    MigrationRecords& m_records;
    Options m_options;
    // The steps of catch-ups (records with a copyNode), on the same nodes, records and lease.
    CatchUpPhases m_catchUps;
    // The target's replicas a migration moves the space to, and the source's it drops it from.
    MigrationCopies m_copies;
    // The steps of restores (records with a restoreSnapshot), on the same nodes, copies and records.
    RestorePhases m_restores;

    mutable std::mutex m_mutex;
    std::vector<CutoverTiming> m_cutovers;
};

} // namespace shardmap::core
