#include "core/router/router.h"

// Router's implementation: the route table loaded and kept by the store's watch, new spaces
// allocated, writes grouped by shard to every copy with dual writes and epoch retries (searches:
// router_search.cpp).

#include "core/util/failpoint.h"
#include "core/util/validation.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

namespace shardmap::core {

namespace {

bool isEpochRefusal(const Error& error)
{
    return error.code == ErrorCode::FailedPrecondition && error.details.contains("held_epoch");
}

std::uint64_t heldEpoch(const Error& error)
{
    return std::stoull(error.details.at("held_epoch"));
}

SpaceRole heldRole(const Error& error)
{
    const auto found = error.details.find("held_role");
    return found == error.details.end() ? SpaceRole::None : static_cast<SpaceRole>(std::stoi(found->second));
}

// The map is the truth: a copy holding an older epoch for the shard than the map's missed a push
// (restart, lost call, a replica added since) and is told the map's ownership. So is one holding
// the map's own epoch in a role that refuses writes (issue 14): a cutover aborted by a shardmapd
// from before issue 25 committed the fence's epoch with the source still owner, and the executor's
// call re-owning the source was lost or it died there; without this the space stays unwritable
// until the executor's next step, forever while it is paused. (An abort now commits an epoch above
// the fence's, which this finds behind.) A copy holding a newer epoch than the map has is left
// alone (a cutover in progress holds the space's writes): the map will catch up, or the write
// fails after retries. A copy of a migration's target (role MigrationTarget) is told only when
// behind: one fenced at the map's epoch is a copy the executor is emptying. Returns whether
// ownership was pushed.
Result<bool> pushOwnershipIfBehind(NodeClient& client, const std::string& shard, const std::string& space,
    std::uint64_t epoch, const Error& refusal, SpaceRole role = SpaceRole::Owner)
{
    const std::uint64_t held = heldEpoch(refusal);
    const bool behind = held < epoch;
    const bool fencedAtMapEpoch = role == SpaceRole::Owner && held == epoch && heldRole(refusal) != SpaceRole::Owner;
    if ((!behind && !fencedAtMapEpoch) || refusal.details.at("shard") != shard)
        return false;
    auto owned = client.setOwnership(shard, { space, role, epoch });
    if (!owned && !isEpochRefusal(owned.error()))
        return owned.error();
    return true;
}

// A refusal from a copy holding a newer epoch than the write carried.
bool copyAhead(const Error& error)
{
    if (!isEpochRefusal(error))
        return false;
    const auto sent = error.details.find("sent_epoch");
    return sent != error.details.end() && heldEpoch(error) > std::stoull(sent->second);
}

const char* failureKind(const Error& error)
{
    switch (error.code) {
    case ErrorCode::DeadlineExceeded: return "timeout";
    case ErrorCode::Unavailable: return "unavailable";
    case ErrorCode::FailedPrecondition: return "refused";
    default: return "failed";
    }
}

// outcome: what followed (the map marked the in-sync copy catching up, the mark failed and the
// write was not acknowledged under write quorum all, or a best-effort copy: catching up, a
// target's); error: how the copy failed (unavailable, timeout, refused, failed).
MetricCounter& copyFailures(MetricsRegistry& metrics, const char* outcome, const char* error)
{
    return metrics.counter("shardmapd_router_copy_write_failures_total",
        "Writes a replica missed, by what followed and how the copy failed",
        { { "outcome", outcome }, { "error", error } });
}

} // namespace

Router::Router(MetadataStore& store, NodeClientPool& nodes, RouterOptions options)
    : m_store(store)
    , m_nodes(nodes)
    , m_options(std::move(options))
    , m_copyWriters(std::make_unique<TaskPool>(std::max<std::size_t>(1, m_options.copyWriters)))
    , m_targetWriters(std::make_unique<TaskPool>(std::max<std::size_t>(1, m_options.targetWriters)))
{
    if (m_options.metrics) {
        m_searchRetries = &m_options.metrics->counter("shardmapd_router_search_copy_retries_total",
            "Shard searches retried on another in-sync copy after one was unavailable or timed out");
        for (const char* outcome : { "marked_catching_up", "mark_failed", "best_effort" })
            (void)copyFailures(*m_options.metrics, outcome, "unavailable");
    }
}

Router::~Router()
{
    m_targetsClosing = true;
    {
        std::lock_guard lock(m_keeperMutex);
        m_stopping = true;
    }
    m_keeperWake.notify_all();
    if (m_keeper.joinable())
        m_keeper.join();
    m_watch.reset();
}

Result<std::unique_ptr<Router>> Router::start(MetadataStore& store, NodeClientPool& nodes, RouterOptions options)
{
    std::unique_ptr<Router> router(new Router(store, nodes, std::move(options)));
    if (auto status = router->load(); !status)
        return status.error();
    return router;
}

Status Router::load()
{
    auto snapshot = m_store.snapshot();
    if (!snapshot)
        return snapshot.error();
    auto map = MapSnapshot::decode(*snapshot);
    if (!map)
        return map.error();
    {
        std::unique_lock lock(m_mutex);
        for (auto& [id, space] : map->spaces)
            m_spaces.emplace(id, std::move(space));
        for (auto& [id, shard] : map->shards)
            m_shards.emplace(id, std::move(shard.value));
        for (auto& [id, node] : map->nodes)
            m_nodeRecords.emplace(id, std::move(node.value));
        m_settings = map->settings.value;
        m_revision = map->revision;
        rebuildRoutes();
    }
    if (!m_options.followChanges)
        return {};
    if (auto status = watchFrom(map->revision); !status)
        return status;
    m_keeper = std::thread([this] { keepWatching(); });
    return {};
}

Status Router::watchFrom(std::uint64_t revision)
{
    auto watch = m_store.watch(
        revision, [this](const AuditRecord& record) { apply(record); },
        [this](const Error& error) {
            {
                std::lock_guard lock(m_keeperMutex);
                m_watchFailed = true;
                m_watchError = error.describe();
            }
            m_keeperWake.notify_all();
        });
    if (!watch)
        return watch.error();
    m_watch = std::move(*watch);
    return {};
}

// A watch that died (the store unreachable for longer than it retries, a failed read) would
// leave the table frozen while the router goes on serving it. Watch again from the last revision
// applied, with backoff, and say meanwhile that the router does not follow the map.
void Router::keepWatching()
{
    std::unique_lock lock(m_keeperMutex);
    while (true) {
        m_keeperWake.wait(lock, [this] { return m_stopping || m_watchFailed; });
        if (m_stopping)
            return;
        m_watchFailed = false;
        const std::string why = m_watchError;
        m_following = false;
        lock.unlock();
        m_watch.reset();
        if (m_options.onFollowing)
            m_options.onFollowing(false, why);
        auto pause = m_options.rewatchBackoff;
        for (;;) {
            auto status = watchFrom(m_revision.load());
            if (status)
                break;
            lock.lock();
            if (m_keeperWake.wait_for(lock, pause, [this] { return m_stopping; }))
                return;
            lock.unlock();
            pause = std::min(pause * 2, m_options.rewatchMaxBackoff);
        }
        m_following = true;
        if (m_options.onFollowing)
            m_options.onFollowing(true, "watching the map again from revision " + std::to_string(m_revision.load()));
        lock.lock();
    }
}

void Router::apply(const AuditRecord& record)
{
    {
        std::unique_lock lock(m_mutex);
        bool topologyChanged = false;
        for (const auto& change : record.changes) {
            const std::string_view key = change.key;
            if (key.starts_with(keys::kSpaces)) {
                const std::string id(key.substr(keys::kSpaces.size()));
                auto& cached = m_spaces[id];
                if (cached.modRevision > record.revision)
                    continue; // a refresh already read something newer
                auto decoded = change.after ? decodeSpace(*change.after) : Result<SpaceRecord>(Error {});
                if (decoded) {
                    cached = { std::move(*decoded), record.revision };
                    if (auto route = routeFor(cached.value, record.revision))
                        m_routes[id] = std::make_shared<const Route>(std::move(*route));
                } else {
                    m_spaces.erase(id);
                    m_routes.erase(id);
                }
            } else if (key.starts_with(keys::kShards)) {
                const std::string id(key.substr(keys::kShards.size()));
                auto decoded = change.after ? decodeShard(*change.after) : Result<ShardRecord>(Error {});
                decoded ? void(m_shards[id] = std::move(*decoded)) : void(m_shards.erase(id));
                topologyChanged = true;
            } else if (key.starts_with(keys::kNodes)) {
                const std::string id(key.substr(keys::kNodes.size()));
                auto decoded = change.after ? decodeNode(*change.after) : Result<NodeRecord>(Error {});
                decoded ? void(m_nodeRecords[id] = std::move(*decoded)) : void(m_nodeRecords.erase(id));
                topologyChanged = true;
            } else if (key == keys::kMigrationSettings) {
                // The fleet's replication factor and write quorum are in every route.
                auto decoded = change.after ? decodeMigrationSettings(*change.after)
                                            : Result<MigrationSettings>(MigrationSettings {});
                if (decoded) {
                    m_settings = std::move(*decoded);
                    topologyChanged = true;
                }
            }
        }
        if (topologyChanged)
            rebuildRoutes();
        m_revision = std::max(m_revision.load(), record.revision);
    }
    std::lock_guard lock(m_revisionMutex);
    m_revisionChanged.notify_all();
}

void Router::rebuildRoutes()
{
    m_routes.clear();
    for (const auto& [id, space] : m_spaces) {
        if (auto route = routeFor(space.value, space.modRevision))
            m_routes.emplace(id, std::make_shared<const Route>(std::move(*route)));
    }
}

std::optional<Route> Router::routeFor(const SpaceRecord& space, std::uint64_t revision) const
{
    auto nodeAddress = [this](const std::string& nodeId) -> std::string {
        const auto node = m_nodeRecords.find(nodeId);
        return node == m_nodeRecords.end() ? std::string() : node->second.address;
    };
    auto addressOf = [&](const std::string& shardId) -> std::string {
        const auto shard = m_shards.find(shardId);
        return shard == m_shards.end() ? std::string() : nodeAddress(shard->second.node);
    };
    // Lost copies are neither written nor searched; a copy whose node has no address cannot be.
    auto copiesOf = [&](const std::string& shardId) {
        RouteCopies copies;
        const auto shard = m_shards.find(shardId);
        if (shard == m_shards.end())
            return copies;
        copies.replicationFactor = m_settings.replicationFactorOf(shard->second);
        for (const auto& replica : shard->second.replicas) {
            RouteCopy copy { replica.node, nodeAddress(replica.node) };
            if (copy.address.empty() || replica.state == CopyState::Lost)
                continue;
            (replica.state == CopyState::InSync ? copies.inSync : copies.catchingUp).push_back(std::move(copy));
        }
        return copies;
    };
    Route route { space.id, space.shard, addressOf(space.shard), space.epoch, {}, {}, space.paused, revision };
    if (route.nodeAddress.empty())
        return std::nullopt;
    const auto owner = m_shards.find(space.shard);
    route.node = owner->second.node;
    route.copies = copiesOf(space.shard);
    route.quorum = m_settings.writeQuorum;
    if (space.migrating() && !space.target.empty()) {
        route.targetShard = space.target;
        route.targetAddress = addressOf(space.target);
        route.targetCopies = copiesOf(space.target);
    }
    return route;
}

std::shared_ptr<const Route> Router::resolve(std::string_view space) const
{
    std::shared_lock lock(m_mutex);
    const auto found = m_routes.find(space);
    return found == m_routes.end() ? nullptr : found->second;
}

void Router::waitForSpaceEpoch(const std::string& space, std::uint64_t epoch, std::chrono::milliseconds timeout) const
{
    auto reached = [&] {
        std::shared_lock lock(m_mutex);
        const auto found = m_spaces.find(space);
        return found != m_spaces.end() && found->second.value.epoch >= epoch;
    };
    if (!m_options.followChanges || reached()) {
        if (!m_options.followChanges)
            std::this_thread::sleep_for(timeout);
        return;
    }
    std::unique_lock lock(m_revisionMutex);
    m_revisionChanged.wait_for(lock, timeout, reached);
}

bool Router::waitForRevision(std::uint64_t revision, std::chrono::milliseconds timeout) const
{
    std::unique_lock lock(m_revisionMutex);
    return m_revisionChanged.wait_for(lock, timeout, [&] { return m_revision.load() >= revision; });
}

Result<Route> Router::refresh(const std::string& space)
{
    auto listed = m_store.list(keys::space(space));
    if (!listed)
        return listed.error();
    const auto record = listed->records.find(keys::space(space));
    if (record == listed->records.end())
        return makeError(ErrorCode::NotFound, "no space " + space + " in the shard map");
    auto decoded = decodeSpace(record->second.value);
    if (!decoded)
        return decoded.error();
    std::unique_lock lock(m_mutex);
    auto& cached = m_spaces[space];
    if (record->second.modRevision >= cached.modRevision)
        cached = { std::move(*decoded), record->second.modRevision };
    auto route = routeFor(cached.value, cached.modRevision);
    if (!route)
        return makeError(ErrorCode::FailedPrecondition,
            "space " + space + " is on shard " + cached.value.shard + ", which has no node address in the map");
    m_routes[space] = std::make_shared<const Route>(*route);
    return *route;
}

Result<std::vector<ShardLoad>> Router::shardLoads()
{
    std::lock_guard lock(m_loadMutex);
    if (!m_loads.empty() && std::chrono::steady_clock::now() - m_loadsAt < m_options.loadCacheTtl)
        return m_loads;
    std::vector<ShardLoad> loads;
    std::map<std::string, std::vector<std::string>> shardsByAddress;
    {
        std::shared_lock mapLock(m_mutex);
        std::unordered_map<std::string, std::uint64_t> spacesPerShard;
        for (const auto& [id, space] : m_spaces)
            ++spacesPerShard[space.value.shard];
        for (const auto& [id, shard] : m_shards) {
            // Space counts come from the map, always current; docs and bytes from the nodes'
            // metrics, which lag by up to one sampling tick.
            ShardLoad load { shard, 0, 0, spacesPerShard[id], 1.0, false };
            loads.push_back(load);
            const auto node = m_nodeRecords.find(shard.node);
            if (node != m_nodeRecords.end())
                shardsByAddress[node->second.address].push_back(id);
        }
    }
    for (const auto& [address, shardIds] : shardsByAddress) {
        auto client = m_nodes.get(address);
        auto metrics = client ? (*client)->metrics(false) : Result<NodeMetricsValue>(client.error());
        if (!metrics)
            continue; // loadKnown stays false: the allocator ranks such shards last
        const double freeRatio = metrics->diskTotalBytes == 0
            ? 1.0
            : static_cast<double>(metrics->diskFreeBytes) / static_cast<double>(metrics->diskTotalBytes);
        for (auto& load : loads) {
            for (const auto& shard : metrics->shards) {
                if (shard.shard == load.shard.id && shard.healthy)
                    load = ShardLoad { load.shard, shard.liveDocs, shard.bytesEstimate, load.spaces, freeRatio, true };
            }
        }
    }
    m_loads = loads;
    m_loadsAt = std::chrono::steady_clock::now();
    return loads;
}

Result<Route> Router::createSpace(const std::string& space, const std::string& pin)
{
    if (auto status = validateSpaceId(space); !status)
        return status.error();
    auto loads = shardLoads();
    if (!loads)
        return loads.error();
    auto shard = allocateShard(m_options.strategy, space, *loads, pin);
    if (!shard)
        return shard.error();
    SpaceRecord record;
    record.id = space;
    record.shard = *shard;
    record.epoch = 1;
    record.pin = pin;
    CommitRequest request { { Mutation { keys::space(space), encode(record), 0 } }, std::nullopt, std::nullopt,
        m_options.actor, "create-space", "first write to a new space" };
    auto committed = m_store.commit(request);
    if (!committed && committed.error().code != ErrorCode::Conflict)
        return committed.error();
    // Created by us or, on a conflict, by someone else first: either way the store now has it.
    auto route = refresh(space);
    if (!route)
        return route.error();
    {
        std::lock_guard lock(m_loadMutex);
        m_loads.clear(); // the next allocation sees this space's shard as one space fuller
    }
    auto client = m_nodes.get(route->nodeAddress);
    if (!client)
        return client.error();
    auto owned = (*client)->setOwnership(route->shard, { space, SpaceRole::Owner, route->epoch });
    if (!owned && !isEpochRefusal(owned.error()))
        return owned.error();
    // Every copy owns the space at the map's epoch. One that misses this push is told on its first
    // write (writeCopy), or misses that write and is marked catching up.
    for (const auto* copies : { &route->copies.inSync, &route->copies.catchingUp }) {
        for (const auto& copy : *copies) {
            if (auto replica = m_nodes.get(copy.address))
                (void)(*replica)->setOwnership(route->shard, { space, SpaceRole::Owner, route->epoch });
        }
    }
    return *route;
}

Status Router::reconcileEpoch(const Route& fresh, const Error& refusal)
{
    // The primary's node lagging the map (pushOwnershipIfBehind says when it does).
    auto client = m_nodes.get(fresh.nodeAddress);
    if (!client)
        return client.error();
    auto pushed = pushOwnershipIfBehind(**client, fresh.shard, fresh.space, fresh.epoch, refusal);
    if (!pushed)
        return pushed.error();
    return {};
}

// One write over a shard's in-sync copies: the tally the quorum is decided on, and why copies failed.
struct Router::CopyRound {
    std::mutex mutex;
    std::condition_variable changed;
    CopyTally tally;
    std::vector<std::string> failures;
    // The answers of the copies that applied the call (repairCopiesHoldingTheVersion).
    std::vector<std::pair<RouteCopy, WriteSummary>> answers;
};

Result<WriteSummary> Router::writeCopy(
    const std::string& address, const std::string& shard, const std::vector<WriteItem>& items, bool primary)
{
    for (int attempt = 0;; ++attempt) {
        auto client = m_nodes.get(address);
        if (!client)
            return client.error();
        auto written = (*client)->bulkWrite(shard, items);
        // The primary's refusals go through writeGroup's refresh-and-retry.
        if (primary || written || !isEpochRefusal(written.error()) || attempt > 0)
            return written;
        // A replica that missed an ownership push (a replica added since the space was created,
        // a restart) is told the map's, read from the store and not from this write's route: a
        // route behind the map could otherwise lift a fence the map has since set.
        const std::string& space = written.error().details.at("space");
        const auto item = std::find_if(
            items.begin(), items.end(), [&](const WriteItem& candidate) { return candidate.doc.space == space; });
        auto fresh = refresh(space);
        const bool target = fresh && fresh->targetShard == shard;
        if (!fresh || item == items.end() || (fresh->shard != shard && !target) || fresh->epoch != item->epoch)
            return written;
        auto pushed = pushOwnershipIfBehind(**client, shard, space, fresh->epoch, written.error(),
            target ? SpaceRole::MigrationTarget : SpaceRole::Owner);
        if (!pushed)
            return pushed.error();
        if (!*pushed)
            return written;
    }
}

void Router::reportCopyFailure(const CopyWriteFailure& failure, const char* outcome)
{
    if (m_options.metrics)
        copyFailures(*m_options.metrics, outcome, failureKind(failure.error)).add();
    if (m_options.onCopyFailure)
        m_options.onCopyFailure(failure);
}

// A copy that missed the write leaves the in-sync set before the write can be acknowledged
// without it: searches stop reading it and catch-up brings it back. The mark is a compare-and-set
// on the shard record, so a copy that another router marked (or that an administrator removed)
// meanwhile is not written back in sync.
void Router::replicate(
    CopyRound& round, const RouteCopy& copy, const std::string& shard, const std::vector<WriteItem>& items)
{
    auto written = writeCopy(copy.address, shard, items, false);
    bool marked = false;
    std::string why;
    if (!written && copyAhead(written.error())) {
        // Ahead of the write: this write's route is behind the map, not the copy behind the
        // primary. Nothing to mark; the write fails (under all) and is sent again.
        why = "copy on node " + copy.node + " holds a newer epoch than the write: " + written.error().describe();
    } else if (!written) {
        const std::string missed = "missed a write: " + written.error().describe();
        auto mark = markCopyCatchingUp(m_store, shard, copy.node, missed, { m_options.actor, "" });
        marked = static_cast<bool>(mark);
        why = "copy on node " + copy.node + " " + missed
            + (marked ? "" : "; marking it catching up failed: " + mark.error().describe());
        reportCopyFailure({ shard, copy.node, true, written.error() }, marked ? "marked_catching_up" : "mark_failed");
    }
    {
        std::lock_guard lock(round.mutex);
        if (written) {
            round.answers.emplace_back(copy, *written);
            ++round.tally.applied;
        } else {
            ++(marked ? round.tally.marked : round.tally.unmarked);
        }
        if (!why.empty())
            round.failures.push_back(std::move(why));
    }
    round.changed.notify_all();
}

std::shared_ptr<Router::CopyRound> Router::replicateAll(
    const RouteCopies& copies, const std::string& shard, const std::shared_ptr<const std::vector<WriteItem>>& items)
{
    // Shared with the copy writers: a write a majority did not wait for finishes on its own.
    auto round = std::make_shared<CopyRound>();
    round->tally.inSync = 1 + copies.inSync.size();
    for (const auto& copy : copies.inSync)
        m_copyWriters->post([this, round, items, copy, shard] { replicate(*round, copy, shard, *items); });
    return round;
}

Status Router::awaitQuorum(CopyRound& round, const RouteCopies& copies, WriteQuorum quorum, const std::string& shard)
{
    std::unique_lock lock(round.mutex);
    ++round.tally.applied;
    round.tally.primaryApplied = true;
    const std::uint32_t factor = copies.replicationFactor;
    round.changed.wait(lock, [&] { return quorumDecided(quorum, factor, round.tally); });
    if (auto status = quorumOutcome(quorum, factor, round.tally, shard); !status) {
        Error error = status.error();
        for (const auto& failure : round.failures)
            error.message += "; " + failure;
        return error;
    }
    return {};
}

Result<WriteSummary> Router::writeCopies(
    const Route& lead, const std::string& address, const std::string& shard, std::vector<WriteItem> items)
{
    if (lead.copies.inSync.empty())
        return writeCopy(address, shard, items, true);
    auto shared = std::make_shared<const std::vector<WriteItem>>(std::move(items));
    auto round = replicateAll(lead.copies, shard, shared);
    auto written = writeCopy(address, shard, *shared, true);
    if (!written)
        return written; // the primary failing fails the write as before (an epoch refusal is retried)
    if (auto status = awaitQuorum(*round, lead.copies, lead.quorum, shard); !status)
        return status.error();
    std::vector<std::pair<RouteCopy, WriteSummary>> answers;
    {
        std::lock_guard lock(round->mutex);
        answers = round->answers;
    }
    if (auto status = repairCopiesHoldingTheVersion(answers, shard, *shared, *written); !status)
        return status.error();
    return written;
}

// Documents bound for one owner shard, written as one request whatever their spaces.
struct Router::WriteGroup {
    std::string address;
    std::string shard;
    std::vector<std::size_t> indexes;
};

Result<Route> Router::routeForWrite(const std::string& space, RouterWriteResult& result)
{
    if (auto status = validateSpaceId(space); !status)
        return status.error();
    auto route = resolve(space);
    if (!route) {
        auto created = createSpace(space);
        if (!created)
            return created.error();
        route = std::make_shared<const Route>(std::move(*created));
        result.createdSpaces.push_back(space);
    }
    if (route->paused)
        return makeError(
            ErrorCode::FailedPrecondition, "space " + space + " is paused; writes are refused until resumed");
    return *route;
}

Status Router::writeGroup(WriteGroup group, const std::vector<Document>& docs, std::map<std::string, Route>& routes,
    std::vector<WriteGroup>& pending, RouterWriteResult& result)
{
    for (int attempt = 0;; ++attempt) {
        std::vector<WriteItem> items;
        for (const auto index : group.indexes)
            items.push_back({ docs[index], routes.at(docs[index].space).epoch });
        // Every space of the group lives on the same shard, so any of their routes names its copies.
        const Route& lead = routes.at(docs[group.indexes.front()].space);
        auto written = writeCopies(lead, group.address, group.shard, std::move(items));
        if (written)
            return record(group, *written, docs, routes, result);
        if (!isEpochRefusal(written.error()) || attempt >= m_options.maxRetries)
            return makeError(written.error().code, written.error().message, "shard " + group.shard);
        ++result.retries;
        const std::string space = written.error().details.at("space");
        // A node ahead of the map (a cutover holding the space's writes) is answered by the map's
        // next commit for the space: wake when the watch brings it, or after the pause.
        waitForSpaceEpoch(space, heldEpoch(written.error()), m_options.retryPause * (1 << std::min(attempt, 4)));
        auto fresh = refresh(space);
        if (!fresh)
            return fresh.error();
        if (auto status = reconcileEpoch(*fresh, written.error()); !status)
            return status;
        routes[space] = *fresh;
        if (fresh->shard != group.shard) {
            // The space moved: its documents go to the new owner as a group of their own.
            WriteGroup moved { fresh->nodeAddress, fresh->shard, {} };
            std::erase_if(group.indexes, [&](std::size_t index) {
                const bool match = docs[index].space == space;
                if (match)
                    moved.indexes.push_back(index);
                return match;
            });
            pending.push_back(std::move(moved));
            if (group.indexes.empty())
                return {};
        }
    }
}

Status Router::record(const WriteGroup& group, const WriteSummary& summary, const std::vector<Document>& docs,
    const std::map<std::string, Route>& routes, RouterWriteResult& result)
{
    std::map<std::string, std::vector<WriteItem>> toTargets;
    std::vector<WriteItem> toCatchingUp;
    const Route& lead = routes.at(docs[group.indexes.front()].space);
    for (std::size_t k = 0; k < group.indexes.size() && k < summary.results.size(); ++k) {
        const std::size_t index = group.indexes[k];
        result.results[index] = summary.results[k];
        const Route& route = routes.at(docs[index].space);
        // Catching-up copies, like a migration target, get only what the primary applied.
        if (!lead.copies.catchingUp.empty() && summary.results[k].outcome == WriteOutcome::Applied)
            toCatchingUp.push_back({ docs[index], route.epoch });
        // Only what the source applied: it is authoritative. A write it found stale (an equal
        // version with another body, a replay, a re-delete) must not reach the target, where it
        // could win a race the source decided the other way (issue 14).
        if (route.migrating() && summary.results[k].outcome == WriteOutcome::Applied)
            toTargets[route.space].push_back({ docs[index], route.epoch });
    }
    result.applied += summary.applied;
    result.stale += summary.stale;
    result.rejected += summary.rejected;
    if (auto noted
        = noteCatchingUpMisses(group.shard, writeBestEffort(group.shard, lead.copies.catchingUp, toCatchingUp));
        !noted)
        return noted;
    // The source took the write: now the migration targets, whose failure is only reported.
    // (Fault tests stall here to hold a write in flight across a cutover.)
    if (!toTargets.empty()) {
        (void)failpoint("router.before_target_write");
        // Fault tests lose the targets' copies here, as when a target times out: verify repairs.
        if (!failpoint("router.target_write"))
            return {};
    }
    for (auto& [space, items] : toTargets) {
        if (auto status = writeTarget(routes.at(space), std::move(items)); !status)
            return status;
    }
    return {};
}

Result<RouterWriteResult> Router::write(const std::vector<Document>& docs)
{
    if (docs.size() > kMaxBatchItems)
        return makeError(ErrorCode::InvalidArgument,
            "batch has " + std::to_string(docs.size()) + " documents; the limit is " + std::to_string(kMaxBatchItems));
    RouterWriteResult result;
    result.results.resize(docs.size());
    std::map<std::string, Route> routes;
    std::map<std::pair<std::string, std::string>, WriteGroup> groups;
    for (std::size_t i = 0; i < docs.size(); ++i) {
        auto found = routes.find(docs[i].space);
        if (found == routes.end()) {
            auto route = routeForWrite(docs[i].space, result);
            if (!route)
                return route.error();
            found = routes.emplace(docs[i].space, std::move(*route)).first;
        }
        auto& group = groups[{ found->second.nodeAddress, found->second.shard }];
        group.address = found->second.nodeAddress;
        group.shard = found->second.shard;
        group.indexes.push_back(i);
    }
    std::vector<WriteGroup> pending;
    for (auto& [key, group] : groups)
        pending.push_back(std::move(group));
    while (!pending.empty()) {
        WriteGroup group = std::move(pending.back());
        pending.pop_back();
        if (auto status = writeGroup(std::move(group), docs, routes, pending, result); !status)
            return status.error();
    }
    return result;
}

} // namespace shardmap::core
