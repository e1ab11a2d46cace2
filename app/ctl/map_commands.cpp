// shardmapctl commands that read or change the shard map itself.
#include "app/ctl/admin.h"
#include "app/ctl/commands.h"
#include "app/ctl/controller.h"
#include "app/ctl/output.h"
#include "core/store/audit_chain.h"
#include "core/store/store_uri.h"

#include <filesystem>
#include <ostream>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace shardmap::app {

using core::Error;
using core::ErrorCode;
using nlohmann::json;

namespace {

json toJson(const core::SpaceRecord& space)
{
    return { { "space", space.id }, { "shard", space.shard }, { "epoch", space.epoch },
        { "migration", space.migrationId }, { "target", space.target },
        { "phase", space.migrating() ? core::migrationPhaseName(space.phase) : "" }, { "pin", space.pin },
        { "paused", space.paused } };
}

CommandOutput revisionOutput(std::uint64_t revision, std::string what)
{
    return { json { { "revision", revision }, { "result", what } },
        [revision, what](std::ostream& out) { out << what << " (map revision " << revision << ")\n"; } };
}

CommandResult fromRevision(core::Result<std::uint64_t> revision, std::string what)
{
    if (!revision)
        return revision.error();
    return revisionOutput(*revision, std::move(what));
}

void printAuditReport(std::ostream& out, const core::AuditChainReport& report)
{
    if (const auto& broken = report.broken) {
        out << "audit broken at revision " << broken->revision << " (" << core::auditBreakKindName(broken->kind)
            << "): " << broken->message << "\n";
        if (report.breaks > 1)
            out << report.breaks - 1 << " more break(s) after it\n";
        return;
    }
    out << "audit verified: " << report.records << " records up to revision " << report.revision << ", "
        << report.liveRecords << " live records as the audit wrote them";
    if (report.chainStart > 1)
        out << "; revisions before " << report.chainStart << " were written before the chain and are not covered";
    else if (report.chainStart == 0 && report.records > 0)
        out << "; no record carries a hash yet (written before the chain): the chain starts at the next commit";
    out << "\nhead hash " << (report.headHash.empty() ? "-" : report.headHash) << "\n";
}

std::string userName(uid_t uid)
{
    const passwd* entry = ::getpwuid(uid);
    return entry ? entry->pw_name : "uid " + std::to_string(uid);
}

// A new SQLite store is its creator's alone (mode 0600). Made by root in a service's state
// directory (/var/lib/shardmapd belongs to the shardmap user), it is a store the service cannot
// write; a shared sticky directory such as /tmp is nobody's, and is left alone.
core::Status checkNewStoreOwner(const std::string& uri)
{
    const auto path = core::sqliteStorePath(uri);
    struct stat file = {};
    if (!path || ::stat(path->c_str(), &file) == 0)
        return {};
    auto directory = std::filesystem::path(*path).parent_path();
    if (directory.empty())
        directory = ".";
    struct stat owner = {};
    if (::stat(directory.c_str(), &owner) != 0 || owner.st_uid == ::geteuid() || (owner.st_mode & S_ISVTX) != 0)
        return {};
    const std::string service = userName(owner.st_uid);
    return core::makeError(ErrorCode::FailedPrecondition,
        "not creating " + *path + ": " + directory.string() + " belongs to user " + service + ", and a store made by "
            + userName(::geteuid()) + " would be writable by " + userName(::geteuid()) + " alone; create it as "
            + service + " (sudo -u " + service + " shardmapctl --store " + uri
            + " init), or let shardmapd create it on its first start (create-store = true in "
              "/etc/shardmap/shardmapd.conf)");
}

} // namespace

core::Result<std::unique_ptr<core::MetadataStore>> openCtlStore(const CtlOptions& options, bool create)
{
    if (viaController(options) && !create)
        return openControllerStore(options);
    if (options.storeUri.empty())
        return core::makeError(
            ErrorCode::InvalidArgument, "no store given: pass --store sqlite:PATH or set SHARDMAP_STORE");
    return core::openStore(options.storeUri, create);
}

core::Result<core::MapSnapshot> readMap(const CtlOptions& options)
{
    auto store = openCtlStore(options);
    if (!store)
        return store.error();
    return core::MapEditor(**store).snapshot();
}

CommandResult cmdInit(const CtlOptions& options)
{
    if (auto owner = checkNewStoreOwner(options.storeUri); !owner)
        return owner.error();
    auto store = openCtlStore(options, true);
    if (!store)
        return store.error();
    auto revision = (*store)->currentRevision();
    if (!revision)
        return revision.error();
    return revisionOutput(*revision, "store ready at " + (*store)->describe());
}

