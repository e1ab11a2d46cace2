// shardmapctl's commands of a shard's copies (issue 30): shard replicas add|remove|list, shard
// promote, shard set-replication-factor, node lose and node set-zone, each through FleetAdmin
// (or, with --controller, the Admin API), with --json.
#include "app/ctl/admin.h"
#include "app/ctl/command_line.h"
#include "app/ctl/output.h"
#include "core/fleet/health.h"

#include <CLI/CLI.hpp>
#include <ostream>

namespace shardmap::app {

using core::ErrorCode;
using nlohmann::json;

namespace {

json copyJson(const core::ShardCopy& copy)
{
    return { { "node", copy.node }, { "state", core::copyStateName(copy.state) }, { "docs_done", copy.docsDone },
        { "docs_total", copy.docsTotal }, { "since_unix_ms", copy.sinceUnixMs }, { "reason", copy.reason } };
}

json shardCopiesJson(const core::MapSnapshot& map, const core::ShardRecord& shard)
{
    json replicas = json::array();
    for (const core::ShardCopy& copy : shard.replicas)
        replicas.push_back(copyJson(copy));
    const core::ShardCopiesHealth health = core::evaluateCopies(map, shard);
    return { { "shard", shard.id }, { "primary", shard.node }, { "replicas", replicas },
        { "replication_factor", health.wanted }, { "own_factor", shard.replicationFactor },
        { "allow_same_zone", shard.allowSameZone }, { "in_sync", health.inSync },
        { "copy_health", core::copyHealthName(health.health) } };
}

CommandOutput copiesOutput(const core::FleetAdmin::CopiesChanged& changed, const std::string& what)
{
    json replicas = json::array();
    for (const core::ShardCopy& copy : changed.change.shard.replicas)
        replicas.push_back(copyJson(copy));
    json epochs = json::array();
    for (const core::SpaceRecord& space : changed.change.spaces)
        epochs.push_back({ { "space", space.id }, { "epoch", space.epoch } });
    const auto revision = changed.change.revision;
    return { json { { "revision", revision }, { "result", what }, { "shard", changed.change.shard.id },
                 { "primary", changed.change.shard.node }, { "replicas", replicas }, { "spaces", epochs },
                 { "warnings", changed.warnings } },
        [what, revision, warnings = changed.warnings](std::ostream& out) {
            out << what << " (map revision " << revision << ")\n";
            for (const std::string& warning : warnings)
                out << "warning: " << warning << "\n";
        } };
}

CommandResult fromCopies(const core::Result<core::FleetAdmin::CopiesChanged>& changed, const std::string& what)
{
    if (!changed)
        return changed.error();
    return copiesOutput(*changed, what);
}

std::string stateOf(const core::ShardRecord& shard, const std::string& node)
{
    const core::ShardCopy* copy = shard.replicaOn(node);
    return copy ? core::copyStateName(copy->state) : "";
}

// What losing a node does, said before it is done: its primaries and the copies it holds.
std::string lossPreview(const core::MapSnapshot& map, const std::string& nodeId)
{
    std::string out = "marking node " + nodeId + " lost is for good: every copy on it becomes lost";
    for (const core::ShardRecord* shard : map.shardsOn(nodeId)) {
        std::string next;
        for (const core::ShardCopy& copy : shard->replicas) {
            const core::NodeRecord* node = map.node(copy.node);
            if (next.empty() && copy.state == core::CopyState::InSync && node && !node->lost)
                next = copy.node;
        }
        out += next.empty() ? "\n  shard " + shard->id + ": no in-sync replica; it stays on " + nodeId + " (red)"
                            : "\n  shard " + shard->id + ": its replica on " + next + " is promoted (epochs + 1)";
    }
    for (const core::ShardRecord* shard : map.copiesOn(nodeId))
        out += "\n  shard " + shard->id + ": its " + stateOf(*shard, nodeId) + " replica here becomes lost";
    return out;
}

} // namespace

CommandResult cmdReplicaAdd(const CtlOptions& options, const std::string& shard, const std::string& node)
{
    return withAdmin(options, [&](core::FleetAdmin& admin) -> CommandResult {
        auto added = admin.addReplica(shard, node, options.actor);
        if (!added)
            return added.error();
        return copiesOutput(*added,
            "replica of shard " + shard + " added on node " + node + " (" + stateOf(added->change.shard, node) + ")");
    });
}

CommandResult cmdReplicaRemove(const CtlOptions& options, const std::string& shard, const std::string& node, bool yes)
{
    if (!yes)
        return core::makeError(ErrorCode::InvalidArgument,
            "removing shard " + shard + "'s replica on " + node + " drops its documents on that node"
                + "\nRepeat with --yes to remove it.");
    return withAdmin(options, [&](core::FleetAdmin& admin) {
        return fromCopies(admin.removeReplica(shard, node, options.actor),
            "replica of shard " + shard + " on node " + node + " removed");
    });
}

CommandResult cmdReplicaList(const CtlOptions& options, const std::string& shardId)
{
    auto map = readMap(options);
    if (!map)
        return map.error();
    const core::ShardRecord* shard = map->shard(shardId);
    if (!shard)
        return core::makeError(ErrorCode::NotFound, "no shard " + shardId + " in the shard map");
    Table table({ "NODE", "ROLE", "STATE", "PROGRESS", "SINCE", "WHY" });
    for (const core::CopyRow& row : core::copyRowsOf(*shard)) {
        if (row.primary) {
            table.addRow({ row.node, "primary", "-", "-", "-", "" });
            continue;
        }
        table.addRow({ row.node, "replica", core::copyStateName(row.state),
            row.docsTotal ? std::to_string(row.docsDone) + "/" + std::to_string(row.docsTotal) : "-",
            row.sinceUnixMs ? formatTime(row.sinceUnixMs) : "-", row.reason });
    }
    json out = shardCopiesJson(*map, *shard);
    out["revision"] = map->revision;
    const std::string summary = core::describeCopies(core::evaluateCopies(*map, *shard));
    return CommandOutput { out, [table, summary](std::ostream& stream) {
                              table.print(stream);
                              stream << summary << "\n";
                          } };
}

CommandResult cmdShardPromote(const CtlOptions& options, const std::string& shard, const std::string& node)
{
    return withAdmin(options, [&](core::FleetAdmin& admin) {
        return fromCopies(admin.promote(shard, node, options.actor),
            "node " + node + " holds shard " + shard + "'s primary now; the old primary is fenced and catches up");
    });
}

CommandResult cmdShardSetReplication(
    const CtlOptions& options, const std::string& shard, std::uint32_t factor, std::optional<bool> allowSameZone)
{
    return withAdmin(options, [&](core::FleetAdmin& admin) -> CommandResult {
        auto revision = admin.map().setReplication(shard, factor, allowSameZone, options.actor);
        if (!revision)
            return revision.error();
        const std::string what = "shard " + shard + " wants "
            + (factor == 0 ? std::string("the fleet's replication factor") : std::to_string(factor) + " copies");
        return CommandOutput { json { { "revision", *revision }, { "result", what }, { "shard", shard },
                                   { "replication_factor", factor } },
            [what, rev = *revision](std::ostream& out) { out << what << " (map revision " << rev << ")\n"; } };
    });
}

CommandResult cmdNodeLose(const CtlOptions& options, const std::string& node, bool yes)
{
    return withAdmin(options, [&](core::FleetAdmin& admin) -> CommandResult {
        auto map = admin.map().snapshot();
        if (!map)
            return map.error();
        if (!map->node(node))
            return core::makeError(ErrorCode::NotFound, "no node " + node + " in the shard map");
        if (!yes && !map->node(node)->lost)
            return core::makeError(
                ErrorCode::InvalidArgument, lossPreview(*map, node) + "\nRepeat with --yes to mark it lost.");
        auto lost = admin.loseNode(node, options.actor);
        if (!lost)
            return lost.error();
        json promoted = json::array();
        for (const auto& change : lost->loss.promoted)
            promoted.push_back({ { "shard", change.shard.id }, { "primary", change.shard.node } });
        const std::string what = "node " + node + " marked lost";
        return CommandOutput { json { { "revision", lost->loss.revision }, { "result", what }, { "node", node },
                                   { "promoted", promoted }, { "without_copy", lost->loss.withoutCopy },
                                   { "warnings", lost->warnings } },
            [what, loss = lost->loss, warnings = lost->warnings](std::ostream& out) {
                out << what << " (map revision " << loss.revision << ")\n";
                for (const auto& change : loss.promoted)
                    out << "shard " << change.shard.id << ": replica on " << change.shard.node << " promoted\n";
                for (const std::string& shard : loss.withoutCopy)
                    out << "shard " << shard << ": no in-sync copy left (red)\n";
                for (const std::string& warning : warnings)
                    out << "warning: " << warning << "\n";
            } };
    });
}

CommandResult cmdNodeSetZone(const CtlOptions& options, const std::string& node, const std::string& zone)
{
    return withAdmin(options, [&](core::FleetAdmin& admin) -> CommandResult {
        auto revision = admin.map().setNodeZone(node, zone, options.actor);
        if (!revision)
            return revision.error();
        const std::string what = zone.empty() ? "node " + node + " has no zone" : "node " + node + " in zone " + zone;
        return CommandOutput { json {
                                   { "revision", *revision }, { "result", what }, { "node", node }, { "zone", zone } },
            [what, rev = *revision](std::ostream& out) { out << what << " (map revision " << rev << ")\n"; } };
    });
}

namespace {

// change(local, remote) for the changes that ask for --yes first: through the Admin API too.
template <typename Local, typename Remote>
auto confirmed(
    const CtlOptions& options, CommandResult& result, const bool& yes, std::string (*why)(), Local local, Remote remote)
{
    return [&options, &result, &yes, why, local, remote] {
        if (viaController(options) && !yes)
            result = core::makeError(ErrorCode::InvalidArgument, why() + "\nRepeat with --yes.");
        else
            result = viaController(options) ? changeViaController(options, remote()) : local();
    };
}

} // namespace

void addShardCopyCommands(CLI::App& shardCmd, const CtlOptions& options, CommandResult& result)
{
    auto run = runInto(result);
    auto change = changeWith(options, result);
    static std::string shard, node;
    static bool yes = false;
    auto* replicas = shardCmd.add_subcommand("replicas", "A shard's copies on other nodes")->require_subcommand(1);
    auto* add = replicas->add_subcommand(
        "add", "Create the shard on another node and list it as a replica (in sync at once when it holds no space)");
    add->add_option("shard", shard, "Shard id")->required();
    add->add_option("node", node, "Node to hold the copy")->required();
    add->callback(change([&] { return cmdReplicaAdd(options, shard, node); },
        [&] { return changes::changeReplica(shard, node, v1::ChangeReplica::ADD); }));
    auto* remove = replicas->add_subcommand("remove", "Take a replica off the map and drop it on its node");
    remove->add_option("shard", shard, "Shard id")->required();
    remove->add_option("node", node, "Node holding the copy")->required();
    remove->add_flag("--yes", yes, "Remove it, its documents on that node included");
    remove->callback(confirmed(
        options, result, yes, [] { return std::string("removing a replica drops its documents on its node"); },
        [&] { return cmdReplicaRemove(options, shard, node, yes); },
        [&] { return changes::changeReplica(shard, node, v1::ChangeReplica::REMOVE); }));
    auto* list = replicas->add_subcommand("list", "A shard's primary and replicas with their state and progress");
    list->add_option("shard", shard, "Shard id")->required();
    list->callback(run([&] { return cmdReplicaList(options, shard); }));

    auto* promote = shardCmd.add_subcommand(
        "promote", "Make an in-sync replica the primary (epochs + 1: the old primary is fenced and catches up)");
    promote->add_option("shard", shard, "Shard id")->required();
    promote->add_option("node", node, "Node of the in-sync replica")->required();
    promote->callback(change([&] { return cmdShardPromote(options, shard, node); },
        [&] { return changes::changeReplica(shard, node, v1::ChangeReplica::PROMOTE); }));

    static std::uint32_t factor = 0;
    static bool sameZone = false, separateZones = false;
    auto* replication
        = shardCmd.add_subcommand("set-replication-factor", "How many copies a shard wants, the primary included");
    replication->add_option("shard", shard, "Shard id")->required();
    // Bounded by the fleet: checkShardReplicationFactor refuses more copies than nodes or zones.
    replication->add_option("factor", factor, "Copies (0: the fleet's replication-factor setting)")->required();
    auto* allow = replication->add_flag("--allow-same-zone", sameZone, "Its copies may share a zone");
    replication->add_flag("--separate-zones", separateZones, "Its copies go to different zones (the default)")
        ->excludes(allow);
    const auto zones = [] {
        return sameZone ? std::optional(true) : separateZones ? std::optional(false) : std::nullopt;
    };
    replication->callback(change([&, zones] { return cmdShardSetReplication(options, shard, factor, zones()); },
        [&, zones] { return changes::setReplication(shard, factor, zones()); }));
}

void addNodeCopyCommands(CLI::App& nodeCmd, const CtlOptions& options, CommandResult& result)
{
    auto change = changeWith(options, result);
    static std::string node, zone;
    static bool yes = false;
    auto* lose = nodeCmd.add_subcommand(
        "lose", "Mark a node lost for good: its copies become lost, its primaries fail over to in-sync replicas");
    lose->add_option("node", node, "Node id")->required();
    lose->add_flag("--yes", yes, "Mark it lost, knowing what it does");
    lose->callback(confirmed(
        options, result, yes,
        [] { return std::string("marking a node lost fails its shards over and loses its copies for good"); },
        [&] { return cmdNodeLose(options, node, yes); }, [&] { return changes::loseNode(node); }));
    auto* setZone = nodeCmd.add_subcommand("set-zone", "Set a node's failure domain (zone or rack; empty: none)");
    setZone->add_option("node", node, "Node id")->required();
    setZone->add_option("zone", zone, "Zone (free text, at most 64 bytes)")->required();
    setZone->callback(
        change([&] { return cmdNodeSetZone(options, node, zone); }, [&] { return changes::setNodeZone(node, zone); }));
}

} // namespace shardmap::app
