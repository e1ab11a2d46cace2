#pragma once

// Logging for the servers (shardmap-node, shardmapd) through spdlog: `--log-level` (config key
// log-level) picks debug, info (the default), warn, error or off. Info is quiet: a line when a
// server starts or stops, one per migration phase change, the lease changing hands; debug adds
// every refused request with its reason (docs/NODE.md, core/util/log.h says what goes where).
//
// On a terminal or in a file each line has a timestamp and its level:
//   2026-12-01T21:30:16.123+00:00 info shardmapd: holds the executor lease (token 3); leading
// Under systemd (stderr connected to the journal: $JOURNAL_STREAM names it) the journal adds
// the time, so a line carries the syslog priority prefix journald reads as its level instead:
//   <6>shardmapd: holds the executor lease (token 3); leading

#include "core/util/log.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <grpc/support/log.h>
#include <memory>
#include <openssl/x509.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace shardmap::app {

inline const std::vector<std::string> kLogLevels { "debug", "info", "warn", "error", "off" };

inline void addLogLevelFlag(CLI::App& app, std::string& level)
{
    app.add_option("--log-level", level, "debug, info, warn, error or off (info: starts, stops, phase changes)")
        ->check(CLI::IsMember(kLogLevels))
        ->capture_default_str();
}

// systemd sets JOURNAL_STREAM=<device>:<inode> of the stream it connects stdout/stderr to.
inline bool stderrIsJournal()
{
    const char* stream = std::getenv("JOURNAL_STREAM");
    struct stat st { };
    if (!stream || ::fstat(STDERR_FILENO, &st) != 0)
        return false;
    return std::string(stream) == std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
}

namespace detail {

// %* : the sd-daemon(3) priority prefix journald reads (<3> error, <4> warning, <6> info, <7> debug).
class SyslogPriority final : public spdlog::custom_flag_formatter {
public:
    void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override
    {
        const char* prefix = "<6>";
        switch (msg.level) {
        case spdlog::level::critical: prefix = "<2>"; break;
        case spdlog::level::err: prefix = "<3>"; break;
        case spdlog::level::warn: prefix = "<4>"; break;
        case spdlog::level::info: prefix = "<6>"; break;
        default: prefix = "<7>"; break;
        }
        dest.append(prefix, prefix + 3);
    }
    std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<SyslogPriority>(); }
};

// gRPC's own messages, through the program's logger. A certificate a TLS handshake refused is
// named with OpenSSL's reason ("certificate revoked (verify code 23)"), not only gRPC's number, so
// that an administrator reads from the log why a client (or, for shardmapd, a node) was refused.
inline void logGrpcMessage(gpr_log_func_args* args)
{
    const std::string_view message(args->message);
    constexpr std::string_view kVerifyFailed = "Certificate verify failed with code ";
    if (message.starts_with(kVerifyFailed)) {
        const int code = std::atoi(args->message + kVerifyFailed.size());
        spdlog::warn(
            "a TLS handshake refused a certificate: {} (verify code {})", X509_verify_cert_error_string(code), code);
        return;
    }
    if (message.starts_with("Handshake failed")) {
        spdlog::warn("grpc: {}", message);
        return;
    }
    switch (args->severity) {
    case GPR_LOG_SEVERITY_ERROR: spdlog::error("grpc: {}", message); break;
    case GPR_LOG_SEVERITY_INFO: spdlog::info("grpc: {}", message); break;
    case GPR_LOG_SEVERITY_DEBUG: spdlog::debug("grpc: {}", message); break;
    }
}

} // namespace detail

// The default logger: named after the program, on stderr, at `level` (one of kLogLevels).
inline void setupLogging(const std::string& program, const std::string& level)
{
    auto logger = std::make_shared<spdlog::logger>(program, std::make_shared<spdlog::sinks::stderr_sink_mt>());
    auto formatter = std::make_unique<spdlog::pattern_formatter>();
    if (stderrIsJournal())
        formatter->add_flag<detail::SyslogPriority>('*').set_pattern("%*%n: %v");
    else
        formatter->set_pattern("%Y-%m-%dT%H:%M:%S.%e%z %l %n: %v");
    logger->set_formatter(std::move(formatter));
    logger->set_level(spdlog::level::from_str(level == "warn" ? "warning" : level));
    logger->flush_on(spdlog::level::debug); // every line reaches the journal or file at once
    spdlog::set_default_logger(std::move(logger));
    gpr_set_log_function(&detail::logGrpcMessage);
}

// Core's messages, at their level, to the default logger.
inline core::LogSink logSink()
{
    return [](core::LogLevel level, const std::string& message) {
        switch (level) {
        case core::LogLevel::Debug: spdlog::debug("{}", message); break;
        case core::LogLevel::Info: spdlog::info("{}", message); break;
        case core::LogLevel::Warn: spdlog::warn("{}", message); break;
        case core::LogLevel::Error: spdlog::error("{}", message); break;
        }
    };
}

} // namespace shardmap::app
