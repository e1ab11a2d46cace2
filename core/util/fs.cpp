// DirectoryLock and ensureDirectory's implementation: flock on a lock file, and mkdir of each
// missing part of a path with mode 0700; fsync, the atomic replace of a file and XXH3-128 digests.
#include "core/util/fs.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <memory>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>
#include <xxhash.h>

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

Error fileError(int errnoValue, const std::string& doing, const std::string& path)
{
    ErrorCode code = ErrorCode::Internal;
    if (errnoValue == ENOSPC || errnoValue == EDQUOT)
        code = ErrorCode::ResourceExhausted;
    else if (errnoValue == EROFS || errnoValue == EACCES || errnoValue == EPERM)
        code = ErrorCode::PermissionDenied;
    else if (errnoValue == ENOENT || errnoValue == ENOTDIR)
        code = ErrorCode::NotFound;
    return makeError(code, doing + ": " + std::strerror(errnoValue), path);
}

namespace {

Status syncPath(const std::string& path, int flags)
{
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
    if (fd < 0)
        return fileError(errno, "cannot open to sync", path);
    const int synced = ::fsync(fd);
    const int error = errno;
    ::close(fd);
    if (synced != 0)
        return fileError(error, "cannot sync", path);
    return {};
}

Status writeAll(int fd, const std::string& text, const std::string& path)
{
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t wrote = ::write(fd, text.data() + done, text.size() - done);
        if (wrote < 0 && errno == EINTR)
            continue;
        if (wrote < 0)
            return fileError(errno, "cannot write", path);
        done += static_cast<std::size_t>(wrote);
    }
    return {};
}

} // namespace

Status syncFile(const std::string& path)
{
    return syncPath(path, O_RDONLY);
}

Status syncDirectory(const std::string& path)
{
    return syncPath(path, O_RDONLY | O_DIRECTORY);
}

Status writeFileAtomically(const std::string& path, const std::string& text)
{
    const std::string temp = path + ".tmp";
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return fileError(errno, "cannot create", temp);
    Status written = writeAll(fd, text, temp);
    if (written && ::fsync(fd) != 0)
        written = fileError(errno, "cannot sync", temp);
    ::close(fd);
    if (written && ::rename(temp.c_str(), path.c_str()) != 0)
        written = fileError(errno, "cannot rename into place", path);
    if (!written) {
        ::unlink(temp.c_str());
        return written;
    }
    return syncDirectory(std::filesystem::path(path).parent_path().string());
}

struct FileHasher::State {
    std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> xxh { XXH3_createState(), &XXH3_freeState };
};

FileHasher::FileHasher()
    : m_state(std::make_unique<State>())
{
    XXH3_128bits_reset(m_state->xxh.get());
}

FileHasher::~FileHasher() = default;

void FileHasher::update(const void* data, std::size_t size)
{
    XXH3_128bits_update(m_state->xxh.get(), data, size);
    m_bytes += size;
}

FileDigest FileHasher::finish()
{
    FileDigest digest { m_bytes, {} };
    XXH128_canonical_t canonical;
    XXH128_canonicalFromHash(&canonical, XXH3_128bits_digest(m_state->xxh.get()));
    static constexpr char kHex[] = "0123456789abcdef";
    for (unsigned char byte : canonical.digest) {
        digest.xxh3_128 += kHex[byte >> 4];
        digest.xxh3_128 += kHex[byte & 15];
    }
    return digest;
}

Result<FileDigest> digestFile(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return fileError(errno, "cannot open", path);
    FileHasher hasher;
    std::vector<char> buffer(1 << 20);
    while (true) {
        const ssize_t got = ::read(fd, buffer.data(), buffer.size());
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            const int error = errno;
            ::close(fd);
            return fileError(error, "cannot read", path);
        }
        if (got == 0)
            break;
        hasher.update(buffer.data(), static_cast<std::size_t>(got));
    }
    ::close(fd);
    return hasher.finish();
}

} // namespace shardmap::core
