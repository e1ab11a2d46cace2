#pragma once

#include "core/router/router.h"
#include "shardmap/v1/router.grpc.pb.h"

namespace shardmap::core {

// The shardmap.v1.Router gRPC service over a core::Router: applications write and search by
// space without knowing shards or epochs. It checks request limits, maps protobuf messages to core
// value types and core errors to gRPC statuses (status_mapping); routing is the Router's work.
class RouterService final : public v1::Router::Service {
public:
    explicit RouterService(Router& router);

    grpc::Status BulkWrite(grpc::ServerContext*, const v1::RouterWriteRequest*, v1::RouterWriteResponse*) override;
    grpc::Status Search(grpc::ServerContext*, const v1::RouterSearchRequest*, v1::RouterSearchResponse*) override;
    grpc::Status Resolve(grpc::ServerContext*, const v1::ResolveRequest*, v1::ResolveResponse*) override;

private:
    Router& m_router;
};

} // namespace shardmap::core
