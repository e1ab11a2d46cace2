#pragma once

// Snapshots (issue 32): the map's record of each snapshot (snapshots/<id>: its state, who asked and
// why, its progress), the manifest written last into its folder (the map at a revision and one
// entry per shard file), their JSON forms, and the shard content checksum that decides whether a
// shard is copied again or its earlier file referenced.

#include "core/shard/shard_store.h"
#include "core/util/index_engine.h"
#include "core/util/result.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardmap::core {

// requested (on demand, not started) -> running (the leader copies shard by shard) -> complete
// (manifest written) -> verified or corrupt (every file read back). failed: it could not be
// finished (an error, or its leader went away); its folder is removed, it is never usable.
enum class SnapshotState { Requested, Running, Complete, Verified, Corrupt, Failed };

const char* snapshotStateName(SnapshotState state);
std::optional<SnapshotState> parseSnapshotState(std::string_view name);
// Complete or verified: its manifest is written and every file was there when last checked.
bool usable(SnapshotState state);

// One snapshot as the map records it. Every change is a compare-and-set with its audit record;
// the leader's are fenced with the executor lease.
struct SnapshotRecord {
    std::string id;
    SnapshotState state = SnapshotState::Requested;
    // The identity that asked (the Admin API's caller, shardmapctl's --actor, or the executor for
    // a scheduled one) and why.
    std::string requestedBy;
    std::string reason;
    bool scheduled = false;
    std::int64_t createdUnixMs = 0;
    std::int64_t startedUnixMs = 0;
    std::int64_t finishedUnixMs = 0;
    // The store revision the manifest's map is of.
    std::uint64_t mapRevision = 0;
    // The executor lease holder and token that run it: a leader that finds a running snapshot
    // under another token marks it failed.
    std::string leader;
    std::uint64_t leaderToken = 0;
    std::uint32_t shardsTotal = 0;
    std::uint32_t shardsDone = 0;
    // Shards whose file this snapshot wrote (the others reference an earlier snapshot's file).
    std::uint32_t shardsCopied = 0;
    // Bytes of every file the manifest names, and of those this snapshot wrote.
    std::uint64_t bytes = 0;
    std::uint64_t bytesCopied = 0;
    std::int64_t verifiedUnixMs = 0;
    // corrupt: the first file that failed (relative to the repository) and why.
    std::string badFile;
    std::string error;
    // An administrator's requests that the leader carries out.
    bool verifyRequested = false;
    bool deleteRequested = false;

    bool operator==(const SnapshotRecord&) const = default;
};

std::string encode(const SnapshotRecord& record);
Result<SnapshotRecord> decodeSnapshot(const std::string& json);

namespace keys {
inline constexpr std::string_view kSnapshots = "snapshots/";
inline std::string snapshot(std::string_view id)
{
    return std::string(kSnapshots) + std::string(id);
}
} // namespace keys

// A new snapshot's id: "snap-YYYYMMDD-HHMMSS-XXXX" (UTC, then 4 random hex digits), so that ids
// and folders sort by time.
std::string newSnapshotId(std::int64_t unixMs);
// 1-64 characters of a-z, 0-9 and '-': a folder name on any file system.
Status validateSnapshotId(std::string_view id);

// What decides whether a shard changed since a snapshot: the sum over its spaces of their content
// checksums, live documents and tombstones (modulo 2^64).
std::uint64_t shardContentChecksum(const std::vector<SpaceStats>& spaces);

// One shard's file in a snapshot.
struct ShardFileEntry {
    std::string shard;
    std::string node;
    std::string templateName;
    std::uint32_t templateVersion = 1;
    IndexEngine engine = IndexEngine::Fts5;
    // Relative to the repository: "<snapshot id>/<shard>.db", in this snapshot's folder or, when
    // the shard had not changed, in the earlier one's (copiedIn).
    std::string file;
    std::string copiedIn;
    std::uint64_t bytes = 0;
    std::string xxh3_128;
    std::uint64_t contentChecksum = 0;
    // The spaces' aggregates as the file holds them.
    std::vector<SpaceStats> spaces;

    bool operator==(const ShardFileEntry&) const = default;
};

// The manifest.json of a snapshot's folder, written last (core/snapshot/snapshot_repository.h):
// the map records needed to rebuild the map as of mapRevision (nodes, shards, spaces with their
// epochs, templates, settings: key -> the record's JSON as the store keeps it) and every shard's
// file.
struct SnapshotManifest {
    std::string id;
    std::string requestedBy;
    std::string reason;
    bool scheduled = false;
    std::int64_t startedUnixMs = 0;
    std::int64_t finishedUnixMs = 0;
    std::uint64_t mapRevision = 0;
    std::map<std::string, std::string> mapRecords;
    std::vector<ShardFileEntry> shards;

    // Every file the manifest needs, relative to the repository.
    std::vector<std::string> files() const;
    std::uint64_t bytes() const;
    bool operator==(const SnapshotManifest&) const = default;
};

// The map records a manifest keeps: their keys' prefixes.
bool keptInManifest(std::string_view key);

std::string encodeManifest(const SnapshotManifest& manifest);
Result<SnapshotManifest> decodeManifest(const std::string& json);

} // namespace shardmap::core
