#pragma once

#include "core/auth/access_policy.h"
#include "core/client/admin_client.h"
#include "core/client/node_client.h"
#include "core/fleet/history_digest.h"
#include "core/map/shard_map.h"
#include "core/store/metadata_store.h"
#include "widgets/bridge/background.h"
#include "widgets/session/connection_spec.h"

#include <QHash>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QTimer>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace shardmap::widgets {

using MapPtr = std::shared_ptr<const core::MapSnapshot>;
using SamplePtr = std::shared_ptr<const core::NodeMetricsValue>;
using ChangeResult = core::Result<v1::ChangeResponse>;
// Makes one change of the Admin API's kind with a reason: through the facade on the store, or
// through shardmapd. A value that holds what it needs; call it on the connection's pool only.
using ChangeMaker = std::function<ChangeResult(const v1::AdminChange& change, const std::string& reason)>;

// The console's link to one fleet: the shard map's store (watched; every commit arrives as a
// new snapshot, the last one with the commit's records applied) and a live metrics stream from every node the map
// lists. Everything that touches the network or the disk runs on this object's pool or on gRPC's threads; results come
// back as values through signals on the UI thread. Lost links reconnect with backoff and say so (stateChanged,
// nodeLinkChanged).
class FleetConnection : public QObject {
    Q_OBJECT
public:
    enum class State { Disconnected, Connecting, Connected, Reconnecting };
    Q_ENUM(State)

    struct NodeLinkInfo {
        bool reachable = false;
        QString error;
        // When the next attempt starts (ms since epoch), 0 while connected.
        qint64 retryAtMs = 0;
    };

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
    bool readOnly() const;
    QString readOnlyReason() const;
    // Through shardmapd's Admin API: who it authenticated the console as, and that identity's
    // role (None until WhoAmI answered). Empty and None on a store connection.
    bool viaController() const { return m_spec.viaController(); }
    QString identity() const { return m_identity; }
    core::Role role() const { return m_role; }
    // "bob (operator)": what the status bar shows; empty on a store connection.
    QString identityText() const;
    // The Admin API client of a controller connection (nullptr otherwise). Use it on pool() only.
    std::shared_ptr<core::AdminClient> adminClient() const { return m_admin; }

    // The one way the console changes the fleet: locally core::applyChange on the store with
    // this console's user as the actor, through a controller AdminClient::change (the actor is
    // the identity shardmapd authenticated). done gets the result on the UI thread unless context
    // is gone; a response may await approval instead of being made (awaitingApprovalText).
    void submitChange(
        const v1::AdminChange& change, const QString& reason, QObject* context, std::function<void(ChangeResult)> done);
    // The same as a value, for pool work that reads before it changes (a plan checked against
    // the map first). Empty when not connected.
    ChangeMaker changeMaker();
    // "Awaiting approval as ap-…: drain shard s0 … It needs a second person because …".
    static QString awaitingApprovalText(const v1::ApprovalInfo& approval);
    // What a refused change says: shardmapd's own sentence for a permission refusal, a refusal
    // made of notes in the console's language (translatedError()), the error's description otherwise.
    static QString refusalText(const core::Error& error);
    // The audit actor of changes made on a store connection ("$USER@console").
    static QString localActorName();
    // Why the last attempt failed (empty when connected).
    QString lastError() const { return m_lastError; }
    // Its kind: core::refusesCaller() when the store refuses this connection's user.
    core::ErrorCode lastErrorCode() const { return m_lastErrorCode; }
    // The newest map (nullptr before the first one arrived).
    MapPtr map() const { return m_map; }
    // The newest sample of a node (nullptr if none yet), and when the newest of any node arrived.
    SamplePtr latestSample(const QString& nodeId) const;
    qint64 newestSampleArrivalMs() const { return m_newestArrivalMs; }
    // Samples the streams delivered that a newer one replaced before the UI thread took them
    // (since each stream started): a UI thread that falls behind skips, it never queues.
    std::uint64_t skippedSamples() const;
    NodeLinkInfo nodeLink(const QString& nodeId) const;

