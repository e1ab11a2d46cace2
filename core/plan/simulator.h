#pragma once

// The what-if simulator (ARCHITECTURE §7, issue 12): seed 000's argument, dynamic lookup against
// hashing, made on the administrator's own spaces instead of on paper.
//
// simulate() takes the planner's copy of the fleet, optionally grows it (Growth), and lays the
// same spaces out with every strategy side by side: the current map, the map after a planner
// rebalance, the load-aware allocator placing every space anew, and four stateless hashes (jump,
// rendezvous, mod-N, consistent hashing with bounded loads). For each it reports how even the
// shards are (max/mean and stddev/mean of bytes, docs and queries/s), the hottest shard, and the
// data that moves when shards are added or removed.
//
// Rules that hold for every strategy, so that the figures compare:
// - Only Active shards on nodes that are not retired take part; the spaces on other shards
//   (draining, readonly, retired, on a retired or unknown node) are left out of every strategy
//   and reported as excluded.
// - Fills are raw sums per shard, not weighted by capacity (the hashes know no capacity).
// - Added shards get ids that sort after every shard, and the removed ones are the last by id:
//   the cheap case for jump hash, and any shard is the same to the others.
// - Dynamic lookup (current, planner, load-aware) keeps a table: removing a shard moves only
//   its spaces, and adding one moves what planAddShards puts on it. The hashes move every space
//   whose computed shard changes between n and n +/- k shards.
// - The hashes know no pins, capacities or migrations (a stateless router cannot); the current
//   map and the planner keep them; load-aware honours capacities only.
//
// Everything is a plain value and nothing reads a store, so a console page can run it off the UI
// thread and show the result as a table.

#include "core/plan/planner.h"
#include "core/util/result.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace shardmap::core {

// A what-if on the space sizes, applied in this order: every space grows allFactor times, the
// topN largest (by bytes, ties by id) another topFactor times, and newSpaces spaces are added.
// Growth scales a space's docs, bytes and query and write rates alike. A new space copies the
// figures of an existing space drawn uniformly (the observed size distribution, as measured
// before growth) with std::mt19937(seed), so the same seed draws the same spaces everywhere; it
// has no shard yet ("new-<seed>-<n>", unique in the input).
struct Growth {
    double allFactor = 1;
    std::size_t topN = 0;
    double topFactor = 1;
    std::size_t newSpaces = 0;
    std::uint32_t seed = 1;
};

// What bounded-load consistent hashing caps: bytes per shard (what the fleet is about; a space
// that fits under no shard's cap goes to the least loaded shard and counts as overflow), or
// spaces per shard (Mirrokni et al.'s original, whose bound always holds).
enum class BoundedLoadMeasure { Bytes, Spaces };

struct SimulationOptions {
    Growth growth;
    int addShards = 1;
    int removeShards = 1;
    // Consistent hashing with bounded loads: a shard takes at most ceil((1 + epsilon) x the mean)
    // in the measure, on a ring of virtualNodes points per shard.
    double boundedLoadEpsilon = 0.25;
    BoundedLoadMeasure boundedLoadMeasure = BoundedLoadMeasure::Bytes;
    int virtualNodes = 100;
    // For the planner strategy and for filling added shards under dynamic lookup.
    PlannerOptions planner;
};

enum class SimulatedStrategy { Current, Planner, LoadAware, JumpHash, Rendezvous, ModN, BoundedLoad };

// "current", "planner", "load-aware", "jump", "rendezvous", "mod-n", "bounded-load".
const char* simulatedStrategyName(SimulatedStrategy strategy);
// Current, planner and load-aware keep a lookup table; the others compute the shard.
bool isDynamicLookup(SimulatedStrategy strategy);
// One sentence for people: how the strategy places spaces and what moves when shards change.
const char* simulatedStrategyExplanation(SimulatedStrategy strategy);

// What one shard holds under a strategy.
struct ShardFill {
    std::string shard;
    LoadFigures load;
    std::size_t spaces = 0;
};

// One figure over the shards taking part; ratios are 0 when the mean is.
struct FillSpread {
    double mean = 0;
    double max = 0;
    double maxOverMean = 0;
    double stddevOverMean = 0;
};

// Data that moves between two layouts. known is false when the planner refused to fill the
// added shards (the outcome's notes say why).
struct DataMoved {
    bool known = true;
    double bytes = 0;
    double docs = 0;
    std::size_t spaces = 0;
    // bytes over all simulated bytes.
    double shareOfBytes = 0;
};

struct StrategyOutcome {
    SimulatedStrategy strategy = SimulatedStrategy::Current;
    std::string name;
    bool dynamicLookup = false;
    // The shards taking part, by id (for charts).
    std::vector<ShardFill> shards;
    FillSpread bytes;
    FillSpread docs;
    FillSpread queries;
    // The shard with the most queries/s (queries.max, queries.maxOverMean).
    std::string hottestShard;
    // What the existing spaces would move to go from the current map to this layout.
    DataMoved fromCurrent;
    DataMoved onAdd;
    DataMoved onRemove;
    // Spaces placed past the strategy's bound: load-aware with every shard full, bounded-load
    // with no shard having room under its cap.
    std::size_t overflow = 0;
    std::vector<std::string> notes;
};

struct SimulationResult {
    std::vector<StrategyOutcome> strategies;
    // Taking part, by id; the what-if shards added and the shards removed.
    std::vector<std::string> shards;
    std::vector<std::string> addedShards;
    std::vector<std::string> removedShards;
    // Simulated spaces (after growth), of which new; their total figures.
    std::size_t spaces = 0;
    std::size_t newSpaces = 0;
    LoadFigures total;
    // Spaces left out because their shard does not take part, and those shards.
    std::size_t excludedSpaces = 0;
    double excludedBytes = 0;
    std::vector<std::string> excludedShards;
    // What adding shards must move at least for them to hold an even share: k / (n + k) of bytes.
    double minimumMovedOnAdd = 0;
};

// The input with its spaces grown. InvalidArgument for a factor below 0 or not finite.
Result<PlannerInput> applyGrowth(const PlannerInput& input, const Growth& growth);

// Compares the strategies on the (grown) input. InvalidArgument for bad options (negative shard
// counts, removing every shard, epsilon <= 0); FailedPrecondition when no shard takes part.
Result<SimulationResult> simulate(const PlannerInput& input, const SimulationOptions& options = {});

} // namespace shardmap::core
