#pragma once

// Per-interval latency percentiles from a histogram cheap enough to record every query.

#include <array>
#include <atomic>
#include <cstdint>

namespace shardmap::core {

struct LatencySummary {
    std::uint64_t count = 0;
    double p50Ms = 0;
    double p99Ms = 0;
};

// A lock-free histogram of latencies in log-spaced buckets (about 10 % relative width, from 1 µs
// to over 100 s). record() is cheap enough for every query; takeAndReset() returns the summary of
// what was recorded since the previous call, for a per-interval p50/p99.
class LatencyHistogram final {
public:
    static constexpr int kBuckets = 200;

    void record(double milliseconds);
    LatencySummary takeAndReset();
    LatencySummary peek() const;

    static int bucketFor(double milliseconds);
    static double bucketUpperMs(int bucket);

private:
    std::array<std::atomic<std::uint64_t>, kBuckets> m_counts {};
};

} // namespace shardmap::core
