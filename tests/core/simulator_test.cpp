// The what-if simulator: each strategy's known behaviour when shards are added or removed (mod-N
// moves nearly everything, jump and rendezvous about 1/(n+1), dynamic lookup only what fills the
// new shard), bounded-load's cap, the planner against the hashes on a skewed fleet, growth, and
// the current map's figures against a direct computation.
#include "core/placement/allocator.h"
#include "core/plan/simulator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace shardmap::core;

namespace {

constexpr std::uint64_t kTiB = 1ull << 40;

struct SimulatedFleet {
    int nodes = 4;
    int shards = 12;
    int spaces = 2000;
    // Space i holds about scale / (i + 1)^exponent bytes (whole bytes, so that sums are exact).
    double scale = 2e9;
    double exponent = 1.1;
    // Skewed: space i on shard floor(u^2 x shards), so the first shards hold most of the spaces.
    bool skewed = true;
};

std::string shardId(int index)
{
    char text[16];
    std::snprintf(text, sizeof text, "s%02d", index);
    return text;
}

PlannerInput makeFleet(std::uint32_t seed, SimulatedFleet shape = {})
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> unit(0, 1);
    PlannerInput input;
    input.baseRevision = 7;
    for (int n = 0; n < shape.nodes; ++n)
        input.nodes.push_back({ "n" + std::to_string(n), false, 3 * kTiB, 4 * kTiB });
    for (int s = 0; s < shape.shards; ++s)
        input.shards.push_back(
            { ShardRecord { shardId(s), "n" + std::to_string(s % shape.nodes), ShardState::Active, 0, 0 } });
    for (int i = 0; i < shape.spaces; ++i) {
        PlannerSpace space;
        space.id = "t" + std::to_string(i);
        const double u = unit(rng);
        const int shard
            = shape.skewed ? static_cast<int>(u * u * shape.shards) : static_cast<int>(rng() % 1000) % shape.shards;
        space.shard = shardId(std::min(shard, shape.shards - 1));
        const double bytes = std::floor(shape.scale / std::pow(i + 1, shape.exponent) + 1e6 * unit(rng));
        space.load = { std::floor(bytes / 700), bytes, std::floor(unit(rng) * 50) / 8, std::floor(unit(rng) * 20) / 8 };
        input.spaces.push_back(std::move(space));
    }
    return input;
}

// Spaces of about the same size on evenly spread shards: moved bytes track moved spaces.
PlannerInput evenFleet(std::uint32_t seed, int shards, int spaces)
{
    return makeFleet(seed, { 4, shards, spaces, 1e6, 0.0, false });
}

SimulationResult simulated(const PlannerInput& input, const SimulationOptions& options = {})
{
    auto result = simulate(input, options);
    EXPECT_TRUE(result) << (result ? "" : result.error().describe());
    return result ? *result : SimulationResult {};
}

const StrategyOutcome& outcome(const SimulationResult& result, SimulatedStrategy strategy)
{
    for (const StrategyOutcome& entry : result.strategies) {
        if (entry.strategy == strategy)
            return entry;
    }
    ADD_FAILURE() << "no outcome for " << simulatedStrategyName(strategy);
    static const StrategyOutcome none;
    return none;
}

double totalBytes(const PlannerInput& input)
{
    double sum = 0;
    for (const auto& space : input.spaces)
        sum += space.load.bytes;
    return sum;
}

std::vector<std::string> sortedShardIds(const PlannerInput& input)
{
    std::vector<std::string> ids;
    for (const auto& shard : input.shards)
        ids.push_back(shard.record.id);
    std::sort(ids.begin(), ids.end());
    return ids;
}

std::vector<ShardLoad> loadsOf(const std::vector<std::string>& ids)
{
    std::vector<ShardLoad> loads;
    for (const auto& id : ids) {
        ShardLoad load;
        load.shard = { id, "n0", ShardState::Active, 0, 0 };
        loads.push_back(load);
    }
    return loads;
}

std::string rendezvousPick(const std::string& space, const std::vector<ShardLoad>& loads)
{
    auto picked = allocateShard(AllocationStrategy::Rendezvous, space, loads);
    EXPECT_TRUE(picked);
    return picked ? *picked : std::string();
}

} // namespace

