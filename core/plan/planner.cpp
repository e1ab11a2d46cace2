#include "core/plan/planner.h"

#include "core/plan/plan_figures.h"
#include "core/plan/space_holds.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <tuple>

namespace shardmap::core {

const char* objectiveName(Objective objective)
{
    switch (objective) {
    case Objective::Bytes: return "bytes";
    case Objective::Docs: return "docs";
    case Objective::QueryLoad: return "queries";
    case Objective::WriteLoad: return "writes";
    case Objective::NodeDisk: return "node-disk";
    }
    return "?";
}

LoadFigures& LoadFigures::operator+=(const LoadFigures& other)
{
    docs += other.docs;
    bytes += other.bytes;
    queriesPerSecond += other.queriesPerSecond;
    writesPerSecond += other.writesPerSecond;
    return *this;
}

LoadFigures& LoadFigures::operator-=(const LoadFigures& other)
{
    docs -= other.docs;
    bytes -= other.bytes;
    queriesPerSecond -= other.queriesPerSecond;
    writesPerSecond -= other.writesPerSecond;
    return *this;
}

namespace {

constexpr std::size_t kShardObjectives = 4;
constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
constexpr double kMinGain = 1e-9;
// Sources and targets looked at per move of the improvement loop: enough to find a move in a
// lopsided fleet, few enough that 1,000 shards plan in well under a second.
constexpr std::size_t kSourcesPerRound = 32;
constexpr std::size_t kTargetsPerRound = 16;
// Verify and cutover per migration, on top of the copy, for the duration estimate.
constexpr double kOverheadSecondsPerMove = 2.0;

double figure(const LoadFigures& load, std::size_t objective)
{
    switch (objective) {
    case 0: return load.bytes;
    case 1: return load.docs;
    case 2: return load.queriesPerSecond;
    default: return load.writesPerSecond;
    }
}

std::string ratio(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", value);
    return text;
}

struct Bin {
    ShardRecord record;
    std::size_t host = kNone;
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

struct Candidate {
    std::size_t item = kNone;
    std::size_t target = kNone;
    double delta = 0;
};

// The fleet while a plan is made: bins (shards) with their items (spaces) and hosts (nodes),
// the shares every balanced bin should hold, and the moves made so far.
class Fleet {
public:
    Fleet(const PlannerInput& input, const PlannerOptions& options, const std::vector<ShardRecord>& added)
        : m_input(input)
        , m_options(options)
        , m_rate(copyRate(input, options))
    {
        for (const PlannerNode& node : input.nodes) {
            m_hostIndex[node.id] = m_hosts.size();
            m_hosts.push_back({ node, 0, 0, 0 });
        }
        for (const PlannerShard& shard : input.shards) {
            addBin(shard.record, false);
            m_bins.back().dedicatedTo = shard.dedicatedTo;
        }
        for (const ShardRecord& shard : added) {
            if (m_binIndex.contains(shard.id))
                m_bins[m_binIndex.at(shard.id)].isNew = true;
            else
                addBin(shard, true);
        }
        m_items.reserve(input.spaces.size());
        for (const PlannerSpace& space : input.spaces) {
            const auto bin = m_binIndex.find(space.shard);
            if (bin == m_binIndex.end())
                continue;
            Item item;
            item.space = &space;
            item.load = space.load;
            item.bin = item.home = bin->second;
            item.movable = !space.migrating && (space.pin.empty() || space.pin != space.shard);
            m_bins[item.bin].items.push_back(m_items.size());
            m_bins[item.bin].load += space.load;
            m_items.push_back(std::move(item));
        }
        for (Bin& bin : m_bins) {
            bin.before = bin.load;
            bin.spacesBefore = bin.items.size();
            if (bin.host != kNone)
                m_hosts[bin.host].bytes += bin.load.bytes;
        }
        for (Host& host : m_hosts) {
            host.bytesBefore = host.bytes;
            if (host.diskKnown()) {
                const double used = static_cast<double>(*host.node.diskTotalBytes)
                    - static_cast<double>(std::min(*host.node.diskTotalBytes, *host.node.diskFreeBytes));
                host.other = std::max(0.0, used - host.bytes);
            }
        }
    }

    const PlannerOptions& options() const { return m_options; }
    std::vector<Bin>& bins() { return m_bins; }
    std::vector<Item>& items() { return m_items; }
    // Adds a warning once (the same words twice say nothing more).
    void warn(PlanNote note)
    {
        if (std::find(m_warningNotes.begin(), m_warningNotes.end(), note) != m_warningNotes.end())
            return;
        m_warnings.push_back(describe(note));
        m_warningNotes.push_back(std::move(note));
    }
    std::vector<std::string>& remaining() { return m_remaining; }

    std::size_t binOf(const std::string& id) const
    {
        const auto found = m_binIndex.find(id);
        return found == m_binIndex.end() ? kNone : found->second;
    }
    std::size_t itemOf(const std::string& spaceId) const
    {
        for (std::size_t i = 0; i < m_items.size(); ++i) {
            if (m_items[i].space->id == spaceId)
                return i;
        }
        return kNone;
    }

    // Which bins may receive and which count in the balance. Call after the scenario marked the
    // bins it empties (excluded) and before planning moves.
    // evictFromDedicated: the other spaces of a shard dedicated to a large space must leave it
    // (rebalance); the other scenarios only keep such shards from receiving.
    void settle(const std::set<std::string>& emptied, bool evictFromDedicated = false)
    {
        markDedicated(emptied, evictFromDedicated);
        const bool allHaveCapacity = std::all_of(m_bins.begin(), m_bins.end(),
            [&](const Bin& bin) { return !isCandidate(bin, emptied) || bin.record.capacityBytes > 0; });
        double capacitySum = 0;
        std::size_t capacityCount = 0;
        for (Bin& bin : m_bins) {
            bin.balanced = isCandidate(bin, emptied) && bin.dedicatedTo.empty() && hostReported(bin);
            bin.countedBefore = !bin.created && isCandidate(bin, {}) && bin.dedicatedTo.empty() && hostReported(bin);
            bin.receives = bin.balanced;
            if (bin.balanced && allHaveCapacity) {
                capacitySum += static_cast<double>(bin.record.capacityBytes);
                ++capacityCount;
            }
        }
        for (Bin& bin : m_bins) {
            bin.share = allHaveCapacity && capacityCount > 0
                ? static_cast<double>(bin.record.capacityBytes) / (capacitySum / static_cast<double>(capacityCount))
                : 1.0;
        }
        computeMeans();
        m_outOfBand = 0;
        for (Bin& bin : m_bins) {
            bin.outOfBand = bin.balanced && (outAbove(bin) || outBelow(bin));
            m_outOfBand += bin.outOfBand ? 1 : 0;
        }
    }

    // An explicitly named target (merge into) takes spaces even when a large space makes it
    // dedicated; its capacity still applies.
    void letReceive(std::size_t binIndex)
    {
        Bin& bin = m_bins[binIndex];
        if (isCandidate(bin, {}) && !bin.receives)
            bin.receives = hostReported(bin);
    }

