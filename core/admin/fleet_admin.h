#pragma once

// Every change an administrator makes to a fleet, in one place that the console and shardmapctl
// both call, so that a rule (a shard is created on its node before the map lists it, a reassigned
// space's nodes are told its new epoch, every migration request's checks) lives once:
//
//   core::FleetAdmin admin(store, nodes);
//   admin.createShard({ "s7", "n2" }, actor);
//   admin.migrations().queue("acme", "s7", actor);
//
// It holds no state of its own: the store and the node client pool are the caller's (the
// console's connection owns one pool for all its pages).

#include "core/client/node_client.h"
#include "core/fleet/shard_creation.h"
#include "core/map/map_editor.h"
#include "core/migration/migration_requests.h"
#include "core/store/metadata_store.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shardmap::core {

class FleetAdmin {
public:
    // fence: the copies' commits are fenced with it (MapEditor::FenceSource; the executor's
    // failover watch). None for an administrator.
    FleetAdmin(MetadataStore& store, NodeClientPool& nodes, MapEditor::FenceSource fence = {});

    using ShardSpec = NewShard;
    // Creates the shard the one way (core/fleet/shard_creation.h): on its node, then in the map;
    // a shard the node already has is taken as created. Returns the map's revision. When the
    // store refuses the map entry, the shard this call created on the node is dropped again; if it
    // cannot be, the store's error says that it remains there and how to remove it.
    Result<std::uint64_t> createShard(const ShardSpec& shard, const Actor& actor);

    struct Reassigned {
        SpaceRecord space;
        // Nodes that could not be told (the map changed anyway; they learn it from the epoch).
        std::vector<std::string> warnings;
    };
    // Hands a space's ownership to another shard by hand (epoch + 1, documents are not moved),
    // then tells both nodes, newest epoch first: the new owner accepts, the old one is fenced.
    Result<Reassigned> reassignSpace(const std::string& space, const std::string& shard, const Actor& actor);

    // A shard's copies (issue 30; fleet_admin_copies.cpp). Each checks the placement rule
    // (core/map/copy_placement.h) and commits through MapEditor; the node steps around the commit
    // are here. warnings: nodes that could not be told or cleaned up (the map changed anyway).
    struct CopiesChanged {
        MapEditor::CopyChange change;
        std::vector<std::string> warnings;
    };
    // Creates the shard on the node with the same id, engine and fields (read from an in-sync copy)
    // through ShardCreation, then lists the copy (MapEditor::addReplica). When the commit fails,
    // the shard this call created on the node is dropped again, as createShard does.
    Result<CopiesChanged> addReplica(const std::string& shard, const std::string& node, const Actor& actor);
    // Takes the copy off the map (MapEditor::removeReplica), then drops it on its node with its
    // documents (best effort: a node that cannot drop it is a warning).
    Result<CopiesChanged> removeReplica(const std::string& shard, const std::string& node, const Actor& actor);
    // Promotes an in-sync replica (MapEditor::promote), then tells each copy's node the spaces' new
    // epochs, the new primary first: the old primary refuses writes at the old epoch from then on.
    Result<CopiesChanged> promote(const std::string& shard, const std::string& node, const Actor& actor);
    struct NodeLost {
        MapEditor::NodeLoss loss;
        std::vector<std::string> warnings;
    };
    // Marks a node lost (MapEditor::loseNode) and tells the promoted primaries' copies their new
    // epochs (the lost node is not asked).
    Result<NodeLost> loseNode(const std::string& node, const Actor& actor);
    // The executor's settings (MigrationRequests::setSettings), with the fleet's replication factor
    // and write quorum checked by checkFleetReplication when either changes.
    Result<std::uint64_t> setSettings(const MigrationSettings& settings, const Actor& actor);
    // Tells every copy of the shard on a node not lost the spaces' epochs, its primary first: after
    // a promotion (change as committed), and to a node back after being unreachable, which then
    // refuses writes at an older epoch.
    void tellEpochs(const MapSnapshot& map, const MapEditor::CopyChange& change, std::vector<std::string>& warnings);

    // The map's own changes (nodes, shard states, pins) and every migration request.
    MapEditor& map() { return m_editor; }
    MigrationRequests& migrations() { return m_migrations; }
    MetadataStore& store() { return m_store; }
    NodeClientPool& nodes() { return m_nodes; }

private:
    MetadataStore& m_store;
    NodeClientPool& m_nodes;
    MapEditor m_editor;
    MigrationRequests m_migrations;
};

} // namespace shardmap::core
