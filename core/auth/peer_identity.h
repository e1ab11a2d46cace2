#pragma once

#include <string>

namespace grpc {
class AuthContext;
class ServerContext;
} // namespace grpc

namespace shardmap::core {

// The identity a verified client certificate names, as the servers compare it with their lists
// (a node's --controller-identity, shardmapd's role file): the certificate's first URI
// subjectAltName (e.g. spiffe://example.org/shardmapd), else its first DNS subjectAltName, else
// its subject common name. Empty when the peer presented no certificate, i.e. on a plaintext or
// server-only TLS connection. The servers request client certificates only together with
// verification against --tls-ca (and --tls-crl), so a certificate that is present was verified.
std::string peerCertificateIdentity(const grpc::AuthContext& context);
std::string peerCertificateIdentity(const grpc::ServerContext& context);

} // namespace shardmap::core
