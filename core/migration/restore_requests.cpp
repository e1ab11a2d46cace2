#include "core/migration/restore_requests.h"

// RestoreRequests' implementation: a space restore checked against the snapshot's record and
// manifest, the map and the target's room, and queued as a migration record with its restore
// fields.

#include "core/map/index_templates.h"
#include "core/migration/fleet_facts.h"
#include "core/migration/migration_requests.h"
#include "core/plan/space_holds.h"
#include "core/snapshot/snapshot_repository.h"
#include "core/snapshot/snapshot_requests.h"
#include "core/util/clock.h"
#include "core/util/validation.h"

namespace shardmap::core {

namespace {

// The snapshot's shard file that holds space, and the space's figures in it.
const ShardFileEntry* fileHolding(const SnapshotManifest& manifest, const std::string& space, SpaceStats& stats)
{
    for (const ShardFileEntry& entry : manifest.shards) {
        for (const SpaceStats& held : entry.spaces) {
            if (held.space == space) {
                stats = held;
                return &entry;
            }
        }
    }
    return nullptr;
}

struct CheckedRestore {
    SpaceRestorePreview preview;
    SnapshotManifest manifest;
    const ShardFileEntry* file = nullptr;
};

Status checkIntoSpace(const MapSnapshot& map, const SpaceRestoreRequest& request, SpaceRestorePreview& preview)
{
    preview.intoSpace = request.asSpace.empty() ? request.space : request.asSpace;
    if (auto valid = validateSpaceId(preview.intoSpace); !valid)
        return valid;
    const SpaceRecord* now = map.space(preview.intoSpace);
    if (!request.asSpace.empty() && now)
        return refusal("space " + request.asSpace + " exists; a restore under a new id needs an id no space has");
    preview.replaces = now != nullptr;
    if (!now)
        return {};
    preview.nowShard = now->shard;
    if (now->shard == request.shard)
        return refusal("space " + now->id + " is on shard " + request.shard
            + " now; restore it into another shard (the restored copy is built beside the live one, which "
              "serves until the cutover)");
    if (now->migrating())
        return refuseHeld(map, { now });
    return {};
}

Result<CheckedRestore> checkRestore(
    MetadataStore& store, NodeClientPool& nodes, const MapSnapshot& map, const SpaceRestoreRequest& request)
{
    CheckedRestore checked;
    auto manifest = readUsableSnapshot(store, map, request.snapshot);
    if (!manifest)
        return manifest.error();
    checked.manifest = std::move(*manifest);
    SpaceRestorePreview& preview = checked.preview;
    preview.snapshot = request.snapshot;
    preview.takenUnixMs = checked.manifest.startedUnixMs;
    checked.file = fileHolding(checked.manifest, request.space, preview.then);
    if (!checked.file)
        return refusal("snapshot " + request.snapshot + " holds no space " + request.space);
    preview.fromShard = checked.file->shard;
    const ShardRecord* target = map.shard(request.shard);
    if (!target)
        return unknownId("shard", request.shard);
    if (auto status = checkTargetShard(map, *target); !status)
        return status.error();
    preview.intoShard = request.shard;
    const TemplateRef into = templateOf(*target);
    if (into.name != checked.file->templateName || into.version != checked.file->templateVersion)
        preview.templateNote = "shard " + request.shard + " is built with template "
            + templateLabel(into.name, into.version) + ", the snapshot's shard " + checked.file->shard
            + " was built with " + templateLabel(checked.file->templateName, checked.file->templateVersion)
            + ": the documents are indexed with " + request.shard + "'s settings";
    if (auto status = checkIntoSpace(map, request, preview); !status)
        return status.error();
    if (preview.replaces) {
        const ShardRecord* holder = map.shard(preview.nowShard);
        const NodeRecord* node = holder ? map.node(holder->node) : nullptr;
        auto client = node ? nodes.get(node->address)
                           : Result<std::shared_ptr<NodeClient>>(unknownId("shard", preview.nowShard));
        auto stats = client ? (*client)->spaceStats(preview.nowShard, { preview.intoSpace })
                            : Result<std::vector<SpaceStats>>(client.error());
        if (stats && !stats->empty())
            preview.now = stats->front();
        else
            preview.nowError = stats ? "its node holds no figures of it" : stats.error().message;
    }
    return checked;
}

// The map read now (into map) and the request checked against it.
Result<CheckedRestore> readAndCheck(
    MetadataStore& store, NodeClientPool& nodes, const SpaceRestoreRequest& request, MapSnapshot& map)
{
    auto read = readMapSnapshot(store);
    if (!read)
        return read.error();
    map = std::move(*read);
    return checkRestore(store, nodes, map, request);
}

} // namespace

Result<SnapshotManifest> readUsableSnapshot(MetadataStore& store, const MapSnapshot& map, const std::string& snapshot)
{
    const std::string& repository = map.settings.value.snapshotRepository;
    if (repository.empty())
        return refusal("the settings name no snapshot repository (snapshot_repository)");
    auto record = SnapshotRequests(store).find(snapshot);
    if (!record)
        return record.error();
    const SnapshotRecord& taken = record->value;
    if (taken.state == SnapshotState::Corrupt)
        return refusal("snapshot " + snapshot + " is corrupt (" + taken.badFile + ": " + taken.error
            + "); a restore from it is refused");
    if (!usable(taken.state))
        return refusal("snapshot " + snapshot + " is " + snapshotStateName(taken.state) + ", not usable for a restore");
    auto manifest = readManifest(repository, snapshot);
    if (!manifest)
        return refusal("snapshot " + snapshot + ": " + manifest.error().message);
    return manifest;
}

std::string SpaceRestorePreview::sentence() const
{
    std::string text = restoreSentence();
    return templateNote.empty() ? text : text + " (" + templateNote + ")";
}

std::string SpaceRestorePreview::restoreSentence() const
{
    std::string text = "space " + then.space + " from snapshot " + snapshot + " (shard " + fromShard
        + "): " + std::to_string(then.liveDocs) + " documents then";
    if (replaces) {
        text += now ? ", " + std::to_string(now->liveDocs) + " now on " + nowShard
                    : ", unknown now on " + nowShard + " (" + nowError + ")";
        return text + "; they replace its documents at the cutover onto " + intoShard;
    }
    if (intoSpace != then.space)
        return text + "; restored as new space " + intoSpace + " on " + intoShard;
    return text + "; the space is made anew on " + intoShard;
}

RestoreRequests::RestoreRequests(MetadataStore& store, NodeClientPool& nodes)
    : m_store(store)
    , m_nodes(nodes)
{
}

Result<SpaceRestorePreview> RestoreRequests::previewSpace(const SpaceRestoreRequest& request)
{
    MapSnapshot map;
    auto checked = readAndCheck(m_store, m_nodes, request, map);
    if (!checked)
        return checked.error();
    return checked->preview;
}

Result<MigrationRecord> RestoreRequests::queueSpace(const SpaceRestoreRequest& request, const Actor& actor)
{
    MapSnapshot readMap;
    auto checked = readAndCheck(m_store, m_nodes, request, readMap);
    if (!checked)
        return checked.error();
    const MapSnapshot* map = &readMap;
    const SpaceRestorePreview& preview = checked->preview;
    const ShardRecord& target = *map->shard(request.shard);
    // The target's node takes the staging file (the whole shard's) and the space's copy.
    FleetFacts facts(*map, m_nodes);
    const SpaceSize size { preview.then.liveDocs, preview.then.bytesEstimate + checked->file->bytes / 2 };
    const SpaceRecord* now = map->space(preview.intoSpace);
    SpaceRecord measured;
    measured.id = preview.intoSpace;
    if (auto room = checkTargetRoom(*map, now ? *now : measured, target, facts.preflightFacts(size, target)); !room)
        return room.error();
    MigrationRecord record;
    record.id = newMigrationId();
    record.space = preview.intoSpace;
    record.source = preview.replaces ? preview.nowShard : preview.fromShard;
    record.target = request.shard;
    record.restoreSnapshot = request.snapshot;
    record.restoreShard = preview.fromShard;
    record.restoreSpace = request.space;
    record.restoreReplaces = preview.replaces;
    record.requestedBy = actor.name;
    record.reason = actor.reason;
    record.createdUnixMs = record.updatedUnixMs = nowUnixMs();
    record.progress.docsTotal = preview.then.liveDocs + preview.then.tombstones;
    record.progress.bytesTotal = preview.then.bytesEstimate;
    std::vector<Mutation> mutations { { keys::migration(record.id), encode(record), 0 } };
    if (now) {
        SpaceRecord marked = *now;
        marked.migrationId = record.id;
        marked.phase = MigrationPhase::Queued;
        mutations.push_back({ keys::space(now->id), encode(marked), map->spaces.at(now->id).modRevision });
    }
    auto committed = m_store.commit(
        CommitRequest { std::move(mutations), std::nullopt, std::nullopt, actor.name, "restore-space", actor.reason });
    if (!committed && committed.error().code == ErrorCode::Conflict)
        return makeError(
            ErrorCode::Conflict, "space " + preview.intoSpace + " changed while the restore was checked; try again");
    if (!committed)
        return committed.error();
    return record;
}

} // namespace shardmap::core
