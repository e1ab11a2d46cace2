// shardmap-node: wires command-line flags to a NodeServer and serves until a stop signal.
#include "app/common/logging.h"
#include "app/common/server_lifetime.h"
#include "core/node/node_server.h"
#include "core/util/index_engine.h"

#include <CLI/CLI.hpp>
#include <iostream>

namespace {

// The flags in other units than the configuration's own, applied after the parse.
struct StorageAndClockFlags {
    std::uint64_t shardMaxBytes = 0;
    std::string sync = "normal";
    std::string defaultEngine = shardmap::core::indexEngineName(shardmap::core::IndexEngine::Fts5);
    std::int64_t tickMs = 1000;
    std::int64_t historyMs = 10000;
    std::int64_t searchBudgetMs = 5000;
};

// Where the node serves, its name, its TLS and who may change it.
void addServingFlags(CLI::App& app, shardmap::core::NodeServerConfig& config)
{
    app.add_option("--listen", config.listen, "HOST:PORT to serve on; port 0 picks a free port")->capture_default_str();
    app.add_option("--data-dir", config.dataDir, "Directory holding the shard files")->capture_default_str();
    app.add_option("--node-id", config.nodeId, "Name this node reports (default: the host name)");
    app.add_option("--tls-cert", config.tls.certFile, "PEM server certificate (enables TLS)");
    app.add_option("--tls-key", config.tls.keyFile, "PEM private key of the server certificate");
    app.add_option("--tls-ca", config.tls.caFile, "PEM CA; clients must present a certificate it signed");
    app.add_option("--tls-crl", config.tls.crlFile,
        "Certificate revocation list of the --tls-ca CA (PEM or DER): client certificates it lists are refused");
    app.add_option("--controller-identity", config.controllerIdentities,
           "With --tls-ca: a client certificate identity allowed to change shards, ownership and documents, typed: "
           "scheme://... or uri:VALUE (URI SAN), dns:NAME (DNS SAN), cn:NAME or a bare NAME (subject CN); repeat for "
           "several. Default: any certificate the CA signed")
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    app.add_flag("--insecure", config.insecure,
        "Allow a non-loopback address without TLS, or with TLS but without client certificates (--tls-ca)");
}

// How large the shard files grow, how they sync, and how long one search may run on them.
void addStorageFlags(CLI::App& app, shardmap::core::NodeServerConfig& config, StorageAndClockFlags& flags)
{
    app.add_option("--shard-max-bytes", flags.shardMaxBytes, "Largest a shard file may grow (0: unlimited)");
    app.add_option(
           "--min-free-bytes", config.minFreeBytes, "Free space the node keeps in reserve; writes are refused below it")
        ->capture_default_str();
    app.add_option(
           "--sync", flags.sync, "SQLite synchronous mode: normal (survives a process crash) or full (also power loss)")
        ->check(CLI::IsMember({ "normal", "full" }))
        ->capture_default_str();
    app.add_option("--search-budget-ms", flags.searchBudgetMs,
           "Longest one search may run on a shard before it is stopped with RESOURCE_EXHAUSTED (0: no limit)")
        ->capture_default_str()
        ->check(CLI::Range(0, 600000));
    app.add_option("--default-engine", flags.defaultEngine,
           "Index engine of a shard a CreateShard names none for: fts5 or xapian (the fleet's setting names one for "
           "every shard the control plane creates)")
        ->envname("SHARDMAP_NODE_DEFAULT_ENGINE")
        ->check([](const std::string& name) {
            auto engine = shardmap::core::parseIndexEngine(name);
            return engine ? std::string() : engine.error().message;
        })
        ->capture_default_str();
}

// The metrics: sampling, history, streams and the Prometheus endpoint.
void addMetricsFlags(CLI::App& app, shardmap::core::NodeServerConfig& config, StorageAndClockFlags& flags)
{
    app.add_option("--metrics-tick-ms", flags.tickMs, "How often current metrics are sampled")
        ->capture_default_str()
        ->check(CLI::Range(100, 600000));
    app.add_option("--history-interval-ms", flags.historyMs, "Interval of the metrics history samples")
        ->capture_default_str()
        ->check(CLI::Range(100, 3600000));
    app.add_option("--history-samples", config.historyCapacity, "Samples the metrics history keeps")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000000));
    app.add_option("--max-watch-streams-per-peer", config.maxWatchStreamsPerPeer,
           "WatchMetrics streams one client address may hold at once; more are refused (RESOURCE_EXHAUSTED)")
        ->capture_default_str()
        ->check(CLI::Range(1, 100000));
    app.add_option("--metrics-listen", config.metricsListen,
        "HOST:PORT for Prometheus to scrape GET /metrics (plain HTTP; default: no endpoint)");
}

