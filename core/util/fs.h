#pragma once

// The file system as the servers use it: one process per data directory, directories that are
// their user's alone, files made durable (fsync, atomic replace) and a file's content hash.

#include "core/util/result.h"

#include <cstdint>
#include <memory>
#include <string>

namespace shardmap::core {

// An exclusive advisory lock on a file (flock), held until destruction, so that two processes
// never serve the same data directory.
class DirectoryLock final {
public:
    static Result<DirectoryLock> acquire(const std::string& directory);
    DirectoryLock(DirectoryLock&& other) noexcept;
    DirectoryLock& operator=(DirectoryLock&&) = delete;
    DirectoryLock(const DirectoryLock&) = delete;
    DirectoryLock& operator=(const DirectoryLock&) = delete;
    ~DirectoryLock();

private:
    explicit DirectoryLock(int fd)
        : m_fd(fd)
    {
    }
    int m_fd = -1;
};

// Creates path and its missing parents with mode 0700, whatever the umask: what a service keeps
// there is its user's alone. Directories that exist keep their mode (a packaged StateDirectory's).
Status ensureDirectory(const std::string& path);

// fsync of a file, or of a directory (so that a rename or a new entry in it survives a crash).
Status syncFile(const std::string& path);
Status syncDirectory(const std::string& path);
// Replaces path with text the way a crash never half-does: a temporary file beside it, written and
// fsynced, renamed over path, then the directory fsynced. ResourceExhausted when the disk is full,
// PermissionDenied when the directory is read-only.
Status writeFileAtomically(const std::string& path, const std::string& text);

// A file's size and its content hash: XXH3-128 as 32 hex digits (xxhsum -H2's canonical form).
struct FileDigest {
    std::uint64_t bytes = 0;
    std::string xxh3_128;
    bool operator==(const FileDigest&) const = default;
};
Result<FileDigest> digestFile(const std::string& path);

// The same digest taken as the bytes go by (a copy that hashes what it writes, with no read-back).
class FileHasher {
public:
    FileHasher();
    ~FileHasher();
    FileHasher(const FileHasher&) = delete;
    FileHasher& operator=(const FileHasher&) = delete;
    void update(const void* data, std::size_t size);
    FileDigest finish();

private:
    struct State;
    std::unique_ptr<State> m_state;
    std::uint64_t m_bytes = 0;
};

// The error of a failed file call (errno): ENOSPC and EDQUOT ResourceExhausted, EROFS and EACCES
// PermissionDenied, ENOENT NotFound, others Internal; the message says what was being done.
Error fileError(int errnoValue, const std::string& doing, const std::string& path);

} // namespace shardmap::core
