#pragma once

// The calls a migration's steps make to its shards' nodes: ownership and epochs, the space's
// aggregates, the ends of a copy, and removing a copy.

#include "core/client/node_client.h"
#include "core/migration/migration_records.h"
#include "core/migration/space_copy.h"
#include "core/util/result.h"

#include <cstdint>
#include <memory>
#include <string>

namespace shardmap::core {

// A migration's shards are found on their nodes through the context's map records (shards and
// nodes as the step read them); calls that change a node's state are made only while the lease
// check passes, so a former leader that wakes up late does nothing.
class MigrationNodes {
public:
    MigrationNodes(NodeClientPool& pool, LeaseGuard lease);

    NodeClientPool& pool() { return m_pool; }
    Result<std::shared_ptr<NodeClient>> clientFor(const MigrationContext& ctx, const std::string& shard);
    // Gives shard the role for the migration's space at epoch.
    Status own(const MigrationContext& ctx, const std::string& shard, SpaceRole role, std::uint64_t epoch);
    // The space's aggregates on shard (none there: zeros); refused from a node that sums its
    // checksum the old way.
    Result<SpaceStats> statsOf(const MigrationContext& ctx, const std::string& shard);
    // The migration's source and target as the ends of a copy at the space's epoch.
    Result<SpaceCopyEnds> copyEnds(const MigrationContext& ctx);
    // A catch-up's copy: the client of its node (the record's copyNode), which holds the same
    // shard id as the primary.
    Result<std::shared_ptr<NodeClient>> copyClient(const MigrationContext& ctx);
    // own() and statsOf() on a given node's copy of shard, for a space (a catch-up walks several).
    Status ownOn(
        NodeClient& client, const std::string& shard, const std::string& space, SpaceRole role, std::uint64_t epoch);
    Result<SpaceStats> statsOn(NodeClient& client, const std::string& shard, const std::string& space);
    // Fences the space on the shard at the current epoch and deletes its rows there; the rows
    // deleted.
    Result<std::uint64_t> removeCopy(const MigrationContext& ctx, const std::string& shard, const char* failpointName);
    // The same for a space on a given node's copy of shard (a catch-up's copy).
    Result<std::uint64_t> removeCopyOn(NodeClient& client, const std::string& shard, const std::string& space,
        std::uint64_t epoch, std::uint32_t rowsPerSecond, const char* failpointName);

private:
    NodeClientPool& m_pool;
    LeaseGuard m_lease;
};

} // namespace shardmap::core
