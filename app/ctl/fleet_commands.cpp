// shardmapctl commands that also talk to the shard nodes: shard create and list, space reassign,
// write and search through the router, and the nodes' live stats.
#include "app/ctl/admin.h"
#include "app/ctl/commands.h"
#include "app/ctl/output.h"
#include "core/client/node_client.h"
#include "core/fleet/health.h"
#include "core/map/index_templates.h"
#include "core/router/router.h"
#include "core/util/units.h"

#include <chrono>
#include <fstream>
#include <ostream>
#include <set>

namespace shardmap::app {

using core::ErrorCode;
using nlohmann::json;

namespace {

std::uint64_t versionNow()
{
    // Microseconds since the epoch: later writes from one clock win without coordination.
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count());
}

core::NodeClientPool makePool(const CtlOptions& options)
{
    return core::NodeClientPool(nodeClientOptions(options));
}

core::Result<std::vector<core::Document>> readDocuments(const WriteArgs& args)
{
    std::vector<core::Document> docs;
    if (args.file.empty()) {
        if (args.space.empty() || args.id.empty())
            return core::makeError(ErrorCode::InvalidArgument, "write needs --space and --id, or --file");
        docs.push_back({ args.space, args.id, args.version ? args.version : versionNow(),
            args.deleted ? std::map<std::string, std::string> {} : args.fields, args.deleted });
        return docs;
    }
    std::ifstream in(args.file);
    if (!in)
        return core::makeError(ErrorCode::NotFound, "cannot read " + args.file);
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        const json doc = json::parse(line, nullptr, false);
        if (!doc.is_object() || !doc.contains("space") || !doc.contains("id"))
            return core::makeError(ErrorCode::InvalidArgument,
                args.file + ":" + std::to_string(number) + ": expected a JSON object with space and id");
        try {
            docs.push_back({ doc.at("space").get<std::string>(), doc.at("id").get<std::string>(),
                doc.value("version", versionNow()), doc.value("fields", std::map<std::string, std::string> {}),
                doc.value("deleted", false) });
        } catch (const json::exception& error) {
            return core::makeError(
                ErrorCode::InvalidArgument, args.file + ":" + std::to_string(number) + ": " + error.what());
        }
    }
    return docs;
}

const char* outcomeName(core::WriteOutcome outcome)
{
    switch (outcome) {
    case core::WriteOutcome::Applied: return "applied";
    case core::WriteOutcome::Stale: return "stale";
    case core::WriteOutcome::Rejected: return "rejected";
    }
    return "unknown";
}

} // namespace

CommandResult cmdShardCreate(const CtlOptions& options, const ShardCreateArgs& args)
{
    auto engine = core::parseNewShardEngine(args.engine);
    if (!engine)
        return engine.error();
    return withAdmin(options, [&](core::FleetAdmin& admin) -> CommandResult {
        auto revision = admin.createShard(
            { args.id, args.node, args.fields, args.capacityDocs, args.capacityBytes, *engine }, options.actor);
        if (!revision)
            return revision.error();
        auto map = readMap(options);
        const core::ShardRecord* made = map ? map->shard(args.id) : nullptr;
        const std::string engineName = made ? core::indexEngineName(made->engine) : "";
        const std::string what = "shard " + args.id + " created on node " + args.node
            + (engineName.empty() ? std::string() : " with engine " + engineName);
        return CommandOutput { json { { "revision", *revision }, { "shard", args.id }, { "node", args.node },
                                   { "engine", engineName } },
            [what, rev = *revision](std::ostream& out) { out << what << " (map revision " << rev << ")\n"; } };
    });
}

