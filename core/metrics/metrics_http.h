#pragma once

// The servers' --metrics-listen endpoint: GET /metrics answers the registry's text format
// (cpp-httplib, from Debian). Plain HTTP, read only, as Prometheus scrapes it; keep it on
// loopback or a monitoring network.

#include "core/metrics/prometheus.h"
#include "core/util/result.h"

#include <memory>
#include <string>
#include <thread>

namespace httplib {
class Server;
}

namespace shardmap::core {

class MetricsHttpServer final {
public:
    // listen: HOST:PORT (port 0 picks a free one).
    static Result<std::unique_ptr<MetricsHttpServer>> start(const std::string& listen, const MetricsRegistry& registry);
    ~MetricsHttpServer();
    MetricsHttpServer(const MetricsHttpServer&) = delete;
    MetricsHttpServer& operator=(const MetricsHttpServer&) = delete;

    // The address actually bound.
    const std::string& address() const { return m_address; }
    void stop();

private:
    MetricsHttpServer() = default;
    std::unique_ptr<httplib::Server> m_server;
    std::thread m_thread;
    std::string m_address;
};

} // namespace shardmap::core
