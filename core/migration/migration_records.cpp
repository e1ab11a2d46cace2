// MigrationRecords' implementation: the context read in one go, commits timed for Prometheus and
// the history's change folded into each.
#include "core/migration/migration_records.h"

#include "core/util/clock.h"
#include "core/util/failpoint.h"

namespace shardmap::core {

namespace {

MetricHistogram& storeCommitMetric(MetricsRegistry& metrics)
{
    return metrics.histogram("shardmapd_store_commit_duration_seconds", "Time of the executor's fenced store commits");
}

} // namespace

MigrationRecords::MigrationRecords(MetadataStore& store, LeaseGuard lease, Options options)
    : m_store(store)
    , m_lease(std::move(lease))
    , m_options(std::move(options))
{
    // Made at construction, so that it exists from the first scrape.
    if (m_options.metrics)
        (void)storeCommitMetric(*m_options.metrics);
}

void MigrationRecords::log(LogLevel level, const std::string& message) const
{
    if (m_options.log)
        m_options.log(level, message);
}

Result<MigrationContext> MigrationRecords::load(const std::string& id)
{
    MigrationContext ctx;
    auto migration = readVersioned<MigrationRecord>(m_store, keys::migration(id), &decodeMigration);
    if (!migration)
        return migration.error();
    if (!*migration)
        return makeError(ErrorCode::NotFound, "no migration " + id + " in the shard map");
    ctx.migration = std::move(**migration);
    ctx.committed = ctx.m();
    auto history = readVersioned<MigrationHistory>(m_store, keys::migrationHistory(id), &decodeMigrationHistory);
    if (!history)
        return history.error();
    ctx.history = std::move(*history);
    auto space = readVersioned<SpaceRecord>(m_store, keys::space(ctx.m().space), &decodeSpace);
    if (!space)
        return space.error();
    ctx.space = std::move(*space);
    for (const auto& [prefix, isShard] : { std::pair { keys::kShards, true }, std::pair { keys::kNodes, false } }) {
        auto listed = m_store.list(std::string(prefix));
        if (!listed)
            return listed.error();
        for (const auto& [key, record] : listed->records) {
            if (isShard) {
                if (auto shard = decodeShard(record.value))
                    ctx.shards[shard->id] = *shard;
            } else if (auto node = decodeNode(record.value)) {
                ctx.nodes[node->id] = *node;
            }
        }
    }
    auto settings
        = readVersioned<MigrationSettings>(m_store, std::string(keys::kMigrationSettings), &decodeMigrationSettings);
    if (!settings)
        return settings.error();
    if (*settings)
        ctx.settings = (*settings)->value;
    return ctx;
}

Result<std::uint64_t> MigrationRecords::commit(
    MigrationContext& ctx, bool space, const std::string& action, const std::string& reason)
{
    std::vector<Mutation> also = std::move(ctx.alsoCommit);
    ctx.alsoCommit.clear();
    if (auto status = m_lease.check(); !status)
        return status.error();
    // Tests lose the lease here: the fence below must check it again, not find the grant gone.
    if (auto status = failpoint("migration.commit.lease_checked"); !status)
        return status.error();
    ctx.m().updatedUnixMs = nowUnixMs();
    CommitRequest request;
    request.mutations.push_back({ keys::migration(ctx.m().id), encode(ctx.m()), ctx.migration.modRevision });
    if (space && ctx.space)
        request.mutations.push_back({ keys::space(ctx.sp().id), encode(ctx.sp()), ctx.space->modRevision });
    for (auto& mutation : also)
        request.mutations.push_back(std::move(mutation));
    std::optional<MigrationHistory> history = historyChange(ctx);
    if (history)
        request.mutations.push_back(
            { keys::migrationHistory(ctx.m().id), encode(*history), ctx.history ? ctx.history->modRevision : 0 });
    auto leased = m_lease.fence();
    if (!leased)
        return leased.error();
    request.fence = *leased;
    request.actor = m_options.actor;
    request.action = action;
    request.reason = reason.empty() ? "migration " + ctx.m().id : reason;
    const auto started = std::chrono::steady_clock::now();
    auto revision = m_store.commit(request);
    if (m_options.metrics)
        storeCommitMetric(*m_options.metrics)
            .observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    if (!revision)
        return revision.error();
    ctx.migration.modRevision = *revision;
    if (space && ctx.space)
        ctx.space->modRevision = *revision;
    ctx.committed = ctx.m();
    if (history) {
        ctx.history = Versioned<MigrationHistory> { std::move(*history), *revision };
        ctx.verification.reset();
        ctx.retry.reset();
    }
    return *revision;
}

// The history with what changed since the last commit folded in; nullopt when a report would
// not see a difference (most progress saves), so the record is not rewritten.
std::optional<MigrationHistory> MigrationRecords::historyChange(const MigrationContext& ctx) const
{
    MigrationHistory history = ctx.history ? ctx.history->value : MigrationHistory::start(ctx.committed);
    bool changed = !ctx.history;
    const std::int64_t now = nowUnixMs();
    changed = history.observe(ctx.committed, ctx.migration.value, now) || changed;
    if (ctx.retry) {
        history.addRetry(now, *ctx.retry);
        changed = true;
    }
    if (ctx.verification) {
        VerificationFigures figures = *ctx.verification;
        figures.rounds += history.verification ? history.verification->rounds : 0;
        figures.repairedDocs = ctx.migration.value.repairedDocs;
        history.verification = figures;
        changed = true;
    }
    const bool cutOver
        = ctx.committed.phase == MigrationPhase::Cutover && ctx.migration.value.phase == MigrationPhase::Cleanup;
    if (cutOver && ctx.fencedAt) {
        const auto held = std::chrono::steady_clock::now() - *ctx.fencedAt;
        history.writeHoldMs = std::chrono::duration<double, std::milli>(held).count();
        changed = true;
    }
    if (!changed)
        return std::nullopt;
    return history;
}

Result<std::uint64_t> MigrationRecords::transition(MigrationContext& ctx, MigrationPhase phase, std::string status,
    const std::string& action, const std::string& reason, bool withSpace)
{
    MigrationRecord& m = ctx.m();
    const MigrationPhase from = m.phase;
    m.phase = phase;
    m.status = std::move(status);
    if (isFinal(phase))
        m.finishedUnixMs = nowUnixMs();
    // The space records the phase of the migration it names; Done once that one ended.
    if (withSpace && ctx.space)
        ctx.sp().phase = isFinal(phase) ? MigrationPhase::Done : phase;
    auto committed = commit(ctx, withSpace, action, reason);
    // One line per phase change, once it is committed.
    if (committed && from != phase)
        log(phase == MigrationPhase::Failed ? LogLevel::Error : LogLevel::Info,
            "migration " + m.id + ": " + m.space + " " + m.source + " -> " + m.target + ": " + migrationPhaseName(from)
                + " -> " + migrationPhaseName(phase) + " (" + m.status + (m.error.empty() ? "" : "; " + m.error) + ")");
    return committed;
}

Status MigrationRecords::updateMigration(MigrationContext& ctx, const std::function<void(MigrationRecord&)>& change)
{
    for (int attempt = 0; attempt < 8; ++attempt) {
        change(ctx.m());
        auto committed = commit(ctx, false, "migration-progress", "");
        if (committed)
            return {};
        if (committed.error().code != ErrorCode::Conflict)
            return committed.error();
        // Someone changed the record (pause, throttle, cancel): apply the change on top of theirs.
        auto fresh = readVersioned<MigrationRecord>(m_store, keys::migration(ctx.m().id), &decodeMigration);
        if (!fresh)
            return fresh.error();
        if (!*fresh)
            return makeError(ErrorCode::NotFound, "migration " + ctx.m().id + " was removed");
        // What the other committer changed (a pause, a cancel) is theirs to have recorded; the
        // history sees it as the record's change from here on.
        ctx.migration = std::move(**fresh);
        const MigrationRecord theirs = ctx.m();
        ctx.committed = theirs;
    }
    return makeError(ErrorCode::Conflict, "migration " + ctx.m().id + " keeps changing; progress not saved");
}

Result<PhaseStep> MigrationRecords::waitWhilePaused(MigrationContext& ctx, std::chrono::milliseconds poll)
{
    if (ctx.m().status != "paused") {
        if (auto status = updateMigration(ctx, [](MigrationRecord& r) { r.status = "paused"; }); !status)
            return status.error();
    }
    return PhaseStep { PhaseNext::Wait, poll };
}

void MigrationRecords::noteRetry(const std::string& id, const std::string& error, std::chrono::milliseconds wait)
{
    auto ctx = load(id);
    if (!ctx || !ctx->m().active())
        return;
    // Every retry is in the history (the record's error changes only when the text does).
    ctx->retry = error;
    (void)updateMigration(*ctx, [&](MigrationRecord& m) {
        m.error = error;
        m.status = "retrying in " + std::to_string(wait.count()) + " ms";
    });
}

} // namespace shardmap::core
