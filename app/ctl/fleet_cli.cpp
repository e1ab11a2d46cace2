// The command line of the map and fleet commands: init, store, node, shard, space, map, write,
// search and stats as CLI11 subcommands wired to map_commands.cpp, fleet_commands.cpp and
// store_commands.cpp.
#include "app/ctl/command_line.h"

#include <CLI/CLI.hpp>

namespace shardmap::app {

namespace {

std::map<std::string, std::string> parsePairs(const std::vector<std::string>& pairs)
{
    std::map<std::string, std::string> out;
    for (const auto& pair : pairs) {
        const auto equals = pair.find('=');
        if (equals == std::string::npos || equals == 0)
            throw CLI::ValidationError("'" + pair + "' is not KEY=VALUE");
        out[pair.substr(0, equals)] = pair.substr(equals + 1);
    }
    return out;
}

void addStoreGroup(CLI::App& app, const CtlOptions& options, CommandResult& result)
{
    auto run = runInto(result);
    app.add_subcommand("init", "Create the store (if missing) and print its revision")->callback(run([&] {
        return cmdInit(options);
    }));

    auto* storeCmd = app.add_subcommand("store", "The store itself")->require_subcommand(1);
    static std::string copyFrom, copyTo;
    auto* storeCopy = storeCmd->add_subcommand(
        "copy", "Copy the whole map with its history into a new, empty store (e.g. SQLite to etcd)");
    storeCopy->add_option("--from", copyFrom, "Store URI to copy from")->required();
    storeCopy->add_option("--to", copyTo, "Store URI to copy into; must be empty")->required();
    storeCopy->callback(run([&] { return cmdStoreCopy(options, copyFrom, copyTo); }));
}

void addNodeGroup(CLI::App& app, const CtlOptions& options, CommandResult& result)
{
    auto run = runInto(result);
    auto change = changeWith(options, result);
    auto* node = app.add_subcommand("node", "Nodes of the fleet")->require_subcommand(1);
    static std::string id, address, zone;
    static std::vector<std::string> labels;
    auto* nodeAdd = node->add_subcommand("add", "Register a shard node");
    nodeAdd->add_option("id", id, "Node id")->required();
    nodeAdd->add_option("address", address, "HOST:PORT of the node")->required();
    nodeAdd->add_option("--label", labels, "KEY=VALUE label (repeatable)");
    nodeAdd->add_option(
        "--zone", zone, "Failure domain (zone or rack, free text): copies of a shard avoid sharing one");
    nodeAdd->callback(change([&] { return cmdNodeAdd(options, id, address, parsePairs(labels), zone); },
        [&] { return changes::addNode(id, address, parsePairs(labels), zone); }));
    auto* nodeRemove = node->add_subcommand("remove", "Remove a node that has no shards");
    nodeRemove->add_option("id", id, "Node id")->required();
    nodeRemove->callback(change([&] { return cmdNodeRemove(options, id); }, [&] { return changes::removeNode(id); }));
    node->add_subcommand("list", "List nodes")->callback(run([&] { return cmdNodeList(options); }));
    addNodeCopyCommands(*node, options, result);
}

void addShardGroup(CLI::App& app, const CtlOptions& options, CommandResult& result)
{
    auto run = runInto(result);
    auto change = changeWith(options, result);
    auto* shardCmd = app.add_subcommand("shard", "Shards")->require_subcommand(1);
    static ShardCreateArgs create;
    auto* shardCreate = shardCmd->add_subcommand("create", "Create a shard on a node and add it to the map");
    shardCreate->add_option("id", create.id, "Shard id")->required();
    shardCreate->add_option("--node", create.node, "Node that hosts it")->required();
    shardCreate->add_option("--fields", create.fields, "Searchable fields (default: title body tags)")->delimiter(',');
    shardCreate->add_option("--capacity-docs", create.capacityDocs, "Most documents (0: no limit)");
    shardCreate->add_option("--capacity-bytes", create.capacityBytes, "Most bytes (0: no limit)");
    shardCreate->add_option(
        "--engine", create.engine, "Index engine: fts5 or xapian (default: the default-engine setting)");
    shardCreate->callback(
        change([&] { return cmdShardCreate(options, create); }, [&] { return changes::createShard(create); }));
    shardCmd->add_subcommand("list", "List shards with their state and size")->callback(run([&] {
        return cmdShardList(options);
    }));
    static std::string shard, state;
    auto* setState = shardCmd->add_subcommand("set-state", "Set a shard's state");
    setState->add_option("id", shard, "Shard id")->required();
    setState->add_option("state", state, "active, draining, readonly or retired")->required();
    setState->callback(change(
        [&] { return cmdShardSetState(options, shard, state); }, [&] { return changes::setShardState(shard, state); }));
    addShardCopyCommands(*shardCmd, options, result);
}

void addSpaceGroup(CLI::App& app, const CtlOptions& options, CommandResult& result)
{
    auto run = runInto(result);
    auto change = changeWith(options, result);
    auto* spaceCmd = app.add_subcommand("space", "Spaces (tenants)")->require_subcommand(1);
    static std::string space, shard;
    auto* spaceList = spaceCmd->add_subcommand("list", "List spaces");
    spaceList->add_option("--shard", shard, "Only spaces on this shard");
    spaceList->callback(run([&] { return cmdSpaceList(options, shard); }));
    auto* where = spaceCmd->add_subcommand("where", "Where a space lives");
    where->add_option("space", space, "Space id")->required();
    where->callback(run([&] { return cmdSpaceWhere(options, space); }));
    auto* pin = spaceCmd->add_subcommand("pin", "Pin a space to a shard");
    pin->add_option("space", space, "Space id")->required();
    pin->add_option("shard", shard, "Shard id")->required();
    pin->callback(
        change([&] { return cmdSpacePin(options, space, shard); }, [&] { return changes::pinSpace(space, shard); }));
    auto* unpin = spaceCmd->add_subcommand("unpin", "Remove a space's pin");
    unpin->add_option("space", space, "Space id")->required();
    unpin->callback(
        change([&] { return cmdSpaceUnpin(options, space); }, [&] { return changes::pinSpace(space, {}); }));
    auto* reassign = spaceCmd->add_subcommand(
        "reassign", "Hand a space's ownership to another shard by hand (epoch + 1; documents are not moved)");
    reassign->add_option("space", space, "Space id")->required();
    reassign->add_option("shard", shard, "New owner shard")->required();
    reassign->callback(change(
        [&] { return cmdSpaceReassign(options, space, shard); }, [&] { return changes::reassignSpace(space, shard); }));
}

void addMapGroup(CLI::App& app, const CtlOptions& options, CommandResult& result)
{
    auto run = runInto(result);
    auto* mapCmd = app.add_subcommand("map", "The map's history")->require_subcommand(1);
    static std::uint64_t from = 0, revA = 0, revB = 0;
    static std::size_t limit = 50;
    auto* history = mapCmd->add_subcommand("history", "Audit records, oldest first");
    history->add_option("--from", from, "Start after this revision");
    history->add_option("--limit", limit, "At most this many records")->capture_default_str();
    history->callback(run([&] { return cmdMapHistory(options, from, limit); }));
    auto* diff = mapCmd->add_subcommand("diff", "What changed between two revisions");
    diff->add_option("rev1", revA, "Revision")->required();
    diff->add_option("rev2", revB, "Revision")->required();
    diff->callback(run([&] { return cmdMapDiff(options, revA, revB); }));
    auto* verifyAudit = mapCmd->add_subcommand("verify-audit",
        "Check the audit's hash chain and the live records against it; name the first broken record (exit 11)");
    verifyAudit->callback(run([&] { return cmdMapVerifyAudit(options); }));
}

void addDocumentCommands(CLI::App& app, const CtlOptions& options, CommandResult& result)
{
    auto run = runInto(result);
    static WriteArgs writeArgs;
    static std::vector<std::string> fields;
    auto* write = app.add_subcommand("write", "Write (or delete) documents through the router");
    write->add_option("--space", writeArgs.space, "Space id");
    write->add_option("--id", writeArgs.id, "Document id");
    write->add_option("--field", fields, "NAME=VALUE (repeatable)");
    write->add_option("--version", writeArgs.version, "Version (default: now in microseconds)");
    write->add_flag("--delete", writeArgs.deleted, "Write a tombstone");
    write->add_option("--file", writeArgs.file, "JSON lines of {space, id, version, fields, deleted}");
    write->callback(run([&] {
        writeArgs.fields = parsePairs(fields);
        return cmdWrite(options, writeArgs);
    }));

    static SearchArgs searchArgs;
    auto* search = app.add_subcommand("search", "Search spaces through the router");
    search->add_option("--space", searchArgs.spaces, "Space id (repeatable)")->required();
    search->add_option("query", searchArgs.query, "Query: terms, \"phrases\", prefix*, AND/OR/NOT, field:term")
        ->required();
    search->add_option("--limit", searchArgs.limit, "Hits")->capture_default_str()->check(CLI::Range(1, 1000));
    search->add_option("--offset", searchArgs.offset, "Skip this many hits");
    search->callback(run([&] { return cmdSearch(options, searchArgs); }));

    static bool withSpaces = false;
    auto* stats = app.add_subcommand("stats", "Live figures from the nodes: per node, shard and space");
    stats->add_flag("--spaces", withSpaces, "Also list every space");
    stats->callback(run([&] { return cmdStats(options, withSpaces); }));
}

} // namespace

void addFleetCommands(CLI::App& app, const CtlOptions& options, CommandResult& result)
{
    addStoreGroup(app, options, result);
    addNodeGroup(app, options, result);
    addShardGroup(app, options, result);
    addSpaceGroup(app, options, result);
    addMapGroup(app, options, result);
    addDocumentCommands(app, options, result);
}

} // namespace shardmap::app
