#pragma once

// What administrators (shardmapctl, the console) ask of migrations. Every request is validated
// against a fresh snapshot of the map and recorded as one compare-and-set commit with its audit
// record; the migration executor inside shardmapd carries requests out at its next step. Nothing
// here talks to shard documents: requests only change records (and read node metrics for the
// preflight's disk check).

#include "core/client/node_client.h"
#include "core/map/map_editor.h"
#include "core/map/shard_map.h"
#include "core/plan/planner.h"
#include "core/store/metadata_store.h"
#include "core/util/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardmap::core {

// What the preflight knows about the space and the target besides the map.
struct PreflightFacts {
    std::uint64_t spaceDocs = 0;
    std::uint64_t spaceBytes = 0;
    // Of the target shard, from its node's metrics; nullopt when the node did not answer.
    std::optional<std::uint64_t> targetShardDocs;
    std::optional<std::uint64_t> targetShardBytes;
    std::optional<std::uint64_t> targetNodeDiskFree;
};

// The checks of ARCHITECTURE §6 "queued", run at queue time and again when the executor starts
// the migration: the space exists and is not pinned elsewhere or migrating (unless ownMigration
// names the migration being started), the target exists, is active, on a live (not retired) node
// and is not the source; the target's node has at least 2x the space's bytes free; the target
// stays within settings.maxTargetFill of its capacity. FailedPrecondition (NotFound for unknown
// ids) with a sentence saying which check refused and the numbers.
Status preflightMigration(const MapSnapshot& map, const std::string& spaceId, const std::string& targetShard,
    const PreflightFacts& facts, const std::string& ownMigration = {});

// Its room half: the target's node has twice the space's bytes free (facts.spaceBytes), and the
// shard stays under its capacities with the space (a restore asks it for a space from a snapshot).
Status checkTargetRoom(
    const MapSnapshot& map, const SpaceRecord& space, const ShardRecord& target, const PreflightFacts& facts);

// Reads the facts for a preflight from the source's and target's nodes (one metrics call each,
// with per-space numbers). Unreachable nodes leave their facts unknown; the disk check then
// refuses, because room that cannot be checked is not room.
PreflightFacts gatherPreflightFacts(
    const MapSnapshot& map, NodeClientPool& nodes, const std::string& spaceId, const std::string& targetShard);

// A new migration's id: "m-" + 13-digit unix milliseconds + "-" + 4 hex digits, so that ids sort
// by creation time. Two ids made in the same millisecond differ in the suffix.
std::string newMigrationId();
// The same for operations: "op-" + 13-digit unix milliseconds + "-" + 4 hex digits.
std::string newOperationId();

// The administrator's side of migrations: queue one, steer it (pause, resume, throttle, cancel,
// rollback), change the executor's settings, and start operations that queue many at once. Each
// request reads a fresh snapshot, checks it, and commits one compare-and-set with its audit
// record (action "migrate", "pause-migration", "drain" ...); a refused request commits nothing.
// Requests on a running migration's record are retried a few times when they lose a race to the
// executor's progress updates.
class MigrationRequests {
public:
    MigrationRequests(MetadataStore& store, NodeClientPool& nodes);

    // Queues a move of one space to a shard after the preflight: one commit that creates the
    // migration record (phase queued) and marks the space (migrationId, phase queued).
    // throttle 0: the settings' default.
    Result<MigrationRecord> queue(
        const std::string& spaceId, const std::string& targetShard, const Actor& actor, std::uint64_t throttle = 0);

