#include "core/placement/allocator.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

using namespace shardmap::core;

namespace {

ShardLoad shardLoad(std::string id, std::uint64_t docs = 0, std::uint64_t bytes = 0, std::uint64_t spaces = 0)
{
    ShardLoad load;
    load.shard.id = std::move(id);
    load.shard.node = "n1";
    load.docs = docs;
    load.bytes = bytes;
    load.spaces = spaces;
    return load;
}

ShardLoad withState(ShardLoad load, ShardState state)
{
    load.shard.state = state;
    return load;
}

ShardLoad withCapacity(ShardLoad load, std::uint64_t capacityDocs, std::uint64_t capacityBytes)
{
    load.shard.capacityDocs = capacityDocs;
    load.shard.capacityBytes = capacityBytes;
    return load;
}

std::string allocated(AllocationStrategy strategy, std::string_view space, const std::vector<ShardLoad>& shards,
    std::string_view pin = {})
{
    const auto result = allocateShard(strategy, space, shards, pin);
    EXPECT_TRUE(result) << result.error().describe();
    return result ? *result : std::string();
}

std::string spaceId(int i)
{
    return "tenant-" + std::to_string(i);
}

std::vector<ShardLoad> numberedShards(int count)
{
    std::vector<ShardLoad> shards;
    for (int i = 0; i < count; ++i) {
        const std::string suffix = std::to_string(i);
        shards.push_back(shardLoad("s" + std::string(2 - std::min<std::size_t>(2, suffix.size()), '0') + suffix));
    }
    return shards;
}

// Pearson's statistic of observed counts against a uniform expectation.
double chiSquare(const std::map<std::string, int>& counts, int buckets, int total)
{
    const double expected = static_cast<double>(total) / buckets;
    double statistic = 0;
    for (const auto& [bucket, count] : counts)
        statistic += (count - expected) * (count - expected) / expected;
    // Empty buckets are missing from the map but still count.
    statistic += static_cast<double>(buckets - static_cast<int>(counts.size())) * expected;
    return statistic;
}

// The paper's code as published (Lamping & Veach 2014, figure 1), transcribed independently of
// the implementation under test so that an edit of the latter cannot silently change placements.
std::int32_t paperJumpConsistentHash(std::uint64_t key, std::int32_t numBuckets)
{
    std::int64_t b = -1, j = 0;
    while (j < numBuckets) {
        b = j;
        key = key * 2862933555777941757ULL + 1;
        j = std::int64_t((b + 1) * (double(1LL << 31) / double((key >> 33) + 1)));
    }
    return std::int32_t(b);
}

} // namespace

TEST(AllocatorStrategyTest, NamesRoundTrip)
{
    for (auto strategy :
        { AllocationStrategy::LoadAware, AllocationStrategy::JumpHash, AllocationStrategy::Rendezvous })
        EXPECT_EQ(parseAllocationStrategy(allocationStrategyName(strategy)), strategy);
    EXPECT_STREQ(allocationStrategyName(AllocationStrategy::LoadAware), "load-aware");
    EXPECT_STREQ(allocationStrategyName(AllocationStrategy::JumpHash), "jump");
    EXPECT_STREQ(allocationStrategyName(AllocationStrategy::Rendezvous), "rendezvous");
    EXPECT_FALSE(parseAllocationStrategy("Load-Aware"));
    EXPECT_FALSE(parseAllocationStrategy(""));
}

TEST(AllocatorLoadAwareTest, LowestScoreWins)
{
    const std::vector<ShardLoad> shards { shardLoad("s1", 1000, 10000, 3), shardLoad("s2", 400, 4000, 9),
        shardLoad("s3", 700, 7000, 1) };
    EXPECT_EQ(allocated(AllocationStrategy::LoadAware, "t", shards), "s2");
}

TEST(AllocatorLoadAwareTest, DocsAndBytesWeighTheSame)
{
    // s1 is doc-heavy, s2 byte-heavy by the same proportion: a tie on score, so fewer spaces wins.
    // Tilting either dimension tilts the choice.
    std::vector<ShardLoad> shards { shardLoad("s1", 1000, 500, 2), shardLoad("s2", 500, 1000, 1) };
    EXPECT_EQ(allocated(AllocationStrategy::LoadAware, "t", shards), "s2");
    shards[1].bytes = 1001;
    EXPECT_EQ(allocated(AllocationStrategy::LoadAware, "t", shards), "s1");
}

