#pragma once

// The limits and formats every request is checked against at the node: ids, documents, field
// names, epochs and UTF-8.

#include "core/util/result.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace shardmap::core {

// Limits the node enforces on every request; documented in docs/NODE.md.
inline constexpr std::size_t kMaxSpaceIdLength = 128;
inline constexpr std::size_t kMaxShardIdLength = 64;
inline constexpr std::size_t kMaxDocIdBytes = 512;
inline constexpr std::size_t kMaxDocumentBytes = 1024 * 1024;
inline constexpr std::size_t kMaxFieldNameLength = 32;
inline constexpr std::size_t kMaxSchemaFields = 32;
inline constexpr std::size_t kMaxBatchItems = 10000;
inline constexpr std::size_t kMaxRequestBytes = 64 * 1024 * 1024;
// The largest epoch a caller may send and a map record may hold: 2^62. An epoch grows by one or
// two per ownership change, so no fleet reaches it (a million changes a second for 146,000 years);
// what lies above is a mistake or an attack (a negative epoch in JSON read as unsigned is 2^64 - 1),
// and a shard holding it could never be fenced again: the space would be pinned there for good.
// Below it, the epoch + 1 of every ownership change stays far from overflowing.
inline constexpr std::uint64_t kMaxEpoch = std::uint64_t { 1 } << 62;

// A space id: 1-128 chars of [A-Za-z0-9._:-].
Status validateSpaceId(std::string_view space);
// A shard id: 1-64 chars of [A-Za-z0-9._-] (it names a file, so no ':' and no leading '.').
Status validateShardId(std::string_view shard);
// A document id: 1-512 bytes of valid UTF-8 without control characters.
Status validateDocId(std::string_view id);
// A schema field name: [a-z][a-z0-9_]{0,31}, not starting with '_'.
Status validateFieldName(std::string_view field);

// An epoch a caller sent: 1 to kMaxEpoch.
Status validateEpoch(std::uint64_t epoch);

bool isValidUtf8(std::string_view text);

} // namespace shardmap::core