namespace {

// One shard of `shard list --json`: its record, what its node reports (null: unreachable) and its copies.
json shardListJson(const core::ShardRecord& shard, std::size_t spaces, const core::ShardSummary* live,
    const std::string& health, const core::ShardCopiesHealth& copies)
{
    json replicas = json::array();
    for (const core::ShardCopy& copy : shard.replicas)
        replicas.push_back({ { "node", copy.node }, { "state", core::copyStateName(copy.state) } });
    const core::TemplateRef built = core::templateOf(shard);
    return { { "shard", shard.id }, { "node", shard.node }, { "state", core::shardStateName(shard.state) },
        { "engine", core::indexEngineName(shard.engine) }, { "template", built.name },
        { "template_version", built.version }, { "spaces", spaces }, { "docs", live ? live->liveDocs : 0 },
        { "bytes_on_disk", live ? live->bytesOnDisk : 0 }, { "health", health },
        { "capacity_docs", shard.capacityDocs }, { "capacity_bytes", shard.capacityBytes }, { "replicas", replicas },
        { "copies_in_sync", copies.inSync }, { "replication_factor", copies.wanted },
        { "copy_health", core::copyHealthName(copies.health) } };
}

} // namespace

CommandResult cmdShardList(const CtlOptions& options)
{
    auto map = readMap(options);
    if (!map)
        return map.error();
    map->buildIndex(); // spaces per shard in one pass, not a scan of every space per shard
    auto pool = makePool(options);
    std::map<std::string, core::ShardSummary> live;
    // A node whose shards could not be listed serves no copy (the copies' colours).
    std::set<std::string> unreachable;
    for (const auto& [id, node] : map->nodes) {
        auto client = pool.get(node.value.address);
        auto shards = client ? (*client)->listShards() : core::Result<std::vector<core::ShardSummary>>(client.error());
        if (!shards && !node.value.lost && !node.value.retired)
            unreachable.insert(id);
        for (const auto& shard : shards ? *shards : std::vector<core::ShardSummary> {}) {
            // A replica's node lists the same id: the figures are the primary's.
            if (map->shard(shard.id) && map->shard(shard.id)->node == id)
                live[shard.id] = shard;
        }
    }
    json out = json::array();
    Table table({ "SHARD", "NODE", "STATE", "ENGINE", "TEMPLATE", "SPACES", "DOCS", "ON DISK", "HEALTH", "COPIES",
        "COPY HEALTH" });
    for (const auto& [id, shard] : map->shards) {
        const auto found = live.find(id);
        const bool reachable = found != live.end();
        const std::string health = !reachable ? "unreachable" : (found->second.healthy ? "ok" : "failed");
        const auto spaces = map->spacesOn(id).size();
        const core::ShardCopiesHealth copies = core::evaluateCopies(*map, shard.value, unreachable);
        out.push_back(shardListJson(shard.value, spaces, reachable ? &found->second : nullptr, health, copies));
        table.addRow({ id, shard.value.node, core::shardStateName(shard.value.state),
            core::indexEngineName(shard.value.engine),
            core::templateLabel(core::templateOf(shard.value).name, core::templateOf(shard.value).version),
            std::to_string(spaces), reachable ? std::to_string(found->second.liveDocs) : "-",
            reachable ? core::formatBytes(found->second.bytesOnDisk) : "-", health,
            std::to_string(copies.inSync) + "/" + std::to_string(copies.wanted), core::copyHealthName(copies.health) });
    }
    return CommandOutput { json { { "revision", map->revision }, { "shards", out } },
        [table](std::ostream& stream) { table.print(stream); } };
}

CommandResult cmdSpaceReassign(const CtlOptions& options, const std::string& space, const std::string& shard)
{
    auto moved
        = withAdmin(options, [&](core::FleetAdmin& admin) { return admin.reassignSpace(space, shard, options.actor); });
    if (!moved)
        return moved.error();
    const std::uint64_t epoch = moved->space.epoch;
    const std::vector<std::string> warnings = moved->warnings;
    const std::string what = "space " + space + " now owned by " + shard + " at epoch " + std::to_string(epoch);
    return CommandOutput { json {
                               { "space", space }, { "shard", shard }, { "epoch", epoch }, { "warnings", warnings } },
        [what, warnings](std::ostream& out) {
            out << what << " (documents were not moved)\n";
            for (const auto& warning : warnings)
                out << "warning: " << warning << "\n";
        } };
}

