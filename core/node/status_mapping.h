#pragma once

#include "core/util/result.h"

#include <grpcpp/support/status.h>

namespace shardmap::core {

// Domain error -> gRPC status, the only place where the two vocabularies meet on the server side.
// A fencing refusal (details held_epoch, ...) carries a serialized shardmap.v1.EpochMismatch.
grpc::Status toGrpcStatus(const Error& error);

// gRPC status -> domain error, for clients. EpochMismatch details come back as error.details.
Error fromGrpcStatus(const grpc::Status& status, std::string_view doing = {});

} // namespace shardmap::core
