#pragma once

// The rules of a move chosen by hand (a drop on the shard map, a console plan's move): the checks
// the migration preflight makes that need no node, on one snapshot of the map and its loads.

#include "core/map/shard_map.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace shardmap::core {

// What a space holds (from its node's per-space metrics); zero while unknown.
struct SpaceFigures {
    std::uint64_t docs = 0;
    std::uint64_t bytes = 0;
};

// What a shard holds, now or projected.
struct ShardFigures {
    std::uint64_t docs = 0;
    std::uint64_t bytes = 0;

    bool operator==(const ShardFigures&) const = default;
};

// One move of a plan or of a drag: a space from its owner shard to another. The planner adds
// why, and the space's size when it was planned.
struct PlannedMove {
    PlannedMove() = default;
    PlannedMove(std::string space_, std::string from_, std::string to_, std::string reason_ = {},
        std::uint64_t docs_ = 0, std::uint64_t bytes_ = 0)
        : space(std::move(space_))
        , from(std::move(from_))
        , to(std::move(to_))
        , reason(std::move(reason_))
        , docs(docs_)
        , bytes(bytes_)
    {
    }

    std::string space;
    std::string from;
    std::string to;
    std::string reason;
    std::uint64_t docs = 0;
    std::uint64_t bytes = 0;

    bool operator==(const PlannedMove&) const = default;
};

enum class MoveRefusal {
    None,
    UnknownSpace,
    UnknownShard,
    SameShard,
    TargetDraining,
    TargetReadonly,
    TargetRetired,
    TargetNodeRetired,
    PinnedElsewhere,
    Migrating,
    OverCapacityDocs,
    OverCapacityBytes,
};

// Whether a move may happen and, if not, why: the kind of refusal, a sentence for people, and
// for capacity refusals the numbers (what the target would hold, its limit).
struct MoveVerdict {
    MoveRefusal refusal = MoveRefusal::None;
    std::string reason;
    std::uint64_t wouldHold = 0;
    std::uint64_t limit = 0;

    bool allowed() const { return refusal == MoveRefusal::None; }
};

// The rules of moving spaces between shards by hand, on one snapshot of the map: the same
// checks as the migration preflight (ARCHITECTURE §6 "queued") that can be decided without
// asking nodes, so that the console refuses a drop before the store would. Loads are the
// shards' figures now; projected loads add the migrations already queued in the map and the
// moves of a plan, so a plan cannot overfill a shard move by move.
class MoveRules {
public:
    // shardLoads: the shards' figures from their nodes; a shard without an entry counts the
    // known figures of the spaces it owns.
    MoveRules(const MapSnapshot& map, std::map<std::string, SpaceFigures> spaces,
        std::map<std::string, ShardFigures> shardLoads = {});

    // May space move to target, with the moves of planned made before it?
    MoveVerdict check(
        const std::string& space, const std::string& target, const std::vector<PlannedMove>& planned = {}) const;

    SpaceFigures figures(const std::string& space) const;
    ShardFigures load(const std::string& shard) const;
    // The load per shard after the migrations queued in the map and then moves.
    std::map<std::string, ShardFigures> projectedLoads(const std::vector<PlannedMove>& moves = {}) const;
    // Where the space will be after the map's queued migrations and moves (empty: unknown space).
    std::string projectedShard(const std::string& space, const std::vector<PlannedMove>& moves = {}) const;

private:
    MoveVerdict checkTarget(const ShardRecord& target) const;
    MoveVerdict checkCapacity(
        const std::string& space, const ShardRecord& target, const std::vector<PlannedMove>& planned) const;

    const MapSnapshot& m_map;
    std::map<std::string, SpaceFigures> m_spaces;
    std::map<std::string, ShardFigures> m_loads;
};

} // namespace shardmap::core
