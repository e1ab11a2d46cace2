#include "core/migration/migration_executor.h"
#include "core/migration/migration_history.h"

#include "core/migration/migration_requests.h"
#include "core/util/failpoint.h"

#include <algorithm>
#include <future>
#include <unordered_map>

namespace shardmap::core {

namespace {

// A bulk write to the target stays well under the node's request limit whatever the documents.
constexpr std::uint64_t kMaxWriteBytes = 16 * 1024 * 1024;
constexpr std::chrono::milliseconds kVerifyPause { 50 };
constexpr int kVerifyRounds = 5;
// Rows one DropSpace call deletes at most (a bounded call: a deadline, the lease rechecked between).
constexpr std::uint64_t kDropRowsPerCall = 50000;

// A page of the space, halving the batch while the documents are too large for one message
// (RESOURCE_EXHAUSTED); batch keeps the size that worked.
Result<ScanPage> scanSized(NodeClient& client, const std::string& shard, const std::string& space,
    const std::string& after, std::uint32_t& batch)
{
    for (;;) {
        auto page = client.scanPage(shard, space, after, batch, true);
        if (page || page.error().code != ErrorCode::ResourceExhausted || batch <= 1)
            return page;
        batch = std::max<std::uint32_t>(1, batch / 2);
    }
}

// Repair writes in chunks under the node's request limit; the summary adds them up.
// Where the write chunk starting at begin ends: at least one document, then until the chunk
// reaches the node's request budget (the backfill and the repair write alike).
template <typename DocOf> std::size_t chunkEnd(std::size_t begin, std::size_t size, DocOf docOf)
{
    std::uint64_t bytes = 0;
    std::size_t end = begin;
    for (; end < size && (end == begin || bytes < kMaxWriteBytes); ++end)
        bytes += documentBytes(docOf(end));
    return end;
}

Result<WriteSummary> repairChunked(NodeClient& client, const std::string& shard, const std::vector<WriteItem>& items)
{
    WriteSummary total;
    std::size_t begin = 0;
    while (begin < items.size()) {
        const std::size_t end
            = chunkEnd(begin, items.size(), [&](std::size_t i) -> const Document& { return items[i].doc; });
        const std::vector<WriteItem> chunk(items.begin() + static_cast<std::ptrdiff_t>(begin),
            items.begin() + static_cast<std::ptrdiff_t>(end));
        begin = end;
        auto written = client.repairWrite(shard, chunk);
        if (!written)
            return written.error();
        total.applied += written->applied;
        total.stale += written->stale;
        total.rejected += written->rejected;
        for (auto& result : written->results)
            total.results.push_back(std::move(result));
    }
    return total;
}

std::int64_t nowUnixMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// The same rows: live documents, tombstones (a lost delete would let an older write back in), and
// the checksum over every row's content (an equal version with another body differs).
bool sameContent(const SpaceStats& a, const SpaceStats& b)
{
    return a.liveDocs == b.liveDocs && a.tombstones == b.tombstones && a.checksum == b.checksum;
}

std::string describeStats(const SpaceStats& stats)
{
    return std::to_string(stats.liveDocs) + " docs, " + std::to_string(stats.tombstones) + " tombstones, checksum "
        + std::to_string(stats.checksum);
}

VerificationFigures comparison(const SpaceStats& source, const SpaceStats& target, std::uint32_t rounds)
{
    return { nowUnixMs(), { source.liveDocs, source.tombstones, source.checksum },
        { target.liveDocs, target.tombstones, target.checksum }, rounds, 0, sameContent(source, target) };
}

// Started migrations count against the concurrency limits; queued ones wait for room, and a
// migration in cleanup only deletes at its own pace.
bool holdsSlot(const MigrationRecord& m)
{
    return m.aborting || (m.phase != MigrationPhase::Queued && m.phase != MigrationPhase::Cleanup && !isFinal(m.phase));
}

bool beforeCutover(MigrationPhase phase)
{
    return phase == MigrationPhase::Queued || phase == MigrationPhase::DualWrite || phase == MigrationPhase::Backfill
        || phase == MigrationPhase::Verify;
}

template <typename T>
Result<std::optional<Versioned<T>>> readOne(
    MetadataStore& store, const std::string& key, Result<T> (*decode)(const std::string&))
{
    auto listed = store.list(key);
    if (!listed)
        return listed.error();
    const auto found = listed->records.find(key);
    if (found == listed->records.end())
        return std::optional<Versioned<T>> {};
    auto value = decode(found->second.value);
    if (!value)
        return value.error();
    return std::optional<Versioned<T>> { Versioned<T> { std::move(*value), found->second.modRevision } };
}

bool isLeaseError(const Error& error)
{
    return error.details.contains("not_leading") || error.message.find("lease") != std::string::npos;
}

} // namespace

// What one step reads: the migration, its space, and the fleet's shards and nodes.
struct MigrationExecutor::Context {
    Versioned<MigrationRecord> migration;
    // The migration record as last read or committed: what the history's next change is
    // measured against.
    MigrationRecord committed;
    // Nullopt until the first executor commit of this migration writes it.
    std::optional<Versioned<MigrationHistory>> history;
    // Figures of the last comparison and when the cutover fenced the source, folded into the
    // history at the next commit.
    std::optional<VerificationFigures> verification;
    std::optional<std::chrono::steady_clock::time_point> fencedAt;
    std::optional<Versioned<SpaceRecord>> space;
    std::map<std::string, ShardRecord> shards;
    std::map<std::string, NodeRecord> nodes;
    MigrationSettings settings;