TEST(AllocatorLoadAwareTest, EmptyNewShardIsFilledFirst)
{
    std::vector<ShardLoad> shards { shardLoad("s1", 5000, 50000, 40), shardLoad("s2", 4000, 40000, 30),
        shardLoad("s9", 0, 0, 0) };
    EXPECT_EQ(allocated(AllocationStrategy::LoadAware, "t", shards), "s9");
    // It keeps winning while it is still the least loaded, even with many small spaces on it.
    shards[2].docs = 3000;
    shards[2].bytes = 30000;
    shards[2].spaces = 100;
    EXPECT_EQ(allocated(AllocationStrategy::LoadAware, "t", shards), "s9");
}

TEST(AllocatorLoadAwareTest, FillIsRelativeToCapacityWhenSet)
{
    // s1 holds fewer docs but is half full; s2 holds more but is a fifth full.
    const std::vector<ShardLoad> shards { withCapacity(shardLoad("s1", 500, 5000), 1000, 10000),
        withCapacity(shardLoad("s2", 2000, 20000), 10000, 100000) };
    EXPECT_EQ(allocated(AllocationStrategy::LoadAware, "t", shards), "s2");
}

TEST(AllocatorLoadAwareTest, CapacityAppliesPerDimension)
{
    // s1 holds the most docs, but only docs are capped on it: 900/10000 = 0.09 full. Its bytes,
    // uncapped, scale against the largest byte count (its own): 1.0. s2 has no caps: docs
    // 300/900, bytes 400/500. s1 = 0.45*0.09 + 0.45*1.0 = 0.49; s2 = 0.45*0.33 + 0.45*0.8 = 0.51.
    // Without the cap s1 would score 0.9.
    std::vector<ShardLoad> shards { withCapacity(shardLoad("s1", 900, 500), 10000, 0), shardLoad("s2", 300, 400) };
    EXPECT_EQ(allocated(AllocationStrategy::LoadAware, "t", shards), "s1");
    shards[0].shard.capacityDocs = 0;
    EXPECT_EQ(allocated(AllocationStrategy::LoadAware, "t", shards), "s2");
}

TEST(AllocatorLoadAwareTest, DiskFreeBreaksEqualLoad)
{
    std::vector<ShardLoad> shards { shardLoad("s1", 100, 1000, 1), shardLoad("s2", 100, 1000, 5) };
    shards[0].nodeDiskFreeRatio = 0.2;
    shards[1].nodeDiskFreeRatio = 0.8;
    // s2 wins despite more spaces and the larger id: disk pressure is part of the score.
    EXPECT_EQ(allocated(AllocationStrategy::LoadAware, "t", shards), "s2");
    // Disk only nudges: 0.10 of weight cannot outweigh a clearly lighter shard.
    shards[0].docs = 50;
    shards[0].bytes = 500;
    EXPECT_EQ(allocated(AllocationStrategy::LoadAware, "t", shards), "s1");
}

TEST(AllocatorLoadAwareTest, NoiseInTheScoreDoesNotOverrideTheSpaceCount)
{
    // Two nodes on one filesystem: free space differs in the fifth digit from one sample to the
    // next. That must not decide; the shard with fewer spaces takes the new one.
    std::vector<ShardLoad> shards { shardLoad("s1", 0, 0, 3), shardLoad("s2", 0, 0, 0) };
    shards[0].nodeDiskFreeRatio = 0.31002;
    shards[1].nodeDiskFreeRatio = 0.30998;
    EXPECT_EQ(allocated(AllocationStrategy::LoadAware, "t", shards), "s2");
}

TEST(AllocatorLoadAwareTest, OutOfRangeDiskRatiosAreClamped)
{
    std::vector<ShardLoad> shards { shardLoad("s1", 100, 1000), shardLoad("s2", 100, 1000) };
    shards[0].nodeDiskFreeRatio = 7.0; // clamped to 1: as good as it gets
    shards[1].nodeDiskFreeRatio = std::nan("");
    EXPECT_EQ(allocated(AllocationStrategy::LoadAware, "t", shards), "s1"); // tie, then id
    shards[0].nodeDiskFreeRatio = -1.0; // clamped to 0: a full disk
    EXPECT_EQ(allocated(AllocationStrategy::LoadAware, "t", shards), "s2");
}

TEST(AllocatorLoadAwareTest, TiesAreDeterministic)
{
    std::vector<ShardLoad> shards { shardLoad("s3", 10, 10, 2), shardLoad("s1", 10, 10, 2),
        shardLoad("s2", 10, 10, 1) };
    EXPECT_EQ(allocated(AllocationStrategy::LoadAware, "t", shards), "s2"); // fewer spaces
    shards[2].spaces = 2;
    // Same score and spaces everywhere: the smallest id, whatever the input order.
    std::sort(shards.begin(), shards.end(), [](const auto& a, const auto& b) { return a.shard.id < b.shard.id; });
    do {
        EXPECT_EQ(allocated(AllocationStrategy::LoadAware, "t", shards), "s1");
    } while (std::next_permutation(
        shards.begin(), shards.end(), [](const auto& a, const auto& b) { return a.shard.id < b.shard.id; }));
}

