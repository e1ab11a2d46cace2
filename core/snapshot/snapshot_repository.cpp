// The snapshot repository's files: path checks, the node's durable shard copy, manifests written
// atomically and read back, verification, and the removal of a folder by its references.
#include "core/snapshot/snapshot_repository.h"

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

namespace shardmap::core {

namespace fs = std::filesystem;

namespace {

bool hasDotParts(const fs::path& path)
{
    for (const auto& part : path) {
        if (part == ".." || part == ".")
            return true;
    }
    return false;
}

// The repository's message for a failed file call: what it is and where.
Error inRepository(const Error& error, const std::string& repository)
{
    std::string message = error.message;
    if (error.code == ErrorCode::ResourceExhausted)
        message = "the snapshot repository " + repository + " is full: " + message;
    else if (error.code == ErrorCode::PermissionDenied)
        message = "the snapshot repository " + repository + " is read-only: " + message;
    return makeError(error.code, message, error.context);
}

Status removeIfThere(const fs::path& path)
{
    std::error_code error;
    fs::remove(path, error);
    if (error && error != std::errc::no_such_file_or_directory)
        return fileError(error.value(), "cannot remove", path.string());
    return {};
}

} // namespace

Status checkRepositoryPath(const std::string& repository)
{
    const fs::path path(repository);
    if (repository.empty() || !path.is_absolute() || hasDotParts(path) || repository.size() > 4096)
        return makeError(ErrorCode::InvalidArgument,
            "a snapshot repository is an absolute path without '.' or '..' parts, not '" + repository.substr(0, 200)
                + "'");
    return {};
}

Status checkRepositoryWritable(const std::string& repository)
{
    if (auto valid = checkRepositoryPath(repository); !valid)
        return valid;
    std::error_code error;
    const auto status = fs::status(repository, error);
    if (!fs::exists(status))
        return makeError(ErrorCode::NotFound, "the snapshot repository " + repository + " does not exist");
    if (!fs::is_directory(status))
        return makeError(
            ErrorCode::FailedPrecondition, "the snapshot repository " + repository + " is not a directory");
    // access(2) says yes to root on a read-only mode: only creating a file tells.
    const std::string probe = repository + "/.write-probe-" + std::to_string(::getpid());
    std::ofstream out(probe);
    if (!out) {
        const int why = errno;
        return inRepository(fileError(why ? why : EACCES, "cannot create a file", repository), repository);
    }
    out.close();
    fs::remove(probe, error);
    return {};
}

Result<std::string> repositoryFile(const std::string& repository, const std::string& relative)
{
    if (auto valid = checkRepositoryPath(repository); !valid)
        return valid.error();
    const fs::path path(relative);
    bool emptyPart = relative.empty() || relative.find("//") != std::string::npos || relative.back() == '/';
    if (emptyPart || path.is_absolute() || hasDotParts(path))
        return makeError(ErrorCode::InvalidArgument,
            "a snapshot file is a path inside the repository without '.' or '..' parts, not '" + relative.substr(0, 200)
                + "'");
    const fs::path full = fs::path(repository) / path;
    // Through a symbolic link a path inside may lead outside: compare the real folders.
    std::error_code error;
    const fs::path root = fs::weakly_canonical(repository, error);
    const fs::path parent = fs::weakly_canonical(full.parent_path(), error);
    const auto [rootEnd, parentAt] = std::mismatch(root.begin(), root.end(), parent.begin(), parent.end());
    if (error || rootEnd != root.end())
        return makeError(ErrorCode::InvalidArgument, "the snapshot file " + relative + " leads out of the repository");
    return full.string();
}

std::string shardFileName(const std::string& snapshotId, const std::string& shardId)
{
    return snapshotId + "/" + shardId + ".db";
}

Status createSnapshotFolder(const std::string& repository, const std::string& id)
{
    if (auto valid = validateSnapshotId(id); !valid)
        return valid;
    if (auto writable = checkRepositoryWritable(repository); !writable)
        return writable;
    if (auto made = ensureDirectory(repository + "/" + id); !made)
        return inRepository(made.error(), repository);
    return syncDirectory(repository);
}

Result<ShardFileCopy> copyShardFile(
    ShardStore& store, const std::string& repository, const std::string& relative, const BackupPace& pace)
{
    if (auto writable = checkRepositoryWritable(repository); !writable)
        return writable.error();
    auto path = repositoryFile(repository, relative);
    if (!path)
        return path.error();
    std::error_code error;
    if (!fs::is_directory(fs::path(*path).parent_path(), error))
        return makeError(ErrorCode::FailedPrecondition, "the snapshot's folder for " + relative + " does not exist");
    if (fs::exists(*path, error))
        return makeError(ErrorCode::AlreadyExists, "the snapshot file " + relative + " exists already");
    const std::string temp = *path + ".tmp";
    (void)removeIfThere(temp);
    auto backup = store.backupTo(temp, pace);
    Status synced = backup ? syncFile(temp) : Status(backup.error());
    // A copy made as bytes was hashed as it was written; one through SQLite is read back.
    Result<FileDigest> digest = !synced ? Result<FileDigest>(synced.error())
        : backup->digest                ? Result<FileDigest>(*backup->digest)
                                        : digestFile(temp);
    if (digest && ::rename(temp.c_str(), path->c_str()) != 0)
        digest = fileError(errno, "cannot rename into place", *path);
    if (!digest) {
        (void)removeIfThere(temp);
        return inRepository(digest.error(), repository);
    }
    if (auto durable = syncDirectory(fs::path(*path).parent_path().string()); !durable)
        return durable.error();
    return ShardFileCopy { *digest, std::move(backup->spaces) };
}

Status restoreShardFile(const std::string& repository, const std::string& relative, const FileDigest& expected,
    const std::string& destination)
{
    auto path = repositoryFile(repository, relative);
    if (!path)
        return path.error();
    std::error_code error;
    if (!fs::is_regular_file(*path, error))
        return makeError(ErrorCode::NotFound, "the snapshot file " + relative + " is missing from " + repository);
    const std::string temp = destination + ".tmp";
    (void)removeIfThere(temp);
    fs::copy_file(*path, temp, fs::copy_options::overwrite_existing, error);
    Status copied = error ? Status(fileError(error.value(), "cannot copy " + relative + " to", temp)) : Status();
    Status synced = copied ? syncFile(temp) : copied;
    Result<FileDigest> digest = synced ? digestFile(temp) : Result<FileDigest>(synced.error());
    if (digest && *digest != expected)
        digest = makeError(ErrorCode::FailedPrecondition,
            "the snapshot file " + relative + " is damaged: " + std::to_string(digest->bytes) + " bytes, hash "
                + digest->xxh3_128 + "; its manifest says " + std::to_string(expected.bytes) + " bytes, hash "
                + expected.xxh3_128);
    if (digest && ::rename(temp.c_str(), destination.c_str()) != 0)
        digest = fileError(errno, "cannot rename into place", destination);
    if (!digest) {
        (void)removeIfThere(temp);
        return digest.error();
    }
    return syncDirectory(fs::path(destination).parent_path().string());
}

Status writeManifest(const std::string& repository, const SnapshotManifest& manifest)
{
    auto path = repositoryFile(repository, manifest.id + "/" + kManifestName);
    if (!path)
        return path.error();
    if (auto written = writeFileAtomically(*path, encodeManifest(manifest)); !written)
        return inRepository(written.error(), repository);
    return {};
}

Result<SnapshotManifest> readManifest(const std::string& repository, const std::string& id)
{
    if (auto valid = validateSnapshotId(id); !valid)
        return valid.error();
    auto path = repositoryFile(repository, id + "/" + kManifestName);
    if (!path)
        return path.error();
    std::ifstream in(*path);
    if (!in)
        return makeError(ErrorCode::NotFound, "snapshot " + id + " has no manifest in " + repository);
    std::stringstream text;
    text << in.rdbuf();
    return decodeManifest(text.str());
}

Result<std::map<std::string, SnapshotManifest>> readManifests(const std::string& repository)
{
    std::map<std::string, SnapshotManifest> out;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(repository, error)) {
        const std::string id = entry.path().filename().string();
        if (!entry.is_directory() || !validateSnapshotId(id) || !fs::exists(entry.path() / kManifestName))
            continue;
        auto manifest = readManifest(repository, id);
        if (!manifest)
            return manifest.error();
        out.emplace(id, std::move(*manifest));
    }
    if (error)
        return fileError(error.value(), "cannot list the snapshot repository", repository);
    return out;
}

