#include "widgets/session/fleet_connection.h"

#include "core/admin/admin_changes.h"
#include "core/admin/fleet_admin.h"
#include "core/map/map_commits.h"
#include "core/store/read_only_store.h"
#include "core/util/login_name.h"
#include "widgets/style/conversions.h"
#include "widgets/style/plan_note_text.h"

#include <QDateTime>
#include <QSet>
#include <algorithm>
#include <atomic>
#include <cctype>
#include <fstream>
#include <mutex>
#include <utility>
#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace shardmap::widgets {

namespace {

constexpr int kStaleCheckMs = 1000;
// How often a controller connection asks WhoAmI again: shardmapd reads its role file again when it
// changes, so a promotion or a demotion shows without reconnecting.
constexpr int kWhoAmIMs = 5000;
// A stream that sent nothing for this many intervals is treated as lost (a stopped process keeps
// its connection open but sends nothing).
constexpr int kStaleIntervals = 5;

// The node records of a store snapshot, without decoding the rest of it.
std::map<std::string, core::NodeRecord> nodeRecords(const core::StoreSnapshot& snapshot)
{
    std::map<std::string, core::NodeRecord> nodes;
    const std::string prefix(core::keys::kNodes);
    for (auto it = snapshot.records.lower_bound(prefix); it != snapshot.records.end() && it->first.starts_with(prefix);
         ++it) {
        if (auto node = core::decodeNode(it->second.value)) {
            nodes.emplace(node->id, std::move(*node));
        }
    }
    return nodes;
}

QString fromCore(const core::Error& error)
{
    return QString::fromStdString(error.describe());
}

} // namespace

// Where a metrics stream leaves its newest sample for the UI thread. The stream's thread puts;
// only the first put after a take posts a callback, and that callback takes the newest sample. A UI
// thread that falls behind (a long map change, a starved CPU) then skips samples instead of
// queueing every one of them, each holding a whole node's figures.
struct FleetConnection::SampleMailbox {
    std::mutex mutex;
    SamplePtr pending;
    bool posted = false;
    // When the stream last delivered (ms since epoch), read by the stale-stream check: a sample
    // waiting for a busy UI thread still shows the stream is alive.
    std::atomic<qint64> arrivedMs { 0 };
    std::atomic<std::uint64_t> skipped { 0 };

    // Returns whether the caller must post a callback that takes the sample.
    bool put(SamplePtr sample, qint64 now)
    {
        arrivedMs.store(now, std::memory_order_relaxed);
        const std::lock_guard lock(mutex);
        if (pending)
            skipped.fetch_add(1, std::memory_order_relaxed);
        pending = std::move(sample);
        return !std::exchange(posted, true);
    }

    SamplePtr take()
    {
        const std::lock_guard lock(mutex);
        posted = false;
        return std::move(pending);
    }
};

// One node's metrics stream and its reconnect state. Lives on the UI thread; the subscription's
// callbacks only post values back to the connection, tagged with the generation they belong to.
struct FleetConnection::NodeLink {
    QString id;
    std::string address;
    std::shared_ptr<core::NodeClient> client;
    std::unique_ptr<core::MetricsSubscription> subscription;
    // Grows with every (re)subscription: values of an older stream are dropped.
    std::uint64_t generation = 0;
    bool connecting = false;
    bool includeSpaces = false;
    bool reachable = false;
    QString error;
    int failures = 0;
    qint64 retryAtMs = 0;
    qint64 lastSampleMs = 0;
    qint64 subscribedAtMs = 0;
    QTimer* retry = nullptr;
    SamplePtr latest;
    std::shared_ptr<SampleMailbox> mailbox;
};

