#pragma once

// Why a server refused our client certificate, asked after gRPC could only say "Socket closed".

#include "core/client/node_client.h"

#include <chrono>
#include <string>

namespace shardmap::core {

// Why a server refused our client certificate, in a sentence ("refused our client certificate:
// it expired at ..."), or empty when it did not. gRPC cannot say: its servers close the
// connection without a TLS alert, so the client sees "Socket closed". This handshake of its own
// (TLS 1.2, our certificate) tells a refused certificate from a server that is down or speaks no
// TLS, and what the client can see of its certificate says why: its validity dates, and whether
// the CA it trusts for the server (options.caFile) signed it. Revocation is known only to the
// server, whose log has OpenSSL's verification code. Only for after a failure: it opens a
// connection within timeout.
std::string probeTlsRefusal(
    const std::string& address, const NodeClientOptions& options, std::chrono::milliseconds timeout);

} // namespace shardmap::core
