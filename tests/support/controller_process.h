#pragma once

#include "grpc/health/v1/health.grpc.pb.h"
#include "shardmap/v1/router.grpc.pb.h"
#include "tests/support/node_process.h"
#include "tests/support/process.h"

#include <chrono>
#include <grpcpp/grpcpp.h>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace shardmap::testing {

inline constexpr const char* kExecutorHealth = "shardmap.v1.Controller/executor";

// A real shardmapd process on loopback (port 0), with stubs for its Router and health services.
class ControllerProcess final {
public:
    // env: NAME=VALUE entries for the process (SHARDMAP_FAILPOINTS=...). launcher: a command that
    // execs the rest of its arguments (NetworkNamespaces::inside), put in front of shardmapd's.
    static std::unique_ptr<ControllerProcess> start(const std::string& stderrFile, const std::vector<std::string>& args,
        const std::vector<std::string>& env = {}, const std::vector<std::string>& launcher = {});

    v1::Router::Stub& router() { return *m_router; }
    ChildProcess& process() { return *m_process; }
    const std::string& address() const { return m_address; }
    std::string stderrText() const { return readWholeFile(m_stderrFile); }

    // The status of a health service name; UNKNOWN when the call itself fails.
    grpc::health::v1::HealthCheckResponse::ServingStatus health(const std::string& service);
    bool leads() { return health(kExecutorHealth) == grpc::health::v1::HealthCheckResponse::SERVING; }

    // Drops the test's connection, so that a graceful stop need not wait for an idle client.
    void disconnect();

private:
    std::unique_ptr<ChildProcess> m_process;
    std::string m_address;
    std::string m_stderrFile;
    std::shared_ptr<grpc::Channel> m_channel;
    std::unique_ptr<v1::Router::Stub> m_router;
    std::unique_ptr<grpc::health::v1::Health::Stub> m_health;
};

// Polls until the predicate holds or the deadline passes; returns whether it held.
template <typename Predicate> bool pollUntil(std::chrono::milliseconds timeout, Predicate predicate)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        if (predicate())
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return predicate();
}

std::string controllerBinary();

} // namespace shardmap::testing
