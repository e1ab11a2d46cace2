#include "core/migration/space_restore.h"

// RestorePhases' implementation: the staging shard installed from the snapshot, the copy, the
// verify and repair, the cutover (fence and move, or create) and the cleanup, each a step that a
// restarted leader resumes from the record.

#include "core/migration/range_repair.h"
#include "core/snapshot/snapshot_repository.h"
#include "core/util/clock.h"
#include "core/util/failpoint.h"

#include <algorithm>

namespace shardmap::core {

namespace {

// Errors of installing the snapshot's file that asking again would not change.
bool finalInstallError(const Error& error)
{
    switch (error.code) {
    case ErrorCode::FailedPrecondition:
    case ErrorCode::NotFound:
    case ErrorCode::InvalidArgument:
    case ErrorCode::ResourceExhausted:
    case ErrorCode::PermissionDenied: return true;
    default: return false;
    }
}

void applyRestoreProgress(MigrationRecord& r, const CopyProgress& progress)
{
    r.progress.cursor = progress.cursor;
    r.progress.docsDone = progress.docsDone;
    r.progress.bytesDone = progress.bytesDone;
    r.progress.docsPerSecond = progress.docsPerSecond;
    const std::uint64_t left = r.progress.docsTotal > progress.docsDone ? r.progress.docsTotal - progress.docsDone : 0;
    r.progress.etaSeconds = progress.docsPerSecond > 0
        ? static_cast<std::int64_t>(static_cast<double>(left) / progress.docsPerSecond)
        : -1;
}

} // namespace

RestorePhases::RestorePhases(MetadataStore& store, MigrationNodes& nodes, MigrationCopies& copies,
    MigrationRecords& records, LeaseGuard lease, Options options)
    : m_store(store)
    , m_nodes(nodes)
    , m_copies(copies)
    , m_records(records)
    , m_lease(std::move(lease))
    , m_options(std::move(options))
{
}

void RestorePhases::log(LogLevel level, const std::string& message) const
{
    if (m_options.log)
        m_options.log(level, message);
}

std::uint64_t RestorePhases::copyEpoch(const Context& ctx)
{
    return ctx.migration.value.restoreReplaces && ctx.space ? ctx.space->value.epoch : 1;
}

std::string RestorePhases::stopReason(const Context& ctx) const
{
    const MigrationRecord& m = ctx.migration.value;
    if (m.restoreReplaces && !ctx.ownsSpace())
        return ctx.space ? "space " + m.space + " no longer names this restore" : "space " + m.space + " was removed";
    if (!m.restoreReplaces && ctx.space)
        return "a space " + m.space + " was made on shard " + ctx.space->value.shard + " meanwhile";
    if (!ctx.shards.contains(m.target))
        return "shard " + m.target + " was removed";
    return {};
}

Result<PhaseStep> RestorePhases::step(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    if (isFinal(m.phase))
        return PhaseStep { PhaseNext::Finished };
    if (m.phase == MigrationPhase::Cleanup)
        return cleanup(ctx);
    if (const std::string why = stopReason(ctx); !why.empty())
        return stop(ctx, MigrationPhase::Failed, why);
    if (m.cancelRequested || m.aborting)
        return stop(ctx, m.aborting ? m.abortPhase : MigrationPhase::Cancelled, "cancelled by request");
    if (m.paused)
        return m_records.waitWhilePaused(ctx, m_options.poll);
    switch (m.phase) {
    case MigrationPhase::Queued: return start(ctx);
    case MigrationPhase::Backfill: return backfill(ctx);
    case MigrationPhase::Verify: return verify(ctx);
    case MigrationPhase::Cutover: return cutover(ctx);
    default:
        return stop(ctx, MigrationPhase::Failed, std::string("a restore has no phase ") + migrationPhaseName(m.phase));
    }
}

Result<ShardFileEntry> RestorePhases::snapshotFile(const Context& ctx)
{
    const MigrationRecord& m = ctx.migration.value;
    auto manifest = readManifest(ctx.settings.snapshotRepository, m.restoreSnapshot);
    if (!manifest)
        return manifest.error();
    for (const ShardFileEntry& entry : manifest->shards) {
        if (entry.shard == m.restoreShard)
            return entry;
    }
    return makeError(ErrorCode::NotFound, "snapshot " + m.restoreSnapshot + " has no file of shard " + m.restoreShard);
}

Result<std::shared_ptr<NodeClient>> RestorePhases::stagingClient(const Context& ctx)
{
    const MigrationRecord& m = ctx.migration.value;
    const auto node = ctx.nodes.find(m.restoreNode);
    if (node == ctx.nodes.end())
        return makeError(
            ErrorCode::NotFound, "node " + m.restoreNode + " of the restore's staging shard is not in the map");
    return m_nodes.pool().get(node->second.address);
}

Result<SpaceCopyEnds> RestorePhases::ends(const Context& ctx)
{
    const MigrationRecord& m = ctx.migration.value;
    auto staging = stagingClient(ctx);
    if (!staging)
        return staging.error();
    auto target = m_nodes.clientFor(ctx, m.target);
    if (!target)
        return target.error();
    SpaceCopyEnds out { *staging, restoreStagingShard(m), *target, m.target, m.restoreSpace, copyEpoch(ctx),
        ctx.settings.backfillBatch };
    out.targetSpace = m.space;
    return out;
}

// The snapshot's file of the shard goes onto the target's node as the staging shard (hash checked
// by the node), and the target follows the space as a migration target at the copy's epoch.
Result<PhaseStep> RestorePhases::start(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    auto file = snapshotFile(ctx);
    if (!file)
        return stop(ctx, MigrationPhase::Failed, file.error().message);
    if (m.restoreNode.empty())
        m.restoreNode = ctx.shards.at(m.target).node;
    auto staging = stagingClient(ctx);
    if (!staging)
        return staging.error();
    auto placed = (*staging)->restoreShard(
        { restoreStagingShard(m), ctx.settings.snapshotRepository, file->file, { file->bytes, file->xxh3_128 } });
    if (!placed && placed.error().code != ErrorCode::AlreadyExists) {
        const std::string why = "installing snapshot " + m.restoreSnapshot + "'s file of shard " + m.restoreShard
            + " on node " + m.restoreNode + ": " + placed.error().message;
        if (finalInstallError(placed.error()))
            return stop(ctx, MigrationPhase::Failed, why);
        return makeError(placed.error().code, why);
    }
    if (auto status = failpoint("restore.start.staged"); !status)
        return status.error();
    auto target = m_nodes.clientFor(ctx, m.target);
    if (!target)
        return target.error();
    if (auto status = m_nodes.ownOn(**target, m.target, m.space, SpaceRole::MigrationTarget, copyEpoch(ctx)); !status)
        return status.error();
    // So are the target's in-sync replicas (a copy that cannot be told leaves the restore).
    if (auto status = m_copies.own(ctx, m.target, SpaceRole::MigrationTarget, copyEpoch(ctx)); !status)
        return status.error();
    m.startedUnixMs = nowUnixMs();
    m.error.clear();
    if (auto committed = m_records.transition(ctx, MigrationPhase::Backfill,
            "copying from snapshot " + m.restoreSnapshot, "restore-backfill", {}, m.restoreReplaces);
        !committed)
        return committed.error();
    log(LogLevel::Info,
        "restore " + m.id + ": " + m.restoreSpace + " of snapshot " + m.restoreSnapshot + " staged on " + m.restoreNode
            + ", copying into " + m.target + " as " + m.space);
    return PhaseStep {};
}

Result<PhaseStep> RestorePhases::backfill(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    auto copyEnds = ends(ctx);
    if (!copyEnds)
        return copyEnds.error();
    const std::uint64_t epoch = copyEpoch(ctx);
    BackfillCopier::Options options;
    static_cast<SpaceCopyEnds&>(options) = *copyEnds;
    options.progressInterval = m_options.progressInterval;
    options.throttle = [&] {
        return m.throttleDocsPerSecond > 0 ? m.throttleDocsPerSecond : ctx.settings.defaultThrottleDocsPerSecond;
    };
    options.checkLease = [this] { return m_lease.check(); };
    NodeClient& target = *copyEnds->target;
    options.reownTarget = [&] { return m_nodes.ownOn(target, m.target, m.space, SpaceRole::MigrationTarget, epoch); };
    // The target's in-sync replicas get every page the target does, as in a migration.
    options.replicas = m_copies.inSync(ctx, m.target);
    options.reownReplica = [&](const CopyReplica& replica) {
        return m_nodes.ownOn(*replica.client, m.target, m.space, SpaceRole::MigrationTarget, epoch);
    };
    options.replicaFailed = [&](const CopyReplica& replica, const Error& why) {
        return m_copies.leave(ctx, m.target, replica.node, why);
    };
    options.saveProgress = [&](const CopyProgress& progress, bool) -> Result<bool> {
        if (auto saved = m_records.updateMigration(ctx, [&](MigrationRecord& r) { applyRestoreProgress(r, progress); });
            !saved)
            return saved.error();
        return m.paused || m.cancelRequested || m.aborting;
    };
    BackfillCopier copier(std::move(options));
    auto copied
        = copier.run({ m.progress.cursor, m.progress.docsDone, m.progress.bytesDone, m.progress.docsPerSecond });
    if (!copied)
        return copied.error();
    if (copied->end == BackfillCopier::End::Refused)
        return stop(ctx, MigrationPhase::Failed,
            "shard " + m.target + " refused a document of the snapshot: " + copied->refusal);
    if (copied->end == BackfillCopier::End::Interrupted)
        return PhaseStep {};
    applyRestoreProgress(m, copied->progress);
    m.backfilled = true;
    if (auto committed
        = m_records.transition(ctx, MigrationPhase::Verify, "verifying", "restore-verify", {}, m.restoreReplaces);
        !committed)
        return committed.error();
    return PhaseStep {};
}

// Nothing but the restore writes the target's copy (no router knows it), so the staging shard
// and the target hold the same rows once the copy is done; a difference is copied again by range.
Result<PhaseStep> RestorePhases::verify(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    auto copyEnds = ends(ctx);
    if (!copyEnds)
        return copyEnds.error();
    auto source = m_nodes.statsOn(*copyEnds->source, copyEnds->sourceShard, m.restoreSpace);
    if (!source)
        return source.error();
    auto target = m_nodes.statsOn(*copyEnds->target, m.target, m.space);
    if (!target)
        return target.error();
    if (!sameContent(*source, *target)) {
        if (m.repairs >= static_cast<std::uint32_t>(kVerifyRounds))
            return stop(ctx, MigrationPhase::Failed,
                "the copy still differs after " + std::to_string(m.repairs) + " repairs: snapshot "
                    + describeStats(*source) + ", " + m.target + " " + describeStats(*target));
        RangeRepair repair;
        static_cast<SpaceCopyEnds&>(repair) = *copyEnds;
        repair.checkLease = [this] { return m_lease.check(); };
        bool targetOnly = false;
        auto repaired = repair.run(targetOnly);
        if (!repaired)
            return targetOnly ? stop(ctx, MigrationPhase::Failed, repaired.error().message) : repaired.error();
        m.repairs += 1;
        m.repairedDocs += *repaired;
        if (auto committed = m_records.commit(ctx, false, "restore-repair", describeStats(*target)); !committed)
            return committed.error();
        return PhaseStep {};
    }
    // Then the target's in-sync replicas, each against the staging shard (one that fails leaves).
    auto copies = m_copies.verify(ctx, *copyEnds);
    if (!copies)
        return copies.error();
    m.repairedDocs += *copies;
    if (auto committed
        = m_records.transition(ctx, MigrationPhase::Cutover, "cutting over", "restore-cutover", {}, m.restoreReplaces);
        !committed)
        return committed.error();
    return PhaseStep {};
}

// Replacing: the live shard refuses the space's writes from the next epoch on, and the map moves
// the space to the target at that epoch in one fenced commit. Creating: the space record is made
// (create-only). Either way the target then owns it.
Result<PhaseStep> RestorePhases::cutover(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    // Every copy of the target the router will search once the space is there holds the
    // snapshot's rows (nothing else writes them: a difference is a copy that changed since the
    // verify, which goes again), and none became in sync uncompared meanwhile.
    if (auto compared = compareCopies(ctx); !compared || !*compared)
        return compared ? PhaseStep {} : Result<PhaseStep>(compared.error());
    std::uint64_t next = 2;
    if (m.restoreReplaces) {
        SpaceRecord& sp = ctx.sp();
        next = sp.epoch + 1;
        if (auto status = m_nodes.own(ctx, m.source, SpaceRole::Fenced, next); !status)
            return status.error();
        m_copies.tell(ctx, m.source, SpaceRole::Fenced, next);
        sp.shard = m.target;
        sp.epoch = next;
        sp.target.clear();
        sp.phase = MigrationPhase::Cleanup;
    } else {
        SpaceRecord made;
        made.id = m.space;
        made.shard = m.target;
        made.epoch = next;
        ctx.alsoCommit.push_back({ keys::space(m.space), encode(made), 0 });
    }
    if (auto status = failpoint("restore.cutover.before_commit"); !status)
        return status.error();
    m.phase = MigrationPhase::Cleanup;
    m.cutoverUnixMs = nowUnixMs();
    m.status = "restored; removing the staging copy";
    auto committed = m_records.commit(ctx, m.restoreReplaces, "restore-cutover",
        "space " + m.space + " from snapshot " + m.restoreSnapshot + " on " + m.target);
    if (!committed && committed.error().code == ErrorCode::Conflict && !m.restoreReplaces)
        return stop(ctx, MigrationPhase::Failed, "a space " + m.space + " was made meanwhile");
    if (!committed)
        return committed.error();
    auto target = m_nodes.clientFor(ctx, m.target);
    if (target) {
        if (auto status = m_nodes.ownOn(**target, m.target, m.space, SpaceRole::Owner, next); !status)
            log(LogLevel::Warn, "restore " + m.id + ": " + status.error().describe() + " (routers will push it)");
    }
    m_copies.tell(ctx, m.target, SpaceRole::Owner, next);
    log(LogLevel::Info,
        "restore " + m.id + ": " + m.space + " is on " + m.target + " at epoch " + std::to_string(next));
    return PhaseStep {};
}

Result<bool> RestorePhases::compareCopies(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    auto copyEnds = ends(ctx);
    if (!copyEnds)
        return copyEnds.error();
    std::vector<std::string> verified;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ctx.settings.cutoverTimeoutMs);
    std::string difference = m_copies.awaitSameContent(ctx, *copyEnds, deadline, verified);
    if (difference.empty()) {
        auto guarded = m_copies.guardCutover(ctx, verified);
        if (guarded)
            return true;
        difference = guarded.error().message;
    }
    ctx.alsoCommit.clear();
    if (auto committed = m_records.transition(ctx, MigrationPhase::Verify, "verifying again: " + difference,
            "restore-verify", difference, m.restoreReplaces);
        !committed)
        return committed.error();
    return false;
}