CommandResult cmdWrite(const CtlOptions& options, const WriteArgs& args)
{
    auto docs = readDocuments(args);
    if (!docs)
        return docs.error();
    auto store = openCtlStore(options);
    if (!store)
        return store.error();
    auto pool = makePool(options);
    core::RouterOptions routerOptions;
    routerOptions.actor = options.actor.name;
    auto router = core::Router::start(**store, pool, routerOptions);
    if (!router)
        return router.error();
    auto written = (*router)->write(*docs);
    if (!written)
        return written.error();
    json results = json::array();
    Table table({ "SPACE", "ID", "VERSION", "OUTCOME", "REASON" });
    for (std::size_t i = 0; i < docs->size(); ++i) {
        const auto& result = written->results[i];
        results.push_back({ { "space", (*docs)[i].space }, { "id", (*docs)[i].id }, { "version", (*docs)[i].version },
            { "outcome", outcomeName(result.outcome) }, { "reason", result.reason } });
        table.addRow({ (*docs)[i].space, (*docs)[i].id, std::to_string((*docs)[i].version), outcomeName(result.outcome),
            result.reason });
    }
    const auto summary = *written;
    return CommandOutput { json { { "applied", summary.applied }, { "stale", summary.stale },
                               { "rejected", summary.rejected }, { "retries", summary.retries },
                               { "created_spaces", summary.createdSpaces }, { "results", results } },
        [table, summary](std::ostream& out) {
            if (summary.results.size() <= 20)
                table.print(out);
            out << summary.applied << " applied, " << summary.stale << " stale, " << summary.rejected << " rejected";
            for (const auto& space : summary.createdSpaces)
                out << "; created space " << space;
            out << "\n";
        } };
}

CommandResult cmdSearch(const CtlOptions& options, const SearchArgs& args)
{
    auto store = openCtlStore(options);
    if (!store)
        return store.error();
    auto pool = makePool(options);
    auto router = core::Router::start(**store, pool, {});
    if (!router)
        return router.error();
    auto found = (*router)->search({ args.spaces, args.query, args.limit, args.offset, true });
    if (!found)
        return found.error();
    json hits = json::array();
    Table table({ "SPACE", "ID", "VERSION", "SCORE", "SNIPPET" });
    for (const auto& hit : found->hits) {
        hits.push_back({ { "space", hit.space }, { "id", hit.id }, { "version", hit.version }, { "score", hit.score },
            { "snippet", hit.snippet } });
        table.addRow({ hit.space, hit.id, std::to_string(hit.version), fixed(hit.score, 3), hit.snippet });
    }
    const auto count = found->hits.size();
    return CommandOutput { json { { "hits", hits } }, [table, count](std::ostream& out) {
                              if (count == 0)
                                  out << "no matches\n";
                              else
                                  table.print(out);
                          } };
}