FleetConnection::FleetConnection(QObject* parent)
    : QObject(parent)
{
    m_pool.setMaxThreadCount(4);
    m_pool.setExpiryTimeout(30000);
    m_storeRetry.setSingleShot(true);
    connect(&m_storeRetry, &QTimer::timeout, this, [this] { openStore(m_generation.next()); });
    m_staleCheck.setInterval(kStaleCheckMs);
    connect(&m_staleCheck, &QTimer::timeout, this, &FleetConnection::checkStaleStreams);
    m_whoAmI.setInterval(kWhoAmIMs);
    connect(&m_whoAmI, &QTimer::timeout, this, &FleetConnection::askWhoAmI);
}

FleetConnection::~FleetConnection()
{
    close();
    m_pool.waitForDone();
}

void FleetConnection::setReconnectBackoff(int firstMs, int maxMs)
{
    m_backoffFirstMs = std::max(1, firstMs);
    m_backoffMaxMs = std::max(m_backoffFirstMs, maxMs);
}

int FleetConnection::backoffDelay(int failures) const
{
    qint64 delay = m_backoffFirstMs;
    for (int i = 1; i < failures && delay < m_backoffMaxMs; ++i) {
        delay *= 2;
    }
    return static_cast<int>(std::min<qint64>(delay, m_backoffMaxMs));
}

template <typename Handle> void FleetConnection::disposeLater(Handle handle)
{
    if (!handle) {
        return;
    }
    auto shared = std::shared_ptr<typename Handle::element_type>(std::move(handle));
    m_pool.start([shared]() mutable { shared.reset(); });
}

void FleetConnection::open(const ConnectionSpec& spec)
{
    close();
    m_spec = spec;
    m_storeFailures = 0;
    setState(State::Connecting, tr("Connecting to %1").arg(spec.endpoint()));
    openStore(m_generation.next());
}

void FleetConnection::close()
{
    m_generation.invalidate();
    m_storeRetry.stop();
    m_staleCheck.stop();
    m_whoAmI.stop();
    disposeLater(std::move(m_watch));
    m_watchStarted = false;
    m_watched.reset();
    for (const auto& link : std::as_const(m_nodes)) {
        ++link->generation;
        delete link->retry;
        disposeLater(std::move(link->subscription));
    }
    m_nodes.clear();
    m_store.reset();
    m_admin.reset();
    m_map.reset();
    m_refreshRunning = false;
    m_refreshPending = false;
    m_newestArrivalMs = 0;
    m_lastError.clear();
    if (!m_identity.isEmpty() || m_role != core::Role::None) {
        m_identity.clear();
        m_role = core::Role::None;
        emit identityChanged(m_identity, m_role);
    }
    if (m_state != State::Disconnected) {
        setState(State::Disconnected, tr("Disconnected"));
    }
}

void FleetConnection::setState(State state, const QString& detail)
{
    m_state = state;
    emit stateChanged(state, detail);
}

// What opening a connection yields: the store to read, and through a controller its client and
// who it says the console is.
struct FleetConnection::Opened {
    std::shared_ptr<core::MetadataStore> store;
    std::shared_ptr<core::AdminClient> admin;
    QString identity;
    core::Role role = core::Role::None;
};

namespace {

core::Result<std::string> readToken(const std::string& file)
{
    std::ifstream in(file);
    std::string token;
    if (!in || !std::getline(in, token))
        return core::makeError(core::ErrorCode::InvalidArgument, "cannot read the token file", file);
    while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back())))
        token.pop_back();
    return token;
}

core::Result<std::shared_ptr<core::MetadataStore>> openStoreOnly(const std::string& uri, bool readOnly)
{
    auto store = core::openStore(uri, false);
    if (!store)
        return store.error();
    // A read-only connection never writes, whatever a page asks for.
    if (readOnly)
        return std::shared_ptr<core::MetadataStore>(core::makeReadOnly(std::move(*store)));
    return std::shared_ptr<core::MetadataStore>(std::move(*store));
}

} // namespace

