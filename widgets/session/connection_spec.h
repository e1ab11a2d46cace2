#pragma once

// How the console reaches one fleet (store or shardmapd, node TLS, profile, read-only), and the
// texts of what a read-only or viewer connection refuses.

#include "core/client/node_client.h"

#include <QColor>
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
    // A connection profile: a name for people, the environment it reaches ("production",
    // "staging", "development" or anything else; shown in the title and status bar), a colour for
    // it (empty: the environment's own, production red), and read-only: the store is opened
    // through core::makeReadOnly and every action of the console is disabled.
    QString profileName;
    QString environment;
    QString colour;
    bool readOnly = false;
    // shardmapd's Admin API (HOST:PORT): when set, the map is read and every change made through
    // it as the identity it authenticates (mutual TLS with the CA, certificate and key below, or
    // the bearer token in tokenFile), and storeUri is not used.
    QString controllerAddress;
    QString controllerCaFile;
    QString controllerCertFile;
    QString controllerKeyFile;
    QString controllerTokenFile;

    bool viaController() const { return !controllerAddress.isEmpty(); }
    bool isEtcd() const { return storeUri.startsWith(QLatin1String("etcd://")); }
    // The URI handed to core::openStore: storeUri with the password added (percent-encoded).
    std::string storeUriWithSecret() const;
    core::NodeClientOptions nodeOptions() const;
    // What the status bar shows as the fleet's address: the controller's or the store URI.
    QString endpoint() const { return viaController() ? controllerAddress : storeUri; }
    // The key recent connections and the keyring use: the profile's name, or the store URI of a
    // connection without one.
    QString key() const { return profileName.isEmpty() ? endpoint() : QStringLiteral("profile:") + profileName; }
    // The profile's colour: its own, or its environment's (production red, staging amber,
    // development green, test blue), or none (an invalid colour).
    QColor environmentColour() const;
    // "acme-prod (production, read-only)": what title bars and status bars show.
    QString title() const;
    bool operator==(const ConnectionSpec&) const = default;
};

// Why an action is not offered on a read-only connection, translated.
QString readOnlyRefusal();
// Why an action is not offered to a viewer of shardmapd's Admin API, translated.
QString viewerRefusal();

// storeUri without any password=... query item (for specs built from a URI pasted with one).
// Returns the password it removed in *password when given.
QString stripPassword(const QString& uri, QString* password = nullptr);

} // namespace shardmap::widgets
