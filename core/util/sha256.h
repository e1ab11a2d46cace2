#pragma once

// SHA-256, the one digest of the project (OpenSSL's): bearer tokens are kept as their hashes
// (core/auth/bearer_tokens.h) and the audit records of the store are chained by it
// (core/store/audit_chain.h).

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace shardmap::core {

using Sha256 = std::array<std::uint8_t, 32>;
Sha256 sha256(std::string_view data);
// Lower-case hex, 64 digits.
std::string toHex(const Sha256& digest);

} // namespace shardmap::core
