#pragma once

// shardmapctl through shardmapd's Admin API (--controller HOST:PORT): reads go through it as a
// read-only store, changes as Admin changes that shardmapd checks against the caller's role and
// audits under the identity it authenticated (docs/ACCESS.md).

#include "app/ctl/commands.h"
#include "shardmap/v1/admin.pb.h"

namespace CLI {
class App;
}

namespace shardmap::app {

// Exit code of a change recorded as awaiting approval instead of made.
inline constexpr int kExitAwaitingApproval = 10;

// --controller, --controller-ca/-cert/-key and --token-file (and their environment variables).
void addControllerFlags(CLI::App& app, CtlOptions& options);
// Whether commands go through the Admin API.
inline bool viaController(const CtlOptions& options)
{
    return !options.controller.address.empty();
}
// The store as the Admin API shows it to this caller (reads only).
core::Result<std::unique_ptr<core::MetadataStore>> openControllerStore(const CtlOptions& options);
// Sends one change; prints what it made, or that it awaits approval (exit kExitAwaitingApproval).
CommandResult changeViaController(const CtlOptions& options, const v1::AdminChange& change);

// whoami, approvals list/approve/refuse/remove, access new-token/hash-token/check.
void addAccessCommands(CLI::App& app, const CtlOptions& options, CommandResult& result);

// The Admin change each changing command sends.
namespace changes {
v1::AdminChange addNode(const std::string& id, const std::string& address,
    const std::map<std::string, std::string>& labels, const std::string& zone = {});
v1::AdminChange changeReplica(const std::string& shard, const std::string& node, v1::ChangeReplica::Action action);
v1::AdminChange loseNode(const std::string& node);
v1::AdminChange setNodeZone(const std::string& node, const std::string& zone);
v1::AdminChange setReplication(const std::string& shard, std::uint32_t factor, std::optional<bool> allowSameZone);
v1::AdminChange removeNode(const std::string& id);
v1::AdminChange createShard(const ShardCreateArgs& args);
v1::AdminChange setShardState(const std::string& shard, const std::string& state);
v1::AdminChange pinSpace(const std::string& space, const std::string& shard);
v1::AdminChange reassignSpace(const std::string& space, const std::string& shard);
v1::AdminChange queueMigration(const std::string& space, const std::string& target, std::uint64_t throttle);
v1::AdminChange steerMigration(const std::string& id, v1::SteerMigration::Action action);
v1::AdminChange setThrottle(const std::string& id, std::uint64_t docsPerSecond);
v1::AdminChange startOperation(const OperationArgs& args);
v1::AdminChange applyPlan(const std::string& planJson);
v1::AdminChange setSettings(const core::MigrationSettings& settings);
} // namespace changes

} // namespace shardmap::app
