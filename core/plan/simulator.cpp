// The simulator's implementation: growing the fleet, laying it out with each strategy (the map,
// the planner, the allocator, the hashes), and the evenness and data moved of each layout.
#include "core/plan/simulator.h"

#include "core/placement/allocator.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace shardmap::core {

namespace {

constexpr std::array<SimulatedStrategy, 7> kStrategies { SimulatedStrategy::Current, SimulatedStrategy::Planner,
    SimulatedStrategy::LoadAware, SimulatedStrategy::JumpHash, SimulatedStrategy::Rendezvous, SimulatedStrategy::ModN,
    SimulatedStrategy::BoundedLoad };
constexpr std::uint32_t kUnplaced = std::numeric_limits<std::uint32_t>::max();
// Past these the question is not a what-if any more, and the memory is not worth it.
constexpr int kMaxShardChange = 10000;
constexpr int kMaxVirtualNodes = 10000;
constexpr std::size_t kMaxNotes = 5;

// The shard (index into SimFleet::ids) of every space.
using Placement = std::vector<std::uint32_t>;

void scale(LoadFigures& load, double factor)
{
    load.docs *= factor;
    load.bytes *= factor;
    load.queriesPerSecond *= factor;
    load.writesPerSecond *= factor;
}

bool validFactor(double factor)
{
    return std::isfinite(factor) && factor >= 0;
}

// Largest bytes first, ties by id: the order of "the top N" and the order the allocators place
// in, so that the big spaces, which are hardest to fit, go while there is room.
std::vector<std::size_t> largestFirst(const std::vector<PlannerSpace>& spaces)
{
    std::vector<std::size_t> order(spaces.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const double x = spaces[a].load.bytes, y = spaces[b].load.bytes;
        return x != y ? x > y : spaces[a].id < spaces[b].id;
    });
    return order;
}

// A draw in [0, size) from one 32-bit output by multiply and shift: the same on every standard
// library, which std::uniform_int_distribution is not, so a seed means the same spaces anywhere.
std::size_t draw(std::mt19937& rng, std::size_t size)
{
    return static_cast<std::size_t>((static_cast<std::uint64_t>(rng()) * size) >> 32);
}

void addNewSpaces(PlannerInput& out, const std::vector<LoadFigures>& observed, const Growth& growth)
{
    if (observed.empty())
        return;
    std::unordered_set<std::string> taken;
    for (const PlannerSpace& space : out.spaces)
        taken.insert(space.id);
    std::mt19937 rng(growth.seed);
    for (std::size_t n = 1; n <= growth.newSpaces; ++n) {
        PlannerSpace space;
        space.id = "new-" + std::to_string(growth.seed) + "-" + std::to_string(n);
        while (!taken.insert(space.id).second)
            space.id += "+";
        space.load = observed[draw(rng, observed.size())];
        out.spaces.push_back(std::move(space));
    }
}

// The fleet the strategies are compared on: the shards taking part (in id order, then the
// what-if shards) and the spaces on them, in the planner's terms so that the planner runs on it.
struct SimFleet {
    PlannerInput input;
    std::vector<std::string> ids;
    std::size_t taking = 0;
    std::vector<ShardRecord> added;
    PlannerNode whatIfNode;
    std::unordered_map<std::string, std::uint32_t> index;
    std::vector<std::uint64_t> hashes;
    std::vector<std::size_t> order;
    // Spaces without a shard yet (Growth's new spaces): nothing of theirs moves to get anywhere.
    std::vector<char> fresh;
    LoadFigures total;
    // The current map, with the new spaces where the load-aware allocator puts them.
    Placement current;
    std::size_t currentOverflow = 0;
};

// Shards unknown to the map's nodes count as on a retired node, as the planner counts them.
bool takesPart(const ShardRecord& shard, const std::unordered_map<std::string, bool>& retired)
{
    const auto node = retired.find(shard.node);
    return shard.state == ShardState::Active && node != retired.end() && !node->second;
}