    void markMustLeave(std::size_t item, PlanNote reason)
    {
        m_items[item].mustLeave = true;
        m_items[item].leaveReason = std::move(reason);
    }

    double target(const Bin& bin, std::size_t objective) const { return m_mean[objective] * bin.share; }

    // Is the bin outside the band in an objective: +1 above, -1 below, 0 within (every objective).
    bool outAbove(const Bin& bin) const { return outside(bin, 1); }
    bool outBelow(const Bin& bin) const { return outside(bin, -1); }

    // Kept up to date by move(): the balanced bins outside the band.
    bool fleetBalanced() const { return m_outOfBand == 0; }

    // Why the item cannot go to the bin (empty: it can), by the hard constraints.
    std::string refusal(std::size_t itemIndex, std::size_t binIndex) const
    {
        const Item& item = m_items[itemIndex];
        const Bin& bin = m_bins[binIndex];
        if (binIndex == item.bin)
            return "it is there";
        if (!bin.receives)
            return "shard " + bin.record.id + " takes no spaces";
        if (!item.space->pin.empty() && item.space->pin != bin.record.id)
            return "space " + item.space->id + " is pinned to " + item.space->pin;
        const double fill = m_input.settings.maxTargetFill;
        const LoadFigures& add = item.space->load;
        if (bin.record.capacityDocs > 0
            && bin.load.docs + add.docs > fill * static_cast<double>(bin.record.capacityDocs))
            return "shard " + bin.record.id + " would pass " + ratio(fill * 100) + "% of its docs capacity";
        if (bin.record.capacityBytes > 0
            && bin.load.bytes + add.bytes > fill * static_cast<double>(bin.record.capacityBytes))
            return "shard " + bin.record.id + " would pass " + ratio(fill * 100) + "% of its bytes capacity";
        // The copy is written before the old one is cleaned up, on the same node too (the
        // preflight's rule: twice the space's bytes free after the moves before it).
        const Host& host = m_hosts[bin.host];
        if (binIndex != item.home) {
            const double free = static_cast<double>(host.node.diskFreeBytes.value_or(0)) - host.received;
            if (free < 2 * add.bytes)
                return "node " + host.node.id + " would keep less than twice the space's bytes free";
        }
        return {};
    }

    // Change of the weighted squared deviation if the item moved to the bin.
    double delta(std::size_t itemIndex, std::size_t binIndex) const
    {
        const Item& item = m_items[itemIndex];
        const Bin& from = m_bins[item.bin];
        const Bin& to = m_bins[binIndex];
        double change = 0;
        for (std::size_t o = 0; o < kShardObjectives; ++o) {
            const double weight = m_options.weights[o];
            if (weight <= 0 || m_mean[o] <= 0)
                continue;
            const double k = weight / (m_mean[o] * m_mean[o]);
            const double x = figure(item.space->load, o);
            if (from.balanced) {
                const double a = figure(from.load, o) - target(from, o);
                change += k * (x * x - 2 * a * x) / from.share;
            }
            if (to.balanced) {
                const double b = figure(to.load, o) - target(to, o);
                change += k * (x * x + 2 * b * x) / to.share;
            }
        }
        return change + diskDelta(item, from, to);
    }

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

    PairCoefficients coefficients(std::size_t fromIndex, std::size_t toIndex) const
    {
        PairCoefficients c;
        const Bin& from = m_bins[fromIndex];
        const Bin& to = m_bins[toIndex];
        for (std::size_t o = 0; o < kShardObjectives; ++o) {
            const double weight = m_options.weights[o];
            if (weight <= 0 || m_mean[o] <= 0)
                continue;
            const double k = weight / (m_mean[o] * m_mean[o]);
            if (from.balanced) {
                c.quadratic[o] += k / from.share;
                c.linear[o] -= 2 * k * (figure(from.load, o) - target(from, o)) / from.share;
            }
            if (to.balanced) {
                c.quadratic[o] += k / to.share;
                c.linear[o] += 2 * k * (figure(to.load, o) - target(to, o)) / to.share;
            }
        }
        const double weight = m_options.weights[static_cast<std::size_t>(Objective::NodeDisk)];
        const Host& source = m_hosts[from.host];
        const Host& dest = m_hosts[to.host];
        if (weight > 0 && from.host != to.host && m_meanDiskUse > 0 && source.diskKnown() && dest.diskKnown()) {
            const double m = m_meanDiskUse;
            const double sourceTotal = static_cast<double>(*source.node.diskTotalBytes);
            const double destTotal = static_cast<double>(*dest.node.diskTotalBytes);
            const double scale = weight / (m * m);
            c.linear[0] += scale * (-2 * (source.diskUse(0) - m) / sourceTotal + 2 * (dest.diskUse(0) - m) / destTotal);
            c.quadratic[0] += scale * (1 / (sourceTotal * sourceTotal) + 1 / (destTotal * destTotal));
        }
        return c;
    }

    // Weighted excess over the share (positive: above), for ordering sources and targets.
    double excess(const Bin& bin) const
    {
        double sum = 0;
        for (std::size_t o = 0; o < kShardObjectives; ++o) {
            const double t = target(bin, o);
            if (m_options.weights[o] > 0 && t > 0)
                sum += m_options.weights[o] * (figure(bin.load, o) - t) / t;
        }
        return sum;
    }

    void move(std::size_t itemIndex, std::size_t binIndex, PlanNote reason)
    {
        Item& item = m_items[itemIndex];
        Bin& from = m_bins[item.bin];
        Bin& to = m_bins[binIndex];
        const LoadFigures& load = item.space->load;
        from.load -= load;
        to.load += load;
        from.items.erase(std::find(from.items.begin(), from.items.end(), itemIndex));
        to.items.push_back(itemIndex);
        if (from.host != to.host) {
            m_hosts[from.host].bytes -= load.bytes;
            m_hosts[to.host].bytes += load.bytes;
        }
        if (item.bin != item.home)
            m_hosts[from.host].received -= load.bytes;
        if (binIndex != item.home)
            m_hosts[to.host].received += load.bytes;
        item.bin = binIndex;
        item.mustLeave = false;
        for (Bin* bin : { &from, &to }) {
            const bool out = bin->balanced && (outAbove(*bin) || outBelow(*bin));
            m_outOfBand += (out ? 1 : 0) - (bin->outOfBand ? 1 : 0);
            bin->outOfBand = out;
        }
        record(itemIndex, std::move(reason));
    }

    // Share of its target the bin holds in bytes, for reasons ("1.32x").
    // The bin's bytes over its share ("1.41"; "" when it has no share).
    std::string shareText(const Bin& bin) const
    {
        const double t = target(bin, 0);
        return t > 0 ? ratio(bin.load.bytes / t) : "";
    }