    // Ask a node's stream to carry per-space figures (detail views showing the node's spaces).
    // Counted: every acquire needs a release.
    void acquireSpaceDetail(const QString& nodeId);
    void releaseSpaceDetail(const QString& nodeId);

    // A node's metrics history since sinceUnixMs, delivered to done on the UI thread unless
    // context is gone by then.
    void fetchHistory(const QString& nodeId, qint64 sinceUnixMs, QObject* context,
        std::function<void(core::Result<core::MetricsHistoryValue>)> done);
    // The same history reduced to core::digestHistory on the pool: a day of a node with hundreds
    // of shards is a million figures, too many for the UI thread to walk.
    void fetchHistoryDigest(const QString& nodeId, qint64 sinceUnixMs, qint64 bucketMs, QObject* context,
        std::function<void(core::Result<core::HistoryDigest>)> done);

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
    struct NodeLink;
    struct SampleMailbox;

    void setState(State state, const QString& detail);
    struct Opened;
    void openStore(std::uint64_t generation);
    void storeOpened(std::uint64_t generation, Opened opened);
    void setIdentity(const QString& identity, core::Role role);
    void askWhoAmI();
    void storeFailed(std::uint64_t generation, const core::Error& error);
    // Reads the map anew (the watched commits applied to the shown one, or a whole read). A
    // retired map is freed on the pool first.
    void refreshMap(MapPtr retired = {});
    void releaseOnPool(MapPtr map);
    static void releaseMap(MapPtr& map);
    void mapArrived(std::uint64_t generation, core::Result<core::MapSnapshot> map);
    void startWatch(std::uint64_t generation, std::uint64_t fromRevision);
    void syncNodes(const std::map<std::string, core::NodeRecord>& nodes);
    void connectNode(NodeLink& link);
    void subscribe(NodeLink& link);
    void nodeFailed(const QString& nodeId, std::uint64_t linkGeneration, const QString& error);
    void checkStaleStreams();
    // The client that asks nodeId for its history; null with the reason when there is none.
    std::shared_ptr<core::NodeClient> historyClient(const QString& nodeId, core::Error& why) const;
    // Runs ask with nodeId's client on the pool and hands its answer to done on the UI thread.
    template <typename T>
    void askNode(const QString& nodeId, QObject* context, std::function<core::Result<T>(core::NodeClient&)> ask,
        std::function<void(core::Result<T>)> done);
    int backoffDelay(int failures) const;
    // Destroys a stream or watch handle on the pool: their destructors wait for callbacks in flight.
    template <typename Handle> void disposeLater(Handle handle);

    ConnectionSpec m_spec;
    State m_state = State::Disconnected;
    QString m_lastError;
    core::ErrorCode m_lastErrorCode = core::ErrorCode::Internal;
    QThreadPool m_pool;
    Generation m_generation;
    std::shared_ptr<core::MetadataStore> m_store;
    StoreWrapper m_storeWrapper;
    std::shared_ptr<core::AdminClient> m_admin;
    QString m_identity;
    core::Role m_role = core::Role::None;
    std::shared_ptr<core::NodeClientPool> m_requestNodes;
    QString m_requestNodesKey;
    std::shared_ptr<core::WatchHandle> m_watch;
    bool m_watchStarted = false;
    // The commits the watch delivered that no refresh has taken yet, in revision order. The
    // watch appends on the store's thread; each watch has its own, so an old watch's late
    // records never reach a newer map.
    struct WatchedCommits {
        std::mutex mutex;
        std::vector<core::AuditRecord> records;
    };
    std::shared_ptr<WatchedCommits> m_watched;
    int m_storeFailures = 0;
    QTimer m_storeRetry;
    bool m_refreshRunning = false;
    bool m_refreshPending = false;
    MapPtr m_map;
    QHash<QString, std::shared_ptr<NodeLink>> m_nodes;
    QHash<QString, int> m_spaceDetail;
    qint64 m_newestArrivalMs = 0;
    QTimer m_staleCheck;
    QTimer m_whoAmI;
    int m_backoffFirstMs = 500;
    int m_backoffMaxMs = 15000;
};

} // namespace shardmap::widgets
