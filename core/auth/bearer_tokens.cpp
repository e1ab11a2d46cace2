// Bearer tokens' implementation: the token file's lines parsed, a presented token's hash compared with
// every line in constant time, and new tokens of 32 random bytes (OpenSSL's RAND_bytes).
#include "core/auth/bearer_tokens.h"

#include <cctype>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <set>
#include <sstream>

namespace shardmap::core {

bool constantTimeEquals(std::string_view a, std::string_view b)
{
    if (a.size() != b.size())
        return false;
    return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::optional<std::string> TokenTable::identityOf(std::string_view token) const
{
    if (token.empty())
        return std::nullopt;
    const Sha256 presented = sha256(token);
    const std::string_view presentedBytes(reinterpret_cast<const char*>(presented.data()), presented.size());
    // Every entry is compared, whatever matched before, and the match is picked without a branch
    // on the comparison's outcome inside the loop.
    std::size_t matched = entries.size();
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const Sha256& hash = entries[i].hash;
        const bool equal = constantTimeEquals(
            presentedBytes, std::string_view(reinterpret_cast<const char*>(hash.data()), hash.size()));
        matched = equal ? i : matched;
    }
    if (matched == entries.size())
        return std::nullopt;
    return entries[matched].identity;
}

namespace {

std::optional<Sha256> parseHash(std::string_view text)
{
    constexpr std::string_view kPrefix = "sha256:";
    if (!text.starts_with(kPrefix))
        return std::nullopt;
    text.remove_prefix(kPrefix.size());
    if (text.size() != 64)
        return std::nullopt;
    Sha256 hash {};
    for (std::size_t i = 0; i < hash.size(); ++i) {
        int value = 0;
        for (char c : text.substr(i * 2, 2)) {
            const int digit = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                : (c >= 'a' && c <= 'f')                                  ? c - 'a' + 10
                : (c >= 'A' && c <= 'F')                                  ? c - 'A' + 10
                                                                          : -1;
            if (digit < 0)
                return std::nullopt;
            value = value * 16 + digit;
        }
        hash[i] = static_cast<std::uint8_t>(value);
    }
    return hash;
}

} // namespace

Result<TokenTable> TokenTable::parse(const std::string& text, const std::string& source)
{
    TokenTable table;
    std::set<std::string> identities;
    std::istringstream lines(text);
    std::string line;
    for (int number = 1; std::getline(lines, line); ++number) {
        const std::string where = source + ":" + std::to_string(number) + ": ";
        if (const auto hash = line.find('#'); hash != std::string::npos)
            line.erase(hash);
        std::istringstream words(line);
        std::string identity, hash, extra;
        if (!(words >> identity))
            continue;
        if (!(words >> hash) || (words >> extra))
            return makeError(ErrorCode::InvalidArgument, where + "expected 'IDENTITY sha256:HEX'");
        auto parsed = parseHash(hash);
        if (!parsed)
            return makeError(ErrorCode::InvalidArgument,
                where + "the hash must be sha256: and 64 hex digits (the file holds hashes, never tokens)");
        if (!identities.insert(identity).second)
            return makeError(ErrorCode::InvalidArgument, where + "identity '" + identity + "' is listed twice");
        table.entries.push_back({ identity, *parsed });
    }
    return table;
}

std::string tokenFileLine(const std::string& identity, std::string_view token)
{
    return identity + " sha256:" + toHex(sha256(token));
}

Result<NewToken> newToken(const std::string& identity)
{
    Sha256 random {};
    if (RAND_bytes(random.data(), static_cast<int>(random.size())) != 1)
        return makeError(ErrorCode::Internal, "the system's random number generator failed");
    NewToken made;
    made.token = toHex(random);
    made.line = tokenFileLine(identity, made.token);
    return made;
}

} // namespace shardmap::core
