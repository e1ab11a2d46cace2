// sha256's implementation: OpenSSL's EVP digest, its method fetched once.
#include "core/util/sha256.h"

#include <openssl/evp.h>

namespace shardmap::core {

namespace {

// Fetched once: OpenSSL 3 looks EVP_sha256() up in its providers at every use otherwise, which
// cost about ten times the hash of an audit record (a commit hashes one).
const EVP_MD* sha256Method()
{
    static const EVP_MD* const method = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    return method ? method : EVP_sha256();
}

} // namespace

Sha256 sha256(std::string_view data)
{
    Sha256 digest {};
    unsigned int length = 0;
    EVP_Digest(data.data(), data.size(), digest.data(), &length, sha256Method(), nullptr);
    return digest;
}

std::string toHex(const Sha256& digest)
{
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    out.reserve(digest.size() * 2);
    for (std::uint8_t byte : digest) {
        out.push_back(kDigits[byte >> 4]);
        out.push_back(kDigits[byte & 0xf]);
    }
    return out;
}

} // namespace shardmap::core