void FleetConnection::openStore(std::uint64_t generation)
{
    const std::string uri = m_spec.storeUriWithSecret();
    const bool readOnly = m_spec.readOnly;
    core::AdminClientOptions admin;
    admin.address = m_spec.controllerAddress.toStdString();
    admin.caFile = m_spec.controllerCaFile.toStdString();
    admin.certFile = m_spec.controllerCertFile.toStdString();
    admin.keyFile = m_spec.controllerKeyFile.toStdString();
    const std::string tokenFile = m_spec.controllerTokenFile.toStdString();
    runInBackground(
        m_pool, this,
        [uri, readOnly, admin, tokenFile]() mutable -> core::Result<Opened> {
            if (admin.address.empty()) {
                auto store = openStoreOnly(uri, readOnly);
                if (!store)
                    return store.error();
                return Opened { std::move(*store), nullptr, {}, core::Role::None };
            }
            if (!tokenFile.empty()) {
                auto token = readToken(tokenFile);
                if (!token)
                    return token.error();
                admin.token = std::move(*token);
            }
            auto client = core::AdminClient::connect(admin);
            if (!client)
                return client.error();
            std::shared_ptr<core::AdminClient> shared(std::move(*client));
            auto who = shared->whoAmI();
            if (!who)
                return who.error();
            std::unique_ptr<core::MetadataStore> store = core::makeAdminApiStore(shared);
            // The console's own read-only mode holds through a controller too: nothing is sent.
            if (readOnly)
                store = core::makeReadOnly(std::move(store));
            return Opened { std::shared_ptr<core::MetadataStore>(std::move(store)), shared,
                QString::fromStdString(who->identity()), static_cast<core::Role>(who->role()) };
        },
        [this, generation](core::Result<Opened> opened) {
            if (!opened) {
                storeFailed(generation, opened.error());
            } else {
                storeOpened(generation, std::move(*opened));
            }
        });
}

void FleetConnection::storeOpened(std::uint64_t generation, Opened opened)
{
    if (!m_generation.isCurrent(generation)) {
        return;
    }
    m_store = m_storeWrapper ? m_storeWrapper(std::move(opened.store)) : std::move(opened.store);
    m_admin = std::move(opened.admin);
    setIdentity(opened.identity, opened.role);
    if (m_admin)
        m_whoAmI.start();
    m_watchStarted = false;
    refreshMap();
}

void FleetConnection::storeFailed(std::uint64_t generation, const core::Error& error)
{
    if (!m_generation.isCurrent(generation)) {
        return; // a failure of a store this connection already left
    }
    m_generation.invalidate();
    disposeLater(std::move(m_watch));
    m_watchStarted = false;
    m_watched.reset();
    m_store.reset();
    m_refreshRunning = false;
    m_refreshPending = false;
    m_lastError = fromCore(error);
    m_lastErrorCode = error.code;
    ++m_storeFailures;
    // A user the store refuses stays refused until an administrator changes its roles: asking
    // again at the longest backoff picks that up without a reconnect, and is no retry storm.
    const bool refused = core::refusesCaller(error.code);
    const int delay = refused ? m_backoffMaxMs : backoffDelay(m_storeFailures);
    m_storeRetry.start(delay);
    const int seconds = (delay + 999) / 1000;
    const QString detail = refused
        ? tr("Not allowed to read the store: %1 — trying again in %2 s").arg(m_lastError).arg(seconds)
        : tr("Store unreachable: %1 — retrying in %2 s").arg(m_lastError).arg(seconds);
    setState(m_map ? State::Reconnecting : State::Connecting, detail);
}

