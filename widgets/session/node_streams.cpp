// NodeStreams' implementation: a link per node with its own generation (an older stream's values
// are dropped), samples handed over through a mailbox that skips instead of queueing, and a
// fresh client per connect attempt. Its messages keep the connection's translation context.
#include "widgets/session/node_streams.h"

#include "widgets/bridge/background.h"
#include "widgets/session/pool_disposal.h"
#include "widgets/style/conversions.h"

#include <QCoreApplication>
#include <QPointer>
#include <QSet>
#include <algorithm>
#include <atomic>
#include <mutex>
#include <utility>

namespace shardmap::widgets {

namespace {

constexpr int kStaleCheckMs = 1000;
// A stream that sent nothing for this many intervals is treated as lost (a stopped process keeps
// its connection open but sends nothing).
constexpr int kStaleIntervals = 5;

} // namespace

// Where a metrics stream leaves its newest sample for the UI thread. The stream's thread puts;
// only the first put after a take posts a callback, and that callback takes the newest sample. A UI
// thread that falls behind (a long map change, a starved CPU) then skips samples instead of
// queueing every one of them, each holding a whole node's figures.
struct NodeStreams::SampleMailbox {
    std::mutex mutex;
    SamplePtr pending;
    bool posted = false;
    // When the stream last delivered (ms since epoch), read by the stale-stream check: a sample
    // waiting for a busy UI thread still shows the stream is alive.
    std::atomic<qint64> arrivedMs { 0 };
    std::atomic<std::uint64_t> skipped { 0 };

    // Returns whether the caller must post a callback that takes the sample.
    bool put(SamplePtr sample, qint64 now)
    {
        arrivedMs.store(now, std::memory_order_relaxed);
        const std::lock_guard lock(mutex);
        if (pending)
            skipped.fetch_add(1, std::memory_order_relaxed);
        pending = std::move(sample);
        return !std::exchange(posted, true);
    }

