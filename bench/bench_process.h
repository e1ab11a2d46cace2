#pragma once

// A server the end-to-end benches start: a real shardmap-node or shardmapd binary run with
// "--listen 127.0.0.1:0", which prints "listening on HOST:PORT" on stdout once it serves.
//
// Why this exists: migration_bench, split_latency_bench, node_e2e_bench and router_benchmarks each
// carried their own launcher
// (posix_spawn, a stdout pipe, a stderr log, the address line, /proc CPU time, a graceful stop).
// Tests and benches have one process launcher, tests/support/process.h's ChildProcess; this class
// only adds on top of it what those benches need from a server: wait for its address, read its
// CPU time, and stop it gracefully (the node checkpoints its shards on SIGTERM).
//
// Errors throw std::runtime_error, as the benches (standalone programs that catch in main) expect.

#include "tests/support/process.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shardmap::bench {

class ServerProcess final {
public:
    // Starts command (command[0]: the binary's path, e.g. a node, or /usr/bin/taskset in front of
    // one) with stdout on a pipe and stderr in logPath (truncated first), and waits up to timeout
    // for its "listening on HOST:PORT" line. Throws if it cannot start or reports no address; the
    // message carries the tail of logPath.
    static std::unique_ptr<ServerProcess> start(const std::vector<std::string>& command, const std::string& logPath,
        std::chrono::milliseconds timeout = std::chrono::seconds(30));

    // Stops the process (stop()) if it still runs.
    ~ServerProcess();
    ServerProcess(const ServerProcess&) = delete;
    ServerProcess& operator=(const ServerProcess&) = delete;
    ServerProcess(ServerProcess&&) = delete;
    ServerProcess& operator=(ServerProcess&&) = delete;

    // HOST:PORT from the "listening on" line.
    const std::string& address() const { return m_address; }
    // User + system CPU the process has used so far (/proc/PID/stat); 0 once stopped.
    double cpuSeconds() const;
    // Resident memory now (/proc/PID/statm); 0 once stopped.
    std::uint64_t rssBytes() const;
    // How long stop() waits after SIGTERM before SIGKILL (60 s unless set): a node checkpointing
    // large shards may need longer.
    void setStopGrace(std::chrono::seconds grace) { m_stopGrace = grace; }
    // SIGTERM, then waits; SIGKILL after the grace. Returns the exit code (128 + signal if
    // killed); again the same code when called a second time.
    int stop();

private:
    ServerProcess(testing::ChildProcess child, std::string address);

    testing::ChildProcess m_child;
    std::string m_address;
    std::optional<int> m_exitCode;
    std::chrono::seconds m_stopGrace { 60 };
};

} // namespace shardmap::bench