void FleetConnection::refreshMap(MapPtr retired)
{
    if (!m_store || m_refreshRunning) {
        m_refreshPending = m_refreshPending || (m_store && m_refreshRunning);
        releaseOnPool(std::move(retired));
        return;
    }
    std::vector<core::AuditRecord> commits;
    if (m_watched) {
        std::lock_guard lock(m_watched->mutex);
        commits.swap(m_watched->records);
    }
    if (m_map && m_watchStarted && commits.empty()) {
        m_refreshPending = false;
        releaseOnPool(std::move(retired));
        return; // an earlier refresh took this commit already
    }
    m_refreshRunning = true;
    m_refreshPending = false;
    const std::uint64_t generation = m_generation.current();
    auto store = m_store;
    // Read while the pool decodes: only mapArrived (this thread) replaces m_map, and refreshes
    // run one at a time, so this is the map the new one is compared with.
    MapPtr previous = m_map;
    QPointer<FleetConnection> self(this);
    runInBackground(
        m_pool, this,
        [store, previous, self, generation, commits = std::move(commits),
            retired = std::move(retired)]() mutable -> core::Result<core::MapSnapshot> {
            releaseMap(retired);
            if (previous && !commits.empty()) {
                // The watched commits on top of the map shown: only what they name is decoded.
                // At a million spaces a whole read and decode is seconds per commit.
                auto applied = core::applyCommits(*previous, commits);
                if (applied) {
                    previous.reset();
                    return applied;
                }
                // A missing commit or a record that does not decode: the whole map says what is
                // true (or fails with the record's error, as it would have anyway).
            }
            auto snapshot = store->snapshot();
            if (!snapshot) {
                return snapshot.error();
            }
            if (!previous) {
                // The first map of a large fleet takes seconds to decode: the node streams need
                // only the node records, and their first samples then come with the map.
                auto nodes = std::make_shared<std::map<std::string, core::NodeRecord>>(nodeRecords(*snapshot));
                postTo(self.data(), [self, generation, nodes] {
                    if (self->m_generation.isCurrent(generation) && !self->m_map) {
                        self->syncNodes(*nodes);
                    }
                });
            }
            auto map = core::MapSnapshot::decode(std::move(*snapshot));
            if (!map) {
                return map;
            }
#ifdef __GLIBC__
            // The raw records were read on this thread and freed while other threads decoded
            // (their arenas hold the map now): a million spaces' JSON stays in this thread's
            // arena, counted in the console's RSS, unless given back.
            ::malloc_trim(0);
#endif
            // Every view asks which spaces a shard holds and what changed: answered here, once.
            map->buildIndex();
            if (previous && previous->revision != map->revision) {
                map->changes = std::make_shared<const core::MapChanges>(core::diffMaps(*previous, *map));
            }
            // Not kept to be freed by the UI thread when this job's closure goes there.
            previous.reset();
            return map;
        },
        [this, generation](core::Result<core::MapSnapshot> map) { mapArrived(generation, std::move(map)); });
}

void FleetConnection::mapArrived(std::uint64_t generation, core::Result<core::MapSnapshot> map)
{
    if (!m_generation.isCurrent(generation)) {
        return; // closed, reopened or failed meanwhile
    }
    m_refreshRunning = false;
    if (!map) {
        storeFailed(generation, map.error());
        return;
    }
    const std::uint64_t revision = map->revision;
    const bool changed = !m_map || m_map->revision != revision;
    auto arrived = std::make_shared<const core::MapSnapshot>(std::move(*map));
    // The one not shown (the old map, or a refresh that found the same revision) is freed on the
    // pool: a million spaces take the UI thread hundreds of ms to free.
    MapPtr previous = changed ? std::exchange(m_map, std::move(arrived)) : std::move(arrived);
    m_storeFailures = 0;
    m_lastError.clear();
    if (!m_watchStarted) {
        m_watchStarted = true;
        startWatch(generation, revision);
    }
    if (m_state != State::Connected) {
        setState(State::Connected, tr("Connected to %1").arg(QString::fromStdString(m_store->describe())));
        m_staleCheck.start();
    }
    if (changed) {
        std::map<std::string, core::NodeRecord> nodes;
        for (const auto& [id, node] : m_map->nodes) {
            nodes.emplace(id, node.value);
        }
        syncNodes(nodes);
        emit mapChanged(m_map);
    }
    // Every view has the new map now; freeing the old one (100k spaces: tens of ms) is pool work.
    // When a refresh waits, that refresh frees it before it copies the map, so that a million
    // spaces are never held three times (shown, old, new copy) in a burst of commits.
    if (m_refreshPending) {
        refreshMap(std::move(previous));
    } else {
        releaseOnPool(std::move(previous));
    }
}

