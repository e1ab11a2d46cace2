#pragma once

// The snapshot repository (issue 32): a directory (local or a mounted network file system) with
// one folder per snapshot, <repository>/<id>/, holding a file per shard and the manifest.json
// written last. The one place that knows its layout: which paths are inside it, how a shard file
// is made durable (the node's copy), how a manifest is written and read, how a snapshot is verified
// and how its folder is removed without a file another snapshot still references.

#include "core/shard/shard_store.h"
#include "core/snapshot/snapshot_records.h"
#include "core/util/fs.h"
#include "core/util/result.h"

#include <map>
#include <string>
#include <vector>

namespace shardmap::core {

inline constexpr const char* kManifestName = "manifest.json";

// A repository as the settings may name it: an absolute path without "." or ".." parts.
Status checkRepositoryPath(const std::string& repository);
// The repository can take a snapshot: it exists, is a directory, and a file can be created in it.
// NotFound, FailedPrecondition (not a directory) or PermissionDenied (read-only) saying so.
Status checkRepositoryWritable(const std::string& repository);

// A path inside the repository from one relative to it ("<id>/<shard>.db"): refused when it is
// absolute, has an empty, "." or ".." part, or leads out of the repository through a symbolic
// link.
Result<std::string> repositoryFile(const std::string& repository, const std::string& relative);
// "<id>/<shard>.db": where a snapshot keeps a shard's file.
std::string shardFileName(const std::string& snapshotId, const std::string& shardId);

// Creates <repository>/<id>/ (the leader does, before any node writes into it).
Status createSnapshotFolder(const std::string& repository, const std::string& id);

// What the node made of a shard: the file's size and hash, and its spaces as the file holds them.
struct ShardFileCopy {
    FileDigest digest;
    std::vector<SpaceStats> spaces;
};
// The node's part: the shard copied by ShardStore::backupTo into "<relative>.tmp" in the
// repository (whose folder must exist), fsynced, hashed, renamed to relative and the folder fsynced.
// A file of that name already there is refused (AlreadyExists); a failed copy leaves no file.
Result<ShardFileCopy> copyShardFile(
    ShardStore& store, const std::string& repository, const std::string& relative, const BackupPace& pace);

// The node's part of a restore: the snapshot's file (relative to the repository) copied to
// destination (on the node's disk) through "<destination>.tmp", fsynced and checked against what
// the manifest says of it: a file of another size or hash is refused (FailedPrecondition naming it
// as damaged), as is one that is missing (NotFound). Nothing is left at destination unless the
// copy matched; then it is renamed into place and its folder fsynced.
Status restoreShardFile(const std::string& repository, const std::string& relative, const FileDigest& expected,
    const std::string& destination);

// Writes <repository>/<id>/manifest.json atomically (temporary file, fsync, rename, fsync).
Status writeManifest(const std::string& repository, const SnapshotManifest& manifest);
Result<SnapshotManifest> readManifest(const std::string& repository, const std::string& id);
// Every manifest in the repository, by snapshot id (folders without one are left out).
Result<std::map<std::string, SnapshotManifest>> readManifests(const std::string& repository);

// Reads every file of the manifest back: ok, or the first file (relative path) that is missing,
// of another size or another hash, and why.
struct SnapshotCheck {
    bool ok = true;
    std::string badFile;
    std::string problem;
    std::uint64_t bytesRead = 0;
};
SnapshotCheck verifySnapshot(const std::string& repository, const SnapshotManifest& manifest);

// Removes a snapshot's folder: its manifest first (it is no longer listed), then each of its files
// that no other manifest references (those stay until their last referrer goes), then the folder
// once it is empty. Files an earlier run left (temporary files) go too.
Status removeSnapshotFolder(const std::string& repository, const std::string& id);

} // namespace shardmap::core
