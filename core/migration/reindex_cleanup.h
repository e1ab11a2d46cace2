#pragma once

// Dropping the old shards of a finished reindex (issue 31).

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
// map ("remove-shard", fenced with the executor's lease). A node that does not answer leaves the
// shard for a later round, as does a lost lease. Called by the executor's scheduler while it leads.
class ReindexCleanup {
public:
    ReindexCleanup(
        MetadataStore& store, NodeClientPool& nodes, MapEditor::FenceSource fence, std::string actor, LogSink log);

    void round();

private:
    Status dropShard(const ShardRecord& shard, std::uint64_t modRevision, const MapSnapshot& map);

    MetadataStore& m_store;
    NodeClientPool& m_nodes;
    MapEditor::FenceSource m_fence;
    std::string m_actor;
    LogSink m_log;
};

} // namespace shardmap::core
