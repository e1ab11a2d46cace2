#pragma once

// The connections the console opened lately: kept in the settings, their passwords in the keyring.

#include "widgets/session/connection_spec.h"

#include <QList>
#include <QObject>
#include <QString>
#include <functional>
#include <optional>

class QMenu;

namespace shardmap::widgets {

// The connections the console opened lately, most recent first (at most kMaxEntries), kept in
// QSettings without any password. A password goes to the system keyring (service "shardmap",
// key spec.key()) when one is available and is never written to the settings: without a keyring
// it is simply not remembered and passwordNotSaved() says why. Keyring work is asynchronous;
// results arrive by signal or callback on the UI thread.
class RecentConnections : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxEntries = 10;

    explicit RecentConnections(QObject* parent = nullptr);
    // Tests use their own settings group and keyring service.
    RecentConnections(const QString& settingsGroup, const QString& keyringService, QObject* parent = nullptr);

    QList<ConnectionSpec> list() const; // most recent first, passwords empty
    bool hasSavedPassword(const QString& key) const;
    // The remembered connection of the profile with this name (`shardmap --profile NAME`).
    std::optional<ConnectionSpec> profile(const QString& name) const;

    // Moves spec to the front (settings now, password to the keyring asynchronously: then
    // passwordSaved or passwordNotSaved). An empty password removes a stored one.
    void remember(const ConnectionSpec& spec);
    void forget(const QString& key);
    void clear();

    // done(password, error) runs later on the UI thread while context lives; error is a
    // translated sentence, empty on success.
    void loadPassword(
        const QString& key, QObject* context, std::function<void(QString password, QString error)> done) const;

    // Fills menu with one action per recent connection (they emit connectionRequested) and keeps
    // it filled as the list changes (the menu may be destroyed first).
    void bindMenu(QMenu* menu);

    static QString displayName(const ConnectionSpec& spec);

Q_SIGNALS:
    void changed();
    void passwordSaved(const QString& key);
    void passwordNotSaved(const QString& key, const QString& message);
    void connectionRequested(const shardmap::widgets::ConnectionSpec& spec);

private:
    struct Entry {
        ConnectionSpec spec;
        bool hasPassword = false;
    };
    QList<Entry> entries() const;
    void store(const QList<Entry>& entries);
    void storePassword(const QString& key, const QString& password);
    void fillMenu(QMenu* menu);

    QString m_group;
    QString m_service;
};

} // namespace shardmap::widgets
