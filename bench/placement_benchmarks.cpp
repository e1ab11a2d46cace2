// Micro-benchmarks of new-space placement (core/placement/allocator.h). Stateless routers compute
// jump or rendezvous placements per request, so those must stay cheap; the load-aware allocator
// runs once per new space and only needs to be far below a metadata-store round trip.

#include "core/placement/allocator.h"

#include <benchmark/benchmark.h>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace shardmap::core;

constexpr int kShards = 64;

// Several ids, cycled, so that neither the branch predictor nor the hash sees one input only.
std::vector<std::string> spaceIds()
{
    std::vector<std::string> ids;
    for (int i = 0; i < 1024; ++i)
        ids.push_back("tenant-" + std::to_string(100000 + i * 7919));
    return ids;
}

// Loads that differ from shard to shard, so the load-aware scan cannot short-cut on ties.
std::vector<ShardLoad> shardLoads()
{
    std::vector<ShardLoad> shards;
    for (int i = 0; i < kShards; ++i) {
        ShardLoad load;
        load.shard.id = "shard-" + std::to_string(1000 + i);
        load.shard.node = "node-" + std::to_string(i % 8);
        load.shard.capacityDocs = i % 2 == 0 ? 10'000'000 : 0;
        load.docs = static_cast<std::uint64_t>(1'000'000 + (i * 37 % kShards) * 50'000);
        load.bytes = load.docs * 900;
        load.spaces = static_cast<std::uint64_t>(100 + i % 13);
        load.nodeDiskFreeRatio = 0.3 + 0.01 * (i % 8);
        shards.push_back(load);
    }
    return shards;
}

void jumpHashOfSpaceBench(benchmark::State& state)
{
    const auto ids = spaceIds();
    std::size_t next = 0;
    for (auto _ : state) {
        const auto& id = ids[next++ % ids.size()];
        benchmark::DoNotOptimize(jumpConsistentHash(placementHash(id), kShards));
    }
}
BENCHMARK(jumpHashOfSpaceBench);

void allocateBench(benchmark::State& state, AllocationStrategy strategy)
{
    const auto ids = spaceIds();
    const auto shards = shardLoads();
    std::size_t next = 0;
    for (auto _ : state) {
        auto shard = allocateShard(strategy, ids[next++ % ids.size()], shards);
        benchmark::DoNotOptimize(shard);
    }
}
BENCHMARK_CAPTURE(allocateBench, rendezvous64, AllocationStrategy::Rendezvous);
BENCHMARK_CAPTURE(allocateBench, loadAware64, AllocationStrategy::LoadAware);
BENCHMARK_CAPTURE(allocateBench, jump64, AllocationStrategy::JumpHash);

} // namespace

BENCHMARK_MAIN();