Status RestorePhases::dropStaging(const Context& ctx)
{
    auto staging = stagingClient(ctx);
    if (!staging)
        return staging.error();
    auto dropped = (*staging)->dropShardWithDocuments(restoreStagingShard(ctx.migration.value));
    if (!dropped && dropped.error().code != ErrorCode::NotFound)
        return dropped;
    return {};
}

Result<PhaseStep> RestorePhases::cleanup(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    if (auto status = dropStaging(ctx); !status)
        return status.error();
    std::uint64_t removed = 0;
    const bool owns = m.restoreReplaces && ctx.ownsSpace();
    if (owns) {
        auto fromCopies = m_copies.drop(ctx, m.source, ctx.sp().epoch, "restore.cleanup.before_copy_drop");
        if (!fromCopies)
            return fromCopies.error();
        auto dropped = m_nodes.removeCopy(ctx, m.source, "restore.cleanup.before_drop");
        if (!dropped)
            return dropped.error();
        removed = *dropped + *fromCopies;
        ctx.sp().migrationId.clear();
        ctx.sp().phase = MigrationPhase::Done;
    }
    const std::string what = m.restoreReplaces
        ? "done; " + m.space + " is on " + m.target + " as in snapshot " + m.restoreSnapshot + ", "
            + std::to_string(removed) + " replaced rows removed from " + m.source
        : "done; " + m.space + " made on " + m.target + " from snapshot " + m.restoreSnapshot;
    if (auto committed = m_records.transition(ctx, MigrationPhase::Done, what, "restore-done", {}, owns); !committed)
        return committed.error();
    return PhaseStep { PhaseNext::Finished };
}

