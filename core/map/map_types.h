#pragma once

// The records of the shard map (nodes, shards, spaces, migrations, operations, the executor's
// settings), their states and phases, and the keys they are stored under.

#include "core/util/index_engine.h"
#include "core/util/index_settings.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardmap::core {

enum class ShardState { Active, Draining, Readonly, Retired };

const char* shardStateName(ShardState state);
std::optional<ShardState> parseShardState(std::string_view name);

// A shard-node process at one address.
struct NodeRecord {
    std::string id;
    std::string address;
    std::map<std::string, std::string> labels;
    // Retired by a retire-node operation: its shards are retired, nothing is placed on it.
    bool retired = false;
    // The failure domain (zone or rack, free text; empty: none set). Two copies of a shard are not
    // placed in one zone unless the shard allows it (ShardRecord::allowSameZone).
    std::string zone = {};
    // Marked lost (by an administrator, or by the executor after MigrationSettings::loseNodeAfterMs
    // unreachable): its copies are lost and restored elsewhere; nothing is placed on it.
    bool lost = false;

    bool operator==(const NodeRecord&) const = default;
};

// The state of one replica of a shard (issue 30): in sync (written with every write, searched),
// catching up (written, not searched; brought in sync like a migration target that never cuts
// over) or lost (neither; to be restored elsewhere or removed).
enum class CopyState { InSync, CatchingUp, Lost };

const char* copyStateName(CopyState state);
std::optional<CopyState> parseCopyState(std::string_view name);

// A copy of a shard on another node than its primary's, with the same shard id there.
struct ShardCopy {
    std::string node;
    CopyState state = CopyState::CatchingUp;
    // Catch-up progress (documents copied of those the primary held when it started).
    std::uint64_t docsDone = 0;
    std::uint64_t docsTotal = 0;
    // When it entered its state, and why (a write it refused, the node lost ...).
    std::int64_t sinceUnixMs = 0;
    std::string reason = {};

    bool operator==(const ShardCopy&) const = default;
};

// The reason a primary demoted by a promotion keeps as a replica (": " and the promotion's reason
// follow, e.g. the failover watch's "failover: node n0 unreachable for 10 s"), and the one of a
// primary whose node was lost while a replica took over. The alerts read them (shard-failed-over).
inline constexpr std::string_view kDemotedByPromote = "demoted by promote";
inline constexpr std::string_view kLostPrimaryFailedOver = "node lost: its primary failed over";

// How many copies must apply a write before the router acknowledges it: all in-sync copies, or a
// majority of the replication factor (only for a factor of 3 or more).
enum class WriteQuorum { All, Majority };

const char* writeQuorumName(WriteQuorum quorum);
std::optional<WriteQuorum> parseWriteQuorum(std::string_view name);

// One index on one node (its primary), with its replicas on other nodes. Capacity 0 means "no
// limit".
struct ShardRecord {
    std::string id;
    std::string node;
    ShardState state = ShardState::Active;
    std::uint64_t capacityDocs = 0;
    std::uint64_t capacityBytes = 0;
    // What the shard's node made its index with (records from before engines: FTS5, as all were).
    IndexEngine engine = IndexEngine::Fts5;
    // Copies besides the primary (node), at most one per node and none on the primary's node.
    std::vector<ShardCopy> replicas = {};
    // Copies wanted, the primary included; 0: the fleet's (MigrationSettings::replicationFactor).
    std::uint32_t replicationFactor = 0;
    // Copies may share a zone (where zones are set, they do not by default).
    bool allowSameZone = false;
    // The index template the shard was built with (issue 31); "" and 0: kDefaultTemplateName
    // version 1, today's index, which every shard made before templates has.
    std::string templateName = {};
    std::uint32_t templateVersion = 0;
    // Set when the shard was brought back from a snapshot after every copy was lost (issue 32):
    // which snapshot and what was lost since ("writes after <time> are lost").
    std::string restoredFrom = {};

    // The replica on a node, or null.
    const ShardCopy* replicaOn(std::string_view nodeId) const;
    // The nodes of the primary and every in-sync replica: where writes must go and searches may.
    std::vector<std::string> inSyncNodes() const;
    bool operator==(const ShardRecord&) const = default;
};

// The phases of a live migration (ARCHITECTURE §6), in order; the last three are final.
enum class MigrationPhase { Queued, DualWrite, Backfill, Verify, Cutover, Cleanup, Done, Failed, Cancelled };

