// The search's implementation: evacuation by best target, the improvement rounds (pick sources and
// targets, offer spaces, make the moves that still help), and evening out a split's halves.
#include "core/plan/planner_search.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>
#include <utility>

namespace shardmap::core::planning {

namespace {

constexpr double kMinGain = 1e-9;
// Sources and targets looked at per move of the improvement loop: enough to find a move in a
// lopsided fleet, few enough that 1,000 shards plan in well under a second.
constexpr std::size_t kSourcesPerRound = 32;
constexpr std::size_t kTargetsPerRound = 16;
// Swapping two spaces between a split's halves is tried for every pair, up to this many spaces.
constexpr std::size_t kMostSpacesToSwap = 400;
constexpr int kHalvingRounds = 64;

// A move the search considers: the item, its target bin and the change of the deviation.
struct Candidate {
    std::size_t item = kNone;
    std::size_t target = kNone;
    double delta = 0;
};

// Larger spaces first, ties by id, so that the same fleet always plans the same way.
bool largerFirst(const Item& a, const Item& b)
{
    const double x = a.space->load.bytes, y = b.space->load.bytes;
    return x != y ? x > y : a.space->id < b.space->id;
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

// improve()'s rounds on one fleet: which moves the first helpful source offers, and the moves
// that still help once the ones before them are made.
class Improver {
public:
    Improver(Fleet& fleet, const std::string& what, bool capTargetsAtBand)
        : m_fleet(fleet)
        , m_bins(fleet.bins())
        , m_items(fleet.items())
        , m_what(what)
        , m_capTargetsAtBand(capTargetsAtBand)
        , m_band(fleet.options().band)
    {
    }

    // Each target's best move from the first source of the round that has one; empty when no
    // source has any.
    std::vector<Candidate> bestPerTarget(const Round& round) const
    {
        std::vector<char> below(round.targets.size());
        for (std::size_t k = 0; k < round.targets.size(); ++k)
            below[k] = m_fleet.outBelow(m_bins[round.targets[k]]);
        std::vector<Candidate> perTarget(round.targets.size());
        for (std::size_t s : round.sources) {
            offer(s, round, below, perTarget);
            if (std::any_of(perTarget.begin(), perTarget.end(), [](const Candidate& c) { return c.target != kNone; }))
                return perTarget;
        }
        return {};
    }

    // Makes the round's moves, best first; after the first, each only when it still helps.
    // False when the search ends: the budget ran out or `done` says so.
    bool makeMoves(std::vector<Candidate> perTarget, const std::function<bool()>& done)
    {
        std::sort(perTarget.begin(), perTarget.end(), [](const Candidate& a, const Candidate& b) {
            return a.target != kNone && (b.target == kNone || a.delta < b.delta);
        });
        bool first = true;
        for (const Candidate& c : perTarget) {
            if (c.target == kNone)
                break;
            if (!first && !stillHelps(c))
                continue;
            first = false;
            if (!m_fleet.withinBudget(c.item, c.target)) {
                m_fleet.warn({ PlanNoteKind::BudgetRanOut, {} });
                return false;
            }
            moveToBalance(c);
            if (done())
                return false;
        }
        return true;
    }

private:
    // The source's movable spaces offered to every target it may give to (any target when the
    // source is above the band, else those below it): each target keeps the best move that
    // lowers the deviation and that the hard constraints allow.
    void offer(
        std::size_t s, const Round& round, const std::vector<char>& below, std::vector<Candidate>& perTarget) const
    {
        const std::vector<Bin>& bins = m_bins;
        const std::vector<Item>& items = m_items;
        const bool sourceOver = m_fleet.outAbove(bins[s]);
        std::vector<std::optional<Fleet::PairCoefficients>> pair(round.targets.size());
        for (std::size_t k = 0; k < round.targets.size(); ++k) {
            if (round.targets[k] != s && (sourceOver || below[k]))
                pair[k] = m_fleet.coefficients(s, round.targets[k]);
        }
        for (std::size_t i : bins[s].items) {
            if (!items[i].movable || items[i].big || !mayGive(s, items[i].load.bytes))
                continue;
            const LoadFigures& x = items[i].load;
            for (std::size_t k = 0; k < round.targets.size(); ++k) {
                if (!pair[k])
                    continue;
                const Bin& to = bins[round.targets[k]];
                if (overfills(to, x.bytes))
                    continue;
                const double d = pair[k]->delta(x);
                if (d < -kMinGain && (perTarget[k].target == kNone || d < perTarget[k].delta)
                    && m_fleet.refusal(i, round.targets[k]).empty())
                    perTarget[k] = { i, round.targets[k], d };
            }
        }
    }

    // The source changed with the moves before: is the move still one the round would make?
    bool stillHelps(const Candidate& c) const
    {
        const std::size_t from = m_items[c.item].bin;
        if (!(m_fleet.outAbove(m_bins[from]) || m_fleet.outBelow(m_bins[c.target])))
            return false;
        if (overfills(m_bins[c.target], m_items[c.item].space->load.bytes))
            return false;
        return m_fleet.delta(c.item, c.target) < -kMinGain && m_fleet.refusal(c.item, c.target).empty()
            && mayGive(from, m_items[c.item].load.bytes);
    }

    void moveToBalance(const Candidate& c)
    {
        // Named after the space's home, not this hop's source: a space moved twice in one plan
        // keeps one move, from its home.
        const Bin& home = m_bins[m_items[c.item].home];
        m_fleet.move(c.item, c.target,
            { PlanNoteKind::Balance,
                { m_what, home.record.id, m_fleet.shareText(home), m_bins[c.target].record.id,
                    m_fleet.shareText(m_bins[c.target]) } });
    }

    // Filling new shards (capTargetsAtBand) takes only from shards above their share of bytes, and
    // never so much that one ends below the band (PLANNER.md, add-shard).
    bool mayGive(std::size_t source, double bytes) const
    {
        const double share = m_fleet.target(m_bins[source], 0);
        return !m_capTargetsAtBand
            || (m_bins[source].load.bytes > share && m_bins[source].load.bytes - bytes >= share * (1 - m_band));
    }

    // Filling new shards, a target takes no more bytes than the top of its band.
    bool overfills(const Bin& to, double bytes) const
    {
        return m_capTargetsAtBand && to.load.bytes + bytes > m_fleet.target(to, 0) * (1 + m_band);
    }

    Fleet& m_fleet;
    std::vector<Bin>& m_bins;
    std::vector<Item>& m_items;
    const std::string& m_what;
    const bool m_capTargetsAtBand;
    const double m_band;
};

// A split's two halves while they are evened out: which items are in the second and the bytes
// each holds.
class SplitHalves {
public:
    SplitHalves(const std::vector<const Item*>& items, const std::vector<bool>& fixed)
        : m_items(items)
        , m_fixed(fixed)
        , m_second(items.size(), false)
    {
    }

    // The fixed items stay in the first half; the others go, largest first, to the lighter half.
    void fillLargestFirst()
    {
        std::vector<std::size_t> order(m_items.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return largerFirst(*m_items[a], *m_items[b]); });
        for (std::size_t i : order) {
            if (m_fixed[i])
                m_sums[0] += size(i);
        }
        for (std::size_t i : order) {
            if (m_fixed[i])
                continue;
            const bool toSecond = m_sums[1] < m_sums[0];
            m_second[i] = toSecond;
            m_sums[toSecond ? 1 : 0] += size(i);
        }
    }

    // Single moves and swaps while one narrows the gap between the halves.
    void narrow()
    {
        for (int round = 0; round < kHalvingRounds; ++round) {
            const double gap = m_sums[0] - m_sums[1];
            Step best { std::abs(gap) };
            tryMoves(gap, best);
            if (m_items.size() <= kMostSpacesToSwap)
                trySwaps(gap, best);
            if (best.a == kNone)
                break;
            for (std::size_t i : { best.a, best.b }) {
                if (i != kNone)
                    flip(i);
            }
        }
    }

    const std::vector<bool>& second() const { return m_second; }

private:
    // What a step leaves: the gap between the halves, and the item (a) that changes half, or the
    // two (a, b) that swap.
    struct Step {
        double gap = 0;
        std::size_t a = kNone;
        std::size_t b = kNone;
    };

    double size(std::size_t i) const { return m_items[i]->space->load.bytes; }

    // One item to the other half, when that leaves a narrower gap than `best`.
    void tryMoves(double gap, Step& best) const
    {
        for (std::size_t i = 0; i < m_items.size(); ++i) {
            if (m_fixed[i])
                continue;
            const double moved = m_second[i] ? std::abs(gap + 2 * size(i)) : std::abs(gap - 2 * size(i));
            if (moved < best.gap - 1e-9)
                best = { moved, i, kNone };
        }
    }

    // An item of the first half swapped with one of the second, when that leaves a narrower gap.
    void trySwaps(double gap, Step& best) const
    {
        for (std::size_t a = 0; a < m_items.size(); ++a) {
            if (m_fixed[a] || m_second[a])
                continue;
            for (std::size_t b = 0; b < m_items.size(); ++b) {
                if (!m_second[b])
                    continue;
                const double swapped = std::abs(gap - 2 * size(a) + 2 * size(b));
                if (swapped < best.gap - 1e-9)
                    best = { swapped, a, b };
            }
        }
    }

    void flip(std::size_t i)
    {
        m_sums[m_second[i] ? 1 : 0] -= size(i);
        m_second[i] = !m_second[i];
        m_sums[m_second[i] ? 1 : 0] += size(i);
    }

    const std::vector<const Item*>& m_items;
    const std::vector<bool>& m_fixed;
    std::vector<bool> m_second;
    double m_sums[2] = { 0, 0 };
};

} // namespace

Status evacuate(Fleet& fleet, const std::set<std::size_t>& allowed, bool failWhenStuck)
{
    std::vector<std::size_t> leaving;
    for (std::size_t i = 0; i < fleet.items().size(); ++i) {
        if (fleet.items()[i].mustLeave)
            leaving.push_back(i);
    }
    auto& items = fleet.items();
    std::stable_sort(
        leaving.begin(), leaving.end(), [&](std::size_t a, std::size_t b) { return largerFirst(items[a], items[b]); });
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

void improve(Fleet& fleet, const std::set<std::size_t>& sources, const std::set<std::size_t>& targets,
    const std::string& what, bool capTargetsAtBand, const std::function<bool()>& done)
{
    Improver improver(fleet, what, capTargetsAtBand);
    while (!done()) {
        std::vector<Candidate> perTarget = improver.bestPerTarget(pickRound(fleet, sources, targets));
        if (perTarget.empty() || !improver.makeMoves(std::move(perTarget), done))
            return;
    }
}

std::vector<bool> evenHalves(const std::vector<const Item*>& items, const std::vector<bool>& fixed)
{
    SplitHalves halves(items, fixed);
    halves.fillLargestFirst();
    halves.narrow();
    return halves.second();
}

} // namespace shardmap::core::planning
