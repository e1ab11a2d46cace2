// DirectoryLock and ensureDirectory's implementation: flock on a lock file, and mkdir of each
// missing part of a path with mode 0700.
#include "core/util/fs.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace shardmap::core {

Result<DirectoryLock> DirectoryLock::acquire(const std::string& directory)
{
    const std::string path = directory + "/LOCK";
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
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
    // mkdir's mode, not create_directories' 0777: the umask can only take bits away from it.
    std::filesystem::path built;
    for (const auto& part : std::filesystem::path(path)) {
        built /= part;
        if (::mkdir(built.c_str(), 0700) != 0 && errno != EEXIST)
            return makeError(ErrorCode::Unavailable, std::string("cannot create directory: ") + std::strerror(errno),
                built.string());
    }
    std::error_code error;
    if (!std::filesystem::is_directory(path, error))
        return makeError(ErrorCode::Unavailable, "cannot create directory: a file of that name exists", path);
    return {};
}

} // namespace shardmap::core