const char* migrationPhaseName(MigrationPhase phase);
std::optional<MigrationPhase> parseMigrationPhase(std::string_view name);
bool isFinal(MigrationPhase phase);

// Where a space lives: its owner shard and epoch, plus the target while a migration is open.
// The epoch grows with every ownership change; nodes refuse writes carrying another one.
struct SpaceRecord {
    std::string id;
    std::string shard;
    std::uint64_t epoch = 1;
    std::string migrationId;
    std::string target;
    MigrationPhase phase = MigrationPhase::Done;
    // A shard the space must stay on; placement and planning never move it elsewhere.
    std::string pin;
    bool paused = false;

    bool migrating() const { return !migrationId.empty(); }
    bool operator==(const SpaceRecord&) const = default;
};

struct MigrationProgress {
    std::uint64_t docsDone = 0;
    std::uint64_t docsTotal = 0;
    std::uint64_t bytesDone = 0;
    std::uint64_t bytesTotal = 0;
    double docsPerSecond = 0;
    std::int64_t etaSeconds = -1;
    std::string cursor;

    bool operator==(const MigrationProgress&) const = default;
};

struct MigrationRecord {
    std::string id;
    // A catch-up: the space it copies now (it walks its shard's spaces in id order; empty before
    // the first and once all are copied).
    std::string space;
    // The direction the migration moves the space now. A rollback swaps them (rolledBack). A
    // catch-up: both are the shard whose copy it brings in sync.
    std::string source;
    std::string target;
    // Set for a catch-up (issue 30, ARCHITECTURE §9): the copy of shard `source` on this node is
    // the target (the same shard id on another node, not another shard), it never cuts over and
    // ends with the copy marked in sync. Empty for a migration of a space between shards.
    std::string copyNode = {};
    // A catch-up: the node of the shard's primary it copies from (a promotion cancels it).
    std::string copyPrimary = {};
    // Set for a restore (issue 32): the space comes back from snapshot restoreSnapshot, whose file
    // of shard restoreShard held it as restoreSpace, staged on restoreNode (the target's node, as a
    // shard of its own, restoreStagingShard) and copied into the target; `space` is its id in the
    // map once restored (restoreSpace, or a new id to compare), `source` the shard it is on now
    // (replacing) or the snapshot's shard. Replacing: the space exists and its documents are
    // replaced at the cutover; otherwise the space is created there.
    std::string restoreSnapshot = {};
    std::string restoreShard = {};
    std::string restoreSpace = {};
    std::string restoreNode = {};
    bool restoreReplaces = false;
    MigrationPhase phase = MigrationPhase::Queued;
    MigrationProgress progress;
    // 0: the default of MigrationSettings.
    std::uint64_t throttleDocsPerSecond = 0;
    bool paused = false;
    std::string requestedBy;
    std::string reason;
    // The operation (drain, split ...) that queued this migration, if any.
    std::string operation;
    std::int64_t createdUnixMs = 0;
    std::int64_t startedUnixMs = 0;
    std::int64_t updatedUnixMs = 0;
    std::int64_t finishedUnixMs = 0;
    std::int64_t cutoverUnixMs = 0;
    // The executor leaves the migration alone until then (backoff after a failed attempt).
    std::int64_t notBeforeUnixMs = 0;
    // Since when its start waits for the target's node to answer (0: not waiting).
    std::int64_t startBlockedUnixMs = 0;
    // Every document of the source has been copied once; verify and repairs follow.
    bool backfilled = false;
    // Verify found source and target apart and repaired this many times, copying repairedDocs.
    std::uint32_t repairs = 0;
    std::uint64_t repairedDocs = 0;
    // Cutovers that aborted (aggregates apart with writes held, too slow); past
    // MigrationSettings::maxRepairs in a row the migration fails.
    std::uint32_t cutoverAborts = 0;
    // Requests of an administrator that the executor carries out at its next step.
    bool cancelRequested = false;
    bool rollbackRequested = false;
    // Rolled back after cutover: source and target were swapped and the space moved back.
    bool rolledBack = false;
    // Ended by an administrator without the executor (MigrationRequests::abandon): a copy was
    // left on a node that could not be reached.
    bool abandoned = false;
    // Winding down: dual writes stopped, the target's copy is being removed; ends in abortPhase.
    bool aborting = false;
    MigrationPhase abortPhase = MigrationPhase::Cancelled;
    // What the executor is doing or waiting for, for people ("waiting for the rollback window").
    std::string status;
    // The last error, kept while the executor retries and as the reason of a failure.
    std::string error;