    // Pause stops the executor from advancing it (dual writes go on); resume lets it continue.
    Result<MigrationRecord> pause(const std::string& migrationId, const Actor& actor);
    Result<MigrationRecord> resume(const std::string& migrationId, const Actor& actor);
    // Before cutover only. A queued migration is cancelled at once (nothing was copied yet);
    // a running one is marked cancelRequested and the executor removes the target's copy.
    Result<MigrationRecord> cancel(const std::string& migrationId, const Actor& actor);
    // After cutover and before the rollback window closed (phase cleanup, old source still
    // receiving writes): marks rollbackRequested; the executor moves the space back.
    Result<MigrationRecord> rollback(const std::string& migrationId, const Actor& actor);
    // The way out when a node is lost for good (issue 14): ends the migration in one commit,
    // without the executor and without touching any node. Before cutover the space stays on its
    // source (a new epoch without a target: dual writes stop) and the migration ends cancelled;
    // in cleanup the space stays on its new owner and the migration ends done. Either way the
    // copy the executor would have removed (the target's partial copy, or the old source's) stays
    // on its node. Refused while cutting over (that ends by itself within cutover_timeout_ms) and
    // for finished migrations. abandonCost says what it leaves behind, for a confirmation.
    Result<MigrationRecord> abandon(const std::string& migrationId, const Actor& actor);
    Result<std::string> abandonCost(const std::string& migrationId);
    // docs/s for one migration; 0: the settings' default.
    Result<MigrationRecord> setThrottle(
        const std::string& migrationId, std::uint64_t docsPerSecond, const Actor& actor);

    Result<MigrationSettings> settings();
    // InvalidArgument naming the first setting out of its range (readMigrationSettings).
    Result<std::uint64_t> setSettings(const MigrationSettings& settings, const Actor& actor);

    // Operations: one commit each, with the operation record, its migrations and the shard
    // state changes. The best other shard is chosen by the load-aware placement among active
    // shards (spaces pinned to the shard are refused, naming them).
    //   drain: every space of the shard to the best other shard; the shard becomes draining.
    //   retireNode: drains every shard of the node; when all moved, the executor retires the
    //     shards and marks the node retired.
    //   split: creates newShard (on node, or the shard's node when empty) and moves a half of the
    //     shard's spaces by bytes there (largest first, greedy bin packing, seed 002).
    //   merge: moves every space of `from` to `into`; when done the executor retires `from`.
    //   isolate: creates newShard (on node, or the space's node) and moves the space there, pinned.
    Result<OperationRecord> drain(const std::string& shardId, const Actor& actor);
    Result<OperationRecord> retireNode(const std::string& nodeId, const Actor& actor);
    Result<OperationRecord> split(
        const std::string& shardId, const std::string& newShard, const std::string& node, const Actor& actor);
    Result<OperationRecord> merge(const std::string& from, const std::string& into, const Actor& actor);
    Result<OperationRecord> isolate(
        const std::string& spaceId, const std::string& newShard, const std::string& node, const Actor& actor);
    //   move: each listed space (id, target shard) to its target, all or none in one commit (a
    //     plan drafted in the console); every space must exist, not migrate, not be pinned
    //     elsewhere, and its target must take it (the same preflight as queue).
    Result<OperationRecord> moveSpaces(
        const std::vector<std::pair<std::string, std::string>>& moves, const Actor& actor);

    // The fleet as the planner sees it now: the map, every space's figures from its owner's
    // per-space metrics, the nodes' disk, and the executor's measured backfill rate.
    Result<PlannerInput> plannerInput();
    // Queues a plan (the planner's or one drafted by hand) as one operation of its kind: refused
    // with Conflict, listing what changed, when the map moved on in a way its moves depend on;
    // then the preflight of every move, the new shards created on their nodes, and one commit
    // (chunks under one "queuing" operation record on stores that take fewer mutations).
    // drain, retireNode, split, merge and isolate above are the planner's plans applied here.
    Result<OperationRecord> applyPlan(const Plan& plan, const Actor& actor);

private:
    MetadataStore& m_store;
    NodeClientPool& m_nodes;
};

// The executor's settings as a caller sends them (settings/migrations JSON, depth- and
// size-bounded): InvalidArgument naming the first key that is not a whole number in its range
// (max_target_fill: above 0, at most 1), so that nothing wraps into "no limit" or overflows the
// millisecond arithmetic of the windows and timeouts (docs/MIGRATIONS.md lists the ranges).
Result<MigrationSettings> readMigrationSettings(const std::string& json);

} // namespace shardmap::core
