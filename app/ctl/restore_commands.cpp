// shardmapctl's restore commands (issue 32): `restore space` shows what a restore of a space from a
// snapshot would do (its documents then and now, whether it replaces them) and queues it with
// --apply (core/migration/restore_requests.h; with --controller the Admin API change
// restore-space, which the access policy may hold for a second admin). The executor runs it like
// a migration: `migration show ID` and `watch` follow it. `restore shard` brings back a shard whose
// copies are all lost (through --controller: the change restore-shard, an admin's), `restore fleet`
// a whole fleet into an empty store and new nodes (core/migration/shard_restore.h).
#include "app/ctl/admin.h"
#include "app/ctl/command_line.h"
#include "app/ctl/output.h"
#include "core/admin/change_kinds.h"
#include "core/migration/restore_requests.h"
#include "core/migration/shard_restore.h"

#include <CLI/CLI.hpp>
#include <ostream>

namespace shardmap::app {

using nlohmann::json;

namespace {

struct RestoreArgs {
    core::SpaceRestoreRequest space;
    core::ShardRestoreRequest shard;
    core::FleetRestoreRequest fleet;
    std::vector<std::string> nodeAddresses;
    bool apply = false;
};

json previewJson(const core::SpaceRestorePreview& preview)
{
    json out { { "snapshot", preview.snapshot }, { "from_shard", preview.fromShard }, { "space", preview.then.space },
        { "into_space", preview.intoSpace }, { "into_shard", preview.intoShard }, { "replaces", preview.replaces },
        { "then",
            { { "live_docs", preview.then.liveDocs }, { "tombstones", preview.then.tombstones },
                { "bytes", preview.then.bytesEstimate } } },
        { "summary", preview.sentence() } };
    if (!preview.templateNote.empty())
        out["template_note"] = preview.templateNote;
    if (preview.replaces) {
        out["now_shard"] = preview.nowShard;
        if (preview.now)
            out["now"] = { { "live_docs", preview.now->liveDocs }, { "tombstones", preview.now->tombstones } };
        else
            out["now_error"] = preview.nowError;
    }
    return out;
}

CommandResult cmdRestoreSpacePreview(const CtlOptions& options, const RestoreArgs& args)
{
    auto preview = withAdmin(options, [&](core::FleetAdmin& admin) {
        return core::RestoreRequests(admin.store(), admin.nodes()).previewSpace(args.space);
    });
    if (!preview)
        return preview.error();
    json out = previewJson(*preview);
    out["applied"] = false;
    return CommandOutput { out, [sentence = preview->sentence()](std::ostream& stream) {
                              stream << sentence << "\nnothing queued; add --apply to restore it\n";
                          } };
}

CommandResult cmdRestoreSpaceApply(const CtlOptions& options, const RestoreArgs& args)
{
    auto queued = withAdmin(options, [&](core::FleetAdmin& admin) {
        return core::RestoreRequests(admin.store(), admin.nodes()).queueSpace(args.space, options.actor);
    });
    if (!queued)
        return queued.error();
    json out = json::parse(core::encode(*queued));
    out["applied"] = true;
    return CommandOutput { out, [record = *queued](std::ostream& stream) {
                              stream << "restore " << record.id << " queued: " << record.restoreSpace
                                     << " from snapshot " << record.restoreSnapshot << " into " << record.target
                                     << (record.space != record.restoreSpace ? " as " + record.space : "")
                                     << "; follow it with shardmapctl migration show " << record.id << "\n";
                          } };
}

json shardPreviewJson(const core::ShardRestorePreview& preview, bool applied)
{
    json spaces = json::array();
    for (const core::RestoredSpace& space : preview.spaces)
        spaces.push_back(
            { { "space", space.space }, { "in_snapshot", space.inSnapshot }, { "docs_then", space.docsThen } });
    return { { "snapshot", preview.snapshot }, { "shard", preview.shard }, { "from_node", preview.fromNode },
        { "into_node", preview.intoNode }, { "spaces", spaces }, { "moved_away", preview.movedAway },
        { "summary", preview.sentence() }, { "applied", applied } };
}

CommandResult cmdRestoreShard(const CtlOptions& options, const RestoreArgs& args)
{
    auto done = withAdmin(options, [&](core::FleetAdmin& admin) {
        return args.apply ? core::restoreShard(admin.store(), admin.nodes(), args.shard, options.actor)
                          : core::previewShardRestore(admin.store(), args.shard);
    });
    if (!done)
        return done.error();
    return CommandOutput { shardPreviewJson(*done, args.apply),
        [sentence = done->sentence(), apply = args.apply](std::ostream& stream) {
            stream << (apply ? "restored " : "") << sentence << "\n"
                   << (apply ? "" : "nothing changed; add --apply to restore it\n");
        } };
}

CommandResult cmdRestoreFleet(const CtlOptions& options, RestoreArgs args)
{
    for (const std::string& pair : args.nodeAddresses) {
        const auto equals = pair.find('=');
        if (equals == std::string::npos || equals == 0 || equals + 1 == pair.size())
            return core::makeError(core::ErrorCode::InvalidArgument, "--node takes OLD_ID=HOST:PORT, not " + pair);
        args.fleet.addresses[pair.substr(0, equals)] = pair.substr(equals + 1);
    }
    auto restored = withAdmin(options, [&](core::FleetAdmin& admin) {
        return core::restoreFleet(admin.store(), admin.nodes(), args.fleet, options.actor);
    });
    if (!restored)
        return restored.error();
    return CommandOutput { json { { "snapshot", args.fleet.snapshot }, { "shards", *restored } },
        [count = restored->size(), id = args.fleet.snapshot](std::ostream& stream) {
            stream << "restored the map and " << count << " shards from snapshot " << id << "\n";
        } };
}

} // namespace

void addRestoreCommands(CLI::App& app, const CtlOptions& options, CommandResult& result)
{
    static RestoreArgs args;
    auto* group = app.add_subcommand("restore", "Bring a space back from a snapshot")->require_subcommand(1);
    auto* space = group->add_subcommand("space",
        "Restore a space from a snapshot into a shard: shows what it does; --apply queues it (the reason goes in "
        "--reason)");
    space->add_option("--snapshot", args.space.snapshot, "Snapshot id")->required();
    space->add_option("--space", args.space.space, "The space as the snapshot holds it")->required();
    space->add_option("--shard", args.space.shard, "The shard it is restored into (not the one it is on)")->required();
    space->add_option("--as", args.space.asSpace, "Restore it under this new id, beside the live space");
    space->add_flag("--apply", args.apply, "Queue the restore (without it: only show what it would do)");
    space->callback([&options, &result] {
        if (!args.apply) {
            result = cmdRestoreSpacePreview(options, args);
            return;
        }
        result = viaController(options) ? changeViaController(options, core::restoreSpaceChange(args.space))
                                        : cmdRestoreSpaceApply(options, args);
    });
    auto* shard = group->add_subcommand("shard",
        "Bring back a shard whose every copy is lost onto a node from a snapshot: shows what it does; --apply "
        "does it");
    shard->add_option("--snapshot", args.shard.snapshot, "Snapshot id")->required();
    shard->add_option("--shard", args.shard.shard, "The lost shard")->required();
    shard->add_option("--node", args.shard.node, "The node it goes to")->required();
    shard->add_flag("--apply", args.apply, "Restore it (without it: only show what it would do)");
    shard->callback([&options, &result] {
        if (!args.apply || !viaController(options)) {
            result = cmdRestoreShard(options, args);
            return;
        }
        result = changeViaController(options, core::restoreShardChange(args.shard));
    });
    auto* fleet = group->add_subcommand("fleet",
        "Rebuild a fleet from a snapshot: its map into the empty store --store names, its shards onto new nodes");
    fleet->add_option("--repository", args.fleet.repository, "The snapshot repository (a directory)")->required();
    fleet->add_option("--snapshot", args.fleet.snapshot, "Snapshot id")->required();
    fleet->add_option("--node", args.nodeAddresses, "OLD_ID=HOST:PORT: where each node of the snapshot is now")
        ->required();
    fleet->callback([&options, &result] { result = cmdRestoreFleet(options, args); });
}

} // namespace shardmap::app
