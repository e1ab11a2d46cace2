#pragma once

// Errors as values (code, message, context) and Result<T>/Status, the way every core call that can
// fail answers.

#include <cassert>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace shardmap::core {

// Domain error codes. They mirror the gRPC codes the servers answer with, so that the mapping at
// the RPC boundary is one switch and nothing is lost on the way.
enum class ErrorCode {
    InvalidArgument,
    NotFound,
    AlreadyExists,
    FailedPrecondition,
    // The caller's identity may not do this (an etcd user whose roles do not grant it).
    PermissionDenied,
    ResourceExhausted,
    Unavailable,
    DeadlineExceeded,
    Aborted,
    Cancelled,
    Conflict,
    Internal,
    // The caller could not be told apart from anyone (no certificate, an unknown token).
    Unauthenticated,
};

const char* errorCodeName(ErrorCode code);
// The caller's identity is refused (PermissionDenied) or not known (Unauthenticated): asking
// again as the same caller gets the same answer until someone changes its rights.
bool refusesCaller(ErrorCode code);

// An error as a value: what kind, a message a person can act on, and optional context (the
// shard, space or file it concerns). Errors cross layer boundaries as values, never as exceptions.
struct Error {
    ErrorCode code = ErrorCode::Internal;
    std::string message;
    std::string context;
    // Machine-readable facts for callers that react to the error (e.g. "held_epoch" on a
    // fencing refusal); servers forward them as structured error details.
    std::map<std::string, std::string> details;

    std::string describe() const;
};

inline Error makeError(ErrorCode code, std::string message, std::string context = {})
{
    return Error { code, std::move(message), std::move(context), {} };
}

// Either a value or an Error, in the spirit of C++23 std::expected (not available in g++ 12).
template <typename T> class [[nodiscard]] Result {
public:
    Result(T value)
        : m_state(std::move(value))
    {
    }
    Result(Error error)
        : m_state(std::move(error))
    {
    }

    bool ok() const { return m_state.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() &
    {
        assert(ok());
        return std::get<0>(m_state);
    }
    const T& value() const&
    {
        assert(ok());
        return std::get<0>(m_state);
    }
    T&& value() &&
    {
        assert(ok());
        return std::get<0>(std::move(m_state));
    }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

    const Error& error() const
    {
        assert(!ok());
        return std::get<1>(m_state);
    }

private:
    std::variant<T, Error> m_state;
};

// Result<void>: success carries nothing.
template <> class [[nodiscard]] Result<void> {
public:
    Result() = default;
    Result(Error error)
        : m_error(std::move(error))
    {
    }

    bool ok() const { return !m_error.has_value(); }
    explicit operator bool() const { return ok(); }
    const Error& error() const
    {
        assert(!ok());
        return *m_error;
    }

private:
    std::optional<Error> m_error;
};

using Status = Result<void>;

} // namespace shardmap::core
