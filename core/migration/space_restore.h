#pragma once

// A space's restore from a snapshot (issue 32, docs/BACKUPS.md): the migration machinery with the
// snapshot's file as the source of the copy.

#include "core/client/node_client.h"
#include "core/migration/backfill_copier.h"
#include "core/migration/migration_copies.h"
#include "core/migration/migration_nodes.h"
#include "core/migration/migration_records.h"
#include "core/migration/phase_step.h"
#include "core/snapshot/snapshot_records.h"
#include "core/store/metadata_store.h"
#include "core/util/log.h"
#include "core/util/result.h"

#include <chrono>
#include <cstdint>
#include <string>

namespace shardmap::core {

// Takes one restore (a MigrationRecord with restoreSnapshot set, queued by RestoreRequests) one
// step. queued: the snapshot's file of the shard that held the space is installed on the target's
// node as a staging shard of its own (RestoreShard, hash checked; not in the map, so nothing routes
// to it) and the target is told the space's role (migration target); backfill: the space copied
// from the staging shard into the target and its in-sync replicas with BackfillCopier (throttled,
// resumable from its cursor, renamed when restored under a new id); verify: the staging shard's and
// the target's content checksums (tombstones included) compared, a difference copied again, then
// each replica's (MigrationCopies; one that fails leaves, marked catching up); cutover (the copies
// compared once more and the target's record guarded as a migration's cutover does), replacing:
// the live shard fenced at the next epoch (it served every read and write until then; writes it
// took since the snapshot are replaced, as the administrator confirmed), the space moved to the
// target in one fenced commit; creating: the space record made (create-only: a space of that id
// made meanwhile fails the restore); cleanup: the staging shard dropped and, replacing, the space's
// old rows removed from the shard it left and its replicas. No dual write: the live shard is the
// only one written until the cutover. No rollback window: the old rows are what the restore
// replaced. A cancel before the cutover drops the staging shard and the target's partial copy.
class RestorePhases {
public:
    struct Options {
        std::chrono::milliseconds poll { 500 };
        std::chrono::milliseconds progressInterval { 250 };
        LogSink log;
    };

    RestorePhases(MetadataStore& store, MigrationNodes& nodes, MigrationCopies& copies, MigrationRecords& records,
        LeaseGuard lease, Options options);

    // The next step of the restore in ctx (its record loaded; ctx.m().isRestore()).
    Result<PhaseStep> step(MigrationContext& ctx);

private:
    using Context = MigrationContext;

    // The epoch the target's copy is written at: the space's (replacing) or 1 (creating).
    static std::uint64_t copyEpoch(const Context& ctx);
    std::string stopReason(const Context& ctx) const;
    Result<PhaseStep> start(Context& ctx);
    Result<PhaseStep> backfill(Context& ctx);
    Result<PhaseStep> verify(Context& ctx);
    Result<PhaseStep> cutover(Context& ctx);
    Result<PhaseStep> cleanup(Context& ctx);
    // Drops the staging shard and the target's partial copy, then ends the record in phase.
    Result<PhaseStep> stop(Context& ctx, MigrationPhase phase, const std::string& why);
    Result<ShardFileEntry> snapshotFile(const Context& ctx);
    Result<std::shared_ptr<NodeClient>> stagingClient(const Context& ctx);
    Result<SpaceCopyEnds> ends(const Context& ctx);
    // At the cutover: the target's in-sync copies compared with the staging shard and guarded
    // (MigrationCopies); false after a difference sent the restore back to its verify.
    Result<bool> compareCopies(Context& ctx);
    Status dropStaging(const Context& ctx);
    void log(LogLevel level, const std::string& message) const;

    MetadataStore& m_store;
    MigrationNodes& m_nodes;
    MigrationCopies& m_copies;
    MigrationRecords& m_records;
    LeaseGuard m_lease;
    Options m_options;
};

} // namespace shardmap::core
