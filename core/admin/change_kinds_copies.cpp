#include "core/admin/change_kind_steps.h"

// The change kinds of a shard's copies (issue 30): change-replica (add, remove, promote),
// lose-node, set-node-zone and set-replication, each checked by core/map/copy_placement's rules
// through FleetAdmin.

#include "core/admin/admin_limits.h"
#include "core/map/copy_placement.h"
#include "core/util/validation.h"

#include <iterator>

namespace shardmap::core {

namespace {

using namespace change_steps;
using ChangeOneof = v1::AdminChange;

const char* replicaActionName(v1::ChangeReplica::Action action)
{
    switch (action) {
    case v1::ChangeReplica::ADD: return "add-replica";
    case v1::ChangeReplica::REMOVE: return "remove-replica";
    case v1::ChangeReplica::PROMOTE: return "promote";
    default: return "change-replica";
    }
}

std::string replicaName(const v1::AdminChange& change)
{
    return replicaActionName(change.change_replica().action());
}

Status checkReplicaText(const v1::AdminChange& change)
{
    const auto& replica = change.change_replica();
    return checkTextBounds("change.change_replica.",
        { { "shard", replica.shard(), kMaxShardIdLength }, { "node", replica.node(), kMaxShardIdLength } });
}

std::string replicaSummary(const v1::AdminChange& change)
{
    const auto& replica = change.change_replica();
    switch (replica.action()) {
    case v1::ChangeReplica::ADD: return "add a replica of shard " + replica.shard() + " on " + replica.node();
    case v1::ChangeReplica::REMOVE: return "remove shard " + replica.shard() + "'s replica on " + replica.node();
    case v1::ChangeReplica::PROMOTE: return "promote shard " + replica.shard() + "'s replica on " + replica.node();
    default: return "change shard " + replica.shard() + "'s copy on " + replica.node();
    }
}

Result<v1::ChangeResponse> copiesResponse(MetadataStore& store, const Result<FleetAdmin::CopiesChanged>& changed)
{
    if (!changed)
        return changed.error();
    v1::ChangeResponse response = recordResponse(store, "shard", encode(changed->change.shard));
    for (const std::string& warning : changed->warnings)
        response.add_warnings(warning);
    return response;
}

Result<v1::ChangeResponse> applyReplica(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor)
{
    const auto& replica = change.change_replica();
    switch (replica.action()) {
    case v1::ChangeReplica::ADD:
        return copiesResponse(admin.store(), admin.addReplica(replica.shard(), replica.node(), actor));
    case v1::ChangeReplica::REMOVE:
        return copiesResponse(admin.store(), admin.removeReplica(replica.shard(), replica.node(), actor));
    case v1::ChangeReplica::PROMOTE:
        return copiesResponse(admin.store(), admin.promote(replica.shard(), replica.node(), actor));
    default: return malformedChange("change.change_replica.action must be add, remove or promote");
    }
}

Status checkLoseNodeText(const v1::AdminChange& change)
{
    return checkTextBounds("change.lose_node.", { { "node", change.lose_node().node(), kMaxShardIdLength } });
}

std::string loseNodeSummary(const v1::AdminChange& change)
{
    return "mark node " + change.lose_node().node() + " lost (its copies lost, its primaries failed over)";
}

Result<v1::ChangeResponse> applyLoseNode(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor)
{
    auto lost = admin.loseNode(change.lose_node().node(), actor);
    if (!lost)
        return lost.error();
    v1::ChangeResponse response;
    response.set_revision(lost->loss.revision);
    response.set_record_kind("node");
    if (auto map = admin.map().snapshot(); map && map->node(change.lose_node().node()))
        response.set_record_json(encode(*map->node(change.lose_node().node())));
    for (const std::string& warning : lost->warnings)
        response.add_warnings(warning);
    for (const std::string& shard : lost->loss.withoutCopy)
        response.add_warnings("shard " + shard + " has no in-sync copy left; it keeps its primary on the lost node");
    return response;
}

Status checkNodeZoneText(const v1::AdminChange& change)
{
    const auto& zone = change.set_node_zone();
    return checkTextBounds("change.set_node_zone.",
        { { "node", zone.node(), kMaxShardIdLength }, { "zone", zone.zone(), kMaxZoneLength } });
}

std::string nodeZoneSummary(const v1::AdminChange& change)
{
    const auto& zone = change.set_node_zone();
    return zone.zone().empty() ? "clear node " + zone.node() + "'s zone"
                               : "put node " + zone.node() + " in zone " + zone.zone();
}

Result<v1::ChangeResponse> applyNodeZone(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor)
{
    const auto& zone = change.set_node_zone();
    return revisionResponse(admin.map().setNodeZone(zone.node(), zone.zone(), actor), "node");
}

Status checkReplicationText(const v1::AdminChange& change)
{
    return checkTextBounds(
        "change.set_replication.", { { "shard", change.set_replication().shard(), kMaxShardIdLength } });
}

std::string replicationSummary(const v1::AdminChange& change)
{
    const auto& replication = change.set_replication();
    std::string out = "set shard " + replication.shard() + "'s replication factor to "
        + (replication.factor() == 0 ? std::string("the fleet's") : std::to_string(replication.factor()));
    if (replication.has_allow_same_zone())
        out += replication.allow_same_zone() ? ", copies may share a zone" : ", copies in different zones";
    return out;
}

Result<v1::ChangeResponse> applyReplication(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor)
{
    const auto& replication = change.set_replication();
    return revisionResponse(
        admin.map().setReplication(replication.shard(), replication.factor(),
            replication.has_allow_same_zone() ? std::optional(replication.allow_same_zone()) : std::nullopt, actor),
        "shard");
}

// set-access-policy: the Admin API's roles, limits and thresholds.

const ChangeKind kCopyChangeKinds[] = {
    { .oneof = ChangeOneof::kChangeReplica,
        .nameOf = replicaName,
        .checkText = checkReplicaText,
        .summary = replicaSummary,
        .role = adminRole,
        .apply = applyReplica },
    { .oneof = ChangeOneof::kLoseNode,
        .name = "lose-node",
        .checkText = checkLoseNodeText,
        .summary = loseNodeSummary,
        .role = adminRole,
        .apply = applyLoseNode },
    { .oneof = ChangeOneof::kSetNodeZone,
        .name = "set-node-zone",
        .checkText = checkNodeZoneText,
        .summary = nodeZoneSummary,
        .role = adminRole,
        .apply = applyNodeZone },
    { .oneof = ChangeOneof::kSetReplication,
        .name = "set-replication",
        .checkText = checkReplicationText,
        .summary = replicationSummary,
        .role = adminRole,
        .apply = applyReplication },
};

} // namespace

std::span<const ChangeKind> copyChangeKinds()
{
    return { std::begin(kCopyChangeKinds), std::end(kCopyChangeKinds) };
}

} // namespace shardmap::core
