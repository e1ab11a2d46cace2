// MigrationExecutor's implementation: the lease and its fence, the scheduler thread's rounds
// (the working set, the concurrency slots, archiving) and the workers' retries with backoff.
#include "core/migration/migration_executor.h"

#include "core/util/clock.h"

#include <algorithm>

namespace shardmap::core {

namespace {

// Started migrations count against the concurrency limits; queued ones wait for room, and a
// migration in cleanup only deletes at its own pace.
bool holdsSlot(const MigrationRecord& m)
{
    return m.aborting || (m.phase != MigrationPhase::Queued && m.phase != MigrationPhase::Cleanup && !isFinal(m.phase));
}

bool isLeaseError(const Error& error)
{
    return error.details.contains("not_leading") || error.message.find("lease") != std::string::npos;
}

} // namespace

MigrationExecutor::MigrationExecutor(MetadataStore& store, NodeClientPool& nodes, ExecutorOptions options)
    : m_store(store)
    , m_options(std::move(options))
    , m_records(store, lease(), { m_options.actor, m_options.log, m_options.metrics })
    , m_phases(store, nodes, m_records, lease(),
          { m_options.poll, m_options.progressInterval, m_options.log, m_options.metrics })
    , m_operations(store, { m_options.actor, m_options.abandonedQueuing, [this] { return fence(); }, m_options.log })
    , m_failover(store, nodes, [this] { return fence(); }, { m_options.actor, m_options.log, m_options.metrics })
    , m_retiredShards(
          store, nodes, [this] { return fence(); }, m_options.actor, m_options.log)
    , m_snapshots(store, nodes, [this] { return fence(); }, { m_options.actor, m_options.log })
    , m_balancer(store, nodes, [this] { return fence(); }, { m_options.actor, m_options.log, m_options.balancerClock })
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
    if (m_watcher.joinable())
        m_watcher.join();
    if (m_snapshotter.joinable())
        m_snapshotter.join();
    if (m_balancerThread.joinable())
        m_balancerThread.join();
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
        if (!m_watcher.joinable())
            m_watcher = std::thread([this] { watchLoop(); });
        if (!m_snapshotter.joinable())
            m_snapshotter = std::thread([this] { snapshotLoop(); });
        if (!m_balancerThread.joinable())
            m_balancerThread = std::thread([this] { balancerLoop(); });
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
    return m_phases.cutoverTimings();
}

