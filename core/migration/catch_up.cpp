// CatchUpPhases' implementation: the guard every step starts with, the start (ownership, the
// count to copy), the backfill space by space, the verify and repair, and the mark in sync.
#include "core/migration/catch_up.h"

#include "core/migration/backfill_copier.h"
#include "core/migration/migration_requests.h"
#include "core/migration/range_repair.h"
#include "core/util/clock.h"
#include "core/util/failpoint.h"

#include <algorithm>
#include <set>
#include <thread>

namespace shardmap::core {

namespace {

// kVerifyPause, kVerifyRounds, sameContent and describeStats: core/migration/range_repair.h.

const ShardCopy* copyOf(const ShardRecord& shard, const MigrationRecord& m)
{
    return shard.replicaOn(m.copyNode);
}

// The catch-up's progress as its record shows it (the console's bar and ETA).
void applyProgress(MigrationRecord& r, const CopyProgress& progress)
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
    r.error.clear();
    r.status = "copying " + r.space;
}

} // namespace

std::vector<MigrationRecord> catchUpsToQueue(const std::map<std::string, ShardRecord>& shards,
    const std::vector<MigrationRecord>& active, const std::string& actor)
{
    std::set<std::pair<std::string, std::string>> running;
    for (const auto& m : active) {
        if (m.isCatchUp() && m.active())
            running.insert({ m.source, m.copyNode });
    }
    std::vector<MigrationRecord> queued;
    for (const auto& [id, shard] : shards) {
        for (const ShardCopy& copy : shard.replicas) {
            if (copy.state != CopyState::CatchingUp || running.contains({ id, copy.node }))
                continue;
            MigrationRecord m;
            m.id = newMigrationId();
            m.source = id;
            m.target = id;
            m.copyNode = copy.node;
            m.copyPrimary = shard.node;
            m.requestedBy = actor;
            m.reason = "the copy of " + id + " on " + copy.node + " is catching up"
                + (copy.reason.empty() ? std::string() : " (" + copy.reason + ")");
            m.createdUnixMs = nowUnixMs();
            m.status = "queued";
            queued.push_back(std::move(m));
        }
    }
    return queued;
}

CatchUpPhases::CatchUpPhases(MetadataStore& store, MigrationNodes& nodes, MigrationRecords& records, LeaseGuard lease,
    std::chrono::milliseconds progressInterval, Options options)
    : m_store(store)
    , m_nodes(nodes)
    , m_records(records)
    , m_lease(std::move(lease))
    , m_progressInterval(progressInterval)
    , m_options(std::move(options))
{
}

void CatchUpPhases::log(LogLevel level, const std::string& message) const
{
    if (m_options.log)
        m_options.log(level, message);
}

Result<PhaseStep> CatchUpPhases::step(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    if (isFinal(m.phase))
        return PhaseStep { PhaseNext::Finished };
    if (const std::string why = cancelReason(ctx); !why.empty())
        return end(ctx, MigrationPhase::Cancelled, why);
    if (m.cancelRequested || m.aborting)
        return end(ctx, MigrationPhase::Cancelled, "cancelled by request");
    if (m.paused)
        return m_records.waitWhilePaused(ctx, m_options.poll);
    switch (m.phase) {
    case MigrationPhase::Queued: return start(ctx);
    case MigrationPhase::Backfill: return backfill(ctx);
    case MigrationPhase::Verify: return verify(ctx);
    default:
        // No other phase is a catch-up's; a record that says otherwise was not written by one.
        return end(ctx, MigrationPhase::Failed, std::string("a catch-up has no phase ") + migrationPhaseName(m.phase));
    }
}

std::string CatchUpPhases::cancelReason(const Context& ctx) const
{
    const MigrationRecord& m = ctx.migration.value;
    const auto shard = ctx.shards.find(m.source);
    if (shard == ctx.shards.end())
        return "shard " + m.source + " was removed";
    const ShardCopy* copy = copyOf(shard->second, m);
    if (!copy)
        return "the copy of " + m.source + " on " + m.copyNode + " was removed";
    if (copy->state != CopyState::CatchingUp)
        return "the copy of " + m.source + " on " + m.copyNode + " is " + copyStateName(copy->state) + " now";
    if (shard->second.node != m.copyPrimary)
        return "the primary of " + m.source + " moved from " + m.copyPrimary + " to " + shard->second.node;
    return {};
}

