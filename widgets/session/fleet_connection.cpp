// FleetConnection's implementation: opening the store or shardmapd's Admin API on the pool,
// reconnecting after a failure with backoff, and wiring its parts (map, node streams, changes,
// access) to each other and to its own signals.
#include "widgets/session/fleet_connection.h"

#include "core/store/read_only_store.h"

#include <cctype>
#include <fstream>
#include <utility>

namespace shardmap::widgets {

namespace {

core::Result<std::string> readControllerToken(const std::string& file)
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

core::AdminClientOptions adminOptions(const ConnectionSpec& spec)
{
    core::AdminClientOptions admin;
    admin.address = spec.controllerAddress.toStdString();
    admin.caFile = spec.controllerCaFile.toStdString();
    admin.certFile = spec.controllerCertFile.toStdString();
    admin.keyFile = spec.controllerKeyFile.toStdString();
    return admin;
}

} // namespace

// What opening a connection yields: the store to read, and through a controller its client and
// who it says the console is.
struct FleetConnection::Opened {
    std::shared_ptr<core::MetadataStore> store;
    std::shared_ptr<core::AdminClient> admin;
    QString identity;
    core::Role role = core::Role::None;
};

core::Result<FleetConnection::Opened> FleetConnection::openThroughController(
    core::AdminClientOptions admin, const std::string& tokenFile, bool readOnly)
{
    if (!tokenFile.empty()) {
        auto token = readControllerToken(tokenFile);
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
}

FleetConnection::FleetConnection(QObject* parent)
    : QObject(parent)
    , m_follower(m_pool, m_generation)
    , m_streams(m_pool, m_backoff)
    , m_changes(m_pool)
    , m_access(m_pool, m_generation)
{
    m_pool.setMaxThreadCount(4);
    m_pool.setExpiryTimeout(30000);
    m_storeRetry.setSingleShot(true);
    connect(&m_storeRetry, &QTimer::timeout, this, [this] { openStore(m_generation.next()); });
    connect(&m_follower, &MapFollower::nodesListed, &m_streams, &NodeStreams::sync);
    connect(&m_follower, &MapFollower::mapArrived, this, &FleetConnection::mapArrived);
    connect(&m_follower, &MapFollower::failed, this, &FleetConnection::storeFailed);
    connect(&m_streams, &NodeStreams::nodeSample, this, &FleetConnection::nodeSample);
    connect(&m_streams, &NodeStreams::nodeLinkChanged, this, &FleetConnection::nodeLinkChanged);
    connect(&m_access, &SessionAccess::identityChanged, this, &FleetConnection::identityChanged);
}

FleetConnection::~FleetConnection()
{
    close();
    m_pool.waitForDone();
}

void FleetConnection::setReconnectBackoff(int firstMs, int maxMs)
{
    m_backoff.set(firstMs, maxMs);
}

void FleetConnection::open(const ConnectionSpec& spec)
{
    close();
    m_spec = spec;
    m_streams.setStreamOptions(m_spec.nodeOptions(), m_spec.metricsIntervalMs);
    m_access.setConnection(m_spec.readOnly, m_spec.viaController());
    m_storeFailures = 0;
    setState(State::Connecting, tr("Connecting to %1").arg(spec.endpoint()));
    openStore(m_generation.next());
}

void FleetConnection::close()
{
    m_generation.invalidate();
    m_storeRetry.stop();
    m_follower.clear();
    m_streams.close();
    m_store.reset();
    m_admin.reset();
    routeChanges();
    m_lastError.clear();
    m_access.clear();
    if (m_state != State::Disconnected) {
        setState(State::Disconnected, tr("Disconnected"));
    }
}

void FleetConnection::setState(State state, const QString& detail)
{
    m_state = state;
    emit stateChanged(state, detail);
}

void FleetConnection::openStore(std::uint64_t generation)
{
    const std::string uri = m_spec.storeUriWithSecret();
    const bool readOnly = m_spec.readOnly;
    const core::AdminClientOptions admin = adminOptions(m_spec);
    const std::string tokenFile = m_spec.controllerTokenFile.toStdString();
    runInBackground(
        m_pool, this,
        [uri, readOnly, admin, tokenFile]() -> core::Result<Opened> {
            if (!admin.address.empty())
                return openThroughController(admin, tokenFile, readOnly);
            auto store = openStoreOnly(uri, readOnly);
            if (!store)
                return store.error();
            return Opened { std::move(*store), nullptr, {}, core::Role::None };
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
    routeChanges();
    m_access.start(m_admin, opened.identity, opened.role);
    m_follower.follow(m_store);
}

void FleetConnection::storeFailed(std::uint64_t generation, const core::Error& error)
{
    if (!m_generation.isCurrent(generation)) {
        return; // a failure of a store this connection already left
    }
    m_generation.invalidate();
    m_follower.stop();
    m_store.reset();
    routeChanges();
    m_lastError = QString::fromStdString(error.describe());
    m_lastErrorCode = error.code;
    ++m_storeFailures;
    // A user the store refuses stays refused until an administrator changes its roles: asking
    // again at the longest backoff picks that up without a reconnect, and is no retry storm.
    const bool refused = core::refusesCaller(error.code);
    const int delay = refused ? m_backoff.maxMs : m_backoff.delayMs(m_storeFailures);
    m_storeRetry.start(delay);
    const int seconds = (delay + 999) / 1000;
    const QString detail = refused
        ? tr("Not allowed to read the store: %1 — trying again in %2 s").arg(m_lastError).arg(seconds)
        : tr("Store unreachable: %1 — retrying in %2 s").arg(m_lastError).arg(seconds);
    setState(map() ? State::Reconnecting : State::Connecting, detail);
}

void FleetConnection::mapArrived(bool changed)
{
    m_storeFailures = 0;
    m_lastError.clear();
    if (m_state != State::Connected) {
        setState(State::Connected, tr("Connected to %1").arg(QString::fromStdString(m_store->describe())));
        m_streams.startStaleCheck();
    }
    if (changed) {
        const MapPtr current = map();
        NodeRecords nodes;
        for (const auto& [id, node] : current->nodes) {
            nodes.emplace(id, node.value);
        }
        m_streams.sync(nodes);
        emit mapChanged(current);
    }
}

void FleetConnection::routeChanges()
{
    m_changes.setTarget(m_store, m_admin, m_store ? requestNodes() : nullptr);
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

} // namespace shardmap::widgets
