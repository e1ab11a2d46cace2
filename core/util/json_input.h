#pragma once

// The one way the servers read JSON that a caller sent or that anyone with store access could
// have written (plans, executor settings, access policies, approval and map records). The
// nesting depth and the size are checked while the text is parsed, before any value is built,
// so a document of 100,000 nested arrays is refused without a deep tree ever existing: code that
// walks a value recursively (dump(), get<>, the approver's diff) may then do so safely.

#include "core/util/result.h"

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace shardmap::core {

// Deeper than any document shardmap writes (a plan is 3 levels, a policy 2) and far from what
// recursion on a server thread's stack can take.
inline constexpr std::size_t kMaxJsonDepth = 64;
// The largest request shardmapd takes (core/util/validation.h kMaxRequestBytes); a plan of every
// space of a large fleet stays well below it.
inline constexpr std::size_t kMaxJsonBytes = 64 * 1024 * 1024;

struct JsonLimits {
    std::size_t maxDepth = kMaxJsonDepth;
    std::size_t maxBytes = kMaxJsonBytes;
};

// The parsed value, or InvalidArgument naming `what` ("the plan") and saying what is wrong: not
// JSON (where), larger than limits.maxBytes, or nested deeper than limits.maxDepth.
Result<nlohmann::json> readJsonInput(std::string_view text, const std::string& what, JsonLimits limits = {});

// The same checks without building a value, for text handed on to another parser (Protobuf's).
Status checkJsonInput(std::string_view text, const std::string& what, JsonLimits limits = {});

} // namespace shardmap::core
