#include "core/migration/shard_restore.h"

// The restore of a shard whose copies are all lost, and of a whole fleet onto new nodes: the
// snapshot's files installed on nodes, the spaces given their roles, the map committed.

#include "core/migration/fleet_facts.h"
#include "core/migration/restore_requests.h"
#include "core/snapshot/snapshot_repository.h"
#include "core/util/clock.h"

#include <set>

namespace shardmap::core {

namespace {

// Mutations per commit of a fleet's map: within what every store takes at once.
constexpr std::size_t kFleetCommitChunk = 64;

const ShardFileEntry* fileOf(const SnapshotManifest& manifest, const std::string& shard)
{
    for (const ShardFileEntry& entry : manifest.shards) {
        if (entry.shard == shard)
            return &entry;
    }
    return nullptr;
}

bool nodeLost(const MapSnapshot& map, const std::string& node)
{
    const NodeRecord* record = map.node(node);
    return !record || record->lost;
}

// Every copy of the shard is on a lost node (or one gone from the map).
Status checkAllCopiesLost(const MapSnapshot& map, const ShardRecord& shard)
{
    if (!nodeLost(map, shard.node))
        return refusal("shard " + shard.id + " has its primary on node " + shard.node
            + ", which is not lost; restore its spaces from the snapshot with restore space, or mark the node lost");
    for (const ShardCopy& copy : shard.replicas) {
        if (copy.state != CopyState::Lost && !nodeLost(map, copy.node))
            return refusal("shard " + shard.id + " has a copy on node " + copy.node
                + ", which is not lost; promote it instead of restoring");
    }
    return {};
}

Status checkRestoreNode(const MapSnapshot& map, const ShardRecord& shard, const std::string& node)
{
    const NodeRecord* record = map.node(node);
    if (!record)
        return unknownId("node", node);
    if (record->lost || record->retired)
        return refusal(
            "node " + node + " is " + std::string(record->lost ? "lost" : "retired") + "; nothing is placed on it");
    if (shard.node == node || shard.replicaOn(node))
        return refusal("node " + node + " holds a copy of shard " + shard.id + " already");
    return {};
}

Result<ShardRestorePreview> previewOf(MetadataStore& store, const MapSnapshot& map, const ShardRestoreRequest& request,
    SnapshotManifest& manifest, const ShardFileEntry*& file)
{
    const ShardRecord* shard = map.shard(request.shard);
    if (!shard)
        return unknownId("shard", request.shard);
    if (auto status = checkAllCopiesLost(map, *shard); !status)
        return status.error();
    if (auto status = checkRestoreNode(map, *shard, request.node); !status)
        return status.error();
    auto usable = readUsableSnapshot(store, map, request.snapshot);
    if (!usable)
        return usable.error();
    manifest = std::move(*usable);
    file = fileOf(manifest, request.shard);
    if (!file)
        return refusal("snapshot " + request.snapshot + " holds no file of shard " + request.shard);
    ShardRestorePreview preview { request.snapshot, manifest.startedUnixMs, request.shard, shard->node, request.node,
        {}, {} };
    std::set<std::string> onShard;
    for (const SpaceRecord* space : map.spacesOn(request.shard)) {
        if (space->migrating())
            return refusal("space " + space->id + " of shard " + request.shard + " migrates (" + space->migrationId
                + "); abandon that migration first");
        RestoredSpace restored { space->id, false, 0 };
        for (const SpaceStats& held : file->spaces) {
            if (held.space == space->id)
                restored = { space->id, true, held.liveDocs };
        }
        preview.spaces.push_back(restored);
        onShard.insert(space->id);
    }
    for (const SpaceStats& held : file->spaces) {
        if (!onShard.contains(held.space))
            preview.movedAway.push_back(held.space);
    }
    return preview;
}

// The file's spaces the map puts elsewhere, each with the epoch it is fenced at here.
std::map<std::string, std::uint64_t> fencedEpochs(const MapSnapshot& map, const std::vector<std::string>& spaces)
{
    std::map<std::string, std::uint64_t> fenced;
    for (const std::string& space : spaces) {
        const SpaceRecord* record = map.space(space);
        fenced[space] = record ? record->epoch : 1;
    }
    return fenced;
}

} // namespace

bool everyCopyLost(const MapSnapshot& map, const ShardRecord& shard)
{
    return static_cast<bool>(checkAllCopiesLost(map, shard));
}

std::string ShardRestorePreview::sentence() const
{
    std::size_t then = 0;
    std::string empty;
    for (const RestoredSpace& space : spaces) {
        if (space.inSnapshot)
            ++then;
        else
            empty += (empty.empty() ? "" : ", ") + space.space;
    }
    std::string text = "shard " + shard + " from snapshot " + snapshot + " onto " + intoNode + ": "
        + std::to_string(then) + " spaces as they were then (writes after the snapshot are lost)";
    if (!empty.empty())
        text += "; came after it and come back empty: " + empty;
    return text;
}

Status installShardFile(NodeClient& client, const std::string& repository, const ShardFileEntry& file,
    const std::map<std::string, std::uint64_t>& owned, const std::map<std::string, std::uint64_t>& fenced)
{
    auto placed = client.restoreShard({ file.shard, repository, file.file, { file.bytes, file.xxh3_128 } });
    if (!placed)
        return makeError(placed.error().code, "installing shard " + file.shard + ": " + placed.error().message);
    for (const auto& [space, epoch] : owned) {
        if (auto set = client.setOwnership(file.shard, { space, SpaceRole::Owner, epoch }); !set)
            return set.error();
    }
    for (const auto& [space, epoch] : fenced) {
        if (auto set = client.setOwnership(file.shard, { space, SpaceRole::Fenced, epoch }); !set)
            return set.error();
        for (;;) {
            auto dropped = client.dropSpace(file.shard, space, epoch, 0, 0);
            if (!dropped)
                return dropped.error();
            if (dropped->done)
                break;
        }
    }
    return {};
}

Result<ShardRestorePreview> previewShardRestore(MetadataStore& store, const ShardRestoreRequest& request)
{
    auto map = readMapSnapshot(store);
    if (!map)
        return map.error();
    SnapshotManifest manifest;
    const ShardFileEntry* file = nullptr;
    return previewOf(store, *map, request, manifest, file);
}

Result<ShardRestorePreview> restoreShard(
    MetadataStore& store, NodeClientPool& nodes, const ShardRestoreRequest& request, const Actor& actor)
{
    auto map = readMapSnapshot(store);
    if (!map)
        return map.error();
    SnapshotManifest manifest;
    const ShardFileEntry* file = nullptr;
    auto preview = previewOf(store, *map, request, manifest, file);
    if (!preview)
        return preview.error();
    auto client = nodes.get(map->node(request.node)->address);
    if (!client)
        return client.error();
    std::vector<Mutation> mutations;
    std::map<std::string, std::uint64_t> owned;
    for (const RestoredSpace& restored : preview->spaces) {
        const auto& space = map->spaces.at(restored.space);
        SpaceRecord moved = space.value;
        moved.epoch += 1;
        owned[moved.id] = moved.epoch;
        mutations.push_back({ keys::space(moved.id), encode(moved), space.modRevision });
    }
    if (auto installed = installShardFile(
            **client, map->settings.value.snapshotRepository, *file, owned, fencedEpochs(*map, preview->movedAway));
        !installed)
        return installed.error();
    const auto& shard = map->shards.at(request.shard);
    ShardRecord restored = shard.value;
    restored.node = request.node;
    restored.replicas.clear();
    restored.restoredFrom = "snapshot " + request.snapshot + " (map revision " + std::to_string(manifest.mapRevision)
        + "); writes after it were lost";
    mutations.push_back({ keys::shard(request.shard), encode(restored), shard.modRevision });
    CommitRequest commit { std::move(mutations), std::nullopt, std::nullopt, actor.name, "restore-shard",
        actor.reason.empty() ? preview->sentence() : actor.reason + " (" + preview->sentence() + ")" };
    auto committed = store.commit(commit);
    if (!committed && committed.error().code == ErrorCode::Conflict)
        return makeError(ErrorCode::Conflict,
            "shard " + request.shard + " or one of its spaces changed while it was restored; the file is on node "
                + request.node + " (drop it there before trying again)");
    if (!committed)
        return committed.error();
    return preview;
}

namespace {

// The snapshot's map as the new fleet's: nodes at their new addresses, shards without their copies
// (the executor restores them to the factor), spaces without migrations; templates and settings
// as they were. Each space's epoch by id, for the nodes.
Result<std::vector<Mutation>> fleetRecords(const SnapshotManifest& manifest, const FleetRestoreRequest& request,
    std::map<std::string, std::vector<const SpaceRecord*>>& spacesOf, std::vector<SpaceRecord>& spaces)
{
    std::set<std::string> holding;
    for (const ShardFileEntry& entry : manifest.shards)
        holding.insert(entry.node);
    std::vector<Mutation> mutations;
    spaces.reserve(manifest.mapRecords.size());
    for (const auto& [key, value] : manifest.mapRecords) {
        std::string record = value;
        if (key.starts_with(keys::kNodes)) {
            auto node = decodeNode(value);
            if (!node)
                return node.error();
            const auto address = request.addresses.find(node->id);
            if (address == request.addresses.end() && holding.contains(node->id))
                return makeError(ErrorCode::InvalidArgument,
                    "node " + node->id + " holds shard files of the snapshot; give its new address (--node " + node->id
                        + "=HOST:PORT)");
            if (address != request.addresses.end())
                node->address = address->second;
            node->lost = false;
            record = encode(*node);
        } else if (key.starts_with(keys::kShards)) {
            auto shard = decodeShard(value);
            if (!shard)
                return shard.error();
            shard->replicas.clear();
            shard->restoredFrom = "snapshot " + manifest.id + " (fleet restore)";
            record = encode(*shard);
        } else if (key.starts_with(keys::kSpaces)) {
            auto space = decodeSpace(value);
            if (!space)
                return space.error();
            space->migrationId.clear();
            space->target.clear();
            space->phase = MigrationPhase::Done;
            record = encode(*space);
            spaces.push_back(std::move(*space));
        }
        // Nodes, shards and spaces are new (the store must have none); settings and templates
        // replace what `init` wrote.
        const bool fleetRecord
            = key.starts_with(keys::kNodes) || key.starts_with(keys::kShards) || key.starts_with(keys::kSpaces);
        mutations.push_back({ key, record, fleetRecord ? std::optional<std::uint64_t>(0) : std::nullopt });
    }
    for (const SpaceRecord& space : spaces)
        spacesOf[space.shard].push_back(&space);
    return mutations;
}

Status checkEmptyStore(MetadataStore& store)
{
    for (const std::string_view prefix : { keys::kNodes, keys::kShards }) {
        auto listed = store.list(std::string(prefix));
        if (!listed)
            return listed.error();
        if (!listed->records.empty())
            return refusal("the store holds " + std::string(prefix)
                + " records already; a fleet is restored into an "
                  "empty store");
    }
    return {};
}

} // namespace

Result<std::vector<std::string>> restoreFleet(
    MetadataStore& store, NodeClientPool& nodes, const FleetRestoreRequest& request, const Actor& actor)
{
    auto manifest = readManifest(request.repository, request.snapshot);
    if (!manifest)
        return manifest.error();
    if (auto empty = checkEmptyStore(store); !empty)
        return empty.error();
    std::map<std::string, std::vector<const SpaceRecord*>> spacesOf;
    std::vector<SpaceRecord> spaces;
    auto mutations = fleetRecords(*manifest, request, spacesOf, spaces);
    if (!mutations)
        return mutations.error();
    std::map<std::string, std::uint64_t> epochs;
    for (const SpaceRecord& space : spaces)
        epochs[space.id] = space.epoch;
    std::vector<std::string> restored;
    for (const ShardFileEntry& entry : manifest->shards) {
        auto client = nodes.get(request.addresses.at(entry.node));
        if (!client)
            return client.error();
        std::map<std::string, std::uint64_t> owned;
        for (const SpaceRecord* space : spacesOf[entry.shard])
            owned[space->id] = space->epoch;
        std::map<std::string, std::uint64_t> fenced;
        for (const SpaceStats& held : entry.spaces) {
            if (!owned.contains(held.space))
                fenced[held.space] = epochs.contains(held.space) ? epochs.at(held.space) : 1;
        }
        if (auto installed = installShardFile(**client, request.repository, entry, owned, fenced); !installed)
            return makeError(installed.error().code,
                "node " + entry.node + " (" + request.addresses.at(entry.node) + "): " + installed.error().message);
        restored.push_back(entry.shard);
    }
    for (std::size_t at = 0; at < mutations->size(); at += kFleetCommitChunk) {
        const auto end
            = mutations->begin() + static_cast<std::ptrdiff_t>(std::min(at + kFleetCommitChunk, mutations->size()));
        CommitRequest commit { { mutations->begin() + static_cast<std::ptrdiff_t>(at), end }, std::nullopt,
            std::nullopt, actor.name, "restore-fleet",
            actor.reason.empty() ? "fleet from snapshot " + request.snapshot : actor.reason };
        if (auto committed = store.commit(commit); !committed)
            return committed.error();
    }
    return restored;
}

} // namespace shardmap::core
