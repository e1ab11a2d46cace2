#pragma once

// The shard node's server: its configuration, the TLS and listen-address rules shardmapd shares,
// and the running server (shards, sampler, gRPC).

#include "core/metrics/metrics_http.h"
#include "core/metrics/prometheus.h"
#include "core/node/node_metrics.h"
#include "core/node/node_service.h"
#include "core/node/serving_health.h"
#include "core/node/shard_registry.h"
#include "core/util/fs.h"
#include "core/util/log.h"
#include "core/util/result.h"

#include <chrono>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>
#include <memory>
#include <optional>
#include <string>

namespace shardmap::core {

struct TlsFiles {
    std::string certFile;
    std::string keyFile;
    // When set, clients must present a certificate signed by this CA.
    std::string caFile;
    // Certificate revocation lists (PEM or DER) of the CAs in caFile: a client certificate they
    // list is refused in the handshake. Read at start; needs caFile.
    std::string crlFile;
    // With caFile: a client may also connect without a certificate (one it presents is still
    // verified against caFile and crlFile), for a server that authenticates such callers
    // otherwise (shardmapd's bearer tokens) and refuses them when they do not.
    bool clientCertificateOptional = false;
    bool enabled() const { return !certFile.empty(); }
};

struct NodeServerConfig {
    std::string listen = "127.0.0.1:7400";
    std::string dataDir = "./shardmap-node-data";
    std::string nodeId;
    TlsFiles tls;
    bool insecure = false;
    // Identities (peerCertificateIdentity) of the controllers: with client certificates required
    // (tls.caFile), only they may change shards, ownership and documents; empty: every client
    // with a certificate the CA signed may. Needs tls.caFile.
    std::vector<std::string> controllerIdentities;
    ShardStoreOptions storeOptions;
    std::uint64_t minFreeBytes = 64ull * 1024 * 1024;
    std::chrono::milliseconds metricsTick { 1000 };
    std::chrono::milliseconds historyInterval { 10000 };
    std::size_t historyCapacity = 8640;
    // Refused calls and the node's own failures (NodeService).
    LogSink log;
    // HOST:PORT of the Prometheus endpoint (GET /metrics); empty: none.
    std::string metricsListen;
    // WatchMetrics streams one peer (client address) may hold at once; more are refused.
    std::size_t maxWatchStreamsPerPeer = 32;
};

// Insecure credentials when tls is not enabled; TLS, requiring client certificates signed by
// tls.caFile (and not revoked by tls.crlFile) when it is set (requesting them only, with
// tls.clientCertificateOptional), otherwise. Errors name the file
// that could not be read or is wrong.
Result<std::shared_ptr<grpc::ServerCredentials>> makeServerCredentials(const TlsFiles& tls);

// True for 127.0.0.0/8, ::1 and "localhost".
bool isLoopbackHost(std::string_view host);
// The one rule for an address off loopback (docs/NODE.md, "Who may call what"): the node must know
// its callers there, so it needs TLS with client certificates (tls.caFile); plaintext or server-only
// TLS lets any client that reaches the port create and drop shards, set ownership and write.
// FailedPrecondition saying so and how, unless config.insecure says the network is trusted.
Status checkListenAccess(const NodeServerConfig& config, std::string_view host);
// What the node says at warn when --insecure let it serve off loopback without client
// certificates; empty when it does not.
std::string openAccessWarning(const NodeServerConfig& config);
// Splits "host:port" / "[v6]:port"; InvalidArgument when malformed.
Result<std::pair<std::string, int>> splitHostPort(std::string_view address);

// A running shard node: the registry of shards, the metrics sampler and the gRPC server with the
// Node, health and reflection services. shutdown() stops accepting, lets calls in flight finish,
// then checkpoints every shard.
class NodeServer final {
public:
    static Result<std::unique_ptr<NodeServer>> start(const NodeServerConfig& config);
    ~NodeServer();
    NodeServer(const NodeServer&) = delete;
    NodeServer& operator=(const NodeServer&) = delete;

    // The address actually bound (the port resolved when 0 was asked for).
    const std::string& address() const { return m_address; }
    // Shards that failed to open at start, with their errors.
    const std::vector<std::string>& failedShards() const { return m_failedShards; }
    // Where GET /metrics answers; empty without --metrics-listen.
    std::string metricsAddress() const { return m_metricsHttp ? m_metricsHttp->address() : std::string(); }
    void shutdown(std::chrono::milliseconds grace = std::chrono::seconds(10));

private:
    NodeServer() = default;
    Status openDataDir(const NodeServerConfig& config, std::vector<IdentityPattern> controllers);
    Status listen(const NodeServerConfig& config, const std::shared_ptr<grpc::ServerCredentials>& credentials,
        const std::string& host);
    void startServing();

    std::optional<DirectoryLock> m_lock;
    std::unique_ptr<ShardRegistry> m_registry;
    std::unique_ptr<NodeMetricsSampler> m_metrics;
    std::unique_ptr<MetricsRegistry> m_metricsRegistry;
    std::unique_ptr<NodeService> m_service;
    std::unique_ptr<MetricsHttpServer> m_metricsHttp;
    ServingHealth m_health; // registered with m_server, so it outlives it
    std::unique_ptr<grpc::Server> m_server;
    std::string m_address;
    std::vector<std::string> m_failedShards;
    bool m_stopped = false;
};

} // namespace shardmap::core
