// What the console's connection does with the shard map on its pool, at 10,000 shards and
// 100,000 or 1,000,000 spaces (issue 16): decode a whole snapshot and index it (what every commit
// cost before, and still the first map's cost), against applying one watched commit to the map
// shown (core::applyCommits: copy, decode the commit's records, re-index, changes), with the copy
// and the index on their own to show where that time goes. The store's own read is not in these
// figures (console_bench measures the whole path). Results: docs/BENCHMARKS.md.

#include "core/map/map_commits.h"
#include "core/map/map_index.h"
#include "core/map/shard_map.h"
#include "core/store/sqlite_store.h"
#include "tests/support/test_dir.h"

#include <benchmark/benchmark.h>
#include <map>
#include <memory>
#include <random>
#include <string>

namespace {

using namespace shardmap::core;

constexpr int kNodes = 40;
constexpr int kShards = 10'000;

std::string shardId(int i)
{
    return "s" + std::to_string(i);
}

// Records as the store keeps them: JSON under their keys, spaces spread at random, 1 % migrating.
StoreSnapshot fleetSnapshot(int spaces)
{
    StoreSnapshot snapshot;
    snapshot.revision = 100;
    const auto put = [&](std::string key, std::string value) {
        StoredRecord record { key, std::move(value), 1, 1 + snapshot.records.size() % 99 };
        snapshot.records.emplace(std::move(key), std::move(record));
    };
    for (int n = 0; n < kNodes; ++n) {
        const std::string id = "n" + std::to_string(n);
        put(keys::node(id), encode(NodeRecord { id, "127.0.0.1:" + std::to_string(7000 + n), {}, false }));
    }
    for (int s = 0; s < kShards; ++s)
        put(keys::shard(shardId(s)),
            encode(ShardRecord { shardId(s), "n" + std::to_string(s % kNodes), ShardState::Active, 0, 0 }));
    std::mt19937 random(7);
    std::uniform_int_distribution<int> shard(0, kShards - 1);
    for (int i = 0; i < spaces; ++i) {
        SpaceRecord space;
        space.id = "tenant-" + std::to_string(1'000'000 + i);
        space.shard = shardId(shard(random));
        space.epoch = 3;
        if (i % 100 == 0) {
            space.migrationId = "m-" + std::to_string(i);
            space.target = shardId(shard(random));
            space.phase = MigrationPhase::Backfill;
        }
        put(keys::space(space.id), encode(space));
    }
    put(std::string(keys::kMigrationSettings), encode(MigrationSettings {}));
    return snapshot;
}

MapSnapshot indexedMap(int spaces)
{
    auto map = MapSnapshot::decode(fleetSnapshot(spaces));
    map->buildIndex();
    return std::move(*map);
}

// The console bench's churn: one commit moves one space and rewrites the settings.
AuditRecord moveCommit(const MapSnapshot& map, int n)
{
    const std::string id = "tenant-" + std::to_string(1'000'000 + (n * 7919) % static_cast<int>(map.spaces.size()));
    SpaceRecord moved = map.spaces.at(id).value;
    moved.shard = shardId((n * 31) % kShards);
    ++moved.epoch;
    MigrationSettings settings = map.settings.value;
    settings.maxConcurrent = 4 + static_cast<std::uint32_t>(n % 3);
    return AuditRecord { map.revision + 1, 0, "bench", "move", "",
        { { keys::space(id), encode(map.spaces.at(id).value), encode(moved) },
            { std::string(keys::kMigrationSettings), encode(map.settings.value), encode(settings) } },
        {} };
}

void wholeDecodeAndIndexBench(benchmark::State& state)
{
    const StoreSnapshot raw = fleetSnapshot(static_cast<int>(state.range(0)));
    for (auto _ : state) {
        state.PauseTiming();
        StoreSnapshot copy = raw;
        state.ResumeTiming();
        auto map = MapSnapshot::decode(std::move(copy));
        map->buildIndex();
        benchmark::DoNotOptimize(map->spaces.size());
        state.PauseTiming();
        map = Result<MapSnapshot>(Error {}); // freed outside the timing, as the pool frees it later
        state.ResumeTiming();
    }
}
BENCHMARK(wholeDecodeAndIndexBench)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->Iterations(3);

void applyOneCommitBench(benchmark::State& state)
{
    const MapSnapshot map = indexedMap(static_cast<int>(state.range(0)));
    int n = 0;
    for (auto _ : state) {
        const AuditRecord commit = moveCommit(map, ++n);
        auto next = applyCommits(map, { &commit, 1 });
        benchmark::DoNotOptimize(next->changes->spaces.changed.size());
        state.PauseTiming();
        next = Result<MapSnapshot>(Error {});
        state.ResumeTiming();
    }
}
BENCHMARK(applyOneCommitBench)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->Iterations(5);

void copyMapBench(benchmark::State& state)
{
    const MapSnapshot map = indexedMap(static_cast<int>(state.range(0)));
    for (auto _ : state) {
        auto copy = std::make_unique<MapSnapshot>(map);
        benchmark::DoNotOptimize(copy->spaces.size());
        state.PauseTiming();
        copy.reset();
        state.ResumeTiming();
    }
}
BENCHMARK(copyMapBench)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->Iterations(5);

void buildIndexBench(benchmark::State& state)
{
    MapSnapshot map = indexedMap(static_cast<int>(state.range(0)));
    for (auto _ : state) {
        map.buildIndex();
        benchmark::DoNotOptimize(map.index());
    }
}
BENCHMARK(buildIndexBench)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->Iterations(5);

// A real SQLite store holding the fleet, written once per size (100,000 keys per commit).
SqliteStore* sqliteFleet(int spaces, benchmark::State& state)
{
    static shardmap::testing::TempDir dir;
    static std::map<int, std::unique_ptr<SqliteStore>> stores;
    auto& store = stores[spaces];
    if (store)
        return store.get();
    auto opened = SqliteStore::open(dir.file("map-" + std::to_string(spaces) + ".db"), true);
    if (!opened) {
        state.SkipWithError(opened.error().describe().c_str());
        return nullptr;
    }
    store = std::move(*opened);
    StoreSnapshot raw = fleetSnapshot(spaces);
    CommitRequest request;
    request.actor = "bench";
    request.action = "seed";
    for (auto& [key, record] : raw.records) {
        request.mutations.push_back({ key, std::move(record.value), std::nullopt });
        if (request.mutations.size() == 100'000) {
            if (auto committed = store->commit(request); !committed) {
                state.SkipWithError(committed.error().describe().c_str());
                return nullptr;
            }
            request.mutations.clear();
        }
    }
    if (auto committed = store->commit(request); !committed) {
        state.SkipWithError(committed.error().describe().c_str());
        return nullptr;
    }
    return store.get();
}

// The first map's pool work on an SQLite store: read every record, decode, index.
void sqliteReadDecodeIndexBench(benchmark::State& state)
{
    SqliteStore* store = sqliteFleet(static_cast<int>(state.range(0)), state);
    for (auto _ : state) {
        if (!store)
            break;
        auto snapshot = store->snapshot();
        auto map = MapSnapshot::decode(std::move(*snapshot));
        map->buildIndex();
        benchmark::DoNotOptimize(map->spaces.size());
        state.PauseTiming();
        map = Result<MapSnapshot>(Error {});
        state.ResumeTiming();
    }
}
BENCHMARK(sqliteReadDecodeIndexBench)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->Iterations(3);

// The store's read alone.
void sqliteSnapshotBench(benchmark::State& state)
{
    SqliteStore* store = sqliteFleet(static_cast<int>(state.range(0)), state);
    for (auto _ : state) {
        if (!store)
            break;
        auto snapshot = store->snapshot();
        benchmark::DoNotOptimize(snapshot->records.size());
        state.PauseTiming();
        snapshot = Result<StoreSnapshot>(Error {});
        state.ResumeTiming();
    }
}
BENCHMARK(sqliteSnapshotBench)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->Iterations(3);

} // namespace

BENCHMARK_MAIN();
