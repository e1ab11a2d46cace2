#pragma once

// The node's own metrics: current figures for GetMetrics and WatchMetrics, and a day of history.

#include "core/metrics/history_ring.h"
#include "core/metrics/latency_histogram.h"
#include "core/metrics/process_monitor.h"
#include "core/node/shard_registry.h"
#include "shardmap/v1/node.pb.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace shardmap::core {

// Samples the node's metrics: the process and system figures from /proc, and per-shard and
// per-space activity turned into rates. A background thread takes a "current" sample every tick
// (what GetMetrics and WatchMetrics report) and a history sample every history interval, kept in
// a ring (24 h at 10 s by default) so a console that connects late still draws the last day.
class NodeMetricsSampler final {
public:
    struct Options {
        std::string nodeId;
        std::chrono::milliseconds tick { 1000 };
        std::chrono::milliseconds historyInterval { 10000 };
        std::size_t historyCapacity = 8640;
    };

    NodeMetricsSampler(Options options, ShardRegistry& registry);
    ~NodeMetricsSampler();
    NodeMetricsSampler(const NodeMetricsSampler&) = delete;
    NodeMetricsSampler& operator=(const NodeMetricsSampler&) = delete;

    void start();
    void stop();

    // Every search the service answers, for node-wide latency percentiles.
    void recordQuery(double milliseconds);
    // Every write batch it applies, the same way (the balancer's write-p99 guard reads them).
    void recordWrite(double milliseconds);

    v1::NodeMetrics current(bool includeSpaces) const;
    v1::MetricsHistory history(std::int64_t sinceUnixMs) const;

private:
    // The cumulative counters at the start of a window, to turn the next read into rates.
    struct Window {
        std::chrono::steady_clock::time_point at;
        std::map<std::string, ShardActivity> shards;
        bool primed = false;
    };
    enum class Which { Tick, History };

    void run();
    void addShardsSinceLastSample(v1::NodeMetrics& out) const;
    v1::NodeMetrics sample(Window& window, Which which);
    void fillShard(v1::ShardMetrics& out, const ShardEntry& entry, Window& window, double seconds, Which which);

    Options m_options;
    ShardRegistry& m_registry;
    ProcessMonitor m_processTick;
    ProcessMonitor m_processHistory;
    LatencyHistogram m_nodeTickLatency;
    LatencyHistogram m_nodeHistoryLatency;
    LatencyHistogram m_nodeWriteTickLatency;
    LatencyHistogram m_nodeWriteHistoryLatency;
    Window m_tickWindow;
    Window m_historyWindow;

    mutable std::mutex m_mutex;
    v1::NodeMetrics m_current;
    HistoryRing<v1::NodeMetrics> m_history;

    std::mutex m_stopMutex;
    std::condition_variable m_stopCondition;
    bool m_stopping = false;
    std::thread m_thread;
};

} // namespace shardmap::core
