#pragma once

// What core says about itself, and how loud. Core does not write logs: the servers give it a
// LogSink (app/common/logging.h forwards to spdlog) and decide what reaches the journal.
//   Error  something failed that an administrator must look at
//   Warn   something failed and is retried, or was refused for bad input
//   Info   a change of state: a migration phase, the lease, a node starting or stopping
//   Debug  per request: a refused call and its reason (a router's stale epoch, an unknown shard)

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace shardmap::core {

enum class LogLevel { Debug, Info, Warn, Error };

using LogSink = std::function<void(LogLevel, const std::string&)>;

std::string_view logLevelName(LogLevel level);

// "debug", "info", "warn" (or "warning"), "error"; nullopt for anything else.
std::optional<LogLevel> parseLogLevel(std::string_view name);

} // namespace shardmap::core
