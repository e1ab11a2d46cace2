// The fleet model's implementation: placing the input's spaces, settling shares and the band,
// the hard constraints of a move, the deviation a move changes, and the plan read back.
#include "core/plan/planner_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
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

} // namespace shardmap::core

namespace shardmap::core::planning {

namespace {

// Calls shift(host, bytes per byte moved) for every host whose disk changes when a space moves from
// `from` to `to`, every copy of each counted (issue 30): -1 on the source's hosts, +1 on the
// target's, none where both keep a copy. Without replicas (the common case, and the planner's
// inner loop) no map is built.
template <typename Shift> void forEachHostShift(const Bin& from, const Bin& to, Shift shift)
{
    if (from.copyHosts.empty() && to.copyHosts.empty()) {
        if (from.host != to.host) {
            shift(from.host, -1.0);
            shift(to.host, 1.0);
        }
        return;
    }
    std::map<std::size_t, double> shifts;
    for (const auto& [bin, sign] : { std::pair { &from, -1.0 }, std::pair { &to, 1.0 } }) {
        shifts[bin->host] += sign;
        for (const std::size_t copy : bin->copyHosts)
            shifts[copy] += sign;
    }
    for (const auto& [host, bytes] : shifts) {
        if (bytes != 0)
            shift(host, bytes);
    }
}

// Verify and cutover per migration, on top of the copy, for the duration estimate.
constexpr double kOverheadSecondsPerMove = 2.0;

std::string ratio(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", value);
    return text;
}

} // namespace

Fleet::Fleet(const PlannerInput& input, const PlannerOptions& options, const std::vector<ShardRecord>& added)
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
        for (const std::size_t copy : bin.copyHosts)
            m_hosts[copy].bytes += bin.load.bytes;
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

void Fleet::warn(PlanNote note)
{
    if (std::find(m_warningNotes.begin(), m_warningNotes.end(), note) != m_warningNotes.end())
        return;
    m_warnings.push_back(describe(note));
    m_warningNotes.push_back(std::move(note));
}

std::size_t Fleet::binOf(const std::string& id) const
{
    const auto found = m_binIndex.find(id);
    return found == m_binIndex.end() ? kNone : found->second;
}

std::size_t Fleet::itemOf(const std::string& spaceId) const
{
    for (std::size_t i = 0; i < m_items.size(); ++i) {
        if (m_items[i].space->id == spaceId)
            return i;
    }
    return kNone;
}

void Fleet::settle(const std::set<std::string>& emptied, bool evictFromDedicated)
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

void Fleet::letReceive(std::size_t binIndex)
{
    Bin& bin = m_bins[binIndex];
    if (isCandidate(bin, {}) && !bin.receives)
        bin.receives = hostReported(bin);
}

void Fleet::markMustLeave(std::size_t item, PlanNote reason)
{
    m_items[item].mustLeave = true;
    m_items[item].leaveReason = std::move(reason);
}

std::string Fleet::refusal(std::size_t itemIndex, std::size_t binIndex) const
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
    if (bin.record.capacityDocs > 0 && bin.load.docs + add.docs > fill * static_cast<double>(bin.record.capacityDocs))
        return "shard " + bin.record.id + " would pass " + ratio(fill * 100) + "% of its docs capacity";
    if (bin.record.capacityBytes > 0
        && bin.load.bytes + add.bytes > fill * static_cast<double>(bin.record.capacityBytes))
        return "shard " + bin.record.id + " would pass " + ratio(fill * 100) + "% of its bytes capacity";
    // The copy is written before the old one is cleaned up, on the same node too (the
    // preflight's rule: twice the space's bytes free after the moves before it).
    if (binIndex == item.home)
        return {};
    // On every node with a copy of the target, its primary's and its replicas' (issue 30).
    const auto noRoom = [&](std::size_t hostIndex) -> std::string {
        const Host& host = m_hosts[hostIndex];
        if (!host.node.diskFreeBytes && hostIndex != bin.host)
            return "node " + host.node.id + ", which holds a copy of shard " + bin.record.id
                + ", did not report its free disk";
        const double free = static_cast<double>(host.node.diskFreeBytes.value_or(0)) - host.received;
        if (free < 2 * add.bytes)
            return "node " + host.node.id + " would keep less than twice the space's bytes free";
        return {};
    };
    std::string refusal = noRoom(bin.host);
    for (std::size_t copy = 0; refusal.empty() && copy < bin.copyHosts.size(); ++copy)
        refusal = noRoom(bin.copyHosts[copy]);
    return refusal;
}

