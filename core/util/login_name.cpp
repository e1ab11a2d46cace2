// loginName's implementation: $USER, else the effective user's passwd entry (thread-safe lookup).
#include "core/util/login_name.h"

#include <cstdlib>
#include <pwd.h>
#include <unistd.h>
#include <vector>

namespace shardmap::core {

std::string loginName()
{
    if (const char* user = std::getenv("USER"); user && *user)
        return user;
    // getpwuid_r: the console asks from several threads.
    long size = sysconf(_SC_GETPW_R_SIZE_MAX);
    std::vector<char> buffer(static_cast<std::size_t>(size > 0 ? size : 16384));
    passwd entry {};
    passwd* found = nullptr;
    if (getpwuid_r(geteuid(), &entry, buffer.data(), buffer.size(), &found) == 0 && found && found->pw_name)
        return found->pw_name;
    return {};
}

} // namespace shardmap::core
