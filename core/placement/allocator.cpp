// The allocator's implementation: eligibility and the refusal that names why, the load score with
// its quantized rank, and the jump and rendezvous hashes a stateless router computes the same way.
#include "core/placement/allocator.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <tuple>
#include <utility>
#include <xxhash.h>

namespace shardmap::core {

namespace {

constexpr std::array<std::pair<AllocationStrategy, const char*>, 3> kStrategies { {
    { AllocationStrategy::LoadAware, "load-aware" },
    { AllocationStrategy::JumpHash, "jump" },
    { AllocationStrategy::Rendezvous, "rendezvous" },
} };

// Docs and bytes weigh the same (a space can be heavy in either); disk pressure only nudges,
// because the node's disk is shared by its shards and is a weaker signal for any one of them.
constexpr double kDocsWeight = 0.45;
constexpr double kBytesWeight = 0.45;
constexpr double kDiskWeight = 0.10;

// The constants of Lamping & Veach's reference implementation; changing them changes every
// placement a stateless router computes.
constexpr std::uint64_t kJumpMultiplier = 2862933555777941757ULL;
constexpr double kJumpScale = static_cast<double>(1LL << 31);

bool isFull(const ShardLoad& load)
{
    const ShardRecord& shard = load.shard;
    return (shard.capacityDocs != 0 && load.docs >= shard.capacityDocs)
        || (shard.capacityBytes != 0 && load.bytes >= shard.capacityBytes);
}

bool isEligible(const ShardLoad& load)
{
    return load.shard.state == ShardState::Active && !isFull(load);
}

std::string fullReason(const ShardLoad& load)
{
    const ShardRecord& shard = load.shard;
    if (shard.capacityDocs != 0 && load.docs >= shard.capacityDocs)
        return shard.id + " is full (" + std::to_string(load.docs) + "/" + std::to_string(shard.capacityDocs)
            + " docs)";
    return shard.id + " is full (" + std::to_string(load.bytes) + "/" + std::to_string(shard.capacityBytes) + " bytes)";
}

void sortById(std::vector<const ShardLoad*>& shards)
{
    std::sort(
        shards.begin(), shards.end(), [](const ShardLoad* a, const ShardLoad* b) { return a->shard.id < b->shard.id; });
}

// In input order: the load-aware and rendezvous picks break ties by id themselves, so only
// jump hash pays for sorting.
std::vector<const ShardLoad*> eligibleShards(const std::vector<ShardLoad>& shards)
{
    std::vector<const ShardLoad*> eligible;
    eligible.reserve(shards.size());
    for (const ShardLoad& load : shards)
        if (isEligible(load))
            eligible.push_back(&load);
    return eligible;
}

Error noEligibleShard(std::string_view space, const std::vector<ShardLoad>& shards)
{
    std::vector<const ShardLoad*> sorted;
    for (const ShardLoad& load : shards)
        sorted.push_back(&load);
    sortById(sorted); // a stable order reads better and tests can compare the message
    std::string reasons;
    for (const ShardLoad* load : sorted) {
        if (!reasons.empty())
            reasons += "; ";
        reasons += explainRefusal(*load);
    }
    if (reasons.empty())
        reasons = "there are no shards";
    return makeError(ErrorCode::FailedPrecondition, "no shard can take a new space: " + reasons, std::string(space));
}

Result<std::string> allocatePinned(std::string_view space, const std::vector<ShardLoad>& shards, std::string_view pin)
{
    const auto found
        = std::find_if(shards.begin(), shards.end(), [pin](const ShardLoad& load) { return load.shard.id == pin; });
    if (found == shards.end())
        return makeError(
            ErrorCode::NotFound, "pinned shard " + std::string(pin) + " does not exist", std::string(space));
    if (std::string reason = explainRefusal(*found); !reason.empty())
        return makeError(
            ErrorCode::FailedPrecondition, "pinned shard cannot take a new space: " + reason, std::string(space));
    return found->shard.id;
}

// The largest docs and bytes among the shards whose load is known: the yardstick for shards
// without a capacity, so that the fullest of them scores 1 and an empty one 0.
struct LoadScale {
    double maxDocs = 0;
    double maxBytes = 0;
};

LoadScale loadScale(const std::vector<const ShardLoad*>& eligible)
{
    LoadScale scale;
    for (const ShardLoad* load : eligible) {
        if (!load->loadKnown)
            continue;
        scale.maxDocs = std::max(scale.maxDocs, static_cast<double>(load->docs));
        scale.maxBytes = std::max(scale.maxBytes, static_cast<double>(load->bytes));
    }
    return scale;
}

double fill(std::uint64_t value, std::uint64_t capacity, double maxValue)
{
    if (capacity != 0)
        return static_cast<double>(value) / static_cast<double>(capacity);
    return maxValue > 0 ? static_cast<double>(value) / maxValue : 0.0;
}

double diskPressure(double freeRatio)
{
    if (std::isnan(freeRatio))
        return 0.0; // unknown counts as free, as documented on ShardLoad
    return 1.0 - std::clamp(freeRatio, 0.0, 1.0);
}

double loadScore(const ShardLoad& load, const LoadScale& scale)
{
    return kDocsWeight * fill(load.docs, load.shard.capacityDocs, scale.maxDocs)
        + kBytesWeight * fill(load.bytes, load.shard.capacityBytes, scale.maxBytes)
        + kDiskWeight * diskPressure(load.nodeDiskFreeRatio);
}

// Compared as a tuple: known load first, then score, spaces and id, so that the winner never
// depends on the input order. A shard of unknown load scores 0 (its numbers mean nothing);
// among such shards the space count, which the map always knows, decides.
struct LoadRank {
    bool unknown = false;
    double score = 0;
    std::uint64_t spaces = 0;
    std::string_view id;