void FleetConnection::releaseOnPool(MapPtr map)
{
    if (map) {
        m_pool.start([map = std::move(map)]() mutable { releaseMap(map); });
    }
}

void FleetConnection::releaseMap(MapPtr& map)
{
    if (!map) {
        return;
    }
    map.reset();
#ifdef __GLIBC__
    // The pool's malloc arenas keep a freed map's pages otherwise: the console's RSS would
    // count two or three maps of a million spaces instead of the one it shows.
    ::malloc_trim(0);
#endif
}

void FleetConnection::startWatch(std::uint64_t generation, std::uint64_t fromRevision)
{
    // Every commit after the snapshot is kept and marks the map dirty; refreshes are coalesced,
    // so a burst of commits costs one copy of the map with their records applied, not one each.
    // The watch opens on the pool (the store may do IO there).
    auto store = m_store;
    auto watched = std::make_shared<WatchedCommits>();
    m_watched = watched;
    QPointer<FleetConnection> self(this);
    runInBackground(
        m_pool, this,
        [store, fromRevision, self, generation, watched]() -> core::Result<std::shared_ptr<core::WatchHandle>> {
            auto handle = store->watch(
                fromRevision,
                [self, watched](const core::AuditRecord& record) {
                    {
                        std::lock_guard lock(watched->mutex);
                        watched->records.push_back(record);
                    }
                    postTo(self.data(), [self] { self->refreshMap(); });
                },
                [self, generation](const core::Error& error) {
                    postTo(self.data(), [self, generation, error] { self->storeFailed(generation, error); });
                });
            if (!handle) {
                return handle.error();
            }
            return std::shared_ptr<core::WatchHandle>(std::move(*handle));
        },
        [this, generation](core::Result<std::shared_ptr<core::WatchHandle>> handle) {
            if (!handle) {
                storeFailed(generation, handle.error());
                return;
            }
            if (!m_generation.isCurrent(generation)) {
                disposeLater(std::move(*handle)); // the connection moved on meanwhile
                return;
            }
            m_watch = std::move(*handle);
        });
}

void FleetConnection::syncNodes(const std::map<std::string, core::NodeRecord>& nodes)
{
    QSet<QString> wanted;
    for (const auto& [id, node] : nodes) {
        if (node.retired) {
            continue;
        }
        const QString nodeId = QString::fromStdString(id);
        wanted.insert(nodeId);
        auto found = m_nodes.find(nodeId);
        if (found != m_nodes.end() && (*found)->address == node.address) {
            continue;
        }
        if (found != m_nodes.end()) {
            ++(*found)->generation;
            delete (*found)->retry;
            disposeLater(std::move((*found)->subscription));
            m_nodes.erase(found);
        }
        auto link = std::make_shared<NodeLink>();
        link->id = nodeId;
        link->address = node.address;
        link->includeSpaces = m_spaceDetail.value(nodeId) > 0;
        link->retry = new QTimer(this);
        link->retry->setSingleShot(true);
        connect(link->retry, &QTimer::timeout, this, [this, nodeId] {
            if (auto it = m_nodes.find(nodeId); it != m_nodes.end()) {
                connectNode(**it);
            }
        });
        m_nodes.insert(nodeId, link);
        connectNode(*link);
    }
    for (auto it = m_nodes.begin(); it != m_nodes.end();) {
        if (wanted.contains(it.key())) {
            ++it;
            continue;
        }
        ++(*it)->generation;
        delete (*it)->retry;
        disposeLater(std::move((*it)->subscription));
        it = m_nodes.erase(it);
    }
}

