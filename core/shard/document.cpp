#include "core/shard/document.h"

// The document rules every shard shares: role names, a document's size estimate, its content hash
// and checksum term, and the token that scopes a space in the index.

#include <array>
#include <cstdio>
#include <xxhash.h>

namespace shardmap::core {

const char* spaceRoleName(SpaceRole role)
{
    switch (role) {
    case SpaceRole::None: return "none";
    case SpaceRole::Owner: return "owner";
    case SpaceRole::MigrationTarget: return "migration target";
    case SpaceRole::Fenced: return "fenced";
    }
    return "unknown";
}

bool acceptsWrites(SpaceRole role)
{
    return role == SpaceRole::Owner || role == SpaceRole::MigrationTarget;
}

std::uint64_t documentBytes(const Document& doc)
{
    std::uint64_t bytes = doc.id.size();
    for (const auto& [name, value] : doc.fields)
        bytes += name.size() + value.size();
    return bytes;
}

std::uint64_t contentHash(const Document& doc)
{
    XXH3_state_t* state = XXH3_createState();
    XXH3_64bits_reset(state);
    std::array<unsigned char, 9> head {};
    for (std::size_t i = 0; i < 8; ++i)
        head[i] = static_cast<unsigned char>(doc.version >> (8 * i));
    head[8] = doc.deleted ? 1 : 0;
    XXH3_64bits_update(state, head.data(), head.size());
    // Lengths before bytes, so that no two field lists hash the same stream.
    const auto add = [state](const std::string& text) {
        std::array<unsigned char, 8> length {};
        for (std::size_t i = 0; i < 8; ++i)
            length[i] = static_cast<unsigned char>(static_cast<std::uint64_t>(text.size()) >> (8 * i));
        XXH3_64bits_update(state, length.data(), length.size());
        XXH3_64bits_update(state, text.data(), text.size());
    };
    for (const auto& [name, value] : doc.fields) {
        add(name);
        add(value);
    }
    const XXH64_hash_t hash = XXH3_64bits_digest(state);
    XXH3_freeState(state);
    return hash;
}

std::uint64_t rowTerm(std::string_view id, std::uint64_t content)
{
    std::array<unsigned char, 8> bytes {};
    for (std::size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = static_cast<unsigned char>(content >> (8 * i));
    const XXH64_hash_t idHash = XXH3_64bits(id.data(), id.size());
    return XXH3_64bits_withSeed(bytes.data(), bytes.size(), idHash);
}

std::string spaceToken(std::string_view space)
{
    std::array<char, 18> buffer {};
    std::snprintf(buffer.data(), buffer.size(), "s%016llx",
        static_cast<unsigned long long>(XXH3_64bits(space.data(), space.size())));
    return std::string(buffer.data(), 17);
}

} // namespace shardmap::core
