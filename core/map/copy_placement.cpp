// The placement rule of a shard's copies: nodes that may hold one, the room the fleet has for a
// replication factor, and the fleet's quorum.
#include "core/map/copy_placement.h"

#include <set>
#include <vector>

namespace shardmap::core {

namespace {

Error placementRefused(const std::string& message)
{
    return makeError(ErrorCode::FailedPrecondition, message);
}

bool holdsCopies(const NodeRecord& node)
{
    return !node.retired && !node.lost;
}

// The nodes of the shard's copies that still serve or will (the primary, replicas not lost).
std::vector<std::string> liveCopyNodes(const ShardRecord& shard)
{
    std::vector<std::string> nodes { shard.node };
    for (const ShardCopy& copy : shard.replicas) {
        if (copy.state != CopyState::Lost)
            nodes.push_back(copy.node);
    }
    return nodes;
}

std::string copies(std::size_t n)
{
    return std::to_string(n) + (n == 1 ? " copy" : " copies");
}

} // namespace

Status validateZone(std::string_view zone)
{
    if (zone.size() > kMaxZoneLength)
        return makeError(ErrorCode::InvalidArgument,
            "zone is " + std::to_string(zone.size()) + " bytes; at most " + std::to_string(kMaxZoneLength));
    for (const char c : zone) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            return makeError(ErrorCode::InvalidArgument, "zone contains a control character");
    }
    return {};
}

std::set<std::string> nodesBeingRetired(const MapSnapshot& map)
{
    std::set<std::string> nodes;
    for (const auto& [id, op] : map.operations) {
        const bool open = op.value.state == OperationState::Queuing || op.value.state == OperationState::Running;
        if (op.value.kind == OperationKind::RetireNode && open)
            nodes.insert(op.value.subject);
    }
    return nodes;
}

std::vector<const ShardRecord*> replicasToMoveOff(const MapSnapshot& map, const std::string& nodeId)
{
    std::vector<const ShardRecord*> shards;
    for (const ShardRecord* shard : map.copiesOn(nodeId)) {
        if (shard->state != ShardState::Retired)
            shards.push_back(shard);
    }
    return shards;
}

Status checkCopyPlacement(const MapSnapshot& map, const ShardRecord& shard, const std::string& nodeId)
{
    const NodeRecord* node = map.node(nodeId);
    if (!node)
        return makeError(ErrorCode::NotFound, "no node " + nodeId + " in the shard map");
    if (shard.node == nodeId)
        return placementRefused(
            "node " + nodeId + " is shard " + shard.id + "'s primary; a replica must be on another node");
    if (shard.replicaOn(nodeId))
        return placementRefused("node " + nodeId + " already holds a copy of shard " + shard.id);
    if (node->retired)
        return placementRefused("node " + nodeId + " is retired; nothing is placed on it");
    if (node->lost)
        return placementRefused("node " + nodeId + " is lost; nothing is placed on it");
    if (nodesBeingRetired(map).contains(nodeId))
        return placementRefused("node " + nodeId + " is being retired; nothing new is placed on it");
    if (shard.state == ShardState::Retired)
        return placementRefused("shard " + shard.id + " is retired; it gets no new copies");
    if (node->zone.empty() || shard.allowSameZone)
        return {};
    for (const std::string& other : liveCopyNodes(shard)) {
        const NodeRecord* holder = map.node(other);
        if (holder && holder->zone == node->zone)
            return placementRefused("node " + nodeId + " is in zone " + node->zone + ", as shard " + shard.id
                + "'s copy on " + other
                + " is; copies of a shard go to different zones unless the shard allows the same zone");
    }
    return {};
}

std::size_t copyRoom(const MapSnapshot& map, bool allowSameZone)
{
    std::size_t unzoned = 0;
    std::set<std::string> zones;
    std::size_t nodes = 0;
    for (const auto& [id, node] : map.nodes) {
        if (!holdsCopies(node.value))
            continue;
        ++nodes;
        if (node.value.zone.empty())
            ++unzoned;
        else
            zones.insert(node.value.zone);
    }
    return allowSameZone ? nodes : zones.size() + unzoned;
}

namespace {

Status checkFactorRoom(const MapSnapshot& map, std::uint32_t factor, bool allowSameZone, const std::string& whose)
{
    if (factor < 1)
        return makeError(ErrorCode::InvalidArgument, whose + " must be at least 1 (the primary alone)");
    const std::size_t room = copyRoom(map, allowSameZone);
    if (factor <= room)
        return {};
    const std::size_t nodes = copyRoom(map, true);
    if (room == nodes)
        return placementRefused(whose + " of " + std::to_string(factor) + " needs " + copies(factor)
            + " on different nodes; " + "the fleet has " + std::to_string(nodes)
            + " node(s) that can hold one (neither retired nor lost)");
    return placementRefused(whose + " of " + std::to_string(factor) + " needs " + copies(factor)
        + " in different zones; the " + std::to_string(nodes) + " node(s) that can hold one are in "
        + std::to_string(room) + " zone(s) (a node without a zone counts as its own)");
}

} // namespace

Status checkShardReplicationFactor(const MapSnapshot& map, const ShardRecord& shard, std::uint32_t factor)
{
    const std::uint32_t wanted = factor != 0 ? factor : map.settings.value.replicationFactor;
    return checkFactorRoom(map, wanted, shard.allowSameZone,
        "shard " + shard.id + "'s replication factor" + (factor == 0 ? " (the fleet's)" : ""));
}

Status checkFleetReplication(const MapSnapshot& map, std::uint32_t factor, WriteQuorum quorum)
{
    if (quorum == WriteQuorum::Majority && factor < 3)
        return makeError(ErrorCode::InvalidArgument,
            "write quorum majority needs a replication factor of 3 or more (the factor is " + std::to_string(factor)
                + "): a majority of 2 copies is both of them, and of 1 it is the primary alone");
    return checkFactorRoom(map, factor, false, "the fleet's replication factor");
}

} // namespace shardmap::core
