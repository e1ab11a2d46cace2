#pragma once

// Placement of NEW spaces on shards (ARCHITECTURE §7).
//
// The default strategy is the load-aware allocator of the Discord write-up (seed 003): every shard
// has a load score and the lowest score takes the next space, so a freshly added, empty shard is
// filled first and a nearly full one stops receiving tenants. Jump hash and rendezvous hashing are
// offered for stateless routers that must compute a placement without reading load metrics; they
// only need the list of eligible shards.
//
// Whatever the strategy, a space can only be placed on an eligible shard: Active and not full.
// A pin overrides the strategy but not eligibility, because a new space has to be written to.
//
// Moving existing spaces is the rebalance planner's job, not this allocator's.

#include "core/map/map_types.h"
#include "core/util/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardmap::core {

// A shard as the allocator sees it: its record plus what it currently holds.
struct ShardLoad {
    ShardRecord shard;
    std::uint64_t docs = 0;
    std::uint64_t bytes = 0;
    std::uint64_t spaces = 0;
    // Free share of the node's disk, 0..1, from node metrics; 1 when unknown.
    double nodeDiskFreeRatio = 1.0;
    // False when the node did not report (unreachable, metrics stale). Such a shard reports zero
    // docs and would look empty, so the load-aware strategy ranks it after every shard whose load
    // is known instead of flooding it; the hashing strategies do not read load and ignore this.
    bool loadKnown = true;
};

enum class AllocationStrategy { LoadAware, JumpHash, Rendezvous };

// "load-aware", "jump", "rendezvous".
const char* allocationStrategyName(AllocationStrategy strategy);
std::optional<AllocationStrategy> parseAllocationStrategy(std::string_view name);

// Picks the shard for a new space and returns its id.
//
// - A non-empty `pin` wins over the strategy: NotFound if no such shard is listed,
//   FailedPrecondition (saying why, see explainRefusal) if it is not eligible.
// - Otherwise FailedPrecondition listing every shard and why it was refused when none is eligible,
//   and InvalidArgument for an empty space id.
// - LoadAware: lowest score 0.45*fill(docs) + 0.45*fill(bytes) + 0.10*(1 - nodeDiskFreeRatio),
//   where fill is value/capacity when the shard has that capacity and value/max(value over the
//   eligible shards) otherwise. Ties go to fewer spaces, then to the smaller shard id.
// - JumpHash: jumpConsistentHash(placementHash(space)) over the eligible shards sorted by id. Only
//   appending a shard whose id sorts last is cheap (about 1/n of new spaces change target);
//   removing or inserting one in the middle of the order reshuffles targets.
// - Rendezvous: the eligible shard with the highest rendezvousScore(space, shard id); adding or
//   removing any shard changes only the targets that involve that shard.
//
// The result depends only on the arguments, never on the input order of `shards`.
Result<std::string> allocateShard(AllocationStrategy strategy, std::string_view space,
    const std::vector<ShardLoad>& shards, std::string_view pin = {});

// Why a new space cannot be placed on this shard, as a sentence naming it ("s1 is draining",
// "s2 is full (1000/1000 docs)"); empty when the shard is eligible. The console reuses it to say
// why a drop target is refused.
std::string explainRefusal(const ShardLoad& load);

// The 64-bit hash (XXH3) of an id that the hashing strategies use; exposed so that a stateless
// router reproduces placements exactly.
std::uint64_t placementHash(std::string_view id);

// Lamping & Veach, "A Fast, Minimal Memory, Consistent Hash Algorithm" (2014): the bucket in
// [0, buckets) for `key`. Growing from n to n+1 buckets moves about 1/(n+1) of the keys, all of
// them to the new bucket. Answers -1 when buckets < 1, as the reference implementation does.
std::int32_t jumpConsistentHash(std::uint64_t key, std::int32_t buckets);

// Highest-random-weight score of (space, shard): the space goes to the shard scoring highest.
std::uint64_t rendezvousScore(std::string_view space, std::string_view shard);

} // namespace shardmap::core
