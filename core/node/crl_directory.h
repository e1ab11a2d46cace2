#pragma once

// Certificate revocation for the servers' TLS, in the form gRPC reads it.

#include "core/util/result.h"

#include <memory>
#include <string>

namespace shardmap::core {

// The certificate revocation lists of --tls-crl in the form gRPC 1.51 reads them: a directory of
// files named after the hash of each issuer (<hash>.r0, as `openssl rehash` makes), which OpenSSL
// opens during handshakes. Administrators hand over one file (PEM, several CRLs concatenated, or
// DER), as for nginx's ssl_crl or etcd's --client-crl-file; the directory (in $TMPDIR, named
// after the process id) is private to the process and removed when the last holder lets go, or,
// after a SIGKILL, by the next server that makes one.
//
// Checked at start, so that a mistake stops the server rather than silently letting revoked
// certificates in (gRPC ignores a CA whose CRL it cannot find): every CRL parses, is issued and
// signed by a CA of caPem, and has not passed its next update.
class CrlDirectory final {
public:
    static Result<std::shared_ptr<CrlDirectory>> fromFile(const std::string& crlFile, const std::string& caPem);
    ~CrlDirectory();
    CrlDirectory(const CrlDirectory&) = delete;
    CrlDirectory& operator=(const CrlDirectory&) = delete;

    const std::string& path() const { return m_path; }

private:
    explicit CrlDirectory(std::string path)
        : m_path(std::move(path))
    {
    }

    std::string m_path;
};

} // namespace shardmap::core
