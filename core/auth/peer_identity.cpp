#include "core/auth/peer_identity.h"

#include <grpc/grpc_security_constants.h>
#include <grpcpp/security/auth_context.h>
#include <grpcpp/server_context.h>

namespace shardmap::core {

namespace {

std::string firstValue(const grpc::AuthContext& context, const char* property)
{
    const auto values = context.FindPropertyValues(property);
    return values.empty() ? std::string() : std::string(values.front().data(), values.front().size());
}

} // namespace

std::string peerCertificateIdentity(const grpc::AuthContext& context)
{
    // gRPC names the peer only when it presented a certificate.
    if (!context.IsPeerAuthenticated())
        return {};
    // The typed SAN properties keep the certificate's order within each kind; the untyped
    // x509_subject_alternative_name mixes kinds (and IP addresses), so it does not serve here.
    for (const char* property : { GRPC_PEER_URI_PROPERTY_NAME, GRPC_PEER_DNS_PROPERTY_NAME }) {
        if (auto value = firstValue(context, property); !value.empty())
            return value;
    }
    return firstValue(context, GRPC_X509_CN_PROPERTY_NAME);
}

std::string peerCertificateIdentity(const grpc::ServerContext& context)
{
    const auto auth = context.auth_context();
    return auth ? peerCertificateIdentity(*auth) : std::string();
}

} // namespace shardmap::core