    bool active() const { return !isFinal(phase); }
    bool isCatchUp() const { return !copyNode.empty(); }
    bool isRestore() const { return !restoreSnapshot.empty(); }
    bool operator==(const MigrationRecord&) const = default;
};

// The shard a restore stages the snapshot's file as, on its restoreNode: not in the map, dropped
// when the restore ends.
inline std::string restoreStagingShard(const MigrationRecord& migration)
{
    return "restore-" + migration.id;
}

// The engine new shards take while the fleet's settings name none (MigrationSettings::defaultEngine):
// the one place the default is decided (issue 29's benchmark, docs/BENCHMARKS.md).
inline constexpr IndexEngine kDefaultShardEngine = IndexEngine::Fts5;

// How the executor runs migrations and the operations make shards; one record (settings/migrations),
// the fleet's settings, changeable while migrations run.
// A named, versioned index template (issue 31): the index settings shards are built with. A
// template is never changed in place: a change is a new version (the next number), so a shard's
// (name, version) always names what it was built with. kDefaultTemplateName version 1 is today's
// index (defaultIndexSettings()); it needs no record in the map.
struct IndexTemplateRecord {
    std::string name;
    std::uint32_t version = 1;
    IndexSettings settings;
    std::string description = {};
    std::string createdBy = {};
    std::int64_t createdUnixMs = 0;
    bool operator==(const IndexTemplateRecord&) const = default;
};

inline constexpr const char* kDefaultTemplateName = "default";

struct MigrationSettings {
    // Migrations past queued and before cleanup, across the fleet, per node and per shard (as
    // source or target). 0: no limit.
    std::uint32_t maxConcurrent = 4;
    std::uint32_t maxPerNode = 2;
    std::uint32_t maxPerShard = 1;
    // Backfill rate of a migration without its own throttle; 0: as fast as the nodes go.
    std::uint64_t defaultThrottleDocsPerSecond = 0;
    std::uint32_t backfillBatch = 1000;
    // How long the old source keeps receiving writes after cutover, so that a rollback needs no
    // backfill; its copy is deleted after that.
    std::uint64_t rollbackWindowSeconds = 600;
    // Longest the cutover may hold the space's writes; past it the cutover aborts and retries.
    std::uint64_t cutoverTimeoutMs = 2000;
    // Rows per second the cleanup deletes from the old source (0: no limit).
    std::uint32_t cleanupRowsPerSecond = 20000;
    // Largest share of a target's capacity (docs, bytes) a migration may fill.
    double maxTargetFill = 0.9;
    // Aborted cutovers in a row before the migration fails (each is preceded by a verify that
    // repairs what the target lacks).
    std::uint32_t maxRepairs = 5;
    // How long a migration waits to start while its target's node cannot be reached to check its
    // disk (retrying with backoff) before it fails; 0: fail at once.
    std::uint64_t startRetrySeconds = 600;
    // The index engine of a new shard whose creator names none: shard create without --engine, and
    // the shards split, isolate and plans make.
    IndexEngine defaultEngine = kDefaultShardEngine;
    // Copies of a shard whose record names no factor, the primary included (1: no replicas).
    std::uint32_t replicationFactor = 1;
    WriteQuorum writeQuorum = WriteQuorum::All;
    // The executor leader's failover watch (core/migration/failover_watch.h). How long a primary's
    // node stays unreachable before an in-sync replica is promoted (0: never automatically).
    std::uint64_t failoverAfterMs = 10000;
    // How long a node stays unreachable before it is marked lost (0: only by an administrator).
    std::uint64_t loseNodeAfterMs = 0;
    // New copies made at once to restore the copies of lost nodes, counted while they catch up
    // (0: no limit); their catch-ups run within the limits above.
    std::uint32_t maxReReplications = 2;
    // Snapshots (issue 32, core/snapshot): the repository, an absolute directory the leader and
    // every node can write (empty: none taken); how often the leader takes one (0: on demand only);
    // how many complete ones are kept and how long (0: no limit); the pause between the node's
    // backup steps of 256 pages (its throttle: the node's writes go on between them).
    std::string snapshotRepository = {};
    std::uint64_t snapshotIntervalSeconds = 0;
    std::uint32_t snapshotKeep = 7;
    std::uint64_t snapshotMaxAgeSeconds = 0;
    std::uint32_t snapshotPauseMs = 5;

