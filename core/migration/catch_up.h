#pragma once

// A replica's catch-up (issue 30, ARCHITECTURE §9): the migration machinery bringing a catching-up
// copy of a shard in sync, as a migration target that never cuts over.

#include "core/client/node_client.h"
#include "core/map/shard_map.h"
#include "core/metrics/prometheus.h"
#include "core/migration/backfill_copier.h"
#include "core/migration/migration_nodes.h"
#include "core/migration/migration_records.h"
#include "core/migration/phase_step.h"
#include "core/store/metadata_store.h"
#include "core/util/log.h"
#include "core/util/result.h"

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace shardmap::core {

// The catch-ups the executor queues: one for every catching-up copy of shards that has no active
// catch-up (a queued record each, made by actor, copying from the shard's primary as it is now).
std::vector<MigrationRecord> catchUpsToQueue(const std::map<std::string, ShardRecord>& shards,
    const std::vector<MigrationRecord>& active, const std::string& actor);

// Takes one catch-up one step: one record per (shard, copy node), a MigrationRecord with copyNode
// set, that walks the shard's spaces in id order. queued: the copy is told every space's
// ownership (migration target at the space's epoch) and the documents to copy are counted on the
// primary; backfill: each space copied with BackfillCopier (throttled, conditional versioned
// writes: an older copy never overwrites a newer dual-written version, a tombstone blocks a
// resurrection), the cursor and progress persisted and mirrored into the copy's ShardCopy;
// verify: every space's content checksums (tombstones included) compared, a difference repaired
// by range (RangeRepair), and then no cutover: the copy is marked in sync by a compare-and-set on
// the shard record (the copy still catching up on that node, the primary unchanged) in the commit
// that ends the record done.
//
// The space records are never marked migrating by a catch-up, so a space may move for real
// meanwhile; the verify waits until no space of the shard migrates, because a migration moves a
// space to the target's in-sync copies only (MigrationCopies), not to one still catching up, and a
// copy verified then could differ right after.
// A catch-up whose copy was removed, lost or marked in sync otherwise, or whose shard's primary
// changed, ends cancelled and leaves the copy as it is (nothing to undo: its rows are the
// primary's, and the next catch-up, from the new primary, repairs what differs). A node that
// does not answer fails the step and the executor retries it with backoff, for as long as the
// copy is catching up: giving up would only queue the next catch-up, and marking a copy lost is
// the administrator's (or the failover watch's, lose_node_after_ms) decision, not a copier's.
class CatchUpPhases {
public:
    struct Options {
        std::chrono::milliseconds poll { 500 };
        // The copy's progress is mirrored into the shard record at most this often.
        std::chrono::milliseconds mirrorInterval { 1000 };
        LogSink log;
        MetricsRegistry* metrics = nullptr;
    };

    CatchUpPhases(MetadataStore& store, MigrationNodes& nodes, MigrationRecords& records, LeaseGuard lease,
        std::chrono::milliseconds progressInterval, Options options);

    // The next step of the catch-up in ctx (its record loaded; ctx.m().isCatchUp()).
    Result<PhaseStep> step(MigrationContext& ctx);

private:
    using Context = MigrationContext;

    // Why the catch-up can no longer go on (empty: it can).
    std::string cancelReason(const Context& ctx) const;
    Result<PhaseStep> end(Context& ctx, MigrationPhase phase, const std::string& why);
    Result<PhaseStep> start(Context& ctx);
    Result<PhaseStep> backfill(Context& ctx);
    Result<bool> copySpace(Context& ctx);
    Result<PhaseStep> verify(Context& ctx);
    Result<std::optional<std::vector<SpaceRecord>>> spacesToVerify(Context& ctx);
    // Compares one space on the primary and the copy, repairing it when they differ: the
    // documents written again, nullopt when they held the same content.
    Result<std::optional<std::uint64_t>> verifySpace(Context& ctx, const std::shared_ptr<NodeClient>& primary,
        const std::shared_ptr<NodeClient>& copy, const SpaceRecord& space);
    Result<PhaseStep> markInSync(Context& ctx, const Versioned<ShardRecord>& shard);
    Result<bool> saveProgress(Context& ctx, const CopyProgress& progress);
    // Writes the record's progress into the copy's ShardCopy (best effort); false when the copy
    // is no longer this catch-up's to bring in sync.
    bool mirrorProgress(const Context& ctx);
    // The nodes a catch-up copies between: the shard's primary and the copy being caught up.
    struct Ends {
        std::shared_ptr<NodeClient> primary;
        std::shared_ptr<NodeClient> copy;
    };
    Result<Ends> endsOf(const Context& ctx);
    // The spaces the shard owns now (and, incoming, those migrating to it), in id order.
    Result<std::vector<SpaceRecord>> spacesOf(const std::string& shard, bool incoming = false);
    void log(LogLevel level, const std::string& message) const;

    MetadataStore& m_store;
    MigrationNodes& m_nodes;
    MigrationRecords& m_records;
    LeaseGuard m_lease;
    std::chrono::milliseconds m_progressInterval;
    Options m_options;
    // When each catch-up's progress was last mirrored into its shard record (workers of several
    // catch-ups mirror at once).
    std::mutex m_mutex;
    std::map<std::string, std::chrono::steady_clock::time_point> m_mirroredAt;
};

} // namespace shardmap::core