namespace {

// What `stats` shows, filled a node at a time: the JSON and a table per level.
struct StatsTables {
    json nodes = json::array();
    Table nodeTable { { "NODE", "ADDRESS", "RSS", "CPU %", "DISK FREE", "IO WAIT %", "QPS", "P99 MS", "INDEXED/S" } };
    Table shardTable { { "SHARD", "NODE", "DOCS", "BYTES EST", "ON DISK", "QPS", "WRITES/S", "P99 MS" } };
    Table spaceTable { { "SPACE", "SHARD", "DOCS", "BYTES EST", "QPS", "WRITES/S" } };
};

json shardStats(const std::string& nodeId, const core::ShardMetricsValue& shard, StatsTables& tables)
{
    json spaceJson = json::array();
    for (const auto& space : shard.spaceMetrics) {
        spaceJson.push_back(
            { { "space", space.space }, { "docs", space.liveDocs }, { "bytes_estimate", space.bytesEstimate },
                { "queries_per_second", space.queriesPerSecond }, { "writes_per_second", space.writesPerSecond } });
        tables.spaceTable.addRow({ space.space, shard.shard, std::to_string(space.liveDocs),
            core::formatBytes(space.bytesEstimate), fixed(space.queriesPerSecond), fixed(space.writesPerSecond) });
    }
    tables.shardTable.addRow({ shard.shard, nodeId, std::to_string(shard.liveDocs),
        core::formatBytes(shard.bytesEstimate), core::formatBytes(shard.bytesOnDisk), fixed(shard.queriesPerSecond),
        fixed(shard.writesPerSecond), fixed(shard.queryP99Ms, 2) });
    return { { "shard", shard.shard }, { "healthy", shard.healthy }, { "docs", shard.liveDocs },
        { "bytes_estimate", shard.bytesEstimate }, { "bytes_on_disk", shard.bytesOnDisk },
        { "queries_per_second", shard.queriesPerSecond }, { "writes_per_second", shard.writesPerSecond },
        { "query_p99_ms", shard.queryP99Ms }, { "spaces", spaceJson } };
}

void addNodeStats(
    const std::string& id, const std::string& address, const core::NodeMetricsValue& m, StatsTables& tables)
{
    json shardsJson = json::array();
    for (const auto& shard : m.shards)
        shardsJson.push_back(shardStats(id, shard, tables));
    const double freePercent
        = m.diskTotalBytes ? 100.0 * static_cast<double>(m.diskFreeBytes) / static_cast<double>(m.diskTotalBytes) : 0;
    tables.nodes.push_back({ { "node", id }, { "address", address }, { "rss_bytes", m.rssBytes },
        { "cpu_percent", m.cpuPercent }, { "disk_free_bytes", m.diskFreeBytes },
        { "disk_total_bytes", m.diskTotalBytes }, { "iowait_percent", m.iowaitPercent },
        { "queries_per_second", m.queriesPerSecond }, { "query_p99_ms", m.queryP99Ms },
        { "docs_indexed_per_second", m.docsIndexedPerSecond }, { "shards", shardsJson } });
    tables.nodeTable.addRow(
        { id, address, core::formatBytes(m.rssBytes), fixed(m.cpuPercent), fixed(freePercent) + " %",
            fixed(m.iowaitPercent), fixed(m.queriesPerSecond), fixed(m.queryP99Ms, 2), fixed(m.docsIndexedPerSecond) });
}

} // namespace

CommandResult cmdStats(const CtlOptions& options, bool spaces)
{
    auto map = readMap(options);
    if (!map)
        return map.error();
    auto pool = makePool(options);
    StatsTables tables;
    for (const auto& [id, node] : map->nodes) {
        auto client = pool.get(node.value.address);
        auto metrics = client ? (*client)->metrics(spaces) : core::Result<core::NodeMetricsValue>(client.error());
        if (!metrics) {
            tables.nodes.push_back(
                { { "node", id }, { "address", node.value.address }, { "error", metrics.error().describe() } });
            tables.nodeTable.addRow({ id, node.value.address, "unreachable: " + metrics.error().message });
            continue;
        }
        addNodeStats(id, node.value.address, *metrics, tables);
    }
    return CommandOutput { json { { "revision", map->revision }, { "nodes", tables.nodes } },
        [nodeTable = tables.nodeTable, shardTable = tables.shardTable, spaceTable = tables.spaceTable, spaces](
            std::ostream& out) {
            nodeTable.print(out);
            out << "\n";
            shardTable.print(out);
            if (spaces) {
                out << "\n";
                spaceTable.print(out);
            }
        } };
}

} // namespace shardmap::app
