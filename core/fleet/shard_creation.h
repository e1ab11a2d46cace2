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
//   auto made = creation.onNode(map, shard);
//   if (!made)
//       return creation.takeBack(made.error(), store);
//   return creation.inMap(store, [&] { return editor.addShard(*made, actor); });

#include "core/client/node_client.h"
#include "core/map/shard_map.h"
#include "core/store/metadata_store.h"
#include "core/util/index_settings.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shardmap::core {

// A shard to make: its id, its node's id, the fields it is searchable by (empty: the node's
// default: title, body, tags), its capacity (0: none), its index engine (none: the fleet's
// MigrationSettings::defaultEngine) and the index settings of the template it is built with (issue
// 31; none: today's index over `fields`), whose name and version its record keeps ("" and 0: the
// default template).
struct NewShard {
    NewShard() = default;
    NewShard(std::string shardId, std::string nodeId, std::vector<std::string> searchable = {}, std::uint64_t docs = 0,
        std::uint64_t bytes = 0, std::optional<IndexEngine> indexEngine = std::nullopt)
        : id(std::move(shardId))
        , node(std::move(nodeId))
        , fields(std::move(searchable))
        , capacityDocs(docs)
        , capacityBytes(bytes)
        , engine(indexEngine)
    {
    }

    std::string id;
    std::string node;
    std::vector<std::string> fields;
    std::uint64_t capacityDocs = 0;
    std::uint64_t capacityBytes = 0;
    std::optional<IndexEngine> engine;
    std::optional<IndexSettings> index = std::nullopt;
    std::string templateName = {};
    std::uint32_t templateVersion = 0;
};

// The engine a new shard is made with: its own, else the one the map's settings name.
IndexEngine engineOf(const NewShard& shard, const MapSnapshot& map);
// NewShard::engine from a creator's text (shardmapctl --engine, the Admin API's CreateShard.engine):
// empty names none, any other name is parseIndexEngine's.
Result<std::optional<IndexEngine>> parseNewShardEngine(std::string_view name);

// The map's record of a new shard: active, on its node, with its capacity, engine and template.
ShardRecord newShardRecord(const NewShard& shard, IndexEngine engine);

class ShardCreation {
public:
    explicit ShardCreation(NodeClientPool& nodes);

    // The node step: creates the shard on the node the map names, with engineOf(shard, map)
    // (NotFound when the map has no such node, AlreadyExists when it lists the shard already), and
    // returns the record the map is to list it with, with the engine the node answers with. A
    // shard the node already has is taken as created, with the engine the node reports for it,
    // and is not this creation's to take back; unless the shard names index settings and the
    // node's shard has others (FailedPrecondition, with both). A node that makes the shard with
    // other settings than asked (one older than index settings) is refused the same way, and the
    // shard is taken back.
    Result<ShardRecord> onNode(const MapSnapshot& map, const NewShard& shard);

    // The node step of a replica (FleetAdmin::addReplica): the shard the map lists, made on another
    // node with the same id and engine and the given fields and index settings (none: today's index
    // over the fields). A shard that node already has is taken as created and is not this
    // creation's to take back.
    Status copyOnNode(const MapSnapshot& map, const ShardRecord& shard, const std::string& nodeId,
        const std::vector<std::string>& fields, const std::optional<IndexSettings>& settings = std::nullopt);

    // The replicas a new shard of an operation is made with (issue 30), up to the replication factor
    // the map's settings give it, added to shard.replicas: made empty, each is in sync at once. They
    // go on the nodes of the copies of the shard its spaces come from (`from`: a split's subject, an
    // isolate's home), its primary's first, then its in-sync replicas', so their load lands where
    // that shard's was; each is checked by the placement rule (core/map/copy_placement.h). Fewer such
    // nodes leave the shard under-replicated, as `shard create` leaves one.
    Status copiesLike(const MapSnapshot& map, ShardRecord& shard, const std::string& from,
        const std::vector<std::string>& fields, const std::string& why,
        const std::optional<IndexSettings>& settings = std::nullopt);

    // The map step: the caller's commit that lists the shards (a shard added alone, or an operation
    // with its new shards). When it fails, what onNode made is taken back (takeBack).
    template <typename Commit> auto inMap(MetadataStore& store, Commit commit) -> decltype(commit())
    {
        auto committed = commit();
        if (!committed)
            return takeBack(committed.error(), store);
        return committed;
    }

    // Drops each shard onNode or copyOnNode made from its node, unless the map lists it there (as
    // primary or replica) after all (a commit
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
