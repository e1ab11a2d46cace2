#pragma once

// A plan: the moves drafted against one revision of the map, what it does as a whole, and what in
// the map changed since that its moves depend on.

#include "core/map/shard_map.h"
#include "core/plan/move_rules.h"
#include "core/util/result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shardmap::core {

// Something in the map that changed since a plan was drafted and that a move of the plan
// depends on: the space moved, started migrating, was pinned or removed; the target shard
// changed state or is gone.
struct PlanConflict {
    std::string space;
    std::string message;
};

// A draft of space moves, made against one revision of the map and applied later as queued
// migrations. A value: kept in a JSON file between sessions ("version": 2, snake_case keys; files
// of version 1, in camelCase, still load: core/plan/plan_file.cpp). Moving a space that
// the plan already moves replaces its earlier move, so every space appears at most once.
struct Plan {
    std::uint64_t baseRevision = 0;
    std::vector<PlannedMove> moves;
    std::string createdBy;
    std::int64_t createdUnixMs = 0;
    std::string reason;
    // What the plan does as a whole: "move" (moves chosen one by one, a rebalance, shards
    // filled) or the operation it is ("drain", "retire-node", "split", "merge", "isolate"), what
    // it acts on and the shard that receives; and the shards it creates before its moves.
    std::string kind = "move";
    std::string subject;
    std::string into;
    std::vector<ShardRecord> newShards;
    // Spaces a drain, merge or retire-node knowingly leaves where they are (its move budget ran
    // out); any other space on what it empties makes applying it refuse.
    std::vector<std::string> remaining;

    // Adds a move or, for a space already in the plan, redirects it (removed when it goes back
    // to where it came from).
    void addMove(const PlannedMove& move);
    const PlannedMove* moveOf(const std::string& space) const;

    std::string encode() const;
    static Result<Plan> decode(const std::string& json);

    // What changed in map since the plan was drafted that its moves depend on (empty: the plan
    // still applies as drafted, whatever else changed). A shard the plan creates must still not
    // exist; its moves' targets are checked as the shards it creates.
    std::vector<PlanConflict> checkAgainst(const MapSnapshot& map) const;

    bool operator==(const Plan&) const = default;
};

// The lines of a diff that concern the plan's spaces and shards, for "what changed" texts.
std::vector<std::string> describeDiff(const MapDiff& diff, const Plan& plan);

} // namespace shardmap::core