TEST(Simulator, EveryStrategyIsReportedInOrderWithItsKind)
{
    const auto result = simulated(makeFleet(1));
    const std::vector<std::string> names { "current", "planner", "load-aware", "jump", "rendezvous", "mod-n",
        "bounded-load" };
    ASSERT_EQ(result.strategies.size(), names.size());
    for (std::size_t k = 0; k < names.size(); ++k) {
        const StrategyOutcome& entry = result.strategies[k];
        EXPECT_EQ(entry.name, names[k]);
        EXPECT_EQ(entry.dynamicLookup, k < 3) << entry.name;
        EXPECT_EQ(entry.shards.size(), 12u);
        EXPECT_NE(std::string(simulatedStrategyExplanation(entry.strategy)), "");
        std::size_t spaces = 0;
        for (const auto& shard : entry.shards)
            spaces += shard.spaces;
        EXPECT_EQ(spaces, 2000u) << entry.name << ": every strategy places every space";
    }
    EXPECT_EQ(result.addedShards, std::vector<std::string> { "s11-new00001" });
    EXPECT_EQ(result.removedShards, std::vector<std::string> { "s11" });
}

TEST(Simulator, ModNMovesMostOfTheDataWhenAddingAShard)
{
    for (int shards : { 8, 12, 20, 50 }) {
        SCOPED_TRACE(std::to_string(shards) + " shards");
        const auto result = simulated(makeFleet(2, { 4, shards, 5000, 2e9, 1.1, true }));
        const auto& modN = outcome(result, SimulatedStrategy::ModN);
        EXPECT_GT(modN.onAdd.shareOfBytes, 0.70);
        EXPECT_GT(modN.onRemove.shareOfBytes, 0.70);
        EXPECT_GT(modN.onAdd.bytes, outcome(result, SimulatedStrategy::Rendezvous).onAdd.bytes);
        EXPECT_GT(modN.onAdd.bytes, outcome(result, SimulatedStrategy::JumpHash).onAdd.bytes);
        EXPECT_GT(modN.onAdd.bytes, 3 * outcome(result, SimulatedStrategy::Current).onAdd.bytes);
    }
}

TEST(Simulator, JumpHashMovesAboutOneInNPlusOneWhenAddingAndOnlyTheLastShardWhenRemoving)
{
    const int n = 10;
    const PlannerInput input = evenFleet(3, n, 20000);
    const auto result = simulated(input);
    const auto& jump = outcome(result, SimulatedStrategy::JumpHash);
    const double expected = 1.0 / (n + 1);
    EXPECT_NEAR(static_cast<double>(jump.onAdd.spaces) / 20000, expected, 0.15 * expected);
    EXPECT_NEAR(jump.onAdd.shareOfBytes, expected, 0.15 * expected);
    // The same figure straight from allocator.h's definition.
    double moved = 0;
    for (const auto& space : input.spaces) {
        const std::uint64_t key = placementHash(space.id);
        if (jumpConsistentHash(key, n) != jumpConsistentHash(key, n + 1))
            moved += space.load.bytes;
    }
    EXPECT_DOUBLE_EQ(jump.onAdd.bytes, moved);
    EXPECT_DOUBLE_EQ(jump.onRemove.bytes, jump.shards.back().load.bytes);
    EXPECT_EQ(jump.onRemove.spaces, jump.shards.back().spaces);
}

