#pragma once

// What administrators ask of restores (issue 32): a space brought back from a snapshot into a
// shard, under its own id (its documents replaced at a cutover, the live shard serving until then)
// or under a new id to compare. The request is checked against the snapshot, the map and the
// target's room, previewed for a confirmation, and queued as a migration record the executor runs
// (core/migration/space_restore.h): the migration machinery, not a second way to copy a space.

#include "core/client/node_client.h"
#include "core/map/map_editor.h"
#include "core/map/shard_map.h"
#include "core/snapshot/snapshot_records.h"
#include "core/store/metadata_store.h"

#include <cstdint>
#include <optional>
#include <string>

namespace shardmap::core {

// The manifest of a snapshot a restore may use: the settings name a repository, the snapshot's
// record is complete or verified (a corrupt one is refused naming its bad file) and its manifest
// reads; FailedPrecondition or NotFound saying which is not so.
Result<SnapshotManifest> readUsableSnapshot(MetadataStore& store, const MapSnapshot& map, const std::string& snapshot);

struct SpaceRestoreRequest {
    std::string snapshot;
    // The space as the snapshot holds it.
    std::string space;
    // The shard it is restored into.
    std::string shard;
    // Empty: its own id (replacing its documents when the space exists); else a new id, which no
    // space may have.
    std::string asSpace = {};
};

// What a restore of a space would do, for its confirmation.
struct SpaceRestorePreview {
    std::string snapshot;
    std::int64_t takenUnixMs = 0;
    // The snapshot's shard that held the space, and the space's figures in its file.
    std::string fromShard;
    SpaceStats then;
    // The space's id after the restore, the shard it goes to, and whether its documents now are
    // replaced (the space exists under that id).
    std::string intoSpace;
    std::string intoShard;
    bool replaces = false;
    // Where the space is now and its figures there (nullopt: no such space, or its node did not
    // answer: nowError says which).
    std::string nowShard;
    std::optional<SpaceStats> now;
    std::string nowError;
    // Set when the target is built with another template than the snapshot's shard was: the
    // documents are indexed with the target's settings.
    std::string templateNote;

    // "space t1 from snapshot snap-... (taken 2026-12-07 18:00 UTC): 120 documents then, 0 now on
    // s2; they replace its documents at the cutover onto s3".
    std::string sentence() const;

private:
    std::string restoreSentence() const;
};

class RestoreRequests {
public:
    RestoreRequests(MetadataStore& store, NodeClientPool& nodes);

    // The checks of a restore and what it would do: refused (FailedPrecondition) while the
    // settings name no repository, for a snapshot that is not usable (failed, corrupt, running)
    // or has no manifest, a space the snapshot does not hold, a target that cannot receive spaces,
    // the space's own shard as target when it is replaced (the copy is built beside the live one),
    // a space that migrates, a new id that exists or is invalid; NotFound for an unknown snapshot
    // or shard.
    Result<SpaceRestorePreview> previewSpace(const SpaceRestoreRequest& request);
    // The preview's checks, the target's room for the space and its staging file, then one
    // commit ("restore-space"): the restore's migration record (queued) and, when it replaces a
    // space, the space marked as migrating with it.
    Result<MigrationRecord> queueSpace(const SpaceRestoreRequest& request, const Actor& actor);

private:
    MetadataStore& m_store;
    NodeClientPool& m_nodes;
};

} // namespace shardmap::core
