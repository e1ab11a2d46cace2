// MigrationNodes' implementation: a shard's client found through the map's node record, node
// errors worded with the shard, the space and the epoch they were about.
#include "core/migration/migration_nodes.h"

#include "core/util/failpoint.h"

namespace shardmap::core {

namespace {

// Rows one DropSpace call deletes at most (a bounded call: a deadline, the lease rechecked between).
constexpr std::uint64_t kDropRowsPerCall = 50000;

} // namespace

MigrationNodes::MigrationNodes(NodeClientPool& pool, LeaseGuard lease)
    : m_pool(pool)
    , m_lease(std::move(lease))
{
}

Result<SpaceCopyEnds> MigrationNodes::copyEnds(const MigrationContext& ctx)
{
    const MigrationRecord& m = ctx.migration.value;
    auto source = clientFor(ctx, m.source);
    if (!source)
        return source.error();
    auto target = clientFor(ctx, m.target);
    if (!target)
        return target.error();
    return SpaceCopyEnds { *source, m.source, *target, m.target, m.space, ctx.space->value.epoch,
        ctx.settings.backfillBatch };
}

Result<std::uint64_t> MigrationNodes::removeCopy(
    const MigrationContext& ctx, const std::string& shard, const char* failpointName)
{
    auto client = clientFor(ctx, shard);
    if (!client)
        return client.error();
    return removeCopyOn(**client, shard, ctx.migration.value.space, ctx.space->value.epoch,
        ctx.settings.cleanupRowsPerSecond, failpointName);
}

Result<std::uint64_t> MigrationNodes::removeCopyOn(NodeClient& client, const std::string& shard,
    const std::string& space, std::uint64_t epoch, std::uint32_t rowsPerSecond, const char* failpointName)
{
    // Fenced at the current epoch before deleting: a router that still writes there with an old
    // epoch can no longer put documents back.
    if (auto status = ownOn(client, shard, space, SpaceRole::Fenced, epoch); !status)
        return status.error();
    if (auto status = failpoint(failpointName); !status)
        return status.error();
    // In bounded calls, each with a deadline, the lease checked before each: a replica that lost
    // the lease stops deleting, and the node deletes only while the space is fenced at this epoch.
    std::uint64_t total = 0;
    for (;;) {
        if (auto status = m_lease.check(); !status)
            return status.error();
        auto dropped = client.dropSpace(shard, space, epoch, rowsPerSecond, kDropRowsPerCall);
        if (!dropped)
            return makeError(dropped.error().code,
                "removing the copy of " + space + " from " + shard + ": " + dropped.error().message);
        total += dropped->deleted;
        if (dropped->done)
            return total;
    }
}

Result<std::shared_ptr<NodeClient>> MigrationNodes::clientFor(const MigrationContext& ctx, const std::string& shard)
{
    const auto found = ctx.shards.find(shard);
    if (found == ctx.shards.end())
        return makeError(ErrorCode::NotFound, "shard " + shard + " is not in the shard map");
    const auto node = ctx.nodes.find(found->second.node);
    if (node == ctx.nodes.end())
        return makeError(
            ErrorCode::NotFound, "node " + found->second.node + " of shard " + shard + " is not in the map");
    return m_pool.get(node->second.address);
}

Result<std::shared_ptr<NodeClient>> MigrationNodes::copyClient(const MigrationContext& ctx)
{
    const std::string& nodeId = ctx.migration.value.copyNode;
    const auto node = ctx.nodes.find(nodeId);
    if (node == ctx.nodes.end())
        return makeError(ErrorCode::NotFound,
            "node " + nodeId + " of the copy of shard " + ctx.migration.value.source + " is not in the map");
    return m_pool.get(node->second.address);
}

Status MigrationNodes::own(const MigrationContext& ctx, const std::string& shard, SpaceRole role, std::uint64_t epoch)
{
    if (auto status = m_lease.check(); !status)
        return status;
    auto client = clientFor(ctx, shard);
    if (!client)
        return client.error();
    return ownOn(**client, shard, ctx.migration.value.space, role, epoch);
}

Status MigrationNodes::ownOn(
    NodeClient& client, const std::string& shard, const std::string& space, SpaceRole role, std::uint64_t epoch)
{
    if (auto status = m_lease.check(); !status)
        return status;
    auto owned = client.setOwnership(shard, { space, role, epoch });
    if (!owned)
        return makeError(owned.error().code,
            "cannot make shard " + shard + " " + spaceRoleName(role) + " of " + space + " at epoch "
                + std::to_string(epoch) + ": " + owned.error().message);
    return {};
}

Result<SpaceStats> MigrationNodes::statsOf(const MigrationContext& ctx, const std::string& shard)
{
    auto client = clientFor(ctx, shard);
    if (!client)
        return client.error();
    return statsOn(**client, shard, ctx.migration.value.space);
}

Result<SpaceStats> MigrationNodes::statsOn(NodeClient& client, const std::string& shard, const std::string& space)
{
    auto stats = client.spaceStats(shard, { space });
    if (!stats)
        return makeError(
            stats.error().code, "cannot read the space's aggregates on " + shard + ": " + stats.error().message);
    for (const auto& entry : *stats) {
        if (entry.space != space)
            continue;
        // A node from before content checksums cannot be compared with a current one.
        if (entry.checksumKind != kChecksumKind)
            return makeError(ErrorCode::FailedPrecondition,
                "the node of shard " + shard + " sums the space's checksum the old way (kind "
                    + std::to_string(entry.checksumKind) + "); upgrade shardmap-node there to migrate the space");
        return entry;
    }
    return SpaceStats { space, 0, 0, 0, 0, kChecksumKind };
}

} // namespace shardmap::core
