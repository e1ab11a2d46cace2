#pragma once

// The planner's working model of the fleet while a plan is made: shards as bins holding spaces as
// items, nodes as hosts, the share of the load every balanced bin should hold, and the moves so far.

#include "core/plan/plan_figures.h"
#include "core/plan/plan_note.h"
#include "core/plan/planner.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

// The planner's own namespace: the model and the search are its parts, not core's vocabulary.
namespace shardmap::core::planning {

// The objectives a shard holds (bytes, docs, queries, writes); NodeDisk is the nodes'.
inline constexpr std::size_t kShardObjectives = 4;
// No bin, no item, no target.
inline constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

// The load's figure of a shard objective (index as Objective).
inline double figure(const LoadFigures& load, std::size_t objective)
{
    switch (objective) {
    case 0: return load.bytes;
    case 1: return load.docs;
    case 2: return load.queriesPerSecond;
    default: return load.writesPerSecond;
    }
}

// A shard as the plan sees it: its record, its node, its role in the plan and its load now.
struct Bin {
    ShardRecord record;
    std::size_t host = kNone;
    // The hosts of its replicas (issue 30; lost ones excluded): a space the bin takes lands on
    // each of them too, so their disks count it and must have room for it.
    std::vector<std::size_t> copyHosts;
    bool isNew = false;
    // May take spaces; counts in the balance (its share of every objective); may give spaces
    // when the fleet is rebalanced.
    bool receives = false;
    bool balanced = false;
    // Made by the plan (not in the map yet); takes part in the fleet as it is before the plan
    // (the summary's "before").
    bool created = false;
    bool countedBefore = false;
    std::string dedicatedTo;
    bool outOfBand = false;
    double share = 1;
    LoadFigures load;
    LoadFigures before;
    std::size_t spacesBefore = 0;
    std::vector<std::size_t> items;
};

// A node: the bytes its shards hold and what the plan puts on its disk.
struct Host {
    PlannerNode node;
    double bytesBefore = 0;
    double bytes = 0;
    // Bytes planned onto the node so far: the preflight wants twice each space's bytes free
    // after the moves before it.
    double received = 0;
    // What the disk holds besides the shards' spaces (WAL, other files): fixed while planning.
    double other = 0;

    bool diskKnown() const { return node.diskTotalBytes && node.diskFreeBytes && *node.diskTotalBytes > 0; }
    // Share of the disk in use once the plan's moves are done and cleaned up.
    double diskUse(double bytesChange) const
    {
        return (bytes + bytesChange + other) / static_cast<double>(*node.diskTotalBytes);
    }
};

// A space: where it is (bin) and started (home), and whether the plan may or must move it.
struct Item {
    const PlannerSpace* space = nullptr;
    // A copy of space->load, kept beside the item so that the scans stay in cache.
    LoadFigures load;
    std::size_t bin = kNone;
    std::size_t home = kNone;
    bool movable = false;
    bool big = false;
    bool mustLeave = false;
    PlanNote leaveReason;
};

// The fleet while a plan is made: bins (shards) with their items (spaces) and hosts (nodes),
// the shares every balanced bin should hold, and the moves made so far. A scenario marks what must
// leave, settles the fleet (which bins receive and count, their shares and the band), moves items
// under the hard constraints (refusal()) and the budget, and reads the plan back (result()); the
// search (planner_search.h) chooses the moves by delta(), the change of the weighted deviation.
class Fleet {
public:
    // The input's fleet before any move; the input must outlive the fleet (items point into its
    // spaces). Added shards join as new bins (a shard of the input among them is only marked new).
    Fleet(const PlannerInput& input, const PlannerOptions& options, const std::vector<ShardRecord>& added);

    const PlannerOptions& options() const { return m_options; }
    std::vector<Bin>& bins() { return m_bins; }
    std::vector<Item>& items() { return m_items; }
    // Adds a warning once (the same words twice say nothing more).
    void warn(PlanNote note);
    std::vector<std::string>& remaining() { return m_remaining; }

    // The bin of a shard and the item of a space; kNone when there is none.
    std::size_t binOf(const std::string& id) const;
    std::size_t itemOf(const std::string& spaceId) const;

    // Which bins may receive and which count in the balance. Call after the scenario marked the
    // bins it empties (excluded) and before planning moves.
    // evictFromDedicated: the other spaces of a shard dedicated to a large space must leave it
    // (rebalance); the other scenarios only keep such shards from receiving.
    void settle(const std::set<std::string>& emptied, bool evictFromDedicated = false);

    // An explicitly named target (merge into) takes spaces even when a large space makes it
    // dedicated; its capacity still applies.
    void letReceive(std::size_t binIndex);

    void markMustLeave(std::size_t item, PlanNote reason);

    double target(const Bin& bin, std::size_t objective) const { return m_mean[objective] * bin.share; }

    // Is the bin outside the band in an objective: +1 above, -1 below, 0 within (every objective).
    bool outAbove(const Bin& bin) const { return outside(bin, 1); }
    bool outBelow(const Bin& bin) const { return outside(bin, -1); }

    // Kept up to date by move(): the balanced bins outside the band.
    bool fleetBalanced() const { return m_outOfBand == 0; }

    // Why the item cannot go to the bin (empty: it can), by the hard constraints.
    std::string refusal(std::size_t itemIndex, std::size_t binIndex) const;

