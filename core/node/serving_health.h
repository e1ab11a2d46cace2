#pragma once

// The servers' grpc.health.v1.Health service on the synchronous API, instead of gRPC's built-in one.

#include "grpc/health/v1/health.grpc.pb.h"

#include <map>
#include <mutex>
#include <string>

namespace shardmap::core {

// What a node or shardmapd answers to grpc.health.v1.Health/Check: SERVING or NOT_SERVING per
// name ("" for the server as a whole), NOT_FOUND for a name never set. gRPC's built-in service
// runs on its callback API, whose threads nap 100 ms after every idle second while polling the
// connections the server shares with them: a call arriving then waited those 100 ms (one write
// in a hundred or so, every 1.1 s; docs/BENCHMARKS.md, "gRPC's callback queue and the write
// tail"). This one holds no thread and no callback queue. Watch is not offered (UNIMPLEMENTED):
// clients that health-check by Watch fall back to no health checking, as the protocol says.
class ServingHealth final : public grpc::health::v1::Health::Service {
public:
    // Ignored after shutdown().
    void set(const std::string& name, bool serving);
    // Every name NOT_SERVING from here on, so that a server on its way out is not chosen.
    void shutdown();

    grpc::Status Check(grpc::ServerContext* context, const grpc::health::v1::HealthCheckRequest* request,
        grpc::health::v1::HealthCheckResponse* response) override;

private:
    std::mutex m_mutex;
    std::map<std::string, bool> m_serving;
    bool m_shutdown = false;
};

} // namespace shardmap::core
