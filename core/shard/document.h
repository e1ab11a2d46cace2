#pragma once

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

// One document's term in the order-independent space checksum (the sum of terms modulo 2^64):
// a 64-bit hash of (id, version). Equal sums on two shards mean, with overwhelming probability,
// the same set of live (id, version) pairs.
std::uint64_t checksumTerm(std::string_view id, std::uint64_t version);

// The token that represents a space inside the FTS index, so that a search is scoped to its
// spaces by the full-text engine itself ("s" + 16 hex digits of a hash of the id).
std::string spaceToken(std::string_view space);

} // namespace shardmap::core