    MigrationRecord& m() { return migration.value; }
    SpaceRecord& sp() { return space->value; }
    bool ownsSpace() const { return space && space->value.migrationId == migration.value.id; }
};

MigrationExecutor::MigrationExecutor(MetadataStore& store, NodeClientPool& nodes, ExecutorOptions options)
    : m_store(store)
    , m_nodes(nodes)
    , m_options(std::move(options))
{
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
            log("migration executor active (lease token " + std::to_string(grant.token) + ")");
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
            log("migration executor stopped acting");
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

void MigrationExecutor::log(const std::string& message) const
{
    if (m_options.log)
        m_options.log(message);
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
            [this](const Error& error) { log("map watch ended, polling instead: " + error.describe()); });
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
    for (const auto& [key, record] : listed->records) {
        auto m = decodeMigration(record.value);
        if (m && m->active())
            active.push_back(std::move(*m));
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
    if (auto status = finishOperations(); !status)
        log("cannot finish operations: " + status.error().describe());
    if (auto status = archiveFinished(*listed); !status)
        log("cannot archive finished migrations: " + status.error().describe());
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
                log("migration " + id + ": " + error.describe() + "; retrying in " + std::to_string(wait.count())
                    + " ms");
                // Say so in the record, for the console and `shardmapctl watch`.
                if (auto ctx = load(id); ctx && ctx->m().active()) {
                    const std::string text = error.describe();
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
    auto revision = m_store.commit(request);
    if (!revision)
        return revision.error();
    ctx.migration.modRevision = *revision;
    if (space && ctx.space)
        ctx.space->modRevision = *revision;
    ctx.committed = ctx.m();
    if (history) {
        ctx.history = Versioned<MigrationHistory> { std::move(*history), *revision };
        ctx.verification.reset();
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

// ---- the phases ------------------------------------------------------------------------------

Result<MigrationExecutor::StepResult> MigrationExecutor::step(const std::string& id)
{
    if (auto status = checkLease(); !status)
        return status.error();
    auto loaded = load(id);
    if (!loaded)
        return loaded.error();
    Context& ctx = *loaded;
    MigrationRecord& m = ctx.m();
    if (isFinal(m.phase))
        return StepResult { Next::Finished };
    if (m.aborting)
        return abort(ctx);
    if (!ctx.ownsSpace()) {
        // The space is gone or belongs to another migration: touching nodes could harm it.
        m.phase = MigrationPhase::Failed;
        m.finishedUnixMs = nowUnixMs();
        m.error
            = ctx.space ? "space " + m.space + " no longer names this migration" : "space " + m.space + " was removed";
        m.status = "failed";
        if (auto committed = commit(ctx, false, "migration-failed", m.error); !committed)
            return committed.error();
        return StepResult { Next::Finished };
    }
    if (m.cancelRequested && beforeCutover(m.phase))
        return beginAbort(ctx, MigrationPhase::Cancelled, "cancelled by request");
    if (m.paused && beforeCutover(m.phase)) {
        if (m.status != "paused") {
            if (auto status = updateMigration(ctx, [](MigrationRecord& r) { r.status = "paused"; }); !status)
                return status.error();
        }
        return StepResult { Next::Wait, m_options.poll };
    }
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
Result<MigrationExecutor::StepResult> MigrationExecutor::waitToStart(Context& ctx, const Error& why)
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
        if (auto status = updateMigration(ctx, [&](MigrationRecord& r) { r.startBlockedUnixMs = since; }); !status)
            return status.error();
    }
    return makeError(ErrorCode::Unavailable,
        "waiting to start: " + why.message + "; it fails if this lasts "
            + std::to_string((limit - (now - since)) / 1000) + " s more");
}

Result<MigrationExecutor::StepResult> MigrationExecutor::startMigration(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    SpaceRecord& sp = ctx.sp();
    // Preflight again: the fleet may have changed since the request was queued.
    auto snapshot = m_store.snapshot();
    if (!snapshot)
        return snapshot.error();
    auto map = MapSnapshot::decode(*snapshot);
    if (!map)
        return map.error();
    const auto facts = gatherPreflightFacts(*map, m_nodes, m.space, m.target);
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
    if (auto status = own(ctx, m.target, SpaceRole::MigrationTarget, epoch); !status)
        return status.error();
    if (auto status = failpoint("migration.start.target_owned"); !status)
        return status.error();
    sp.epoch = epoch;
    sp.target = m.target;
    sp.phase = MigrationPhase::DualWrite;
    m.phase = MigrationPhase::DualWrite;
    m.startedUnixMs = nowUnixMs();
    m.startBlockedUnixMs = 0;
    m.status = "dual writing";
    m.error.clear();
    if (auto committed = commit(ctx, true, "migration-dual-write", ""); !committed)
        return committed.error();
    if (auto status = failpoint("migration.dual_write.committed"); !status)
        return status.error();
    log("migration " + m.id + ": " + m.space + " " + m.source + " -> " + m.target + " dual writing at epoch "
        + std::to_string(epoch));
    return StepResult {};
}

Result<MigrationExecutor::StepResult> MigrationExecutor::enterBackfill(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    SpaceRecord& sp = ctx.sp();
    // Once the source holds the new epoch, every write it accepts came from a router that knows
    // the target and writes it there too: from here on the backfill cannot miss a change.
    if (auto status = own(ctx, m.source, SpaceRole::Owner, sp.epoch); !status)
        return status.error();
    if (auto status = own(ctx, m.target, SpaceRole::MigrationTarget, sp.epoch); !status)
        return status.error();
    if (auto status = failpoint("migration.dual_write.owned"); !status)
        return status.error();
    if (m.backfilled && ctx.settings.maxRepairs > 0 && m.cutoverAborts > ctx.settings.maxRepairs)
        return beginAbort(ctx, MigrationPhase::Failed,
            "the cutover aborted " + std::to_string(m.cutoverAborts) + " times in a row; last: " + m.error);
    if (m.backfilled) {
        m.phase = MigrationPhase::Verify;
        m.status = "verifying";
    } else {
        auto stats = statsOf(ctx, m.source);
        if (!stats)
            return stats.error();
        m.phase = MigrationPhase::Backfill;
        m.status = "copying";
        m.progress.docsTotal = stats->liveDocs + stats->tombstones;
        m.progress.bytesTotal = stats->bytesEstimate;
    }
    sp.phase = m.phase;
    if (auto committed = commit(ctx, true, "migration-backfill", ""); !committed)
        return committed.error();
    return StepResult {};
}

Result<MigrationExecutor::StepResult> MigrationExecutor::backfill(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    const std::uint64_t epoch = ctx.sp().epoch;
    auto source = clientFor(ctx, m.source);
    if (!source)
        return source.error();
    auto target = clientFor(ctx, m.target);
    if (!target)
        return target.error();
    std::uint32_t batch = std::clamp<std::uint32_t>(ctx.settings.backfillBatch, 1, kMaxScanBatch);
    // A throttled copy goes in about 20 small batches a second rather than a few large bursts
    // followed by sleeps: the source and target see an even load, their searches even latency.
    const std::uint64_t startThrottle
        = m.throttleDocsPerSecond > 0 ? m.throttleDocsPerSecond : ctx.settings.defaultThrottleDocsPerSecond;
    if (startThrottle > 0)
        batch = static_cast<std::uint32_t>(
            std::min<std::uint64_t>(batch, std::max<std::uint64_t>(20, startThrottle / 20)));
    const std::string space = m.space;
    const std::string sourceShard = m.source;
    const std::string targetShard = m.target;
    auto scan = [client = *source, sourceShard, space](std::string after, std::uint32_t size) {
        return client->scanPage(sourceShard, space, after, size, true);
    };

    std::string cursor = m.progress.cursor;
    std::uint64_t docsDone = m.progress.docsDone;
    std::uint64_t bytesDone = m.progress.bytesDone;
    double rate = m.progress.docsPerSecond;
    const auto started = std::chrono::steady_clock::now();
    std::uint64_t copiedSinceStart = 0;
    auto lastSaved = started;
    auto lastBatch = started;

    auto saveProgress = [&](bool final) -> Status {
        return updateMigration(ctx, [&](MigrationRecord& r) {
            r.progress.cursor = cursor;
            r.progress.docsDone = docsDone;
            r.progress.bytesDone = bytesDone;
            r.progress.docsTotal = std::max(r.progress.docsTotal, docsDone);
            r.progress.bytesTotal = std::max(r.progress.bytesTotal, bytesDone);
            r.progress.docsPerSecond = rate;
            r.progress.etaSeconds = rate > 0
                ? static_cast<std::int64_t>(static_cast<double>(r.progress.docsTotal - docsDone) / rate)
                : -1;
            if (final) {
                r.progress.etaSeconds = 0;
                r.backfilled = true;
            }
            r.error.clear();
            r.status = final ? "copied" : "copying";
        });
    };

    auto next = std::async(std::launch::async, scan, cursor, batch);
    for (;;) {
        if (auto status = checkLease(); !status)
            return status.error();
        auto page = next.get();
        if (!page && page.error().code == ErrorCode::ResourceExhausted && batch > 1) {
            batch = std::max<std::uint32_t>(1, batch / 2); // documents too large for one message
            next = std::async(std::launch::async, scan, cursor, batch);
            continue;
        }
        if (!page) {
            (void)saveProgress(false);
            return makeError(
                page.error().code, "reading " + m.space + " from " + m.source + ": " + page.error().message);
        }
        if (!page->done)
            next = std::async(std::launch::async, scan, page->cursor, batch); // read ahead while writing
        if (auto status = failpoint("migration.backfill.batch"); !status) {
            (void)saveProgress(false);
            return status.error();
        }
        // Write in chunks that stay under the node's request limit.
        std::size_t begin = 0;
        while (begin < page->docs.size()) {
            const std::size_t end = chunkEnd(
                begin, page->docs.size(), [&](std::size_t i) -> const Document& { return page->docs[i]; });
            std::vector<WriteItem> items;
            for (std::size_t i = begin; i < end; ++i)
                items.push_back({ page->docs[i], epoch });
            auto written = (*target)->backfillWrite(targetShard, items);
            if (!written && written.error().details.contains("held_epoch")) {
                // The target lost its role (restarted from an old backup, or told by someone
                // else): the map says it is the target at this epoch.
                if (auto status = own(ctx, targetShard, SpaceRole::MigrationTarget, epoch); !status)
                    return status.error();
                written = (*target)->backfillWrite(targetShard, items);
            }
            if (!written) {
                (void)saveProgress(false);
                return makeError(
                    written.error().code, "writing " + m.space + " to " + targetShard + ": " + written.error().message);
            }
            if (written->rejected > 0) {
                for (const auto& result : written->results) {
                    if (result.outcome == WriteOutcome::Rejected)
                        return beginAbort(ctx, MigrationPhase::Failed,
                            "the target refused a document of the space: " + result.reason);
                }
            }
            for (std::size_t i = begin; i < end; ++i)
                bytesDone += documentBytes(page->docs[i]);
            begin = end;
        }
        docsDone += page->docs.size();
        copiedSinceStart += page->docs.size();
        cursor = page->cursor;

        const auto now = std::chrono::steady_clock::now();
        const double seconds = std::chrono::duration<double>(now - lastBatch).count();
        if (seconds > 0 && !page->docs.empty()) {
            const double instant = static_cast<double>(page->docs.size()) / seconds;
            rate = rate <= 0 ? instant : 0.8 * rate + 0.2 * instant;
        }
        lastBatch = now;
        if (page->done)
            break;

        // Throttle: docs copied since this step began may not run ahead of the allowed rate.
        const std::uint64_t throttle
            = m.throttleDocsPerSecond > 0 ? m.throttleDocsPerSecond : ctx.settings.defaultThrottleDocsPerSecond;
        if (throttle > 0) {
            const auto due = started
                + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(
                    static_cast<double>(copiedSinceStart) / static_cast<double>(throttle)));
            while (std::chrono::steady_clock::now() < due && checkLease())
                std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
                    due - std::chrono::steady_clock::now(), std::chrono::milliseconds(50)));
        }
        if (std::chrono::steady_clock::now() - lastSaved >= m_options.progressInterval) {
            if (auto status = saveProgress(false); !status)
                return status.error();
            lastSaved = std::chrono::steady_clock::now();
            // A request that arrived meanwhile (pause, cancel) is handled by the next step;
            // a new throttle applies from here.
            if (m.paused || m.cancelRequested || m.aborting)
                return StepResult {};
            if (auto settings
                = readOne<MigrationSettings>(m_store, std::string(keys::kMigrationSettings), &decodeMigrationSettings);
                settings && *settings)
                ctx.settings = (*settings)->value;
        }
    }
    if (auto status = saveProgress(true); !status)
        return status.error();
    if (auto status = failpoint("migration.backfill.done"); !status)
        return status.error();
    m.phase = MigrationPhase::Verify;
    m.status = "verifying";
    ctx.sp().phase = MigrationPhase::Verify;
    if (auto committed = commit(ctx, true, "migration-verify", ""); !committed)
        return committed.error();
    log("migration " + m.id + ": copied " + std::to_string(docsDone) + " rows of " + m.space);
    return StepResult {};
}

Result<std::uint64_t> MigrationExecutor::repairByRange(Context& ctx, bool& targetOnly)
{
    const MigrationRecord& m = ctx.m();
    auto source = clientFor(ctx, m.source);
    if (!source)
        return source.error();
    auto target = clientFor(ctx, m.target);
    if (!target)
        return target.error();
    std::uint32_t batch = std::clamp<std::uint32_t>(ctx.settings.backfillBatch, 1, kMaxScanBatch);
    std::string after;
    std::uint64_t repaired = 0;
    for (;;) {
        if (auto status = checkLease(); !status)
            return status.error();
        // The target first: every row it has was on the source before (routers write the source
        // first), so the source page read after it has it too, and a document on the target
        // only is a real inconsistency, not a write in flight.
        // Large documents: both pages shrink until they fit a message, and the fixes below are
        // written in chunks, as the backfill does (issue 14).
        auto targetPage = scanSized(**target, m.target, m.space, after, batch);
        if (!targetPage)
            return targetPage.error();
        auto sourcePage = scanSized(**source, m.source, m.space, after, batch);
        if (!sourcePage)
            return sourcePage.error();
        // Compare the id range both pages cover completely.
        std::optional<std::string> upper;
        if (!sourcePage->done && !sourcePage->docs.empty())
            upper = sourcePage->docs.back().id;
        if (!targetPage->done && !targetPage->docs.empty() && (!upper || targetPage->docs.back().id < *upper))
            upper = targetPage->docs.back().id;
        auto inRange = [&](const std::string& id) { return !upper || id <= *upper; };
        std::unordered_map<std::string, const Document*> onTarget;
        for (const auto& doc : targetPage->docs) {
            if (inRange(doc.id))
                onTarget.emplace(doc.id, &doc);
        }
        std::vector<WriteItem> fixes;
        for (const auto& doc : sourcePage->docs) {
            if (!inRange(doc.id))
                break;
            // The source is authoritative: a missing row, an older one, or the same version with
            // other content (or a tombstone where the source has a body) is copied again.
            const auto found = onTarget.find(doc.id);
            if (found == onTarget.end() || found->second->version < doc.version
                || (found->second->version == doc.version && contentHash(*found->second) != contentHash(doc)))
                fixes.push_back({ doc, ctx.sp().epoch });
            if (found != onTarget.end())
                onTarget.erase(found);
        }
        // A row the target has and the source does not (a document or a tombstone: both are
        // compared) cannot come from the source: the copy is not the source's.
        if (!onTarget.empty()) {
            const auto& [id, doc] = *onTarget.begin();
            targetOnly = true;
            return makeError(ErrorCode::FailedPrecondition,
                std::string(doc->deleted ? "a tombstone of " : "document ") + id + " is on the target " + m.target
                    + " but not on the source " + m.source);
        }
        if (!fixes.empty()) {
            auto written = repairChunked(**target, m.target, fixes);
            if (!written)
                return written.error();
            repaired += written->applied;
        }
        if (!upper)
            return repaired;
        after = *upper;
    }
}

Result<MigrationExecutor::StepResult> MigrationExecutor::verify(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    std::string difference;
    for (int round = 0; round < kVerifyRounds; ++round) {
        auto source = statsOf(ctx, m.source);
        if (!source)
            return source.error();
        auto target = statsOf(ctx, m.target);
        if (!target)
            return target.error();
        ctx.verification = comparison(*source, *target, round + 1);
        if (sameContent(*source, *target)) {
            difference.clear();
            break;
        }
        difference = "source " + describeStats(*source) + ", target " + describeStats(*target);
        std::this_thread::sleep_for(kVerifyPause);
    }
    if (!difference.empty()) {
        bool targetOnly = false;
        auto repaired = repairByRange(ctx, targetOnly);
        if (!repaired && targetOnly)
            return beginAbort(ctx, MigrationPhase::Failed, repaired.error().message);
        if (!repaired)
            return repaired.error();
        if (*repaired > 0) {
            // Documents the target lacked or had older: a dual write it missed, or one still on
            // its way (the walk cannot tell them apart). Either way the target has them now; the
            // cutover compares exactly once the source holds its writes.
            const std::uint64_t docs = *repaired;
            if (auto status = updateMigration(ctx,
                    [&](MigrationRecord& r) {
                        r.repairs += 1;
                        r.repairedDocs += docs;
                    });
                !status)
                return status.error();
            log("migration " + m.id + ": verify copied " + std::to_string(docs) + " documents again (" + difference
                + ")");
        }
    }
    if (auto status = failpoint("migration.verify.done"); !status)
        return status.error();
    m.phase = MigrationPhase::Cutover;
    m.status = "cutting over";
    ctx.sp().phase = MigrationPhase::Cutover;
    if (auto committed = commit(ctx, true, "migration-cutover-start", ""); !committed)
        return committed.error();
    return StepResult {};
}

Result<MigrationExecutor::StepResult> MigrationExecutor::cutover(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    SpaceRecord& sp = ctx.sp();
    const std::uint64_t epoch = sp.epoch;
    const std::uint64_t next = epoch + 1;
    const auto started = std::chrono::steady_clock::now();
    const auto deadline = started + std::chrono::milliseconds(ctx.settings.cutoverTimeoutMs);
    if (auto status = failpoint("migration.cutover.before_fence"); !status)
        return status.error();
    // Hold the source's writes: it refuses every epoch below next, and a router cannot push it
    // back (it only pushes epochs the map has, and the map still has epoch).
    if (auto status = own(ctx, m.source, SpaceRole::Fenced, next); !status)
        return status.error();
    if (auto status = failpoint("migration.cutover.fenced"); !status)
        return status.error();
    // Writes the source took before the fence may still be on their way to the target.
    ctx.fencedAt = started;
    std::string difference;
    std::uint32_t rounds = 0;
    for (;;) {
        auto source = statsOf(ctx, m.source);
        auto target = source ? statsOf(ctx, m.target) : Result<SpaceStats>(source.error());
        if (source && target)
            ctx.verification = comparison(*source, *target, ++rounds);
        if (source && target && sameContent(*source, *target)) {
            difference.clear();
            break;
        }
        difference = !source ? source.error().message
            : !target        ? target.error().message
                             : "source " + describeStats(*source) + ", target " + describeStats(*target);
        if (std::chrono::steady_clock::now() >= deadline)
            return abortCutover(ctx, next, "source and target differ with writes held: " + difference);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    const bool window = !m.rolledBack && ctx.settings.rollbackWindowSeconds > 0;
    if (window) {
        // The old source follows the new owner during the rollback window, so a rollback needs no
        // backfill; it still refuses the old epoch.
        if (auto status = own(ctx, m.source, SpaceRole::MigrationTarget, next); !status)
            return abortCutover(ctx, next, status.error().message);
    }
    if (std::chrono::steady_clock::now() >= deadline)
        return abortCutover(
            ctx, next, "the cutover took longer than " + std::to_string(ctx.settings.cutoverTimeoutMs) + " ms");
    if (auto status = failpoint("migration.cutover.before_commit"); !status)
        return status.error();
    const std::string oldSource = m.source;
    for (int attempt = 0;; ++attempt) {
        sp.shard = m.target;
        sp.epoch = next;
        sp.target = window ? oldSource : std::string();
        sp.phase = MigrationPhase::Cleanup;
        m.phase = MigrationPhase::Cleanup;
        m.cutoverUnixMs = nowUnixMs();
        m.cutoverAborts = 0;
        m.error.clear();
        m.status = window
            ? "cut over; rollback possible for " + std::to_string(ctx.settings.rollbackWindowSeconds) + " s"
            : "cut over; removing the old copy";
        auto committed = commit(ctx, true, m.rolledBack ? "migration-rollback-cutover" : "migration-cutover", "");
        if (committed)
            break;
        if (committed.error().code != ErrorCode::Conflict || attempt > 0
            || std::chrono::steady_clock::now() >= deadline) {
            if (committed.error().code == ErrorCode::Conflict) {
                auto fresh = load(m.id);
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
        auto fresh = load(m.id);
        if (!fresh)
            return fresh.error();
        if (!fresh->ownsSpace() || fresh->sp().epoch != epoch || fresh->sp().shard != oldSource
            || fresh->m().phase != MigrationPhase::Cutover)
            return abortCutover(*fresh, next, "the space changed during the cutover");
        ctx = std::move(*fresh);
    }
    const auto held = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
    if (auto status = failpoint("migration.cutover.committed"); !status)
        return status.error();
    // Routers that still write with the old epoch are refused, re-read the map and push this
    // ownership themselves if this call is late or lost.
    if (auto status = own(ctx, m.target, SpaceRole::Owner, next); !status)
        log("migration " + m.id + ": " + status.error().describe() + " (routers will push it)");
    recordCutover({ m.id, held, true });
    log("migration " + m.id + ": " + m.space + " cut over to " + m.target + " at epoch " + std::to_string(next)
        + ", writes held " + std::to_string(held.count() / 1000.0) + " ms");
    return StepResult {};
}

Result<MigrationExecutor::StepResult> MigrationExecutor::abortCutover(
    Context& ctx, std::uint64_t fenceEpoch, const std::string& why)
{
    MigrationRecord& m = ctx.m();
    // Only the cutover this step started: the records must still say so (the space on the
    // source, below the fence's epoch, the migration cutting over). Another committer may have
    // committed a cutover meanwhile (a deposed leader's, issue 14); rewriting that would give the
    // space two owners. Then nothing is aborted and the next step goes on from what the store says.
    if (!ctx.ownsSpace() || m.phase != MigrationPhase::Cutover || ctx.sp().shard != m.source
        || ctx.sp().epoch >= fenceEpoch) {
        log("migration " + m.id + ": cutover not aborted (" + why + "): the records moved on (phase "
            + migrationPhaseName(m.phase) + (ctx.space ? ", space on " + ctx.sp().shard : std::string()) + ")");
        return StepResult {};
    }
    SpaceRecord& sp = ctx.sp();
    const auto started = std::chrono::steady_clock::now();
    // The target keeps receiving dual writes at the new epoch; the source owns it again.
    if (auto status = own(ctx, m.target, SpaceRole::MigrationTarget, fenceEpoch); !status)
        log("migration " + m.id + ": " + status.error().describe());
    const std::uint32_t aborts = m.cutoverAborts + 1;
    const int attempts = static_cast<int>(std::min<std::uint32_t>(aborts - 1, 5));
    sp.epoch = std::max(sp.epoch, fenceEpoch);
    sp.phase = MigrationPhase::DualWrite;
    m.phase = MigrationPhase::DualWrite;
    m.backfilled = true;
    m.notBeforeUnixMs = nowUnixMs() + 1000LL * (1 << attempts);
    m.cutoverAborts = aborts;
    m.error = "cutover aborted: " + why;
    m.status = "dual writing; cutover retried later";
    if (auto committed = commit(ctx, true, "migration-cutover-abort", why); !committed)
        return committed.error();
    if (auto status = own(ctx, m.source, SpaceRole::Owner, sp.epoch); !status)
        log("migration " + m.id + ": " + status.error().describe() + " (routers will push it)");
    recordCutover({ m.id,
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started), false });
    log("migration " + m.id + ": cutover aborted: " + why);
    return StepResult { Next::Wait, std::chrono::milliseconds(1000LL * (1 << attempts)) };
}

Result<MigrationExecutor::StepResult> MigrationExecutor::rollback(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    // The old source has followed every write since the cutover: moving back is a cutover in the
    // other direction, after a verify.
    std::swap(m.source, m.target);
    m.rolledBack = true;
    m.rollbackRequested = false;
    m.backfilled = true;
    m.phase = MigrationPhase::Verify;
    m.status = "rolling back: verifying " + m.target;
    ctx.sp().phase = MigrationPhase::Verify;
    if (auto committed = commit(ctx, true, "migration-rollback", "rollback requested"); !committed)
        return committed.error();
    log("migration " + m.id + ": rolling back " + m.space + " to " + m.target);
    return StepResult {};
}

Result<MigrationExecutor::StepResult> MigrationExecutor::cleanup(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    SpaceRecord& sp = ctx.sp();
    if (!sp.target.empty()) {
        const std::int64_t due = m.cutoverUnixMs + static_cast<std::int64_t>(ctx.settings.rollbackWindowSeconds) * 1000;
        const std::int64_t now = nowUnixMs();
        if (now < due) {
            // Idempotent: a restarted executor makes sure both nodes hold their roles.
            if (auto status = own(ctx, m.target, SpaceRole::Owner, sp.epoch); !status)
                return status.error();
            if (auto status = own(ctx, m.source, SpaceRole::MigrationTarget, sp.epoch); !status)
                log("migration " + m.id + ": " + status.error().describe());
            return StepResult { Next::Wait, std::chrono::milliseconds(std::min<std::int64_t>(due - now, 60000)) };
        }
        // Close the window: the old source stops receiving writes (new epoch, no target).
        sp.epoch += 1;
        sp.target.clear();
        m.status = "removing the old copy from " + m.source;
        if (auto committed = commit(ctx, true, "migration-close-rollback-window", ""); !committed)
            return committed.error();
    }
    if (auto status = own(ctx, m.target, SpaceRole::Owner, sp.epoch); !status)
        log("migration " + m.id + ": " + status.error().describe() + " (routers will push it)");
    auto dropped = removeCopy(ctx, m.source, "migration.cleanup.before_drop");
    if (!dropped)
        return dropped.error();
    sp.migrationId.clear();
    sp.target.clear();
    sp.phase = MigrationPhase::Done;
    m.phase = m.rolledBack ? MigrationPhase::Cancelled : MigrationPhase::Done;
    m.finishedUnixMs = nowUnixMs();
    m.status = m.rolledBack ? "rolled back; " + m.space + " is on " + m.target + " again"
                            : "done; removed " + std::to_string(*dropped) + " rows from " + m.source;
    if (auto committed = commit(ctx, true, "migration-done", ""); !committed)
        return committed.error();
    log("migration " + m.id + ": " + m.status);
    return StepResult { Next::Finished };
}

Result<std::uint64_t> MigrationExecutor::removeCopy(Context& ctx, const std::string& shard, const char* failpointName)
{
    const MigrationRecord& m = ctx.m();
    // Fenced at the current epoch before deleting: a router that still writes there with an old
    // epoch can no longer put documents back.
    if (auto status = own(ctx, shard, SpaceRole::Fenced, ctx.sp().epoch); !status)
        return status.error();
    if (auto status = failpoint(failpointName); !status)
        return status.error();
    auto client = clientFor(ctx, shard);
    if (!client)
        return client.error();
    // In bounded calls, each with a deadline, the lease checked before each: a replica that lost
    // the lease stops deleting, and the node deletes only while the space is fenced at this epoch.
    std::uint64_t total = 0;
    for (;;) {
        if (auto status = checkLease(); !status)
            return status.error();
        auto dropped
            = (*client)->dropSpace(shard, m.space, ctx.sp().epoch, ctx.settings.cleanupRowsPerSecond, kDropRowsPerCall);
        if (!dropped)
            return makeError(dropped.error().code,
                "removing the copy of " + m.space + " from " + shard + ": " + dropped.error().message);
        total += dropped->deleted;
        if (dropped->done)
            return total;
    }
}

Result<MigrationExecutor::StepResult> MigrationExecutor::beginAbort(
    Context& ctx, MigrationPhase endPhase, const std::string& why)
{
    log("migration " + ctx.m().id + ": stopping (" + migrationPhaseName(endPhase) + "): " + why);
    if (auto status = updateMigration(ctx,
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

Result<MigrationExecutor::StepResult> MigrationExecutor::abort(Context& ctx)
{
    MigrationRecord& m = ctx.m();
    const bool owns = ctx.ownsSpace();
    const bool targetMayHaveDocs = m.phase != MigrationPhase::Queued;
    if (owns && !ctx.sp().target.empty()) {
        // Stop dual writes: a new epoch without a target; routers with the old one are refused.
        ctx.sp().epoch += 1;
        ctx.sp().target.clear();
        if (auto committed = commit(ctx, true, "migration-abort", m.status); !committed)
            return committed.error();
    }
    if (owns && targetMayHaveDocs) {
        if (auto status = own(ctx, m.source, SpaceRole::Owner, ctx.sp().epoch); !status)
            log("migration " + m.id + ": " + status.error().describe() + " (routers will push it)");
        if (ctx.shards.contains(m.target)) {
            if (auto dropped = removeCopy(ctx, m.target, "migration.abort.before_drop"); !dropped)
                return dropped.error();
        }
    }
    if (owns) {
        ctx.sp().migrationId.clear();
        ctx.sp().phase = MigrationPhase::Done;
    }
    m.phase = m.abortPhase;
    m.finishedUnixMs = nowUnixMs();
    m.status = m.abortPhase == MigrationPhase::Cancelled ? "cancelled; " + m.space + " stays on " + m.source
                                                         : "failed; " + m.space + " stays on " + m.source;
    if (auto committed = commit(ctx, owns, "migration-" + std::string(migrationPhaseName(m.abortPhase)), m.error);
        !committed)
        return committed.error();
    log("migration " + m.id + ": " + m.status);
    return StepResult { Next::Finished };
}

// ---- operations ------------------------------------------------------------------------------

bool MigrationExecutor::needsFinishing(const OperationRecord& op, std::uint64_t modRevision)
{
    if (op.state == "running")
        return true;
    if (op.state != "queuing")
        return false;
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(m_mutex);
    auto [seen, fresh] = m_queuingSeen.try_emplace(op.id, modRevision, now);
    if (!fresh && seen->second.first != modRevision)
        seen->second = { modRevision, now };
    // Measured by this executor's clock: the writer's may differ.
    return now - seen->second.second > m_options.abandonedQueuing;
}

Status MigrationExecutor::finishOperations()
{
    // Only the leader finishes operations (retiring shards and nodes): checked before reading,
    // and every commit below is fenced by the lease.
    if (auto status = checkLease(); !status)
        return status.error();
    auto listed = m_store.list(std::string(keys::kOperations));
    if (!listed)
        return listed.error();
    bool anyRunning = false;
    for (const auto& [key, record] : listed->records) {
        auto op = decodeOperation(record.value);
        if (op && needsFinishing(*op, record.modRevision))
            anyRunning = true;
    }
    if (!anyRunning)
        return {};
    auto snapshot = m_store.snapshot();
    if (!snapshot)
        return snapshot.error();
    auto map = MapSnapshot::decode(*snapshot);
    if (!map)
        return map.error();
    for (const auto& [id, versioned] : map->operations) {
        OperationRecord op = versioned.value;
        if (!needsFinishing(op, versioned.modRevision))
            continue;
        std::vector<std::string> unfinished;
        std::vector<std::string> failed;
        for (const auto& migrationId : op.migrations) {
            const auto found = map->migrations.find(migrationId);
            if (found == map->migrations.end() || found->second.value.phase == MigrationPhase::Failed
                || found->second.value.phase == MigrationPhase::Cancelled)
                failed.push_back(migrationId);
            else if (found->second.value.phase != MigrationPhase::Done)
                unfinished.push_back(migrationId);
        }
        if (!unfinished.empty())
            continue;
        CommitRequest request;
        auto leased = fence();
        if (!leased)
            return leased.error();
        request.fence = *leased;
        request.actor = m_options.actor;
        request.action = std::string(operationKindName(op.kind)) + "-finished";
        request.reason = "operation " + op.id;
        op.finishedUnixMs = nowUnixMs();
        const bool partial = op.plannedMoves > op.migrations.size();
        if (partial) {
            // Its writer died between chunks: the moves never queued are not made, and a shard
            // that still holds spaces must not be retired.
            op.state = "failed";
            const std::string earlier = op.error;
            op.error = "interrupted while queuing: " + std::to_string(op.migrations.size()) + " of "
                + std::to_string(op.plannedMoves) + " moves were queued"
                + (failed.empty() ? " (and ran)" : " (" + std::to_string(failed.size()) + " of them did not finish)")
                + "; plan again for the rest" + (earlier.empty() ? "" : "; " + earlier);
        } else if (!failed.empty()) {
            op.state = "failed";
            std::string list;
            for (const auto& f : failed)
                list += (list.empty() ? "" : ", ") + f;
            op.error = "migrations not done: " + list;
        } else {
            op.state = "done";
            auto retire = [&](const std::string& shardId) {
                const auto shard = map->shards.find(shardId);
                if (shard == map->shards.end() || shard->second.value.state == ShardState::Retired)
                    return;
                if (!map->spacesOn(shardId).empty()) {
                    op.error = "shard " + shardId + " still has spaces; not retired";
                    return;
                }
                ShardRecord retired = shard->second.value;
                retired.state = ShardState::Retired;
                request.mutations.push_back({ keys::shard(shardId), encode(retired), shard->second.modRevision });
            };
            if (op.kind == OperationKind::Merge)
                retire(op.subject);
            if (op.kind == OperationKind::RetireNode) {
                for (const auto* shard : map->shardsOn(op.subject))
                    retire(shard->id);
                const auto node = map->nodes.find(op.subject);
                if (node != map->nodes.end() && op.error.empty()) {
                    NodeRecord retired = node->second.value;
                    retired.retired = true;
                    request.mutations.push_back({ keys::node(op.subject), encode(retired), node->second.modRevision });
                }
            }
        }
        request.mutations.push_back({ keys::operation(op.id), encode(op), versioned.modRevision });
        if (auto committed = m_store.commit(request); !committed && committed.error().code != ErrorCode::Conflict)
            return committed.error();
        log("operation " + op.id + " (" + operationKindName(op.kind) + "): " + op.state
            + (op.error.empty() ? "" : ": " + op.error));
    }
    return {};
}

} // namespace shardmap::core
