#pragma once

// A migration's copies beyond its two primaries (issue 30): the target shard's in-sync replicas,
// owned, backfilled, verified and compared at the cutover with the target, and every replica of the
// shard a space leaves, from which the cleanup (or an abort, the target's) drops it.

#include "core/client/node_client.h"
#include "core/migration/migration_nodes.h"
#include "core/migration/migration_records.h"
#include "core/migration/space_copy.h"
#include "core/store/metadata_store.h"
#include "core/util/log.h"
#include "core/util/result.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardmap::core {

// A migration moves every copy: the target's in-sync replicas are targets of the migration as its
// primary is (told the role, written by the backfill, compared and repaired by the verify and by
// the cutover with the source's writes held), so that once the cutover commits every copy the
// router searches holds the space. A replica that fails any of it leaves the migration: it is
// marked catching up by a fenced map change first (searches stop reading it, the router writes it
// best effort, and its catch-up brings it in sync after the migration ends). The cutover reads the
// target's shard record again before its commit (a copy in sync that it did not compare aborts it)
// and, while a copy is catching up, commits a compare-and-set on it, so no copy becomes in sync
// unverified between the two. The space is dropped from every copy of a shard it leaves
// that is not lost; a copy whose node does not answer fails the step, which the executor retries.
class MigrationCopies {
public:
    MigrationCopies(MetadataStore& store, MigrationNodes& nodes, LeaseGuard lease, LogSink log);

    // The in-sync replicas of shard as the step's map names them, with their nodes' clients.
    std::vector<CopyReplica> inSync(const MigrationContext& ctx, const std::string& shard);
    // Marks the replica of shard on node catching up (why: how it failed the migration), and says
    // so in ctx's map: the migration goes on without it. The error when the mark did not commit.
    Status leave(MigrationContext& ctx, const std::string& shard, const std::string& node, const Error& why);
    // Gives every in-sync replica of shard the role for the space at epoch; one that fails leaves.
    Status own(MigrationContext& ctx, const std::string& shard, SpaceRole role, std::uint64_t epoch);
    // The same, best effort (routers push a role a copy lacks once the map names it an owner).
    void tell(const MigrationContext& ctx, const std::string& shard, SpaceRole role, std::uint64_t epoch);
    // Every in-sync replica of the target compared with the source (kVerifyRounds while writes
    // settle) and repaired by range where they differ; the documents written again.
    Result<std::uint64_t> verify(MigrationContext& ctx);
    // The same against another reference: every in-sync replica of reference.targetShard compared
    // with reference's source (its space there, reference.spaceOnTarget() on the replica) at
    // reference.epoch; a restore's replicas against its staging shard.
    Result<std::uint64_t> verify(MigrationContext& ctx, const SpaceCopyEnds& reference);
    // With the source's writes held: every in-sync replica of the target compared with the source
    // until they match or the deadline passes; the difference last seen (empty once all match).
    // verified: the replicas that matched.
    std::string awaitSameContent(
        MigrationContext& ctx, std::chrono::steady_clock::time_point deadline, std::vector<std::string>& verified);
    std::string awaitSameContent(MigrationContext& ctx, const SpaceCopyEnds& reference,
        std::chrono::steady_clock::time_point deadline, std::vector<std::string>& verified);
    // Refused when the target's shard record, read now, has its primary moved or a replica in sync
    // that is not in verified; while it has a copy catching up, the record goes into ctx's next
    // commit as a compare-and-set, so that the copy's catch-up cannot mark it in sync meanwhile.
    Status guardCutover(MigrationContext& ctx, const std::vector<std::string>& verified);
    // Drops the space from every replica of shard that is not lost, fenced at epoch (one catching
    // up whose node does not answer is passed over, with a warning); the rows deleted.
    Result<std::uint64_t> drop(
        const MigrationContext& ctx, const std::string& shard, std::uint64_t epoch, const char* failpointName);

private:
    // One replica compared with the source and repaired: the documents written again, nullopt when
    // they held the same content.
    Result<std::optional<std::uint64_t>> verifyReplica(
        MigrationContext& ctx, const SpaceCopyEnds& reference, const CopyReplica& replica);
    // ends: from the reference to the replica on node.
    Result<std::uint64_t> repairReplica(MigrationContext& ctx, const SpaceCopyEnds& ends, const std::string& node);
    // A migration's reference: its source at the space's epoch, towards the target's replicas.
    Result<SpaceCopyEnds> migrationEnds(const MigrationContext& ctx);
    void log(LogLevel level, const std::string& message) const;

    MetadataStore& m_store;
    MigrationNodes& m_nodes;
    LeaseGuard m_lease;
    LogSink m_log;
};

} // namespace shardmap::core