    // Would moving this item (again) to the bin stay within the move budget? The hours are the
    // plan's estimate with the move, as reported.
    bool withinBudget(std::size_t itemIndex, std::size_t binIndex) const
    {
        const Item& item = m_items[itemIndex];
        const bool again = m_moveOf.contains(itemIndex);
        const double bytes = again ? 0 : item.space->load.bytes;
        if (m_options.maxMoves > 0 && m_moveCount + (again ? 0 : 1) > m_options.maxMoves)
            return false;
        if (m_options.maxBytes > 0 && m_movedBytes + bytes > static_cast<double>(m_options.maxBytes))
            return false;
        if (m_options.maxHours > 0 && !again) {
            const PlannedMove extra(item.space->id, m_bins[item.home].record.id, m_bins[binIndex].record.id, {},
                static_cast<std::uint64_t>(item.space->load.docs), static_cast<std::uint64_t>(bytes));
            if (estimatedSeconds(&extra) > m_options.maxHours * 3600)
                return false;
        }
        return true;
    }

    double docsPerSecond() const { return m_rate.docsPerSecond; }
    const CopyRate& rate() const { return m_rate; }

    double copySeconds(double docs, std::size_t moves) const
    {
        if (moves == 0)
            return 0;
        const std::size_t limit = m_input.settings.maxConcurrent;
        const double lanes = static_cast<double>(limit == 0 ? moves : std::min<std::size_t>(limit, moves));
        return docs / (docsPerSecond() * lanes) + kOverheadSecondsPerMove * static_cast<double>(moves) / lanes;
    }

    // The estimate of the whole plan: the fleet-wide limit, or the busiest shard when one shard
    // takes part in more moves than its per-shard limit lets run at once.
    double estimatedSeconds(const PlannedMove* extra = nullptr) const
    {
        double seconds = extra ? copySeconds(m_movedDocs + static_cast<double>(extra->docs), m_moveCount + 1)
                               : copySeconds(m_movedDocs, m_moveCount);
        const std::uint32_t perShard = m_input.settings.maxPerShard;
        if (perShard == 0)
            return seconds;
        std::map<std::string, std::pair<double, std::size_t>> byShard;
        std::vector<const PlannedMove*> moves;
        for (const PlannedMove& move : m_moves)
            moves.push_back(&move);
        if (extra)
            moves.push_back(extra);
        for (const PlannedMove* planned : moves) {
            const PlannedMove& move = *planned;
            if (move.space.empty())
                continue;
            for (const std::string* shard : { &move.from, &move.to }) {
                auto& entry = byShard[*shard];
                entry.first += static_cast<double>(move.docs);
                ++entry.second;
            }
        }
        for (const auto& [shard, entry] : byShard) {
            const double lanes = std::min<double>(perShard, static_cast<double>(entry.second));
            const double busy = entry.first / (docsPerSecond() * lanes)
                + kOverheadSecondsPerMove * static_cast<double>(entry.second) / lanes;
            seconds = std::max(seconds, busy);
        }
        return seconds;
    }

    PlanResult result(std::string kind, std::string subject, std::string into, std::vector<ShardRecord> created,
        bool balancedBefore, std::uint64_t lowerBound)
    {
        PlanResult out;
        out.plan.baseRevision = m_input.baseRevision;
        out.plan.kind = std::move(kind);
        out.plan.subject = std::move(subject);
        out.plan.into = std::move(into);
        out.plan.newShards = std::move(created);
        out.plan.remaining = m_remaining;
        for (const PlannedMove& move : m_moves) {
            if (!move.space.empty())
                out.plan.moves.push_back(move);
        }
        for (const Bin& bin : m_bins) {
            out.shards.push_back({ bin.record.id, bin.record.node, bin.record.state, bin.record.capacityDocs,
                bin.record.capacityBytes, bin.isNew, bin.before, bin.load, bin.spacesBefore, bin.items.size() });
        }
        for (const Host& host : m_hosts) {
            NodeOutcome node { host.node.id, host.bytesBefore, host.bytes, host.node.diskFreeBytes, std::nullopt };
            if (host.node.diskFreeBytes) {
                const double after = static_cast<double>(*host.node.diskFreeBytes) - host.received;
                node.diskFreeAfter = static_cast<std::uint64_t>(std::max(0.0, after));
            }
            out.nodes.push_back(std::move(node));
        }
        PlanSummary& summary = out.summary;
        for (std::size_t o = 0; o < kShardObjectives; ++o)
            summary.objectives.push_back(spread(static_cast<Objective>(o)));
        summary.moves = m_moveCount;
        summary.bytesMoved = static_cast<std::uint64_t>(std::llround(m_movedBytes));
        summary.docsMoved = static_cast<std::uint64_t>(std::llround(m_movedDocs));
        summary.lowerBoundBytes = lowerBound;
        summary.estimatedSeconds = estimatedSeconds();
        summary.docsPerSecondPerMigration = m_rate.docsPerSecond;
        summary.rateSource = m_rate.source;
        summary.rateBasis = m_rate.basis;
        summary.measuredMigrations = m_input.measuredMigrations;
        summary.migrationsNeeded = m_options.minMeasuredMigrations;
        summary.balancedBefore = balancedBefore;
        summary.balancedAfter = fleetBalanced();
        warnOutOfBand();
        out.warnings = m_warnings;
        out.warningNotes = m_warningNotes;
        for (std::size_t i = 0; i < m_moves.size(); ++i) {
            if (!m_moves[i].space.empty())
                out.moveNotes[m_moves[i].space] = m_moveNotes[i];
        }
        return out;
    }

private:
    // A space moved again in the same plan keeps one move, from its home to where it is now
    // (none when it is back home), so every space appears in a plan at most once.
    void record(std::size_t itemIndex, PlanNote reason)
    {
        const Item& item = m_items[itemIndex];
        const LoadFigures& load = item.space->load;
        const auto rounded
            = [](double value) { return static_cast<std::uint64_t>(std::llround(std::max(0.0, value))); };
        const auto earlier = m_moveOf.find(itemIndex);
        if (earlier != m_moveOf.end()) {
            m_moves[earlier->second].space.clear();
            m_moveOf.erase(earlier);
            --m_moveCount;
            m_movedBytes -= load.bytes;
            m_movedDocs -= load.docs;
        }
        if (item.bin == item.home)
            return;
        m_moveOf[itemIndex] = m_moves.size();
        m_moves.push_back({ item.space->id, m_bins[item.home].record.id, m_bins[item.bin].record.id, describe(reason),
            rounded(load.docs), rounded(load.bytes) });
        m_moveNotes.push_back(std::move(reason));
        ++m_moveCount;
        m_movedBytes += load.bytes;
        m_movedDocs += load.docs;
    }

    void addBin(const ShardRecord& record, bool isNew)
    {
        Bin bin;
        bin.record = record;
        bin.isNew = bin.created = isNew;
        const auto host = m_hostIndex.find(record.node);
        if (host == m_hostIndex.end()) {
            m_hostIndex[record.node] = m_hosts.size();
            m_hosts.push_back({ PlannerNode { record.node, true, std::nullopt, std::nullopt }, 0, 0, 0 });
        }
        bin.host = m_hostIndex.at(record.node);
        m_binIndex[record.id] = m_bins.size();
        m_bins.push_back(std::move(bin));
    }

