#include "core/migration/migration_executor.h"

#include "core/migration/executor_internal.h"
#include "core/migration/migration_history.h"
#include "core/migration/migration_requests.h"
#include "core/util/failpoint.h"

#include <algorithm>

namespace shardmap::core {

using namespace executor_detail;

MigrationExecutor::MigrationExecutor(MetadataStore& store, NodeClientPool& nodes, ExecutorOptions options)
    : m_store(store)
    , m_nodes(nodes)
    , m_options(std::move(options))
    , m_operations(store, { m_options.actor, m_options.abandonedQueuing, [this] { return fence(); }, m_options.log })
{
    if (m_options.metrics) {
        (void)executor_detail::cutoverHoldMetric(*m_options.metrics);
        (void)executor_detail::storeCommitMetric(*m_options.metrics);
        (void)executor_detail::backfillDocsMetric(*m_options.metrics);
    }
}

MigrationExecutor::~MigrationExecutor()
{
    stepDown();
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    if (m_scheduler.joinable())
        m_scheduler.join();
    m_watch.reset();
}

void MigrationExecutor::lead(const LeaseGrant& grant)
{
    {
        std::lock_guard lock(m_mutex);
        const bool wasLeading = m_leading;
        m_grant = grant;
        m_leading = true;
        if (!wasLeading)
            log(LogLevel::Info, "migration executor active (lease token " + std::to_string(grant.token) + ")");
        if (!m_scheduler.joinable())
            m_scheduler = std::thread([this] { schedulerLoop(); });
    }
    poke();
}

void MigrationExecutor::stepDown()
{
    std::map<std::string, std::thread> workers;
    {
        std::lock_guard lock(m_mutex);
        if (m_leading)
            log(LogLevel::Info, "migration executor stopped acting");
        m_leading = false;
        m_grant.reset();
        workers.swap(m_workers);
        m_finishedWorkers.clear();
        m_dueAt.clear();
        m_failures.clear();
    }
    m_wake.notify_all();
    // Workers check the lease before every node call and commit; they end within one call.
    for (auto& [id, worker] : workers) {
        if (worker.joinable())
            worker.join();
    }
}

std::map<std::string, std::uint64_t> MigrationExecutor::migrationsByPhase() const
{
    std::lock_guard lock(m_mutex);
    return m_migrationsByPhase;
}

bool MigrationExecutor::leading() const
{
    std::lock_guard lock(m_mutex);
    return m_leading;
}

std::vector<CutoverTiming> MigrationExecutor::cutoverTimings() const
{
    std::lock_guard lock(m_mutex);
    return m_cutovers;
}

void MigrationExecutor::recordCutover(CutoverTiming timing)
{
    if (m_options.metrics && timing.committed)
        executor_detail::cutoverHoldMetric(*m_options.metrics)
            .observe(std::chrono::duration<double>(timing.held).count());
    std::lock_guard lock(m_mutex);
    m_cutovers.push_back(std::move(timing));
}

Result<LeaseGrant> MigrationExecutor::fence() const
{
    if (auto status = checkLease(); !status)
        return status.error();
    std::lock_guard lock(m_mutex);
    if (!m_grant) {
        Error error = makeError(ErrorCode::FailedPrecondition, "this replica does not hold the executor lease");
        error.details["not_leading"] = "1";
        return error;
    }
    return *m_grant;
}

Status MigrationExecutor::checkLease() const
{
    std::lock_guard lock(m_mutex);
    if (!m_leading || !m_grant || m_stopping) {
        Error error = makeError(ErrorCode::FailedPrecondition, "this replica does not hold the executor lease");
        error.details["not_leading"] = "1";
        return error;
    }
    if (nowUnixMs() + m_options.leaseMargin.count() >= m_grant->expiresUnixMs) {
        Error error = makeError(ErrorCode::FailedPrecondition, "the executor lease is about to expire unrenewed");
        error.details["not_leading"] = "1";
        return error;
    }
    return {};
}

void MigrationExecutor::log(LogLevel level, const std::string& message) const
{
    if (m_options.log)
        m_options.log(level, message);
}

// ---- scheduling ------------------------------------------------------------------------------

void MigrationExecutor::schedulerLoop()
{
    if (auto revision = m_store.currentRevision()) {
        auto watch = m_store.watch(
            *revision,
            [this](const AuditRecord&) {
                // Any commit may be a new request; wake the scheduler (cheap, never blocks long).
                poke();
            },
            [this](
                const Error& error) { log(LogLevel::Warn, "map watch ended, polling instead: " + error.describe()); });
        if (watch)
            m_watch = std::move(*watch);
    }
    std::unique_lock lock(m_mutex);
    // Schedules first and then waits, so a new leader starts at once; a poke that arrives while
    // scheduling is remembered and ends the next wait immediately.
    while (!m_stopping) {
        for (const auto& id : m_finishedWorkers) {
            auto worker = m_workers.find(id);
            if (worker != m_workers.end()) {
                worker->second.join();
                m_workers.erase(worker);
            }
        }
        m_finishedWorkers.clear();
        if (m_leading) {
            lock.unlock();
            scheduleOnce();
            lock.lock();
        }
        m_wake.wait_for(lock, m_options.poll, [this] { return m_stopping || m_poked.exchange(false); });
    }
}

void MigrationExecutor::poke()
{
    m_poked = true;
    m_wake.notify_all();
}

void MigrationExecutor::scheduleOnce()
{
    if (!checkLease())
        return;
    auto listed = m_store.list(std::string(keys::kMigrations));
    auto shardList = m_store.list(std::string(keys::kShards));
    if (!listed || !shardList)
        return;
    auto settingsRead
        = readOne<MigrationSettings>(m_store, std::string(keys::kMigrationSettings), &decodeMigrationSettings);
    const MigrationSettings settings = settingsRead && *settingsRead ? (*settingsRead)->value : MigrationSettings {};
    std::map<std::string, std::string> nodeOfShard;
    for (const auto& [key, record] : shardList->records) {
        if (auto shard = decodeShard(record.value))
            nodeOfShard[shard->id] = shard->node;
    }
    std::vector<MigrationRecord> active;
    std::map<std::string, std::uint64_t> byPhase;
    for (const auto& [key, record] : listed->records) {
        auto m = decodeMigration(record.value);
        if (m)
            ++byPhase[std::string(migrationPhaseName(m->phase))];
        if (m && m->active())
            active.push_back(std::move(*m));
    }
    {
        std::lock_guard lock(m_mutex);
        m_migrationsByPhase = std::move(byPhase);
    }

    std::uint32_t running = 0;
    std::map<std::string, std::uint32_t> perShard;
    std::map<std::string, std::uint32_t> perNode;
    auto take = [&](const MigrationRecord& m) {
        ++running;
        ++perShard[m.source];
        ++perShard[m.target];
        ++perNode[nodeOfShard[m.source]];
        if (nodeOfShard[m.target] != nodeOfShard[m.source])
            ++perNode[nodeOfShard[m.target]];
    };
    auto fits = [&](const MigrationRecord& m) {
        auto under = [](std::uint32_t count, std::uint32_t limit) { return limit == 0 || count < limit; };
        return under(running, settings.maxConcurrent) && under(perShard[m.source], settings.maxPerShard)
            && under(perShard[m.target], settings.maxPerShard)
            && under(perNode[nodeOfShard[m.source]], settings.maxPerNode)
            && under(perNode[nodeOfShard[m.target]], settings.maxPerNode);
    };

    const auto now = std::chrono::steady_clock::now();
    {
        std::lock_guard lock(m_mutex);
        if (!m_leading)
            return;
        // A queued migration whose worker is starting it holds its slot already.
        for (const auto& m : active) {
            if (holdsSlot(m) || (m.phase == MigrationPhase::Queued && m_workers.contains(m.id)))
                take(m);
        }
        for (const auto& m : active) {
            if (m_workers.contains(m.id))
                continue;
            const bool request = m.aborting || m.cancelRequested || m.rollbackRequested;
            const auto due = m_dueAt.find(m.id);
            if (due != m_dueAt.end() && due->second > now && !request)
                continue;
            if (m.notBeforeUnixMs > nowUnixMs() && !request)
                continue;
            if (m.paused && beforeCutover(m.phase) && !request)
                continue;
            if (m.phase == MigrationPhase::Queued && !m.aborting && !m.cancelRequested) {
                if (!fits(m))
                    continue;
                take(m);
            }
            m_dueAt.erase(m.id);
            m_workers.emplace(m.id, std::thread([this, id = m.id] { runWorker(id); }));
        }
    }
    if (auto status = m_operations.finishAll(); !status)
        log(LogLevel::Warn, "cannot finish operations: " + status.error().describe());
    if (auto status = archiveFinished(*listed); !status)
        log(LogLevel::Warn, "cannot archive finished migrations: " + status.error().describe());
}

// The executor lists migrations/ every round: finished ones move to archive/migrations/, where
// the map, the console and reports still find them, in chunks one store commit takes.
Status MigrationExecutor::archiveFinished(const StoreSnapshot& listed)
{
    const std::int64_t cutoff = nowUnixMs() - m_options.archiveAfter.count();
    CommitRequest request;
    request.actor = m_options.actor;
    request.action = "migrations-archive";
    request.reason = "finished migrations leave the executor's working set";
    const std::size_t most = std::min<std::size_t>(m_store.maxMutationsPerCommit() - 1, 120) / 2;
    for (const auto& [key, record] : listed.records) {
        auto m = decodeMigration(record.value);
        if (!m || m->active())
            continue;
        const std::int64_t ended = m->finishedUnixMs ? m->finishedUnixMs : m->updatedUnixMs;
        if (ended > cutoff)
            continue;
        request.mutations.push_back({ key, std::nullopt, record.modRevision });
        request.mutations.push_back({ keys::archivedMigration(m->id), record.value, 0 });
        if (request.mutations.size() / 2 >= most)
            break;
    }
    if (request.mutations.empty())
        return {};
    auto leased = fence();
    if (!leased)
        return leased.error();
    request.fence = *leased;
    if (auto committed = m_store.commit(request); !committed && committed.error().code != ErrorCode::Conflict)
        return committed.error();
    return {};
}

void MigrationExecutor::runWorker(const std::string& id)
{
    std::chrono::milliseconds wait { 0 };
    while (checkLease()) {
        auto result = step(id);
        if (!result) {
            const Error& error = result.error();
            int failures = 0;
            {
                std::lock_guard lock(m_mutex);
                failures = ++m_failures[id];
            }
            wait = std::min(m_options.maxBackoff, m_options.backoff * (1 << std::min(failures - 1, 10)));
            if (!isLeaseError(error)) {
                log(LogLevel::Warn,
                    "migration " + id + ": " + error.describe() + "; retrying in " + std::to_string(wait.count())
                        + " ms");
                // Say so in the record, for the console and `shardmapctl watch`.
                if (auto ctx = load(id); ctx && ctx->m().active()) {
                    const std::string text = error.describe();
                    // Every retry is in the history (the record's error changes only when the text does).
                    ctx->retry = text;
                    (void)updateMigration(*ctx, [&](MigrationRecord& m) {
                        m.error = text;
                        m.status = "retrying in " + std::to_string(wait.count()) + " ms";
                    });
                }
            }
            break;
        }
        {
            std::lock_guard lock(m_mutex);
            m_failures.erase(id);
        }
        if (result->next == Next::Continue)
            continue;
        wait = result->next == Next::Wait ? result->wait : std::chrono::milliseconds(0);
        break;
    }
    {
        std::lock_guard lock(m_mutex);
        if (wait.count() > 0)
            m_dueAt[id] = std::chrono::steady_clock::now() + wait;
        m_finishedWorkers.push_back(id);
    }
    poke();
}

// ---- reading and committing ------------------------------------------------------------------

Result<MigrationExecutor::Context> MigrationExecutor::load(const std::string& id)
{
    Context ctx;
    auto migration = readOne<MigrationRecord>(m_store, keys::migration(id), &decodeMigration);
    if (!migration)
        return migration.error();
    if (!*migration)
        return makeError(ErrorCode::NotFound, "no migration " + id + " in the shard map");
    ctx.migration = std::move(**migration);
    ctx.committed = ctx.m();
    auto history = readOne<MigrationHistory>(m_store, keys::migrationHistory(id), &decodeMigrationHistory);
    if (!history)
        return history.error();
    ctx.history = std::move(*history);
    auto space = readOne<SpaceRecord>(m_store, keys::space(ctx.m().space), &decodeSpace);
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
        = readOne<MigrationSettings>(m_store, std::string(keys::kMigrationSettings), &decodeMigrationSettings);
    if (!settings)
        return settings.error();
    if (*settings)
        ctx.settings = (*settings)->value;
    return ctx;
}

Result<std::shared_ptr<NodeClient>> MigrationExecutor::clientFor(const Context& ctx, const std::string& shard)
{
    const auto found = ctx.shards.find(shard);
    if (found == ctx.shards.end())
        return makeError(ErrorCode::NotFound, "shard " + shard + " is not in the shard map");
    const auto node = ctx.nodes.find(found->second.node);
    if (node == ctx.nodes.end())
        return makeError(
            ErrorCode::NotFound, "node " + found->second.node + " of shard " + shard + " is not in the map");
    return m_nodes.get(node->second.address);
}

Status MigrationExecutor::own(const Context& ctx, const std::string& shard, SpaceRole role, std::uint64_t epoch)
{
    if (auto status = checkLease(); !status)
        return status;
    auto client = clientFor(ctx, shard);
    if (!client)
        return client.error();
    auto owned = (*client)->setOwnership(shard, { ctx.migration.value.space, role, epoch });
    if (!owned)
        return makeError(owned.error().code,
            "cannot make shard " + shard + " " + spaceRoleName(role) + " of " + ctx.migration.value.space + " at epoch "
                + std::to_string(epoch) + ": " + owned.error().message);
    return {};
}

Result<SpaceStats> MigrationExecutor::statsOf(const Context& ctx, const std::string& shard)
{
    auto client = clientFor(ctx, shard);
    if (!client)
        return client.error();
    auto stats = (*client)->spaceStats(shard, { ctx.migration.value.space });
    if (!stats)
        return makeError(
            stats.error().code, "cannot read the space's aggregates on " + shard + ": " + stats.error().message);
    for (const auto& entry : *stats) {
        if (entry.space != ctx.migration.value.space)
            continue;
        // A node from before content checksums cannot be compared with a current one.
        if (entry.checksumKind != kChecksumKind)
            return makeError(ErrorCode::FailedPrecondition,
                "the node of shard " + shard + " sums the space's checksum the old way (kind "
                    + std::to_string(entry.checksumKind) + "); upgrade shardmap-node there to migrate the space");
        return entry;
    }
    return SpaceStats { ctx.migration.value.space, 0, 0, 0, 0, kChecksumKind };
}

Result<std::uint64_t> MigrationExecutor::commit(
    Context& ctx, bool space, const std::string& action, const std::string& reason)
{
    if (auto status = checkLease(); !status)
        return status.error();
    // Tests lose the lease here: the fence below must check it again, not find the grant gone.
    if (auto status = failpoint("migration.commit.lease_checked"); !status)
        return status.error();
    ctx.m().updatedUnixMs = nowUnixMs();
    CommitRequest request;
    request.mutations.push_back({ keys::migration(ctx.m().id), encode(ctx.m()), ctx.migration.modRevision });
    if (space && ctx.space)
        request.mutations.push_back({ keys::space(ctx.sp().id), encode(ctx.sp()), ctx.space->modRevision });
    std::optional<MigrationHistory> history = historyChange(ctx);
    if (history)
        request.mutations.push_back({ keys::migrationHistory(ctx.m().id), encode(*history),
            ctx.history ? ctx.history->modRevision : 0 });
    auto leased = fence();
    if (!leased)
        return leased.error();
    request.fence = *leased;
    request.actor = m_options.actor;
    request.action = action;
    request.reason = reason.empty() ? "migration " + ctx.m().id : reason;
    const auto started = std::chrono::steady_clock::now();
    auto revision = m_store.commit(request);
    if (m_options.metrics)
        executor_detail::storeCommitMetric(*m_options.metrics)
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
std::optional<MigrationHistory> MigrationExecutor::historyChange(const Context& ctx) const
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
    const bool cutOver = ctx.committed.phase == MigrationPhase::Cutover && ctx.migration.value.phase == MigrationPhase::Cleanup;
    if (cutOver && ctx.fencedAt) {
        const auto held = std::chrono::steady_clock::now() - *ctx.fencedAt;
        history.writeHoldMs = std::chrono::duration<double, std::milli>(held).count();
        changed = true;
    }
    if (!changed)
        return std::nullopt;
    return history;
}

Result<std::uint64_t> MigrationExecutor::transition(Context& ctx, MigrationPhase phase, std::string status,
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

Status MigrationExecutor::updateMigration(Context& ctx, const std::function<void(MigrationRecord&)>& change)
{
    for (int attempt = 0; attempt < 8; ++attempt) {
        change(ctx.m());
        auto committed = commit(ctx, false, "migration-progress", "");
        if (committed)
            return {};
        if (committed.error().code != ErrorCode::Conflict)
            return committed.error();
        // Someone changed the record (pause, throttle, cancel): apply the change on top of theirs.
        auto fresh = readOne<MigrationRecord>(m_store, keys::migration(ctx.m().id), &decodeMigration);
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

} // namespace shardmap::core
