#pragma once

#include "core/client/node_client.h"

#include <QString>
#include <string>

namespace shardmap::widgets {

// What the console needs to reach a fleet: the shard map's store and how to talk to its nodes.
// The password is never part of storeUri (which is what recent connections and the status bar
// show); it travels separately and is kept in the system keyring, if at all.
struct ConnectionSpec {
    // "sqlite:PATH" or "etcd://HOST:PORT[,...]/PREFIX[?user=U&ca=F&cert=F&key=F]", no password.
    QString storeUri;
    QString password;
    // PEM files for TLS to the nodes; empty: plaintext (loopback fleets).
    QString nodeCaFile;
    QString nodeCertFile;
    QString nodeKeyFile;
    int metricsIntervalMs = 1000;

    bool isEtcd() const { return storeUri.startsWith(QLatin1String("etcd://")); }
    // The URI handed to core::openStore: storeUri with the password added (percent-encoded).
    std::string storeUriWithSecret() const;
    core::NodeClientOptions nodeOptions() const;
    // The key recent connections and the keyring use for this connection.
    QString key() const { return storeUri; }
    bool operator==(const ConnectionSpec&) const = default;
};

// storeUri without any password=... query item (for specs built from a URI pasted with one).
// Returns the password it removed in *password when given.
QString stripPassword(const QString& uri, QString* password = nullptr);

} // namespace shardmap::widgets
