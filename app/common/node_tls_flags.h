#pragma once

// The flags with which shardmapd and shardmapctl reach shard nodes that accept only TLS (and
// mutual TLS): one definition for both programs. Checked by core::checkNodeClientTls.

#include "core/client/node_client.h"

#include <CLI/CLI.hpp>

namespace shardmap::app {

inline void addNodeTlsFlags(CLI::App& app, core::NodeClientOptions& options)
{
    app.add_option("--node-tls-ca", options.caFile,
           "PEM CA that signed the nodes' certificates: talk TLS to the nodes (default: $SHARDMAP_NODE_TLS_CA)")
        ->envname("SHARDMAP_NODE_TLS_CA");
    app.add_option("--node-tls-cert", options.certFile,
           "PEM client certificate for nodes that require one (mutual TLS; default: $SHARDMAP_NODE_TLS_CERT)")
        ->envname("SHARDMAP_NODE_TLS_CERT");
    app.add_option(
           "--node-tls-key", options.keyFile, "PEM private key of --node-tls-cert (default: $SHARDMAP_NODE_TLS_KEY)")
        ->envname("SHARDMAP_NODE_TLS_KEY");
}

} // namespace shardmap::app