SnapshotCheck verifySnapshot(const std::string& repository, const SnapshotManifest& manifest)
{
    SnapshotCheck check;
    for (const ShardFileEntry& entry : manifest.shards) {
        auto path = repositoryFile(repository, entry.file);
        auto digest = path ? digestFile(*path) : Result<FileDigest>(path.error());
        std::string problem;
        if (!digest)
            problem = digest.error().describe();
        else if (digest->bytes != entry.bytes)
            problem = std::to_string(digest->bytes) + " bytes, the manifest says " + std::to_string(entry.bytes);
        else if (digest->xxh3_128 != entry.xxh3_128)
            problem = "content hash " + digest->xxh3_128 + ", the manifest says " + entry.xxh3_128;
        if (digest)
            check.bytesRead += digest->bytes;
        if (!problem.empty())
            return { false, entry.file, problem, check.bytesRead };
    }
    return check;
}

Status removeSnapshotFolder(const std::string& repository, const std::string& id)
{
    if (auto valid = validateSnapshotId(id); !valid)
        return valid;
    const fs::path folder = fs::path(repository) / id;
    std::error_code missing;
    if (!fs::exists(folder, missing))
        return {}; // never made (a repository that was missing), or removed already
    if (auto removed = removeIfThere(folder / kManifestName); !removed)
        return removed;
    auto manifests = readManifests(repository);
    if (!manifests)
        return manifests.error();
    std::set<std::string> referenced;
    for (const auto& [other, manifest] : *manifests) {
        for (const std::string& file : manifest.files())
            referenced.insert(file);
    }
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(folder, error)) {
        if (referenced.contains(id + "/" + entry.path().filename().string()))
            continue;
        if (auto removed = removeIfThere(entry.path()); !removed)
            return removed;
    }
    if (error && error != std::errc::no_such_file_or_directory)
        return fileError(error.value(), "cannot list", folder.string());
    if (fs::is_empty(folder, error))
        fs::remove(folder, error);
    return syncDirectory(repository);
}

} // namespace shardmap::core
