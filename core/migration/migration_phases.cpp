// MigrationPhases' implementation: a step per phase, the backfill's progress and the verify's
// rounds, the cutover's fence, comparison, commit and abort as steps of their own.
#include "core/migration/migration_phases.h"

#include "core/migration/backfill_copier.h"
#include "core/migration/fleet_facts.h"
#include "core/migration/migration_requests.h"
#include "core/migration/range_repair.h"
#include "core/util/clock.h"
#include "core/util/failpoint.h"

#include <algorithm>
#include <thread>

namespace shardmap::core {

namespace {

// The phases' Prometheus families, one definition each (made at construction, so that they
// exist from the first scrape).
MetricHistogram& cutoverHoldMetric(MetricsRegistry& metrics)
{
    return metrics.histogram("shardmapd_cutover_write_hold_seconds",
        "How long a committed cutover held the space's writes (fence to new owner)");
}
MetricCounter& backfillDocsMetric(MetricsRegistry& metrics)
{
    return metrics.counter("shardmapd_backfill_docs_total", "Documents the executor's backfills copied to targets");
}

// kVerifyPause, kVerifyRounds, sameContent and describeStats: core/migration/range_repair.h.

VerificationFigures comparison(const SpaceStats& source, const SpaceStats& target, std::uint32_t rounds)
{
    return { nowUnixMs(), { source.liveDocs, source.tombstones, source.checksum },
        { target.liveDocs, target.tombstones, target.checksum }, rounds, 0, sameContent(source, target) };
}

} // namespace

bool beforeCutover(MigrationPhase phase)
{
    return phase == MigrationPhase::Queued || phase == MigrationPhase::DualWrite || phase == MigrationPhase::Backfill
        || phase == MigrationPhase::Verify;
}

MigrationPhases::MigrationPhases(
    MetadataStore& store, NodeClientPool& nodes, MigrationRecords& records, LeaseGuard lease, Options options)
    : m_store(store)
    , m_lease(std::move(lease))
    , m_nodes(nodes, m_lease)
    , m_records(records)
    , m_options(std::move(options))
    , m_catchUps(store, m_nodes, records, m_lease, m_options.progressInterval,
          { m_options.poll, std::chrono::milliseconds(1000), m_options.log, m_options.metrics })
    , m_copies(store, m_nodes, m_lease, m_options.log)
    , m_restores(
          store, m_nodes, m_copies, records, m_lease, { m_options.poll, m_options.progressInterval, m_options.log })
{
    if (m_options.metrics) {
        (void)cutoverHoldMetric(*m_options.metrics);
        (void)backfillDocsMetric(*m_options.metrics);
    }
}

std::vector<CutoverTiming> MigrationPhases::cutoverTimings() const
{
    std::lock_guard lock(m_mutex);
    return m_cutovers;
}

void MigrationPhases::recordCutover(CutoverTiming timing)
{
    if (m_options.metrics && timing.committed)
        cutoverHoldMetric(*m_options.metrics).observe(std::chrono::duration<double>(timing.held).count());
    std::lock_guard lock(m_mutex);
    m_cutovers.push_back(std::move(timing));
}

void MigrationPhases::log(LogLevel level, const std::string& message) const
{
    if (m_options.log)
        m_options.log(level, message);
}

Result<MigrationPhases::StepResult> MigrationPhases::step(const std::string& id)
{
    if (auto status = m_lease.check(); !status)
        return status.error();
    auto loaded = m_records.load(id);
    if (!loaded)
        return loaded.error();
    Context& ctx = *loaded;
    MigrationRecord& m = ctx.m();
    if (isFinal(m.phase))
        return StepResult { Next::Finished };
    // A copy's catch-up has no space of its own to own, cut over or abort (catch_up.h); a
    // restore's source is a snapshot's file, not a shard of the map (space_restore.h).
    if (m.isCatchUp() || m.isRestore())
        return m.isCatchUp() ? m_catchUps.step(ctx) : m_restores.step(ctx);
    if (m.aborting)
        return abort(ctx);
    if (!ctx.ownsSpace()) {
        // The space is gone or belongs to another migration: touching nodes could harm it.
        m.error
            = ctx.space ? "space " + m.space + " no longer names this migration" : "space " + m.space + " was removed";
        if (auto committed
            = m_records.transition(ctx, MigrationPhase::Failed, "failed", "migration-failed", m.error, false);
            !committed)
            return committed.error();
        return StepResult { Next::Finished };
    }
    if (m.cancelRequested && beforeCutover(m.phase))
        return beginAbort(ctx, MigrationPhase::Cancelled, "cancelled by request");
    if (m.paused && beforeCutover(m.phase))
        return m_records.waitWhilePaused(ctx, m_options.poll);
    switch (m.phase) {
    case MigrationPhase::Queued: return startMigration(ctx);
    case MigrationPhase::DualWrite: return enterBackfill(ctx);
    case MigrationPhase::Backfill: return backfill(ctx);
    case MigrationPhase::Verify: return verify(ctx);
    case MigrationPhase::Cutover: return cutover(ctx);
    case MigrationPhase::Cleanup:
        if (m.rollbackRequested && !ctx.sp().target.empty())
            return rollback(ctx);
        return cleanup(ctx);
    default: return StepResult { Next::Finished };
    }
}

// The target's node cannot be reached to check its room: the migration waits (retried with
// backoff, the reason in its record) for settings.startRetrySeconds from the first such attempt,
// then fails saying so (issue 14: a node restarting must not fail the migrations queued to it).
Result<MigrationPhases::StepResult> MigrationPhases::waitToStart(Context& ctx, const Error& why)
{
    MigrationRecord& m = ctx.m();
    const std::int64_t now = nowUnixMs();
    const std::int64_t since = m.startBlockedUnixMs ? m.startBlockedUnixMs : now;
    const std::int64_t limit = static_cast<std::int64_t>(ctx.settings.startRetrySeconds) * 1000;
    if (now - since >= limit)
        return beginAbort(ctx, MigrationPhase::Failed,
            "preflight at start: " + why.message + " (for " + std::to_string((now - since) / 1000)
                + " s; start-retry-seconds is " + std::to_string(ctx.settings.startRetrySeconds) + ")");
    if (!m.startBlockedUnixMs) {
        if (auto status = m_records.updateMigration(ctx, [&](MigrationRecord& r) { r.startBlockedUnixMs = since; });
            !status)
            return status.error();
    }
    return makeError(ErrorCode::Unavailable,
        "waiting to start: " + why.message + "; it fails if this lasts "
            + std::to_string((limit - (now - since)) / 1000) + " s more");
}

Result<MigrationPhases::StepResult> MigrationPhases::startMigration(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    SpaceRecord& sp = ctx.sp();
    // Preflight again: the fleet may have changed since the request was queued.
    auto map = readMapSnapshot(m_store);
    if (!map)
        return map.error();
    const auto facts = gatherPreflightFacts(*map, m_nodes.pool(), m.space, m.target);
    if (auto status = preflightMigration(*map, m.space, m.target, facts, m.id); !status) {
        if (status.error().code == ErrorCode::Unavailable)
            return waitToStart(ctx, status.error());
        return beginAbort(ctx, MigrationPhase::Failed, "preflight at start: " + status.error().message);
    }
    if (sp.shard != m.source)
        return beginAbort(ctx, MigrationPhase::Failed,
            "space " + m.space + " is on " + sp.shard + " now, not on the migration's source " + m.source);
    const std::uint64_t epoch = sp.epoch + 1;
    // The target accepts the new epoch before any router can know it.
    if (auto status = m_nodes.own(ctx, m.target, SpaceRole::MigrationTarget, epoch); !status)
        return status.error();
    // So are the target's in-sync replicas (a copy that cannot be told leaves the migration).
    if (auto status = m_copies.own(ctx, m.target, SpaceRole::MigrationTarget, epoch); !status)
        return status.error();
    if (auto status = failpoint("migration.start.target_owned"); !status)
        return status.error();
    sp.epoch = epoch;
    sp.target = m.target;
    m.startedUnixMs = nowUnixMs();
    m.startBlockedUnixMs = 0;
    m.error.clear();
    if (auto committed = m_records.transition(ctx, MigrationPhase::DualWrite, "dual writing", "migration-dual-write");
        !committed)
        return committed.error();
    if (auto status = failpoint("migration.dual_write.committed"); !status)
        return status.error();
    log(LogLevel::Debug,
        "migration " + m.id + ": " + m.space + " " + m.source + " -> " + m.target + " dual writing at epoch "
            + std::to_string(epoch));
    return StepResult {};
}

Result<MigrationPhases::StepResult> MigrationPhases::enterBackfill(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    SpaceRecord& sp = ctx.sp();
    // Once the source holds the new epoch, every write it accepts came from a router that knows
    // the target and writes it there too: from here on the backfill cannot miss a change.
    if (auto status = m_nodes.own(ctx, m.source, SpaceRole::Owner, sp.epoch); !status)
        return status.error();
    if (auto status = m_nodes.own(ctx, m.target, SpaceRole::MigrationTarget, sp.epoch); !status)
        return status.error();
    if (auto status = m_copies.own(ctx, m.target, SpaceRole::MigrationTarget, sp.epoch); !status)
        return status.error();
    if (auto status = failpoint("migration.dual_write.owned"); !status)
        return status.error();
    if (m.backfilled && ctx.settings.maxRepairs > 0 && m.cutoverAborts > ctx.settings.maxRepairs)
        return beginAbort(ctx, MigrationPhase::Failed,
            "the cutover aborted " + std::to_string(m.cutoverAborts) + " times in a row; last: " + m.error);
    if (m.backfilled) {
        if (auto committed = m_records.transition(ctx, MigrationPhase::Verify, "verifying", "migration-backfill");
            !committed)
            return committed.error();
        return StepResult {};
    }
    auto stats = m_nodes.statsOf(ctx, m.source);
    if (!stats)
        return stats.error();
    m.progress.docsTotal = stats->liveDocs + stats->tombstones;
    m.progress.bytesTotal = stats->bytesEstimate;
    if (auto committed = m_records.transition(ctx, MigrationPhase::Backfill, "copying", "migration-backfill");
        !committed)
        return committed.error();
    return StepResult {};
}

Result<MigrationPhases::StepResult> MigrationPhases::backfill(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    const std::uint64_t epoch = ctx.sp().epoch;
    auto ends = m_nodes.copyEnds(ctx);
    if (!ends)
        return ends.error();
    const std::string targetShard = m.target;
    BackfillCopier::Options options;
    static_cast<SpaceCopyEnds&>(options) = std::move(*ends);
    options.progressInterval = m_options.progressInterval;
    options.throttle = [&] {
        return m.throttleDocsPerSecond > 0 ? m.throttleDocsPerSecond : ctx.settings.defaultThrottleDocsPerSecond;
    };
    options.checkLease = [this] { return m_lease.check(); };
    options.reownTarget = [&] { return m_nodes.own(ctx, targetShard, SpaceRole::MigrationTarget, epoch); };
    // The target's in-sync replicas get every page the target does (MigrationCopies).
    options.replicas = m_copies.inSync(ctx, targetShard);
    options.reownReplica = [&](const CopyReplica& replica) {
        return m_nodes.ownOn(*replica.client, targetShard, m.space, SpaceRole::MigrationTarget, epoch);
    };
    options.replicaFailed = [&](const CopyReplica& replica, const Error& why) {
        return m_copies.leave(ctx, targetShard, replica.node, why);
    };
    std::uint64_t counted = m.progress.docsDone;
    options.saveProgress
        = [&](const CopyProgress& progress, bool final) { return saveBackfillProgress(ctx, progress, final, counted); };
    BackfillCopier copier(std::move(options));
    auto copied
        = copier.run({ m.progress.cursor, m.progress.docsDone, m.progress.bytesDone, m.progress.docsPerSecond });
    if (!copied)
        return copied.error();
    if (copied->end == BackfillCopier::End::Refused)
        return beginAbort(
            ctx, MigrationPhase::Failed, "the target refused a document of the space: " + copied->refusal);
    if (copied->end == BackfillCopier::End::Interrupted)
        return StepResult {};
    if (auto status = failpoint("migration.backfill.done"); !status)
        return status.error();
    if (auto committed = m_records.transition(ctx, MigrationPhase::Verify, "verifying", "migration-verify"); !committed)
        return committed.error();
    log(LogLevel::Info,
        "migration " + m.id + ": copied " + std::to_string(copied->progress.docsDone) + " rows of " + m.space);
    return StepResult {};
}

namespace {

// The copy's progress as the migration record shows it (the console's bar and ETA).
void applyCopyProgress(MigrationRecord& r, const CopyProgress& progress, bool final)
{
    r.progress.cursor = progress.cursor;
    r.progress.docsDone = progress.docsDone;
    r.progress.bytesDone = progress.bytesDone;
    r.progress.docsTotal = std::max(r.progress.docsTotal, progress.docsDone);
    r.progress.bytesTotal = std::max(r.progress.bytesTotal, progress.bytesDone);
    r.progress.docsPerSecond = progress.docsPerSecond;
    r.progress.etaSeconds = progress.docsPerSecond > 0 ? static_cast<std::int64_t>(
                                static_cast<double>(r.progress.docsTotal - progress.docsDone) / progress.docsPerSecond)
                                                       : -1;
    if (final) {
        r.progress.etaSeconds = 0;
        r.backfilled = true;
    }
    r.error.clear();
    r.status = final ? "copied" : "copying";
}

} // namespace

// Saves the copy's progress (counted: the documents already added to the metric); true when a
// request that arrived meanwhile stops the copy.
Result<bool> MigrationPhases::saveBackfillProgress(
    Context& ctx, const CopyProgress& progress, bool final, std::uint64_t& counted)
{
    if (m_options.metrics && progress.docsDone > counted) {
        backfillDocsMetric(*m_options.metrics).add(progress.docsDone - counted);
        counted = progress.docsDone;
    }
    if (auto saved = m_records.updateMigration(ctx, [&](MigrationRecord& r) { applyCopyProgress(r, progress, final); });
        !saved)
        return saved.error();
    if (final)
        return false;
    // A request that arrived meanwhile (pause, cancel) is handled by the next step; a new
    // throttle applies from here.
    const MigrationRecord& m = ctx.m();
    if (m.paused || m.cancelRequested || m.aborting)
        return true;
    if (auto settings
        = readVersioned<MigrationSettings>(m_store, std::string(keys::kMigrationSettings), &decodeMigrationSettings);
        settings && *settings)
        ctx.settings = (*settings)->value;
    return false;
}

Result<std::uint64_t> MigrationPhases::repairByRange(Context& ctx, bool& targetOnly)
{
    auto ends = m_nodes.copyEnds(ctx);
    if (!ends)
        return ends.error();
    const RangeRepair repair { std::move(*ends), [this] { return m_lease.check(); } };
    return repair.run(targetOnly);
}

Result<MigrationPhases::StepResult> MigrationPhases::verify(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    if (m.rolledBack) {
        // The way back: the old source must still follow the owner. A deposed leader's late call
        // (its cutover's fence, at the epoch the cutover committed) can have left it fenced, and
        // then its repairs and the dual writes would be refused on every retry. Idempotent, as
        // in the cleanup's window.
        if (auto status = m_nodes.own(ctx, m.target, SpaceRole::MigrationTarget, ctx.sp().epoch); !status)
            return status.error();
        if (auto status = m_copies.own(ctx, m.target, SpaceRole::MigrationTarget, ctx.sp().epoch); !status)
            return status.error();
    }
    auto difference = compareRounds(ctx);
    if (!difference)
        return difference.error();
    if (!difference->empty()) {
        bool targetOnly = false;
        auto repaired = repairByRange(ctx, targetOnly);
        if (!repaired && targetOnly)
            return beginAbort(ctx, MigrationPhase::Failed, repaired.error().message);
        if (!repaired)
            return repaired.error();
        if (auto status = noteRepair(ctx, *repaired, *difference); !status)
            return status.error();
    }
    // Then the target's in-sync replicas, each against the source (one that fails leaves).
    auto copies = m_copies.verify(ctx);
    if (!copies)
        return copies.error();
    if (auto status = noteRepair(ctx, *copies, "the target's replicas differed"); !status)
        return status.error();
    if (auto status = failpoint("migration.verify.done"); !status)
        return status.error();
    if (auto committed = m_records.transition(ctx, MigrationPhase::Cutover, "cutting over", "migration-cutover-start");
        !committed)
        return committed.error();
    return StepResult {};
}

// Compares the source's and the target's aggregates up to kVerifyRounds times while dual writes
// settle; the difference last seen, empty once they match.
Result<std::string> MigrationPhases::compareRounds(Context& ctx)
{
    const MigrationRecord& m = ctx.m();
    std::string difference;
    for (int round = 0; round < kVerifyRounds; ++round) {
        auto source = m_nodes.statsOf(ctx, m.source);
        if (!source)
            return source.error();
        auto target = m_nodes.statsOf(ctx, m.target);
        if (!target)
            return target.error();
        ctx.verification = comparison(*source, *target, round + 1);
        if (sameContent(*source, *target))
            return std::string();
        difference = "source " + describeStats(*source) + ", target " + describeStats(*target);
        std::this_thread::sleep_for(kVerifyPause);
    }
    return difference;
}

Status MigrationPhases::noteRepair(Context& ctx, std::uint64_t docs, const std::string& difference)
{
    if (docs == 0)
        return {};
    // Documents the target lacked or had older: a dual write it missed, or one still on its way
    // (the walk cannot tell them apart). Either way the target has them now; the cutover compares
    // exactly once the source holds its writes.
    if (auto status = m_records.updateMigration(ctx,
            [&](MigrationRecord& r) {
                r.repairs += 1;
                r.repairedDocs += docs;
            });
        !status)
        return status;
    log(LogLevel::Info,
        "migration " + ctx.m().id + ": verify copied " + std::to_string(docs) + " documents again (" + difference
            + ")");
    return {};
}

Result<MigrationPhases::StepResult> MigrationPhases::cutover(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    const std::uint64_t epoch = ctx.sp().epoch;
    const std::uint64_t next = epoch + 1;
    const auto started = std::chrono::steady_clock::now();
    const auto deadline = started + std::chrono::milliseconds(ctx.settings.cutoverTimeoutMs);
    if (auto status = failpoint("migration.cutover.before_fence"); !status)
        return status.error();
    // Hold the source's writes: it refuses every epoch below next, and a router cannot push it
    // back (it only pushes epochs the map has, and the map still has epoch).
    if (auto status = m_nodes.own(ctx, m.source, SpaceRole::Fenced, next); !status)
        return status.error();
    if (auto status = failpoint("migration.cutover.fenced"); !status)
        return status.error();
    // Writes the source took before the fence may still be on their way to the target.
    ctx.fencedAt = started;
    if (const std::string difference = awaitSameContent(ctx, deadline); !difference.empty())
        return abortCutover(ctx, next, "source and target differ with writes held: " + difference);
    // Every copy the router will search once the cutover commits holds what the source holds.
    std::vector<std::string> verified;
    if (const std::string difference = m_copies.awaitSameContent(ctx, deadline, verified); !difference.empty())
        return abortCutover(ctx, next, "source and a copy of the target differ with writes held: " + difference);
    const bool window = !m.rolledBack && ctx.settings.rollbackWindowSeconds > 0;
    if (window) {
        // The old source (and its in-sync replicas) follow the new owner during the rollback
        // window, so a rollback needs no backfill; it still refuses the old epoch.
        if (auto status = m_nodes.own(ctx, m.source, SpaceRole::MigrationTarget, next); !status)
            return abortCutover(ctx, next, status.error().message);
        if (auto status = m_copies.own(ctx, m.source, SpaceRole::MigrationTarget, next); !status)
            return abortCutover(ctx, next, status.error().message);
    }
    if (std::chrono::steady_clock::now() >= deadline)
        return abortCutover(
            ctx, next, "the cutover took longer than " + std::to_string(ctx.settings.cutoverTimeoutMs) + " ms");
    if (auto status = failpoint("migration.cutover.before_commit"); !status)
        return status.error();
    return commitCutover(ctx, epoch, window, { started, deadline }, verified);
}

// Compares source and target with the source's writes held until they hold the same rows or the
// deadline passes; the difference last seen (a read error counts as one), empty once they match.
std::string MigrationPhases::awaitSameContent(Context& ctx, std::chrono::steady_clock::time_point deadline)
{
    const MigrationRecord& m = ctx.m();
    std::uint32_t rounds = 0;
    for (;;) {
        auto source = m_nodes.statsOf(ctx, m.source);
        auto target = source ? m_nodes.statsOf(ctx, m.target) : Result<SpaceStats>(source.error());
        if (source && target)
            ctx.verification = comparison(*source, *target, ++rounds);
        if (source && target && sameContent(*source, *target))
            return {};
        std::string difference = !source ? source.error().message
            : !target                    ? target.error().message
                                         : "source " + describeStats(*source) + ", target " + describeStats(*target);
        if (std::chrono::steady_clock::now() >= deadline)
            return difference;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

namespace {

// The records as the cutover leaves them: the space on the target at the next epoch, the old
// source following it while the rollback window is open, the migration cleaning up.
void applyCutover(MigrationContext& ctx, std::uint64_t next, bool window, const std::string& oldSource)
{
    SpaceRecord& sp = ctx.sp();
    MigrationRecord& m = ctx.m();
    sp.shard = m.target;
    sp.epoch = next;
    sp.target = window ? oldSource : std::string();
    sp.phase = MigrationPhase::Cleanup;
    m.phase = MigrationPhase::Cleanup;
    m.cutoverUnixMs = nowUnixMs();
    m.cutoverAborts = 0;
    m.error.clear();
    m.status = window ? "cut over; rollback possible for " + std::to_string(ctx.settings.rollbackWindowSeconds) + " s"
                      : "cut over; removing the old copy";
}

} // namespace

// Commits the cutover (the space's new owner and epoch), once more on top of a concurrent
// change that left the space as the cutover found it; aborts it when the space changed.
Result<MigrationPhases::StepResult> MigrationPhases::commitCutover(
    Context& ctx, std::uint64_t epoch, bool window, CutoverClock clock, const std::vector<std::string>& verified)
{
    MigrationRecord& m = ctx.m();
    const std::uint64_t next = epoch + 1;
    const std::string oldSource = m.source;
    const auto [started, deadline] = clock;
    for (int attempt = 0;; ++attempt) {
        // No copy of the target may have become in sync since the compare (MigrationCopies).
        if (auto guarded = m_copies.guardCutover(ctx, verified); !guarded)
            return abortCutover(ctx, next, guarded.error().message);
        applyCutover(ctx, next, window, oldSource);
        auto committed
            = m_records.commit(ctx, true, m.rolledBack ? "migration-rollback-cutover" : "migration-cutover", "");
        if (committed)
            return finishCutover(ctx, next, started);
        if (committed.error().code != ErrorCode::Conflict || attempt > 0
            || std::chrono::steady_clock::now() >= deadline) {
            if (committed.error().code == ErrorCode::Conflict) {
                auto fresh = m_records.load(m.id);
                if (!fresh)
                    return fresh.error();
                return abortCutover(*fresh, next, "the space changed during the cutover");
            }
            // Lease lost or store unavailable: whether it committed is unknown until re-read; the
            // source stays fenced and the next step (here or on the next leader) finds out.
            return committed.error();
        }
        // Someone changed the records meanwhile (a pause, a throttle): commit on top of theirs if
        // the space is still as the cutover left it.
        auto fresh = m_records.load(m.id);
        if (!fresh)
            return fresh.error();
        if (!fresh->ownsSpace() || fresh->sp().epoch != epoch || fresh->sp().shard != oldSource
            || fresh->m().phase != MigrationPhase::Cutover)
            return abortCutover(*fresh, next, "the space changed during the cutover");
        ctx = std::move(*fresh);
    }
}

// After the cutover's commit: the new owner is told, the write hold recorded and logged.
Result<MigrationPhases::StepResult> MigrationPhases::finishCutover(
    Context& ctx, std::uint64_t next, std::chrono::steady_clock::time_point started)
{
    const MigrationRecord& m = ctx.m();
    const auto held = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
    if (auto status = failpoint("migration.cutover.committed"); !status)
        return status.error();
    // Routers that still write with the old epoch are refused, re-read the map and push this
    // ownership themselves if this call is late or lost.
    if (auto status = m_nodes.own(ctx, m.target, SpaceRole::Owner, next); !status)
        log(LogLevel::Warn, "migration " + m.id + ": " + status.error().describe() + " (routers will push it)");
    m_copies.tell(ctx, m.target, SpaceRole::Owner, next);
    recordCutover({ m.id, held, true });
    // The phase line (cutover -> cleanup) of this commit, which is not a transition().
    log(LogLevel::Info,
        "migration " + m.id + ": " + m.space + " " + m.source + " -> " + m.target + ": cutover -> cleanup (" + m.space
            + " cut over to " + m.target + " at epoch " + std::to_string(next) + ", writes held "
            + std::to_string(held.count() / 1000.0) + " ms)");
    return StepResult {};
}

Result<MigrationPhases::StepResult> MigrationPhases::abortCutover(
    Context& ctx, std::uint64_t fenceEpoch, const std::string& why)
{
    MigrationRecord& m = ctx.m();
    // Only the cutover this step started: the records must still say so (the space on the
    // source, below the fence's epoch, the migration cutting over). Another committer may have
    // committed a cutover meanwhile (a deposed leader's, issue 14); rewriting that would give the
    // space two owners. Then nothing is aborted and the next step goes on from what the store says.
    if (!ctx.ownsSpace() || m.phase != MigrationPhase::Cutover || ctx.sp().shard != m.source
        || ctx.sp().epoch >= fenceEpoch) {
        log(LogLevel::Warn,
            "migration " + m.id + ": cutover not aborted (" + why + "): the records moved on (phase "
                + migrationPhaseName(m.phase) + (ctx.space ? ", space on " + ctx.sp().shard : std::string()) + ")");
        return StepResult {};
    }
    SpaceRecord& sp = ctx.sp();
    const auto started = std::chrono::steady_clock::now();
    const std::uint32_t aborts = m.cutoverAborts + 1;
    const int attempts = static_cast<int>(std::min<std::uint32_t>(aborts - 1, 5));
    // An epoch above the fence's: the source owns the space again by an epoch it never held
    // fenced, so no node lifts a fence at the epoch it was set at, and a late copy of this fence
    // (a deposed leader's call) is refused as stale rather than holding the space's writes. The
    // nodes are told after the commit: told before, a target at this epoch would refuse the
    // writes of a cutover another committer made meanwhile at the fence's.
    sp.epoch = fenceEpoch + 1;
    m.backfilled = true;
    m.notBeforeUnixMs = nowUnixMs() + 1000LL * (1 << attempts);
    m.cutoverAborts = aborts;
    m.error = "cutover aborted: " + why;
    if (auto committed = m_records.transition(
            ctx, MigrationPhase::DualWrite, "dual writing; cutover retried later", "migration-cutover-abort", why);
        !committed)
        return committed.error();
    // Dual writes the target misses until it is told are repaired by the verify that comes next
    // (its replicas: routers tell them, or mark them catching up).
    if (auto status = m_nodes.own(ctx, m.target, SpaceRole::MigrationTarget, sp.epoch); !status)
        log(LogLevel::Warn, "migration " + m.id + ": " + status.error().describe());
    m_copies.tell(ctx, m.target, SpaceRole::MigrationTarget, sp.epoch);
    if (auto status = m_nodes.own(ctx, m.source, SpaceRole::Owner, sp.epoch); !status)
        log(LogLevel::Warn, "migration " + m.id + ": " + status.error().describe() + " (routers will push it)");
    recordCutover({ m.id,
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started), false });
    log(LogLevel::Warn, "migration " + m.id + ": cutover aborted: " + why);
    return StepResult { Next::Wait, std::chrono::milliseconds(1000LL * (1 << attempts)) };
}

Result<MigrationPhases::StepResult> MigrationPhases::rollback(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    // The old source has followed every write since the cutover: moving back is a cutover in the
    // other direction, after a verify.
    std::swap(m.source, m.target);
    m.rolledBack = true;
    m.rollbackRequested = false;
    m.backfilled = true;
    if (auto committed = m_records.transition(ctx, MigrationPhase::Verify, "rolling back: verifying " + m.target,
            "migration-rollback", "rollback requested");
        !committed)
        return committed.error();
    log(LogLevel::Info, "migration " + m.id + ": rolling back " + m.space + " to " + m.target);
    return StepResult {};
}

Result<MigrationPhases::StepResult> MigrationPhases::cleanup(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    SpaceRecord& sp = ctx.sp();
    if (!sp.target.empty()) {
        const std::int64_t due = m.cutoverUnixMs + static_cast<std::int64_t>(ctx.settings.rollbackWindowSeconds) * 1000;
        const std::int64_t now = nowUnixMs();
        if (now < due) {
            // Idempotent: a restarted executor makes sure both nodes hold their roles.
            if (auto status = m_nodes.own(ctx, m.target, SpaceRole::Owner, sp.epoch); !status)
                return status.error();
            if (auto status = m_nodes.own(ctx, m.source, SpaceRole::MigrationTarget, sp.epoch); !status)
                log(LogLevel::Warn, "migration " + m.id + ": " + status.error().describe());
            m_copies.tell(ctx, m.source, SpaceRole::MigrationTarget, sp.epoch);
            return StepResult { Next::Wait, std::chrono::milliseconds(std::min<std::int64_t>(due - now, 60000)) };
        }
        // Close the window: the old source stops receiving writes (new epoch, no target).
        sp.epoch += 1;
        sp.target.clear();
        m.status = "removing the old copy from " + m.source;
        if (auto committed = m_records.commit(ctx, true, "migration-close-rollback-window", ""); !committed)
            return committed.error();
    }
    if (auto status = m_nodes.own(ctx, m.target, SpaceRole::Owner, sp.epoch); !status)
        log(LogLevel::Warn, "migration " + m.id + ": " + status.error().describe() + " (routers will push it)");
    // Every copy of the shard the space left: its replicas (one whose node does not answer fails
    // the step, retried), then its primary.
    auto fromCopies = m_copies.drop(ctx, m.source, sp.epoch, "migration.cleanup.before_copy_drop");
    if (!fromCopies)
        return fromCopies.error();
    auto dropped = m_nodes.removeCopy(ctx, m.source, "migration.cleanup.before_drop");
    if (!dropped)
        return dropped.error();
    sp.migrationId.clear();
    sp.target.clear();
    const std::string fromReplicas
        = *fromCopies ? " and " + std::to_string(*fromCopies) + " from its replicas" : std::string();
    if (auto committed = m_records.transition(ctx, m.rolledBack ? MigrationPhase::Cancelled : MigrationPhase::Done,
            m.rolledBack ? "rolled back; " + m.space + " is on " + m.target + " again"
                         : "done; removed " + std::to_string(*dropped) + " rows from " + m.source + fromReplicas,
            "migration-done");
        !committed)
        return committed.error();
    log(LogLevel::Debug, "migration " + m.id + ": " + m.status);
    return StepResult { Next::Finished };
}

Result<MigrationPhases::StepResult> MigrationPhases::beginAbort(
    Context& ctx, MigrationPhase endPhase, const std::string& why)
{
    log(LogLevel::Info, "migration " + ctx.m().id + ": stopping (" + migrationPhaseName(endPhase) + "): " + why);
    if (auto status = m_records.updateMigration(ctx,
            [&](MigrationRecord& r) {
                r.aborting = true;
                r.abortPhase = endPhase;
                r.error = endPhase == MigrationPhase::Cancelled ? std::string() : why;
                r.status = "stopping: " + why;
            });
        !status)
        return status.error();
    return StepResult {};
}

Result<MigrationPhases::StepResult> MigrationPhases::abort(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    const bool owns = ctx.ownsSpace();
    const bool targetMayHaveDocs = m.phase != MigrationPhase::Queued;
    if (owns && !ctx.sp().target.empty()) {
        // Stop dual writes: a new epoch without a target; routers with the old one are refused.
        ctx.sp().epoch += 1;
        ctx.sp().target.clear();
        if (auto committed = m_records.commit(ctx, true, "migration-abort", m.status); !committed)
            return committed.error();
    }
    if (owns && targetMayHaveDocs) {
        if (auto status = m_nodes.own(ctx, m.source, SpaceRole::Owner, ctx.sp().epoch); !status)
            log(LogLevel::Warn, "migration " + m.id + ": " + status.error().describe() + " (routers will push it)");
        if (ctx.shards.contains(m.target)) {
            if (auto dropped = m_copies.drop(ctx, m.target, ctx.sp().epoch, "migration.abort.before_copy_drop");
                !dropped)
                return dropped.error();
            if (auto dropped = m_nodes.removeCopy(ctx, m.target, "migration.abort.before_drop"); !dropped)
                return dropped.error();
        }
    }
    if (owns)
        ctx.sp().migrationId.clear();
    if (auto committed = m_records.transition(ctx, m.abortPhase,
            (m.abortPhase == MigrationPhase::Cancelled ? "cancelled; " : "failed; ") + m.space + " stays on "
                + m.source,
            "migration-" + std::string(migrationPhaseName(m.abortPhase)), m.error, owns);
        !committed)
        return committed.error();
    log(LogLevel::Debug, "migration " + m.id + ": " + m.status);
    return StepResult { Next::Finished };
}

} // namespace shardmap::core
