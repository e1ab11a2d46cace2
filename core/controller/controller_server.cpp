#include "core/controller/controller_server.h"

// ControllerServer's implementation: the configuration's checks, the store, router and gRPC server
// it starts, the executor lease's election and watchdog, presence, the audit's checks and metrics.

#include "core/auth/stored_access_policy.h"
#include "core/metrics/process_metrics.h"
#include "core/node/unparsed_request_interceptor.h"
#include "core/store/store_uri.h"
#include "core/util/clock.h"
#include "core/util/validation.h"

#include <filesystem>
#include <fstream>
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_builder.h>
#include <random>
#include <sstream>
#include <unistd.h>

namespace shardmap::core {

namespace {

constexpr std::chrono::milliseconds kMinLeaseTtl { 100 };

std::string defaultControllerId()
{
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    return std::string(host) + "-" + std::to_string(::getpid());
}

Status checkConfig(const ControllerServerConfig& config, const std::string& host)
{
    if (config.storeUri.empty())
        return makeError(ErrorCode::InvalidArgument,
            "no shard map store given; pass --store URI or set SHARDMAP_STORE (e.g. sqlite:/var/lib/shardmapd/map.db, "
            "the packaged path)");
    if (config.createStore && !sqliteStorePath(config.storeUri))
        return makeError(ErrorCode::InvalidArgument,
            "--create-store creates SQLite stores only; create the store " + config.storeUri
                + " once with `shardmapctl --store URI init`");
    if (config.leaseTtl < kMinLeaseTtl)
        return makeError(ErrorCode::InvalidArgument,
            "lease TTL is " + std::to_string(config.leaseTtl.count()) + " ms; it must be at least "
                + std::to_string(kMinLeaseTtl.count()) + " ms");
    if (!isLoopbackHost(host) && !config.tls.enabled() && !config.insecure)
        return makeError(ErrorCode::FailedPrecondition,
            "refusing to listen on non-loopback address " + config.listen
                + " without TLS; pass --tls-cert/--tls-key, or --insecure if the network is trusted");
    // A bearer token stands for its identity to whoever reads it: never in plaintext across a
    // network, --insecure or not (docs/ACCESS.md).
    if (!config.tokensFile.empty() && !config.tls.enabled() && !isLoopbackHost(host))
        return makeError(ErrorCode::FailedPrecondition,
            "--tokens needs TLS on " + config.listen
                + ": a bearer token sent in plaintext can be read and replayed by anyone on the way; pass "
                  "--tls-cert/--tls-key (tokens without TLS only on a loopback address)");
    return checkNodeClientTls(config.nodeClient);
}

void configureControllerBuilder(grpc::ServerBuilder& builder)
{
    std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
    interceptors.push_back(unparsedRequestInterceptorFactory());
    builder.experimental().SetInterceptorCreators(std::move(interceptors));
    // Write requests carry up to kMaxBatchItems documents, as the node's do.
    builder.SetMaxReceiveMessageSize(static_cast<int>(kMaxRequestBytes + 1024 * 1024));
    builder.SetMaxSendMessageSize(static_cast<int>(kMaxRequestBytes + 1024 * 1024));
}

} // namespace

ControllerServer::ControllerServer(ControllerServerConfig config)
    : m_config(std::move(config))
{
}

Result<std::unique_ptr<ControllerServer>> ControllerServer::start(ControllerServerConfig config)
{
    auto hostPort = splitHostPort(config.listen);
    if (!hostPort)
        return hostPort.error();
    if (auto status = checkConfig(config, hostPort->first); !status)
        return status.error();
    if (config.id.empty())
        config.id = defaultControllerId();

    std::unique_ptr<ControllerServer> server(new ControllerServer(std::move(config)));
    if (auto status = server->openStoreAndRouter(); !status)
        return status.error();
    if (auto status = server->startServer(hostPort->first); !status)
        return status.error();
    server->addMetricsCollector();
    if (!server->m_config.metricsListen.empty()) {
        auto http = MetricsHttpServer::start(server->m_config.metricsListen, *server->m_metrics);
        if (!http)
            return http.error();
        server->m_metricsHttp = std::move(*http);
    }
    // Last, so that a replica that failed to start never holds the lease. A replica that only
    // routes never competes for it: holding it would keep the executor from running anywhere.
    (void)server->holder(); // made once, before the threads that read it start
    if (server->m_config.runExecutor) {
        server->m_election = std::thread([raw = server.get()] { raw->electionLoop(); });
        server->m_watchdog = std::thread([raw = server.get()] { raw->watchdogLoop(); });
    }
    server->m_presence = std::thread([raw = server.get()] { raw->presenceLoop(); });
    server->m_auditWatch = std::thread([raw = server.get()] { raw->auditLoop(); });
    return server;
}

Status ControllerServer::openStoreAndRouter()
{
    if (auto status = openMapStore(); !status)
        return status;
    m_nodes = std::make_unique<NodeClientPool>(m_config.nodeClient);
    auto router = Router::start(*m_store, *m_nodes, routerOptions());
    if (!router)
        return router.error();
    m_router = std::move(*router);
    m_service = std::make_unique<RouterService>(*m_router, m_metrics.get());
    if (m_config.runExecutor) {
        ExecutorOptions executor = m_config.executor;
        executor.actor = "shardmapd/" + m_config.id;
        executor.log = m_config.log;
        executor.metrics = m_metrics.get();
        m_executor = std::make_unique<MigrationExecutor>(*m_store, *m_nodes, std::move(executor));
    }
    return {};
}

// Opens the store (creating an SQLite one only with --create-store) and checks its audit.
Status ControllerServer::openMapStore()
{
    // Only with --create-store: a typo in --store must not start an empty map beside the real
    // one. A missing file says to run `shardmapctl init`.
    const auto path = sqliteStorePath(m_config.storeUri);
    const bool creating = m_config.createStore && path && !std::filesystem::exists(*path);
    auto store = openStore(m_config.storeUri, m_config.createStore);
    if (!store) {
        auto error = store.error();
        if (error.code == ErrorCode::NotFound && path)
            error.message += "; or let shardmapd create an empty one: --create-store (create-store = true in its "
                             "configuration file)";
        return error;
    }
    if (creating)
        log(LogLevel::Info, "created an empty shard map at " + *path + " (--create-store)");
    m_store = std::move(*store);
    // The whole audit is verified before anything is served; a break is logged and raised in
    // the metrics, and shardmapd serves on (docs/SHARD_MAP.md, "The audit's hash chain").
    m_audit = std::make_unique<AuditChainMonitor>(*m_store, std::set<std::string> { std::string(kAccessPolicyKey) },
        [this](LogLevel level, const std::string& message) { log(level, "audit: " + message); });
    if (auto status = m_audit->check(); !status)
        log(LogLevel::Warn, "cannot check the audit's hash chain: " + status.error().describe());
    return {};
}

// The router follows the map's changes; its health follows its watch, and a failed dual write
// is logged.
RouterOptions ControllerServer::routerOptions()
{
    RouterOptions options;
    options.actor = "shardmapd/" + m_config.id;
    options.followChanges = true;
    options.onFollowing = [this](bool following, const std::string& why) {
        m_routerFollowing = following;
        log(following ? LogLevel::Info : LogLevel::Warn,
            following ? "router: " + why
                      : "router: the map watch ended (" + why + "); watching again, NOT_SERVING meanwhile");
        m_health.set(std::string(kRouterHealthService), following);
    };
    options.onTargetFailure = [this](const TargetWriteFailure& failure) {
        // The write stands on the source; verify and the cutover's comparison find and repair
        // what the target missed.
        log(LogLevel::Warn,
            "dual write to migration target " + failure.targetShard + " of " + failure.space
                + " failed: " + failure.error.describe());
    };
    options.onCopyFailure = [this](const CopyWriteFailure& failure) {
        log(LogLevel::Warn,
            std::string(failure.inSync ? "in-sync" : "catching-up") + " copy of shard " + failure.shard + " on node "
                + failure.node + " missed a write: " + failure.error.describe());
    };
    options.metrics = m_metrics.get();
    return options;
}

Status ControllerServer::startServer(const std::string& host)
{
    // With tokens, a client certificate is asked for but not required, so that certificates and
    // tokens share one port; a caller with neither is refused by every service that needs to
    // know who calls (the Admin API, the Router with an access policy): UNAUTHENTICATED.
    TlsFiles tls = m_config.tls;
    tls.clientCertificateOptional = !m_config.tokensFile.empty() && !m_config.accessPolicyFile.empty();
    auto credentials = makeServerCredentials(tls);
    if (!credentials)
        return credentials.error();
    grpc::reflection::InitProtoReflectionServerBuilderPlugin();
    grpc::ServerBuilder builder;
    int boundPort = 0;
    builder.AddListeningPort(m_config.listen, *credentials, &boundPort);
    builder.RegisterService(m_service.get());
    builder.RegisterService(&m_health);
    if (auto status = registerAdminService(builder); !status)
        return status;
    configureControllerBuilder(builder);
    m_server = builder.BuildAndStart();
    if (!m_server || boundPort == 0)
        return makeError(
            ErrorCode::Unavailable, "cannot listen on " + m_config.listen + " (address in use or invalid?)");
    const bool v6 = host.find(':') != std::string::npos;
    m_address = (v6 ? "[" + host + "]" : host) + ":" + std::to_string(boundPort);
    setInitialHealth();
    return {};
}

// With --access-policy: the Admin API, and roles for the Router's callers too.
Status ControllerServer::registerAdminService(grpc::ServerBuilder& builder)
{
    if (m_config.accessPolicyFile.empty()) {
        if (!m_config.tokensFile.empty())
            return makeError(
                ErrorCode::InvalidArgument, "--tokens needs --access-policy (the roles the tokens' identities have)");
        return {};
    }
    auto access = AdminAccess::load(m_config.accessPolicyFile, m_config.tokensFile, *m_store, *m_audit,
        [this](LogLevel level, const std::string& message) { log(level, "admin: " + message); });
    if (!access)
        return access.error();
    m_adminAccess = std::move(*access);
    m_adminService = std::make_unique<AdminService>(*m_store, *m_nodes, m_adminAccess,
        [this](LogLevel level, const std::string& message) { log(level, "admin: " + message); });
    builder.RegisterService(m_adminService.get());
    // Applications write and search by role too (docs/ACCESS.md, "Applications").
    m_service->requireRoles(&m_adminAccess);
    return {};
}

void ControllerServer::setInitialHealth()
{
    m_health.set("", true);
    m_health.set(std::string(kRouterHealthService), m_routerFollowing.load());
    // Registered from the start so that a standby answers NOT_SERVING rather than NOT_FOUND.
    m_health.set(std::string(kExecutorHealthService), false);
}

ControllerServer::~ControllerServer()
{
    shutdown();
}

void ControllerServer::shutdown(std::chrono::milliseconds grace)
{
    if (m_stopped)
        return;
    m_stopped = true;
    if (m_metricsHttp)
        m_metricsHttp->stop();
    m_health.shutdown(); // every name NOT_SERVING from here on
    {
        std::lock_guard lock(m_electionMutex);
        m_stopping = true;
    }
    m_electionWake.notify_all();
    if (m_election.joinable()) {
        m_election.join();
        m_watchdog.join();
    }
    if (m_presence.joinable())
        m_presence.join();
    if (m_auditWatch.joinable())
        m_auditWatch.join();
    // No migration step may run once the lease is given back.
    m_executor.reset();
    // The lease goes back before the calls in flight are drained: those are router calls, which
    // do not need it, and gRPC's graceful stop can take seconds with idle clients connected; a
    // standby should not wait that long (or a whole TTL) to take over the executor.
    releaseLease();
    if (m_server) {
        m_server->Shutdown(std::chrono::system_clock::now() + grace);
        m_server->Wait();
    }
}

void ControllerServer::electionLoop()
{
    const auto interval = m_config.leaseTtl / 3;
    std::unique_lock lock(m_electionMutex);
    while (!m_stopping) {
        lock.unlock();
        electionTick();
        lock.lock();
        m_electionWake.wait_for(lock, interval, [this] { return m_stopping; });
    }
}

void ControllerServer::electionTick()
{
    // The store calls wait without the transition lock (the watchdog may need it meanwhile);
    // what follows from their answer happens under it.
    std::optional<Result<LeaseGrant>> renewed;
    std::optional<Result<LeaseGrant>> acquired;
    if (m_grant)
        renewed = m_store->renewLease(*m_grant, m_config.leaseTtl);
    else
        acquired = m_store->acquireLease(std::string(kExecutorLease), holder(), m_config.leaseTtl);
    std::lock_guard transition(m_transitionMutex);
    if (renewed)
        onRenewed(*renewed);
    else
        onAcquired(*acquired);
    if (m_grant) {
        m_grantExpiresUnixMs = m_grant->expiresUnixMs;
        if (!m_leader.exchange(true)) {
            // Renewed after the watchdog had stepped the executor down.
            setExecutorHealth(true);
            log(LogLevel::Info,
                "renewed the executor lease (token " + std::to_string(m_grant->token) + "); leading again");
        }
    }
    if (m_grant && m_executor)
        m_executor->lead(*m_grant);
    if (m_grant && m_config.onLeaderTick)
        m_config.onLeaderTick(*m_grant);
}

void ControllerServer::presenceLoop()
{
    const auto interval = m_config.leaseTtl / 3;
    const std::string name = std::string(kReplicaLeasePrefix) + holder();
    std::optional<LeaseGrant> grant;
    std::string lastError;
    std::unique_lock lock(m_electionMutex);
    while (!m_stopping) {
        lock.unlock();
        auto held = m_store->acquireLease(name, m_address, m_config.leaseTtl);
        if (held) {
            grant = *held;
            lastError.clear();
        } else if (held.error().describe() != lastError) {
            lastError = held.error().describe();
            log(LogLevel::Warn, "could not renew this replica's presence lease: " + lastError);
        }
        lock.lock();
        m_electionWake.wait_for(lock, interval, [this] { return m_stopping; });
    }
    lock.unlock();
    if (grant)
        (void)m_store->releaseLease(*grant);
}

void ControllerServer::auditLoop()
{
    constexpr std::chrono::milliseconds kCheckEvery { 10000 };
    const auto interval = std::min(kCheckEvery, m_config.auditRecheck);
    auto wholeDue = std::chrono::steady_clock::now() + m_config.auditRecheck;
    std::string lastError;
    std::unique_lock lock(m_electionMutex);
    // A break stays reported until a restart: once one is found, there is nothing more to say.
    while (!m_stopping && !m_audit->broken()) {
        m_electionWake.wait_for(lock, interval, [this] { return m_stopping; });
        if (m_stopping)
            break;
        lock.unlock();
        const bool whole = std::chrono::steady_clock::now() >= wholeDue;
        if (whole)
            wholeDue = std::chrono::steady_clock::now() + m_config.auditRecheck;
        const auto checked = whole ? m_audit->checkWhole() : m_audit->check();
        if (!checked && checked.error().describe() != lastError) {
            lastError = checked.error().describe();
            log(LogLevel::Warn, "cannot check the audit's hash chain: " + lastError);
        } else if (checked) {
            lastError.clear();
        }
        lock.lock();
    }
}

void ControllerServer::watchdogLoop()
{
    const auto interval = std::max(std::chrono::milliseconds(10), m_config.leaseTtl / 10);
    std::unique_lock lock(m_electionMutex);
    while (!m_stopping) {
        m_electionWake.wait_for(lock, interval, [this] { return m_stopping; });
        if (m_stopping || !m_leader || nowUnixMs() < m_grantExpiresUnixMs.load())
            continue;
        lock.unlock();
        {
            // The lease is over and the election thread has not said so: it waits on the store.
            std::lock_guard transition(m_transitionMutex);
            if (m_leader && nowUnixMs() >= m_grantExpiresUnixMs.load()) {
                m_leader = false;
                setExecutorHealth(false);
                if (m_executor)
                    m_executor->stepDown();
                log(LogLevel::Warn, "stepping down: the executor lease expired while renewing it waited on the store");
            }
        }
        lock.lock();
    }
}

const std::string& ControllerServer::holder()
{
    if (m_holder.empty()) {
        std::random_device random;
        char suffix[17];
        std::snprintf(suffix, sizeof suffix, "%08x%08x", random(), random());
        m_holder = m_config.id + "#" + suffix;
    }
    return m_holder;
}

void ControllerServer::onAcquired(const Result<LeaseGrant>& grant)
{
    if (grant) {
        becomeLeader(*grant);
        return;
    }
    // Log a standby's state when it changes (another leader, the store failing), not every tick.
    const auto& error = grant.error();
    const auto holder = error.details.find("holder");
    const std::string reason = error.code == ErrorCode::FailedPrecondition && holder != error.details.end()
        ? "standing by: the executor lease is held by '" + holder->second + "'"
        : "cannot acquire the executor lease: " + error.describe();
    if (reason != m_lastStandbyReason)
        log(error.code == ErrorCode::FailedPrecondition ? LogLevel::Info : LogLevel::Warn, reason);
    m_lastStandbyReason = reason;
}

void ControllerServer::onRenewed(const Result<LeaseGrant>& renewed)
{
    m_metrics
        ->counter("shardmapd_lease_renewals_total", "Renewals of the executor lease by this replica, by result",
            { { "result",
                renewed ? "ok" : (renewed.error().code == ErrorCode::FailedPrecondition ? "lost" : "error") } })
        .add();
    if (renewed) {
        m_grant = *renewed;
        return;
    }
    const auto& error = renewed.error();
    if (error.code == ErrorCode::FailedPrecondition) {
        stepDown("lost the executor lease: " + error.describe());
        return;
    }
    // The store did not answer; the lease stands until it expires, so keep leading and retrying
    // unless it would expire before the next tick, when a standby may already take it.
    if (nowUnixMs() + (m_config.leaseTtl / 3).count() >= m_grant->expiresUnixMs) {
        stepDown("stepping down: could not renew the executor lease before it expires: " + error.describe());
        return;
    }
    log(LogLevel::Warn, "cannot renew the executor lease, retrying: " + error.describe());
}

void ControllerServer::addMetricsCollector()
{
    addProcessCollector(*m_metrics, "shardmapd");
    m_metrics->addCollector([this](MetricsWriter& out) {
        out.family("shardmapd_leader", "gauge", "1 while this replica holds the executor lease");
        out.sample("shardmapd_leader", {}, m_leader.load() ? 1 : 0);
        out.family("shardmapd_router_following", "gauge", "1 while the router follows the map's watch");
        out.sample("shardmapd_router_following", {}, m_routerFollowing.load() ? 1 : 0);
        out.family("shardmapd_audit_chain_broken", "gauge",
            "1 once the audit's hash chain was found broken (the error log names the first broken revision)");
        out.sample("shardmapd_audit_chain_broken", {}, m_audit && m_audit->broken() ? 1 : 0);
        out.family("shardmapd_audit_unaudited_record", "gauge",
            "1 for each checked record the store holds that is not what the audit wrote (it is not taken)");
        for (const auto& key : m_audit ? m_audit->unauditedKeys() : std::vector<std::string> {})
            out.sample("shardmapd_audit_unaudited_record", { { "key", key } }, 1);
        out.family("shardmapd_map_revision", "gauge", "The map revision the router has applied");
        out.sample("shardmapd_map_revision", {}, m_router ? static_cast<double>(m_router->revision()) : 0);
        // The leader's working set; a standby reports none.
        out.family("shardmapd_migrations", "gauge", "Migrations in the executor's working set by phase (leader only)");
        if (m_executor && m_leader.load()) {
            for (const auto& [phase, count] : m_executor->migrationsByPhase())
                out.sample("shardmapd_migrations", { { "phase", phase } }, static_cast<double>(count));
        }
        addCopyMetrics(out);
        addSnapshotMetrics(out);
        addBalancerMetrics(out);
    });
}

// The last usable snapshot (issue 32) as the leader's snapshot thread last read the map; a standby
// reports none. The alert ShardmapSnapshotTooOld (packaging/prometheus/alerts.yml) compares its age
// with the schedule's interval.
void ControllerServer::addSnapshotMetrics(MetricsWriter& out) const
{
    out.family(
        "shardmapd_snapshot_interval_seconds", "gauge", "The snapshot schedule's interval, 0: none (leader only)");
    out.family("shardmapd_snapshots_usable", "gauge", "Complete or verified snapshots in the map (leader only)");
    out.family("shardmapd_snapshot_last_good_age_seconds", "gauge",
        "Seconds since the newest usable snapshot finished (leader only; absent without one)");
    out.family("shardmapd_snapshot_last_good_duration_seconds", "gauge", "How long the newest usable snapshot took");
    out.family("shardmapd_snapshot_last_good_bytes", "gauge", "Bytes of the files the newest usable snapshot names");
    if (!m_executor || !m_leader.load())
        return;
    const auto figures = m_executor->snapshotFigures();
    out.sample("shardmapd_snapshot_interval_seconds", {}, static_cast<double>(figures.intervalSeconds));
    out.sample("shardmapd_snapshots_usable", {}, static_cast<double>(figures.usable));
    if (!figures.anyUsable)
        return;
    out.sample("shardmapd_snapshot_last_good_age_seconds", {},
        static_cast<double>(nowUnixMs() - figures.lastGoodFinishedUnixMs) / 1000.0);
    out.sample(
        "shardmapd_snapshot_last_good_duration_seconds", {}, static_cast<double>(figures.lastGoodDurationMs) / 1000.0);
    out.sample("shardmapd_snapshot_last_good_bytes", {}, static_cast<double>(figures.lastGoodBytes));
}

// The balancer's rounds in this process (issue 33): evaluations, decisions by outcome, and the
// budget its window has spent as the last round recorded it. A standby reports its own rounds
// (none, unless it led before).
void ControllerServer::addBalancerMetrics(MetricsWriter& out) const
{
    out.family(
        "shardmapd_balancer_evaluations_total", "counter", "Evaluations of the balancer's policy by this process");
    out.family("shardmapd_balancer_decisions_total", "counter",
        "The balancer's decisions by outcome (acted, proposed, dry-run, skipped)");
    out.family("shardmapd_balancer_budget_spent", "gauge",
        "What the balancer's current window has spent: moves, bytes, work_hours (as its last round recorded)");
    if (!m_executor)
        return;
    const auto figures = m_executor->balancerFigures();
    out.sample("shardmapd_balancer_evaluations_total", {}, static_cast<double>(figures.evaluations));
    for (const char* outcome : { "acted", "proposed", "dry-run", "skipped" }) {
        const auto found = figures.decisions.find(outcome);
        out.sample("shardmapd_balancer_decisions_total", { { "outcome", outcome } },
            found == figures.decisions.end() ? 0.0 : static_cast<double>(found->second));
    }
    out.sample("shardmapd_balancer_budget_spent", { { "unit", "moves" } }, static_cast<double>(figures.spent.moves));
    out.sample("shardmapd_balancer_budget_spent", { { "unit", "bytes" } }, static_cast<double>(figures.spent.bytes));
    out.sample("shardmapd_balancer_budget_spent", { { "unit", "work_hours" } }, figures.spent.workHours);
}

// The shards' copies as the leader's last scheduling round listed them (issue 30); a standby
// reports none.
void ControllerServer::addCopyMetrics(MetricsWriter& out) const
{
    out.family("shardmapd_shard_replicas", "gauge", "Replicas of the map's shards by state (leader only)");
    out.family("shardmapd_replica_lag_documents", "gauge",
        "Documents a catching-up replica has yet to copy from its primary, per shard and node (leader only)");
    if (!m_executor || !m_leader.load())
        return;
    const auto figures = m_executor->copyFigures();
    for (const auto& [state, count] : figures.byState)
        out.sample("shardmapd_shard_replicas", { { "state", state } }, static_cast<double>(count));
    for (const auto& [copy, behind] : figures.behind)
        out.sample("shardmapd_replica_lag_documents", { { "shard", copy.first }, { "node", copy.second } },
            static_cast<double>(behind));
}

void ControllerServer::becomeLeader(const LeaseGrant& grant)
{
    m_grant = grant;
    m_leader = true;
    m_lastStandbyReason.clear();
    setExecutorHealth(true);
    log(LogLevel::Info, "holds the executor lease (token " + std::to_string(grant.token) + "); leading");
}

void ControllerServer::stepDown(const std::string& why)
{
    if (m_executor)
        m_executor->stepDown();
    m_grant.reset();
    m_leader = false;
    setExecutorHealth(false);
    log(LogLevel::Warn, why);
}

void ControllerServer::releaseLease()
{
    if (!m_grant)
        return;
    if (auto status = m_store->releaseLease(*m_grant); !status)
        log(LogLevel::Warn,
            "could not release the executor lease (it expires by itself): " + status.error().describe());
    else
        log(LogLevel::Info, "released the executor lease (token " + std::to_string(m_grant->token) + ")");
    m_grant.reset();
    m_leader = false;
}

void ControllerServer::setExecutorHealth(bool serving)
{
    m_health.set(std::string(kExecutorHealthService), serving);
}

void ControllerServer::log(LogLevel level, const std::string& message) const
{
    if (m_config.log)
        m_config.log(level, message);
}

} // namespace shardmap::core
