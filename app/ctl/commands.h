#pragma once

#include "core/map/map_editor.h"
#include "core/store/metadata_store.h"

#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace shardmap::app {

// What a command produced: JSON for --json, and a printer for people.
struct CommandOutput {
    nlohmann::json json;
    std::function<void(std::ostream&)> human;
};

using CommandResult = core::Result<CommandOutput>;

struct CtlOptions {
    std::string storeUri;
    core::Actor actor;
    std::chrono::milliseconds timeout { 10000 };
};

// Opens the store named by --store (or SHARDMAP_STORE), with a message that says how to fix it.
core::Result<std::unique_ptr<core::MetadataStore>> openCtlStore(const CtlOptions& options, bool create = false);
// The map as of now, read from the store named by the options.
core::Result<core::MapSnapshot> readMap(const CtlOptions& options);

CommandResult cmdInit(const CtlOptions& options);
CommandResult cmdNodeAdd(const CtlOptions& options, const std::string& id, const std::string& address,
    const std::map<std::string, std::string>& labels);
CommandResult cmdNodeRemove(const CtlOptions& options, const std::string& id);
CommandResult cmdNodeList(const CtlOptions& options);
struct ShardCreateArgs {
    std::string id;
    std::string node;
    std::vector<std::string> fields;
    std::uint64_t capacityDocs = 0;
    std::uint64_t capacityBytes = 0;
};
CommandResult cmdShardCreate(const CtlOptions& options, const ShardCreateArgs& args);
CommandResult cmdShardList(const CtlOptions& options);
CommandResult cmdShardSetState(const CtlOptions& options, const std::string& id, const std::string& state);
CommandResult cmdSpaceList(const CtlOptions& options, const std::string& shard);
CommandResult cmdSpaceWhere(const CtlOptions& options, const std::string& space);
CommandResult cmdSpacePin(const CtlOptions& options, const std::string& space, const std::string& shard);
CommandResult cmdSpaceUnpin(const CtlOptions& options, const std::string& space);
CommandResult cmdSpaceReassign(const CtlOptions& options, const std::string& space, const std::string& shard);
CommandResult cmdMapHistory(const CtlOptions& options, std::uint64_t from, std::size_t limit);
CommandResult cmdMapDiff(const CtlOptions& options, std::uint64_t a, std::uint64_t b);

struct WriteArgs {
    std::string space;
    std::string id;
    std::map<std::string, std::string> fields;
    std::uint64_t version = 0;
    bool deleted = false;
    std::string file; // JSON lines: {"space","id","version","fields":{},"deleted"}
};
CommandResult cmdWrite(const CtlOptions& options, const WriteArgs& args);
struct SearchArgs {
    std::vector<std::string> spaces;
    std::string query;
    std::uint32_t limit = 20;
    std::uint32_t offset = 0;
};
CommandResult cmdSearch(const CtlOptions& options, const SearchArgs& args);
CommandResult cmdStats(const CtlOptions& options, bool spaces);

} // namespace shardmap::app