TEST(Simulator, RendezvousMovesAboutOneInNPlusOneWhenAddingAndExactlyTheRemovedShardsSpaces)
{
    const int n = 12;
    const PlannerInput input = evenFleet(4, n, 12000);
    SimulationOptions options;
    options.removeShards = 2;
    const auto result = simulated(input, options);
    const auto& rendezvous = outcome(result, SimulatedStrategy::Rendezvous);
    const double expected = 1.0 / (n + 1);
    EXPECT_NEAR(rendezvous.onAdd.shareOfBytes, expected, 0.15 * expected);

    // What the allocator itself answers for n and n + 1 shards.
    std::vector<std::string> ids = sortedShardIds(input);
    const auto before = loadsOf(ids);
    ids.push_back(result.addedShards.at(0));
    const auto after = loadsOf(ids);
    double moved = 0;
    std::size_t toNew = 0;
    for (const auto& space : input.spaces) {
        const std::string a = rendezvousPick(space.id, before), b = rendezvousPick(space.id, after);
        if (a != b) {
            moved += space.load.bytes;
            toNew += b == ids.back() ? 1 : 0;
        }
    }
    EXPECT_DOUBLE_EQ(rendezvous.onAdd.bytes, moved);
    EXPECT_EQ(toNew, rendezvous.onAdd.spaces) << "every moved space goes to the new shard";

    // And for n - 2: only the spaces of the two removed shards change their pick.
    ids.resize(static_cast<std::size_t>(n - 2));
    const auto fewer = loadsOf(ids);
    double leaving = 0;
    for (const auto& space : input.spaces) {
        if (rendezvousPick(space.id, before) != rendezvousPick(space.id, fewer))
            leaving += space.load.bytes;
    }
    EXPECT_DOUBLE_EQ(rendezvous.onRemove.bytes, leaving);

    const auto& removedA = rendezvous.shards[n - 2];
    const auto& removedB = rendezvous.shards[n - 1];
    EXPECT_EQ(result.removedShards, (std::vector<std::string> { removedA.shard, removedB.shard }));
    EXPECT_EQ(rendezvous.onRemove.spaces, removedA.spaces + removedB.spaces);
    EXPECT_NEAR(rendezvous.onRemove.bytes, removedA.load.bytes + removedB.load.bytes, 1e-6);
}

TEST(Simulator, DynamicLookupMovesOnlyWhatFillsTheNewShard)
{
    const PlannerInput input = makeFleet(5, { 4, 12, 4000, 1e8, 0.8, true });
    const auto result = simulated(input);
    const double minimum = result.minimumMovedOnAdd;
    EXPECT_NEAR(minimum, totalBytes(input) / 13, 1);
    for (auto strategy : { SimulatedStrategy::Current, SimulatedStrategy::Planner, SimulatedStrategy::LoadAware }) {
        const auto& entry = outcome(result, strategy);
        SCOPED_TRACE(entry.name);
        ASSERT_TRUE(entry.onAdd.known);
        EXPECT_GT(entry.onAdd.bytes, 0.75 * minimum);
        EXPECT_LE(entry.onAdd.bytes, 1.25 * minimum) << "add-shard stays within the band's top";
        EXPECT_DOUBLE_EQ(entry.onRemove.bytes, entry.shards.back().load.bytes) << "only the removed shard's spaces";
        EXPECT_EQ(entry.onRemove.spaces, entry.shards.back().spaces);
        EXPECT_LT(entry.onAdd.bytes, outcome(result, SimulatedStrategy::ModN).onAdd.bytes);
    }
    EXPECT_EQ(outcome(result, SimulatedStrategy::Current).fromCurrent.bytes, 0);
    EXPECT_GT(outcome(result, SimulatedStrategy::Planner).fromCurrent.bytes, 0) << "the fleet is lopsided";
}

TEST(Simulator, BoundedLoadKeepsEveryShardUnderItsCap)
{
    const PlannerInput input = makeFleet(6, { 4, 16, 8000, 1e8, 0.8, true });
    for (auto measure : { BoundedLoadMeasure::Spaces, BoundedLoadMeasure::Bytes }) {
        SimulationOptions options;
        options.boundedLoadMeasure = measure;
        const auto result = simulated(input, options);
        const auto& bounded = outcome(result, SimulatedStrategy::BoundedLoad);
        EXPECT_EQ(bounded.overflow, 0u);
        if (measure == BoundedLoadMeasure::Spaces) {
            const double mean = 8000.0 / 16;
            const double cap = std::ceil(1.25 * mean);
            std::size_t most = 0;
            for (const auto& shard : bounded.shards)
                most = std::max(most, shard.spaces);
            EXPECT_LE(static_cast<double>(most), cap);
            EXPECT_LE(static_cast<double>(most) / mean, 1.25 + 1e-12);
        } else {
            EXPECT_LE(bounded.bytes.maxOverMean, 1.25 + 16 / totalBytes(input)) << "ceil() adds under a byte";
        }
    }
}

