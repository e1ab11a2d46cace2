#pragma once

// shardmapd's server and its configuration: the store, the router, the gRPC services and the
// election of the replica that runs the migration executor.

#include "core/client/node_client.h"
#include "core/controller/admin_service.h"
#include "core/controller/router_service.h"
#include "core/metrics/metrics_http.h"
#include "core/metrics/prometheus.h"
#include "core/migration/migration_executor.h"
#include "core/node/node_server.h"
#include "core/router/router.h"
#include "core/store/audit_monitor.h"
#include "core/store/lease_names.h"
#include "core/store/metadata_store.h"
#include "core/util/log.h"
#include "core/util/result.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <grpcpp/server.h>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace grpc {
class ServerBuilder;
}

namespace shardmap::core {

// Health service name that is SERVING only on the replica holding the executor lease.
inline constexpr std::string_view kExecutorHealthService = "shardmap.v1.Controller/executor";
inline constexpr std::string_view kRouterHealthService = "shardmap.v1.Router";

struct ControllerServerConfig {
    // Store URI ("sqlite:PATH" or "etcd://HOST:PORT[,...]/PREFIX"); it must exist (`shardmapctl init`)
    // unless createStore is set.
    std::string storeUri;
    // Create an empty SQLite store when its file is missing, owned by the user shardmapd runs as
    // (the packaged service's first start). Never an etcd store: replicas share it, and a typo in
    // its prefix would start an empty map beside the real one.
    bool createStore = false;
    std::string listen = "127.0.0.1:7500";
    // This replica's name as lease holder and audit actor; empty: "<hostname>-<pid>".
    std::string id;
    TlsFiles tls;
    bool insecure = false;
    // How long the executor lease lasts without renewal; the election renews every ttl / 3, so a
    // dead leader is replaced within about ttl + ttl / 3.
    std::chrono::milliseconds leaseTtl { 10000 };
    // How the controller reaches the shard nodes (deadline, TLS).
    NodeClientOptions nodeClient;
    // Run the migration executor while leading. Off: a replica that only routes and never
    // takes part in the election.
    bool runExecutor = true;
    ExecutorOptions executor;
    // Called on the election thread after every successful acquire or renewal while this replica
    // leads, with the current grant (after the executor was handed it), for tests and tools. It
    // must return well within leaseTtl / 3, or renewals are delayed and the lease may lapse.
    std::function<void(const LeaseGrant&)> onLeaderTick;
    // Where the controller says what it does (leadership changes, store errors); empty: nowhere.
    LogSink log;
    // HOST:PORT of the Prometheus endpoint (GET /metrics); empty: none.
    std::string metricsListen;
    // While running, the audit's hash chain is checked every 10 s (the records written since and
    // the newest one verified) and verified whole again this often, so that an edit of any record
    // is noticed without a restart (docs/SHARD_MAP.md, "The audit's hash chain").
    std::chrono::milliseconds auditRecheck { 600000 };
    // The Admin API's role file (docs/ACCESS.md); empty: no shardmap.v1.Admin service.
    std::string accessPolicyFile;
    // Its bearer-token file (hashes only); empty: no tokens, client certificates only.
    std::string tokensFile;
};

// shardmapd's server: the shard-map store, a Router following the map's watch, the gRPC server
// with the shardmap.v1.Router service, health and reflection, and an executor election: a thread
// that acquires or renews the store's "executor" lease every ttl / 3, so that exactly one replica
// across the fleet leads (and runs the migration executor through onLeaderTick) and a standby
// takes over when the leader dies. shutdown() stops accepting calls, stops the election, releases
// the lease and lets calls in flight finish.
class ControllerServer final {
public:
    static Result<std::unique_ptr<ControllerServer>> start(ControllerServerConfig config);
    ~ControllerServer();
    ControllerServer(const ControllerServer&) = delete;
    ControllerServer& operator=(const ControllerServer&) = delete;