TEST(AllocatorLoadAwareTest, UnknownLoadRanksAfterKnownLoad)
{
    // An unreachable node reports nothing: its shard must not look empty and take every tenant.
    std::vector<ShardLoad> shards { shardLoad("s1", 0, 0, 0), shardLoad("s2", 900, 9000, 50),
        shardLoad("s3", 0, 0, 3) };
    shards[0].loadKnown = false;
    shards[2].loadKnown = false;
    EXPECT_EQ(allocated(AllocationStrategy::LoadAware, "t", shards), "s2");
    // With no known load left, the space count (which the map always knows) decides.
    shards[1].shard.state = ShardState::Draining;
    shards[0].spaces = 5;
    EXPECT_EQ(allocated(AllocationStrategy::LoadAware, "t", shards), "s3");
}

TEST(AllocatorPinTest, PinOverridesTheStrategy)
{
    const std::vector<ShardLoad> shards { shardLoad("s1", 0), shardLoad("s2", 900, 9000, 40) };
    for (auto strategy :
        { AllocationStrategy::LoadAware, AllocationStrategy::JumpHash, AllocationStrategy::Rendezvous })
        EXPECT_EQ(allocated(strategy, "t", shards, "s2"), "s2");
}

TEST(AllocatorPinTest, PinToUnknownShardIsNotFound)
{
    const auto result = allocateShard(AllocationStrategy::LoadAware, "t", { shardLoad("s1") }, "s7");
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().code, ErrorCode::NotFound);
    EXPECT_EQ(result.error().message, "pinned shard s7 does not exist");
    EXPECT_EQ(result.error().context, "t");
}

TEST(AllocatorPinTest, PinToIneligibleShardIsRefusedWithTheReason)
{
    const std::vector<ShardLoad> shards { shardLoad("ok"), withState(shardLoad("dr"), ShardState::Draining),
        withState(shardLoad("ro"), ShardState::Readonly), withState(shardLoad("re"), ShardState::Retired),
        withCapacity(shardLoad("fu", 1000), 1000, 0) };
    const std::map<std::string, std::string> expected {
        { "dr", "pinned shard cannot take a new space: dr is draining" },
        { "ro", "pinned shard cannot take a new space: ro is readonly" },
        { "re", "pinned shard cannot take a new space: re is retired" },
        { "fu", "pinned shard cannot take a new space: fu is full (1000/1000 docs)" },
    };
    for (const auto& [pin, message] : expected) {
        const auto result = allocateShard(AllocationStrategy::LoadAware, "t", shards, pin);
        ASSERT_FALSE(result) << pin;
        EXPECT_EQ(result.error().code, ErrorCode::FailedPrecondition) << pin;
        EXPECT_EQ(result.error().message, message);
    }
}

TEST(AllocatorEligibilityTest, ExplainRefusalSaysWhy)
{
    EXPECT_EQ(explainRefusal(shardLoad("s0", 5, 5)), "");
    EXPECT_EQ(explainRefusal(withCapacity(shardLoad("s0", 999, 99), 1000, 100)), "");
    EXPECT_EQ(explainRefusal(withState(shardLoad("s1"), ShardState::Draining)), "s1 is draining");
    EXPECT_EQ(explainRefusal(withState(shardLoad("s2"), ShardState::Readonly)), "s2 is readonly");
    EXPECT_EQ(explainRefusal(withState(shardLoad("s3"), ShardState::Retired)), "s3 is retired");
    EXPECT_EQ(explainRefusal(withCapacity(shardLoad("s4", 1000), 1000, 0)), "s4 is full (1000/1000 docs)");
    EXPECT_EQ(explainRefusal(withCapacity(shardLoad("s5", 1, 4096), 0, 2048)), "s5 is full (4096/2048 bytes)");
    // State is the more fundamental reason, and both caps hit reports docs.
    EXPECT_EQ(explainRefusal(withState(withCapacity(shardLoad("s6", 9), 1, 0), ShardState::Retired)), "s6 is retired");
    EXPECT_EQ(explainRefusal(withCapacity(shardLoad("s7", 10, 10), 10, 10)), "s7 is full (10/10 docs)");
}