    // The factor a shard wants: its own, or the fleet's.
    std::uint32_t replicationFactorOf(const ShardRecord& shard) const
    {
        return shard.replicationFactor != 0 ? shard.replicationFactor : replicationFactor;
    }
    bool operator==(const MigrationSettings&) const = default;
};

// Move: a list of chosen moves queued together (the console's plans).
enum class OperationKind { Drain, RetireNode, Split, Merge, Isolate, Move, Reindex };
const char* operationKindName(OperationKind kind);
// A reindex's subject (its source shards) or into (its new shards), in order: comma-separated ids.
std::vector<std::string> reindexShardsOf(const std::string& list);
std::optional<OperationKind> parseOperationKind(std::string_view name);

// Running, then done or failed (one of its migrations failed or was cancelled). An operation too
// large for one store commit is queuing while its chunks commit (migrations grows chunk by
// chunk); one left queuing (its writer died between chunks) is finished by the executor as
// failed once its queued migrations end: the moves never queued are not made.
enum class OperationState { Queuing, Running, Done, Failed };
const char* operationStateName(OperationState state);
std::optional<OperationState> parseOperationState(std::string_view name);

// A fleet change built from migrations (drain a shard, retire a node, split, merge, isolate),
// recorded in one commit with its migrations. The executor finishes it when they are final
// (retires the drained shard or node, the merged shard).
// A shard an operation touches, as its node measured it when the operation was queued (for the
// before/after of reports); measured is false when the node did not answer (or the shard was
// created by the operation: then it starts empty).
struct OperationShardLoad {
    std::string shard;
    std::uint64_t docs = 0;
    std::uint64_t bytes = 0;
    std::uint64_t spaces = 0;
    bool measured = false;

    bool operator==(const OperationShardLoad&) const = default;
};

struct OperationRecord {
    std::string id;
    OperationKind kind = OperationKind::Drain;
    // What it acts on: a shard (drain, split, merge's source), a node (retire-node), a space
    // (isolate); into: the shard that receives (merge), or the shard created (split, isolate).
    std::string subject;
    std::string into;
    std::vector<std::string> migrations;
    OperationState state = OperationState::Running;
    std::string requestedBy;
    std::string reason;
    std::int64_t createdUnixMs = 0;
    std::int64_t finishedUnixMs = 0;
    std::string error;
    // When a chunk of a queuing operation last committed.
    std::int64_t updatedUnixMs = 0;
    // Moves the operation was planned with (0 in records written before chunked operations).
    std::uint64_t plannedMoves = 0;
    // The sources and targets of its moves before it started (empty in records written before
    // reports, issue 13).
    std::vector<OperationShardLoad> shardsBefore;

    bool operator==(const OperationRecord&) const = default;
};

// Keys of the records in the metadata store.
namespace keys {
inline constexpr std::string_view kNodes = "nodes/";
inline constexpr std::string_view kShards = "shards/";
inline constexpr std::string_view kSpaces = "spaces/";
inline constexpr std::string_view kMigrations = "migrations/";
// Finished migrations the executor moved out of its working set; the map still reads them.
inline constexpr std::string_view kArchivedMigrations = "archive/migrations/";
inline constexpr std::string_view kOperations = "operations/";
inline constexpr std::string_view kMigrationSettings = "settings/migrations";
// Index templates (issue 31), one record per version: templates/NAME/VERSION (ten digits, so that
// the versions of a name list in order).
inline constexpr std::string_view kTemplates = "templates/";
inline std::string node(std::string_view id)
{
    return std::string(kNodes) + std::string(id);
}
inline std::string shard(std::string_view id)
{
    return std::string(kShards) + std::string(id);
}
inline std::string space(std::string_view id)
{
    return std::string(kSpaces) + std::string(id);
}
inline std::string migration(std::string_view id)
{
    return std::string(kMigrations) + std::string(id);
}
inline std::string archivedMigration(std::string_view id)
{
    return std::string(kArchivedMigrations) + std::string(id);
}
inline std::string operation(std::string_view id)
{
    return std::string(kOperations) + std::string(id);
}
std::string indexTemplate(std::string_view name, std::uint32_t version);
} // namespace keys

} // namespace shardmap::core
