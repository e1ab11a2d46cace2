#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace shardmap::testing {

// A fresh directory under the system temp dir, removed with everything in it at destruction
// (kept, for a post-mortem, when SHARDMAP_KEEP_TEST_DIRS is set).
class TempDir final {
public:
    TempDir()
    {
        std::random_device random;
        m_path = std::filesystem::temp_directory_path() / ("shardmap-test-" + std::to_string(random()));
        std::filesystem::create_directories(m_path);
    }
    ~TempDir()
    {
        if (const char* keep = std::getenv("SHARDMAP_KEEP_TEST_DIRS"); keep && *keep)
            return;
        std::error_code ignored;
        std::filesystem::remove_all(m_path, ignored);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    std::string path() const { return m_path.string(); }
    std::string file(const std::string& name) const { return (m_path / name).string(); }

private:
    std::filesystem::path m_path;
};

// Writes a secret the way an administrator must (a tokens file, an etcd password file): readable
// and writable by its owner only, which shardmapd and the stores insist on.
inline void writeSecretFile(const std::string& path, const std::string& text)
{
    std::ofstream(path, std::ios::trunc) << text;
    std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
}

} // namespace shardmap::testing