void selectShards(SimFleet& fleet, const PlannerInput& grown, SimulationResult& result)
{
    std::unordered_map<std::string, bool> retired;
    for (const PlannerNode& node : grown.nodes)
        retired[node.id] = node.retired;
    for (const PlannerShard& shard : grown.shards) {
        if (takesPart(shard.record, retired))
            fleet.input.shards.push_back(shard);
        else
            result.excludedShards.push_back(shard.record.id);
    }
    std::sort(fleet.input.shards.begin(), fleet.input.shards.end(),
        [](const PlannerShard& a, const PlannerShard& b) { return a.record.id < b.record.id; });
    std::sort(result.excludedShards.begin(), result.excludedShards.end());
    for (const PlannerShard& shard : fleet.input.shards) {
        fleet.index[shard.record.id] = static_cast<std::uint32_t>(fleet.ids.size());
        fleet.ids.push_back(shard.record.id);
    }
    fleet.taking = fleet.ids.size();
}

void selectSpaces(SimFleet& fleet, const PlannerInput& grown, SimulationResult& result)
{
    for (const PlannerSpace& space : grown.spaces) {
        const bool fresh = space.shard.empty();
        if (!fresh && !fleet.index.contains(space.shard)) {
            ++result.excludedSpaces;
            result.excludedBytes += space.load.bytes;
            continue;
        }
        fleet.input.spaces.push_back(space);
        fleet.fresh.push_back(fresh ? 1 : 0);
        fleet.hashes.push_back(placementHash(space.id));
        fleet.total += space.load;
    }
    fleet.order = largestFirst(fleet.input.spaces);
}

SimFleet selectFleet(const PlannerInput& grown, SimulationResult& result)
{
    SimFleet fleet;
    fleet.input.baseRevision = grown.baseRevision;
    fleet.input.nodes = grown.nodes;
    fleet.input.settings = grown.settings;
    fleet.input.measuredDocsPerSecond = grown.measuredDocsPerSecond;
    fleet.input.measuredMigrations = grown.measuredMigrations;
    selectShards(fleet, grown, result);
    selectSpaces(fleet, grown, result);
    return fleet;
}

// The added shards live on a what-if node with free disk for anything, so that filling them is
// limited by the planner's balance and not by the disk of a node nobody has bought yet. Its disk
// size stays unknown, which keeps it out of the planner's node-disk objective. Only the inputs
// that fill the added shards list it.
std::string addWhatIfNode(SimFleet& fleet)
{
    std::string id = "what-if-node";
    const auto exists = [&](const std::string& candidate) {
        return std::any_of(fleet.input.nodes.begin(), fleet.input.nodes.end(),
            [&](const PlannerNode& node) { return node.id == candidate; });
    };
    while (exists(id))
        id += "+";
    const auto disk = static_cast<std::uint64_t>(4 * std::max(0.0, fleet.total.bytes)) + (1ULL << 30);
    fleet.whatIfNode = { id, false, disk, std::nullopt };
    return id;
}

// Ids that sort after every shard of the map (taking part or not), in the order they are added:
// appending is what jump hash handles cheaply. A new shard has the capacities of the last one.
void addWhatIfShards(SimFleet& fleet, const PlannerInput& grown, int count)
{
    if (count <= 0)
        return;
    std::string last;
    for (const PlannerShard& shard : grown.shards)
        last = std::max(last, shard.record.id);
    const ShardRecord& like = fleet.input.shards.back().record;
    const std::string node = addWhatIfNode(fleet);
    for (int k = 1; k <= count; ++k) {
        char suffix[16];
        std::snprintf(suffix, sizeof suffix, "-new%05d", k);
        ShardRecord shard { last + suffix, node, ShardState::Active, like.capacityDocs, like.capacityBytes };
        fleet.index[shard.id] = static_cast<std::uint32_t>(fleet.ids.size());
        fleet.ids.push_back(shard.id);
        fleet.added.push_back(std::move(shard));
    }
}

std::uint32_t fewestBytes(const std::vector<LoadFigures>& sums)
{
    std::size_t best = 0;
    for (std::size_t s = 1; s < sums.size(); ++s) {
        if (sums[s].bytes < sums[best].bytes)
            best = s;
    }
    return static_cast<std::uint32_t>(best);
}