void FleetConnection::connectNode(NodeLink& link)
{
    // A fresh client (and channel) per attempt: a gRPC channel that saw its server die can sit in
    // its own reconnect backoff for many seconds after the server is back.
    if (link.connecting) {
        return;
    }
    link.connecting = true;
    const std::uint64_t generation = ++link.generation;
    const std::string address = link.address;
    const core::NodeClientOptions options = m_spec.nodeOptions();
    const QString nodeId = link.id;
    runInBackground(
        m_pool, this,
        [address, options]() -> core::Result<std::shared_ptr<core::NodeClient>> {
            auto client = core::GrpcNodeClient::connect(address, options);
            if (!client) {
                return client.error();
            }
            return std::shared_ptr<core::NodeClient>(std::move(*client));
        },
        [this, nodeId, generation](core::Result<std::shared_ptr<core::NodeClient>> client) {
            auto it = m_nodes.find(nodeId);
            if (it == m_nodes.end() || (*it)->generation != generation) {
                return;
            }
            NodeLink& current = **it;
            current.connecting = false;
            if (!client) {
                nodeFailed(nodeId, generation, fromCore(client.error()));
                return;
            }
            current.client = std::move(*client);
            subscribe(current);
        });
}

void FleetConnection::subscribe(NodeLink& link)
{
    disposeLater(std::move(link.subscription));
    const std::uint64_t generation = ++link.generation;
    const QString nodeId = link.id;
    QPointer<FleetConnection> self(this);
    link.subscribedAtMs = nowMs();
    link.lastSampleMs = 0;
    auto mailbox = std::make_shared<SampleMailbox>();
    link.mailbox = mailbox;
    link.subscription = link.client->watchMetrics(
        std::chrono::milliseconds(m_spec.metricsIntervalMs), link.includeSpaces,
        [self, nodeId, generation, mailbox](const core::NodeMetricsValue& value) {
            if (!mailbox->put(std::make_shared<const core::NodeMetricsValue>(value), nowMs())) {
                return; // a posted callback will take this sample
            }
            postTo(self.data(), [self, nodeId, generation, mailbox] {
                SamplePtr sample = mailbox->take();
                auto it = self->m_nodes.find(nodeId);
                if (!sample || it == self->m_nodes.end() || (*it)->generation != generation) {
                    return;
                }
                NodeLink& current = **it;
                const qint64 now = nowMs();
                current.lastSampleMs = now;
                current.latest = sample;
                self->m_newestArrivalMs = now;
                if (!current.reachable) {
                    current.reachable = true;
                    current.failures = 0;
                    current.error.clear();
                    current.retryAtMs = 0;
                    emit self->nodeLinkChanged(nodeId, true, QString());
                }
                emit self->nodeSample(nodeId, sample);
            });
        },
        [self, nodeId, generation](const core::Status& status) {
            const QString error = status.ok() ? QString() : QString::fromStdString(status.error().describe());
            postTo(self.data(), [self, nodeId, generation, error] {
                self->nodeFailed(
                    nodeId, generation, error.isEmpty() ? FleetConnection::tr("the metrics stream ended") : error);
            });
        });
}

void FleetConnection::nodeFailed(const QString& nodeId, std::uint64_t linkGeneration, const QString& error)
{
    auto it = m_nodes.find(nodeId);
    if (it == m_nodes.end() || (*it)->generation != linkGeneration) {
        return; // an older stream, or one we ended ourselves
    }
    NodeLink& link = **it;
    ++link.generation;
    link.connecting = false;
    disposeLater(std::move(link.subscription));
    link.client.reset();
    ++link.failures;
    const int delay = backoffDelay(link.failures);
    link.retryAtMs = nowMs() + delay;
    link.retry->start(delay);
    const bool changed = link.reachable || link.error != error;
    link.reachable = false;
    link.error = error;
    if (changed) {
        emit nodeLinkChanged(nodeId, false, error);
    }
}

void FleetConnection::checkStaleStreams()
{
    const qint64 now = nowMs();
    const qint64 limit = static_cast<qint64>(m_spec.metricsIntervalMs) * kStaleIntervals + 2000;
    for (const auto& link : std::as_const(m_nodes)) {
        if (!link->subscription) {
            continue;
        }
        const qint64 arrived = std::max(link->lastSampleMs, link->mailbox ? link->mailbox->arrivedMs.load() : 0);
        const qint64 since = arrived ? arrived : link->subscribedAtMs;
        if (now - since > limit) {
            nodeFailed(link->id, link->generation, tr("no metrics for %1 s").arg((now - since) / 1000));
        }
    }
}

