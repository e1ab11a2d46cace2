#pragma once

// The node's WatchMetrics streams on gRPC's asynchronous API with a queue and a thread of their
// own, bounded per peer.

#include "core/node/node_metrics.h"
#include "core/util/result.h"
#include "shardmap/v1/node.grpc.pb.h"

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace grpc {
class ServerBuilder;
} // namespace grpc

namespace shardmap::core {

// The node's WatchMetrics streams: a stream holds no thread, only its call, the sample being
// written and an alarm that brings the next one due, all completed on one completion queue that
// one thread of this class drains; a thousand watchers cost memory, not a thousand threads. Not on
// gRPC's callback API: its threads nap 100 ms after every idle second while polling the
// connections the sync server's calls come in on, and a write arriving then waited for them
// (docs/BENCHMARKS.md, "gRPC's callback queue and the write tail"). A peer (the client's address
// without its port) holds at most maxPerPeer streams at once; one more is refused with
// RESOURCE_EXHAUSTED saying so.
class MetricsWatchers final {
public:
    // Raw: the request is parsed here, so that one that does not parse is refused as
    // INVALID_ARGUMENT like every other method's (gRPC's own parse would answer INTERNAL).
    using Service = v1::Node::WithRawMethod_WatchMetrics<v1::Node::Service>;
    // How a refusal is answered (and logged) for the call of this context.
    using Refuse = std::function<grpc::Status(grpc::ServerContext*, const Error&)>;

    MetricsWatchers(NodeMetricsSampler& metrics, std::size_t maxPerPeer);
    ~MetricsWatchers();
    MetricsWatchers(const MetricsWatchers&) = delete;
    MetricsWatchers& operator=(const MetricsWatchers&) = delete;

    // Before the server is built: the queue the streams complete on.
    void attach(grpc::ServerBuilder& builder, Service& service, Refuse refuse);
    // Once the server started: waits for the first call and starts the queue's thread.
    void start();
    // Ends every stream (OK) and refuses new ones, so that the server's shutdown does not wait on them.
    void stopAll();
    // After the server shut down: drains the queue and joins its thread.
    void close();

private:
    class Stream;

    void awaitCall();
    void run();
    // A call arrived on stream: its place, or the refusal that ends it.
    Status admit(Stream& stream);
    void release(Stream& stream);

    NodeMetricsSampler& m_metrics;
    const std::size_t m_maxPerPeer;
    Service* m_service = nullptr;
    Refuse m_refuse;
    std::unique_ptr<grpc::ServerCompletionQueue> m_queue;
    std::thread m_thread;
    std::mutex m_mutex;
    std::map<std::string, std::size_t> m_perPeer;
    std::set<Stream*> m_streams;
    bool m_stopping = false;
};

// "ipv4:10.0.0.7:51234" -> "ipv4:10.0.0.7", "ipv6:[::1]:51234" -> "ipv6:[::1]": the host a
// connection comes from, whatever port it uses.
std::string peerHost(const std::string& peer);

} // namespace shardmap::core