Result<PhaseStep> CatchUpPhases::end(Context& ctx, MigrationPhase phase, const std::string& why)
{
    MigrationRecord& m = ctx.m();
    m.error = phase == MigrationPhase::Failed ? why : std::string();
    const std::string action = phase == MigrationPhase::Failed ? "catch-up-failed" : "catch-up-cancelled";
    if (auto committed = m_records.transition(ctx, phase,
            std::string(phase == MigrationPhase::Failed ? "failed: " : "cancelled: ") + why, action, why, false);
        !committed)
        return committed.error();
    return PhaseStep { PhaseNext::Finished };
}

Result<std::vector<SpaceRecord>> CatchUpPhases::spacesOf(const std::string& shard, bool incoming)
{
    auto listed = m_store.list(std::string(keys::kSpaces));
    if (!listed)
        return listed.error();
    std::vector<SpaceRecord> spaces;
    for (const auto& [key, record] : listed->records) {
        auto space = decodeSpace(record.value);
        if (space && (space->shard == shard || (incoming && space->target == shard)))
            spaces.push_back(std::move(*space));
    }
    // Keys are "spaces/<id>" in order: the walk is in id order.
    return spaces;
}

Result<CatchUpPhases::Ends> CatchUpPhases::endsOf(const Context& ctx)
{
    auto primary = m_nodes.clientFor(ctx, ctx.migration.value.source);
    if (!primary)
        return primary.error();
    auto copy = m_nodes.copyClient(ctx);
    if (!copy)
        return copy.error();
    return Ends { std::move(*primary), std::move(*copy) };
}

// The copy follows every space of the shard at its epoch before anything is copied (as a
// migration's target is told), and the documents to copy are counted on the primary.
Result<PhaseStep> CatchUpPhases::start(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    auto spaces = spacesOf(m.source);
    if (!spaces)
        return spaces.error();
    auto ends = endsOf(ctx);
    if (!ends)
        return ends.error();
    if (auto status = failpoint("catchup.start.before_owned"); !status)
        return status.error();
    const std::shared_ptr<NodeClient>& primary = ends->primary;
    const std::shared_ptr<NodeClient>& copy = ends->copy;
    MigrationProgress progress;
    for (const SpaceRecord& space : *spaces) {
        if (auto status = m_nodes.ownOn(*copy, m.source, space.id, SpaceRole::MigrationTarget, space.epoch); !status)
            return status.error();
        auto stats = m_nodes.statsOn(*primary, m.source, space.id);
        if (!stats)
            return stats.error();
        progress.docsTotal += stats->liveDocs + stats->tombstones;
        progress.bytesTotal += stats->bytesEstimate;
    }
    if (auto status = failpoint("catchup.start.owned"); !status)
        return status.error();
    m.progress = progress;
    m.space = spaces->empty() ? std::string() : spaces->front().id;
    m.startedUnixMs = nowUnixMs();
    m.error.clear();
    const bool copying = !spaces->empty();
    if (auto committed = m_records.transition(ctx, copying ? MigrationPhase::Backfill : MigrationPhase::Verify,
            copying ? "copying " + m.space : "verifying", "catch-up-backfill", {}, false);
        !committed)
        return committed.error();
    (void)mirrorProgress(ctx);
    return PhaseStep {};
}

