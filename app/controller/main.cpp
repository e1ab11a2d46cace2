// shardmapd: wires command-line flags to a ControllerServer and serves until a stop signal.
#include "app/common/logging.h"
#include "app/common/node_tls_flags.h"
#include "app/common/server_lifetime.h"
#include "core/controller/controller_server.h"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

namespace {

std::string envOr(const char* name, std::string fallback)
{
    const char* value = std::getenv(name);
    return value && *value ? value : fallback;
}

// The flags in other units than the configuration's own, applied after the parse.
struct ExecutorFlags {
    std::int64_t leaseTtlMs = 10000;
    bool noExecutor = false;
    std::int64_t abandonedMs = 60000;
    std::int64_t archiveMs = 600000;
    std::int64_t auditRecheckMs = 600000;
};

// Where the map is, where this replica serves and how it talks TLS, to clients and to the nodes.
void addServingFlags(CLI::App& app, shardmap::core::ControllerServerConfig& config)
{
    app.add_option("--store", config.storeUri,
        "Shard map store URI: sqlite:PATH or "
        "etcd://HOST:PORT[,HOST:PORT...]/PREFIX[?user=U&password_file=F&ca=F&cert=F&key=F] (default: $SHARDMAP_STORE)");
    app.add_flag("--create-store", config.createStore,
        "Create an empty SQLite store when the --store file is missing, owned by the user shardmapd runs as "
        "(the packaged service's first start); never an etcd store");
    app.add_option("--listen", config.listen, "HOST:PORT to serve on; port 0 picks a free port")->capture_default_str();
    app.add_option("--id", config.id, "This replica's name as lease holder and audit actor (default: HOST-PID)");
    app.add_option("--tls-cert", config.tls.certFile, "PEM server certificate (enables TLS)");
    app.add_option("--tls-key", config.tls.keyFile, "PEM private key of the server certificate");
    app.add_option("--tls-ca", config.tls.caFile, "PEM CA; clients must present a certificate it signed");
    app.add_option("--tls-crl", config.tls.crlFile,
        "Certificate revocation list of the --tls-ca CA (PEM or DER): client certificates it lists are refused");
    app.add_flag("--insecure", config.insecure, "Allow a non-loopback address without TLS");
    shardmap::app::addNodeTlsFlags(app, config.nodeClient);
}

// The executor lease and the executor's clocks.
void addExecutorFlags(CLI::App& app, ExecutorFlags& flags)
{
    app.add_option("--lease-ttl-ms", flags.leaseTtlMs,
           "Executor lease time to live; renewed every third of it, a dead leader is replaced within about 4/3 of it")
        ->capture_default_str()
        ->check(CLI::Range(100, 3600000));
    app.add_flag("--no-executor", flags.noExecutor, "Only route; never run migrations (even when holding the lease)");
    app.add_option("--abandoned-queuing-ms", flags.abandonedMs,
           "An operation still queuing (its writer stopped between chunks) is finished as failed after its record "
           "has not changed for this long")
        ->capture_default_str()
        ->check(CLI::Range(1000, 86400000));
    app.add_option("--archive-after-ms", flags.archiveMs,
           "Finished migrations leave the executor's working set (to archive/migrations/, still in the map) this "
           "long after they ended")
        ->capture_default_str()
        ->check(CLI::Range(0, 604800000));
    app.add_option("--audit-recheck-ms", flags.auditRecheckMs,
           "Verify the audit's whole hash chain again this often while running (the records written since are "
           "checked every 10 s)")
        ->capture_default_str()
        ->check(CLI::Range(1000, 86400000));
}

// The Admin API's roles and tokens, and the metrics endpoint.
void addAdminFlags(CLI::App& app, shardmap::core::ControllerServerConfig& config)
{
    app.add_option("--access-policy", config.accessPolicyFile,
        "Serve the Admin API (shardmap.v1.Admin) with the roles in this JSON file, or in the store's access/policy "
        "with 'store'; re-read when it changes (docs/ACCESS.md)");
    app.add_option("--tokens", config.tokensFile,
        "Bearer-token file for the Admin API: 'IDENTITY sha256:HEX' lines, re-read when it changes");
    app.add_option("--metrics-listen", config.metricsListen,
        "HOST:PORT for Prometheus to scrape GET /metrics (plain HTTP; default: no endpoint)");
}

shardmap::core::ControllerServerConfig parseConfig(
    CLI::App& app, int argc, char** argv, bool& exitWithParent, std::string& logLevel)
{
    shardmap::core::ControllerServerConfig config;
    config.listen = "127.0.0.1:7500";
    config.storeUri = envOr("SHARDMAP_STORE", "");
    ExecutorFlags executor;
    // Later flags win, so wrappers can append overrides to a base command line.
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    app.set_version_flag("--version", std::string("shardmapd ") + SHARDMAP_VERSION);
    addServingFlags(app, config);
    addExecutorFlags(app, executor);
    addAdminFlags(app, config);
    shardmap::app::addLogLevelFlag(app, logLevel);
    app.add_flag(
        "--exit-with-parent", exitWithParent, "Exit when the parent process dies (for supervisors and the demo)");
    app.parse(argc, argv);
    config.leaseTtl = std::chrono::milliseconds(executor.leaseTtlMs);
    config.runExecutor = !executor.noExecutor;
    config.executor.abandonedQueuing = std::chrono::milliseconds(executor.abandonedMs);
    config.executor.archiveAfter = std::chrono::milliseconds(executor.archiveMs);
    config.auditRecheck = std::chrono::milliseconds(executor.auditRecheckMs);
    return config;
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app { "shardmapd: the Shardmap controller; routes application writes and searches by the shard map "
                   "and elects the one replica that runs the migration executor" };
    int exitCode = 0;
    auto config = shardmap::app::startServerProcess<shardmap::core::ControllerServerConfig>(
        "shardmapd", app, argc, argv, parseConfig, exitCode);
    if (!config)
        return exitCode;

    shardmap::app::StopSignals stopSignals;
    auto server = shardmap::core::ControllerServer::start(std::move(*config));
    if (!server) {
        spdlog::error("{}", server.error().describe());
        return 1;
    }
    std::cout << "listening on " << (*server)->address() << std::endl;
    spdlog::info("replica {} {} serving the router on {}", (*server)->id(), SHARDMAP_VERSION, (*server)->address());
    if (!(*server)->metricsAddress().empty())
        spdlog::info("metrics on http://{}/metrics", (*server)->metricsAddress());
    shardmap::app::notifyReady("replica " + (*server)->id() + " listening on " + (*server)->address());
    stopSignals.serveUntilStopped(**server);
    return 0;
}
