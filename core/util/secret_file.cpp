// checkSecretFile's implementation: stat the file and refuse group or other permission bits.
#include "core/util/secret_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

namespace shardmap::core {

Status checkSecretFile(const std::string& path, const std::string& what)
{
    struct stat info { };
    if (::stat(path.c_str(), &info) != 0)
        return makeError(errno == ENOENT ? ErrorCode::NotFound : ErrorCode::Unavailable,
            "cannot read " + what + " " + path + ": " + std::strerror(errno));
    constexpr mode_t kOthers = S_IRGRP | S_IWGRP | S_IROTH | S_IWOTH;
    if ((info.st_mode & kOthers) == 0)
        return {};
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(info.st_mode & 07777));
    const bool readable = (info.st_mode & (S_IRGRP | S_IROTH)) != 0;
    return makeError(ErrorCode::FailedPrecondition,
        what + " " + path + " may be " + (readable ? "read" : "written") + " by other accounts (mode " + mode
            + "); a secret must be readable only by its owner: chmod 600 " + path);
}

} // namespace shardmap::core