void syncLoad(ShardLoad& load, const LoadFigures& sum)
{
    load.docs = static_cast<std::uint64_t>(std::llround(std::max(0.0, sum.docs)));
    load.bytes = static_cast<std::uint64_t>(std::llround(std::max(0.0, sum.bytes)));
}

// Places the unplaced spaces, largest first, with the load-aware allocator on top of what the
// placed ones hold. Disk pressure is left out: the disks would hold another layout. Returns how
// many found every shard full; those go to the shard with the fewest bytes.
std::size_t placeLoadAware(const SimFleet& fleet, Placement& placement)
{
    std::vector<ShardLoad> loads(fleet.taking);
    std::vector<LoadFigures> sums(fleet.taking);
    for (std::size_t s = 0; s < fleet.taking; ++s)
        loads[s].shard = fleet.input.shards[s].record;
    for (std::size_t i = 0; i < placement.size(); ++i) {
        if (placement[i] != kUnplaced) {
            sums[placement[i]] += fleet.input.spaces[i].load;
            ++loads[placement[i]].spaces;
        }
    }
    for (std::size_t s = 0; s < fleet.taking; ++s)
        syncLoad(loads[s], sums[s]);
    std::size_t overflow = 0;
    for (std::size_t i : fleet.order) {
        if (placement[i] != kUnplaced)
            continue;
        const auto picked = allocateShard(AllocationStrategy::LoadAware, fleet.input.spaces[i].id, loads);
        const auto found = picked ? fleet.index.find(*picked) : fleet.index.end();
        const std::uint32_t s = found != fleet.index.end() ? found->second : fewestBytes(sums);
        overflow += found != fleet.index.end() ? 0 : 1;
        placement[i] = s;
        sums[s] += fleet.input.spaces[i].load;
        ++loads[s].spaces;
        syncLoad(loads[s], sums[s]);
    }
    return overflow;
}

void placeCurrent(SimFleet& fleet)
{
    fleet.current.assign(fleet.input.spaces.size(), kUnplaced);
    for (std::size_t i = 0; i < fleet.input.spaces.size(); ++i) {
        if (!fleet.fresh[i])
            fleet.current[i] = fleet.index.at(fleet.input.spaces[i].shard);
    }
    fleet.currentOverflow = placeLoadAware(fleet, fleet.current);
}

// The fleet's input with the spaces where the placement puts them. Without keepFlags the layout
// is a fresh one: nothing is pinned or migrating in it.
PlannerInput inputFor(const SimFleet& fleet, const Placement& placement, bool keepFlags)
{
    PlannerInput input = fleet.input;
    for (std::size_t i = 0; i < input.spaces.size(); ++i) {
        PlannerSpace& space = input.spaces[i];
        space.shard = fleet.ids[placement[i]];
        if (!keepFlags) {
            space.pin.clear();
            space.migrating = false;
            space.migrationId.clear();
            space.migratingFrom.clear();
        }
    }
    return input;
}

std::vector<std::uint32_t> shardRange(std::size_t first, std::size_t end)
{
    std::vector<std::uint32_t> shards(end - first);
    std::iota(shards.begin(), shards.end(), static_cast<std::uint32_t>(first));
    return shards;
}

std::vector<ShardLoad> unboundedLoads(const SimFleet& fleet, const std::vector<std::uint32_t>& shards)
{
    std::vector<ShardLoad> loads(shards.size());
    for (std::size_t k = 0; k < shards.size(); ++k) {
        loads[k].shard.id = fleet.ids[shards[k]];
        loads[k].shard.node = "-";
    }
    return loads;
}

// The allocator itself picks, so that the simulation is what a router would compute. The shards
// are given without capacity: a hash knows none.
Placement placeRendezvous(const SimFleet& fleet, const std::vector<std::uint32_t>& shards)
{
    const std::vector<ShardLoad> loads = unboundedLoads(fleet, shards);
    Placement placement(fleet.input.spaces.size());
    for (std::size_t i = 0; i < placement.size(); ++i) {
        const auto picked = allocateShard(AllocationStrategy::Rendezvous, fleet.input.spaces[i].id, loads);
        placement[i] = picked ? fleet.index.at(*picked) : shards.front();
    }
    return placement;
}