TEST(AllocatorEligibilityTest, IneligibleShardsAreNeverChosen)
{
    // The refused shards are the emptiest, so a load-aware allocator would pick them if it could.
    const std::vector<ShardLoad> shards { withState(shardLoad("a-draining"), ShardState::Draining),
        withState(shardLoad("b-readonly"), ShardState::Readonly),
        withState(shardLoad("c-retired"), ShardState::Retired), withCapacity(shardLoad("d-full", 10, 10), 0, 10),
        shardLoad("x", 500, 5000, 9), shardLoad("y", 600, 6000, 9) };
    for (auto strategy :
        { AllocationStrategy::LoadAware, AllocationStrategy::JumpHash, AllocationStrategy::Rendezvous })
        for (int i = 0; i < 200; ++i) {
            const auto shard = allocated(strategy, spaceId(i), shards);
            EXPECT_TRUE(shard == "x" || shard == "y") << allocationStrategyName(strategy) << ": " << shard;
        }
}

TEST(AllocatorEligibilityTest, NoEligibleShardListsEveryRefusal)
{
    const std::vector<ShardLoad> shards { withState(shardLoad("s3"), ShardState::Retired),
        withState(shardLoad("s1"), ShardState::Draining), withCapacity(shardLoad("s2", 1000), 1000, 0) };
    for (auto strategy :
        { AllocationStrategy::LoadAware, AllocationStrategy::JumpHash, AllocationStrategy::Rendezvous }) {
        const auto result = allocateShard(strategy, "tenant-1", shards);
        ASSERT_FALSE(result);
        EXPECT_EQ(result.error().code, ErrorCode::FailedPrecondition);
        EXPECT_EQ(result.error().message,
            "no shard can take a new space: s1 is draining; s2 is full (1000/1000 docs); s3 is retired");
        EXPECT_EQ(result.error().context, "tenant-1");
    }
}

TEST(AllocatorEligibilityTest, NoShardsAtAllAndEmptySpaceId)
{
    const auto none = allocateShard(AllocationStrategy::LoadAware, "t", {});
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().code, ErrorCode::FailedPrecondition);
    EXPECT_EQ(none.error().message, "no shard can take a new space: there are no shards");

    const auto empty = allocateShard(AllocationStrategy::Rendezvous, "", { shardLoad("s1") });
    ASSERT_FALSE(empty);
    EXPECT_EQ(empty.error().code, ErrorCode::InvalidArgument);
}

TEST(AllocatorJumpHashTest, MatchesThePaperReferenceImplementation)
{
    for (std::uint64_t key = 0; key <= 1000; ++key)
        for (std::int32_t buckets = 1; buckets <= 100; ++buckets)
            ASSERT_EQ(jumpConsistentHash(key, buckets), paperJumpConsistentHash(key, buckets))
                << "key " << key << ", buckets " << buckets;
    // Large keys and bucket counts exercise the high bits and the long jumps.
    for (std::uint64_t key : std::initializer_list<std::uint64_t> { 0xDEAD10CC, ~0ULL, 1ULL << 63, placementHash("x") })
        for (std::int32_t buckets : { 1000, 65536, 1 << 30 })
            EXPECT_EQ(jumpConsistentHash(key, buckets), paperJumpConsistentHash(key, buckets));
}

TEST(AllocatorJumpHashTest, MatchesPublishedVectors)
{
    // The vectors other implementations test against (e.g. Go's github.com/dgryski/go-jump).
    EXPECT_EQ(jumpConsistentHash(1, 1), 0);
    EXPECT_EQ(jumpConsistentHash(42, 57), 43);
    EXPECT_EQ(jumpConsistentHash(0xDEAD10CC, 1), 0);
    EXPECT_EQ(jumpConsistentHash(0xDEAD10CC, 666), 361);
    EXPECT_EQ(jumpConsistentHash(256, 1024), 520);
}

TEST(AllocatorJumpHashTest, NoBucketsAnswersMinusOne)
{
    EXPECT_EQ(jumpConsistentHash(42, 0), -1);
    EXPECT_EQ(jumpConsistentHash(42, -10), -1);
}