    SamplePtr take()
    {
        const std::lock_guard lock(mutex);
        posted = false;
        return std::move(pending);
    }
};

// One node's metrics stream and its reconnect state. Lives on the UI thread; the subscription's
// callbacks only post values back, tagged with the generation they belong to.
struct NodeStreams::NodeLink {
    QString id;
    std::string address;
    std::shared_ptr<core::NodeClient> client;
    std::unique_ptr<core::MetricsSubscription> subscription;
    // Grows with every (re)subscription: values of an older stream are dropped.
    std::uint64_t generation = 0;
    bool connecting = false;
    bool includeSpaces = false;
    bool reachable = false;
    QString error;
    int failures = 0;
    qint64 retryAtMs = 0;
    qint64 lastSampleMs = 0;
    qint64 subscribedAtMs = 0;
    QTimer* retry = nullptr;
    SamplePtr latest;
    std::shared_ptr<SampleMailbox> mailbox;
};

NodeStreams::NodeStreams(QThreadPool& pool, const ReconnectBackoff& backoff, QObject* parent)
    : QObject(parent)
    , m_pool(pool)
    , m_backoff(backoff)
{
    m_staleCheck.setInterval(kStaleCheckMs);
    connect(&m_staleCheck, &QTimer::timeout, this, &NodeStreams::checkStaleStreams);
}

NodeStreams::~NodeStreams()
{
    close();
}

void NodeStreams::setStreamOptions(const core::NodeClientOptions& options, int metricsIntervalMs)
{
    m_options = options;
    m_metricsIntervalMs = metricsIntervalMs;
}

void NodeStreams::startStaleCheck()
{
    m_staleCheck.start();
}

void NodeStreams::close()
{
    m_staleCheck.stop();
    for (const auto& link : std::as_const(m_nodes)) {
        dropLink(*link);
    }
    m_nodes.clear();
    m_newestArrivalMs = 0;
}

void NodeStreams::dropLink(NodeLink& link)
{
    ++link.generation;
    delete link.retry;
    link.retry = nullptr;
    disposeOnPool(m_pool, std::move(link.subscription));
}

void NodeStreams::sync(const std::map<std::string, core::NodeRecord>& nodes)
{
    QSet<QString> wanted;
    for (const auto& [id, node] : nodes) {
        if (node.retired) {
            continue;
        }
        const QString nodeId = QString::fromStdString(id);
        wanted.insert(nodeId);
        auto found = m_nodes.find(nodeId);
        if (found != m_nodes.end() && (*found)->address == node.address) {
            continue;
        }
        if (found != m_nodes.end()) {
            dropLink(**found);
            m_nodes.erase(found);
        }
        addLink(nodeId, node.address);
    }
    for (auto it = m_nodes.begin(); it != m_nodes.end();) {
        if (wanted.contains(it.key())) {
            ++it;
            continue;
        }
        dropLink(**it);
        it = m_nodes.erase(it);
    }
}

void NodeStreams::addLink(const QString& nodeId, const std::string& address)
{
    auto link = std::make_shared<NodeLink>();
    link->id = nodeId;
    link->address = address;
    link->includeSpaces = m_spaceDetail.value(nodeId) > 0;
    link->retry = new QTimer(this);
    link->retry->setSingleShot(true);
    connect(link->retry, &QTimer::timeout, this, [this, nodeId] {
        if (auto it = m_nodes.find(nodeId); it != m_nodes.end()) {
            connectNode(**it);
        }
    });
    m_nodes.insert(nodeId, link);
    connectNode(*link);
}

void NodeStreams::connectNode(NodeLink& link)
{
    // A fresh client (and channel) per attempt: a gRPC channel that saw its server die can sit in
    // its own reconnect backoff for many seconds after the server is back.
    if (link.connecting) {
        return;
    }
    link.connecting = true;
    const std::uint64_t generation = ++link.generation;
    const std::string address = link.address;
    const core::NodeClientOptions options = m_options;
    const QString nodeId = link.id;
    runInBackground(
        m_pool, this,
        [address, options]() -> core::Result<std::shared_ptr<core::NodeClient>> {
            auto client = core::GrpcNodeClient::connect(address, options);
            if (!client) {
                return client.error();
            }
            return std::shared_ptr<core::NodeClient>(std::move(*client));
        },
        [this, nodeId, generation](core::Result<std::shared_ptr<core::NodeClient>> client) {
            auto it = m_nodes.find(nodeId);
            if (it == m_nodes.end() || (*it)->generation != generation) {
                return;
            }
            NodeLink& current = **it;
            current.connecting = false;
            if (!client) {
                nodeFailed(nodeId, generation, QString::fromStdString(client.error().describe()));
                return;
            }
            current.client = std::move(*client);
            subscribe(current);
        });
}

void NodeStreams::subscribe(NodeLink& link)
{
    disposeOnPool(m_pool, std::move(link.subscription));
    const std::uint64_t generation = ++link.generation;
    const QString nodeId = link.id;
    QPointer<NodeStreams> self(this);
    link.subscribedAtMs = nowMs();
    link.lastSampleMs = 0;
    auto mailbox = std::make_shared<SampleMailbox>();
    link.mailbox = mailbox;
    link.subscription = link.client->watchMetrics(
        std::chrono::milliseconds(m_metricsIntervalMs), link.includeSpaces,
        [self, nodeId, generation, mailbox](const core::NodeMetricsValue& value) {
            if (!mailbox->put(std::make_shared<const core::NodeMetricsValue>(value), nowMs())) {
                return; // a posted callback will take this sample
            }
            postTo(self.data(),
                [self, nodeId, generation, mailbox] { self->sampleArrived(nodeId, generation, mailbox->take()); });
        },
        [self, nodeId, generation](const core::Status& status) {
            const QString error = status.ok() ? QString() : QString::fromStdString(status.error().describe());
            postTo(self.data(), [self, nodeId, generation, error] {
                self->nodeFailed(nodeId, generation,
                    error.isEmpty()
                        ? QCoreApplication::translate("shardmap::widgets::FleetConnection", "the metrics stream ended")
                        : error);
            });
        });
}

void NodeStreams::sampleArrived(const QString& nodeId, std::uint64_t linkGeneration, const SamplePtr& sample)
{
    auto it = m_nodes.find(nodeId);
    if (!sample || it == m_nodes.end() || (*it)->generation != linkGeneration) {
        return;
    }
    NodeLink& current = **it;
    const qint64 now = nowMs();
    current.lastSampleMs = now;
    current.latest = sample;
    m_newestArrivalMs = now;
    if (!current.reachable) {
        current.reachable = true;
        current.failures = 0;
        current.error.clear();
        current.retryAtMs = 0;
        emit nodeLinkChanged(nodeId, true, QString());
    }
    emit nodeSample(nodeId, sample);
}

void NodeStreams::nodeFailed(const QString& nodeId, std::uint64_t linkGeneration, const QString& error)
{
    auto it = m_nodes.find(nodeId);
    if (it == m_nodes.end() || (*it)->generation != linkGeneration) {
        return; // an older stream, or one we ended ourselves
    }
    NodeLink& link = **it;
    ++link.generation;
    link.connecting = false;
    disposeOnPool(m_pool, std::move(link.subscription));
    link.client.reset();
    ++link.failures;
    const int delay = m_backoff.delayMs(link.failures);
    link.retryAtMs = nowMs() + delay;
    link.retry->start(delay);
    const bool changed = link.reachable || link.error != error;
    link.reachable = false;
    link.error = error;
    if (changed) {
        emit nodeLinkChanged(nodeId, false, error);
    }
}

void NodeStreams::checkStaleStreams()
{
    const qint64 now = nowMs();
    const qint64 limit = static_cast<qint64>(m_metricsIntervalMs) * kStaleIntervals + 2000;
    for (const auto& link : std::as_const(m_nodes)) {
        if (!link->subscription) {
            continue;
        }
        const qint64 arrived = std::max(link->lastSampleMs, link->mailbox ? link->mailbox->arrivedMs.load() : 0);
        const qint64 since = arrived ? arrived : link->subscribedAtMs;
        if (now - since > limit) {
            nodeFailed(link->id, link->generation,
                QCoreApplication::translate("shardmap::widgets::FleetConnection", "no metrics for %1 s")
                    .arg((now - since) / 1000));
        }
    }
}

std::uint64_t NodeStreams::skippedSamples() const
{
    std::uint64_t skipped = 0;
    for (const auto& link : m_nodes) {
        skipped += link->mailbox ? link->mailbox->skipped.load() : 0;
    }
    return skipped;
}

SamplePtr NodeStreams::latestSample(const QString& nodeId) const
{
    auto it = m_nodes.find(nodeId);
    return it == m_nodes.end() ? nullptr : (*it)->latest;
}

NodeLinkInfo NodeStreams::nodeLink(const QString& nodeId) const
{
    auto it = m_nodes.find(nodeId);
    if (it == m_nodes.end()) {
        return {};
    }
    return { (*it)->reachable, (*it)->error, (*it)->retryAtMs };
}

void NodeStreams::acquireSpaceDetail(const QString& nodeId)
{
    if (++m_spaceDetail[nodeId] != 1) {
        return;
    }
    if (auto it = m_nodes.find(nodeId); it != m_nodes.end()) {
        (*it)->includeSpaces = true;
        if ((*it)->client && (*it)->subscription) {
            subscribe(**it);
        }
    }
}

void NodeStreams::releaseSpaceDetail(const QString& nodeId)
{
    auto count = m_spaceDetail.find(nodeId);
    if (count == m_spaceDetail.end() || --(*count) > 0) {
        return;
    }
    m_spaceDetail.erase(count);
    if (auto it = m_nodes.find(nodeId); it != m_nodes.end()) {
        (*it)->includeSpaces = false;
        if ((*it)->client && (*it)->subscription) {
            subscribe(**it);
        }
    }
}

std::shared_ptr<core::NodeClient> NodeStreams::historyClient(const QString& nodeId, core::Error& why) const
{
    auto it = m_nodes.find(nodeId);
    std::shared_ptr<core::NodeClient> client = it == m_nodes.end() ? nullptr : (*it)->client;
    if (!client) {
        const QString reason = it == m_nodes.end()
            ? QCoreApplication::translate("shardmap::widgets::FleetConnection", "node %1 is not in the map").arg(nodeId)
            : QCoreApplication::translate("shardmap::widgets::FleetConnection", "node %1 is unreachable: %2")
                  .arg(nodeId, (*it)->error);
        why = core::makeError(core::ErrorCode::Unavailable, reason.toStdString(), nodeId.toStdString());
    }
    return client;
}

template <typename T>
void NodeStreams::askNode(const QString& nodeId, QObject* context,
    std::function<core::Result<T>(core::NodeClient&)> ask, std::function<void(core::Result<T>)> done)
{
    core::Error why;
    auto client = historyClient(nodeId, why);
    if (!client) {
        postTo(context, [done, why] { done(why); });
        return;
    }
    runInBackground(
        m_pool, context, [client, ask = std::move(ask)] { return ask(*client); }, std::move(done));
}

void NodeStreams::fetchHistory(const QString& nodeId, qint64 sinceUnixMs, QObject* context,
    std::function<void(core::Result<core::MetricsHistoryValue>)> done)
{
    askNode<core::MetricsHistoryValue>(
        nodeId, context, [sinceUnixMs](core::NodeClient& client) { return client.metricsHistory(sinceUnixMs); },
        std::move(done));
}

void NodeStreams::fetchHistoryDigest(const QString& nodeId, qint64 sinceUnixMs, qint64 bucketMs, QObject* context,
    std::function<void(core::Result<core::HistoryDigest>)> done)
{
    askNode<core::HistoryDigest>(
        nodeId, context,
        [sinceUnixMs, bucketMs](core::NodeClient& client) -> core::Result<core::HistoryDigest> {
            auto history = client.metricsHistory(sinceUnixMs);
            if (!history) {
                return history.error();
            }
            return core::digestHistory(*history, sinceUnixMs, bucketMs);
        },
        std::move(done));
}

} // namespace shardmap::widgets