struct RingPoint {
    std::uint64_t position = 0;
    std::uint32_t shard = 0;
};

// A shard's points depend only on its id, so adding or removing a shard leaves the others' points
// where they were.
std::vector<RingPoint> makeRing(const SimFleet& fleet, const std::vector<std::uint32_t>& shards, int virtualNodes)
{
    std::vector<RingPoint> ring;
    ring.reserve(shards.size() * static_cast<std::size_t>(virtualNodes));
    for (std::uint32_t s : shards) {
        for (int v = 0; v < virtualNodes; ++v)
            ring.push_back({ placementHash(fleet.ids[s] + "#" + std::to_string(v)), s });
    }
    std::sort(ring.begin(), ring.end(), [](const RingPoint& a, const RingPoint& b) {
        return a.position != b.position ? a.position < b.position : a.shard < b.shard;
    });
    return ring;
}

// Clockwise from the key to the first shard with room. The caller made sure that one has.
std::uint32_t walkRing(
    const std::vector<RingPoint>& ring, std::uint64_t key, const std::vector<double>& load, double weight, double cap)
{
    auto point = std::lower_bound(
        ring.begin(), ring.end(), key, [](const RingPoint& p, std::uint64_t value) { return p.position < value; });
    for (;; ++point) {
        if (point == ring.end())
            point = ring.begin();
        if (load[point->shard] + weight <= cap)
            return point->shard;
    }
}

// Mirrokni, Thorup, Zadimoghaddam, "Consistent Hashing with Bounded Loads" (2018): a shard
// takes at most ceil((1 + eps) x mean) and passes the rest on clockwise. Spaces arrive largest
// first, as for the load-aware allocator. A space that fits under no shard's cap (only possible
// when capping bytes) goes to the least loaded shard and counts as overflow.
Placement placeBounded(const SimFleet& fleet, const std::vector<std::uint32_t>& shards,
    const SimulationOptions& options, std::size_t& overflow)
{
    const std::vector<RingPoint> ring = makeRing(fleet, shards, options.virtualNodes);
    const bool bytes = options.boundedLoadMeasure == BoundedLoadMeasure::Bytes;
    const double total = bytes ? fleet.total.bytes : static_cast<double>(fleet.input.spaces.size());
    const double cap = std::ceil((1 + options.boundedLoadEpsilon) * total / static_cast<double>(shards.size()));
    std::vector<double> load(fleet.ids.size(), 0);
    std::set<std::pair<double, std::uint32_t>> byLoad;
    for (std::uint32_t s : shards)
        byLoad.insert({ 0.0, s });
    Placement placement(fleet.input.spaces.size());
    for (std::size_t i : fleet.order) {
        const double weight = bytes ? fleet.input.spaces[i].load.bytes : 1.0;
        std::uint32_t s = byLoad.begin()->second;
        if (byLoad.begin()->first + weight <= cap)
            s = walkRing(ring, fleet.hashes[i], load, weight, cap);
        else
            ++overflow;
        byLoad.erase({ load[s], s });
        load[s] += weight;
        byLoad.insert({ load[s], s });
        placement[i] = s;
    }
    return placement;
}

// A hashing strategy over `shards` (indices into fleet.ids, in id order): jump hash and mod-N
// by their definitions in allocator.h over the shards sorted by id, rendezvous by the allocator.
Placement placeHashed(SimulatedStrategy strategy, const SimFleet& fleet, const std::vector<std::uint32_t>& shards,
    const SimulationOptions& options, std::size_t& overflow)
{
    if (strategy == SimulatedStrategy::Rendezvous)
        return placeRendezvous(fleet, shards);
    if (strategy == SimulatedStrategy::BoundedLoad)
        return placeBounded(fleet, shards, options, overflow);
    Placement placement(fleet.input.spaces.size());
    const auto buckets = static_cast<std::int32_t>(shards.size());
    for (std::size_t i = 0; i < placement.size(); ++i) {
        const auto bucket = strategy == SimulatedStrategy::JumpHash
            ? static_cast<std::size_t>(jumpConsistentHash(fleet.hashes[i], buckets))
            : static_cast<std::size_t>(fleet.hashes[i] % shards.size());
        placement[i] = shards[bucket];
    }
    return placement;
}