LeaseGuard MigrationExecutor::lease()
{
    return { [this] { return checkLease(); }, [this] { return fence(); } };
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

void MigrationExecutor::watchLoop()
{
    std::unique_lock lock(m_mutex);
    // The grant the watch's times were counted under: a new one (or none) counts afresh.
    std::uint64_t countedUnder = 0;
    while (!m_stopping) {
        const std::uint64_t token = m_leading && m_grant ? m_grant->token : 0;
        if (token != countedUnder) {
            m_failover.forget();
            countedUnder = token;
        }
        if (token != 0) {
            lock.unlock();
            m_failover.round();
            lock.lock();
        }
        m_wake.wait_for(lock, m_options.poll, [this] { return m_stopping; });
    }
}

void MigrationExecutor::snapshotLoop()
{
    std::unique_lock lock(m_mutex);
    while (!m_stopping) {
        if (m_leading && m_grant) {
            lock.unlock();
            m_snapshots.round();
            lock.lock();
        }
        m_wake.wait_for(lock, m_options.poll, [this] { return m_stopping; });
    }
}

void MigrationExecutor::balancerLoop()
{
    std::unique_lock lock(m_mutex);
    while (!m_stopping) {
        if (m_leading && m_grant) {
            lock.unlock();
            if (auto done = m_balancer.round(); !done)
                log(isLeaseError(done.error()) ? LogLevel::Debug : LogLevel::Warn,
                    "balancer round: " + done.error().describe());
            lock.lock();
        }
        m_wake.wait_for(lock, m_options.poll, [this] { return m_stopping; });
    }
}

void MigrationExecutor::poke()
{
    m_poked = true;
    m_wake.notify_all();
}

// Migrations running overall, per shard and per node (both ends count), against the limits of
// settings/migrations (0: none).
class MigrationExecutor::Slots {
public:
    Slots(MigrationSettings settings, const StoreSnapshot& shards)
        : m_settings(std::move(settings))
    {
        for (const auto& [key, record] : shards.records) {
            if (auto shard = decodeShard(record.value))
                m_nodeOfShard[shard->id] = shard->node;
        }
    }

    void take(const MigrationRecord& m)
    {
        ++m_running;
        ++m_perShard[m.source];
        if (m.target != m.source)
            ++m_perShard[m.target];
        ++m_perNode[m_nodeOfShard[m.source]];
        if (targetNode(m) != m_nodeOfShard[m.source])
            ++m_perNode[targetNode(m)];
    }

    bool fits(const MigrationRecord& m)
    {
        auto under = [](std::uint32_t count, std::uint32_t limit) { return limit == 0 || count < limit; };
        return under(m_running, m_settings.maxConcurrent) && under(m_perShard[m.source], m_settings.maxPerShard)
            && under(m_perShard[m.target], m_settings.maxPerShard)
            && under(m_perNode[m_nodeOfShard[m.source]], m_settings.maxPerNode)
            && under(m_perNode[targetNode(m)], m_settings.maxPerNode);
    }

private:
    // A catch-up writes the copy's node (its target is the same shard id there), so it counts on
    // both nodes like a migration.
    const std::string& targetNode(const MigrationRecord& m)
    {
        return m.isCatchUp() ? m.copyNode : m_nodeOfShard[m.target];
    }

    MigrationSettings m_settings;
    std::map<std::string, std::string> m_nodeOfShard;
    std::uint32_t m_running = 0;
    std::map<std::string, std::uint32_t> m_perShard;
    std::map<std::string, std::uint32_t> m_perNode;
};

void MigrationExecutor::scheduleOnce()
{
    if (!checkLease())
        return;
    auto listed = m_store.list(std::string(keys::kMigrations));
    auto shardList = m_store.list(std::string(keys::kShards));
    if (!listed || !shardList)
        return;
    auto settingsRead
        = readVersioned<MigrationSettings>(m_store, std::string(keys::kMigrationSettings), &decodeMigrationSettings);
    const MigrationSettings settings = settingsRead && *settingsRead ? (*settingsRead)->value : MigrationSettings {};
    std::vector<MigrationRecord> active = readWorkingSet(*listed);
    countCopies(*shardList);
    queueCatchUps(*shardList, active);
    Slots slots(settings, *shardList);
    if (!startDueMigrations(active, slots))
        return;
    if (auto status = m_operations.finishAll(); !status)
        log(LogLevel::Warn, "cannot finish operations: " + status.error().describe());
    m_retiredShards.round();
    if (auto status = archiveFinished(*listed); !status)
        log(LogLevel::Warn, "cannot archive finished migrations: " + status.error().describe());
}

MigrationExecutor::CopyFigures MigrationExecutor::copyFigures() const
{
    std::lock_guard lock(m_mutex);
    return m_copyFigures;
}

void MigrationExecutor::countCopies(const StoreSnapshot& shards)
{
    CopyFigures figures;
    for (const char* state : { "in_sync", "catching_up", "lost" })
        figures.byState[state] = 0;
    for (const auto& [key, record] : shards.records) {
        auto shard = decodeShard(record.value);
        if (!shard)
            continue;
        for (const ShardCopy& copy : shard->replicas) {
            ++figures.byState[copyStateName(copy.state)];
            if (copy.state == CopyState::CatchingUp)
                figures.behind[{ shard->id, copy.node }]
                    = copy.docsTotal > copy.docsDone ? copy.docsTotal - copy.docsDone : 0;
        }
    }
    std::lock_guard lock(m_mutex);
    m_copyFigures = std::move(figures);
}

std::vector<MigrationRecord> MigrationExecutor::readWorkingSet(const StoreSnapshot& listed)
{
    std::vector<MigrationRecord> active;
    std::map<std::string, std::uint64_t> byPhase;
    for (const auto& [key, record] : listed.records) {
        auto m = decodeMigration(record.value);
        if (m)
            ++byPhase[std::string(migrationPhaseName(m->phase))];
        if (m && m->active())
            active.push_back(std::move(*m));
    }
    std::lock_guard lock(m_mutex);
    m_migrationsByPhase = std::move(byPhase);
    return active;
}

bool MigrationExecutor::startDueMigrations(const std::vector<MigrationRecord>& active, Slots& slots)
{
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(m_mutex);
    if (!m_leading)
        return false;
    // A queued migration whose worker is starting it holds its slot already.
    for (const auto& m : active) {
        if (holdsSlot(m) || (m.phase == MigrationPhase::Queued && m_workers.contains(m.id)))
            slots.take(m);
    }
    for (const auto& m : active) {
        if (m_workers.contains(m.id) || !dueNow(m, now))
            continue;
        if (m.phase == MigrationPhase::Queued && !m.aborting && !m.cancelRequested) {
            if (!slots.fits(m))
                continue;
            slots.take(m);
        }
        m_dueAt.erase(m.id);
        m_workers.emplace(m.id, std::thread([this, id = m.id] { runWorker(id); }));
    }
    return true;
}

bool MigrationExecutor::dueNow(const MigrationRecord& m, std::chrono::steady_clock::time_point now) const
{
    // A request is acted on at once.
    if (m.aborting || m.cancelRequested || m.rollbackRequested)
        return true;
    const auto due = m_dueAt.find(m.id);
    if (due != m_dueAt.end() && due->second > now)
        return false;
    if (m.notBeforeUnixMs > nowUnixMs())
        return false;
    return !(m.paused && beforeCutover(m.phase));
}

// Every catching-up copy gets a catch-up record (issue 30), queued like a migration and started
// within the same limits; a new one is added to active, so this round may start it.
void MigrationExecutor::queueCatchUps(const StoreSnapshot& shardList, std::vector<MigrationRecord>& active)
{
    std::map<std::string, ShardRecord> shards;
    for (const auto& [key, record] : shardList.records) {
        if (auto shard = decodeShard(record.value))
            shards[shard->id] = std::move(*shard);
    }
    for (MigrationRecord& m : catchUpsToQueue(shards, active, m_options.actor)) {
        auto leased = fence();
        if (!leased)
            return;
        CommitRequest request;
        request.mutations.push_back({ keys::migration(m.id), encode(m), 0 });
        request.fence = *leased;
        request.actor = m_options.actor;
        request.action = "catch-up-queue";
        request.reason = m.reason;
        if (auto committed = m_store.commit(request); !committed) {
            log(LogLevel::Warn,
                "cannot queue the catch-up of " + m.source + " on " + m.copyNode + ": " + committed.error().describe());
            continue;
        }
        log(LogLevel::Info, "catch-up " + m.id + ": queued for the copy of " + m.source + " on " + m.copyNode);
        active.push_back(std::move(m));
    }
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
        auto result = m_phases.step(id);
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
                m_records.noteRetry(id, error.describe(), wait);
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

} // namespace shardmap::core
