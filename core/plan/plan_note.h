#pragma once

// What the planner says about a plan, as data (issue 26, point 12): a kind and its arguments, so
// that shardmapctl prints it in English (describe()) and the console in the administrator's
// language, from one list of kinds. A plan's file keeps the English text; a note read back from
// a file is Text.

#include <string>
#include <vector>

namespace shardmap::core {

enum class PlanNoteKind {
    // Free text (a reason given by a person, or one read from a plan file): args {text}.
    Text,
    // Why a space moves.
    // args {scenario, home shard, home's share of bytes, target, target's share}; scenario is
    // "rebalance" or "fill new shard", a share a ratio such as "1.41" ("" when unknown).
    Balance,
    // args {shard}
    Drain,
    // args {node}
    RetireNode,
    // args {shard}
    Split,
    // args {from, into}
    Merge,
    // args {space, new shard}
    Isolate,
    // args {shard, space, "isolated" or "large"}: the shard is dedicated to the space.
    DedicatedShardEmptied,
    // Warnings.
    // args {node}
    NodeDidNotReport,
    // args {shard, space}
    DedicatedShardLeftOut,
    // args {shard, count}
    SeveralLargeSpaces,
    // args {count, then for up to five shards: shard, ratio, objective ("bytes", "docs",
    // "queries", "writes", "node-disk"), then how many more (0 when none)}
    OutsideBand,
    // args {}
    BudgetRanOut,
    // args {}: a drain, merge or retire-node leaves spaces behind.
    BudgetRanOutLeaving,
    // args {space, bytes, why (the move rules' English reason, "" when no shard receives)}
    NoShardTakes,
    // args {count}
    MoreSmallShards,
};

struct PlanNote {
    PlanNoteKind kind = PlanNoteKind::Text;
    std::vector<std::string> args;

    bool operator==(const PlanNote&) const = default;
};

// The note in English: what plan files, shardmapctl and the daemon's messages say.
std::string describe(const PlanNote& note);

} // namespace shardmap::core