double Fleet::delta(std::size_t itemIndex, std::size_t binIndex) const
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

Fleet::PairCoefficients Fleet::coefficients(std::size_t fromIndex, std::size_t toIndex) const
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
    if (weight <= 0 || m_meanDiskUse <= 0)
        return c;
    bool known = true;
    forEachHostShift(from, to, [&](std::size_t hostIndex, double) { known = known && m_hosts[hostIndex].diskKnown(); });
    if (!known)
        return c;
    const double m = m_meanDiskUse;
    const double scale = weight / (m * m);
    forEachHostShift(from, to, [&](std::size_t hostIndex, double shift) {
        const Host& host = m_hosts[hostIndex];
        const double total = static_cast<double>(*host.node.diskTotalBytes);
        c.linear[0] += scale * 2 * shift * (host.diskUse(0) - m) / total;
        c.quadratic[0] += scale * shift * shift / (total * total);
    });
    return c;
}

double Fleet::excess(const Bin& bin) const
{
    double sum = 0;
    for (std::size_t o = 0; o < kShardObjectives; ++o) {
        const double t = target(bin, o);
        if (m_options.weights[o] > 0 && t > 0)
            sum += m_options.weights[o] * (figure(bin.load, o) - t) / t;
    }
    return sum;
}

void Fleet::move(std::size_t itemIndex, std::size_t binIndex, PlanNote reason)
{
    Item& item = m_items[itemIndex];
    Bin& from = m_bins[item.bin];
    Bin& to = m_bins[binIndex];
    const LoadFigures& load = item.space->load;
    from.load -= load;
    to.load += load;
    from.items.erase(std::find(from.items.begin(), from.items.end(), itemIndex));
    to.items.push_back(itemIndex);
    forEachHostShift(
        from, to, [&](std::size_t hostIndex, double shift) { m_hosts[hostIndex].bytes += shift * load.bytes; });
    const auto eachHost = [this](const Bin& bin, double bytes) {
        m_hosts[bin.host].received += bytes;
        for (const std::size_t copy : bin.copyHosts)
            m_hosts[copy].received += bytes;
    };
    if (item.bin != item.home)
        eachHost(from, -load.bytes);
    if (binIndex != item.home)
        eachHost(to, load.bytes);
    item.bin = binIndex;
    item.mustLeave = false;
    for (Bin* bin : { &from, &to }) {
        const bool out = bin->balanced && (outAbove(*bin) || outBelow(*bin));
        m_outOfBand += (out ? 1 : 0) - (bin->outOfBand ? 1 : 0);
        bin->outOfBand = out;
    }
    record(itemIndex, std::move(reason));
}

std::string Fleet::shareText(const Bin& bin) const
{
    const double t = target(bin, 0);
    return t > 0 ? ratio(bin.load.bytes / t) : "";
}

bool Fleet::withinBudget(std::size_t itemIndex, std::size_t binIndex) const
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

double Fleet::copySeconds(double docs, std::size_t moves) const
{
    if (moves == 0)
        return 0;
    const std::size_t limit = m_input.settings.maxConcurrent;
    const double lanes = static_cast<double>(limit == 0 ? moves : std::min<std::size_t>(limit, moves));
    return docs / (docsPerSecond() * lanes) + kOverheadSecondsPerMove * static_cast<double>(moves) / lanes;
}

double Fleet::estimatedSeconds(const PlannedMove* extra) const
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

