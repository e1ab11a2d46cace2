#pragma once

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

Status ensureDirectory(const std::string& path);

} // namespace shardmap::core
