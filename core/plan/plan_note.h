#pragma once

// What the planner says about a plan, as data (issue 26, point 12): a kind and its arguments, so
// that shardmapctl prints it in English (describe()) and the console in the administrator's
// language, from one list of kinds. A plan's file keeps the English text; a note read back from
// a file is Text. The refusals of the planner and the preflight that say when something can run
// are notes too (refusalOf()): the daemon and shardmapctl say "until 17:45 UTC", the console its
// own words and local time.

#include "core/util/result.h"

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
    // args {shard, new shard, template "NAME:VERSION"}: issue 31's reindex.
    Reindex,
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
    // args {node, count, the shards (up to three, ", "-joined, "…" after)}: a retire-node's node
    // holds replicas, made again elsewhere by the executor before the node retires.
    ReplicasMoveOff,
    // Refusals: why a space cannot move now and when it can. A time is Unix ms, "0" when unknown.
    // args {space, new shard, migration, until}
    InRollbackWindow,
    // args {space, new shard, migration}: cut over, the old copy is being removed.
    JustMoved,
    // args {space, migration}
    AlreadyMigrating,
    // args {old shard, space, migration, until}: the old shard keeps the copy for a rollback.
    KeepsRollbackCopy,
    // args {operation ("merge" or "retire-node"), its shard or node, how many copies, until}
    WaitsForRollbackWindows,
    // args {count}: more than a refusal names.
    AndMore,
};

struct PlanNote {
    PlanNoteKind kind = PlanNoteKind::Text;
    std::vector<std::string> args;

    bool operator==(const PlanNote&) const = default;
};

// The note in English: what plan files, shardmapctl and the daemon's messages say.
std::string describe(const PlanNote& note);

// An error made of notes: its message is their English joined by "; ", and the notes travel in
// its details, so that refusalNotes() gives them back to the console.
Error refusalOf(ErrorCode code, const std::vector<PlanNote>& notes);
// The notes of an error from refusalOf(); empty for any other error.
std::vector<PlanNote> refusalNotes(const Error& error);

} // namespace shardmap::core
