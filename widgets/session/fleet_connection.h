#pragma once

// The console's link to one fleet: opens the store or shardmapd's Admin API, reconnects it, and owns
// the parts every page uses (the map, the node streams, the changes, who the console is).

#include "core/auth/access_policy.h"
#include "core/client/admin_client.h"
#include "core/client/node_client.h"
#include "core/fleet/history_digest.h"
#include "core/map/shard_map.h"
#include "core/store/metadata_store.h"
#include "widgets/bridge/background.h"
#include "widgets/session/connection_spec.h"
#include "widgets/session/fleet_changes.h"
#include "widgets/session/map_follower.h"
#include "widgets/session/node_streams.h"
#include "widgets/session/reconnect_backoff.h"
#include "widgets/session/session_access.h"

#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QTimer>
#include <functional>
#include <memory>
#include <string>
#include <utility>

namespace shardmap::widgets {

// The console's link to one fleet: the shard map's store (watched; every commit arrives as a
// new snapshot, the last one with the commit's records applied) and a live metrics stream from every node the map
// lists. Everything that touches the network or the disk runs on this object's pool or on gRPC's threads; results come
// back as values through signals on the UI thread. Lost links reconnect with backoff and say so (stateChanged,
// nodeLinkChanged).
//
// It opens the store (or shardmapd's Admin API) and reconnects it; the rest is done by the parts it
// owns, which a page may use directly: the map (mapFollower()), the node streams (nodeStreams()),
// the changes (changes()) and who the console is there (access()). Its own methods and signals
// forward to them.
class FleetConnection : public QObject {
    Q_OBJECT
public:
    enum class State { Disconnected, Connecting, Connected, Reconnecting };
    Q_ENUM(State)

    using NodeLinkInfo = shardmap::widgets::NodeLinkInfo;

    explicit FleetConnection(QObject* parent = nullptr);
    ~FleetConnection() override;

    // Connects to the fleet (closing the current one first). Returns at once; stateChanged and
    // mapChanged follow.
    void open(const ConnectionSpec& spec);
    void close();

    State state() const { return m_state; }
    const ConnectionSpec& spec() const { return m_spec; }
    // A read-only connection: its store refuses every write (core::makeReadOnly), or shardmapd
    // says the caller is a viewer; the pages disable their actions and say why (readOnlyReason).
    bool readOnly() const { return m_access.readOnly(); }
    QString readOnlyReason() const { return m_access.readOnlyReason(); }
    // Through shardmapd's Admin API: who it authenticated the console as, and that identity's
    // role (None until WhoAmI answered). Empty and None on a store connection.
    bool viaController() const { return m_spec.viaController(); }
    QString identity() const { return m_access.identity(); }
    core::Role role() const { return m_access.role(); }
    // "bob (operator)": what the status bar shows; empty on a store connection.
    QString identityText() const { return m_access.identityText(); }
    // The Admin API client of a controller connection (nullptr otherwise). Use it on pool() only.
    std::shared_ptr<core::AdminClient> adminClient() const { return m_admin; }

    // The one way the console changes the fleet: locally core::applyChange on the store with
    // this console's user as the actor, through a controller AdminClient::change (the actor is
    // the identity shardmapd authenticated). done gets the result on the UI thread unless context
    // is gone; a response may await approval instead of being made (awaitingApprovalText).
    void submitChange(
        const v1::AdminChange& change, const QString& reason, QObject* context, std::function<void(ChangeResult)> done)
    {
        m_changes.submitChange(change, reason, context, std::move(done));
    }
    // The same as a value, for pool work that reads before it changes (a plan checked against
    // the map first). Empty when not connected.
    ChangeMaker changeMaker() const { return m_changes.changeMaker(); }
    // "Awaiting approval as ap-…: drain shard s0 … It needs a second person because …".
    static QString awaitingApprovalText(const v1::ApprovalInfo& approval)
    {
        return FleetChanges::awaitingApprovalText(approval);
    }
    // What a refused change says: shardmapd's own sentence for a permission refusal, a refusal
    // made of notes in the console's language (translatedError()), the error's description otherwise.
    static QString refusalText(const core::Error& error) { return FleetChanges::refusalText(error); }
    // The audit actor of changes made on a store connection ("$USER@console").
    static QString localActorName() { return FleetChanges::localActorName(); }
    // Why the last attempt failed (empty when connected).
    QString lastError() const { return m_lastError; }
    // Its kind: core::refusesCaller() when the store refuses this connection's user.
    core::ErrorCode lastErrorCode() const { return m_lastErrorCode; }
    // The newest map (nullptr before the first one arrived).
    MapPtr map() const { return m_follower.map(); }
    // The newest sample of a node (nullptr if none yet), and when the newest of any node arrived.
    SamplePtr latestSample(const QString& nodeId) const { return m_streams.latestSample(nodeId); }
    qint64 newestSampleArrivalMs() const { return m_streams.newestSampleArrivalMs(); }
    // Samples the streams delivered that a newer one replaced before the UI thread took them
    // (since each stream started): a UI thread that falls behind skips, it never queues.
    std::uint64_t skippedSamples() const { return m_streams.skippedSamples(); }
    NodeLinkInfo nodeLink(const QString& nodeId) const { return m_streams.nodeLink(nodeId); }