double shareOf(const SimFleet& fleet, double bytes)
{
    return fleet.total.bytes > 0 ? bytes / fleet.total.bytes : 0.0;
}

void tally(DataMoved& moved, const LoadFigures& load)
{
    moved.bytes += load.bytes;
    moved.docs += load.docs;
    ++moved.spaces;
}

// The spaces whose shard differs; existingOnly leaves out the new spaces (they are not written
// anywhere yet, so placing them elsewhere costs nothing).
DataMoved movedBetween(const SimFleet& fleet, const Placement& a, const Placement& b, bool existingOnly)
{
    DataMoved moved;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i] != b[i] && !(existingOnly && fleet.fresh[i]))
            tally(moved, fleet.input.spaces[i].load);
    }
    moved.shareOfBytes = shareOf(fleet, moved.bytes);
    return moved;
}

// Dynamic lookup: removing shards moves their spaces and nothing else.
DataMoved movedOffRemoved(const SimFleet& fleet, const Placement& placement, int removed)
{
    DataMoved moved;
    const std::size_t first = fleet.taking - static_cast<std::size_t>(removed);
    for (std::size_t i = 0; i < placement.size(); ++i) {
        if (placement[i] >= first && placement[i] < fleet.taking)
            tally(moved, fleet.input.spaces[i].load);
    }
    moved.shareOfBytes = shareOf(fleet, moved.bytes);
    return moved;
}

void addNotes(std::vector<std::string>& notes, const std::vector<std::string>& more)
{
    for (std::size_t k = 0; k < more.size() && k < kMaxNotes; ++k)
        notes.push_back(more[k]);
    if (more.size() > kMaxNotes)
        notes.push_back("and " + std::to_string(more.size() - kMaxNotes) + " more warning(s) of the planner");
}

// Dynamic lookup: adding shards moves what the planner's add-shard scenario puts on them. Its
// warnings are left out: it fills the new shards only, so the old ones always stay out of band.
DataMoved movedOntoAdded(const SimFleet& fleet, const Placement& placement, bool keepFlags,
    const SimulationOptions& options, std::vector<std::string>& notes)
{
    if (fleet.added.empty())
        return {};
    PlannerInput input = inputFor(fleet, placement, keepFlags);
    input.nodes.push_back(fleet.whatIfNode);
    const auto plan = planAddShards(input, fleet.added, options.planner);
    if (!plan) {
        notes.push_back("the planner cannot fill the added shards: " + plan.error().message);
        return { false, 0, 0, 0, 0 };
    }
    const PlanSummary& summary = plan->summary;
    const auto bytes = static_cast<double>(summary.bytesMoved);
    return { true, bytes, static_cast<double>(summary.docsMoved), summary.moves, shareOf(fleet, bytes) };
}

// Current + planRebalance applied. A refusal leaves the current map, saying why.
Placement plannerLayout(const SimFleet& fleet, const SimulationOptions& options, std::vector<std::string>& notes)
{
    const PlannerInput input = inputFor(fleet, fleet.current, true);
    const auto plan = planRebalance(input, options.planner);
    if (!plan) {
        notes.push_back("the planner refused to rebalance: " + plan.error().message);
        return fleet.current;
    }
    addNotes(notes, plan->warnings);
    const PlannerInput after = applyPlanToInput(input, plan->plan);
    Placement placement = fleet.current;
    for (std::size_t i = 0; i < placement.size() && i < after.spaces.size(); ++i) {
        if (const auto found = fleet.index.find(after.spaces[i].shard); found != fleet.index.end())
            placement[i] = found->second;
    }
    return placement;
}

std::string overflowNote(SimulatedStrategy strategy, std::size_t overflow)
{
    const std::string spaces = std::to_string(overflow) + " space(s)";
    if (strategy == SimulatedStrategy::BoundedLoad)
        return spaces + " fit under no shard's cap and went to the least loaded shard";
    return spaces + " found every shard full and went to the shard with the fewest bytes";
}