TEST(Simulator, ThePlannerEvensASkewedZipfFleetBetterThanHashing)
{
    for (std::uint32_t seed : { 7u, 8u, 9u }) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        const auto result = simulated(makeFleet(seed, { 4, 16, 8000, 1e8, 0.8, true }));
        const double planner = outcome(result, SimulatedStrategy::Planner).bytes.maxOverMean;
        EXPECT_LT(planner, outcome(result, SimulatedStrategy::Current).bytes.maxOverMean);
        for (auto strategy : { SimulatedStrategy::JumpHash, SimulatedStrategy::Rendezvous, SimulatedStrategy::ModN }) {
            EXPECT_LE(planner, outcome(result, strategy).bytes.maxOverMean) << simulatedStrategyName(strategy);
        }
        EXPECT_LE(planner, 1.0 + 0.10 + 0.02) << "within the planner's band";
    }
}

TEST(Simulator, GrowthScalesTotalsExactly)
{
    const PlannerInput input = makeFleet(10);
    const auto base = simulated(input);
    SimulationOptions options;
    options.growth.allFactor = 2;
    const auto doubled = simulated(input, options);
    EXPECT_EQ(doubled.total.bytes, 2 * base.total.bytes);
    EXPECT_EQ(doubled.total.docs, 2 * base.total.docs);
    EXPECT_EQ(doubled.total.queriesPerSecond, 2 * base.total.queriesPerSecond);
    EXPECT_EQ(doubled.spaces, base.spaces);
    const auto& current = outcome(doubled, SimulatedStrategy::Current);
    for (std::size_t s = 0; s < current.shards.size(); ++s)
        EXPECT_EQ(current.shards[s].load.bytes, 2 * outcome(base, SimulatedStrategy::Current).shards[s].load.bytes);

    // The top 5 grow another 4 times: the total gains 3 x (their bytes x 2).
    options.growth.topN = 5;
    options.growth.topFactor = 4;
    std::vector<double> sizes;
    for (const auto& space : input.spaces)
        sizes.push_back(space.load.bytes);
    std::sort(sizes.rbegin(), sizes.rend());
    double top = 0;
    for (int k = 0; k < 5; ++k)
        top += sizes[static_cast<std::size_t>(k)];
    const auto grown = simulated(input, options);
    EXPECT_EQ(grown.total.bytes, 2 * base.total.bytes + 3 * 2 * top);
    auto applied = applyGrowth(input, options.growth);
    ASSERT_TRUE(applied);
    EXPECT_EQ(applied->spaces.size(), input.spaces.size());
    EXPECT_EQ(totalBytes(*applied), grown.total.bytes);

    options.growth.allFactor = -1;
    EXPECT_EQ(simulate(input, options).error().code, ErrorCode::InvalidArgument);
}

TEST(Simulator, NewSpacesAreDrawnFromTheObservedSizesAndDeterministicForASeed)
{
    const PlannerInput input = makeFleet(11, { 4, 12, 300, 2e9, 1.1, true });
    Growth growth;
    growth.newSpaces = 50;
    growth.seed = 42;
    const auto a = applyGrowth(input, growth);
    const auto b = applyGrowth(input, growth);
    ASSERT_TRUE(a && b);
    ASSERT_EQ(a->spaces.size(), 350u);
    std::set<double> observed;
    for (const auto& space : input.spaces)
        observed.insert(space.load.bytes);
    std::set<std::string> ids;
    for (std::size_t i = 300; i < 350; ++i) {
        const PlannerSpace& drawn = a->spaces[i];
        EXPECT_EQ(drawn.id, b->spaces[i].id);
        EXPECT_EQ(drawn.load, b->spaces[i].load);
        EXPECT_TRUE(drawn.shard.empty());
        EXPECT_TRUE(observed.contains(drawn.load.bytes)) << drawn.id;
        ids.insert(drawn.id);
    }
    EXPECT_EQ(ids.size(), 50u);
    growth.seed = 43;
    const auto other = applyGrowth(input, growth);
    ASSERT_TRUE(other);
    std::size_t same = 0;
    for (std::size_t i = 300; i < 350; ++i)
        same += other->spaces[i].load == a->spaces[i].load ? 1 : 0;
    EXPECT_LT(same, 25u) << "another seed draws other spaces";

    SimulationOptions options;
    options.growth = growth;
    const auto first = simulated(input, options);
    const auto second = simulated(input, options);
    EXPECT_EQ(first.newSpaces, 50u);
    EXPECT_EQ(first.spaces, 350u);
    for (std::size_t k = 0; k < first.strategies.size(); ++k) {
        for (std::size_t s = 0; s < first.strategies[k].shards.size(); ++s)
            EXPECT_EQ(first.strategies[k].shards[s].load, second.strategies[k].shards[s].load);
        EXPECT_EQ(first.strategies[k].onAdd.bytes, second.strategies[k].onAdd.bytes);
    }
    EXPECT_EQ(outcome(first, SimulatedStrategy::Current).fromCurrent.spaces, 0u) << "placing a new space moves nothing";
}

