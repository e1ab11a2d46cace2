// The error codes' names, which of them refuse the caller, and an error's one-line description.
#include "core/util/result.h"

namespace shardmap::core {

const char* errorCodeName(ErrorCode code)
{
    switch (code) {
    case ErrorCode::InvalidArgument: return "invalid argument";
    case ErrorCode::NotFound: return "not found";
    case ErrorCode::AlreadyExists: return "already exists";
    case ErrorCode::FailedPrecondition: return "failed precondition";
    case ErrorCode::PermissionDenied: return "permission denied";
    case ErrorCode::ResourceExhausted: return "resource exhausted";
    case ErrorCode::Unavailable: return "unavailable";
    case ErrorCode::DeadlineExceeded: return "deadline exceeded";
    case ErrorCode::Aborted: return "aborted";
    case ErrorCode::Cancelled: return "cancelled";
    case ErrorCode::Conflict: return "conflict";
    case ErrorCode::Internal: return "internal error";
    case ErrorCode::Unauthenticated: return "unauthenticated";
    }
    return "unknown error";
}

bool refusesCaller(ErrorCode code)
{
    return code == ErrorCode::PermissionDenied || code == ErrorCode::Unauthenticated;
}

std::string Error::describe() const
{
    if (context.empty())
        return message;
    return context + ": " + message;
}

} // namespace shardmap::core