Placement layoutOf(
    SimulatedStrategy strategy, const SimFleet& fleet, const SimulationOptions& options, StrategyOutcome& outcome)
{
    switch (strategy) {
    case SimulatedStrategy::Current: {
        const auto fresh = static_cast<std::size_t>(std::count(fleet.fresh.begin(), fleet.fresh.end(), 1));
        if (fresh > 0)
            outcome.notes.push_back(std::to_string(fresh) + " new space(s) placed by the load-aware allocator");
        outcome.overflow = fleet.currentOverflow;
        return fleet.current;
    }
    case SimulatedStrategy::Planner: return plannerLayout(fleet, options, outcome.notes);
    case SimulatedStrategy::LoadAware: {
        Placement placement(fleet.input.spaces.size(), kUnplaced);
        outcome.overflow = placeLoadAware(fleet, placement);
        return placement;
    }
    default: return placeHashed(strategy, fleet, shardRange(0, fleet.taking), options, outcome.overflow);
    }
}

FillSpread spreadOf(const std::vector<ShardFill>& shards, double LoadFigures::*figure)
{
    FillSpread spread;
    for (const ShardFill& shard : shards) {
        spread.mean += shard.load.*figure;
        spread.max = std::max(spread.max, shard.load.*figure);
    }
    spread.mean /= static_cast<double>(shards.size());
    if (spread.mean <= 0)
        return spread;
    double squares = 0;
    for (const ShardFill& shard : shards)
        squares += (shard.load.*figure - spread.mean) * (shard.load.*figure - spread.mean);
    spread.maxOverMean = spread.max / spread.mean;
    spread.stddevOverMean = std::sqrt(squares / static_cast<double>(shards.size())) / spread.mean;
    return spread;
}

void describeFills(const SimFleet& fleet, const Placement& placement, StrategyOutcome& outcome)
{
    outcome.shards.resize(fleet.taking);
    for (std::size_t s = 0; s < fleet.taking; ++s)
        outcome.shards[s].shard = fleet.ids[s];
    for (std::size_t i = 0; i < placement.size(); ++i) {
        ShardFill& fill = outcome.shards[placement[i]];
        fill.load += fleet.input.spaces[i].load;
        ++fill.spaces;
    }
    outcome.bytes = spreadOf(outcome.shards, &LoadFigures::bytes);
    outcome.docs = spreadOf(outcome.shards, &LoadFigures::docs);
    outcome.queries = spreadOf(outcome.shards, &LoadFigures::queriesPerSecond);
    const auto hottest = std::max_element(outcome.shards.begin(), outcome.shards.end(),
        [](const ShardFill& a, const ShardFill& b) { return a.load.queriesPerSecond < b.load.queriesPerSecond; });
    if (outcome.queries.max > 0)
        outcome.hottestShard = hottest->shard;
}

// Highest random weight over a superset or a subset of the shards, from the placement over all
// of them: with shards added a space moves only when one of them outscores its shard; with shards
// removed only the removed shards' spaces choose again among the rest. That is what the allocator
// answers over the new list (the tests compare), for a fraction of the hashing.
Placement rendezvousAdded(const SimFleet& fleet, const Placement& base)
{
    Placement placement = base;
    for (std::size_t i = 0; i < placement.size(); ++i) {
        const std::string& space = fleet.input.spaces[i].id;
        std::uint64_t best = rendezvousScore(space, fleet.ids[base[i]]);
        for (std::size_t s = fleet.taking; s < fleet.ids.size(); ++s) {
            const std::uint64_t score = rendezvousScore(space, fleet.ids[s]);
            if (score > best || (score == best && fleet.ids[s] < fleet.ids[placement[i]])) {
                best = score;
                placement[i] = static_cast<std::uint32_t>(s);
            }
        }
    }
    return placement;
}

Placement rendezvousRemoved(const SimFleet& fleet, const Placement& base, std::size_t kept)
{
    const std::vector<ShardLoad> loads = unboundedLoads(fleet, shardRange(0, kept));
    Placement placement = base;
    for (std::size_t i = 0; i < placement.size(); ++i) {
        if (base[i] < kept)
            continue;
        const auto picked = allocateShard(AllocationStrategy::Rendezvous, fleet.input.spaces[i].id, loads);
        placement[i] = picked ? fleet.index.at(*picked) : 0;
    }
    return placement;
}

