#pragma once

// Where domain errors and gRPC statuses meet, both ways.

#include "core/util/result.h"

#include <grpcpp/support/status.h>

namespace shardmap::core {

// Domain error -> gRPC status, the only place where the two vocabularies meet on the server side.
// A fencing refusal (details held_epoch, ...) carries a serialized shardmap.v1.EpochMismatch.
grpc::Status toGrpcStatus(const Error& error);

// gRPC status -> domain error, for clients. EpochMismatch details come back as error.details; a
// refused TLS handshake is said in a sentence (describeTlsRefusal).
Error fromGrpcStatus(const grpc::Status& status, std::string_view doing = {});

// Why a TLS handshake failed, in a sentence about the server that refused ("refused the TLS
// handshake: our client certificate is revoked") followed by gRPC's own text, from the message of
// an UNAVAILABLE status, where gRPC leaves OpenSSL's alert. Empty when the message is not about a
// refused handshake. For every client of the servers, so that they say it alike.
std::string describeTlsRefusal(std::string_view grpcMessage);

} // namespace shardmap::core
