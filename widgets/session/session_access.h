#pragma once

// Who the console is on a connection and what it may do: read-only by choice or as a viewer,
// and, through shardmapd, the identity and role its WhoAmI answers (asked again every few seconds,
// so a promotion or a demotion shows without reconnecting).

#include "core/auth/access_policy.h"
#include "core/client/admin_client.h"
#include "widgets/bridge/background.h"

#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QTimer>
#include <memory>

namespace shardmap::widgets {

class SessionAccess : public QObject {
    Q_OBJECT
public:
    // pool and generation belong to the owner (the connection) and outlive this object: a WhoAmI
    // answer that arrives after the owner's generation moved on is dropped.
    SessionAccess(QThreadPool& pool, const Generation& generation, QObject* parent = nullptr);

    // The connection's own choice (read-only) and whether it goes through shardmapd.
    void setConnection(bool readOnlyChosen, bool viaController);
    // Connected: the identity shardmapd named (empty on a store connection), and WhoAmI asked
    // again on admin from now on.
    void start(std::shared_ptr<core::AdminClient> admin, const QString& identity, core::Role role);
    // Closed: no more WhoAmI, no identity (identityChanged if there was one).
    void clear();

    // A read-only connection: its store refuses every write (core::makeReadOnly), or shardmapd
    // says the caller is a viewer; the pages disable their actions and say why (readOnlyReason).
    bool readOnly() const;
    QString readOnlyReason() const;
    QString identity() const { return m_identity; }
    core::Role role() const { return m_role; }
    // "bob (operator)": what the status bar shows; empty on a store connection.
    QString identityText() const;

signals:
    // WhoAmI answered differently (at connect, every few seconds after, and on close: empty
    // identity, Role::None); readOnly() may have changed with it.
    void identityChanged(const QString& identity, shardmap::core::Role role);

private:
    void setIdentity(const QString& identity, core::Role role);
    void askWhoAmI();

    QThreadPool& m_pool;
    const Generation& m_generation;
    bool m_readOnlyChosen = false;
    bool m_viaController = false;
    std::shared_ptr<core::AdminClient> m_admin;
    QString m_identity;
    core::Role m_role = core::Role::None;
    QTimer m_whoAmI;
};

} // namespace shardmap::widgets