    bool isCandidate(const Bin& bin, const std::set<std::string>& emptied) const
    {
        return bin.record.state == ShardState::Active && !m_hosts[bin.host].node.retired
            && !m_options.excludedShards.contains(bin.record.id) && !emptied.contains(bin.record.id);
    }

    // A node that did not report (unreachable, no metrics yet) has unknown loads and free disk:
    // its shards neither receive nor count in the balance, where they would look empty.
    bool hostReported(const Bin& bin)
    {
        const Host& host = m_hosts[bin.host];
        if (host.node.diskFreeBytes)
            return true;
        warn({ PlanNoteKind::NodeDidNotReport, { host.node.id } });
        return false;
    }

    // An isolated space's shard takes nothing: the plan says so once per shard.
    void noteIsolated(const Bin& bin)
    {
        warn({ PlanNoteKind::DedicatedShardLeftOut, { bin.record.id, bin.dedicatedTo } });
    }

    // Seed 002 gives a space larger than half a shard a shard of its own: its shard takes
    // nothing more and its other spaces leave.
    void markDedicated(const std::set<std::string>& emptied, bool evict)
    {
        for (Bin& bin : m_bins) {
            const double size = bin.record.capacityBytes > 0 ? static_cast<double>(bin.record.capacityBytes)
                                                             : static_cast<double>(m_options.shardBytesLimit);
            if (!isCandidate(bin, emptied))
                continue;
            std::vector<std::size_t> big;
            for (std::size_t i : size > 0 ? bin.items : std::vector<std::size_t> {}) {
                if (m_items[i].space->load.bytes > m_options.dedicatedShare * size) {
                    m_items[i].big = true;
                    big.push_back(i);
                }
            }
            if (big.empty() && bin.dedicatedTo.empty())
                continue;
            if (bin.dedicatedTo.empty())
                bin.dedicatedTo = m_items[big.front()].space->id;
            else
                noteIsolated(bin);
            if (big.size() > 1)
                warn({ PlanNoteKind::SeveralLargeSpaces, { bin.record.id, std::to_string(big.size()) } });
            for (std::size_t i : evict ? bin.items : std::vector<std::size_t> {}) {
                if (m_items[i].big)
                    continue;
                if (m_items[i].movable && !m_items[i].mustLeave && m_items[i].space->id != bin.dedicatedTo)
                    markMustLeave(i,
                        { PlanNoteKind::DedicatedShardEmptied,
                            { bin.record.id, bin.dedicatedTo, big.empty() ? "isolated" : "large" } });
            }
        }
    }

    // The load that ends on balanced bins (theirs and what must leave the others), per unit of
    // share.
    void computeMeans()
    {
        LoadFigures total;
        double shares = 0;
        for (const Bin& bin : m_bins) {
            if (bin.balanced) {
                total += bin.load;
                shares += bin.share;
            }
        }
        for (const Item& item : m_items) {
            if (item.mustLeave && !m_bins[item.bin].balanced)
                total += item.space->load;
        }
        for (std::size_t o = 0; o < kShardObjectives; ++o) {
            m_total[o] = figure(total, o);
            m_mean[o] = shares > 0 ? m_total[o] / shares : 0;
        }
        double used = 0;
        double capacity = 0;
        for (const Host& host : m_hosts) {
            if (host.diskKnown()) {
                used += host.bytes + host.other;
                capacity += static_cast<double>(*host.node.diskTotalBytes);
            }
        }
        m_meanDiskUse = capacity > 0 ? used / capacity : 0;
    }

    bool outside(const Bin& bin, int side) const
    {
        for (std::size_t o = 0; o < kShardObjectives; ++o) {
            if (sideOf(bin, o) == side)
                return true;
        }
        return false;
    }

    // +1 above the band in objective o, -1 below it, 0 within it or not weighed. Query and write
    // load under minLoadPerSecond in the whole fleet is noise: every shard is within it.
    int sideOf(const Bin& bin, std::size_t o) const
    {
        if (m_options.weights[o] <= 0 || m_mean[o] <= 0 || (o >= 2 && m_total[o] < m_options.minLoadPerSecond))
            return 0;
        const double band = o < 2 ? m_options.band : m_options.loadBand;
        const double t = target(bin, o);
        const double value = figure(bin.load, o);
        return value > t * (1 + band) ? 1 : value < t * (1 - band) ? -1 : 0;
    }

    // Moving bytes between nodes evens out their disks (after cleanup, when the source's copy
    // is gone); the mean use does not change with moves.
    double diskDelta(const Item& item, const Bin& from, const Bin& to) const
    {
        const double weight = m_options.weights[static_cast<std::size_t>(Objective::NodeDisk)];
        if (weight <= 0 || from.host == to.host || m_meanDiskUse <= 0)
            return 0;
        const Host& source = m_hosts[from.host];
        const Host& target = m_hosts[to.host];
        if (!source.diskKnown() || !target.diskKnown())
            return 0;
        const double x = item.space->load.bytes;
        const auto squared = [&](double use) { return (use - m_meanDiskUse) * (use - m_meanDiskUse); };
        const double change = squared(source.diskUse(-x)) - squared(source.diskUse(0)) + squared(target.diskUse(x))
            - squared(target.diskUse(0));
        return weight * change / (m_meanDiskUse * m_meanDiskUse);
    }

    // Before: the fleet as it is, every shard that takes part in the balance now (active, on a
    // live node that reported, not excluded or dedicated), the shards the plan drains, retires or
    // merges included and those it creates not. After: the shards that take part once the plan is
    // done. Each against its own mean (PLANNER.md, "Before and after").
    ObjectiveSpread spread(Objective objective) const
    {
        const auto o = static_cast<std::size_t>(objective);
        ObjectiveSpread out;
        out.objective = objective;
        out.mean = m_mean[o];
        std::vector<std::pair<double, double>> before;
        std::vector<std::pair<double, double>> after;
        for (const Bin& bin : m_bins) {
            if (bin.countedBefore)
                before.emplace_back(figure(bin.before, o), static_cast<double>(bin.record.capacityBytes));
            if (bin.balanced)
                after.emplace_back(figure(bin.load, o), static_cast<double>(bin.record.capacityBytes));
        }
        std::tie(out.maxOverMeanBefore, out.stddevBefore) = maxAndDeviation(before);
        std::tie(out.maxOverMeanAfter, out.stddevAfter) = maxAndDeviation(after);
        return out;
    }

    // Per bin and objective: does it hold a space carrying some of that objective that may move.
    using MovableLoad = std::vector<std::array<bool, kShardObjectives>>;

    MovableLoad movableLoad() const
    {
        MovableLoad out(m_bins.size());
        for (const Item& item : m_items) {
            for (std::size_t o = 0; o < kShardObjectives; ++o)
                out[item.bin][o] = out[item.bin][o] || (item.movable && !item.big && figure(item.load, o) > 0);
        }
        return out;
    }

