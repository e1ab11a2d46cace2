#pragma once

// The node's WatchMetrics streams on gRPC's callback API, bounded per peer.

#include "core/node/node_metrics.h"
#include "core/util/result.h"
#include "shardmap/v1/node.grpc.pb.h"

#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <set>
#include <string>

namespace shardmap::core {

// The node's WatchMetrics streams, served on gRPC's callback API: a stream holds no thread, only a
// reactor that writes a sample and an alarm that wakes it for the next one, so a thousand
// watchers cost memory, not a thousand threads. A peer (the client's address without its port)
// holds at most maxPerPeer streams at once; one more is refused with RESOURCE_EXHAUSTED saying so.
class MetricsWatchers final {
public:
    MetricsWatchers(NodeMetricsSampler& metrics, std::size_t maxPerPeer);
    MetricsWatchers(const MetricsWatchers&) = delete;
    MetricsWatchers& operator=(const MetricsWatchers&) = delete;

    // Starts a stream for one WatchMetrics call; ResourceExhausted when its peer holds
    // maxPerPeer streams already, Unavailable once stopAll was called.
    Result<grpc::ServerWriteReactor<v1::NodeMetrics>*> watch(
        grpc::CallbackServerContext* context, const v1::WatchMetricsRequest& request);
    // Ends every stream (OK) and refuses new ones, so that a shutdown does not wait on them.
    void stopAll();

private:
    class Stream;

    void release(Stream* stream);

    NodeMetricsSampler& m_metrics;
    const std::size_t m_maxPerPeer;
    std::mutex m_mutex;
    std::map<std::string, std::size_t> m_perPeer;
    std::set<Stream*> m_streams;
    bool m_stopping = false;
};

// A stream that ends at once with status (a refusal).
grpc::ServerWriteReactor<v1::NodeMetrics>* finishedStream(grpc::Status status);

// "ipv4:10.0.0.7:51234" -> "ipv4:10.0.0.7", "ipv6:[::1]:51234" -> "ipv6:[::1]": the host a
// connection comes from, whatever port it uses.
std::string peerHost(const std::string& peer);

} // namespace shardmap::core