    // The address actually bound (the port resolved when 0 was asked for).
    const std::string& address() const { return m_address; }
    // Where GET /metrics answers; empty without metricsListen.
    std::string metricsAddress() const { return m_metricsHttp ? m_metricsHttp->address() : std::string(); }
    const std::string& id() const { return m_config.id; }
    // Whether this replica holds the executor lease, as of the last election tick.
    bool isLeader() const { return m_leader.load(); }
    Router& router() { return *m_router; }
    // Null when runExecutor is off.
    MigrationExecutor* executor() { return m_executor.get(); }
    void shutdown(std::chrono::milliseconds grace = std::chrono::seconds(10));

private:
    const std::string& holder();
    explicit ControllerServer(ControllerServerConfig config);
    Status openStoreAndRouter();
    Status openMapStore();
    RouterOptions routerOptions();
    Status startServer(const std::string& host);
    Status registerAdminService(grpc::ServerBuilder& builder);
    void setInitialHealth();
    void electionLoop();
    void electionTick();
    void watchdogLoop();
    void presenceLoop();
    void auditLoop();
    void onAcquired(const Result<LeaseGrant>& grant);
    void onRenewed(const Result<LeaseGrant>& renewed);
    void becomeLeader(const LeaseGrant& grant);
    void stepDown(const std::string& why);
    void releaseLease();
    void setExecutorHealth(bool serving);
    void log(LogLevel level, const std::string& message) const;
    void addMetricsCollector();
    void addCopyMetrics(MetricsWriter& out) const;
    void addSnapshotMetrics(MetricsWriter& out) const;
    void addBalancerMetrics(MetricsWriter& out) const;

    ControllerServerConfig m_config;
    // Outlives everything that records into it (router service, executor).
    std::unique_ptr<MetricsRegistry> m_metrics = std::make_unique<MetricsRegistry>();
    // Whether the router's table follows the store's watch (its health says so); declared before
    // the router so that they outlive its keeper thread, and the health before the server it is
    // registered with.
    std::atomic<bool> m_routerFollowing { true };
    ServingHealth m_health;
    std::unique_ptr<MetadataStore> m_store;
    // Checks the audit's hash chain at start, on a timer (auditLoop) and whenever the store's
    // access policy is read.
    std::unique_ptr<AuditChainMonitor> m_audit;
    std::unique_ptr<NodeClientPool> m_nodes;
    std::unique_ptr<Router> m_router;
    std::unique_ptr<MetricsHttpServer> m_metricsHttp; // stopped first, in shutdown()
    std::unique_ptr<RouterService> m_service;
    AdminAccess m_adminAccess;
    std::unique_ptr<AdminService> m_adminService;
    std::unique_ptr<MigrationExecutor> m_executor;
    std::unique_ptr<grpc::Server> m_server;
    std::string m_address;

    std::thread m_election;
    // Steps the executor down when the lease expires while the election thread is stuck in a
    // renewal the store does not answer (etcd cut off: calls wait up to retryFor, 30 s), so that
    // health never says two replicas lead.
    std::thread m_watchdog;
    // Renews this replica's presence lease; its own thread, so that a store that stalls the
    // call never delays the executor lease's renewal.
    std::thread m_presence;
    // Checks the audit while shardmapd runs; its own thread, as a check of the whole history may
    // take a while.
    std::thread m_auditWatch;
    std::atomic<std::int64_t> m_grantExpiresUnixMs { 0 };
    // Orders the watchdog's step-down against the election thread's acting on a store answer.
    std::mutex m_transitionMutex;
    std::mutex m_electionMutex;
    std::condition_variable m_electionWake;
    bool m_stopping = false;
    std::atomic<bool> m_leader { false };
    // Touched only by the election thread, and by shutdown() after it has joined it.
    std::optional<LeaseGrant> m_grant;
    // The lease holder: "<id>#<random>", one per process incarnation, so that two processes
    // started with the same --id never share a live token (issue 14).
    std::string m_holder;
    // The last reason acquiring failed, so a standby logs a change of leader once, not every tick.
    std::string m_lastStandbyReason;
    bool m_stopped = false;
};

} // namespace shardmap::core
