#include "core/util/fs.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <unistd.h>
#include <utility>

namespace shardmap::core {

Result<DirectoryLock> DirectoryLock::acquire(const std::string& directory)
{
    const std::string path = directory + "/LOCK";
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return makeError(ErrorCode::Unavailable, std::string("cannot open lock file: ") + std::strerror(errno), path);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        ::close(fd);
        return makeError(ErrorCode::FailedPrecondition, "another process is using this data directory", directory);
    }
    return DirectoryLock(fd);
}

DirectoryLock::DirectoryLock(DirectoryLock&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1))
{
}

DirectoryLock::~DirectoryLock()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

Status ensureDirectory(const std::string& path)
{
    std::error_code error;
    std::filesystem::create_directories(path, error);
    if (error)
        return makeError(ErrorCode::Unavailable, "cannot create directory: " + error.message(), path);
    return {};
}

} // namespace shardmap::core
