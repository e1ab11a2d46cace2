#include "core/client/tls_probe.h"

// probeTlsRefusal's implementation: a TCP connection and a TLS 1.2 handshake of its own with our
// certificate, then what our side can see of that certificate (its dates, the CA that signed it).

#include <cstdlib>
#include <cstring>
#include <memory>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

namespace shardmap::core {

namespace {

struct SocketCloser {
    void operator()(const int* fd) const
    {
        ::close(*fd);
        delete fd;
    }
};
struct CtxFree {
    void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};
struct SslFree {
    void operator()(SSL* ssl) const { SSL_free(ssl); }
};

// A TCP connection to host:port whose connect, reads and writes give up after timeout; -1 if none.
int connectWithTimeout(const std::string& host, int port, std::chrono::milliseconds timeout)
{
    addrinfo hints {};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0)
        return -1;
    std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> addresses(found, &::freeaddrinfo);
    timeval limit {};
    limit.tv_sec = static_cast<time_t>(timeout.count() / 1000);
    limit.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
    for (auto* address = found; address; address = address->ai_next) {
        const int fd = ::socket(address->ai_family, address->ai_socktype, address->ai_protocol);
        if (fd < 0)
            continue;
        // On Linux SO_SNDTIMEO bounds connect() too.
        ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
        ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
        if (::connect(fd, address->ai_addr, address->ai_addrlen) == 0)
            return fd;
        ::close(fd);
    }
    return -1;
}

struct X509Free {
    void operator()(X509* cert) const { X509_free(cert); }
};
struct StoreFree {
    void operator()(X509_STORE* store) const { X509_STORE_free(store); }
};
struct StoreCtxFree {
    void operator()(X509_STORE_CTX* ctx) const { X509_STORE_CTX_free(ctx); }
};

std::string timeText(const ASN1_TIME* time)
{
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), &BIO_free);
    ASN1_TIME_print(bio.get(), time);
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, static_cast<std::size_t>(size));
}

bool signedByCa(X509* cert, const std::string& caFile)
{
    std::unique_ptr<X509_STORE, StoreFree> store(X509_STORE_new());
    if (!store || X509_STORE_load_file(store.get(), caFile.c_str()) != 1)
        return true; // nothing to tell
    std::unique_ptr<X509_STORE_CTX, StoreCtxFree> ctx(X509_STORE_CTX_new());
    if (!ctx || X509_STORE_CTX_init(ctx.get(), store.get(), cert, nullptr) != 1)
        return true;
    // The dates are judged on their own; here only who signed it.
    X509_STORE_CTX_set_flags(ctx.get(), X509_V_FLAG_NO_CHECK_TIME);
    return X509_verify_cert(ctx.get()) == 1;
}

// What the client can see of why its certificate was refused.
std::string reasonFromOurCertificate(const NodeClientOptions& options)
{
    const std::string generic
        = "refused our client certificate (--node-tls-cert): revoked, or signed by a CA it does not trust (the "
          "server's log says \"Certificate verify failed with code N\": 23 revoked, 20 or 19 an unknown CA)";
    std::unique_ptr<BIO, decltype(&BIO_free)> file(BIO_new_file(options.certFile.c_str(), "r"), &BIO_free);
    std::unique_ptr<X509, X509Free> cert(file ? PEM_read_bio_X509(file.get(), nullptr, nullptr, nullptr) : nullptr);
    if (!cert)
        return generic;
    if (X509_cmp_current_time(X509_get0_notAfter(cert.get())) < 0)
        return "refused our client certificate (--node-tls-cert): it expired at "
            + timeText(X509_get0_notAfter(cert.get()));
    if (X509_cmp_current_time(X509_get0_notBefore(cert.get())) > 0)
        return "refused our client certificate (--node-tls-cert): it is valid only from "
            + timeText(X509_get0_notBefore(cert.get()));
    if (!signedByCa(cert.get(), options.caFile))
        return "refused our client certificate (--node-tls-cert): it is not signed by the CA of --node-tls-ca, so "
               "most likely by a CA the server does not trust";
    return generic;
}

} // namespace

std::string probeTlsRefusal(
    const std::string& address, const NodeClientOptions& options, std::chrono::milliseconds timeout)
{
    if (options.certFile.empty() || options.keyFile.empty())
        return {};
    const auto colon = address.rfind(':');
    if (colon == std::string::npos)
        return {};
    std::string host = address.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    const int port = std::atoi(address.c_str() + colon + 1);
    std::unique_ptr<SSL_CTX, CtxFree> ctx(SSL_CTX_new(TLS_client_method()));
    if (!ctx || SSL_CTX_use_certificate_chain_file(ctx.get(), options.certFile.c_str()) != 1
        || SSL_CTX_use_PrivateKey_file(ctx.get(), options.keyFile.c_str(), SSL_FILETYPE_PEM) != 1)
        return {};
    // In TLS 1.2 the server judges our certificate before the handshake ends.
    SSL_CTX_set_max_proto_version(ctx.get(), TLS1_2_VERSION);
    // Only the server's verdict on our certificate matters here, not ours on its.
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_NONE, nullptr);
    static const unsigned char kAlpn[] = { 2, 'h', '2' };
    SSL_CTX_set_alpn_protos(ctx.get(), kAlpn, sizeof kAlpn);
    const int fd = connectWithTimeout(host, port, timeout);
    if (fd < 0)
        return {};
    std::unique_ptr<int, SocketCloser> socket(new int(fd));
    std::unique_ptr<SSL, SslFree> ssl(SSL_new(ctx.get()));
    if (!ssl || SSL_set_fd(ssl.get(), fd) != 1)
        return {};
    const bool accepted = SSL_connect(ssl.get()) == 1;
    // A server that answered with its certificate and then cut the handshake refused ours.
    std::unique_ptr<X509, X509Free> serverCert(SSL_get1_peer_certificate(ssl.get()));
    ERR_clear_error();
    if (accepted || !serverCert)
        return {};
    return reasonFromOurCertificate(options);
}

} // namespace shardmap::core
