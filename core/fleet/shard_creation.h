#pragma once

// The one way a shard is made (docs/SHARD_MAP.md, "shard create"): on its node first, then in the
// map, because a map entry for a shard that does not exist would be allocated to and written to;
// and when a later step fails, each shard this creation made on a node is dropped there again, so
// that a refused create leaves no half-made shard. FleetAdmin::createShard (shardmapctl, the Admin
// API, the console, the demo fleet) and the operations that create shards (split, isolate, a plan's
// new shards) make theirs through it:
//
//   const NewShard shard { "s7", "n2" };
//   ShardCreation creation(nodes);
//   if (auto status = creation.onNode(map, shard); !status)
//       return creation.takeBack(status.error(), store);
//   return creation.inMap(store, [&] { return editor.addShard(newShardRecord(shard), actor); });

#include "core/client/node_client.h"
#include "core/map/shard_map.h"
#include "core/store/metadata_store.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace shardmap::core {

// A shard to make: its id, its node's id, the fields it is searchable by (empty: the node's
// default, ShardStoreOptions::fields: title, body, tags) and its capacity (0: none).
struct NewShard {
    NewShard() = default;
    NewShard(std::string shardId, std::string nodeId, std::vector<std::string> searchable = {}, std::uint64_t docs = 0,
        std::uint64_t bytes = 0)
        : id(std::move(shardId))
        , node(std::move(nodeId))
        , fields(std::move(searchable))
        , capacityDocs(docs)
        , capacityBytes(bytes)
    {
    }

    std::string id;
    std::string node;
    std::vector<std::string> fields;
    std::uint64_t capacityDocs = 0;
    std::uint64_t capacityBytes = 0;
};

// The map's record of a new shard: active, on its node, with its capacity.
ShardRecord newShardRecord(const NewShard& shard);

class ShardCreation {
public:
    explicit ShardCreation(NodeClientPool& nodes);

    // The node step: creates the shard on the node the map names (NotFound when the map has no such
    // node, AlreadyExists when it lists the shard already). A shard the node already has is taken as
    // created, and is not this creation's to take back.
    Status onNode(const MapSnapshot& map, const NewShard& shard);

    // The map step: the caller's commit that lists the shards (a shard added alone, or an operation
    // with its new shards). When it fails, what onNode made is taken back (takeBack).
    template <typename Commit> auto inMap(MetadataStore& store, Commit commit) -> decltype(commit())
    {
        auto committed = commit();
        if (!committed)
            return takeBack(committed.error(), store);
        return committed;
    }

    // Drops each shard onNode made from its node, unless the map lists it there after all (a commit
    // whose answer was lost, or another administrator's create of the same shard on the same node).
    // Nothing routes to a shard the map does not list, so it is still empty and goes without force.
    // Returns refused; when a shard cannot be dropped, refused says that it remains and how to remove
    // it (Error::details "shard_left_on_node").
    Error takeBack(Error refused, MetadataStore& store);

private:
    struct Made {
        NewShard shard;
        std::shared_ptr<NodeClient> node;
    };

    NodeClientPool& m_nodes;
    std::vector<Made> m_made;
};

} // namespace shardmap::core
