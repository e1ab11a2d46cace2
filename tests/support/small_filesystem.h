#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace shardmap::testing {

// A small tmpfs mounted at path, so that the filesystem itself fills up (ENOSPC, a disk-full
// alert), not just a configured cap. Needs root; mounted() says whether it worked.
class SmallFilesystem final {
public:
    explicit SmallFilesystem(const std::string& path, const std::string& size = "4m")
        : m_path(path)
    {
        std::filesystem::create_directories(path);
        const std::string command = "mount -t tmpfs -o size=" + size + " shardmap-test '" + path + "' 2>/dev/null";
        m_mounted = ::geteuid() == 0 && std::system(command.c_str()) == 0;
    }
    ~SmallFilesystem()
    {
        if (m_mounted)
            (void)std::system(("umount -l '" + m_path + "'").c_str());
    }
    SmallFilesystem(const SmallFilesystem&) = delete;
    SmallFilesystem& operator=(const SmallFilesystem&) = delete;
    bool mounted() const { return m_mounted; }

private:
    std::string m_path;
    bool m_mounted = false;
};

} // namespace shardmap::testing