// Hashing: the spaces whose computed shard changes between n and n +/- k shards.
void hashedMoves(
    const SimFleet& fleet, const Placement& base, const SimulationOptions& options, StrategyOutcome& outcome)
{
    const bool rendezvous = outcome.strategy == SimulatedStrategy::Rendezvous;
    std::size_t ignored = 0;
    if (!fleet.added.empty()) {
        const auto grown = rendezvous
            ? rendezvousAdded(fleet, base)
            : placeHashed(outcome.strategy, fleet, shardRange(0, fleet.ids.size()), options, ignored);
        outcome.onAdd = movedBetween(fleet, base, grown, false);
    }
    if (options.removeShards > 0) {
        const auto kept = fleet.taking - static_cast<std::size_t>(options.removeShards);
        const auto shrunk = rendezvous ? rendezvousRemoved(fleet, base, kept)
                                       : placeHashed(outcome.strategy, fleet, shardRange(0, kept), options, ignored);
        outcome.onRemove = movedBetween(fleet, base, shrunk, false);
    }
}

StrategyOutcome outcomeOf(SimulatedStrategy strategy, const SimFleet& fleet, const SimulationOptions& options)
{
    StrategyOutcome outcome;
    outcome.strategy = strategy;
    outcome.name = simulatedStrategyName(strategy);
    outcome.dynamicLookup = isDynamicLookup(strategy);
    const Placement placement = layoutOf(strategy, fleet, options, outcome);
    if (outcome.overflow > 0)
        outcome.notes.push_back(overflowNote(strategy, outcome.overflow));
    describeFills(fleet, placement, outcome);
    outcome.fromCurrent = movedBetween(fleet, fleet.current, placement, true);
    if (!outcome.dynamicLookup) {
        hashedMoves(fleet, placement, options, outcome);
        return outcome;
    }
    const bool keepFlags = strategy != SimulatedStrategy::LoadAware;
    outcome.onAdd = movedOntoAdded(fleet, placement, keepFlags, options, outcome.notes);
    if (options.removeShards > 0)
        outcome.onRemove = movedOffRemoved(fleet, placement, options.removeShards);
    return outcome;
}

Status checkOptions(const SimulationOptions& options)
{
    if (options.addShards < 0 || options.removeShards < 0)
        return makeError(ErrorCode::InvalidArgument, "the number of shards to add or remove cannot be negative");
    if (options.addShards > kMaxShardChange || options.removeShards > kMaxShardChange)
        return makeError(ErrorCode::InvalidArgument,
            "at most " + std::to_string(kMaxShardChange) + " shards can be added or removed in a simulation");
    if (!std::isfinite(options.boundedLoadEpsilon) || options.boundedLoadEpsilon <= 0)
        return makeError(ErrorCode::InvalidArgument, "the bounded-load epsilon must be above 0");
    if (options.virtualNodes < 1 || options.virtualNodes > kMaxVirtualNodes)
        return makeError(ErrorCode::InvalidArgument,
            "virtual nodes per shard must be between 1 and " + std::to_string(kMaxVirtualNodes));
    return {};
}

void summarize(const SimFleet& fleet, const SimulationOptions& options, SimulationResult& result)
{
    result.shards.assign(fleet.ids.begin(), fleet.ids.begin() + static_cast<std::ptrdiff_t>(fleet.taking));
    for (const ShardRecord& shard : fleet.added)
        result.addedShards.push_back(shard.id);
    result.removedShards.assign(
        fleet.ids.begin() + static_cast<std::ptrdiff_t>(fleet.taking - static_cast<std::size_t>(options.removeShards)),
        fleet.ids.begin() + static_cast<std::ptrdiff_t>(fleet.taking));
    result.spaces = fleet.input.spaces.size();
    result.newSpaces = static_cast<std::size_t>(std::count(fleet.fresh.begin(), fleet.fresh.end(), 1));
    result.total = fleet.total;
    const auto k = static_cast<double>(fleet.added.size());
    result.minimumMovedOnAdd = fleet.total.bytes * k / (static_cast<double>(fleet.taking) + k);
}

} // namespace