std::uint64_t FleetConnection::skippedSamples() const
{
    std::uint64_t skipped = 0;
    for (const auto& link : m_nodes) {
        skipped += link->mailbox ? link->mailbox->skipped.load() : 0;
    }
    return skipped;
}

SamplePtr FleetConnection::latestSample(const QString& nodeId) const
{
    auto it = m_nodes.find(nodeId);
    return it == m_nodes.end() ? nullptr : (*it)->latest;
}

FleetConnection::NodeLinkInfo FleetConnection::nodeLink(const QString& nodeId) const
{
    auto it = m_nodes.find(nodeId);
    if (it == m_nodes.end()) {
        return {};
    }
    return { (*it)->reachable, (*it)->error, (*it)->retryAtMs };
}

void FleetConnection::acquireSpaceDetail(const QString& nodeId)
{
    if (++m_spaceDetail[nodeId] != 1) {
        return;
    }
    if (auto it = m_nodes.find(nodeId); it != m_nodes.end()) {
        (*it)->includeSpaces = true;
        if ((*it)->client && (*it)->subscription) {
            subscribe(**it);
        }
    }
}

void FleetConnection::releaseSpaceDetail(const QString& nodeId)
{
    auto count = m_spaceDetail.find(nodeId);
    if (count == m_spaceDetail.end() || --(*count) > 0) {
        return;
    }
    m_spaceDetail.erase(count);
    if (auto it = m_nodes.find(nodeId); it != m_nodes.end()) {
        (*it)->includeSpaces = false;
        if ((*it)->client && (*it)->subscription) {
            subscribe(**it);
        }
    }
}

std::shared_ptr<core::NodeClient> FleetConnection::historyClient(const QString& nodeId, core::Error& why) const
{
    auto it = m_nodes.find(nodeId);
    std::shared_ptr<core::NodeClient> client = it == m_nodes.end() ? nullptr : (*it)->client;
    if (!client) {
        const QString reason = it == m_nodes.end() ? tr("node %1 is not in the map").arg(nodeId)
                                                   : tr("node %1 is unreachable: %2").arg(nodeId, (*it)->error);
        why = core::makeError(core::ErrorCode::Unavailable, reason.toStdString(), nodeId.toStdString());
    }
    return client;
}

template <typename T>
void FleetConnection::askNode(const QString& nodeId, QObject* context,
    std::function<core::Result<T>(core::NodeClient&)> ask, std::function<void(core::Result<T>)> done)
{
    core::Error why;
    auto client = historyClient(nodeId, why);
    if (!client) {
        postTo(context, [done, why] { done(why); });
        return;
    }
    runInBackground(
        m_pool, context, [client, ask = std::move(ask)] { return ask(*client); }, std::move(done));
}

void FleetConnection::fetchHistory(const QString& nodeId, qint64 sinceUnixMs, QObject* context,
    std::function<void(core::Result<core::MetricsHistoryValue>)> done)
{
    askNode<core::MetricsHistoryValue>(
        nodeId, context, [sinceUnixMs](core::NodeClient& client) { return client.metricsHistory(sinceUnixMs); },
        std::move(done));
}

void FleetConnection::fetchHistoryDigest(const QString& nodeId, qint64 sinceUnixMs, qint64 bucketMs, QObject* context,
    std::function<void(core::Result<core::HistoryDigest>)> done)
{
    askNode<core::HistoryDigest>(
        nodeId, context,
        [sinceUnixMs, bucketMs](core::NodeClient& client) -> core::Result<core::HistoryDigest> {
            auto history = client.metricsHistory(sinceUnixMs);
            if (!history) {
                return history.error();
            }
            return core::digestHistory(*history, sinceUnixMs, bucketMs);
        },
        std::move(done));
}

