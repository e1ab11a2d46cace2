#pragma once

// A shard's documents, the roles a shard holds for a space, and the hashes its checksums sum.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace shardmap::core {

// A document of a space, or its tombstone (deleted = true, no fields). Versions only grow: a
// write is applied when its version is greater than the one stored, whatever that one is.
struct Document {
    std::string space;
    std::string id;
    std::uint64_t version = 0;
    std::map<std::string, std::string> fields;
    bool deleted = false;

    bool operator==(const Document&) const = default;
};

// The role a shard holds for a space. Numbers match shardmap.v1.SpaceRole.
enum class SpaceRole : int {
    None = 0,
    Owner = 1,
    MigrationTarget = 2,
    Fenced = 3,
};

const char* spaceRoleName(SpaceRole role);
bool acceptsWrites(SpaceRole role);

// What a document costs in the size estimate: its id plus every field name and value.
std::uint64_t documentBytes(const Document& doc);

// The space checksum covers content (issue 14): the order-independent sum, modulo 2^64, of one
// term per row, live document or tombstone, each a 64-bit hash of its id and its content hash.
// Equal sums on two shards mean, with overwhelming probability, the same rows with the same
// versions, deletions and fields: an equal-version write with another body, or a missing
// tombstone, makes them differ.
//
// contentHash covers the version, whether it is a tombstone, and every field (name and value, in
// name order); rowTerm mixes in the id.
std::uint64_t contentHash(const Document& doc);
std::uint64_t rowTerm(std::string_view id, std::uint64_t contentHash);
// What SpaceStats.checksum means; nodes before issue 14 summed (id, version) of live documents
// only (kind 1, or 0 when they did not say). Checksums of different kinds cannot be compared.
inline constexpr std::uint32_t kChecksumKind = 2;

// The token that represents a space inside the FTS index, so that a search is scoped to its
// spaces by the full-text engine itself ("s" + 16 hex digits of a hash of the id).
std::string spaceToken(std::string_view space);

} // namespace shardmap::core