TEST(Simulator, CurrentFiguresEqualThoseComputedDirectly)
{
    PlannerInput input = makeFleet(12);
    input.shards[3].record.state = ShardState::Draining;
    input.shards[5].record.state = ShardState::Readonly;
    input.nodes[2].retired = true; // s02, s06, s10
    const auto result = simulated(input);
    const std::set<std::string> out { "s02", "s03", "s05", "s06", "s10" };
    EXPECT_EQ(std::set<std::string>(result.excludedShards.begin(), result.excludedShards.end()), out);

    std::map<std::string, LoadFigures> fills;
    std::map<std::string, std::size_t> counts;
    std::size_t excluded = 0;
    for (const auto& shard : input.shards) {
        if (!out.contains(shard.record.id))
            fills[shard.record.id];
    }
    for (const auto& space : input.spaces) {
        if (out.contains(space.shard)) {
            ++excluded;
            continue;
        }
        fills[space.shard] += space.load;
        ++counts[space.shard];
    }
    EXPECT_EQ(result.excludedSpaces, excluded);
    const auto& current = outcome(result, SimulatedStrategy::Current);
    ASSERT_EQ(current.shards.size(), fills.size());
    double sum = 0, most = 0, hottest = 0;
    std::string hottestShard;
    std::size_t s = 0;
    for (const auto& [id, load] : fills) {
        EXPECT_EQ(current.shards[s].shard, id);
        EXPECT_EQ(current.shards[s].load, load);
        EXPECT_EQ(current.shards[s].spaces, counts[id]);
        sum += load.bytes;
        most = std::max(most, load.bytes);
        if (load.queriesPerSecond > hottest) {
            hottest = load.queriesPerSecond;
            hottestShard = id;
        }
        ++s;
    }
    const double mean = sum / static_cast<double>(fills.size());
    double squares = 0;
    for (const auto& [id, load] : fills)
        squares += (load.bytes - mean) * (load.bytes - mean);
    EXPECT_NEAR(current.bytes.mean, mean, 1e-6 * mean);
    EXPECT_NEAR(current.bytes.maxOverMean, most / mean, 1e-9);
    EXPECT_NEAR(current.bytes.stddevOverMean, std::sqrt(squares / static_cast<double>(fills.size())) / mean, 1e-9);
    EXPECT_EQ(current.hottestShard, hottestShard);
    EXPECT_NEAR(current.queries.max, hottest, 1e-9);
    EXPECT_EQ(result.shards.back(), "s11");
    EXPECT_EQ(result.removedShards, std::vector<std::string> { "s11" });
    for (const auto& entry : result.strategies) {
        for (const auto& shard : entry.shards)
            EXPECT_FALSE(out.contains(shard.shard)) << entry.name << " placed a space on " << shard.shard;
    }
}

TEST(Simulator, BadOptionsAndFleetsWithoutShardsAreRefused)
{
    const PlannerInput input = makeFleet(13, { 2, 3, 50, 2e9, 1.1, true });
    SimulationOptions options;
    options.removeShards = 3;
    EXPECT_EQ(simulate(input, options).error().code, ErrorCode::InvalidArgument);
    options.removeShards = -1;
    EXPECT_EQ(simulate(input, options).error().code, ErrorCode::InvalidArgument);
    options = {};
    options.boundedLoadEpsilon = 0;
    EXPECT_EQ(simulate(input, options).error().code, ErrorCode::InvalidArgument);
    PlannerInput retired = input;
    for (auto& node : retired.nodes)
        node.retired = true;
    EXPECT_EQ(simulate(retired).error().code, ErrorCode::FailedPrecondition);
    options = {};
    options.addShards = 0;
    options.removeShards = 0;
    const auto still = simulated(input, options);
    for (const auto& entry : still.strategies) {
        EXPECT_EQ(entry.onAdd.bytes, 0) << entry.name;
        EXPECT_EQ(entry.onRemove.bytes, 0) << entry.name;
    }
}
