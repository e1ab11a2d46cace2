#include "core/node/status_mapping.h"

// Error codes to gRPC codes and back, EpochMismatch details in and out of a status, and the sentence
// a refused TLS handshake gets.

#include "shardmap/v1/common.pb.h"

#include <string>

namespace shardmap::core {

namespace {

grpc::StatusCode toGrpcCode(ErrorCode code)
{
    switch (code) {
    case ErrorCode::InvalidArgument: return grpc::StatusCode::INVALID_ARGUMENT;
    case ErrorCode::NotFound: return grpc::StatusCode::NOT_FOUND;
    case ErrorCode::AlreadyExists: return grpc::StatusCode::ALREADY_EXISTS;
    case ErrorCode::FailedPrecondition: return grpc::StatusCode::FAILED_PRECONDITION;
    case ErrorCode::PermissionDenied: return grpc::StatusCode::PERMISSION_DENIED;
    case ErrorCode::ResourceExhausted: return grpc::StatusCode::RESOURCE_EXHAUSTED;
    case ErrorCode::Unavailable: return grpc::StatusCode::UNAVAILABLE;
    case ErrorCode::DeadlineExceeded: return grpc::StatusCode::DEADLINE_EXCEEDED;
    case ErrorCode::Aborted: return grpc::StatusCode::ABORTED;
    case ErrorCode::Cancelled: return grpc::StatusCode::CANCELLED;
    case ErrorCode::Conflict: return grpc::StatusCode::ABORTED;
    case ErrorCode::Internal: return grpc::StatusCode::INTERNAL;
    case ErrorCode::Unauthenticated: return grpc::StatusCode::UNAUTHENTICATED;
    }
    return grpc::StatusCode::UNKNOWN;
}

ErrorCode fromGrpcCode(grpc::StatusCode code)
{
    switch (code) {
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::OUT_OF_RANGE: return ErrorCode::InvalidArgument;
    case grpc::StatusCode::NOT_FOUND: return ErrorCode::NotFound;
    case grpc::StatusCode::ALREADY_EXISTS: return ErrorCode::AlreadyExists;
    case grpc::StatusCode::FAILED_PRECONDITION: return ErrorCode::FailedPrecondition;
    case grpc::StatusCode::PERMISSION_DENIED: return ErrorCode::PermissionDenied;
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return ErrorCode::ResourceExhausted;
    case grpc::StatusCode::UNAVAILABLE: return ErrorCode::Unavailable;
    case grpc::StatusCode::DEADLINE_EXCEEDED: return ErrorCode::DeadlineExceeded;
    case grpc::StatusCode::ABORTED: return ErrorCode::Aborted;
    case grpc::StatusCode::CANCELLED: return ErrorCode::Cancelled;
    case grpc::StatusCode::UNAUTHENTICATED: return ErrorCode::Unauthenticated;
    default: return ErrorCode::Internal;
    }
}

std::uint64_t detailNumber(const Error& error, const std::string& key)
{
    const auto found = error.details.find(key);
    return found == error.details.end() ? 0 : std::stoull(found->second);
}

} // namespace

grpc::Status toGrpcStatus(const Error& error)
{
    const std::string message = error.describe();
    if (error.code != ErrorCode::FailedPrecondition || !error.details.contains("held_epoch"))
        return grpc::Status(toGrpcCode(error.code), message);
    v1::EpochMismatch mismatch;
    mismatch.set_shard_id(error.details.at("shard"));
    mismatch.set_space(error.details.at("space"));
    mismatch.set_held_epoch(detailNumber(error, "held_epoch"));
    mismatch.set_held_role(static_cast<int>(detailNumber(error, "held_role")));
    mismatch.set_sent_epoch(detailNumber(error, "sent_epoch"));
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, message, mismatch.SerializeAsString());
}

std::string describeTlsRefusal(std::string_view grpcMessage)
{
    struct Refusal {
        const char* text;
        const char* sentence;
    };
    static constexpr Refusal kRefusals[] {
        { "alert certificate revoked", "refused the TLS handshake: our client certificate is revoked" },
        { "alert certificate expired",
            "refused the TLS handshake: our client certificate has expired (or is not valid yet)" },
        { "alert unknown ca", "refused the TLS handshake: our client certificate is signed by a CA it does not trust" },
        { "alert bad certificate",
            "refused our client certificate (expired, revoked or signed by a CA it does not trust)" },
        { "alert certificate unknown",
            "refused our client certificate (expired, revoked or signed by a CA it does not trust)" },
        { "alert certificate required", "refused the TLS handshake: it requires a client certificate" },
        { "certificate verify failed",
            "we refused its TLS certificate: not signed by the CA we trust, or not naming the address we dialled" },
    };
    for (const auto& refusal : kRefusals) {
        if (grpcMessage.find(refusal.text) != std::string_view::npos)
            return std::string(refusal.sentence) + " (" + std::string(grpcMessage) + ")";
    }
    return {};
}

Error fromGrpcStatus(const grpc::Status& status, std::string_view doing)
{
    std::string message = status.error_message();
    if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
        if (auto refusal = describeTlsRefusal(message); !refusal.empty())
            message = std::move(refusal);
        else if (message.empty())
            message = "node unavailable";
    }
    Error error = makeError(fromGrpcCode(status.error_code()), std::move(message), std::string(doing));
    v1::EpochMismatch mismatch;
    if (!status.error_details().empty() && mismatch.ParseFromString(status.error_details())) {
        error.details = { { "shard", mismatch.shard_id() }, { "space", mismatch.space() },
            { "held_epoch", std::to_string(mismatch.held_epoch()) },
            { "held_role", std::to_string(mismatch.held_role()) },
            { "sent_epoch", std::to_string(mismatch.sent_epoch()) } };
    }
    return error;
}

} // namespace shardmap::core
