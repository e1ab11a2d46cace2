#pragma once

// The executor leader's snapshots (issue 32): taking them on schedule and on demand, shard by
// shard through the nodes, writing the manifest last, verifying, retiring old ones and failing
// (and cleaning) those a former leader left running.

#include "core/client/node_client.h"
#include "core/map/map_editor.h"
#include "core/snapshot/snapshot_repository.h"
#include "core/snapshot/snapshot_requests.h"
#include "core/store/metadata_store.h"
#include "core/util/log.h"

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace shardmap::core {

// One round of this runs on the executor's snapshot thread while it leads; every commit is fenced
// with the executor's lease and every node call is made only while it holds, so a former leader
// that wakes up late changes nothing. Each step:
// - a running snapshot under another lease token than this leader's (its leader went away) is
//   marked failed, then its folder removed: a failed or interrupted snapshot is never usable;
// - deletes and verifies asked for (SnapshotRequests) are carried out;
// - a requested snapshot, or the schedule's (MigrationSettings::snapshotIntervalSeconds since the
//   last one started), is taken: the map as of one revision, then each shard's file made by its
//   primary's node (NodeClient::snapshotShard), or the previous usable snapshot's file referenced
//   when the shard's content checksum is the same; the manifest is written last, then every file
//   is read back (verified or corrupt);
// - retention removes complete snapshots beyond snapshotKeep or older than snapshotMaxAgeSeconds
//   (never the newest usable one) and failed records beyond snapshotKeep.
// Failpoint "snapshot.between_shards" runs before each shard's copy.
class SnapshotTaker {
public:
    struct Options {
        std::string actor;
        LogSink log;
    };
    SnapshotTaker(MetadataStore& store, NodeClientPool& nodes, MapEditor::FenceSource fence, Options options);

    void round();

    // The last usable snapshot and the schedule, as the last round read them (for the metrics).
    struct Figures {
        bool anyUsable = false;
        std::uint64_t usable = 0;
        std::int64_t lastGoodFinishedUnixMs = 0;
        std::int64_t lastGoodDurationMs = 0;
        std::uint64_t lastGoodBytes = 0;
        std::uint64_t intervalSeconds = 0;
    };
    Figures figures() const;

private:
    struct Taking;
    using Records = std::vector<Versioned<SnapshotRecord>>;

    Result<MigrationSettings> readSettings();
    void noteFigures(const Records& records, const MigrationSettings& settings);
    void failStale(const Records& records, const LeaseGrant& grant, const MigrationSettings& settings);
    void carryOutRequests(const Records& records, const MigrationSettings& settings);
    std::optional<Versioned<SnapshotRecord>> nextToTake(const Records& records, const MigrationSettings& settings);
    void retire(const Records& records, const MigrationSettings& settings);

    void take(Versioned<SnapshotRecord> record, const MigrationSettings& settings, const Records& records);
    Status start(Taking& taking);
    Status copyShards(Taking& taking);
    // With a previous snapshot: every shard's content checksum, asked of the nodes at once.
    void askChecksums(Taking& taking);
    Result<ShardFileEntry> copyShard(Taking& taking, const ShardRecord& shard);
    Status finish(Taking& taking);
    void verify(SnapshotRecord record, const SnapshotManifest& manifest, const std::string& repository);
    // Marks the snapshot failed (when the commit is refused, as after a lost lease, nothing else
    // happens: the next leader does it), then removes its folder.
    void fail(const std::string& id, const std::string& repository, const std::string& why);
    // Removes the snapshot's folder (what no other manifest references) and its record.
    void remove(const SnapshotRecord& record, const std::string& repository, const std::string& why);

    // The record changed by edit and committed with a compare-and-set on its current version,
    // fenced; the record as committed.
    Result<SnapshotRecord> commit(const std::string& id, const std::string& action, const std::string& reason,
        const std::function<void(SnapshotRecord&)>& edit);
    void log(LogLevel level, const std::string& message) const;

    MetadataStore& m_store;
    NodeClientPool& m_nodes;
    MapEditor::FenceSource m_fence;
    Options m_options;
    SnapshotRequests m_requests;
    mutable std::mutex m_mutex;
    Figures m_figures;
};

} // namespace shardmap::core
