// The history digest's implementation: one pass over the samples, keeping each bucket's last sample
// and each shard's oldest bytes.
#include "core/fleet/history_digest.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace shardmap::core {

double writesPerSecond(const NodeMetricsValue& sample)
{
    double writes = 0;
    for (const auto& shard : sample.shards) {
        writes += shard.writesPerSecond;
    }
    return writes;
}

HistoryDigest digestHistory(const MetricsHistoryValue& history, std::int64_t sinceUnixMs, std::int64_t bucketMs)
{
    HistoryDigest digest;
    std::map<std::int64_t, const NodeMetricsValue*> lastInBucket;
    std::unordered_map<std::string, std::size_t> shardAt;
    for (const NodeMetricsValue& sample : history.samples) {
        if (sample.unixMs < sinceUnixMs) {
            continue;
        }
        const std::int64_t start = sample.unixMs / bucketMs * bucketMs;
        const NodeMetricsValue*& last = lastInBucket[start];
        if (!last || sample.unixMs >= last->unixMs) {
            last = &sample;
        }
        for (const ShardMetricsValue& shard : sample.shards) {
            const auto [it, added] = shardAt.try_emplace(shard.shard, digest.oldestBytes.size());
            if (added) {
                digest.oldestBytes.push_back({ shard.shard, sample.unixMs, shard.bytesEstimate });
            } else if (HistoryDigest::ShardBytes& oldest = digest.oldestBytes[it->second];
                       sample.unixMs < oldest.unixMs) {
                oldest.unixMs = sample.unixMs;
                oldest.bytes = shard.bytesEstimate;
            }
        }
    }
    digest.buckets.reserve(lastInBucket.size());
    for (const auto& [start, sample] : lastInBucket) {
        const double used
            = static_cast<double>(sample->diskTotalBytes - std::min(sample->diskFreeBytes, sample->diskTotalBytes));
        digest.buckets.push_back({ start, writesPerSecond(*sample), sample->queriesPerSecond, used });
    }
    return digest;
}

} // namespace shardmap::core