CommandResult cmdNodeAdd(const CtlOptions& options, const std::string& id, const std::string& address,
    const std::map<std::string, std::string>& labels, const std::string& zone)
{
    core::NodeRecord node { id, address, labels };
    node.zone = zone;
    return withAdmin(options, [&](core::FleetAdmin& admin) {
        return fromRevision(admin.map().addNode(node, options.actor),
            "node " + id + " added at " + address + (zone.empty() ? "" : " in zone " + zone));
    });
}

CommandResult cmdNodeRemove(const CtlOptions& options, const std::string& id)
{
    return withAdmin(options, [&](core::FleetAdmin& admin) {
        return fromRevision(admin.map().removeNode(id, options.actor), "node " + id + " removed");
    });
}

CommandResult cmdNodeList(const CtlOptions& options)
{
    auto map = readMap(options);
    if (!map)
        return map.error();
    json nodes = json::array();
    Table table({ "NODE", "ADDRESS", "ZONE", "SHARDS", "COPIES", "LABELS" });
    map->buildIndex();
    for (const auto& [id, node] : map->nodes) {
        std::string labels;
        for (const auto& [key, value] : node.value.labels)
            labels += (labels.empty() ? "" : ",") + key + "=" + value;
        const auto shards = map->shardsOn(id).size();
        // The replicas it holds, apart from the primaries counted in shards.
        json copies = json::array();
        for (const core::ShardRecord* shard : map->copiesOn(id))
            copies.push_back({ { "shard", shard->id }, { "state", core::copyStateName(shard->replicaOn(id)->state) } });
        nodes.push_back({ { "node", id }, { "address", node.value.address }, { "shards", shards },
            { "labels", node.value.labels }, { "zone", node.value.zone }, { "lost", node.value.lost },
            { "retired", node.value.retired }, { "copies", copies } });
        table.addRow({ id + (node.value.lost ? " (lost)" : ""), node.value.address,
            node.value.zone.empty() ? "-" : node.value.zone, std::to_string(shards), std::to_string(copies.size()),
            labels });
    }
    return CommandOutput { json { { "revision", map->revision }, { "nodes", nodes } },
        [table](std::ostream& out) { table.print(out); } };
}

CommandResult cmdShardSetState(const CtlOptions& options, const std::string& id, const std::string& state)
{
    const auto parsed = core::parseShardState(state);
    if (!parsed)
        return core::makeError(ErrorCode::InvalidArgument,
            "unknown shard state '" + state + "'; use active, draining, readonly or retired");
    return withAdmin(options, [&](core::FleetAdmin& admin) {
        return fromRevision(admin.map().setShardState(id, *parsed, options.actor), "shard " + id + " is " + state);
    });
}

CommandResult cmdSpaceList(const CtlOptions& options, const std::string& shard)
{
    auto map = readMap(options);
    if (!map)
        return map.error();
    if (!shard.empty() && !map->shard(shard))
        return core::makeError(ErrorCode::NotFound, "no shard " + shard + " in the shard map");
    json spaces = json::array();
    Table table({ "SPACE", "SHARD", "EPOCH", "MIGRATING TO", "PIN", "PAUSED" });
    for (const auto& [id, space] : map->spaces) {
        const auto& s = space.value;
        if (!shard.empty() && s.shard != shard && s.target != shard)
            continue;
        spaces.push_back(toJson(s));
        table.addRow({ id, s.shard, std::to_string(s.epoch), s.target, s.pin, s.paused ? "yes" : "" });
    }
    return CommandOutput { json { { "revision", map->revision }, { "spaces", spaces } },
        [table](std::ostream& out) { table.print(out); } };
}

CommandResult cmdSpaceWhere(const CtlOptions& options, const std::string& space)
{
    auto map = readMap(options);
    if (!map)
        return map.error();
    const core::SpaceRecord* record = map->space(space);
    if (!record)
        return core::makeError(ErrorCode::NotFound, "no space " + space + " in the shard map");
    const core::ShardRecord* shard = map->shard(record->shard);
    const core::NodeRecord* node = shard ? map->node(shard->node) : nullptr;
    json out = toJson(*record);
    out["node"] = shard ? shard->node : "";
    out["address"] = node ? node->address : "";
    out["revision"] = map->revision;
    return CommandOutput { out, [out](std::ostream& stream) {
                              stream << out["space"].get<std::string>() << " is on shard "
                                     << out["shard"].get<std::string>() << " (node " << out["node"].get<std::string>()
                                     << " at " << out["address"].get<std::string>() << "), epoch " << out["epoch"];
                              if (!out["target"].get<std::string>().empty())
                                  stream << ", migrating to " << out["target"].get<std::string>() << " ("
                                         << out["phase"].get<std::string>() << ")";
                              stream << "\n";
                          } };
}

CommandResult cmdSpacePin(const CtlOptions& options, const std::string& space, const std::string& shard)
{
    return withAdmin(options, [&](core::FleetAdmin& admin) {
        return fromRevision(
            admin.map().pinSpace(space, shard, options.actor), "space " + space + " pinned to " + shard);
    });
}

