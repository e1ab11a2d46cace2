#pragma once

// A request gRPC cannot parse into its method's message (damaged bytes, or a string field that is
// not UTF-8, which protobuf refuses) is answered by gRPC itself before any service sees it, and
// with INTERNAL: a server fault to the caller, to monitoring and to the fuzz test. It is the
// caller's bad request. This interceptor turns that answer into INVALID_ARGUMENT; every other
// status, INTERNAL from a service included, goes out as it was.

#include <grpcpp/support/server_interceptor.h>
#include <memory>

namespace shardmap::core {

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> unparsedRequestInterceptorFactory();

} // namespace shardmap::core
