#pragma once

// Bearer tokens for scripts that call shardmapd's Admin API without a client certificate. The
// token file holds only SHA-256 hashes, one identity per line, so a copy of it grants nothing:
//
//   # identity   hash of the token (shardmapctl access new-token IDENTITY prints both)
//   ci-bot       sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
//
// A presented token is hashed and compared with every line's hash in constant time (no early exit
// on the first differing byte, nor on the first matching line), so that timing tells an attacker
// nothing about how close a guess came.

#include "core/util/result.h"
#include "core/util/sha256.h"

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardmap::core {

// Equal-length byte strings compared in time independent of their contents; false for
// different lengths (the length is not a secret).
bool constantTimeEquals(std::string_view a, std::string_view b);

struct TokenTable {
    struct Entry {
        std::string identity;
        Sha256 hash {};
    };
    std::vector<Entry> entries;

    // The identity whose token this is; nullopt for an unknown token.
    std::optional<std::string> identityOf(std::string_view token) const;

    // InvalidArgument naming `source`:line for a malformed line, an identity listed twice or a
    // hash that is not 64 hex digits.
    static Result<TokenTable> parse(const std::string& text, const std::string& source);
};

// A new random token (32 bytes from the system's CSPRNG, hex) and the line that grants it to
// identity in a token file.
struct NewToken {
    std::string token;
    std::string line;
};
Result<NewToken> newToken(const std::string& identity);
// The token-file line for a token an administrator chose.
std::string tokenFileLine(const std::string& identity, std::string_view token);

} // namespace shardmap::core
