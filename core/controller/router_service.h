#pragma once

// The shardmap.v1.Router gRPC service: how applications reach their spaces through shardmapd.

#include "core/controller/admin_service.h"
#include "core/metrics/prometheus.h"
#include "core/router/router.h"
#include "shardmap/v1/router.grpc.pb.h"

#include <chrono>

namespace shardmap::core {

// The shardmap.v1.Router gRPC service over a core::Router: applications write and search by
// space without knowing shards or epochs. It checks request limits, maps protobuf messages to core
// value types and core errors to gRPC statuses (status_mapping); routing is the Router's work.
class RouterService final : public v1::Router::Service {
public:
    // metrics: requests by method and gRPC code, their latency, items by outcome, epoch retries.
    explicit RouterService(Router& router, MetricsRegistry* metrics = nullptr);

    // With an access policy (shardmapd's --access-policy), every call needs an authenticated caller
    // (client certificate or bearer token) whose role allows it: Search and Resolve the viewer
    // role, BulkWrite the operator role (docs/ACCESS.md, "Applications"). Without one (nullptr),
    // anyone who reaches the port may call. Set before the server starts.
    void requireRoles(AdminAccess* access) { m_access = access; }

    grpc::Status BulkWrite(grpc::ServerContext*, const v1::RouterWriteRequest*, v1::RouterWriteResponse*) override;
    grpc::Status Search(grpc::ServerContext*, const v1::RouterSearchRequest*, v1::RouterSearchResponse*) override;
    grpc::Status Resolve(grpc::ServerContext*, const v1::ResolveRequest*, v1::ResolveResponse*) override;

private:
    grpc::Status bulkWrite(const v1::RouterWriteRequest*, v1::RouterWriteResponse*);
    grpc::Status search(const v1::RouterSearchRequest*, v1::RouterSearchResponse*);
    grpc::Status resolve(const v1::ResolveRequest*, v1::ResolveResponse*);
    void measured(const char* method, std::chrono::steady_clock::time_point started, const grpc::Status& status);
    // Runs a call and records it (measured) under `method`.
    template <typename Call> grpc::Status timed(const char* method, Call call)
    {
        const auto started = std::chrono::steady_clock::now();
        auto status = call();
        measured(method, started, status);
        return status;
    }

    // PERMISSION_DENIED or UNAUTHENTICATED when the caller may not `what`; OK without a policy.
    grpc::Status allowed(const grpc::ServerContext& context, Role least, const char* what);

    Router& m_router;
    MetricsRegistry* m_metrics;
    AdminAccess* m_access = nullptr;
};

} // namespace shardmap::core
