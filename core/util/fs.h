#pragma once

// The file system as the servers use it: one process per data directory, and directories that are
// their user's alone.

#include "core/util/result.h"

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

} // namespace shardmap::core
