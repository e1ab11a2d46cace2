#pragma once

// A thin asynchronous wrapper around the system keyring (QtKeychain when the build found it).
// Results always arrive later on the UI thread, by callback, and only while the context object
// lives; nothing here waits for the keyring. Never falls back to plain-text storage.

#include <QObject>
#include <QString>
#include <functional>

namespace shardmap::widgets::keyring {

enum class Status {
    Ok,
    NotFound, // no secret stored under that key
    NoKeyring, // no keyring service (no D-Bus secret service, or built without QtKeychain)
    Failed, // the keyring refused or failed; see detail
};

struct Result {
    Status status = Status::Ok;
    QString value; // the secret, for reads
    QString detail; // the keyring's own message when status is not Ok
};

using Callback = std::function<void(const Result&)>;

// Whether the build includes QtKeychain at all (a keyring service may still be missing).
bool compiledIn();

void readSecret(const QString& service, const QString& key, QObject* context, Callback done);
void writeSecret(const QString& service, const QString& key, const QString& secret, QObject* context, Callback done);
void deleteSecret(const QString& service, const QString& key, QObject* context, Callback done);

} // namespace shardmap::widgets::keyring