std::shared_ptr<core::NodeClientPool> FleetConnection::requestNodes()
{
    const QString key
        = m_spec.nodeCaFile + QLatin1Char('|') + m_spec.nodeCertFile + QLatin1Char('|') + m_spec.nodeKeyFile;
    if (!m_requestNodes || key != m_requestNodesKey) {
        m_requestNodes = std::make_shared<core::NodeClientPool>(m_spec.nodeOptions());
        m_requestNodesKey = key;
    }
    return m_requestNodes;
}

void FleetConnection::setIdentity(const QString& identity, core::Role role)
{
    if (m_identity == identity && m_role == role)
        return;
    m_identity = identity;
    m_role = role;
    emit identityChanged(m_identity, m_role);
}

void FleetConnection::askWhoAmI()
{
    if (!m_admin)
        return;
    const std::uint64_t generation = m_generation.current();
    runInBackground(
        m_pool, this, [client = m_admin] { return client->whoAmI(); },
        [this, generation](core::Result<v1::WhoAmIResponse> who) {
            // A failed call changes nothing here: the map's reads say when shardmapd is gone.
            if (who && m_generation.isCurrent(generation))
                setIdentity(QString::fromStdString(who->identity()), static_cast<core::Role>(who->role()));
        });
}

bool FleetConnection::readOnly() const
{
    return m_spec.readOnly || (m_spec.viaController() && m_role < core::Role::Operator);
}

QString FleetConnection::readOnlyReason() const
{
    if (m_spec.readOnly)
        return readOnlyRefusal();
    if (!readOnly())
        return {};
    return m_role == core::Role::None ? tr("shardmapd has not said yet who you are.") : viewerRefusal();
}

QString FleetConnection::identityText() const
{
    if (m_identity.isEmpty())
        return {};
    return tr("%1 (%2)").arg(m_identity, QString::fromLatin1(core::roleName(m_role)));
}

ChangeMaker FleetConnection::changeMaker()
{
    if (m_admin) {
        return [client = m_admin](
                   const v1::AdminChange& change, const std::string& reason) { return client->change(change, reason); };
    }
    if (!m_store)
        return {};
    return [store = m_store, nodes = requestNodes(), actor = localActorName().toStdString()](
               const v1::AdminChange& change, const std::string& reason) {
        core::FleetAdmin admin(*store, *nodes);
        return core::applyChange(admin, change, core::Actor { actor, reason });
    };
}

void FleetConnection::submitChange(
    const v1::AdminChange& change, const QString& reason, QObject* context, std::function<void(ChangeResult)> done)
{
    ChangeMaker make = changeMaker();
    if (!make) {
        postTo(context, [done] {
            done(core::makeError(core::ErrorCode::Unavailable, tr("Not connected to a fleet.").toStdString()));
        });
        return;
    }
    runInBackground(
        m_pool, context, [make, change, why = reason.toStdString()] { return make(change, why); }, std::move(done));
}

QString FleetConnection::awaitingApprovalText(const v1::ApprovalInfo& approval)
{
    return tr("Awaiting approval as %1: %2. It needs a second person because %3.")
        .arg(QString::fromStdString(approval.id()), QString::fromStdString(approval.summary()),
            QString::fromStdString(approval.needs_approval_because()));
}

QString FleetConnection::refusalText(const core::Error& error)
{
    // shardmapd's refusal is a sentence for people ("bob is an operator; ..."): shown as it is.
    if (error.code == core::ErrorCode::PermissionDenied || error.code == core::ErrorCode::Unauthenticated)
        return QString::fromStdString(error.message);
    // A refusal of the planner or the preflight made of notes says when it can run, in the
    // console's language and local time.
    return translatedError(error);
}

QString FleetConnection::localActorName()
{
    const std::string user = core::loginName();
    return (user.empty() ? QStringLiteral("console") : QString::fromStdString(user)) + QStringLiteral("@console");
}

} // namespace shardmap::widgets
