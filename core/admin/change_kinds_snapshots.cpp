#include "core/admin/change_kind_steps.h"

// The change kinds of snapshots (issue 32): change-snapshot, named create-snapshot, verify-snapshot
// or delete-snapshot by its action, each one request SnapshotRequests commits for the leader; and
// restore-space, a space's restore that RestoreRequests checks and queues for the executor; and
// restore-shard, a lost shard brought back onto a node (core/migration/shard_restore.h).

#include "core/admin/admin_limits.h"
#include "core/migration/restore_requests.h"
#include "core/migration/shard_restore.h"
#include "core/snapshot/snapshot_requests.h"

#include <iterator>

namespace shardmap::core {

namespace {

using namespace change_steps;
using SnapshotOneof = v1::AdminChange;

std::string snapshotName(const v1::AdminChange& change)
{
    switch (change.change_snapshot().action()) {
    case v1::ChangeSnapshot::VERIFY: return "verify-snapshot";
    case v1::ChangeSnapshot::DELETE: return "delete-snapshot";
    default: return "create-snapshot";
    }
}

Status checkSnapshotText(const v1::AdminChange& change)
{
    return checkTextBounds("change.change_snapshot.", { { "snapshot", change.change_snapshot().snapshot(), 64 } });
}

std::string snapshotSummary(const v1::AdminChange& change)
{
    const std::string& id = change.change_snapshot().snapshot();
    switch (change.change_snapshot().action()) {
    case v1::ChangeSnapshot::VERIFY: return "read snapshot " + id + " back and check every file's hash";
    case v1::ChangeSnapshot::DELETE: return "delete snapshot " + id;
    default: return "take a snapshot of every shard and the map now";
    }
}

// Taking and checking a copy changes nothing live: an operator's. Deleting one loses a way back:
// an admin's.
Role snapshotRole(const PreparedChange& prepared, const OperatorLimits&)
{
    return prepared.change.change_snapshot().action() == v1::ChangeSnapshot::DELETE ? Role::Admin : Role::Operator;
}

Result<v1::ChangeResponse> applySnapshot(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor)
{
    SnapshotRequests requests(admin.store());
    const std::string& id = change.change_snapshot().snapshot();
    Result<SnapshotRecord> made = makeError(ErrorCode::InvalidArgument, "unknown snapshot action");
    switch (change.change_snapshot().action()) {
    case v1::ChangeSnapshot::CREATE: made = requests.create(actor); break;
    case v1::ChangeSnapshot::VERIFY: made = requests.requestVerify(id, actor); break;
    case v1::ChangeSnapshot::DELETE: made = requests.requestDelete(id, actor); break;
    default: break;
    }
    if (!made)
        return made.error();
    return recordResponse(admin.store(), "snapshot", encode(*made));
}

SpaceRestoreRequest restoreRequestOf(const v1::AdminChange& change)
{
    const auto& restore = change.restore_space();
    return { restore.snapshot(), restore.space(), restore.shard(), restore.as_space() };
}

Status checkRestoreText(const v1::AdminChange& change)
{
    const auto& restore = change.restore_space();
    return checkTextBounds("change.restore_space.",
        { { "snapshot", restore.snapshot(), 64 }, { "space", restore.space(), 256 }, { "shard", restore.shard(), 64 },
            { "as_space", restore.as_space(), 256 } });
}

// What it brings back and whether it replaces live documents: the approval and the role ask it.
Result<PreparedChange> prepareRestore(FleetAdmin& admin, PreparedChange prepared)
{
    auto preview = RestoreRequests(admin.store(), admin.nodes()).previewSpace(restoreRequestOf(prepared.change));
    if (!preview)
        return preview.error();
    prepared.size.spaces = 1;
    prepared.size.bytes = preview->then.bytesEstimate;
    prepared.size.replacesData = preview->replaces;
    prepared.summary = "restore " + preview->sentence();
    return prepared;
}

// Replacing a space's documents loses what it holds now: an admin's. Under a new id: an operator's.
Role restoreRole(const PreparedChange& prepared, const OperatorLimits&)
{
    return prepared.size.replacesData ? Role::Admin : Role::Operator;
}

Result<v1::ChangeResponse> applyRestore(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor)
{
    auto queued = RestoreRequests(admin.store(), admin.nodes()).queueSpace(restoreRequestOf(change), actor);
    if (!queued)
        return queued.error();
    return recordResponse(admin.store(), "migration", encode(*queued));
}

ShardRestoreRequest shardRestoreOf(const v1::AdminChange& change)
{
    const auto& restore = change.restore_lost_shard();
    return { restore.snapshot(), restore.shard(), restore.node() };
}

Status checkShardRestoreText(const v1::AdminChange& change)
{
    const auto& restore = change.restore_lost_shard();
    return checkTextBounds("change.restore_lost_shard.",
        { { "snapshot", restore.snapshot(), 64 }, { "shard", restore.shard(), 64 }, { "node", restore.node(), 64 } });
}

Result<PreparedChange> prepareShardRestore(FleetAdmin& admin, PreparedChange prepared)
{
    auto preview = previewShardRestore(admin.store(), shardRestoreOf(prepared.change));
    if (!preview)
        return preview.error();
    prepared.size.spaces = preview->spaces.size();
    prepared.summary = "restore " + preview->sentence();
    return prepared;
}

Result<v1::ChangeResponse> applyShardRestore(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor)
{
    const ShardRestoreRequest request = shardRestoreOf(change);
    auto restored = restoreShard(admin.store(), admin.nodes(), request, actor);
    if (!restored)
        return restored.error();
    // The shard's record as the restore left it.
    std::string json;
    if (auto listed = admin.store().list(keys::shard(request.shard)); listed) {
        if (auto found = listed->records.find(keys::shard(request.shard)); found != listed->records.end())
            json = found->second.value;
    }
    return recordResponse(admin.store(), "shard", json);
}

const ChangeKind kSnapshotChangeKinds[] = {
    { .oneof = SnapshotOneof::kChangeSnapshot,
        .nameOf = snapshotName,
        .checkText = checkSnapshotText,
        .summary = snapshotSummary,
        .role = snapshotRole,
        .apply = applySnapshot },
    { .oneof = SnapshotOneof::kRestoreSpace,
        .name = "restore-space",
        .checkText = checkRestoreText,
        .prepare = prepareRestore,
        .role = restoreRole,
        .apply = applyRestore },
    { .oneof = SnapshotOneof::kRestoreLostShard,
        .name = "restore-shard",
        .checkText = checkShardRestoreText,
        .prepare = prepareShardRestore,
        .role = adminRole,
        .apply = applyShardRestore },
};

} // namespace

v1::AdminChange restoreSpaceChange(const SpaceRestoreRequest& request)
{
    v1::AdminChange change;
    auto* restore = change.mutable_restore_space();
    restore->set_snapshot(request.snapshot);
    restore->set_space(request.space);
    restore->set_shard(request.shard);
    restore->set_as_space(request.asSpace);
    return change;
}

v1::AdminChange restoreShardChange(const ShardRestoreRequest& request)
{
    v1::AdminChange change;
    auto* restore = change.mutable_restore_lost_shard();
    restore->set_snapshot(request.snapshot);
    restore->set_shard(request.shard);
    restore->set_node(request.node);
    return change;
}

std::span<const ChangeKind> snapshotChangeKinds()
{
    return { std::begin(kSnapshotChangeKinds), std::end(kSnapshotChangeKinds) };
}

} // namespace shardmap::core