// Copies the space the walk is at from the primary to the copy; false when the copy was
// interrupted (a pause, a cancel, a lost lease: the next step decides).
Result<bool> CatchUpPhases::copySpace(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    const std::uint64_t copiedBefore = m.progress.docsDone;
    auto ends = endsOf(ctx);
    if (!ends)
        return ends.error();
    const std::shared_ptr<NodeClient>& primary = ends->primary;
    const std::shared_ptr<NodeClient>& copy = ends->copy;
    const std::uint64_t epoch = ctx.sp().epoch;
    NodeClient& target = *copy;
    // Idempotent: a restarted executor makes sure the copy follows the space.
    if (auto status = m_nodes.ownOn(target, m.source, m.space, SpaceRole::MigrationTarget, epoch); !status)
        return status.error();
    BackfillCopier::Options options;
    static_cast<SpaceCopyEnds&>(options)
        = SpaceCopyEnds { primary, m.source, copy, m.source, m.space, epoch, ctx.settings.backfillBatch };
    options.progressInterval = m_progressInterval;
    options.throttle = [&] {
        return m.throttleDocsPerSecond > 0 ? m.throttleDocsPerSecond : ctx.settings.defaultThrottleDocsPerSecond;
    };
    options.checkLease = [this] { return m_lease.check(); };
    options.reownTarget = [&] { return m_nodes.ownOn(target, m.source, m.space, SpaceRole::MigrationTarget, epoch); };
    options.saveProgress = [&](const CopyProgress& progress, bool) { return saveProgress(ctx, progress); };
    BackfillCopier copier(std::move(options));
    auto copied
        = copier.run({ m.progress.cursor, m.progress.docsDone, m.progress.bytesDone, m.progress.docsPerSecond });
    if (!copied)
        return copied.error();
    // Retried with backoff: a catch-up that failed would only be queued again.
    if (copied->end == BackfillCopier::End::Refused)
        return makeError(ErrorCode::FailedPrecondition,
            "the copy on " + m.copyNode + " refused a document of " + m.space + ": " + copied->refusal);
    if (copied->end == BackfillCopier::End::Interrupted)
        return false;
    applyProgress(m, copied->progress);
    if (m_options.metrics && m.progress.docsDone > copiedBefore)
        m_options.metrics
            ->counter("shardmapd_catch_up_docs_total", "Documents the executor's catch-ups copied to replicas")
            .add(m.progress.docsDone - copiedBefore);
    log(LogLevel::Info,
        "catch-up " + m.id + ": copied " + std::to_string(m.progress.docsDone - copiedBefore) + " rows of " + m.space
            + " to " + m.source + " on " + m.copyNode);
    return true;
}

Result<PhaseStep> CatchUpPhases::backfill(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    // The space left the shard (moved, removed) since the walk reached it: on to the next.
    const bool stillHere = !m.space.empty() && ctx.space && ctx.sp().shard == m.source;
    if (stillHere) {
        auto copied = copySpace(ctx);
        if (!copied)
            return copied.error();
        if (!*copied)
            return PhaseStep {};
    }
    if (auto status = failpoint("catchup.backfill.space_done"); !status)
        return status.error();
    auto spaces = spacesOf(m.source);
    if (!spaces)
        return spaces.error();
    const auto next = m.space.empty()
        ? spaces->end()
        : std::find_if(spaces->begin(), spaces->end(), [&](const SpaceRecord& space) { return space.id > m.space; });
    m.space = next == spaces->end() ? std::string() : next->id;
    m.progress.cursor.clear();
    const bool done = m.space.empty();
    if (done) {
        m.backfilled = true;
        m.progress.etaSeconds = 0;
    }
    if (auto committed = m_records.transition(ctx, done ? MigrationPhase::Verify : MigrationPhase::Backfill,
            done ? "verifying" : "copying " + m.space, done ? "catch-up-verify" : "catch-up-backfill", {}, false);
        !committed)
        return committed.error();
    (void)mirrorProgress(ctx);
    return PhaseStep {};
}

Result<bool> CatchUpPhases::saveProgress(Context& ctx, const CopyProgress& progress)
{
    if (auto saved = m_records.updateMigration(ctx, [&](MigrationRecord& r) { applyProgress(r, progress); }); !saved)
        return saved.error();
    // A request that arrived meanwhile (pause, cancel) is handled by the next step, as is a copy
    // that is no longer catching up; a new throttle applies from here.
    const MigrationRecord& m = ctx.m();
    if (m.paused || m.cancelRequested || m.aborting)
        return true;
    if (!mirrorProgress(ctx))
        return true;
    if (auto settings
        = readVersioned<MigrationSettings>(m_store, std::string(keys::kMigrationSettings), &decodeMigrationSettings);
        settings && *settings)
        ctx.settings = (*settings)->value;
    return false;
}