    // The objective the bin is furthest outside the band in among those a move could change (a
    // space that may leave it when above, one on another balanced bin when below), and its share
    // of it ("1.32x"); empty when no move could change any.
    // The objective the bin is furthest outside the band in that a move could change: its ratio
    // to the share ("1.41") and the objective's name; empty when none.
    std::pair<std::string, std::string> worstOff(
        std::size_t b, const MovableLoad& movable, const std::array<std::size_t, kShardObjectives>& givers) const
    {
        const Bin& bin = m_bins[b];
        std::size_t worst = kNone;
        double distance = -1;
        for (std::size_t o = 0; o < kShardObjectives; ++o) {
            const int side = sideOf(bin, o);
            const bool changeable = side > 0 ? movable[b][o] : bin.receives && givers[o] > (movable[b][o] ? 1u : 0u);
            if (side == 0 || !changeable)
                continue;
            const double band = o < 2 ? m_options.band : m_options.loadBand;
            const double off = std::abs(figure(bin.load, o) / target(bin, o) - 1) - band;
            if (off > distance) {
                distance = off;
                worst = o;
            }
        }
        if (worst == kNone)
            return {};
        return { ratio(figure(bin.load, worst) / target(bin, worst)), objectiveName(static_cast<Objective>(worst)) };
    }

