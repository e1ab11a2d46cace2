#pragma once

// What a store URI names, for callers that treat a file store differently from a shared one
// (creating it on a first start, checking who will own it).

#include <optional>
#include <string>

namespace shardmap::core {

// The file a "sqlite:PATH" (or "sqlite://PATH") URI names; nullopt for any other URI.
std::optional<std::string> sqliteStorePath(const std::string& uri);

} // namespace shardmap::core