    bool operator<(const LoadRank& other) const
    {
        return std::tie(unknown, score, spaces, id) < std::tie(other.unknown, other.score, other.spaces, other.id);
    }
};

// Scores are compared in steps of 1 %: differences below that are noise (two nodes on one
// filesystem report slightly different free space from one second to the next), and letting
// noise decide would pile every new space onto one shard while the space count says otherwise.
double quantized(double score)
{
    return std::round(score * 100.0) / 100.0;
}

LoadRank rank(const ShardLoad& load, const LoadScale& scale)
{
    return { !load.loadKnown, load.loadKnown ? quantized(loadScore(load, scale)) : 0.0, load.spaces, load.shard.id };
}

std::string pickLoadAware(const std::vector<const ShardLoad*>& eligible)
{
    const LoadScale scale = loadScale(eligible);
    const ShardLoad* best = eligible.front();
    LoadRank bestRank = rank(*best, scale);
    for (const ShardLoad* load : eligible) {
        const LoadRank candidate = rank(*load, scale);
        if (candidate < bestRank) {
            best = load;
            bestRank = candidate;
        }
    }
    return best->shard.id;
}

// Buckets are the eligible shards in id order: the order must not depend on how the caller
// happened to list them, or the same space would map differently on two routers.
std::string pickJump(std::string_view space, std::vector<const ShardLoad*> eligible)
{
    sortById(eligible);
    const auto bucket = jumpConsistentHash(placementHash(space), static_cast<std::int32_t>(eligible.size()));
    return eligible[static_cast<std::size_t>(bucket)]->shard.id;
}

// The space hash seeds the shard hash, so the space is hashed once per allocation, not once
// per shard.
std::uint64_t rendezvousScoreSeeded(std::uint64_t spaceHash, std::string_view shard)
{
    return XXH3_64bits_withSeed(shard.data(), shard.size(), spaceHash);
}

std::string pickRendezvous(std::string_view space, const std::vector<const ShardLoad*>& eligible)
{
    const std::uint64_t spaceHash = placementHash(space);
    const ShardLoad* best = nullptr;
    std::uint64_t bestScore = 0;
    for (const ShardLoad* load : eligible) {
        const std::uint64_t score = rendezvousScoreSeeded(spaceHash, load->shard.id);
        // A (practically impossible) tie goes to the smaller id, whatever the input order.
        if (best == nullptr || score > bestScore || (score == bestScore && load->shard.id < best->shard.id)) {
            best = load;
            bestScore = score;
        }
    }
    return best->shard.id;
}

} // namespace

const char* allocationStrategyName(AllocationStrategy strategy)
{
    for (const auto& [value, name] : kStrategies)
        if (value == strategy)
            return name;
    return "unknown";
}

std::optional<AllocationStrategy> parseAllocationStrategy(std::string_view name)
{
    for (const auto& [value, text] : kStrategies)
        if (name == text)
            return value;
    return std::nullopt;
}

std::string explainRefusal(const ShardLoad& load)
{
    switch (load.shard.state) {
    case ShardState::Active: break;
    case ShardState::Draining: return load.shard.id + " is draining";
    case ShardState::Readonly: return load.shard.id + " is readonly";
    case ShardState::Retired: return load.shard.id + " is retired";
    }
    return isFull(load) ? fullReason(load) : std::string();
}

Result<std::string> allocateShard(
    AllocationStrategy strategy, std::string_view space, const std::vector<ShardLoad>& shards, std::string_view pin)
{
    if (space.empty())
        return makeError(ErrorCode::InvalidArgument, "space id is empty");
    if (!pin.empty())
        return allocatePinned(space, shards, pin);

    auto eligible = eligibleShards(shards);
    if (eligible.empty())
        return noEligibleShard(space, shards);

    switch (strategy) {
    case AllocationStrategy::LoadAware: return pickLoadAware(eligible);
    case AllocationStrategy::JumpHash: return pickJump(space, std::move(eligible));
    case AllocationStrategy::Rendezvous: return pickRendezvous(space, eligible);
    }
    return makeError(ErrorCode::InvalidArgument, "unknown allocation strategy", std::string(space));
}

std::uint64_t placementHash(std::string_view id)
{
    return XXH3_64bits(id.data(), id.size());
}

std::int32_t jumpConsistentHash(std::uint64_t key, std::int32_t buckets)
{
    if (buckets < 1)
        return -1;
    // Rather than asking at every bucket count whether the key moves (probability 1/n), draw with
    // a linear congruential generator the next count at which it does, so the loop runs O(log n)
    // times.
    std::int64_t bucket = 0;
    std::int64_t next = 0;
    while (next < buckets) {
        bucket = next;
        key = key * kJumpMultiplier + 1;
        next = static_cast<std::int64_t>(
            static_cast<double>(bucket + 1) * (kJumpScale / static_cast<double>((key >> 33) + 1)));
    }
    return static_cast<std::int32_t>(bucket);
}

std::uint64_t rendezvousScore(std::string_view space, std::string_view shard)
{
    return rendezvousScoreSeeded(placementHash(space), shard);
}

} // namespace shardmap::core