    // Change of the weighted squared deviation if the item moved to the bin.
    double delta(std::size_t itemIndex, std::size_t binIndex) const;

    // delta(item, to) for every item of `from` is sum over objectives of x * (quad * x + lin):
    // the pair's coefficients, worked out once per scan instead of once per item.
    struct PairCoefficients {
        std::array<double, kShardObjectives> linear {};
        std::array<double, kShardObjectives> quadratic {};

        double delta(const LoadFigures& x) const
        {
            double sum = 0;
            for (std::size_t o = 0; o < kShardObjectives; ++o) {
                const double value = figure(x, o);
                sum += value * (quadratic[o] * value + linear[o]);
            }
            return sum;
        }
    };

    PairCoefficients coefficients(std::size_t fromIndex, std::size_t toIndex) const;

    // Weighted excess over the share (positive: above), for ordering sources and targets.
    double excess(const Bin& bin) const;

    void move(std::size_t itemIndex, std::size_t binIndex, PlanNote reason);

    // The bin's bytes over its share ("1.41"; "" when it has no share).
    std::string shareText(const Bin& bin) const;

    // Would moving this item (again) to the bin stay within the move budget? The hours are the
    // plan's estimate with the move, as reported.
    bool withinBudget(std::size_t itemIndex, std::size_t binIndex) const;

    double docsPerSecond() const { return m_rate.docsPerSecond; }
    const CopyRate& rate() const { return m_rate; }

    double copySeconds(double docs, std::size_t moves) const;

    // The estimate of the whole plan: the fleet-wide limit, or the busiest shard when one shard
    // takes part in more moves than its per-shard limit lets run at once.
    double estimatedSeconds(const PlannedMove* extra = nullptr) const;

    PlanResult result(std::string kind, std::string subject, std::string into, std::vector<ShardRecord> created,
        bool balancedBefore, std::uint64_t lowerBound);

private:
    // A space moved again in the same plan keeps one move, from its home to where it is now
    // (none when it is back home), so every space appears in a plan at most once.
    void record(std::size_t itemIndex, PlanNote reason);

    void addBin(const ShardRecord& record, bool isNew);

    bool isCandidate(const Bin& bin, const std::set<std::string>& emptied) const;

    // A node that did not report (unreachable, no metrics yet) has unknown loads and free disk:
    // its shards neither receive nor count in the balance, where they would look empty.
    bool hostReported(const Bin& bin);

    // An isolated space's shard takes nothing: the plan says so once per shard.
    void noteIsolated(const Bin& bin);

    // Seed 002 gives a space larger than half a shard a shard of its own: its shard takes
    // nothing more and its other spaces leave.
    void markDedicated(const std::set<std::string>& emptied, bool evict);

    // The load that ends on balanced bins (theirs and what must leave the others), per unit of
    // share.
    void computeMeans();

    bool outside(const Bin& bin, int side) const;

    // +1 above the band in objective o, -1 below it, 0 within it or not weighed. Query and write
    // load under minLoadPerSecond in the whole fleet is noise: every shard is within it.
    int sideOf(const Bin& bin, std::size_t o) const;

    // Moving bytes between nodes evens out their disks (after cleanup, when the source's copy
    // is gone); the mean use does not change with moves.
    double diskDelta(const Item& item, const Bin& from, const Bin& to) const;
    std::size_t hostOf(const std::string& nodeId);

    // Before: the fleet as it is, every shard that takes part in the balance now (active, on a
    // live node that reported, not excluded or dedicated), the shards the plan drains, retires or
    // merges included and those it creates not. After: the shards that take part once the plan is
    // done. Each against its own mean (PLANNER.md, "Before and after").
    ObjectiveSpread spread(Objective objective) const;

    // Per bin and objective: does it hold a space carrying some of that objective that may move.
    using MovableLoad = std::vector<std::array<bool, kShardObjectives>>;

    MovableLoad movableLoad() const;

    // The objective the bin is furthest outside the band in among those a move could change (a
    // space that may leave it when above, one on another balanced bin when below): its ratio to
    // the share ("1.41") and the objective's name; empty when no move could change any.
    std::pair<std::string, std::string> worstOff(
        std::size_t b, const MovableLoad& movable, const std::array<std::size_t, kShardObjectives>& givers) const;

    // Warns about the shards left outside the band that a move could change (issue 26: not every
    // shard of a fleet without query load, "0.00x its share of queries").
    void warnOutOfBand();

    const PlannerInput& m_input;
    PlannerOptions m_options;
    CopyRate m_rate;
    std::vector<Host> m_hosts;
    std::map<std::string, std::size_t> m_hostIndex;
    std::vector<Bin> m_bins;
    std::map<std::string, std::size_t> m_binIndex;
    std::vector<Item> m_items;
    std::array<double, kShardObjectives> m_mean {};
    std::array<double, kShardObjectives> m_total {};
    double m_meanDiskUse = 0;
    std::size_t m_outOfBand = 0;
    std::vector<PlannedMove> m_moves;
    // Why each of m_moves moves, as data.
    std::vector<PlanNote> m_moveNotes;
    std::map<std::size_t, std::size_t> m_moveOf;
    std::size_t m_moveCount = 0;
    double m_movedBytes = 0;
    double m_movedDocs = 0;
    std::vector<std::string> m_warnings;
    std::vector<PlanNote> m_warningNotes;
    std::vector<std::string> m_remaining;
};

} // namespace shardmap::core::planning
