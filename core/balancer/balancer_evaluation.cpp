#include "core/balancer/balancer_evaluation.h"

// evaluateBalancer: the window, the guards, the cap and the budget, then the planner's scenarios
// in order of urgency on an input where what the balancer may not touch is pinned in place.

#include "core/util/units.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

namespace shardmap::core {

namespace {

constexpr std::int64_t kDayMs = 24LL * 3600 * 1000;

BalancerVerdict skipped(std::string skip, std::string reason)
{
    BalancerVerdict verdict;
    verdict.skip = std::move(skip);
    verdict.reason = std::move(reason);
    return verdict;
}

// Why a guard holds everything; empty when none does.
std::string guardHolding(const BalancerPolicy& policy, const BalancerFacts& facts)
{
    if (!facts.unreachableNodes.empty())
        return "held: node " + facts.unreachableNodes.front() + " did not answer";
    if (!facts.shardsWithoutCopy.empty())
        return "held: shard " + facts.shardsWithoutCopy.front() + " has no copy in sync";
    if (!facts.failingMigrations.empty())
        return "held: migration " + facts.failingMigrations.front();
    if (policy.guardWriteP99Ms > 0) {
        for (const auto& [node, p99] : facts.nodeWriteP99Ms) {
            if (p99 > policy.guardWriteP99Ms)
                return "held: node " + node + " write p99 at " + std::to_string(static_cast<int>(std::lround(p99)))
                    + " ms (limit " + std::to_string(static_cast<int>(std::lround(policy.guardWriteP99Ms))) + " ms)";
        }
    }
    if (policy.guardNodeCpu > 0) {
        for (const auto& [node, cpu] : facts.nodeCpu) {
            if (cpu > policy.guardNodeCpu)
                return "held: node " + node + " CPU at " + std::to_string(static_cast<int>(std::lround(cpu * 100)))
                    + " % (limit " + std::to_string(static_cast<int>(std::lround(policy.guardNodeCpu * 100))) + " %)";
        }
    }
    return {};
}

// The budget left, as the planner's move limits (0: none); false when one is spent.
bool budgetLeft(const BalancerPolicy& policy, const BalancerState& state, PlannerOptions& options)
{
    const BalancerBudget& budget = policy.budget;
    const BalancerSpent& spent = state.spent;
    if ((budget.moves && spent.moves >= budget.moves) || (budget.bytes && spent.bytes >= budget.bytes)
        || (budget.workHours > 0 && spent.workHours >= budget.workHours))
        return false;
    options.maxMoves
        = budget.moves ? std::min<std::size_t>(budget.moves - spent.moves, kMaxMovesPerDecision) : kMaxMovesPerDecision;
    options.maxBytes = budget.bytes ? budget.bytes - spent.bytes : 0;
    options.maxHours = budget.workHours > 0 ? budget.workHours - spent.workHours : 0;
    return true;
}

// The input with what the balancer may not move pinned where it is: excluded spaces and the
// spaces it moved within the hysteresis time.
PlannerInput holdInPlace(const BalancerPolicy& policy, const BalancerState& state, const BalancerFacts& facts)
{
    PlannerInput input = facts.input;
    std::set<std::string> held(policy.excludedSpaces.begin(), policy.excludedSpaces.end());
    const std::int64_t since = facts.nowUnixMs - static_cast<std::int64_t>(policy.hysteresisSeconds) * 1000;
    for (const BalancerMove& move : state.recentMoves) {
        if (move.atUnixMs >= since)
            held.insert(move.space);
    }
    for (PlannerSpace& space : input.spaces) {
        if (held.contains(space.id) && space.pin.empty())
            space.pin = space.shard;
    }
    return input;
}

// Shards no scenario takes from or gives to (excluded), and those the balancer split, made or
// merged into within the hysteresis time (neither merged nor split again).
std::set<std::string> touchedShards(const BalancerPolicy& policy, const BalancerState& state, std::int64_t nowMs)
{
    std::set<std::string> touched;
    const std::int64_t since = nowMs - static_cast<std::int64_t>(policy.hysteresisSeconds) * 1000;
    for (const BalancerShardTouch& touch : state.recentShards) {
        if (touch.atUnixMs >= since)
            touched.insert(touch.shard);
    }
    return touched;
}

struct ShardSize {
    double bytes = 0;
    double docs = 0;
    std::size_t spaces = 0;
};

std::map<std::string, ShardSize> shardSizes(const PlannerInput& input)
{
    std::map<std::string, ShardSize> sizes;
    for (const PlannerShard& shard : input.shards)
        sizes[shard.record.id];
    for (const PlannerSpace& space : input.spaces) {
        ShardSize& size = sizes[space.shard];
        size.bytes += space.load.bytes;
        size.docs += space.load.docs;
        size.spaces += 1;
    }
    return sizes;
}

bool hasMoves(const Result<PlanResult>& planned)
{
    return planned && (!planned->plan.moves.empty() || !planned->plan.newShards.empty());
}

BalancerVerdict acting(BalancerAction action, std::string reason, PlanResult planned)
{
    BalancerVerdict verdict;
    verdict.action = action;
    verdict.reason = std::move(reason);
    verdict.planned = std::move(planned);
    return verdict;
}

struct Scenario {
    const BalancerPolicy& policy;
    const PlannerInput& input;
    PlannerOptions options;
    std::set<std::string> touched;
    std::map<std::string, ShardSize> sizes;
};

// The fullest node above the disk limit: the planner's retire-node plan of it, cut to the moves
// that bring it under the limit.
std::optional<BalancerVerdict> evacuate(const Scenario& s)
{
    if (s.policy.nodeDiskLimit <= 0)
        return std::nullopt;
    const PlannerNode* fullest = nullptr;
    double fullestUse = s.policy.nodeDiskLimit;
    for (const PlannerNode& node : s.input.nodes) {
        if (node.retired || !node.diskFreeBytes || !node.diskTotalBytes || *node.diskTotalBytes == 0)
            continue;
        const double use = 1.0 - static_cast<double>(*node.diskFreeBytes) / static_cast<double>(*node.diskTotalBytes);
        if (use > fullestUse) {
            fullest = &node;
            fullestUse = use;
        }
    }
    if (!fullest)
        return std::nullopt;
    auto planned = planRetireNode(s.input, fullest->id, s.options);
    if (!hasMoves(planned))
        return std::nullopt;
    const double excess = (fullestUse - s.policy.nodeDiskLimit) * static_cast<double>(*fullest->diskTotalBytes);
    Plan cut = planned->plan;
    cut.kind = "move";
    cut.subject.clear();
    cut.into.clear();
    cut.remaining.clear();
    cut.moves.clear();
    double freed = 0;
    for (const PlannedMove& move : planned->plan.moves) {
        if (freed >= excess)
            break;
        cut.moves.push_back(move);
        freed += static_cast<double>(move.bytes);
    }
    planned->plan = std::move(cut);
    const std::string reason = "node " + fullest->id + "'s disk is "
        + std::to_string(static_cast<int>(std::lround(fullestUse * 100))) + " % used (limit "
        + std::to_string(static_cast<int>(std::lround(s.policy.nodeDiskLimit * 100)))
        + " %): " + std::to_string(planned->plan.moves.size()) + " spaces off it";
    return acting(BalancerAction::Evacuate, reason, std::move(*planned));
}

// base + infix + the first free number; a base that ends in infix and a number (a shard the
// balancer made) is taken without them, so that s0's splits are s0-b1, s0-b2 ... at any depth.
std::string freeShardId(const PlannerInput& input, std::string base, const std::string& infix)
{
    const auto at = base.rfind(infix);
    if (at != std::string::npos && at + infix.size() < base.size()
        && std::all_of(base.begin() + static_cast<std::ptrdiff_t>(at + infix.size()), base.end(),
            [](char c) { return c >= '0' && c <= '9'; }))
        base.resize(at);
    std::set<std::string> taken;
    for (const PlannerShard& shard : input.shards)
        taken.insert(shard.record.id);
    for (int n = 1;; ++n) {
        std::string id = base + infix + std::to_string(n);
        if (!taken.contains(id))
            return id;
    }
}

bool overSplitLimit(const BalancerPolicy& policy, const ShardSize& size)
{
    return (policy.splitAboveBytes && size.bytes > static_cast<double>(policy.splitAboveBytes))
        || (policy.splitAboveDocs && size.docs > static_cast<double>(policy.splitAboveDocs));
}

// The largest shard above a split limit that the planner can split (more than one space).
std::optional<BalancerVerdict> split(const Scenario& s)
{
    std::vector<std::pair<double, const PlannerShard*>> over;
    for (const PlannerShard& shard : s.input.shards) {
        const ShardSize& size = s.sizes.at(shard.record.id);
        if (shard.record.state == ShardState::Active && !s.touched.contains(shard.record.id)
            && !s.options.excludedShards.contains(shard.record.id) && overSplitLimit(s.policy, size))
            over.emplace_back(size.bytes, &shard);
    }
    std::sort(over.begin(), over.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& [bytes, shard] : over) {
        const ShardRecord made { freeShardId(s.input, shard->record.id, "-b"), shard->record.node, ShardState::Active,
            0, 0 };
        PlannerOptions options = s.options;
        options.shardBytesLimit = 0;
        auto planned = planSplit(s.input, shard->record.id, made, options);
        if (!hasMoves(planned))
            continue;
        const ShardSize& size = s.sizes.at(shard->record.id);
        return acting(BalancerAction::Split,
            "shard " + shard->record.id + " holds " + formatBytes(static_cast<std::uint64_t>(size.bytes)) + " and "
                + std::to_string(static_cast<std::uint64_t>(size.docs))
                + " documents, above the split limit: half of it to new shard " + made.id,
            std::move(*planned));
    }
    return std::nullopt;
}

// Active shards without spaces, and a new shard on each node without one.
std::optional<BalancerVerdict> fill(const Scenario& s)
{
    std::vector<ShardRecord> empty;
    std::set<std::string> nodesWithShards;
    for (const PlannerShard& shard : s.input.shards) {
        nodesWithShards.insert(shard.record.node);
        if (shard.record.state == ShardState::Active && s.sizes.at(shard.record.id).spaces == 0
            && !s.options.excludedShards.contains(shard.record.id) && shard.dedicatedTo.empty())
            empty.push_back(shard.record);
    }
    for (const PlannerNode& node : s.input.nodes) {
        if (!node.retired && node.diskFreeBytes && !nodesWithShards.contains(node.id))
            empty.push_back({ freeShardId(s.input, node.id, "-s"), node.id, ShardState::Active, 0, 0 });
    }
    if (empty.empty() || s.input.spaces.empty())
        return std::nullopt;
    auto planned = planAddShards(s.input, empty, s.options);
    if (!hasMoves(planned) || planned->plan.moves.empty())
        return std::nullopt;
    std::string names;
    for (const ShardRecord& shard : empty)
        names += (names.empty() ? "" : ", ") + shard.id + " on " + shard.node;
    return acting(BalancerAction::Fill, "empty shards to fill: " + names, std::move(*planned));
}

std::optional<BalancerVerdict> merge(const Scenario& s)
{
    if (!s.policy.mergeBelowBytes)
        return std::nullopt;
    PlannerOptions options = s.options;
    for (const auto& [shard, size] : s.sizes) {
        // Empty shards are filled, not merged away; a shard at or above the docs limit stays.
        if (s.touched.contains(shard) || size.spaces == 0
            || (s.policy.mergeBelowDocs && size.docs >= static_cast<double>(s.policy.mergeBelowDocs)))
            options.excludedShards.insert(shard);
    }
    auto planned = planMergeBelow(s.input, s.policy.mergeBelowBytes, options);
    if (!hasMoves(planned))
        return std::nullopt;
    const std::string reason = "shards " + planned->plan.subject + " and " + planned->plan.into + " hold less than "
        + formatBytes(s.policy.mergeBelowBytes) + ": " + planned->plan.subject + " into " + planned->plan.into;
    return acting(BalancerAction::Merge, reason, std::move(*planned));
}

std::optional<BalancerVerdict> rebalance(const Scenario& s)
{
    PlannerOptions options = s.options;
    options.band = s.policy.bandBytes;
    options.loadBand = s.policy.bandLoad;
    auto planned = planRebalance(s.input, options);
    if (!hasMoves(planned) || planned->plan.moves.empty())
        return std::nullopt;
    const std::string reason = std::to_string(planned->plan.moves.size()) + " moves bring the shards within the band";
    return acting(BalancerAction::Rebalance, reason, std::move(*planned));
}

} // namespace

const char* balancerActionName(BalancerAction action)
{
    switch (action) {
    case BalancerAction::Evacuate: return "evacuate";
    case BalancerAction::Split: return "split";
    case BalancerAction::Fill: return "fill";
    case BalancerAction::Merge: return "merge";
    case BalancerAction::Rebalance: return "rebalance";
    default: return "";
    }
}

BalancerVerdict evaluateBalancer(const BalancerPolicy& policy, const BalancerState& state, const BalancerFacts& facts)
{
    const auto now = std::chrono::system_clock::time_point(std::chrono::milliseconds(facts.nowUnixMs));
    auto place = placeInWindow(policy.window, now);
    if (!place)
        return skipped("error", place.error().message);
    if (!place->inside) {
        BalancerVerdict verdict = skipped("window", "waiting for the window at " + place->nextOpenText);
        verdict.nextWindow = place->nextOpenText;
        return verdict;
    }
    if (const std::string held = guardHolding(policy, facts); !held.empty())
        return skipped("guard", held);
    if (facts.balancerOperationsRunning >= policy.maxConcurrent)
        return skipped("busy",
            "busy: " + std::to_string(facts.balancerOperationsRunning) + " of its operations running (cap "
                + std::to_string(policy.maxConcurrent) + ")");
    PlannerOptions options;
    if (!budgetLeft(policy, state, options))
        return skipped("budget", "the window's budget is spent");
    options.excludedShards.insert(policy.excludedShards.begin(), policy.excludedShards.end());
    const PlannerInput input = holdInPlace(policy, state, facts);
    const Scenario scenario { policy, input, options, touchedShards(policy, state, facts.nowUnixMs),
        shardSizes(input) };
    for (auto step : { &evacuate, &split, &fill, &merge, &rebalance }) {
        if (auto verdict = step(scenario))
            return std::move(*verdict);
    }
    return skipped("within", "idle: within limits");
}

void advanceBudgetPeriod(BalancerState& state, const BalancerPolicy& policy, bool insideWindow, std::int64_t nowMs)
{
    const bool expired = policy.window ? !insideWindow : nowMs - state.periodStartUnixMs >= kDayMs;
    if (state.periodStartUnixMs == 0 || expired) {
        state.spent = {};
        state.periodStartUnixMs = policy.window && !insideWindow ? 0 : nowMs;
    }
}

void noteBalancerWork(
    BalancerState& state, const std::string& action, const Plan& plan, double workHours, std::int64_t atMs)
{
    std::uint64_t bytes = 0;
    for (const PlannedMove& move : plan.moves) {
        state.recentMoves.push_back({ move.space, move.from, move.to, atMs });
        bytes += move.bytes;
    }
    for (const ShardRecord& shard : plan.newShards)
        state.recentShards.push_back({ shard.id, action, atMs });
    if (action == "split" && !plan.subject.empty())
        state.recentShards.push_back({ plan.subject, action, atMs });
    if (action == "merge" && !plan.into.empty())
        state.recentShards.push_back({ plan.into, action, atMs });
    state.spent.moves += plan.moves.size();
    state.spent.bytes += bytes;
    state.spent.workHours += workHours;
}

} // namespace shardmap::core
