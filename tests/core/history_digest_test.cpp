#include "core/fleet/history_digest.h"

#include <gtest/gtest.h>
#include <map>

namespace shardmap::core {
namespace {

NodeMetricsValue sample(std::int64_t unixMs, double queries, std::uint64_t freeBytes,
    std::vector<std::pair<std::string, std::uint64_t>> shardBytes, double writesEach = 1)
{
    NodeMetricsValue value;
    value.unixMs = unixMs;
    value.queriesPerSecond = queries;
    value.diskTotalBytes = 1000;
    value.diskFreeBytes = freeBytes;
    for (auto& [shard, bytes] : shardBytes) {
        ShardMetricsValue figures;
        figures.shard = shard;
        figures.bytesEstimate = bytes;
        figures.writesPerSecond = writesEach;
        value.shards.push_back(std::move(figures));
    }
    return value;
}

TEST(HistoryDigest, KeepsEachBucketsLastSampleAndEachShardsOldestBytesInTheWindow)
{
    MetricsHistoryValue history;
    // Out of order on purpose: the digest must not depend on the node's order.
    history.samples.push_back(sample(60'500, 7, 400, { { "s1", 150 }, { "s2", 20 } }, 2));
    history.samples.push_back(sample(500, 99, 0, { { "s1", 1 } })); // before the window
    history.samples.push_back(sample(60'100, 5, 500, { { "s1", 110 }, { "s3", 7 } }));
    history.samples.push_back(sample(120'000, 9, 100, { { "s1", 200 }, { "s2", 30 }, { "s3", 9 } }, 3));
    history.samples.push_back(sample(60'900, 6, 2000, { { "s1", 190 } }, 4)); // free > total: 0 used

    const HistoryDigest digest = digestHistory(history, 1000, 60'000);

    ASSERT_EQ(digest.buckets.size(), 2u);
    EXPECT_EQ(digest.buckets[0].startMs, 60'000);
    EXPECT_DOUBLE_EQ(digest.buckets[0].searchesPerSecond, 6);
    EXPECT_DOUBLE_EQ(digest.buckets[0].writesPerSecond, 4);
    EXPECT_DOUBLE_EQ(digest.buckets[0].diskUsedBytes, 0);
    EXPECT_EQ(digest.buckets[1].startMs, 120'000);
    EXPECT_DOUBLE_EQ(digest.buckets[1].searchesPerSecond, 9);
    EXPECT_DOUBLE_EQ(digest.buckets[1].writesPerSecond, 9);
    EXPECT_DOUBLE_EQ(digest.buckets[1].diskUsedBytes, 900);

    std::map<std::string, std::pair<std::int64_t, std::uint64_t>> oldest;
    for (const auto& shard : digest.oldestBytes) {
        EXPECT_TRUE(oldest.emplace(shard.shard, std::pair { shard.unixMs, shard.bytes }).second) << shard.shard;
    }
    EXPECT_EQ(oldest,
        (std::map<std::string, std::pair<std::int64_t, std::uint64_t>> {
            { "s1", { 60'100, 110 } }, { "s2", { 60'500, 20 } }, { "s3", { 60'100, 7 } } }));
}

TEST(HistoryDigest, AnEmptyOrOldHistoryDigestsToNothing)
{
    EXPECT_TRUE(digestHistory({}, 0, 60'000).buckets.empty());
    MetricsHistoryValue history;
    history.samples.push_back(sample(10, 1, 0, { { "s1", 5 } }));
    const HistoryDigest digest = digestHistory(history, 11, 60'000);
    EXPECT_TRUE(digest.buckets.empty());
    EXPECT_TRUE(digest.oldestBytes.empty());
}

} // namespace
} // namespace shardmap::core
