// shardmapctl's snapshot commands (issue 32): snapshot create|list|show|verify|delete, with --json.
// Create, verify and delete are requests the executor's leader carries out (core/snapshot/
// snapshot_requests.h; with --controller the Admin API change change-snapshot); --wait waits for
// the outcome in the map.
#include "app/ctl/command_line.h"
#include "app/ctl/output.h"
#include "core/snapshot/snapshot_repository.h"
#include "core/snapshot/snapshot_requests.h"
#include "core/util/units.h"

#include <CLI/CLI.hpp>
#include <ostream>
#include <thread>

namespace shardmap::app {

using core::ErrorCode;
using core::SnapshotRecord;
using core::SnapshotState;
using nlohmann::json;

namespace {

struct SnapshotArgs {
    std::string id;
    bool wait = false;
    std::uint64_t waitSeconds = 600;
};

json recordJson(const SnapshotRecord& record)
{
    json out = json::parse(core::encode(record));
    out["usable"] = core::usable(record.state);
    return out;
}

std::string durationText(const SnapshotRecord& r)
{
    if (r.finishedUnixMs == 0 || r.startedUnixMs == 0)
        return "-";
    return fixed(static_cast<double>(r.finishedUnixMs - r.startedUnixMs) / 1000.0) + " s";
}

std::string stateText(const SnapshotRecord& r)
{
    std::string text = core::snapshotStateName(r.state);
    if (r.state == SnapshotState::Corrupt)
        text += " (" + r.badFile + ")";
    if (r.deleteRequested)
        text += ", deleting";
    return text;
}

// The snapshot's record and the store it was read from, or NotFound.
core::Result<SnapshotRecord> readRecord(const CtlOptions& options, const std::string& id)
{
    auto store = openCtlStore(options);
    if (!store)
        return store.error();
    auto found = core::SnapshotRequests(**store).find(id);
    if (!found)
        return found.error();
    return found->value;
}

// Polls the record until done says so (a record gone counts as done when gone is true).
core::Result<std::optional<SnapshotRecord>> waitFor(const CtlOptions& options, const SnapshotArgs& args,
    const std::string& id, const std::function<bool(const SnapshotRecord&)>& done)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(args.waitSeconds);
    while (true) {
        auto record = readRecord(options, id);
        if (!record && record.error().code == ErrorCode::NotFound)
            return std::optional<SnapshotRecord> {};
        if (!record)
            return record.error();
        if (done(*record))
            return std::optional(*record);
        if (std::chrono::steady_clock::now() >= deadline)
            return core::makeError(ErrorCode::DeadlineExceeded,
                "snapshot " + id + " is still " + core::snapshotStateName(record->state) + " after "
                    + std::to_string(args.waitSeconds) + " s; is a shardmapd leading?");
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
}

// What a request or a wait ended with: the record, and exit kExitSnapshotBad when it is failed or
// corrupt.
CommandOutput recordOutput(const SnapshotRecord& record, const std::string& what)
{
    CommandOutput output { recordJson(record), {} };
    output.json["result"] = what;
    if (record.state == SnapshotState::Failed || record.state == SnapshotState::Corrupt)
        output.exitCode = kExitSnapshotBad;
    output.human = [record, what](std::ostream& out) {
        out << what << "\n";
        if (!record.error.empty())
            out << "  " << record.error << "\n";
    };
    return output;
}

// Sends the request (the store, or the Admin API with --controller); the record it made.
core::Result<SnapshotRecord> request(
    const CtlOptions& options, v1::ChangeSnapshot::Action action, const std::string& id, CommandResult& sent)
{
    if (viaController(options)) {
        v1::AdminChange change;
        change.mutable_change_snapshot()->set_action(action);
        change.mutable_change_snapshot()->set_snapshot(id);
        sent = changeViaController(options, change);
        if (!sent)
            return sent.error();
        if (sent->exitCode != 0 || !sent->json.contains("record"))
            return core::makeError(ErrorCode::Aborted, "the request awaits approval");
        return core::decodeSnapshot(sent->json["record"].dump());
    }
    auto store = openCtlStore(options);
    if (!store)
        return store.error();
    core::SnapshotRequests requests(**store);
    switch (action) {
    case v1::ChangeSnapshot::VERIFY: return requests.requestVerify(id, options.actor);
    case v1::ChangeSnapshot::DELETE: return requests.requestDelete(id, options.actor);
    default: return requests.create(options.actor);
    }
}

bool ended(const SnapshotRecord& r)
{
    return r.state == SnapshotState::Verified || r.state == SnapshotState::Corrupt || r.state == SnapshotState::Failed;
}

CommandResult cmdSnapshotCreate(const CtlOptions& options, const SnapshotArgs& args)
{
    CommandResult sent = core::makeError(ErrorCode::Internal, "not sent");
    auto made = request(options, v1::ChangeSnapshot::CREATE, "", sent);
    if (!made)
        return made.error().code == ErrorCode::Aborted ? sent : CommandResult(made.error());
    if (!args.wait)
        return recordOutput(*made, "snapshot " + made->id + " requested; the executor's leader takes it");
    auto waited = waitFor(options, args, made->id, ended);
    if (!waited)
        return waited.error();
    if (!*waited)
        return core::makeError(ErrorCode::NotFound, "snapshot " + made->id + " was removed meanwhile");
    return recordOutput(**waited, "snapshot " + made->id + " " + core::snapshotStateName((*waited)->state));
}

CommandResult cmdSnapshotVerify(const CtlOptions& options, const SnapshotArgs& args)
{
    CommandResult sent = core::makeError(ErrorCode::Internal, "not sent");
    auto made = request(options, v1::ChangeSnapshot::VERIFY, args.id, sent);
    if (!made)
        return made.error().code == ErrorCode::Aborted ? sent : CommandResult(made.error());
    if (!args.wait)
        return recordOutput(*made, "verification of snapshot " + args.id + " requested");
    auto waited = waitFor(options, args, args.id, [](const SnapshotRecord& r) { return !r.verifyRequested; });
    if (!waited)
        return waited.error();
    if (!*waited)
        return core::makeError(ErrorCode::NotFound, "snapshot " + args.id + " was removed meanwhile");
    const SnapshotRecord& record = **waited;
    return recordOutput(record,
        "snapshot " + args.id + " " + core::snapshotStateName(record.state)
            + (record.badFile.empty() ? "" : ": " + record.badFile));
}

CommandResult cmdSnapshotDelete(const CtlOptions& options, const SnapshotArgs& args)
{
    CommandResult sent = core::makeError(ErrorCode::Internal, "not sent");
    auto made = request(options, v1::ChangeSnapshot::DELETE, args.id, sent);
    if (!made)
        return made.error().code == ErrorCode::Aborted ? sent : CommandResult(made.error());
    if (!args.wait)
        return recordOutput(*made, "deletion of snapshot " + args.id + " requested");
    auto waited = waitFor(options, args, args.id, [](const SnapshotRecord&) { return false; });
    if (!waited)
        return waited.error();
    return CommandOutput { json { { "id", args.id }, { "result", "deleted" } },
        [id = args.id](std::ostream& out) { out << "snapshot " << id << " deleted\n"; } };
}

CommandResult cmdSnapshotList(const CtlOptions& options)
{
    auto map = readMap(options);
    auto store = openCtlStore(options);
    if (!map || !store)
        return map ? store.error() : map.error();
    auto records = core::SnapshotRequests(**store).list();
    if (!records)
        return records.error();
    json list = json::array();
    Table table({ "SNAPSHOT", "STATE", "STARTED", "DURATION", "SHARDS COPIED", "SIZE", "BY", "REASON" });
    for (const auto& [record, revision] : *records) {
        list.push_back(recordJson(record));
        table.addRow({ record.id, stateText(record), record.startedUnixMs ? formatTime(record.startedUnixMs) : "-",
            durationText(record), std::to_string(record.shardsCopied) + "/" + std::to_string(record.shardsTotal),
            core::formatBytes(record.bytes), record.requestedBy, record.reason });
    }
    const std::string repository = map->settings.value.snapshotRepository;
    return CommandOutput { json { { "repository", repository }, { "snapshots", list } },
        [table, repository](std::ostream& out) {
            out << "repository: " << (repository.empty() ? "(none set)" : repository) << "\n";
            table.print(out);
        } };
}

CommandResult cmdSnapshotShow(const CtlOptions& options, const std::string& id)
{
    auto record = readRecord(options, id);
    auto map = readMap(options);
    if (!record || !map)
        return record ? map.error() : record.error();
    json out = recordJson(*record);
    Table files({ "SHARD", "NODE", "FILE", "SIZE", "XXH3-128", "SPACES" });
    auto manifest = core::readManifest(map->settings.value.snapshotRepository, id);
    if (manifest) {
        out["manifest"] = json::parse(core::encodeManifest(*manifest));
        for (const core::ShardFileEntry& e : manifest->shards)
            files.addRow(
                { e.shard, e.node, e.file, core::formatBytes(e.bytes), e.xxh3_128, std::to_string(e.spaces.size()) });
    } else {
        out["manifest_error"] = manifest.error().describe();
    }
    const std::string note = manifest ? std::string() : manifest.error().describe();
    return CommandOutput { out, [record = *record, files, note](std::ostream& stream) {
                              stream << "snapshot " << record.id << ": " << stateText(record) << ", map revision "
                                     << record.mapRevision << ", by " << record.requestedBy
                                     << (record.reason.empty() ? "" : " (" + record.reason + ")") << "\n";
                              if (!record.error.empty())
                                  stream << "  " << record.error << "\n";
                              if (note.empty())
                                  files.print(stream);
                              else
                                  stream << "  no manifest: " << note << "\n";
                          } };
}

} // namespace

void addSnapshotCommands(CLI::App& app, const CtlOptions& options, CommandResult& result)
{
    auto run = runInto(result);
    static SnapshotArgs args;
    auto* group = app.add_subcommand("snapshot", "Snapshots of every shard and the map: take, list, check, delete")
                      ->require_subcommand(1);
    auto waitFlags = [](CLI::App* command) {
        command->add_flag("--wait", args.wait, "Wait for the executor's leader to carry it out");
        command->add_option("--wait-seconds", args.waitSeconds, "How long --wait waits (default 600)");
    };
    auto* create = group->add_subcommand("create", "Take a snapshot now (the reason goes in --reason)");
    waitFlags(create);
    create->callback(run([&] { return cmdSnapshotCreate(options, args); }));
    group->add_subcommand("list", "Every snapshot with its state, time, size and who took it")->callback(run([&] {
        return cmdSnapshotList(options);
    }));
    auto* show = group->add_subcommand("show", "One snapshot: its record and its manifest's files");
    show->add_option("id", args.id, "Snapshot id")->required();
    show->callback(run([&] { return cmdSnapshotShow(options, args.id); }));
    auto* verify = group->add_subcommand("verify", "Read every file of a snapshot back and check its hash");
    verify->add_option("id", args.id, "Snapshot id")->required();
    waitFlags(verify);
    verify->callback(run([&] { return cmdSnapshotVerify(options, args); }));
    auto* remove = group->add_subcommand("delete", "Delete a snapshot (files later snapshots reference stay)");
    remove->add_option("id", args.id, "Snapshot id")->required();
    waitFlags(remove);
    remove->callback(run([&] { return cmdSnapshotDelete(options, args); }));
}

} // namespace shardmap::app
