#pragma once

// The live metrics stream of every node the map lists: one link per node, reconnected with
// backoff when it fails or goes quiet, the newest sample of each kept for the pages, and the
// nodes' metrics history asked for on the pool.

#include "core/client/node_client.h"
#include "core/fleet/history_digest.h"
#include "core/map/map_types.h"
#include "widgets/session/reconnect_backoff.h"

#include <QHash>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QTimer>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace shardmap::widgets {

using SamplePtr = std::shared_ptr<const core::NodeMetricsValue>;

struct NodeLinkInfo {
    bool reachable = false;
    QString error;
    // When the next attempt starts (ms since epoch), 0 while connected.
    qint64 retryAtMs = 0;
};

class NodeStreams : public QObject {
    Q_OBJECT
public:
    // pool and backoff belong to the owner (the connection) and outlive this object.
    NodeStreams(QThreadPool& pool, const ReconnectBackoff& backoff, QObject* parent = nullptr);
    ~NodeStreams() override;

    // How the next streams are opened: the node client's TLS and deadline, the metrics interval.
    void setStreamOptions(const core::NodeClientOptions& options, int metricsIntervalMs);
    // One stream per node of nodes that is not retired; a node whose address changed starts anew,
    // one no longer listed is dropped.
    void sync(const std::map<std::string, core::NodeRecord>& nodes);
    // Starts the check that treats a stream without samples as lost (once connected).
    void startStaleCheck();
    // Ends every stream.
    void close();

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

signals:
    void nodeSample(const QString& nodeId, const shardmap::widgets::SamplePtr& sample);
    void nodeLinkChanged(const QString& nodeId, bool reachable, const QString& error);

private:
    struct NodeLink;
    struct SampleMailbox;

    void addLink(const QString& nodeId, const std::string& address);
    void dropLink(NodeLink& link);
    void connectNode(NodeLink& link);
    void subscribe(NodeLink& link);
    void sampleArrived(const QString& nodeId, std::uint64_t linkGeneration, const SamplePtr& sample);
    void nodeFailed(const QString& nodeId, std::uint64_t linkGeneration, const QString& error);
    void checkStaleStreams();
    // The client that asks nodeId for its history; null with the reason when there is none.
    std::shared_ptr<core::NodeClient> historyClient(const QString& nodeId, core::Error& why) const;
    // Runs ask with nodeId's client on the pool and hands its answer to done on the UI thread.
    template <typename T>
    void askNode(const QString& nodeId, QObject* context, std::function<core::Result<T>(core::NodeClient&)> ask,
        std::function<void(core::Result<T>)> done);

    QThreadPool& m_pool;
    const ReconnectBackoff& m_backoff;
    core::NodeClientOptions m_options;
    int m_metricsIntervalMs = 1000;
    QHash<QString, std::shared_ptr<NodeLink>> m_nodes;
    QHash<QString, int> m_spaceDetail;
    qint64 m_newestArrivalMs = 0;
    QTimer m_staleCheck;
};

} // namespace shardmap::widgets
