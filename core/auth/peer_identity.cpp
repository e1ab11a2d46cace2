// Peer identities' implementation: the written forms parsed and printed, and a certificate's identity
// read from gRPC's auth context (URI SAN, then DNS SAN, then CN).
#include "core/auth/peer_identity.h"

#include <cctype>
#include <grpc/grpc_security_constants.h>
#include <grpcpp/security/auth_context.h>
#include <grpcpp/server_context.h>

namespace shardmap::core {

namespace {

struct KindPrefix {
    std::string_view prefix;
    IdentityKind kind;
};
constexpr KindPrefix kPrefixes[] = { { "uri:", IdentityKind::Uri }, { "dns:", IdentityKind::Dns },
    { "cn:", IdentityKind::CommonName }, { "token:", IdentityKind::Token } };

// "spiffe://...": a scheme ([A-Za-z][A-Za-z0-9+.-]*) and "://", which is what a URI SAN is
// written as without its uri: prefix.
bool isSchemeUri(std::string_view text)
{
    const auto separator = text.find("://");
    if (separator == std::string_view::npos || separator == 0 || !std::isalpha(static_cast<unsigned char>(text[0])))
        return false;
    for (char c : text.substr(0, separator)) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '.' && c != '-')
            return false;
    }
    return true;
}

Error formsError(std::string_view text, const std::string& what)
{
    return makeError(ErrorCode::InvalidArgument,
        "identity '" + std::string(text) + "' " + what
            + " (write a URI SAN as scheme://... or uri:VALUE, a DNS SAN as dns:NAME, a certificate's CN as cn:NAME, "
              "a token's name as token:NAME)");
}

// The kind the text names (nullopt: a bare name) and the name itself.
Result<std::pair<std::optional<IdentityKind>, std::string>> splitKind(std::string_view text)
{
    std::pair<std::optional<IdentityKind>, std::string> split;
    if (isSchemeUri(text)) {
        split = { IdentityKind::Uri, std::string(text) };
    } else if (text.find(':') == std::string_view::npos) {
        split = { std::nullopt, std::string(text) };
    } else {
        for (const auto& [prefix, kind] : kPrefixes) {
            if (text.starts_with(prefix))
                split = { kind, std::string(text.substr(prefix.size())) };
        }
        if (!split.first)
            return formsError(text, "has an unknown kind before ':'");
    }
    if (split.second.empty())
        return formsError(text, "names nobody");
    return split;
}

std::string writtenForm(IdentityKind kind, const std::string& name)
{
    switch (kind) {
    case IdentityKind::Uri: return isSchemeUri(name) ? name : "uri:" + name;
    case IdentityKind::Dns: return "dns:" + name;
    case IdentityKind::CommonName: return name.find(':') == std::string::npos ? name : "cn:" + name;
    case IdentityKind::Token: return "token:" + name;
    }
    return name;
}

std::string firstValue(const grpc::AuthContext& context, const char* property)
{
    const auto values = context.FindPropertyValues(property);
    return values.empty() ? std::string() : std::string(values.front().data(), values.front().size());
}

} // namespace

std::string PeerIdentity::text() const
{
    return writtenForm(kind, name);
}

const char* PeerIdentity::kindName() const
{
    switch (kind) {
    case IdentityKind::Uri: return "URI SAN";
    case IdentityKind::Dns: return "DNS SAN";
    case IdentityKind::CommonName: return "CN";
    case IdentityKind::Token: return "token";
    }
    return "CN";
}

Result<PeerIdentity> parseIdentity(std::string_view text)
{
    auto split = splitKind(text);
    if (!split)
        return split.error();
    return PeerIdentity { split->first.value_or(IdentityKind::CommonName), std::move(split->second) };
}

Result<IdentityPattern> IdentityPattern::parse(std::string_view text)
{
    auto split = splitKind(text);
    if (!split)
        return split.error();
    return IdentityPattern { split->first, std::move(split->second) };
}

bool IdentityPattern::matches(const PeerIdentity& identity) const
{
    if (kind)
        return *kind == identity.kind && name == identity.name;
    // A bare name is what an administrator named: a CN or a token, never a SAN.
    return (identity.kind == IdentityKind::CommonName || identity.kind == IdentityKind::Token) && name == identity.name;
}

std::string IdentityPattern::text() const
{
    if (!kind)
        return name;
    if (*kind == IdentityKind::CommonName)
        return "cn:" + name;
    return writtenForm(*kind, name);
}

std::optional<PeerIdentity> peerCertificateIdentity(const grpc::AuthContext& context)
{
    // gRPC names the peer only when it presented a certificate.
    if (!context.IsPeerAuthenticated())
        return std::nullopt;
    // The typed SAN properties keep the certificate's order within each kind; the untyped
    // x509_subject_alternative_name mixes kinds (and IP addresses), so it does not serve here.
    const std::pair<const char*, IdentityKind> fields[] = { { GRPC_PEER_URI_PROPERTY_NAME, IdentityKind::Uri },
        { GRPC_PEER_DNS_PROPERTY_NAME, IdentityKind::Dns }, { GRPC_X509_CN_PROPERTY_NAME, IdentityKind::CommonName } };
    for (const auto& [property, kind] : fields) {
        if (auto value = firstValue(context, property); !value.empty())
            return PeerIdentity { kind, std::move(value) };
    }
    return std::nullopt;
}

std::optional<PeerIdentity> peerCertificateIdentity(const grpc::ServerContext& context)
{
    const auto auth = context.auth_context();
    return auth ? peerCertificateIdentity(*auth) : std::nullopt;
}

} // namespace shardmap::core