CommandResult cmdSpaceUnpin(const CtlOptions& options, const std::string& space)
{
    return withAdmin(options, [&](core::FleetAdmin& admin) {
        return fromRevision(admin.map().unpinSpace(space, options.actor), "space " + space + " unpinned");
    });
}

CommandResult cmdMapHistory(const CtlOptions& options, std::uint64_t from, std::size_t limit)
{
    auto store = openCtlStore(options);
    if (!store)
        return store.error();
    auto records = (*store)->history(from, 0, limit);
    if (!records)
        return records.error();
    json out = json::array();
    Table table({ "REV", "TIME", "ACTOR", "ACTION", "KEYS", "REASON" });
    for (const auto& record : *records) {
        json keysChanged = json::array();
        std::string keyList;
        for (const auto& change : record.changes) {
            keysChanged.push_back(change.key);
            keyList += (keyList.empty() ? "" : " ") + change.key;
        }
        out.push_back({ { "revision", record.revision }, { "unix_ms", record.unixMs }, { "actor", record.actor },
            { "action", record.action }, { "reason", record.reason }, { "keys", keysChanged } });
        table.addRow({ std::to_string(record.revision), formatTime(record.unixMs), record.actor, record.action, keyList,
            record.reason });
    }
    return CommandOutput { json { { "history", out } }, [table](std::ostream& stream) { table.print(stream); } };
}

CommandResult cmdMapVerifyAudit(const CtlOptions& options)
{
    if (viaController(options))
        return core::makeError(ErrorCode::InvalidArgument,
            "map verify-audit reads the store itself: pass --store (the Admin API does not hand out the audit's"
            " hashes)");
    auto store = openCtlStore(options);
    if (!store)
        return store.error();
    auto report = core::verifyAuditChain(**store, true);
    if (!report)
        return report.error();
    json out { { "verified", !report->broken }, { "revision", report->revision }, { "records", report->records },
        { "live_records", report->liveRecords }, { "chain_start", report->chainStart },
        { "head_hash", report->headHash }, { "breaks", report->breaks }, { "first_break", nullptr } };
    if (const auto& broken = report->broken)
        out["first_break"] = { { "revision", broken->revision }, { "kind", core::auditBreakKindName(broken->kind) },
            { "key", broken->key }, { "message", broken->message } };
    CommandOutput output { out, [checked = *report](std::ostream& stream) { printAuditReport(stream, checked); } };
    output.exitCode = report->broken ? kExitAuditBroken : 0;
    return output;
}

CommandResult cmdMapDiff(const CtlOptions& options, std::uint64_t a, std::uint64_t b)
{
    auto store = openCtlStore(options);
    if (!store)
        return store.error();
    auto diff = core::diffRevisions(**store, a, b);
    if (!diff)
        return diff.error();
    json spaces = json::array();
    json shards = json::array();
    json nodes = json::array();
    Table table({ "KIND", "ID", "BEFORE", "AFTER" });
    for (const auto& move : diff->spaces) {
        spaces.push_back({ { "space", move.space }, { "from", move.fromShard }, { "to", move.toShard },
            { "from_epoch", move.fromEpoch }, { "to_epoch", move.toEpoch } });
        table.addRow({ "space", move.space,
            move.fromShard.empty() ? "(new)" : move.fromShard + " e" + std::to_string(move.fromEpoch),
            move.toShard.empty() ? "(removed)" : move.toShard + " e" + std::to_string(move.toEpoch) });
    }
    for (const auto& change : diff->shards) {
        const std::string before = change.before ? core::shardStateName(*change.before) : "(new)";
        const std::string after = change.after ? core::shardStateName(*change.after) : "(removed)";
        shards.push_back({ { "shard", change.shard }, { "before", before }, { "after", after } });
        table.addRow({ "shard", change.shard, before, after });
    }
    for (const auto& change : diff->nodes) {
        nodes.push_back({ { "node", change.node }, { "added", change.added }, { "removed", change.removed } });
        table.addRow(
            { "node", change.node, change.added ? "(new)" : "present", change.removed ? "(removed)" : "present" });
    }
    for (const auto& label : diff->templatesAdded)
        table.addRow({ "template", label, "(new)", "present" });
    for (const auto& label : diff->templatesRemoved)
        table.addRow({ "template", label, "present", "(removed)" });
    const auto from = diff->fromRevision;
    const auto to = diff->toRevision;
    const auto commits = diff->commits;
    return CommandOutput { json { { "from", from }, { "to", to }, { "commits", commits }, { "spaces", spaces },
                               { "shards", shards }, { "nodes", nodes }, { "templates_added", diff->templatesAdded },
                               { "templates_removed", diff->templatesRemoved } },
        [=](std::ostream& out) {
            out << "revisions " << from << " -> " << to << ": " << commits << " commit(s)\n";
            if (table.empty())
                out << "no placement changes\n";
            else
                table.print(out);
        } };
}

} // namespace shardmap::app