    // Ask a node's stream to carry per-space figures (detail views showing the node's spaces).
    // Counted: every acquire needs a release.
    void acquireSpaceDetail(const QString& nodeId) { m_streams.acquireSpaceDetail(nodeId); }
    void releaseSpaceDetail(const QString& nodeId) { m_streams.releaseSpaceDetail(nodeId); }

    // A node's metrics history since sinceUnixMs, delivered to done on the UI thread unless
    // context is gone by then.
    void fetchHistory(const QString& nodeId, qint64 sinceUnixMs, QObject* context,
        std::function<void(core::Result<core::MetricsHistoryValue>)> done)
    {
        m_streams.fetchHistory(nodeId, sinceUnixMs, context, std::move(done));
    }
    // The same history reduced to core::digestHistory on the pool: a day of a node with hundreds
    // of shards is a million figures, too many for the UI thread to walk.
    void fetchHistoryDigest(const QString& nodeId, qint64 sinceUnixMs, qint64 bucketMs, QObject* context,
        std::function<void(core::Result<core::HistoryDigest>)> done)
    {
        m_streams.fetchHistoryDigest(nodeId, sinceUnixMs, bucketMs, context, std::move(done));
    }

    // The parts, for a page that needs only one of them.
    MapFollower& mapFollower() { return m_follower; }
    NodeStreams& nodeStreams() { return m_streams; }
    FleetChanges& changes() { return m_changes; }
    SessionAccess& access() { return m_access; }

    // For actions of later pages (run them on pool(), never on the UI thread).
    std::shared_ptr<core::MetadataStore> store() const { return m_store; }
    QThreadPool& pool() { return m_pool; }
    // Node clients for requests of later pages (preflights, planner figures), with the
    // connection's node TLS settings; made anew when those change. Use them on pool() only.
    std::shared_ptr<core::NodeClientPool> requestNodes();

    // Backoff of store and node reconnects: first delay, doubled per failure up to the cap.
    void setReconnectBackoff(int firstMs, int maxMs);

    // Tests only: wraps each store this connection opens, to count or fail calls around the
    // real store. Set before open().
    using StoreWrapper = std::function<std::shared_ptr<core::MetadataStore>(std::shared_ptr<core::MetadataStore>)>;
    void setStoreWrapper(StoreWrapper wrapper) { m_storeWrapper = std::move(wrapper); }

signals:
    void stateChanged(shardmap::widgets::FleetConnection::State state, const QString& detail);
    void mapChanged(const shardmap::widgets::MapPtr& map);
    void nodeSample(const QString& nodeId, const shardmap::widgets::SamplePtr& sample);
    void nodeLinkChanged(const QString& nodeId, bool reachable, const QString& error);
    // WhoAmI answered differently (at connect, every few seconds after, and on close: empty
    // identity, Role::None); readOnly() may have changed with it.
    void identityChanged(const QString& identity, shardmap::core::Role role);

private:
    struct Opened;

    void setState(State state, const QString& detail);
    void openStore(std::uint64_t generation);
    // On the pool: shardmapd's Admin API as a store, with who it says the console is.
    static core::Result<Opened> openThroughController(
        core::AdminClientOptions admin, const std::string& tokenFile, bool readOnly);
    void storeOpened(std::uint64_t generation, Opened opened);
    void storeFailed(std::uint64_t generation, const core::Error& error);
    void mapArrived(bool changed);
    // Tells the changes where they go now: after every change of the store or the admin client.
    void routeChanges();

    ConnectionSpec m_spec;
    State m_state = State::Disconnected;
    QString m_lastError;
    core::ErrorCode m_lastErrorCode = core::ErrorCode::Internal;
    // Declared before the parts, which use it until they are gone.
    QThreadPool m_pool;
    // Grows with every attempt to open the store, and on close and failure: every answer of an
    // older attempt (a map, a watch, WhoAmI) is dropped.
    Generation m_generation;
    ReconnectBackoff m_backoff;
    std::shared_ptr<core::MetadataStore> m_store;
    StoreWrapper m_storeWrapper;
    std::shared_ptr<core::AdminClient> m_admin;
    std::shared_ptr<core::NodeClientPool> m_requestNodes;
    QString m_requestNodesKey;
    int m_storeFailures = 0;
    QTimer m_storeRetry;
    MapFollower m_follower;
    NodeStreams m_streams;
    FleetChanges m_changes;
    SessionAccess m_access;
};

} // namespace shardmap::widgets
