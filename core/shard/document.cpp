#include "core/shard/document.h"

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

std::uint64_t checksumTerm(std::string_view id, std::uint64_t version)
{
    // Hash the id, then mix in the version, so that (id, v) and (id', v') collide only by chance.
    std::array<unsigned char, 8> versionBytes {};
    for (std::size_t i = 0; i < versionBytes.size(); ++i)
        versionBytes[i] = static_cast<unsigned char>(version >> (8 * i));
    const XXH64_hash_t idHash = XXH3_64bits(id.data(), id.size());
    return XXH3_64bits_withSeed(versionBytes.data(), versionBytes.size(), idHash);
}

std::string spaceToken(std::string_view space)
{
    std::array<char, 18> buffer {};
    std::snprintf(buffer.data(), buffer.size(), "s%016llx",
        static_cast<unsigned long long>(XXH3_64bits(space.data(), space.size())));
    return std::string(buffer.data(), 17);
}

} // namespace shardmap::core
