#pragma once

// What shardmap-node and shardmapd do around their server: the command line (flags and --config
// file) parsed, --exit-with-parent and --log-level applied, the stop signals blocked in every
// thread and waited for, then a clean shutdown that the service manager is told about.

#include "app/common/config_file.h"
#include "app/common/logging.h"
#include "app/common/service_notify.h"

#include <CLI/CLI.hpp>
#include <csignal>
#include <iostream>
#include <optional>
#include <pthread.h>
#include <spdlog/spdlog.h>
#include <string>
#include <sys/prctl.h>

namespace shardmap::app {

// The server's configuration from parse(app, argc, argv, exitWithParent, logLevel) after the
// --config flag, with the parent's death signal, the log's level and config.log set. nullopt when
// the command line was refused or asked for --help or --version: exitCode says how to exit.
template <typename Config, typename Parse>
std::optional<Config> startServerProcess(
    const std::string& program, CLI::App& app, int argc, char** argv, Parse parse, int& exitCode)
{
    bool exitWithParent = false;
    std::string logLevel = "info";
    ConfigFile configFile;
    configFile.addTo(app);
    Config config;
    try {
        config = parse(app, argc, argv, exitWithParent, logLevel);
    } catch (const CLI::ParseError& error) {
        exitCode = configFile.report(error, argc, argv, std::cerr);
        return std::nullopt;
    }
    if (exitWithParent)
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    setupLogging(program, logLevel);
    config.log = logSink();
    return config;
}

// SIGTERM and SIGINT, blocked from construction in this thread and every thread started after it
// (gRPC's and the election's inherit the mask), so that only wait() receives them.
class StopSignals {
public:
    StopSignals()
    {
        sigemptyset(&m_signals);
        sigaddset(&m_signals, SIGTERM);
        sigaddset(&m_signals, SIGINT);
        pthread_sigmask(SIG_BLOCK, &m_signals, nullptr);
    }

    // Waits for a stop signal, then lets the server finish its calls in flight.
    template <typename Server> void serveUntilStopped(Server& server)
    {
        int received = 0;
        sigwait(&m_signals, &received);
        spdlog::info("received {}, finishing calls in flight", received == SIGTERM ? "SIGTERM" : "SIGINT");
        notifyStopping("finishing calls in flight");
        server.shutdown();
        spdlog::info("stopped cleanly");
    }

private:
    sigset_t m_signals;
};

} // namespace shardmap::app
