#pragma once

// The rebalance planner (ARCHITECTURE §7): what should move, and what the fleet looks like after.
//
// It works on a compact copy of the fleet (PlannerInput: shards, nodes, spaces with their
// figures) so that it runs the same on a live map, on a what-if copy and in tests, and it never
// talks to a store or a node. Every scenario (rebalance, add shards, drain, retire a node, split,
// merge, isolate) returns the same PlanResult: the Plan the console's plan mode and
// `shardmapctl plan apply` queue, each move with its reason, the load of every shard and node
// before and after, and a summary per objective.
//
// Objectives, in priority order as Cruise Control orders its goals: capacity (hard: a target
// never goes past maxTargetFill of its capacity, and its node keeps twice the bytes it receives
// free, as the migration preflight demands), then bytes, docs, query load, write load (per
// shard, weighted), then disk use per node. A shard's share of the fleet follows its bytes
// capacity when every shard has one, else every shard gets an equal share.
//
// Hysteresis: a fleet whose shards are all within the band around their share gets an empty
// plan, and a move is only made when it takes load off a shard outside the band or onto one
// below it, and lowers the weighted squared deviation. Planning again after applying a plan
// therefore finds nothing to do: the plan does not chase its own noise.

#include "core/map/shard_map.h"
#include "core/plan/move_rules.h"
#include "core/plan/plan.h"
#include "core/plan/plan_note.h"
#include "core/util/result.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace shardmap::core {

// What the planner balances, in priority order. Capacity is a constraint, not an objective.
enum class Objective { Bytes = 0, Docs = 1, QueryLoad = 2, WriteLoad = 3, NodeDisk = 4 };
inline constexpr std::size_t kObjectiveCount = 5;
const char* objectiveName(Objective objective);

// The load a space puts on its shard, or a shard holds: docs, bytes, queries/s, writes/s.
struct LoadFigures {
    double docs = 0;
    double bytes = 0;
    double queriesPerSecond = 0;
    double writesPerSecond = 0;

    LoadFigures& operator+=(const LoadFigures& other);
    LoadFigures& operator-=(const LoadFigures& other);
    bool operator==(const LoadFigures&) const = default;
};

struct PlannerSpace {
    std::string id;
    // Its owner now; for a migrating space, where it is going (its load is counted there). A
    // space in its rollback window has arrived: it is on its new shard (placementOf()).
    std::string shard;
    std::string pin;
    // A space with an open migration (moving, or in its rollback window) is counted but never
    // moved; its migration's id, for messages.
    bool migrating = false;
    std::string migrationId;
    // While migrating: the shard it is leaving (an operation emptying that shard must wait).
    std::string migratingFrom;
    LoadFigures load;
    // During its rollback window: the old shard that keeps its copy until rollbackUntilUnixMs.
    // (Defaulted, so that the fleets tests write field by field need not name them.)
    std::string rollbackCopyOn {};
    std::int64_t rollbackUntilUnixMs = 0;
    // Why it cannot move now and when it can (holdNote()); none: say "already migrating".
    std::optional<PlanNote> hold {};
};

struct PlannerShard {
    ShardRecord record;
    // The space an isolate gave this shard to (it stays pinned there): the shard is dedicated,
    // no plan fills it, and any other space on it leaves in a rebalance.
    std::string dedicatedTo {};
};

struct PlannerNode {
    std::string id;
    bool retired = false;
    // From the node's metrics; nullopt when it did not answer. A node whose free disk is unknown
    // receives nothing: room that cannot be checked is not room (the preflight's rule).
    std::optional<std::uint64_t> diskFreeBytes;
    std::optional<std::uint64_t> diskTotalBytes;
};

// The fleet as the planner sees it.
struct PlannerInput {
    std::uint64_t baseRevision = 0;
    std::vector<PlannerNode> nodes;
    std::vector<PlannerShard> shards;
    std::vector<PlannerSpace> spaces;
    MigrationSettings settings;
    // The executor's measured backfill rate per migration (docs/s, the median of the migrations
    // that copied at least kMinMeasuredMigrationDocs); 0 when none was measured. measuredMigrations:
    // how many it is the median of.
    double measuredDocsPerSecond = 0;
    std::size_t measuredMigrations = 0;
    // The map's index templates, the built-in default first (core/map/index_templates.h
    // templatesOf): what a reindex names its target by.
    std::vector<IndexTemplateRecord> templates = {};
};

