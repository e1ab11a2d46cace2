#pragma once

// The Debian packages made from this very build, shared by the packages tests (issues 15, 27):
// one cpack run, and the four packages unpacked (dpkg -x) into one scratch root.

#include "ctl_run.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace shardmap::testing {

// cpack and lintian are quiet for a minute at times.
inline CtlRun runTool(const TempDir& dir, const std::vector<std::string>& argv, const std::string& name,
    const std::vector<std::string>& env = {})
{
    return runProgram(dir, argv, env, name, std::chrono::minutes(10));
}

inline const std::string kPackageVersion = std::string(SHARDMAP_VERSION) + "-1";

// package -> programs it installs in /usr/bin
inline const std::map<std::string, std::vector<std::string>> kPackages {
    { "shardmap", { "shardmap" } },
    { "shardmap-node", { "shardmap-node" } },
    { "shardmapd", { "shardmapd" } },
    { "shardmapctl", { "shardmapctl" } },
};

// The package names a Depends field lists, alternatives included, without versions or
// architecture qualifiers: "libc6 (>= 2.34), libfoo1 | libbar1" -> {libc6, libfoo1, libbar1}.
inline std::set<std::string> dependedPackages(const std::string& depends)
{
    std::set<std::string> names;
    std::size_t begin = 0;
    while (begin < depends.size()) {
        const auto end = std::min(depends.find_first_of(",|", begin), depends.size());
        const auto nameBegin = depends.find_first_not_of(' ', begin);
        if (nameBegin < end)
            names.insert(depends.substr(nameBegin, std::min(depends.find_first_of(" (:", nameBegin), end) - nameBegin));
        begin = end + 1;
    }
    return names;
}

class PackagesTest : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        s_dir = new TempDir;
        s_cpack = runTool(*s_dir,
            { SHARDMAP_CPACK_COMMAND, "--config", std::string(SHARDMAP_BUILD_DIR) + "/CPackConfig.cmake", "-B",
                s_dir->file("dist") },
            "cpack");
        if (s_cpack.code != 0)
            return;
        for (const auto& [package, programs] : kPackages) {
            const auto unpacked = runTool(*s_dir, { "/usr/bin/dpkg-deb", "-x", deb(package), root() }, "dpkg-x");
            s_unpackError += unpacked.code == 0 ? "" : package + ": " + unpacked.err;
        }
    }
    static void TearDownTestSuite()
    {
        delete s_dir;
        s_dir = nullptr;
    }

    static std::string deb(const std::string& package)
    {
        return s_dir->file("dist/" + package + "_" + kPackageVersion + "_amd64.deb");
    }
    // Where the four packages are unpacked.
    static std::string root() { return s_dir->file("root"); }

    static std::string field(const std::string& package, const std::string& name)
    {
        auto out = runTool(*s_dir, { "/usr/bin/dpkg-deb", "-f", deb(package), name }, "dpkg-deb-f").out;
        while (!out.empty() && out.back() == '\n')
            out.pop_back();
        return out;
    }

    // The package's control files (postinst, conffiles, ...) in a directory of their own.
    static std::string controlDir(const std::string& package)
    {
        const std::string control = s_dir->file("control-" + package);
        if (!std::filesystem::exists(control))
            runTool(*s_dir, { "/usr/bin/dpkg-deb", "-e", deb(package), control }, "dpkg-e");
        return control;
    }

    void SetUp() override
    {
        ASSERT_EQ(s_cpack.code, 0) << s_cpack.out << s_cpack.err;
        ASSERT_EQ(s_unpackError, "");
    }

    static inline TempDir* s_dir = nullptr;
    static inline CtlRun s_cpack;
    static inline std::string s_unpackError;
};

} // namespace shardmap::testing
