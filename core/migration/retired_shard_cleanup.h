#pragma once

// Dropping what retired shards leave: a finished reindex's old shards, and the copies of any other
// retired shard.

#include "core/client/node_client.h"
#include "core/map/map_editor.h"
#include "core/store/metadata_store.h"
#include "core/util/log.h"

#include <string>

namespace shardmap::core {

// A reindex operation ends done once every migration it queued is done, which is after each
// space's rollback window and cleanup; the finisher then retires its emptied source shards. One
// round of this drops each such shard (retired, no space on it or moving to it) on its node and on
// the nodes of its copies (a shard a node no longer has counts as dropped) and takes it off the
// map ("remove-shard", fenced with the executor's lease). Any other retired shard (a merge's
// emptied one, a retired node's) stays in the map as the record of what it was, but its replicas
// are dropped on their nodes and taken off its record ("drop-retired-replicas"): they hold disk
// and count as copies for nothing. A node that does not answer leaves the shard for a later round,
// as does a lost lease. Called by the executor's scheduler while it leads.
class RetiredShardCleanup {
public:
    RetiredShardCleanup(
        MetadataStore& store, NodeClientPool& nodes, MapEditor::FenceSource fence, std::string actor, LogSink log);

    void round();

private:
    // whole: every copy and the record; else the replicas and their places in the record.
    Status dropCopies(const ShardRecord& shard, std::uint64_t modRevision, const MapSnapshot& map, bool whole);
    // Drops the shard on these nodes (one that no longer has it, or is lost, counts as done).
    Status dropOn(const std::string& shardId, const std::vector<std::string>& nodes, const MapSnapshot& map);

    MetadataStore& m_store;
    NodeClientPool& m_nodes;
    MapEditor::FenceSource m_fence;
    std::string m_actor;
    LogSink m_log;
};

} // namespace shardmap::core
