// The Debian packages (issue 15): CPack makes the four of them from this very build, lintian
// finds no error in them, and unpacked into a scratch root (dpkg -x) their programs run.
#include "ctl_run.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <sstream>

using namespace shardmap::testing;

namespace {

// cpack and lintian are quiet for a minute at times.
CtlRun run(const TempDir& dir, const std::vector<std::string>& argv, const std::string& name,
    const std::vector<std::string>& env = {})
{
    return runProgram(dir, argv, env, name, std::chrono::minutes(10));
}

std::string field(const TempDir& dir, const std::string& deb, const std::string& name)
{
    auto out = run(dir, { "/usr/bin/dpkg-deb", "-f", deb, name }, "dpkg-deb-f").out;
    while (!out.empty() && out.back() == '\n')
        out.pop_back();
    return out;
}

const std::string kVersion = std::string(SHARDMAP_VERSION) + "-1";

// package -> programs it installs in /usr/bin
const std::map<std::string, std::vector<std::string>> kPackages {
    { "shardmap", { "shardmap" } },
    { "shardmap-node", { "shardmap-node" } },
    { "shardmapd", { "shardmapd" } },
    { "shardmapctl", { "shardmapctl" } },
};

class PackagesTest : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        s_dir = new TempDir;
        s_cpack = run(*s_dir,
            { SHARDMAP_CPACK_COMMAND, "--config", std::string(SHARDMAP_BUILD_DIR) + "/CPackConfig.cmake", "-B",
                s_dir->file("dist") },
            "cpack");
    }
    static void TearDownTestSuite()
    {
        delete s_dir;
        s_dir = nullptr;
    }

    static std::string deb(const std::string& package)
    {
        return s_dir->file("dist/" + package + "_" + kVersion + "_amd64.deb");
    }

    static TempDir* s_dir;
    static CtlRun s_cpack;
};

TempDir* PackagesTest::s_dir = nullptr;
CtlRun PackagesTest::s_cpack;

} // namespace

TEST_F(PackagesTest, CPackMakesTheFourPackagesWithComputedDependencies)
{
    ASSERT_EQ(s_cpack.code, 0) << s_cpack.out << s_cpack.err;
    for (const auto& [package, programs] : kPackages) {
        SCOPED_TRACE(package);
        ASSERT_TRUE(std::filesystem::exists(deb(package))) << s_cpack.out;
        EXPECT_EQ(field(*s_dir, deb(package), "Package"), package);
        EXPECT_EQ(field(*s_dir, deb(package), "Version"), kVersion);
        // dpkg-shlibdeps: the libraries the binaries link, as package dependencies.
        const auto depends = field(*s_dir, deb(package), "Depends");
        EXPECT_NE(depends.find("libc6"), std::string::npos) << depends;
        EXPECT_NE(depends.find("libgrpc++"), std::string::npos) << depends;
        EXPECT_NE(depends.find("libsqlite3"), std::string::npos) << depends;
        if (package == "shardmap") {
            EXPECT_NE(depends.find("libqt6widgets6"), std::string::npos) << depends;
        }
        if (package == "shardmap-node" || package == "shardmapd") {
            EXPECT_NE(depends.find("adduser"), std::string::npos) << depends;
            EXPECT_NE(depends.find("libsystemd0"), std::string::npos) << depends;
        }
    }
}

TEST_F(PackagesTest, LintianFindsNoErrors)
{
    ASSERT_EQ(s_cpack.code, 0) << s_cpack.err;
    ASSERT_TRUE(std::filesystem::exists("/usr/bin/lintian")) << "lintian is missing: scripts/install-deps.sh";
    std::vector<std::string> argv { "/usr/bin/lintian", "--fail-on", "error", "--no-tag-display-limit" };
    for (const auto& [package, programs] : kPackages)
        argv.push_back(deb(package));
    const auto lintian = run(*s_dir, argv, "lintian");
    EXPECT_EQ(lintian.code, 0) << lintian.out << lintian.err;
    EXPECT_EQ(lintian.out.find("\nE: "), std::string::npos) << lintian.out;
    std::cout << lintian.out;
}

