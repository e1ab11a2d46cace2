#pragma once

// The one way the console changes the fleet: an Admin API change made on the store with this
// console's user as the actor, or sent to shardmapd (the actor is the identity it authenticated);
// and what the console says of a change refused or awaiting approval.

#include "core/client/admin_client.h"
#include "core/client/node_client.h"
#include "core/store/metadata_store.h"

#include <QObject>
#include <QString>
#include <QThreadPool>
#include <functional>
#include <memory>
#include <string>

namespace shardmap::widgets {

using ChangeResult = core::Result<v1::ChangeResponse>;
// Makes one change of the Admin API's kind with a reason: through the facade on the store, or
// through shardmapd. A value that holds what it needs; call it on the connection's pool only.
using ChangeMaker = std::function<ChangeResult(const v1::AdminChange& change, const std::string& reason)>;

class FleetChanges {
public:
    // pool belongs to the owner (the connection) and outlives this object.
    explicit FleetChanges(QThreadPool& pool);

    // Where changes go: to admin when set, else onto store with nodes' clients; nowhere when
    // neither is set (not connected).
    void setTarget(std::shared_ptr<core::MetadataStore> store, std::shared_ptr<core::AdminClient> admin,
        std::shared_ptr<core::NodeClientPool> nodes);

    // Makes change on the pool; done gets the result on the UI thread unless context is gone. A
    // response may await approval instead of being made (awaitingApprovalText).
    void submitChange(
        const v1::AdminChange& change, const QString& reason, QObject* context, std::function<void(ChangeResult)> done);
    // The same as a value, for pool work that reads before it changes (a plan checked against
    // the map first). Empty when not connected.
    ChangeMaker changeMaker() const;

    // "Awaiting approval as ap-…: drain shard s0 … It needs a second person because …".
    static QString awaitingApprovalText(const v1::ApprovalInfo& approval);
    // What a refused change says: shardmapd's own sentence for a permission refusal, a refusal
    // made of notes in the console's language (translatedError()), the error's description otherwise.
    static QString refusalText(const core::Error& error);
    // The audit actor of changes made on a store connection ("$USER@console").
    static QString localActorName();

private:
    QThreadPool& m_pool;
    std::shared_ptr<core::MetadataStore> m_store;
    std::shared_ptr<core::AdminClient> m_admin;
    std::shared_ptr<core::NodeClientPool> m_nodes;
};

} // namespace shardmap::widgets
