#pragma once

// What administrators ask of snapshots (issue 32): take one now, verify one, delete one. Each is
// one compare-and-set on the map's snapshots/<id> record with its audit record; the executor's
// leader carries it out (core/migration/snapshot_taker.h), so that one process at a time writes
// and removes the repository's files.

#include "core/map/map_editor.h"
#include "core/map/shard_map.h"
#include "core/snapshot/snapshot_records.h"
#include "core/store/metadata_store.h"

#include <string>
#include <vector>

namespace shardmap::core {

class SnapshotRequests {
public:
    explicit SnapshotRequests(MetadataStore& store);

    // A new snapshot, requested: refused (FailedPrecondition) while the settings name no
    // repository or another snapshot is requested or running. One create-only commit
    // ("create-snapshot").
    Result<SnapshotRecord> create(const Actor& actor);
    // Asks the leader to read a complete snapshot back ("verify-snapshot").
    Result<SnapshotRecord> requestVerify(const std::string& id, const Actor& actor);
    // Asks the leader to remove a snapshot ("delete-snapshot"); refused while it runs.
    Result<SnapshotRecord> requestDelete(const std::string& id, const Actor& actor);

    // Every snapshot record, oldest first.
    Result<std::vector<Versioned<SnapshotRecord>>> list();
    // NotFound naming the id.
    Result<Versioned<SnapshotRecord>> find(const std::string& id);

private:
    using Edit = std::function<Status(SnapshotRecord&)>;
    Result<SnapshotRecord> edit(
        const std::string& id, const Actor& actor, const std::string& action, const Edit& change);

    MetadataStore& m_store;
};

// The snapshot records of a listing of snapshots/, oldest first by when they were made (records
// that do not decode are left out).
std::vector<Versioned<SnapshotRecord>> snapshotsOf(const StoreSnapshot& listed);

} // namespace shardmap::core
