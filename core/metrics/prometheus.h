#pragma once

// Metrics in the Prometheus text exposition format (version 0.0.4), for the servers'
// --metrics-listen endpoint: counters and histograms that the code updates as things happen
// (lock-free after the first lookup: keep the reference), and collectors that read gauges and
// counters kept elsewhere (the node's sampler, the shard stores) when Prometheus scrapes. Debian
// 12's prometheus-cpp 1.0.1 was measured against it and not taken: its updates are 2-4 times
// slower, its rendering no faster, and the collectors would be ours all the same
// (docs/OPERATIONS.md, scripts/prometheus_cpp_compare.cpp).

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace shardmap::core {

using MetricLabels = std::vector<std::pair<std::string, std::string>>;

class MetricCounter final {
public:
    void add(std::uint64_t n = 1) { m_value.fetch_add(n, std::memory_order_relaxed); }
    std::uint64_t value() const { return m_value.load(std::memory_order_relaxed); }

private:
    std::atomic<std::uint64_t> m_value { 0 };
};

// Cumulative buckets with upper bounds `bounds` (ascending; +Inf is implied), a sum and a count.
class MetricHistogram final {
public:
    explicit MetricHistogram(std::vector<double> bounds);
    void observe(double value);

    const std::vector<double>& bounds() const { return m_bounds; }
    // Cumulative counts per bound, then +Inf (= count).
    std::vector<std::uint64_t> cumulative() const;
    double sum() const;
    std::uint64_t count() const { return m_count.load(std::memory_order_relaxed); }

private:
    std::vector<double> m_bounds;
    std::unique_ptr<std::atomic<std::uint64_t>[]> m_buckets; // one per bound, plus +Inf
    std::atomic<std::uint64_t> m_count { 0 };
    std::atomic<std::uint64_t> m_sumMicros { 0 }; // the sum in millionths, to stay lock-free
};

// Latency buckets in seconds, 0.5 ms to 10 s.
const std::vector<double>& latencyBucketsSeconds();

// Writes families in the text format; collectors get one at each scrape.
class MetricsWriter final {
public:
    // type: "counter", "gauge" or "histogram". Once per family, before its samples.
    void family(const std::string& name, const std::string& type, const std::string& help);
    void sample(const std::string& name, const MetricLabels& labels, double value);
    void histogram(const std::string& name, const MetricLabels& labels, const MetricHistogram& histogram);
    std::string text() && { return std::move(m_out); }

private:
    std::string m_out;
};

class MetricsRegistry final {
public:
    // The same name and labels give the same counter; its family's help is the first one given.
    MetricCounter& counter(const std::string& name, const std::string& help, const MetricLabels& labels = {});
    MetricHistogram& histogram(const std::string& name, const std::string& help, const MetricLabels& labels = {},
        const std::vector<double>& bounds = latencyBucketsSeconds());

    using Collector = std::function<void(MetricsWriter&)>;
    void addCollector(Collector collector);

    // Everything, in the text format: the registry's families (by name), then the collectors'.
    std::string render() const;

private:
    struct Family {
        std::string help;
        std::map<std::string, std::pair<MetricLabels, std::unique_ptr<MetricCounter>>> counters;
        std::map<std::string, std::pair<MetricLabels, std::unique_ptr<MetricHistogram>>> histograms;
    };
    // The family of this name (its help set on first use); m_mutex held.
    Family& familyFor(const std::string& name, const std::string& help);

    mutable std::mutex m_mutex;
    std::map<std::string, Family> m_families;
    std::vector<Collector> m_collectors;
};

// "a\"b" -> a\\\"b : the label value escaping of the text format.
std::string escapeLabelValue(const std::string& value);

} // namespace shardmap::core