PlanResult Fleet::result(std::string kind, std::string subject, std::string into, std::vector<ShardRecord> created,
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

void Fleet::record(std::size_t itemIndex, PlanNote reason)
{
    const Item& item = m_items[itemIndex];
    const LoadFigures& load = item.space->load;
    const auto rounded = [](double value) { return static_cast<std::uint64_t>(std::llround(std::max(0.0, value))); };
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

void Fleet::addBin(const ShardRecord& record, bool isNew)
{
    Bin bin;
    bin.record = record;
    bin.isNew = bin.created = isNew;
    bin.host = hostOf(record.node);
    for (const ShardCopy& copy : record.replicas) {
        if (copy.state != CopyState::Lost)
            bin.copyHosts.push_back(hostOf(copy.node));
    }
    m_binIndex[record.id] = m_bins.size();
    m_bins.push_back(std::move(bin));
}

// A node the input does not list (a shard's or copy's node the map has no record of) is a host
// that reported nothing: it takes no space.
std::size_t Fleet::hostOf(const std::string& nodeId)
{
    const auto found = m_hostIndex.find(nodeId);
    if (found != m_hostIndex.end())
        return found->second;
    m_hostIndex[nodeId] = m_hosts.size();
    m_hosts.push_back({ PlannerNode { nodeId, true, std::nullopt, std::nullopt }, 0, 0, 0 });
    return m_hosts.size() - 1;
}

bool Fleet::isCandidate(const Bin& bin, const std::set<std::string>& emptied) const
{
    return bin.record.state == ShardState::Active && !m_hosts[bin.host].node.retired
        && !m_options.excludedShards.contains(bin.record.id) && !emptied.contains(bin.record.id);
}

bool Fleet::hostReported(const Bin& bin)
{
    const Host& host = m_hosts[bin.host];
    if (host.node.diskFreeBytes)
        return true;
    warn({ PlanNoteKind::NodeDidNotReport, { host.node.id } });
    return false;
}

void Fleet::noteIsolated(const Bin& bin)
{
    warn({ PlanNoteKind::DedicatedShardLeftOut, { bin.record.id, bin.dedicatedTo } });
}

void Fleet::markDedicated(const std::set<std::string>& emptied, bool evict)
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

void Fleet::computeMeans()
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

bool Fleet::outside(const Bin& bin, int side) const
{
    for (std::size_t o = 0; o < kShardObjectives; ++o) {
        if (sideOf(bin, o) == side)
            return true;
    }
    return false;
}

int Fleet::sideOf(const Bin& bin, std::size_t o) const
{
    if (m_options.weights[o] <= 0 || m_mean[o] <= 0 || (o >= 2 && m_total[o] < m_options.minLoadPerSecond))
        return 0;
    const double band = o < 2 ? m_options.band : m_options.loadBand;
    const double t = target(bin, o);
    const double value = figure(bin.load, o);
    return value > t * (1 + band) ? 1 : value < t * (1 - band) ? -1 : 0;
}

double Fleet::diskDelta(const Item& item, const Bin& from, const Bin& to) const
{
    const double weight = m_options.weights[static_cast<std::size_t>(Objective::NodeDisk)];
    if (weight <= 0 || m_meanDiskUse <= 0)
        return 0;
    const double x = item.space->load.bytes;
    const auto squared = [&](double use) { return (use - m_meanDiskUse) * (use - m_meanDiskUse); };
    double change = 0;
    bool known = true;
    forEachHostShift(from, to, [&](std::size_t hostIndex, double shift) {
        const Host& host = m_hosts[hostIndex];
        known = known && host.diskKnown();
        if (known)
            change += squared(host.diskUse(shift * x)) - squared(host.diskUse(0));
    });
    return known ? weight * change / (m_meanDiskUse * m_meanDiskUse) : 0;
}

ObjectiveSpread Fleet::spread(Objective objective) const
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

Fleet::MovableLoad Fleet::movableLoad() const
{
    MovableLoad out(m_bins.size());
    for (const Item& item : m_items) {
        for (std::size_t o = 0; o < kShardObjectives; ++o)
            out[item.bin][o] = out[item.bin][o] || (item.movable && !item.big && figure(item.load, o) > 0);
    }
    return out;
}

std::pair<std::string, std::string> Fleet::worstOff(
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

void Fleet::warnOutOfBand()
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

} // namespace shardmap::core::planning
