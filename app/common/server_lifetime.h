#pragma once

// What shardmap-node and shardmapd do around their server: --exit-with-parent and --log-level
// applied, the stop signals blocked in every thread and waited for, then a clean shutdown that
// the service manager is told about.

#include "app/common/logging.h"
#include "app/common/service_notify.h"

#include <csignal>
#include <pthread.h>
#include <spdlog/spdlog.h>
#include <string>
#include <sys/prctl.h>

namespace shardmap::app {

// The first steps after the command line: the parent's death signal and the log's level.
inline void startServerProcess(const std::string& program, bool exitWithParent, const std::string& logLevel)
{
    if (exitWithParent)
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    setupLogging(program, logLevel);
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
