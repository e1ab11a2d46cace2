// MigrationCopies' implementation: the target's in-sync replicas found and told their role, a
// replica that fails leaving by a fenced mark, the verify and the held compare per replica, the
// cutover's guard on the target's record, and the drop of a space from a shard's replicas.
#include "core/migration/migration_copies.h"

#include "core/map/copy_faults.h"
#include "core/migration/range_repair.h"

#include <algorithm>
#include <thread>

namespace shardmap::core {

MigrationCopies::MigrationCopies(MetadataStore& store, MigrationNodes& nodes, LeaseGuard lease, LogSink log)
    : m_store(store)
    , m_nodes(nodes)
    , m_lease(std::move(lease))
    , m_log(std::move(log))
{
}

void MigrationCopies::log(LogLevel level, const std::string& message) const
{
    if (m_log)
        m_log(level, message);
}

std::vector<CopyReplica> MigrationCopies::inSync(const MigrationContext& ctx, const std::string& shard)
{
    std::vector<CopyReplica> replicas;
    const auto found = ctx.shards.find(shard);
    if (found == ctx.shards.end())
        return replicas;
    for (const ShardCopy& copy : found->second.replicas) {
        if (copy.state != CopyState::InSync)
            continue;
        const auto node = ctx.nodes.find(copy.node);
        auto client = node == ctx.nodes.end() ? Result<std::shared_ptr<NodeClient>>(makeError(ErrorCode::NotFound, ""))
                                              : m_nodes.pool().get(node->second.address);
        // A copy without a reachable address is still a copy: its calls fail and it leaves.
        replicas.push_back({ copy.node, client ? *client : nullptr });
    }
    return replicas;
}

Status MigrationCopies::leave(
    MigrationContext& ctx, const std::string& shard, const std::string& node, const Error& why)
{
    const MigrationRecord& m = ctx.migration.value;
    auto fence = m_lease.fence();
    if (!fence)
        return fence.error();
    const std::string reason = "failed migration " + m.id + " of " + m.space + ": " + why.describe();
    auto marked = markCopyCatchingUp(m_store, shard, node, reason, { m.requestedBy, "migration " + m.id }, *fence);
    if (!marked)
        return makeError(marked.error().code,
            "the copy of " + shard + " on node " + node + " " + reason
                + ", and marking it catching up failed: " + marked.error().message);
    const auto record = ctx.shards.find(shard);
    if (record != ctx.shards.end()) {
        for (ShardCopy& copy : record->second.replicas) {
            if (copy.node == node && copy.state == CopyState::InSync)
                copy.state = CopyState::CatchingUp;
        }
    }
    log(LogLevel::Warn,
        "migration " + m.id + ": the copy of " + shard + " on node " + node + " is catching up now: " + reason);
    return {};
}

Status MigrationCopies::own(MigrationContext& ctx, const std::string& shard, SpaceRole role, std::uint64_t epoch)
{
    for (const CopyReplica& replica : inSync(ctx, shard)) {
        Status owned = replica.client
            ? m_nodes.ownOn(*replica.client, shard, ctx.migration.value.space, role, epoch)
            : Status(makeError(ErrorCode::Unavailable, "no address for node " + replica.node));
        if (owned)
            continue;
        // A lost lease is not the copy's failure.
        if (auto status = m_lease.check(); !status)
            return status;
        if (auto left = leave(ctx, shard, replica.node, owned.error()); !left)
            return left;
    }
    return {};
}

void MigrationCopies::tell(const MigrationContext& ctx, const std::string& shard, SpaceRole role, std::uint64_t epoch)
{
    for (const CopyReplica& replica : inSync(ctx, shard)) {
        if (!replica.client)
            continue;
        if (auto owned = m_nodes.ownOn(*replica.client, shard, ctx.migration.value.space, role, epoch); !owned)
            log(LogLevel::Warn,
                "migration " + ctx.migration.value.id + ": the copy on node " + replica.node + ": "
                    + owned.error().describe() + " (routers will push it)");
    }
}

Result<SpaceCopyEnds> MigrationCopies::migrationEnds(const MigrationContext& ctx)
{
    const MigrationRecord& m = ctx.migration.value;
    auto source = m_nodes.clientFor(ctx, m.source);
    if (!source)
        return source.error();
    return SpaceCopyEnds { *source, m.source, nullptr, m.target, m.space, ctx.space->value.epoch,
        ctx.settings.backfillBatch };
}

Result<std::uint64_t> MigrationCopies::verify(MigrationContext& ctx)
{
    if (inSync(ctx, ctx.migration.value.target).empty())
        return std::uint64_t { 0 };
    auto reference = migrationEnds(ctx);
    if (!reference)
        return reference.error();
    return verify(ctx, *reference);
}

Result<std::uint64_t> MigrationCopies::verify(MigrationContext& ctx, const SpaceCopyEnds& reference)
{
    const auto replicas = inSync(ctx, reference.targetShard);
    std::uint64_t repaired = 0;
    for (const CopyReplica& replica : replicas) {
        auto fixed = replica.client ? verifyReplica(ctx, reference, replica)
                                    : Result<std::optional<std::uint64_t>>(
                                        makeError(ErrorCode::Unavailable, "no address for node " + replica.node));
        if (fixed) {
            repaired += fixed->value_or(0);
            continue;
        }
        if (auto status = m_lease.check(); !status)
            return status.error();
        // The source still answering, the replica is the one that failed.
        if (auto probe = m_nodes.statsOn(*reference.source, reference.sourceShard, reference.space); !probe)
            return fixed.error();
        if (auto left = leave(ctx, reference.targetShard, replica.node, fixed.error()); !left)
            return left.error();
    }
    return repaired;
}

Result<std::optional<std::uint64_t>> MigrationCopies::verifyReplica(
    MigrationContext& ctx, const SpaceCopyEnds& reference, const CopyReplica& replica)
{
    const MigrationRecord& m = ctx.migration.value;
    const std::string& shard = reference.targetShard;
    const std::string& space = reference.spaceOnTarget();
    if (auto status = m_nodes.ownOn(*replica.client, shard, space, SpaceRole::MigrationTarget, reference.epoch);
        !status)
        return status.error();
    std::string difference;
    for (int round = 0; round < kVerifyRounds; ++round) {
        auto held = m_nodes.statsOn(*reference.source, reference.sourceShard, reference.space);
        if (!held)
            return held.error();
        auto copy = m_nodes.statsOn(*replica.client, shard, space);
        if (!copy)
            return copy.error();
        if (sameContent(*held, *copy))
            return std::optional<std::uint64_t> {};
        difference = "source " + describeStats(*held) + ", copy on " + replica.node + " " + describeStats(*copy);
        std::this_thread::sleep_for(kVerifyPause);
    }
    SpaceCopyEnds ends = reference;
    ends.target = replica.client;
    auto repaired = repairReplica(ctx, ends, replica.node);
    if (!repaired)
        return repaired.error();
    log(LogLevel::Info,
        "migration " + m.id + ": verify copied " + std::to_string(*repaired) + " documents again to the copy of "
            + shard + " on node " + replica.node + " (" + difference + ")");
    return std::optional<std::uint64_t> { *repaired };
}

Result<std::uint64_t> MigrationCopies::repairReplica(
    MigrationContext& ctx, const SpaceCopyEnds& ends, const std::string& node)
{
    const MigrationRecord& m = ctx.migration.value;
    const RangeRepair repair { ends, [this] { return m_lease.check(); } };
    bool targetOnly = false;
    auto repaired = repair.run(targetOnly);
    if (repaired || !targetOnly)
        return repaired;
    // Rows the source never had (left by an earlier migration of the space that ended without
    // this copy): the copy's space is removed, fenced at the epoch as a cleanup does, and copied
    // again whole, as a catch-up does with an old primary's rows.
    const std::string& space = ends.spaceOnTarget();
    log(LogLevel::Warn,
        "migration " + m.id + ": " + repaired.error().message + "; removing " + space + " from the copy on node " + node
            + " to copy it again");
    if (auto dropped = m_nodes.removeCopyOn(*ends.target, ends.targetShard, space, ends.epoch,
            ctx.settings.cleanupRowsPerSecond, "migration.verify.before_copy_drop");
        !dropped)
        return dropped.error();
    if (auto status = m_nodes.ownOn(*ends.target, ends.targetShard, space, SpaceRole::MigrationTarget, ends.epoch);
        !status)
        return status.error();
    return repair.run(targetOnly);
}

std::string MigrationCopies::awaitSameContent(
    MigrationContext& ctx, std::chrono::steady_clock::time_point deadline, std::vector<std::string>& verified)
{
    if (inSync(ctx, ctx.migration.value.target).empty())
        return {};
    auto reference = migrationEnds(ctx);
    if (!reference)
        return reference.error().message;
    return awaitSameContent(ctx, *reference, deadline, verified);
}

std::string MigrationCopies::awaitSameContent(MigrationContext& ctx, const SpaceCopyEnds& reference,
    std::chrono::steady_clock::time_point deadline, std::vector<std::string>& verified)
{
    const std::string& shard = reference.targetShard;
    std::vector<CopyReplica> pending = inSync(ctx, shard);
    std::string difference;
    while (!pending.empty()) {
        auto held = m_nodes.statsOn(*reference.source, reference.sourceShard, reference.space);
        std::vector<CopyReplica> differing;
        for (const CopyReplica& replica : pending) {
            if (!held)
                break;
            auto copy = replica.client
                ? m_nodes.statsOn(*replica.client, shard, reference.spaceOnTarget())
                : Result<SpaceStats>(makeError(ErrorCode::Unavailable, "no address for node " + replica.node));
            if (copy && sameContent(*held, *copy)) {
                verified.push_back(replica.node);
                continue;
            }
            if (!copy) {
                // A copy that cannot be read leaves now (writes are held: nothing can reach it).
                if (auto left = leave(ctx, shard, replica.node, copy.error()); !left)
                    return left.error().message;
                continue;
            }
            difference = "source " + describeStats(*held) + ", copy on " + replica.node + " " + describeStats(*copy);
            differing.push_back(replica);
        }
        if (!held) {
            difference = held.error().message;
            differing = pending;
        }
        pending = std::move(differing);
        if (pending.empty())
            return {};
        if (std::chrono::steady_clock::now() >= deadline)
            return difference;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return {};
}

Status MigrationCopies::guardCutover(MigrationContext& ctx, const std::vector<std::string>& verified)
{
    const std::string& target = ctx.migration.value.target;
    auto read = readVersioned<ShardRecord>(m_store, keys::shard(target), &decodeShard);
    if (!read)
        return read.error();
    if (!*read)
        return makeError(ErrorCode::NotFound, "shard " + target + " was removed");
    const ShardRecord& now = (*read)->value;
    const auto known = ctx.shards.find(target);
    if (known == ctx.shards.end() || now.node != known->second.node)
        return makeError(ErrorCode::FailedPrecondition, "the primary of " + target + " moved during the cutover");
    for (const ShardCopy& copy : now.replicas) {
        if (copy.state == CopyState::InSync && std::find(verified.begin(), verified.end(), copy.node) == verified.end())
            return makeError(ErrorCode::FailedPrecondition,
                "the copy of " + target + " on node " + copy.node + " is in sync but was not compared");
    }
    // Only a copy catching up can become in sync (its catch-up's mark) between this read and the
    // commit; without one the record is left alone, so that cutovers onto one shard do not conflict.
    const bool catchingUp = std::any_of(now.replicas.begin(), now.replicas.end(),
        [](const ShardCopy& copy) { return copy.state == CopyState::CatchingUp; });
    if (catchingUp)
        ctx.alsoCommit.push_back({ keys::shard(target), encode(now), (*read)->modRevision });
    return {};
}

namespace {

bool copyNodeUnreachable(const Error& error)
{
    return error.code == ErrorCode::Unavailable || error.code == ErrorCode::DeadlineExceeded;
}

} // namespace

Result<std::uint64_t> MigrationCopies::drop(
    const MigrationContext& ctx, const std::string& shard, std::uint64_t epoch, const char* failpointName)
{
    const auto found = ctx.shards.find(shard);
    if (found == ctx.shards.end())
        return std::uint64_t { 0 };
    const std::string& space = ctx.migration.value.space;
    std::uint64_t total = 0;
    for (const ShardCopy& copy : found->second.replicas) {
        // A lost copy's rows went with its node (it rejoins, if ever, as a new copy).
        if (copy.state == CopyState::Lost)
            continue;
        const auto node = ctx.nodes.find(copy.node);
        auto client = node == ctx.nodes.end()
            ? Result<std::shared_ptr<NodeClient>>(makeError(ErrorCode::NotFound, "node not in the map"))
            : m_nodes.pool().get(node->second.address);
        auto dropped = client
            ? m_nodes.removeCopyOn(**client, shard, space, epoch, ctx.settings.cleanupRowsPerSecond, failpointName)
            : Result<std::uint64_t>(client.error());
        if (!dropped && copy.state == CopyState::CatchingUp && copyNodeUnreachable(dropped.error())) {
            // A copy catching up is not one the space's reads or cutover depend on, and its node
            // may be gone for good (a failed-over primary): waiting for it would hold the
            // migration's cancel or cleanup for as long. Its rows of the space stay there, under
            // a role no router writes or searches, until it is caught up or dropped.
            log(LogLevel::Warn,
                "the copy of " + shard + " on node " + copy.node + " is catching up and does not answer; " + space
                    + "'s rows stay on it: " + dropped.error().message);
            continue;
        }
        if (!dropped)
            return makeError(dropped.error().code,
                "the copy of " + shard + " on node " + copy.node + " still holds " + space + ": "
                    + dropped.error().message);
        total += *dropped;
    }
    return total;
}

} // namespace shardmap::core
