#pragma once

// Who a caller is, typed by where the name came from (docs/ACCESS.md, "Identities"): a client
// certificate's URI subjectAltName, DNS subjectAltName or subject common name, or the name the
// --tokens file gives a bearer token. The servers compare identities with their lists (a node's
// --controller-identity, shardmapd's role file) kind and name together, so that a certificate
// whose CN reads "spiffe://example.org/shardmapd" is not the certificate with that URI SAN, nor a
// DNS SAN "alice" the person whose certificate's CN is alice.
//
// Written forms, one per identity (the audit actor, whoami, an approval's requested_by):
//   spiffe://example.org/alice   a URI SAN with "://" (any other URI SAN: uri:VALUE)
//   dns:alice.example.org        a DNS SAN
//   alice                        a CN without ':' (a CN with one: cn:VALUE)
//   token:ci-bot                 a bearer token's name in the --tokens file
// A policy entry or a --controller-identity (IdentityPattern) uses the same forms, plus cn:NAME
// for a CN and uri:VALUE for a URI SAN; a bare name there names a CN or a token's name (both are
// names an administrator hands out), never a SAN.

#include "core/util/result.h"

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace grpc {
class AuthContext;
class ServerContext;
} // namespace grpc

namespace shardmap::core {

enum class IdentityKind { Uri, Dns, CommonName, Token };

struct PeerIdentity {
    IdentityKind kind = IdentityKind::CommonName;
    std::string name;

    // The one written form (above); parseIdentity(text()) gives the identity back.
    std::string text() const;
    // "URI SAN", "DNS SAN", "CN", "token", for messages.
    const char* kindName() const;

    auto operator<=>(const PeerIdentity&) const = default;
};

// The identity a written form names (PeerIdentity::text); InvalidArgument for an empty name or
// an unknown "kind:" prefix.
Result<PeerIdentity> parseIdentity(std::string_view text);

// What a role file entry, a person's identity or a --controller-identity names: one identity of
// one kind, or (kind empty) a bare name, which is a CN or a token's name.
struct IdentityPattern {
    std::optional<IdentityKind> kind;
    std::string name;

    // InvalidArgument saying which forms there are, for an empty name, an unknown "kind:" prefix
    // or a bare name with ':' (which could be read as either).
    static Result<IdentityPattern> parse(std::string_view text);
    bool matches(const PeerIdentity& identity) const;
    // The form it was written in, normalised ("uri:spiffe://x" -> "spiffe://x").
    std::string text() const;

    auto operator<=>(const IdentityPattern&) const = default;
};

// The identity a verified client certificate names: its first URI subjectAltName, else its first
// DNS subjectAltName, else its subject common name. nullopt when the peer presented no certificate,
// i.e. on a plaintext or server-only TLS connection. The servers request client certificates only
// together with verification against --tls-ca (and --tls-crl), so a certificate that is present
// was verified.
std::optional<PeerIdentity> peerCertificateIdentity(const grpc::AuthContext& context);
std::optional<PeerIdentity> peerCertificateIdentity(const grpc::ServerContext& context);

} // namespace shardmap::core
