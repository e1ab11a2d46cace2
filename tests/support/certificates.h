#pragma once

#include <cstdlib>
#include <string>

namespace shardmap::testing {

// Makes, with openssl, in dir: a CA (ca.pem, ca.key), a server certificate for localhost and
// 127.0.0.1 (server.pem, server.key) and a client certificate with CN "console" (client.pem,
// client.key). False if openssl failed.
inline bool makeTestCertificates(const std::string& dir)
{
    const std::string script = "cd '" + dir
        + "' && "
          "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key -out ca.pem -days "
          "2 -subj /CN=test-ca 2>/dev/null "
          "&& "
          "printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > san.ext && "
          "openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout server.key -out server.csr "
          "-subj /CN=localhost 2>/dev/null && "
          "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 "
          "-extfile san.ext 2>/dev/null && "
          "openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout client.key -out client.csr "
          "-subj /CN=console 2>/dev/null && "
          "openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out client.pem -days 2 "
          "-extfile san.ext 2>/dev/null";
    return std::system(script.c_str()) == 0;
}

// On top of makeTestCertificates, in the same dir, the client certificates the access tests
// need, each with its key (NAME.pem, NAME.key):
// - controller: identity (URI SAN) kControllerIdentity, the one the nodes list;
// - reader: identity (CN only) "reader-x", signed by the same CA but not listed;
// - expired: signed by the CA, valid only in 2020;
// - revoked: signed by the CA and revoked in ca.crl, the CA's revocation list (PEM);
//   expired.crl is an older list of the CA, past its next update;
// - intruder: CN "intruder", signed by another CA (other-ca.pem) the servers do not trust.
// openssl 3.0's x509 cannot backdate a certificate, so these go through `openssl ca` with a
// minimal CA configuration (ca.cnf, index.txt). False if openssl failed.
inline constexpr const char* kControllerIdentity = "spiffe://shardmap.test/shardmapd";

inline bool makeAccessTestCertificates(const std::string& dir)
{
    const std::string config = "[ca]\ndefault_ca = test_ca\n[test_ca]\ndatabase = index.txt\n"
                               "new_certs_dir = issued\ncertificate = ca.pem\nprivate_key = ca.key\n"
                               "serial = serial\ncrlnumber = crlnumber\ndefault_md = sha256\ndefault_days = 2\n"
                               "default_crl_days = 2\npolicy = any\nunique_subject = no\n"
                               "copy_extensions = copy\n[any]\ncommonName = supplied\n";
    const auto request = [](const std::string& name, const std::string& subject, const std::string& extra = {}) {
        return "openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout " + name + ".key -out "
            + name + ".csr -subj " + subject + " " + extra + " 2>/dev/null && ";
    };
    const auto sign = [](const std::string& name, const std::string& dates = {}) {
        return "openssl ca -batch -notext -config ca.cnf -in " + name + ".csr -out " + name + ".pem " + dates
            + " 2>/dev/null && ";
    };
    const std::string script = "cd '" + dir + "' && mkdir -p issued && : > index.txt && echo 1000 > serial && "
        + "echo 1000 > crlnumber && printf '" + config + "' > ca.cnf && "
        + request("controller", "/CN=shardmapd", std::string("-addext subjectAltName=URI:") + kControllerIdentity)
        + sign("controller") + request("reader", "/CN=reader-x") + sign("reader") + request("expired", "/CN=expired")
        + sign("expired", "-startdate 20200101000000Z -enddate 20200102000000Z") + request("revoked", "/CN=revoked")
        + sign("revoked")
        + "openssl ca -batch -config ca.cnf -revoke revoked.pem 2>/dev/null && "
          "openssl ca -batch -config ca.cnf -gencrl -out ca.crl 2>/dev/null && "
          "openssl ca -batch -config ca.cnf -gencrl -crl_lastupdate 20200101000000Z -crl_nextupdate "
          "20200102000000Z -out expired.crl 2>/dev/null && "
          "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout other-ca.key -out "
          "other-ca.pem -days 2 "
          "-subj /CN=other-ca 2>/dev/null && "
        + request("intruder", "/CN=intruder")
        + "openssl x509 -req -in intruder.csr -CA other-ca.pem -CAkey other-ca.key -CAcreateserial -out "
          "intruder.pem -days 2 2>/dev/null";
    return std::system(script.c_str()) == 0;
}

// On top of makeTestCertificates, in the same dir, two client certificates the test CA signs that
// try to pass for someone else through a field the servers must tell apart (issue 25), each with
// its key (NAME.pem, NAME.key):
// - uri-cn: subject CN kControllerIdentity and no subjectAltName, as if it were the controller whose
//   URI SAN that is;
// - dns-alice: subject CN "vera2" and DNS subjectAltName "alice", as if it were the admin whose CN
//   is alice.
// False if openssl failed.
inline bool makeLookalikeCertificates(const std::string& dir)
{
    const auto signedAs = [](const std::string& name, const std::string& subject, const std::string& extensions) {
        return "openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout " + name + ".key -out "
            + name + ".csr -subj '" + subject + "' 2>/dev/null && openssl x509 -req -in " + name
            + ".csr -CA ca.pem -CAkey ca.key -CAcreateserial -out " + name + ".pem -days 2 " + extensions
            + " 2>/dev/null";
    };
    // -subj separates fields with '/', so the URI's slashes are escaped.
    std::string uriSubject = std::string("/CN=") + kControllerIdentity;
    for (std::size_t at = uriSubject.find('/', 1); at != std::string::npos; at = uriSubject.find('/', at + 2))
        uriSubject.insert(at, "\\");
    const std::string script = "cd '" + dir + "' && printf 'subjectAltName=DNS:alice\\n' > dns-alice.ext && "
        + signedAs("uri-cn", uriSubject, "") + " && " + signedAs("dns-alice", "/CN=vera2", "-extfile dns-alice.ext");
    return std::system(script.c_str()) == 0;
}

} // namespace shardmap::testing
