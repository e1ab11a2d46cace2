#include "core/metrics/latency_histogram.h"

// LatencyHistogram's implementation: the log-spaced bucket bounds, the atomic counts, and the
// percentiles of a summary read from them.

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace shardmap::core {

namespace {

constexpr double kFirstUpperMs = 0.001; // 1 µs: below any latency a query can have
constexpr double kGrowth = 1.1; // each bucket 10 % wider, so a reported percentile is within 10 %

using Counts = std::array<std::uint64_t, LatencyHistogram::kBuckets>;

// Computed once, each bound from pow() rather than by repeated multiplication so rounding does
// not accumulate over 200 steps. bucketFor() searches it, which keeps bucketFor() and
// bucketUpperMs() exactly consistent at the boundaries, where log() could round either way.
const std::array<double, LatencyHistogram::kBuckets>& upperBounds()
{
    static const auto bounds = [] {
        std::array<double, LatencyHistogram::kBuckets> out {};
        for (std::size_t i = 0; i < out.size(); ++i)
            out[i] = kFirstUpperMs * std::pow(kGrowth, static_cast<double>(i));
        return out;
    }();
    return bounds;
}

// The upper bound of the bucket where the cumulative count first reaches the rank
// ceil(percent / 100 * total). Integer arithmetic, because in floating point 0.99 * 100 can come
// out a hair above 99 and round the rank up past the sample it should name.
double percentileMs(const Counts& counts, std::uint64_t total, std::uint64_t percent)
{
    const std::uint64_t rank = std::max<std::uint64_t>(1, (total * percent + 99) / 100);
    std::uint64_t cumulative = 0;
    for (int i = 0; i < LatencyHistogram::kBuckets; ++i) {
        cumulative += counts[static_cast<std::size_t>(i)];
        if (cumulative >= rank)
            return LatencyHistogram::bucketUpperMs(i);
    }
    return LatencyHistogram::bucketUpperMs(LatencyHistogram::kBuckets - 1);
}

LatencySummary summarize(const Counts& counts)
{
    LatencySummary summary;
    for (const std::uint64_t n : counts)
        summary.count += n;
    if (summary.count == 0)
        return summary;
    summary.p50Ms = percentileMs(counts, summary.count, 50);
    summary.p99Ms = percentileMs(counts, summary.count, 99);
    return summary;
}

} // namespace

void LatencyHistogram::record(double milliseconds)
{
    // Relaxed: each bucket is an independent counter and readers need no ordering with any other
    // memory, only that no increment is lost.
    m_counts[static_cast<std::size_t>(bucketFor(milliseconds))].fetch_add(1, std::memory_order_relaxed);
}

LatencySummary LatencyHistogram::takeAndReset()
{
    // Not one atomic snapshot across buckets: a record() racing with this lands either in this
    // summary or in the next one, but exchange() guarantees it is counted exactly once.
    Counts counts {};
    for (std::size_t i = 0; i < counts.size(); ++i)
        counts[i] = m_counts[i].exchange(0, std::memory_order_relaxed);
    return summarize(counts);
}

LatencySummary LatencyHistogram::peek() const
{
    Counts counts {};
    for (std::size_t i = 0; i < counts.size(); ++i)
        counts[i] = m_counts[i].load(std::memory_order_relaxed);
    return summarize(counts);
}

int LatencyHistogram::bucketFor(double milliseconds)
{
    // Written so that NaN also lands in bucket 0: a bogus measurement must not index out of range.
    if (!(milliseconds > kFirstUpperMs))
        return 0;
    const auto& bounds = upperBounds();
    // The first bucket whose upper bound is >= the value; past the last bound, the last bucket.
    const auto it = std::lower_bound(bounds.begin(), bounds.end(), milliseconds);
    if (it == bounds.end())
        return kBuckets - 1;
    return static_cast<int>(it - bounds.begin());
}

double LatencyHistogram::bucketUpperMs(int bucket)
{
    const int clamped = std::clamp(bucket, 0, kBuckets - 1);
    return upperBounds()[static_cast<std::size_t>(clamped)];
}

} // namespace shardmap::core