TEST(AllocatorJumpHashTest, GrowingMovesAboutOneInNPlusOneKeysAllToTheNewBucket)
{
    constexpr int kKeys = 10000;
    std::vector<std::uint64_t> keys;
    for (int i = 0; i < kKeys; ++i)
        keys.push_back(placementHash(spaceId(i)));
    for (std::int32_t n = 1; n < 100; ++n) {
        int moved = 0;
        for (std::uint64_t key : keys) {
            const auto before = jumpConsistentHash(key, n);
            const auto after = jumpConsistentHash(key, n + 1);
            if (before == after)
                continue;
            ++moved;
            ASSERT_EQ(after, n) << "key moved between old buckets when growing to " << n + 1;
        }
        // Binomial(kKeys, 1/(n+1)); the fixed key set makes this deterministic, and six standard
        // deviations leave room for any reasonable hash.
        const double p = 1.0 / (n + 1);
        const double sigma = std::sqrt(kKeys * p * (1 - p));
        EXPECT_NEAR(moved, kKeys * p, 6 * sigma + 1) << "growing from " << n << " to " << n + 1;
    }
}

TEST(AllocatorJumpHashTest, AllocatesByJumpOverEligibleShardsSortedById)
{
    auto shards = numberedShards(8);
    std::reverse(shards.begin(), shards.end()); // input order must not matter
    shards.push_back(withState(shardLoad("s99"), ShardState::Draining));
    for (int i = 0; i < 100; ++i) {
        const auto bucket = jumpConsistentHash(placementHash(spaceId(i)), 8);
        EXPECT_EQ(allocated(AllocationStrategy::JumpHash, spaceId(i), shards), "s0" + std::to_string(bucket));
    }
}

TEST(AllocatorJumpHashTest, DistributionIsRoughlyUniform)
{
    constexpr int kShards = 10;
    constexpr int kSpaces = 10000;
    const auto shards = numberedShards(kShards);
    std::map<std::string, int> counts;
    for (int i = 0; i < kSpaces; ++i)
        ++counts[allocated(AllocationStrategy::JumpHash, spaceId(i), shards)];
    // 9 degrees of freedom: mean 9, and 40 is beyond p = 1e-5 for a uniform hash.
    EXPECT_LT(chiSquare(counts, kShards, kSpaces), 40.0);
}

TEST(AllocatorRendezvousTest, ScoreIsAPureFunctionOfSpaceAndShard)
{
    EXPECT_EQ(rendezvousScore("tenant-1", "s01"), rendezvousScore("tenant-1", "s01"));
    EXPECT_NE(rendezvousScore("tenant-1", "s01"), rendezvousScore("tenant-1", "s02"));
    EXPECT_NE(rendezvousScore("tenant-1", "s01"), rendezvousScore("tenant-2", "s01"));

    const auto shards = numberedShards(5);
    for (int i = 0; i < 50; ++i) {
        std::string best;
        std::uint64_t bestScore = 0;
        for (const auto& load : shards)
            if (const auto score = rendezvousScore(spaceId(i), load.shard.id); best.empty() || score > bestScore) {
                best = load.shard.id;
                bestScore = score;
            }
        EXPECT_EQ(allocated(AllocationStrategy::Rendezvous, spaceId(i), shards), best);
    }
}

TEST(AllocatorRendezvousTest, RemovingAShardMovesOnlyItsSpaces)
{
    constexpr int kSpaces = 5000;
    auto shards = numberedShards(10);
    std::vector<std::string> before;
    for (int i = 0; i < kSpaces; ++i)
        before.push_back(allocated(AllocationStrategy::Rendezvous, spaceId(i), shards));

    // Draining s04 takes it out of the eligible set, just as removing it would.
    shards[4].shard.state = ShardState::Draining;
    int moved = 0;
    for (int i = 0; i < kSpaces; ++i) {
        const auto after = allocated(AllocationStrategy::Rendezvous, spaceId(i), shards);
        if (before[static_cast<std::size_t>(i)] == "s04") {
            EXPECT_NE(after, "s04");
            ++moved;
        } else {
            EXPECT_EQ(after, before[static_cast<std::size_t>(i)]) << spaceId(i);
        }
    }
    EXPECT_GT(moved, 0);

    // Adding it back restores every original placement.
    shards[4].shard.state = ShardState::Active;
    for (int i = 0; i < kSpaces; ++i)
        EXPECT_EQ(allocated(AllocationStrategy::Rendezvous, spaceId(i), shards), before[static_cast<std::size_t>(i)]);
}

TEST(AllocatorRendezvousTest, DistributionIsRoughlyUniform)
{
    constexpr int kShards = 10;
    constexpr int kSpaces = 10000;
    const auto shards = numberedShards(kShards);
    std::map<std::string, int> counts;
    for (int i = 0; i < kSpaces; ++i)
        ++counts[allocated(AllocationStrategy::Rendezvous, spaceId(i), shards)];
    EXPECT_EQ(counts.size(), static_cast<std::size_t>(kShards));
    EXPECT_LT(chiSquare(counts, kShards, kSpaces), 40.0);
}