const char* simulatedStrategyName(SimulatedStrategy strategy)
{
    switch (strategy) {
    case SimulatedStrategy::Current: return "current";
    case SimulatedStrategy::Planner: return "planner";
    case SimulatedStrategy::LoadAware: return "load-aware";
    case SimulatedStrategy::JumpHash: return "jump";
    case SimulatedStrategy::Rendezvous: return "rendezvous";
    case SimulatedStrategy::ModN: return "mod-n";
    case SimulatedStrategy::BoundedLoad: return "bounded-load";
    }
    return "unknown";
}

bool isDynamicLookup(SimulatedStrategy strategy)
{
    return strategy == SimulatedStrategy::Current || strategy == SimulatedStrategy::Planner
        || strategy == SimulatedStrategy::LoadAware;
}

const char* simulatedStrategyExplanation(SimulatedStrategy strategy)
{
    switch (strategy) {
    case SimulatedStrategy::Current:
        return "the map as it is; dynamic lookup: removing a shard moves only its spaces, adding one moves only "
               "what the planner puts on it";
    case SimulatedStrategy::Planner:
        return "the map after a planner rebalance; dynamic lookup, so shard changes move as little as for the "
               "current map";
    case SimulatedStrategy::LoadAware:
        return "every space placed anew, largest first, on the shard with the lowest load score; dynamic lookup";
    case SimulatedStrategy::JumpHash:
        return "jump consistent hash over the shards by id: a shard added last takes about 1/(n+1) of the spaces, "
               "nothing else moves";
    case SimulatedStrategy::Rendezvous:
        return "highest random weight: adding or removing a shard moves only the spaces that go to it or leave it";
    case SimulatedStrategy::ModN: return "hash mod n over the shards by id: when n changes, nearly every space moves";
    case SimulatedStrategy::BoundedLoad:
        return "consistent hashing with bounded loads: a ring of virtual nodes where a shard past (1 + eps) x the "
               "mean passes spaces on clockwise";
    }
    return "";
}

Result<PlannerInput> applyGrowth(const PlannerInput& input, const Growth& growth)
{
    if (!validFactor(growth.allFactor) || !validFactor(growth.topFactor))
        return makeError(ErrorCode::InvalidArgument, "growth factors must be finite and at least 0");
    PlannerInput out = input;
    std::vector<LoadFigures> observed;
    observed.reserve(out.spaces.size());
    for (PlannerSpace& space : out.spaces) {
        observed.push_back(space.load);
        scale(space.load, growth.allFactor);
    }
    if (growth.topN > 0) {
        const std::vector<std::size_t> order = largestFirst(out.spaces);
        for (std::size_t k = 0; k < order.size() && k < growth.topN; ++k)
            scale(out.spaces[order[k]].load, growth.topFactor);
    }
    addNewSpaces(out, observed, growth);
    return out;
}

Result<SimulationResult> simulate(const PlannerInput& input, const SimulationOptions& options)
{
    if (auto status = checkOptions(options); !status)
        return status.error();
    const auto grown = applyGrowth(input, options.growth);
    if (!grown)
        return grown.error();
    SimulationResult result;
    SimFleet fleet = selectFleet(*grown, result);
    if (fleet.taking == 0)
        return makeError(ErrorCode::FailedPrecondition,
            "no shard takes part: the simulation needs an active shard on a node that is not retired");
    if (static_cast<std::size_t>(options.removeShards) >= fleet.taking)
        return makeError(ErrorCode::InvalidArgument,
            "cannot remove " + std::to_string(options.removeShards) + " of the " + std::to_string(fleet.taking)
                + " shard(s) taking part; at least one must stay");
    addWhatIfShards(fleet, *grown, options.addShards);
    placeCurrent(fleet);
    summarize(fleet, options, result);
    for (SimulatedStrategy strategy : kStrategies)
        result.strategies.push_back(outcomeOf(strategy, fleet, options));
    return result;
}

} // namespace shardmap::core
