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
          "openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=test-ca 2>/dev/null "
          "&& "
          "printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > san.ext && "
          "openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj /CN=localhost 2>/dev/null && "
          "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 "
          "-extfile san.ext 2>/dev/null && "
          "openssl req -newkey rsa:2048 -nodes -keyout client.key -out client.csr -subj /CN=console 2>/dev/null && "
          "openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out client.pem -days 2 "
          "-extfile san.ext 2>/dev/null";
    return std::system(script.c_str()) == 0;
}

} // namespace shardmap::testing