// Best effort and rate limited: the console's copy progress is a mirror of the record's, and a
// conflict with an administrator's change of the shard is left to the next save.
bool CatchUpPhases::mirrorProgress(const Context& ctx)
{
    const MigrationRecord& m = ctx.migration.value;
    auto shard = readVersioned<ShardRecord>(m_store, keys::shard(m.source), &decodeShard);
    if (!shard)
        return true;
    if (!*shard)
        return false;
    ShardRecord record = (*shard)->value;
    auto copy = std::find_if(
        record.replicas.begin(), record.replicas.end(), [&](const ShardCopy& c) { return c.node == m.copyNode; });
    if (copy == record.replicas.end() || copy->state != CopyState::CatchingUp || record.node != m.copyPrimary)
        return false;
    if (copy->docsDone == m.progress.docsDone && copy->docsTotal == m.progress.docsTotal)
        return true;
    {
        // Mid-space saves are rate limited; the end of a space and of the copy are always mirrored.
        std::lock_guard lock(m_mutex);
        const auto now = std::chrono::steady_clock::now();
        auto& last = m_mirroredAt[m.id];
        if (now - last < m_options.mirrorInterval && m.phase == MigrationPhase::Backfill && !m.progress.cursor.empty())
            return true;
        last = now;
        if (!m.active())
            m_mirroredAt.erase(m.id);
    }
    copy->docsDone = m.progress.docsDone;
    copy->docsTotal = m.progress.docsTotal;
    auto leased = m_lease.fence();
    if (!leased)
        return true;
    CommitRequest request;
    request.mutations.push_back({ keys::shard(record.id), encode(record), (*shard)->modRevision });
    request.fence = *leased;
    request.actor = ctx.migration.value.requestedBy;
    request.action = "catch-up-progress";
    request.reason = "catch-up " + m.id;
    (void)m_store.commit(request);
    return true;
}

// The spaces of the shard to compare, or nullopt while one of them migrates (the record's status
// says which). A migration's backfill, verify and cleanup reach the in-sync copies only (a copy
// catching up is not one of them): a copy verified while one runs could differ right after it is
// marked in sync.
Result<std::optional<std::vector<SpaceRecord>>> CatchUpPhases::spacesToVerify(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    auto spaces = spacesOf(m.source, true);
    if (!spaces)
        return spaces.error();
    for (const SpaceRecord& space : *spaces) {
        if (space.migrating()) {
            const std::string waiting
                = "waiting for migration " + space.migrationId + " of " + space.id + " to end before verifying";
            if (m.status != waiting) {
                if (auto status = m_records.updateMigration(ctx, [&](MigrationRecord& r) { r.status = waiting; });
                    !status)
                    return status.error();
            }
            return std::optional<std::vector<SpaceRecord>> {};
        }
    }
    return std::optional<std::vector<SpaceRecord>> { std::move(*spaces) };
}

Result<PhaseStep> CatchUpPhases::verify(Context& ctx)
{
    // Read before the compare: a copy that misses a write after it changes the record
    // (noteCatchingUpCopyMissedWrite), and the mark in sync below, a compare-and-set on this read,
    // then conflicts and the next step compares again.
    auto guard = readVersioned<ShardRecord>(m_store, keys::shard(ctx.m().source), &decodeShard);
    if (!guard)
        return guard.error();
    if (!*guard)
        return end(ctx, MigrationPhase::Cancelled, "shard " + ctx.m().source + " was removed");
    auto toVerify = spacesToVerify(ctx);
    if (!toVerify)
        return toVerify.error();
    if (!*toVerify)
        return PhaseStep { PhaseNext::Wait, std::max(m_options.poll, std::chrono::milliseconds(1000)) };
    const std::vector<SpaceRecord>& spaces = **toVerify;
    auto ends = endsOf(ctx);
    if (!ends)
        return ends.error();
    const std::shared_ptr<NodeClient>& primary = ends->primary;
    const std::shared_ptr<NodeClient>& copy = ends->copy;
    std::uint64_t repaired = 0;
    bool differed = false;
    for (const SpaceRecord& space : spaces) {
        auto fixed = verifySpace(ctx, primary, copy, space);
        if (!fixed)
            return fixed.error();
        if (*fixed) {
            repaired += **fixed;
            differed = true;
        }
    }
    if (differed) {
        // Compared again from the start: what the repair wrote, and the writes meanwhile.
        if (auto status = m_records.updateMigration(ctx,
                [&](MigrationRecord& r) {
                    r.repairs += 1;
                    r.repairedDocs += repaired;
                    r.status = "verifying again after repairing " + std::to_string(repaired) + " documents";
                });
            !status)
            return status.error();
        // A short pause, so that a difference the repair cannot remove does not spin.
        return PhaseStep { PhaseNext::Wait, kVerifyPause * 4 };
    }
    if (auto status = failpoint("catchup.verify.before_in_sync"); !status)
        return status.error();
    return markInSync(ctx, **guard);
}