TEST_F(PackagesTest, UnpackedIntoAScratchRootTheProgramsRunAndTheSystemFilesAreInPlace)
{
    ASSERT_EQ(s_cpack.code, 0) << s_cpack.err;
    const std::string root = s_dir->file("root");
    for (const auto& [package, programs] : kPackages) {
        SCOPED_TRACE(package);
        const auto unpacked = run(*s_dir, { "/usr/bin/dpkg-deb", "-x", deb(package), root }, "dpkg-x");
        ASSERT_EQ(unpacked.code, 0) << unpacked.err;
        for (const auto& program : programs) {
            const auto version = run(*s_dir, { root + "/usr/bin/" + program, "--version" }, program,
                { "QT_QPA_PLATFORM=xcb", "DISPLAY=:199" });
            EXPECT_EQ(version.code, 0) << version.err;
            EXPECT_EQ(version.out, program + " " + SHARDMAP_VERSION + "\n") << version.err;
        }
        EXPECT_TRUE(std::filesystem::exists(root + "/usr/share/doc/" + package + "/copyright"));
        EXPECT_TRUE(std::filesystem::exists(root + "/usr/share/doc/" + package + "/changelog.Debian.gz"));
    }
    // Man pages (gzipped), units, configuration, completion, desktop files, icons.
    for (const char* path : { "/usr/share/man/man1/shardmap.1.gz", "/usr/share/man/man1/shardmap-node.1.gz",
             "/usr/share/man/man8/shardmapd.8.gz", "/usr/share/man/man1/shardmapctl.1.gz",
             "/lib/systemd/system/shardmap-node.service", "/lib/systemd/system/shardmapd.service",
             "/etc/shardmap/node.conf", "/etc/shardmap/shardmapd.conf",
             "/usr/share/bash-completion/completions/shardmapctl",
             "/usr/share/applications/io.github.shardmap.Console.desktop",
             "/usr/share/metainfo/io.github.shardmap.Console.metainfo.xml",
             "/usr/share/icons/hicolor/scalable/apps/io.github.shardmap.Console.svg",
             "/usr/share/icons/hicolor/48x48/apps/io.github.shardmap.Console.png",
             "/usr/share/icons/hicolor/256x256/apps/io.github.shardmap.Console.png",
             "/usr/share/shardmap/prometheus/alerts.yml", "/usr/share/shardmap/prometheus/grafana-dashboard.json" })
        EXPECT_TRUE(std::filesystem::exists(root + path)) << path;
}

TEST_F(PackagesTest, TheServicePackagesMarkTheirConfigurationAsConffilesAndCreateTheServiceUser)
{
    ASSERT_EQ(s_cpack.code, 0) << s_cpack.err;
    for (const auto& [package, conffile] : std::map<std::string, std::string> {
             { "shardmap-node", "/etc/shardmap/node.conf" }, { "shardmapd", "/etc/shardmap/shardmapd.conf" } }) {
        SCOPED_TRACE(package);
        const std::string control = s_dir->file("control-" + package);
        ASSERT_EQ(run(*s_dir, { "/usr/bin/dpkg-deb", "-e", deb(package), control }, "dpkg-e").code, 0);
        EXPECT_EQ(readWholeFile(control + "/conffiles"), conffile + "\n");
        const std::string postinst = readWholeFile(control + "/postinst");
        // The user the units run as (User=shardmap), made once, as a system user.
        EXPECT_NE(postinst.find("getent passwd shardmap"), std::string::npos) << postinst;
        EXPECT_NE(postinst.find("adduser --system --group"), std::string::npos) << postinst;
        for (const char* script : { "postinst", "prerm", "postrm" }) {
            const std::string path = control + "/" + script;
            EXPECT_EQ(std::filesystem::status(path).permissions() & std::filesystem::perms::owner_exec,
                std::filesystem::perms::owner_exec)
                << script;
            EXPECT_EQ(run(*s_dir, { "/bin/sh", "-n", path }, "sh-n").code, 0) << script;
        }
    }
}
