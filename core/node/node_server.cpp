#include "core/node/node_server.h"

// NodeServer's implementation: the server's credentials (CRLs through gRPC's TLS options), the
// listen address's rules, the node's Prometheus collector, and start and shutdown.

#include "core/metrics/process_metrics.h"
#include "core/node/crl_directory.h"
#include "core/node/unparsed_request_interceptor.h"
#include "core/util/clock.h"
#include "core/util/validation.h"

#include <algorithm>
#include <fstream>
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_credentials_options.h>
#include <grpcpp/server_builder.h>
#include <mutex>
#include <sstream>
#include <unistd.h>

namespace shardmap::core {

namespace {

Result<std::string> readFile(const std::string& path, std::string_view what)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return makeError(ErrorCode::NotFound, "cannot read " + std::string(what), path);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

std::string defaultNodeId()
{
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    return std::string(host);
}

} // namespace

namespace {

// gRPC 1.51 checks revocation only through TlsServerCredentials and a CRL directory it reads
// during handshakes, so the directory lives as long as the process.
grpc_ssl_client_certificate_request_type clientCertificateRequest(const TlsFiles& tls)
{
    return tls.clientCertificateOptional ? GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY
                                         : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
}

Result<std::shared_ptr<grpc::ServerCredentials>> credentialsWithCrl(const std::string& cert, const std::string& key,
    const std::string& ca, const std::string& crlFile, grpc_ssl_client_certificate_request_type request)
{
    auto crls = CrlDirectory::fromFile(crlFile, ca);
    if (!crls)
        return crls.error();
    static std::mutex mutex;
    static std::vector<std::shared_ptr<CrlDirectory>> kept;
    {
        const std::lock_guard lock(mutex);
        kept.push_back(*crls);
    }
    auto provider = std::make_shared<grpc::experimental::StaticDataCertificateProvider>(
        ca, std::vector<grpc::experimental::IdentityKeyCertPair> { { key, cert } });
    grpc::experimental::TlsServerCredentialsOptions options(provider);
    options.watch_root_certs();
    options.watch_identity_key_cert_pairs();
    options.set_cert_request_type(request);
    options.set_crl_directory((*crls)->path());
    return grpc::experimental::TlsServerCredentials(options);
}

} // namespace

Result<std::shared_ptr<grpc::ServerCredentials>> makeServerCredentials(const TlsFiles& tls)
{
    if (!tls.enabled())
        return grpc::InsecureServerCredentials();
    if (tls.keyFile.empty())
        return makeError(ErrorCode::InvalidArgument, "--tls-cert needs --tls-key");
    if (!tls.crlFile.empty() && tls.caFile.empty())
        return makeError(ErrorCode::InvalidArgument,
            "--tls-crl needs --tls-ca (revocation lists apply to the client certificates that CA signs)");
    auto cert = readFile(tls.certFile, "TLS certificate");
    auto key = readFile(tls.keyFile, "TLS key");
    if (!cert || !key)
        return !cert ? cert.error() : key.error();
    if (tls.caFile.empty()) {
        grpc::SslServerCredentialsOptions options;
        options.pem_key_cert_pairs.push_back({ *key, *cert });
        return grpc::SslServerCredentials(options);
    }
    auto ca = readFile(tls.caFile, "TLS client CA");
    if (!ca)
        return ca.error();
    if (!tls.crlFile.empty())
        return credentialsWithCrl(*cert, *key, *ca, tls.crlFile, clientCertificateRequest(tls));
    grpc::SslServerCredentialsOptions options;
    options.pem_key_cert_pairs.push_back({ *key, *cert });
    options.pem_root_certs = *ca;
    options.client_certificate_request = clientCertificateRequest(tls);
    return grpc::SslServerCredentials(options);
}

bool isLoopbackHost(std::string_view host)
{
    if (host == "localhost" || host == "::1" || host == "[::1]")
        return true;
    return host.starts_with("127.") && host.find_first_not_of("0123456789.") == std::string_view::npos;
}

Status checkListenAccess(const NodeServerConfig& config, std::string_view host)
{
    if (isLoopbackHost(host) || config.insecure || !config.tls.caFile.empty())
        return {};
    if (!config.tls.enabled())
        return makeError(ErrorCode::FailedPrecondition,
            "refusing to listen on non-loopback address " + config.listen
                + " without TLS; pass --tls-cert/--tls-key, or --insecure if the network is trusted");
    return makeError(ErrorCode::FailedPrecondition,
        "refusing to listen on non-loopback address " + config.listen
            + " with TLS but without client certificates: any client that reaches it could create and drop "
              "shards, set ownership and write; pass --tls-ca (and --controller-identity), or --insecure if the "
              "network is trusted");
}

std::string openAccessWarning(const NodeServerConfig& config)
{
    auto hostPort = splitHostPort(config.listen);
    if (!hostPort || isLoopbackHost(hostPort->first) || !config.tls.caFile.empty())
        return {};
    return std::string("--insecure: serving ")
        + (config.tls.enabled() ? "TLS without client certificates" : "plaintext") + " on " + config.listen
        + ", so any client that reaches it may create and drop shards, set ownership and write; pass --tls-ca and "
          "--controller-identity unless only trusted hosts can reach this network";
}

Result<std::pair<std::string, int>> splitHostPort(std::string_view address)
{
    const auto colon = address.rfind(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == address.size())
        return makeError(ErrorCode::InvalidArgument, "address '" + std::string(address) + "' is not HOST:PORT");
    std::string host(address.substr(0, colon));
    const std::string portText(address.substr(colon + 1));
    if (portText.find_first_not_of("0123456789") != std::string::npos || portText.size() > 5)
        return makeError(ErrorCode::InvalidArgument, "port '" + portText + "' is not a number");
    const int port = std::stoi(portText);
    if (port > 65535)
        return makeError(ErrorCode::InvalidArgument, "port " + portText + " is above 65535");
    if (host.size() > 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    return std::pair { host, port };
}

namespace {

using ShardValues = std::vector<std::pair<std::string, double>>;

void writeNodeGauge(MetricsWriter& out, const std::string& name, const std::string& help, double value)
{
    out.family(name, "gauge", help);
    out.sample(name, {}, value);
}

void writePerShard(
    MetricsWriter& out, const std::string& name, const char* type, const std::string& help, const ShardValues& values)
{
    out.family(name, type, help);
    for (const auto& [shard, value] : values)
        out.sample(name, { { "shard", shard } }, value);
}

// The process's and the data directory's gauges from the sampler's last tick.
void writeNodeGauges(MetricsWriter& out, const v1::NodeMetrics& now)
{
    writeNodeGauge(
        out, "shardmap_node_rss_bytes", "Resident memory of the node process", static_cast<double>(now.rss_bytes()));
    writeNodeGauge(out, "shardmap_node_sqlite_memory_bytes", "Memory SQLite holds",
        static_cast<double>(now.sqlite_memory_bytes()));
    writeNodeGauge(out, "shardmap_node_disk_free_bytes", "Free space on the data directory's file system",
        static_cast<double>(now.disk_free_bytes()));
    writeNodeGauge(out, "shardmap_node_disk_total_bytes", "Size of the data directory's file system",
        static_cast<double>(now.disk_total_bytes()));
    writeNodeGauge(
        out, "shardmap_node_cpu_percent", "CPU the node used over the last tick (100 = one core)", now.cpu_percent());
    writeNodeGauge(out, "shardmap_node_io_read_bytes_per_second",
        "Bytes read from storage per second over the last tick", now.io_read_bytes_per_second());
    writeNodeGauge(out, "shardmap_node_io_write_bytes_per_second",
        "Bytes written to storage per second over the last tick", now.io_write_bytes_per_second());
    writeNodeGauge(out, "shardmap_node_iowait_percent", "System iowait over the last tick", now.iowait_percent());
}

// Per shard, what the sampler's last tick counted.
void writeShardGauges(MetricsWriter& out, const v1::NodeMetrics& now)
{
    ShardValues docs;
    ShardValues bytes;
    ShardValues spaces;
    for (const auto& shard : now.shards()) {
        docs.emplace_back(shard.shard_id(), static_cast<double>(shard.live_docs()));
        bytes.emplace_back(shard.shard_id(), static_cast<double>(shard.bytes_on_disk()));
        spaces.emplace_back(shard.shard_id(), static_cast<double>(shard.spaces()));
    }
    writePerShard(out, "shardmap_node_shard_docs", "gauge", "Live documents per shard", docs);
    writePerShard(out, "shardmap_node_shard_bytes", "gauge", "Bytes on disk per shard", bytes);
    writePerShard(out, "shardmap_node_shard_spaces", "gauge", "Spaces per shard", spaces);
}

// Per shard, whether it is open, and its store's cumulative counters, read now.
void writeShardActivity(MetricsWriter& out, const ShardRegistry& shards)
{
    ShardValues healthy;
    ShardValues searches;
    ShardValues writes;
    ShardValues indexed;
    for (const auto& entry : shards.list()) {
        healthy.emplace_back(entry.id, entry.store ? 1 : 0);
        if (!entry.store)
            continue;
        const auto counts = entry.store->activity();
        searches.emplace_back(entry.id, static_cast<double>(counts.queries));
        writes.emplace_back(entry.id, static_cast<double>(counts.writesApplied));
        indexed.emplace_back(entry.id, static_cast<double>(counts.docsIndexed));
    }
    writePerShard(
        out, "shardmap_node_shard_healthy", "gauge", "1 when the shard is open and healthy, 0 when it failed", healthy);
    writePerShard(out, "shardmap_node_searches_total", "counter", "Searches answered per shard", searches);
    writePerShard(out, "shardmap_node_writes_applied_total", "counter", "Document writes applied per shard", writes);
    writePerShard(out, "shardmap_node_docs_indexed_total", "counter", "Documents indexed per shard", indexed);
}

// Per open shard, what it is made with as labels on a constant 1 (the info-metric idiom: join on
// shard to break any per-shard figure down by engine).
void writeShardInfo(MetricsWriter& out, const ShardRegistry& shards)
{
    out.family("shardmap_node_shard_info", "gauge", "1 per open shard, labelled with its index engine");
    for (const auto& entry : shards.list()) {
        if (entry.store)
            out.sample("shardmap_node_shard_info",
                { { "shard", entry.id }, { "engine", indexEngineName(entry.store->engine()) } }, 1);
    }
}

// What the node's sampler and shard stores know, read at each scrape: the process and disk
// gauges, per shard its documents, bytes and health, and the cumulative counters of its stores.
void addNodeCollector(MetricsRegistry& registry, const NodeMetricsSampler& sampler, const ShardRegistry& shards)
{
    registry.addCollector([&sampler, &shards](MetricsWriter& out) {
        const auto now = sampler.current(false);
        writeNodeGauges(out, now);
        writeShardGauges(out, now);
        writeShardActivity(out, shards);
        writeShardInfo(out, shards);
    });
}

} // namespace

namespace {

// --controller-identity values, typed (core/auth/peer_identity.h): a CN never passes for a URI SAN.
Result<std::vector<IdentityPattern>> controllerPatterns(const NodeServerConfig& config)
{
    if (!config.controllerIdentities.empty() && config.tls.caFile.empty())
        return makeError(ErrorCode::InvalidArgument,
            "--controller-identity needs --tls-ca: the identities are read from client certificates that CA "
            "signed");
    // An empty identity would admit a certificate that names nobody.
    if (std::find(config.controllerIdentities.begin(), config.controllerIdentities.end(), std::string())
        != config.controllerIdentities.end())
        return makeError(ErrorCode::InvalidArgument, "--controller-identity must not be empty");
    std::vector<IdentityPattern> patterns;
    for (const std::string& identity : config.controllerIdentities) {
        auto pattern = IdentityPattern::parse(identity);
        if (!pattern)
            return makeError(ErrorCode::InvalidArgument, "--controller-identity: " + pattern.error().message);
        patterns.push_back(std::move(*pattern));
    }
    return patterns;
}

// The builder's limits: requests up to kMaxRequestBytes, unparsable requests as INVALID_ARGUMENT,
// and the clients' keepalive pings.
void configureNodeBuilder(grpc::ServerBuilder& builder)
{
    // A request gRPC cannot parse is the caller's fault: INVALID_ARGUMENT, as shardmapd says.
    std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
    interceptors.push_back(unparsedRequestInterceptorFactory());
    builder.experimental().SetInterceptorCreators(std::move(interceptors));
    builder.SetMaxReceiveMessageSize(static_cast<int>(kMaxRequestBytes + 1024 * 1024));
    builder.SetMaxSendMessageSize(static_cast<int>(kMaxRequestBytes + 1024 * 1024));
    // Clients ping every few seconds to find a node that stopped answering (NodeClientOptions);
    // accept that rather than answering with GOAWAY "too_many_pings".
    builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 500);
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
    builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
}

} // namespace

Result<std::unique_ptr<NodeServer>> NodeServer::start(const NodeServerConfig& config)
{
    auto hostPort = splitHostPort(config.listen);
    if (!hostPort)
        return hostPort.error();
    if (auto status = checkListenAccess(config, hostPort->first); !status)
        return status.error();
    auto controllers = controllerPatterns(config);
    if (!controllers)
        return controllers.error();
    auto credentials = makeServerCredentials(config.tls);
    if (!credentials)
        return credentials.error();
    if (auto status = ensureDirectory(config.dataDir); !status)
        return status.error();

    std::unique_ptr<NodeServer> server(new NodeServer());
    if (auto status = server->openDataDir(config, std::move(*controllers)); !status)
        return status.error();
    if (auto status = server->listen(config, *credentials, hostPort->first); !status)
        return status.error();
    server->startServing();
    return server;
}

// Locks the data directory, opens its shards, and sets up the sampler, the service and the
// metrics (with their HTTP endpoint when asked for).
Status NodeServer::openDataDir(const NodeServerConfig& config, std::vector<IdentityPattern> controllers)
{
    auto lock = DirectoryLock::acquire(config.dataDir);
    if (!lock)
        return lock.error();
    m_lock.emplace(std::move(*lock));
    const std::string nodeId = config.nodeId.empty() ? defaultNodeId() : config.nodeId;
    ShardStoreOptions storeOptions = config.storeOptions;
    if (!storeOptions.log)
        storeOptions.log = config.log;
    m_registry = std::make_unique<ShardRegistry>(
        ShardRegistry::Options { config.dataDir, std::move(storeOptions), config.minFreeBytes });
    m_failedShards = m_registry->openAll();
    m_metrics = std::make_unique<NodeMetricsSampler>(
        NodeMetricsSampler::Options { nodeId, config.metricsTick, config.historyInterval, config.historyCapacity },
        *m_registry);
    m_metricsRegistry = std::make_unique<MetricsRegistry>();
    m_service
        = std::make_unique<NodeService>(NodeService::Info { nodeId, SHARDMAP_VERSION, config.listen, nowUnixMs() },
            *m_registry, *m_metrics, config.log, m_metricsRegistry.get(), config.maxWatchStreamsPerPeer);
    m_service->restrictChangesTo(std::move(controllers));
    addNodeCollector(*m_metricsRegistry, *m_metrics, *m_registry);
    addProcessCollector(*m_metricsRegistry, "shardmap_node");
    if (!config.metricsListen.empty()) {
        auto http = MetricsHttpServer::start(config.metricsListen, *m_metricsRegistry);
        if (!http)
            return http.error();
        m_metricsHttp = std::move(*http);
    }
    return {};
}

// Builds and starts the gRPC server with the Node, health and reflection services; the address
// it bound becomes the node's address.
Status NodeServer::listen(const NodeServerConfig& config, const std::shared_ptr<grpc::ServerCredentials>& credentials,
    const std::string& host)
{
    grpc::reflection::InitProtoReflectionServerBuilderPlugin();
    grpc::ServerBuilder builder;
    int boundPort = 0;
    builder.AddListeningPort(config.listen, credentials, &boundPort);
    builder.RegisterService(m_service.get());
    builder.RegisterService(&m_health);
    m_service->attachWatchers(builder);
    configureNodeBuilder(builder);
    m_server = builder.BuildAndStart();
    if (!m_server || boundPort == 0)
        return makeError(ErrorCode::Unavailable, "cannot listen on " + config.listen + " (address in use or invalid?)");
    const bool v6 = host.find(':') != std::string::npos;
    m_address = (v6 ? "[" + host + "]" : host) + ":" + std::to_string(boundPort);
    m_service->setListenAddress(m_address);
    return {};
}

// Health says serving (per shard: whether it opened), and the sampler starts ticking.
void NodeServer::startServing()
{
    m_health.set("", true);
    m_health.set("shardmap.v1.Node", true);
    for (const auto& entry : m_registry->list())
        m_health.set("shardmap.v1.Node/shard/" + entry.id, entry.store != nullptr);
    m_service->startWatchers();
    m_metrics->start();
}

NodeServer::~NodeServer()
{
    shutdown();
}

void NodeServer::shutdown(std::chrono::milliseconds grace)
{
    if (m_stopped)
        return;
    m_stopped = true;
    if (m_server) {
        m_health.shutdown();
        m_service->beginShutdown();
        // Calls in flight finish (or are cancelled at the deadline). With idle clients connected,
        // gRPC's graceful GOAWAY waits for their ping ack, which can take a few seconds.
        m_server->Shutdown(std::chrono::system_clock::now() + grace);
        m_server->Wait();
        m_service->closeWatchers();
    }
    if (m_metricsHttp)
        m_metricsHttp->stop();
    if (m_metrics)
        m_metrics->stop();
    if (m_registry) {
        m_registry->checkpointAll();
        m_registry->closeAll();
    }
}

} // namespace shardmap::core