Result<std::optional<std::uint64_t>> CatchUpPhases::verifySpace(Context& ctx,
    const std::shared_ptr<NodeClient>& primary, const std::shared_ptr<NodeClient>& copy, const SpaceRecord& space)
{
    const MigrationRecord& m = ctx.m();
    if (auto status = m_nodes.ownOn(*copy, m.source, space.id, SpaceRole::MigrationTarget, space.epoch); !status)
        return status.error();
    std::string difference;
    for (int round = 0; round < kVerifyRounds; ++round) {
        auto source = m_nodes.statsOn(*primary, m.source, space.id);
        if (!source)
            return source.error();
        auto target = m_nodes.statsOn(*copy, m.source, space.id);
        if (!target)
            return target.error();
        if (sameContent(*source, *target))
            return std::optional<std::uint64_t> {};
        difference = "primary " + describeStats(*source) + ", copy " + describeStats(*target);
        std::this_thread::sleep_for(kVerifyPause);
    }
    const RangeRepair repair { SpaceCopyEnds { primary, m.source, copy, m.source, space.id, space.epoch,
                                   ctx.settings.backfillBatch },
        [this] { return m_lease.check(); } };
    bool targetOnly = false;
    auto repaired = repair.run(targetOnly);
    if (!repaired && !targetOnly)
        return repaired.error();
    if (!repaired) {
        // Rows the primary never had (an old primary rejoining as a copy, issue 30): the copy's
        // space is removed, fenced at the epoch as a migration's cleanup does, and copied again
        // whole by the repair.
        log(LogLevel::Warn,
            "catch-up " + m.id + ": " + repaired.error().message + "; removing " + space.id + " from the copy on "
                + m.copyNode + " to copy it again");
        if (auto dropped = m_nodes.removeCopyOn(*copy, m.source, space.id, space.epoch,
                ctx.settings.cleanupRowsPerSecond, "catchup.verify.before_drop");
            !dropped)
            return dropped.error();
        if (auto status = m_nodes.ownOn(*copy, m.source, space.id, SpaceRole::MigrationTarget, space.epoch); !status)
            return status.error();
        repaired = repair.run(targetOnly);
        if (!repaired)
            return repaired.error();
    }
    log(LogLevel::Info,
        "catch-up " + m.id + ": verify copied " + std::to_string(*repaired) + " documents of " + space.id + " again ("
            + difference + ")");
    // Even with no document written (a write that was still on its way) it is compared again.
    return std::optional<std::uint64_t> { *repaired };
}

// No cutover: the copy is marked in sync in the commit that ends the record, compare-and-set on
// the shard record as the verify read it before its compare (the copy still catching up on that
// node, the primary unchanged, no write missed since); a conflict is retried, and the next step
// verifies again.
Result<PhaseStep> CatchUpPhases::markInSync(Context& ctx, const Versioned<ShardRecord>& shard)
{
    MigrationRecord& m = ctx.m();
    ShardRecord record = shard.value;
    ctx.shards[record.id] = record;
    if (const std::string why = cancelReason(ctx); !why.empty())
        return end(ctx, MigrationPhase::Cancelled, why);
    auto copy = std::find_if(
        record.replicas.begin(), record.replicas.end(), [&](const ShardCopy& c) { return c.node == m.copyNode; });
    copy->state = CopyState::InSync;
    copy->sinceUnixMs = nowUnixMs();
    copy->reason = "brought in sync by catch-up " + m.id;
    copy->docsDone = m.progress.docsDone;
    copy->docsTotal = std::max(m.progress.docsTotal, m.progress.docsDone);
    ctx.alsoCommit.push_back({ keys::shard(record.id), encode(record), shard.modRevision });
    m.progress.etaSeconds = 0;
    if (auto committed = m_records.transition(ctx, MigrationPhase::Done,
            "done; the copy of " + m.source + " on " + m.copyNode + " is in sync", "catch-up-in-sync",
            "the copy of " + m.source + " on " + m.copyNode + " holds the primary's content", false);
        !committed)
        return committed.error();
    return PhaseStep { PhaseNext::Finished };
}

} // namespace shardmap::core