    // Warns about the shards left outside the band that a move could change (issue 26: not every
    // shard of a fleet without query load, "0.00x its share of queries").
    void warnOutOfBand()
    {
        const MovableLoad movable = movableLoad();
        std::array<std::size_t, kShardObjectives> givers {};
        for (std::size_t b = 0; b < m_bins.size(); ++b) {
            for (std::size_t o = 0; o < kShardObjectives; ++o)
                givers[o] += m_bins[b].balanced && movable[b][o] ? 1 : 0;
        }
        std::vector<std::string> listed;
        std::size_t over = 0;
        for (std::size_t b = 0; b < m_bins.size(); ++b) {
            const Bin& bin = m_bins[b];
            if (!bin.balanced || !(outAbove(bin) || outBelow(bin)))
                continue;
            auto [off, objective] = worstOff(b, movable, givers);
            if (off.empty())
                continue;
            if (++over <= 5)
                listed.insert(listed.end(), { bin.record.id, std::move(off), std::move(objective) });
        }
        if (over == 0)
            return;
        PlanNote note { PlanNoteKind::OutsideBand, { std::to_string(over) } };
        note.args.insert(note.args.end(), listed.begin(), listed.end());
        note.args.push_back(std::to_string(over > 5 ? over - 5 : 0));
        warn(std::move(note));
    }

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

// Moves every item marked mustLeave, largest first, each to the receiving bin (among allowed,
// when given) where it lowers the deviation most. Fails naming the first space no bin takes.
Status evacuate(Fleet& fleet, const std::set<std::size_t>& allowed, bool failWhenStuck)
{
    std::vector<std::size_t> leaving;
    for (std::size_t i = 0; i < fleet.items().size(); ++i) {
        if (fleet.items()[i].mustLeave)
            leaving.push_back(i);
    }
    auto& items = fleet.items();
    std::stable_sort(leaving.begin(), leaving.end(), [&](std::size_t a, std::size_t b) {
        const double x = items[a].space->load.bytes, y = items[b].space->load.bytes;
        return x != y ? x > y : items[a].space->id < items[b].space->id;
    });
    for (std::size_t i : leaving) {
        Candidate best;
        std::string why;
        for (std::size_t b = 0; b < fleet.bins().size(); ++b) {
            if (!allowed.empty() && !allowed.contains(b))
                continue;
            if (!fleet.bins()[b].receives)
                continue;
            if (std::string refused = fleet.refusal(i, b); !refused.empty()) {
                if (why.empty())
                    why = refused;
                continue;
            }
            const double d = fleet.delta(i, b);
            if (best.target == kNone || d < best.delta)
                best = { i, b, d };
        }
        const PlannerSpace& space = *items[i].space;
        if (best.target == kNone) {
            PlanNote stuck { PlanNoteKind::NoShardTakes,
                { space.id, std::to_string(static_cast<std::uint64_t>(space.load.bytes)), why } };
            if (failWhenStuck)
                return makeError(ErrorCode::FailedPrecondition, describe(stuck));
            fleet.warn(std::move(stuck));
            continue;
        }
        if (!fleet.withinBudget(i, best.target)) {
            fleet.warn({ PlanNoteKind::BudgetRanOutLeaving, {} });
            for (std::size_t rest : leaving) {
                if (items[rest].mustLeave)
                    fleet.remaining().push_back(items[rest].space->id);
            }
            break;
        }
        fleet.move(i, best.target, items[i].leaveReason);
    }
    return {};
}

// The sources and targets of one round: bins outside the band first (above it for sources,
// below it for targets), then by weighted excess, ties by id so that the same fleet always
// plans the same way; only the heads are sorted.
struct Round {
    std::vector<std::size_t> sources;
    std::vector<std::size_t> targets;
};

Round pickRound(Fleet& fleet, const std::set<std::size_t>& sources, const std::set<std::size_t>& targets)
{
    struct Key {
        int group;
        double order;
        std::size_t bin;
    };
    auto& bins = fleet.bins();
    std::vector<Key> up;
    std::vector<Key> down;
    for (std::size_t b = 0; b < bins.size(); ++b) {
        if (!bins[b].balanced)
            continue;
        const double excess = fleet.excess(bins[b]);
        if (sources.empty() || sources.contains(b))
            up.push_back({ fleet.outAbove(bins[b]) ? 0 : 1, -excess, b });
        if (bins[b].receives && (targets.empty() || targets.contains(b)))
            down.push_back({ fleet.outBelow(bins[b]) ? 0 : 1, excess, b });
    }
    const auto less = [&](const Key& a, const Key& b) {
        if (a.group != b.group)
            return a.group < b.group;
        if (a.order != b.order)
            return a.order < b.order;
        return bins[a.bin].record.id < bins[b.bin].record.id;
    };
    const auto head = [&](std::vector<Key>& keys, std::size_t most) {
        const auto n = static_cast<std::ptrdiff_t>(std::min(keys.size(), most));
        std::partial_sort(keys.begin(), keys.begin() + n, keys.end(), less);
        std::vector<std::size_t> out;
        for (std::ptrdiff_t k = 0; k < n; ++k)
            out.push_back(keys[static_cast<std::size_t>(k)].bin);
        return out;
    };
    return { head(up, kSourcesPerRound), head(down, kTargetsPerRound) };
}

// The improvement loop. Each round the sources (outside the band first) offer their movable
// spaces to the targets; the first source with a move that lowers the weighted deviation and
// relieves a shard outside the band gives, to each target, its best such space, best first,
// each checked again against the moves before it. Ends when `done` says so, no move helps, or
// the budget runs out.
template <typename Done>
void improve(Fleet& fleet, const std::set<std::size_t>& sources, const std::set<std::size_t>& targets,
    const std::string& what, bool capTargetsAtBand, Done done)
{
    auto& bins = fleet.bins();
    auto& items = fleet.items();
    const double band = fleet.options().band;
    // Filling new shards (capTargetsAtBand) takes only from shards above their share of bytes, and
    // never so much that one ends below the band (PLANNER.md, add-shard).
    const auto mayGive = [&](std::size_t source, double bytes) {
        const double share = fleet.target(bins[source], 0);
        return !capTargetsAtBand
            || (bins[source].load.bytes > share && bins[source].load.bytes - bytes >= share * (1 - band));
    };
    while (!done()) {
        const Round round = pickRound(fleet, sources, targets);
        std::vector<char> below(round.targets.size());
        for (std::size_t k = 0; k < round.targets.size(); ++k)
            below[k] = fleet.outBelow(bins[round.targets[k]]);
        std::vector<Candidate> perTarget(round.targets.size());
        bool found = false;
        for (std::size_t s : round.sources) {
            const bool sourceOver = fleet.outAbove(bins[s]);
            std::vector<std::optional<Fleet::PairCoefficients>> pair(round.targets.size());
            for (std::size_t k = 0; k < round.targets.size(); ++k) {
                if (round.targets[k] != s && (sourceOver || below[k]))
                    pair[k] = fleet.coefficients(s, round.targets[k]);
            }
            for (std::size_t i : bins[s].items) {
                if (!items[i].movable || items[i].big || !mayGive(s, items[i].load.bytes))
                    continue;
                const LoadFigures& x = items[i].load;
                for (std::size_t k = 0; k < round.targets.size(); ++k) {
                    if (!pair[k])
                        continue;
                    const Bin& to = bins[round.targets[k]];
                    if (capTargetsAtBand && to.load.bytes + x.bytes > fleet.target(to, 0) * (1 + band))
                        continue;
                    const double d = pair[k]->delta(x);
                    if (d < -kMinGain && (perTarget[k].target == kNone || d < perTarget[k].delta)
                        && fleet.refusal(i, round.targets[k]).empty())
                        perTarget[k] = { i, round.targets[k], d };
                }
            }
            found
                = std::any_of(perTarget.begin(), perTarget.end(), [](const Candidate& c) { return c.target != kNone; });
            if (found)
                break;
        }
        if (!found)
            return;
        std::sort(perTarget.begin(), perTarget.end(), [](const Candidate& a, const Candidate& b) {
            return a.target != kNone && (b.target == kNone || a.delta < b.delta);
        });
        bool first = true;
        for (const Candidate& c : perTarget) {
            if (c.target == kNone)
                break;
            const std::size_t from = items[c.item].bin;
            if (!first) {
                // The source changed with the moves before: check again.
                if (!(fleet.outAbove(bins[from]) || fleet.outBelow(bins[c.target])))
                    continue;
                if (capTargetsAtBand
                    && bins[c.target].load.bytes + items[c.item].space->load.bytes
                        > fleet.target(bins[c.target], 0) * (1 + band))
                    continue;
                if (fleet.delta(c.item, c.target) >= -kMinGain || !fleet.refusal(c.item, c.target).empty()
                    || !mayGive(from, items[c.item].load.bytes))
                    continue;
            }
            first = false;
            if (!fleet.withinBudget(c.item, c.target)) {
                fleet.warn({ PlanNoteKind::BudgetRanOut, {} });
                return;
            }
            // Named after the space's home, not this hop's source: a space moved twice in one plan
            // keeps one move, from its home.
            const Bin& home = bins[items[c.item].home];
            fleet.move(c.item, c.target,
                { PlanNoteKind::Balance,
                    { what, home.record.id, fleet.shareText(home), bins[c.target].record.id,
                        fleet.shareText(bins[c.target]) } });
            if (done())
                return;
        }
    }
}

Status requireShard(Fleet& fleet, const std::string& id)
{
    if (fleet.binOf(id) == kNone)
        return makeError(ErrorCode::NotFound, "no shard " + id + " in the shard map");
    return {};
}

// Marks every space on the bins to leave; one already migrating or pinned there refuses the
// whole operation, naming them.
Status markAllLeaving(Fleet& fleet, const std::set<std::string>& shards, const PlanNote& reason)
{
    std::vector<const PlannerSpace*> held;
    std::vector<std::string> pinned;
    for (std::size_t i = 0; i < fleet.items().size(); ++i) {
        const Item& item = fleet.items()[i];
        const bool leaving = !item.space->migratingFrom.empty() && shards.contains(item.space->migratingFrom);
        if (!shards.contains(fleet.bins()[item.bin].record.id) && !leaving)
            continue;
        if (item.space->migrating)
            held.push_back(item.space);
        else if (!item.space->pin.empty() && shards.contains(item.space->pin))
            pinned.push_back(item.space->id + " (pinned to " + item.space->pin + ")");
        else
            fleet.markMustLeave(i, reason);
    }
    if (auto status = refuseHeld(held); !status)
        return status;
    if (!pinned.empty()) {
        std::string text;
        for (std::size_t i = 0; i < pinned.size() && i < 5; ++i)
            text += (i ? ", " : "") + pinned[i];
        if (pinned.size() > 5)
            text += " and " + std::to_string(pinned.size() - 5) + " more";
        return makeError(
            ErrorCode::FailedPrecondition, "space(s) pinned where they are: " + text + "; unpin them first");
    }
    return {};
}

std::uint64_t bytesLeaving(Fleet& fleet)
{
    double sum = 0;
    for (const Item& item : fleet.items())
        sum += item.mustLeave ? item.space->load.bytes : 0;
    return static_cast<std::uint64_t>(std::llround(sum));
}

Status checkNewShard(const PlannerInput& input, const ShardRecord& shard)
{
    for (const PlannerShard& existing : input.shards) {
        if (existing.record.id == shard.id)
            return makeError(ErrorCode::AlreadyExists, "shard " + shard.id + " already exists");
    }
    for (const PlannerNode& node : input.nodes) {
        if (node.id == shard.node)
            return node.retired ? makeError(
                       ErrorCode::FailedPrecondition, "node " + shard.node + " is retired; a new shard cannot go there")
                                : Status {};
    }
    return makeError(ErrorCode::NotFound, "no node " + shard.node + " in the shard map");
}

// Two bins of spaces as even in bytes as the spaces allow: largest first into the lighter bin,
// then single moves and swaps between the bins while they narrow the gap.
std::vector<bool> evenHalves(const std::vector<const Item*>& items, const std::vector<bool>& fixed)
{
    std::vector<std::size_t> order(items.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const double x = items[a]->space->load.bytes, y = items[b]->space->load.bytes;
        return x != y ? x > y : items[a]->space->id < items[b]->space->id;
    });
    std::vector<bool> second(items.size(), false);
    double sums[2] = { 0, 0 };
    for (std::size_t i : order) {
        if (fixed[i])
            sums[0] += items[i]->space->load.bytes;
    }
    for (std::size_t i : order) {
        if (fixed[i])
            continue;
        const bool toSecond = sums[1] < sums[0];
        second[i] = toSecond;
        sums[toSecond ? 1 : 0] += items[i]->space->load.bytes;
    }
    const auto size = [&](std::size_t i) { return items[i]->space->load.bytes; };
    for (int round = 0; round < 64; ++round) {
        const double gap = sums[0] - sums[1];
        double bestGap = std::abs(gap);
        std::size_t bestA = kNone, bestB = kNone;
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (fixed[i])
                continue;
            const double moved = second[i] ? std::abs(gap + 2 * size(i)) : std::abs(gap - 2 * size(i));
            if (moved < bestGap - 1e-9) {
                bestGap = moved;
                bestA = i;
                bestB = kNone;
            }
        }
        if (items.size() <= 400) {
            for (std::size_t a = 0; a < items.size(); ++a) {
                if (fixed[a] || second[a])
                    continue;
                for (std::size_t b = 0; b < items.size(); ++b) {
                    if (!second[b])
                        continue;
                    const double swapped = std::abs(gap - 2 * size(a) + 2 * size(b));
                    if (swapped < bestGap - 1e-9) {
                        bestGap = swapped;
                        bestA = a;
                        bestB = b;
                    }
                }
            }
        }
        if (bestA == kNone)
            break;
        for (std::size_t i : { bestA, bestB }) {
            if (i == kNone)
                continue;
            sums[second[i] ? 1 : 0] -= size(i);
            second[i] = !second[i];
            sums[second[i] ? 1 : 0] += size(i);
        }
    }
    return second;
}

} // namespace

Result<PlanResult> planRebalance(const PlannerInput& input, const PlannerOptions& options)
{
    Fleet fleet(input, options, {});
    fleet.settle({}, true);
    const bool balancedBefore = fleet.fleetBalanced();
    if (auto status = evacuate(fleet, {}, false); !status)
        return status.error();
    improve(fleet, {}, {}, "rebalance", false, [&] { return fleet.fleetBalanced(); });
    return fleet.result("move", "rebalance", {}, {}, balancedBefore, 0);
}

Result<PlanResult> planAddShards(
    const PlannerInput& input, const std::vector<ShardRecord>& newShards, const PlannerOptions& options)
{
    if (newShards.empty())
        return makeError(ErrorCode::InvalidArgument, "no shards to fill");
    std::vector<ShardRecord> created;
    for (const ShardRecord& shard : newShards) {
        const bool exists = std::any_of(input.shards.begin(), input.shards.end(),
            [&](const PlannerShard& existing) { return existing.record.id == shard.id; });
        if (exists)
            continue;
        if (auto status = checkNewShard(input, shard); !status)
            return status.error();
        created.push_back(shard);
    }
    Fleet fleet(input, options, newShards);
    fleet.settle({});
    std::set<std::size_t> fresh;
    std::set<std::size_t> old;
    for (std::size_t b = 0; b < fleet.bins().size(); ++b)
        (fleet.bins()[b].isNew ? fresh : old).insert(b);
    double lowerBound = 0;
    for (std::size_t b : fresh) {
        const Bin& bin = fleet.bins()[b];
        if (!bin.receives)
            return makeError(ErrorCode::FailedPrecondition,
                "shard " + bin.record.id
                    + " cannot receive spaces (not active, excluded, or its node did not report its disk)");
        lowerBound += std::max(0.0, fleet.target(bin, 0) - bin.load.bytes);
    }
    const bool balancedBefore = fleet.fleetBalanced();
    // Filled when no new shard is below the band in any objective; the bytes each takes stay
    // within the band's top (capTargetsAtBand), so at most (1 + band) x the lower bound moves.
    const auto filled = [&] {
        return std::none_of(fresh.begin(), fresh.end(), [&](std::size_t b) { return fleet.outBelow(fleet.bins()[b]); });
    };
    improve(fleet, old, fresh, "fill new shard", true, filled);
    std::string subject;
    for (const ShardRecord& shard : newShards)
        subject += (subject.empty() ? "" : ",") + shard.id;
    return fleet.result("move", "add " + subject, {}, created, balancedBefore, static_cast<std::uint64_t>(lowerBound));
}

Result<PlanResult> planDrain(const PlannerInput& input, const std::string& shard, const PlannerOptions& options)
{
    Fleet fleet(input, options, {});
    if (auto status = requireShard(fleet, shard); !status)
        return status.error();
    if (fleet.bins()[fleet.binOf(shard)].record.state == ShardState::Retired)
        return makeError(ErrorCode::FailedPrecondition, "shard " + shard + " is retired; there is nothing to drain");
    if (auto status = markAllLeaving(fleet, { shard }, { PlanNoteKind::Drain, { shard } }); !status)
        return status.error();
    fleet.settle({ shard });
    const bool balancedBefore = fleet.fleetBalanced();
    const std::uint64_t bound = bytesLeaving(fleet);
    if (auto status = evacuate(fleet, {}, true); !status)
        return status.error();
    return fleet.result("drain", shard, {}, {}, balancedBefore, bound);
}

Result<PlanResult> planRetireNode(const PlannerInput& input, const std::string& node, const PlannerOptions& options)
{
    const auto found = std::find_if(
        input.nodes.begin(), input.nodes.end(), [&](const PlannerNode& value) { return value.id == node; });
    if (found == input.nodes.end())
        return makeError(ErrorCode::NotFound, "no node " + node + " in the shard map");
    if (found->retired)
        return makeError(ErrorCode::FailedPrecondition, "node " + node + " is already retired");
    std::set<std::string> shards;
    for (const PlannerShard& shard : input.shards) {
        if (shard.record.node == node)
            shards.insert(shard.record.id);
    }
    if (auto status = refuseRollbackCopies(input, shards, "retire-node", node); !status)
        return status.error();
    Fleet fleet(input, options, {});
    if (auto status = markAllLeaving(fleet, shards, { PlanNoteKind::RetireNode, { node } }); !status)
        return status.error();
    fleet.settle(shards);
    const bool balancedBefore = fleet.fleetBalanced();
    const std::uint64_t bound = bytesLeaving(fleet);
    if (auto status = evacuate(fleet, {}, true); !status)
        return status.error();
    return fleet.result("retire-node", node, {}, {}, balancedBefore, bound);
}

Result<PlanResult> planSplit(
    const PlannerInput& input, const std::string& shard, const ShardRecord& newShard, const PlannerOptions& options)
{
    if (std::none_of(
            input.shards.begin(), input.shards.end(), [&](const PlannerShard& s) { return s.record.id == shard; }))
        return makeError(ErrorCode::NotFound, "no shard " + shard + " in the shard map");
    if (auto status = checkNewShard(input, newShard); !status)
        return status.error();
    Fleet fleet(input, options, { newShard });
    if (auto status = requireShard(fleet, shard); !status)
        return status.error();
    const Bin& source = fleet.bins()[fleet.binOf(shard)];
    if (source.record.state == ShardState::Retired)
        return makeError(ErrorCode::FailedPrecondition, "shard " + shard + " is retired; there is nothing to split");
    if (options.shardBytesLimit > 0 && source.load.bytes <= static_cast<double>(options.shardBytesLimit))
        return makeError(ErrorCode::FailedPrecondition,
            "shard " + shard + " holds " + std::to_string(static_cast<std::uint64_t>(source.load.bytes))
                + " bytes, not more than the split limit of " + std::to_string(options.shardBytesLimit));
    std::vector<const Item*> items;
    std::vector<std::size_t> indices;
    std::vector<bool> fixed;
    for (std::size_t i : source.items) {
        const Item& item = fleet.items()[i];
        if (item.space->migrating)
            return refuseHeld({ item.space }).error();
        items.push_back(&item);
        indices.push_back(i);
        fixed.push_back(!item.space->pin.empty());
    }
    if (items.size() < 2)
        return makeError(ErrorCode::FailedPrecondition,
            "shard " + shard + " holds " + std::to_string(items.size()) + " space(s); a split needs at least 2");
    fleet.settle({});
    const bool balancedBefore = fleet.fleetBalanced();
    const std::vector<bool> second = evenHalves(items, fixed);
    const std::size_t target = fleet.binOf(newShard.id);
    for (std::size_t k = 0; k < items.size(); ++k) {
        if (!second[k])
            continue;
        if (std::string refused = fleet.refusal(indices[k], target); !refused.empty())
            return makeError(ErrorCode::FailedPrecondition, "cannot split " + shard + ": " + refused);
        fleet.move(indices[k], target, { PlanNoteKind::Split, { shard } });
    }
    return fleet.result("split", shard, newShard.id, { newShard }, balancedBefore, 0);
}

Result<PlanResult> planMerge(
    const PlannerInput& input, const std::string& from, const std::string& into, const PlannerOptions& options)
{
    if (from == into)
        return makeError(ErrorCode::InvalidArgument, "shard " + from + " cannot be merged into itself");
    if (auto status = refuseRollbackCopies(input, { from }, "merge", from); !status)
        return status.error();
    Fleet fleet(input, options, {});
    for (const std::string& id : { from, into }) {
        if (auto status = requireShard(fleet, id); !status)
            return status.error();
    }
    if (fleet.bins()[fleet.binOf(from)].record.state == ShardState::Retired)
        return makeError(ErrorCode::FailedPrecondition, "shard " + from + " is retired; there is nothing to merge");
    if (auto status = markAllLeaving(fleet, { from }, { PlanNoteKind::Merge, { from, into } }); !status)
        return status.error();
    fleet.settle({ from });
    fleet.letReceive(fleet.binOf(into));
    if (!fleet.bins()[fleet.binOf(into)].receives)
        return makeError(ErrorCode::FailedPrecondition,
            "shard " + into
                + " cannot receive spaces (not active, excluded, dedicated, or its node did not report its disk)");
    const bool balancedBefore = fleet.fleetBalanced();
    const std::uint64_t bound = bytesLeaving(fleet);
    if (auto status = evacuate(fleet, { fleet.binOf(into) }, true); !status)
        return status.error();
    return fleet.result("merge", from, into, {}, balancedBefore, bound);
}

Result<PlanResult> planMergeBelow(const PlannerInput& input, std::uint64_t limitBytes, const PlannerOptions& options)
{
    std::map<std::string, double> bytes;
    for (const PlannerShard& shard : input.shards)
        bytes[shard.record.id] = 0;
    for (const PlannerSpace& space : input.spaces)
        bytes[space.shard] += space.load.bytes;
    std::set<std::string> live;
    for (const PlannerNode& node : input.nodes) {
        if (!node.retired && node.diskFreeBytes)
            live.insert(node.id);
    }
    std::vector<std::pair<double, std::string>> small;
    for (const PlannerShard& shard : input.shards) {
        const double held = bytes[shard.record.id];
        if (shard.record.state == ShardState::Active && live.contains(shard.record.node)
            && !options.excludedShards.contains(shard.record.id) && held < static_cast<double>(limitBytes))
            small.emplace_back(held, shard.record.id);
    }
    std::sort(small.begin(), small.end());
    if (small.size() < 2)
        return makeError(ErrorCode::FailedPrecondition,
            std::to_string(small.size()) + " shard(s) hold less than " + std::to_string(limitBytes)
                + " bytes; a merge needs two");
    // The smallest into the fullest small shard that still stays under the limit with it.
    std::string lastError;
    for (const auto& [fromBytes, from] : small) {
        for (auto into = small.rbegin(); into != small.rend(); ++into) {
            if (into->second == from || fromBytes + into->first >= static_cast<double>(limitBytes))
                continue;
            auto plan = planMerge(input, from, into->second, options);
            if (!plan) {
                lastError = plan.error().message;
                continue;
            }
            if (small.size() > 2) {
                const PlanNote more { PlanNoteKind::MoreSmallShards, { std::to_string(small.size() - 2) } };
                plan->warnings.push_back(describe(more));
                plan->warningNotes.push_back(more);
            }
            return plan;
        }
    }
    return makeError(ErrorCode::FailedPrecondition,
        "no two shards below the limit fit together under it" + (lastError.empty() ? "" : ": " + lastError));
}

Result<PlanResult> planIsolate(
    const PlannerInput& input, const std::string& space, const ShardRecord& newShard, const PlannerOptions& options)
{
    if (std::none_of(input.spaces.begin(), input.spaces.end(), [&](const PlannerSpace& s) { return s.id == space; }))
        return makeError(ErrorCode::NotFound, "no space " + space + " in the shard map");
    if (auto status = checkNewShard(input, newShard); !status)
        return status.error();
    Fleet fleet(input, options, { newShard });
    const std::size_t item = fleet.itemOf(space);
    if (item == kNone)
        return makeError(ErrorCode::NotFound, "no space " + space + " in the shard map");
    const PlannerSpace& record = *fleet.items()[item].space;
    if (record.migrating)
        return refuseHeld({ &record }).error();
    if (!record.pin.empty())
        return makeError(ErrorCode::FailedPrecondition,
            "space " + space + " is pinned to shard " + record.pin + "; unpin it before isolating it");
    fleet.settle({});
    const bool balancedBefore = fleet.fleetBalanced();
    const std::size_t target = fleet.binOf(newShard.id);
    if (std::string refused = fleet.refusal(item, target); !refused.empty())
        return makeError(ErrorCode::FailedPrecondition, "cannot isolate " + space + ": " + refused);
    fleet.move(item, target, { PlanNoteKind::Isolate, { space, newShard.id } });
    return fleet.result("isolate", space, newShard.id, { newShard }, balancedBefore, 0);
}

MovesEstimate estimateMoves(
    const PlannerInput& input, const std::vector<PlannedMove>& moves, const PlannerOptions& options)
{
    Fleet fleet(input, options, {});
    for (const PlannedMove& move : moves) {
        const std::size_t item = fleet.itemOf(move.space);
        const std::size_t bin = fleet.binOf(move.to);
        if (item != kNone && bin != kNone && fleet.items()[item].bin != bin)
            fleet.move(item, bin, { PlanNoteKind::Text, { move.reason } });
    }
    MovesEstimate estimate;
    estimate.seconds = fleet.estimatedSeconds();
    estimate.docsPerSecondPerMigration = fleet.rate().docsPerSecond;
    estimate.rateSource = fleet.rate().source;
    estimate.rateBasis = fleet.rate().basis;
    return estimate;
}

} // namespace shardmap::core