shardmap::core::NodeServerConfig parseConfig(
    CLI::App& app, int argc, char** argv, bool& exitWithParent, std::string& logLevel)
{
    shardmap::core::NodeServerConfig config;
    StorageAndClockFlags flags;
    // Later flags win, so wrappers can append overrides to a base command line.
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    app.set_version_flag("--version", std::string("shardmap-node ") + SHARDMAP_VERSION);
    addServingFlags(app, config);
    addStorageFlags(app, config, flags);
    addMetricsFlags(app, config, flags);
    shardmap::app::addLogLevelFlag(app, logLevel);
    app.add_flag(
        "--exit-with-parent", exitWithParent, "Exit when the parent process dies (for supervisors and the demo)");
    app.parse(argc, argv);
    config.storeOptions.maxBytes = flags.shardMaxBytes;
    config.storeOptions.syncFull = flags.sync == "full";
    config.storeOptions.searchBudget = std::chrono::milliseconds(flags.searchBudgetMs);
    config.storeOptions.engine = *shardmap::core::parseIndexEngine(flags.defaultEngine);
    config.metricsTick = std::chrono::milliseconds(flags.tickMs);
    config.historyInterval = std::chrono::milliseconds(flags.historyMs);
    return config;
}

// The lines a started node logs: where it serves, failed shards, and who may change it.
void logStarted(const shardmap::core::NodeServer& server, const shardmap::core::NodeServerConfig& config)
{
    for (const auto& failed : server.failedShards())
        spdlog::error("shard {} failed to open and is marked failed", failed);
    std::cout << "listening on " << server.address() << std::endl;
    spdlog::info("version {} serving on {} from {}", SHARDMAP_VERSION, server.address(), config.dataDir);
    if (const auto open = shardmap::core::openAccessWarning(config); !open.empty())
        spdlog::warn("{}", open);
    if (!config.controllerIdentities.empty()) {
        std::string controllers;
        for (const auto& identity : config.controllerIdentities)
            controllers += (controllers.empty() ? "" : ", ") + identity;
        spdlog::info("only controllers may change shards, ownership and documents: {}", controllers);
    } else if (!config.tls.caFile.empty()) {
        // docs/NODE.md, "Who may change a node".
        spdlog::warn("no --controller-identity: every client certificate --tls-ca signed may change shards, "
                     "ownership and documents, not only shardmapd's; list the controllers' identities with "
                     "--controller-identity so that routers, consoles and readers only read");
    }
    if (!server.metricsAddress().empty())
        spdlog::info("metrics on http://{}/metrics", server.metricsAddress());
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app { "shardmap-node: a gRPC server hosting SQLite FTS5 search shards" };
    int exitCode = 0;
    auto config = shardmap::app::startServerProcess<shardmap::core::NodeServerConfig>(
        "shardmap-node", app, argc, argv, parseConfig, exitCode);
    if (!config)
        return exitCode;

    shardmap::app::StopSignals stopSignals;
    auto server = shardmap::core::NodeServer::start(*config);
    if (!server) {
        spdlog::error("{}", server.error().describe());
        return 1;
    }
    logStarted(**server, *config);
    shardmap::app::notifyReady("listening on " + (*server)->address());
    stopSignals.serveUntilStopped(**server);
    return 0;
}