// A migration that copied fewer documents says little about the rate (a 120 ms backfill of a
// few thousand docs measured 34,486 docs/s, issue 26): it is not counted as measured.
inline constexpr std::uint64_t kMinMeasuredMigrationDocs = 10'000;

// Builds the input from a map snapshot, the spaces' figures (docs and bytes from the nodes'
// per-space metrics; missing spaces count as empty) and the nodes' disk facts.
PlannerInput plannerInputFrom(const MapSnapshot& map, const std::map<std::string, LoadFigures>& spaces,
    const std::map<std::string, PlannerNode>& nodes);

// The planner's knobs. Weights are per objective (index by Objective); a weight of 0 turns one off.
struct PlannerOptions {
    // A shard within band x its share of an objective is balanced in it; query and write load
    // are noisier and get the wider loadBand.
    double band = 0.10;
    double loadBand = 0.25;
    // Query or write load below this in the whole fleet (per second) is noise: it neither makes
    // moves nor puts a shard outside the band.
    double minLoadPerSecond = 1.0;
    std::array<double, kObjectiveCount> weights { 1.0, 0.5, 0.2, 0.2, 0.1 };
    // Move budget: at most this many moves, bytes, or estimated hours (0: no limit).
    std::size_t maxMoves = 0;
    std::uint64_t maxBytes = 0;
    double maxHours = 0;
    // Shards that neither give nor receive (draining, readonly and retired shards never receive).
    std::set<std::string> excludedShards;
    // A space larger than this share of its shard's size gets a shard of its own: other spaces
    // leave that shard and nothing is added to it. The size of a shard is its bytes capacity or,
    // without one, shardBytesLimit (seed 002's S_limit); with neither the rule is off.
    double dedicatedShare = 0.5;
    std::uint64_t shardBytesLimit = 0;
    // Docs/s per migration when neither a throttle nor enough of a measured rate is known: until
    // minMeasuredMigrations are measured, the lower of this and what was measured.
    double assumedDocsPerSecond = 5000;
    std::size_t minMeasuredMigrations = 5;
};

struct ShardOutcome {
    std::string shard;
    std::string node;
    ShardState state = ShardState::Active;
    std::uint64_t capacityDocs = 0;
    std::uint64_t capacityBytes = 0;
    bool isNew = false;
    LoadFigures before;
    LoadFigures after;
    std::size_t spacesBefore = 0;
    std::size_t spacesAfter = 0;
};

struct NodeOutcome {
    std::string node;
    double bytesBefore = 0;
    double bytesAfter = 0;
    std::optional<std::uint64_t> diskFreeBefore;
    std::optional<std::uint64_t> diskFreeAfter;
};

// Spread of one objective over the shards that are balanced (active, not excluded, not
// dedicated): largest over mean and the coefficient of variation (standard deviation / mean).
struct ObjectiveSpread {
    Objective objective = Objective::Bytes;
    double mean = 0;
    double maxOverMeanBefore = 0;
    double maxOverMeanAfter = 0;
    double stddevBefore = 0;
    double stddevAfter = 0;
};

struct PlanSummary {
    std::vector<ObjectiveSpread> objectives;
    std::size_t moves = 0;
    std::uint64_t bytesMoved = 0;
    std::uint64_t docsMoved = 0;
    // The bytes that must move at least (add shards: what the new shards need to reach their
    // share; drain, retire, merge: everything on them); 0 where no such bound is defined.
    std::uint64_t lowerBoundBytes = 0;
    // At the throttle (or measured rate) and the executor's concurrency limits.
    double estimatedSeconds = 0;
    double docsPerSecondPerMigration = 0;
    // "throttle", "measured" or "assumed", and on what the rate is based, in a sentence
    // ("assumed until 5 migrations that copied at least 10,000 docs are measured (2 so far)").
    std::string rateSource;
    std::string rateBasis;
    std::size_t measuredMigrations = 0;
    std::size_t migrationsNeeded = 0;
    bool balancedBefore = false;
    bool balancedAfter = false;
};

