#pragma once

// A node's metrics history reduced to what the fleet overview draws: writes, searches and disk per
// bucket, and each shard's growth over the window.

#include "core/client/node_client.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shardmap::core {

// A node's writes per second: the sum over its shards.
double writesPerSecond(const NodeMetricsValue& sample);

// What a fleet overview keeps of one node's metrics history. A day of history holds every shard
// of the node in every sample (700 shards × 1,440 samples is a million figures); the digest is the
// node's last sample in each bucket and each shard's oldest bytes in the window, a few thousand
// figures, so that it can be reduced on a worker thread and merged on the UI thread.
struct HistoryDigest {
    struct Bucket {
        std::int64_t startMs = 0;
        double writesPerSecond = 0;
        double searchesPerSecond = 0;
        double diskUsedBytes = 0;
    };
    struct ShardBytes {
        std::string shard;
        std::int64_t unixMs = 0;
        std::uint64_t bytes = 0;
    };
    // Ascending by start; each from the node's last sample in [start, start + bucketMs).
    std::vector<Bucket> buckets;
    // Each shard's oldest sample at or after the window's start, in the order first seen.
    std::vector<ShardBytes> oldestBytes;
};

// Samples before sinceUnixMs are left out; bucketMs > 0.
HistoryDigest digestHistory(const MetricsHistoryValue& history, std::int64_t sinceUnixMs, std::int64_t bucketMs);

} // namespace shardmap::core