// Before the cutover: the staging shard and the target's partial copy go (not a space of that id
// someone made on the target meanwhile), the space stays where it is, untouched.
Result<PhaseStep> RestorePhases::stop(Context& ctx, MigrationPhase phase, const std::string& why)
{
    MigrationRecord& m = ctx.m();
    // A leader that installed the staging shard and died before its commit left no node in the
    // record: the staging shard is on the target's node (start's rule), if anywhere.
    if (m.restoreNode.empty() && ctx.shards.contains(m.target))
        m.restoreNode = ctx.shards.at(m.target).node;
    if (!m.restoreNode.empty()) {
        if (auto status = dropStaging(ctx); !status)
            return status.error();
    }
    const bool madeOnTarget = !m.restoreReplaces && ctx.space && ctx.space->value.shard == m.target;
    if (m.phase != MigrationPhase::Queued && ctx.shards.contains(m.target) && !madeOnTarget) {
        auto target = m_nodes.clientFor(ctx, m.target);
        if (!target)
            return target.error();
        auto dropped = m_nodes.removeCopyOn(
            **target, m.target, m.space, copyEpoch(ctx), ctx.settings.cleanupRowsPerSecond, "restore.stop.before_drop");
        if (!dropped)
            return dropped.error();
        if (auto fromCopies = m_copies.drop(ctx, m.target, copyEpoch(ctx), "restore.stop.before_copy_drop");
            !fromCopies)
            return fromCopies.error();
    }
    const bool owns = m.restoreReplaces && ctx.ownsSpace();
    // Stopped while cutting over (or verifying again after a cutover that found a copy changed):
    // the live shard may hold the space fenced at the next epoch, so the space goes on at an epoch
    // above that fence (as an aborted migration cutover does).
    const bool unfence = owns && (m.phase == MigrationPhase::Cutover || m.phase == MigrationPhase::Verify);
    if (owns) {
        ctx.sp().migrationId.clear();
        ctx.sp().phase = MigrationPhase::Done;
        ctx.sp().epoch += unfence ? 2 : 0;
    }
    m.error = phase == MigrationPhase::Failed ? why : std::string();
    const std::string outcome = phase == MigrationPhase::Failed ? "failed: " : "cancelled: ";
    if (auto committed = m_records.transition(ctx, phase, outcome + why + "; nothing live changed",
            phase == MigrationPhase::Failed ? "restore-failed" : "restore-cancelled", why, owns);
        !committed)
        return committed.error();
    if (unfence) {
        if (auto status = m_nodes.own(ctx, m.source, SpaceRole::Owner, ctx.sp().epoch); !status)
            log(LogLevel::Warn, "restore " + m.id + ": " + status.error().describe() + " (routers will push it)");
    }
    log(LogLevel::Info, "restore " + m.id + ": " + outcome + why);
    return PhaseStep { PhaseNext::Finished };
}

} // namespace shardmap::core