struct PlanResult {
    Plan plan;
    std::vector<ShardOutcome> shards;
    std::vector<NodeOutcome> nodes;
    PlanSummary summary;
    // A constraint that could not be met, a shard still outside the band, a budget that ran out:
    // in English, and the same as data (warningNotes[i] says warnings[i]) for the console.
    std::vector<std::string> warnings;
    std::vector<PlanNote> warningNotes;
    // Why each move of the plan moves, by space, as data (its English text is the move's reason).
    std::map<std::string, PlanNote> moveNotes;
};

// Evens the fleet out within the band.
Result<PlanResult> planRebalance(const PlannerInput& input, const PlannerOptions& options = {});
// Fills shards (new ones are added to the fleet; they may already be in the map, empty) up to
// their share, moving only from the fullest shards.
Result<PlanResult> planAddShards(
    const PlannerInput& input, const std::vector<ShardRecord>& newShards, const PlannerOptions& options = {});
// Every space of the shard to the other shards, spread to keep them balanced.
Result<PlanResult> planDrain(const PlannerInput& input, const std::string& shard, const PlannerOptions& options = {});
// Every space of the node's shards to shards on other nodes, spread over many.
Result<PlanResult> planRetireNode(
    const PlannerInput& input, const std::string& node, const PlannerOptions& options = {});
// Moves about half of the shard's bytes to a new shard so that both halves are as even as the
// spaces allow. With options.shardBytesLimit set, a shard under it is refused (seed 002's rule).
Result<PlanResult> planSplit(const PlannerInput& input, const std::string& shard, const ShardRecord& newShard,
    const PlannerOptions& options = {});
// Every space of `from` into `into`.
Result<PlanResult> planMerge(
    const PlannerInput& input, const std::string& from, const std::string& into, const PlannerOptions& options = {});
// Seed 002's merge rule: the smallest shard holding less than limitBytes into the fullest other
// such shard that stays under the limit with it (one pair per plan; a warning says how many
// small shards remain).
Result<PlanResult> planMergeBelow(
    const PlannerInput& input, std::uint64_t limitBytes, const PlannerOptions& options = {});
// The space alone on a new shard, pinned there.
Result<PlanResult> planIsolate(const PlannerInput& input, const std::string& space, const ShardRecord& newShard,
    const PlannerOptions& options = {});

// Issue 31's reindex (planner_reindex.cpp): every space of sources[i] into newShards[i], a new
// shard built with another index template (its record names it; templateLabel "NAME:VERSION" is
// for the plan's notes). A new shard's node is ignored: it goes on its source's node when that
// node's free disk holds the source's bytes a second time (the old shard is dropped only after
// the rollback window), else on the node with the most room that does; none: refused with each
// node's free bytes. A space migrating or pinned refuses the plan, naming it. The plan's subject
// and into are the sources and the new shards, comma-separated, in order.
Result<PlanResult> planReindex(const PlannerInput& input, const std::vector<std::string>& sources,
    const std::vector<ShardRecord>& newShards, const std::string& templateLabel, const PlannerOptions& options = {});

// How long moves take, by the rule a plan's summary uses (PlanSummary::estimatedSeconds: the
// throttle, the measured or the assumed rate, the executor's concurrency limits and the per-move
// overhead), for moves someone chose by hand (the console's drop confirmation). Moves of spaces
// or to shards the input does not hold count nothing.
struct MovesEstimate {
    double seconds = 0;
    double docsPerSecondPerMigration = 0;
    // "throttle", "measured" or "assumed", as PlanSummary::rateSource, and its sentence (rateBasis).
    std::string rateSource;
    std::string rateBasis;
};
MovesEstimate estimateMoves(
    const PlannerInput& input, const std::vector<PlannedMove>& moves, const PlannerOptions& options = {});

// The input as it will be once the plan's moves are done (and its new shards exist): what a
// second planning round sees.
PlannerInput applyPlanToInput(const PlannerInput& input, const Plan& plan);

} // namespace shardmap::core
