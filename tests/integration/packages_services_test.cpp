// Issue 27: the service packages as an administrator lives with them. Their maintainer scripts
// run against a scratch root (DPKG_ROOT, as dpkg and deb-systemd-helper understand it), so the
// machine that runs the test is not changed.
#include "packages_fixture.h"

#include <csignal>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <string>

using namespace shardmap::testing;

namespace {

const std::map<std::string, std::string> kUnits {
    { "shardmap-node", "shardmap-node.service" },
    { "shardmapd", "shardmapd.service" },
};

} // namespace

// Purge used to leave the enable links behind, so a reinstalled package came up enabled.
TEST_F(PackagesTest, PurgeRemovesTheLinksThatEnabledTheUnit)
{
    ASSERT_TRUE(std::filesystem::exists("/usr/bin/systemctl")) << "systemctl is missing: scripts/install-deps.sh";
    // The service user exists (a getent that says so): adduser would change this machine.
    const std::string stubs = s_dir->file("stubs");
    std::filesystem::create_directories(stubs);
    std::ofstream(stubs + "/getent") << "#!/bin/sh\nexit 0\n";
    std::filesystem::permissions(stubs + "/getent", std::filesystem::perms::owner_all);

    for (const auto& [package, unit] : kUnits) {
        SCOPED_TRACE(package);
        const std::string root = s_dir->file("purge-" + package);
        ASSERT_EQ(runTool(*s_dir, { "/usr/bin/dpkg-deb", "-x", deb(package), root }, "dpkg-x").code, 0);
        const std::vector<std::string> env { "DPKG_ROOT=" + root, "DPKG_MAINTSCRIPT_PACKAGE=" + package,
            "PATH=" + stubs + ":/usr/sbin:/usr/bin:/sbin:/bin" };
        const auto script = [&](const std::string& name, const std::string& argument) {
            const auto run = runTool(*s_dir, { controlDir(package) + "/" + name, argument }, name, env);
            EXPECT_EQ(run.code, 0) << name << " " << argument << ": " << run.out << run.err;
        };
        const std::string state = root + "/var/lib/systemd/deb-systemd-helper-enabled/" + unit + ".dsh-also";
        const std::string link = root + "/etc/systemd/system/multi-user.target.wants/" + unit;

        script("postinst", "configure");
        EXPECT_TRUE(std::filesystem::exists(state)) << "postinst did not record the unit's links";
        EXPECT_FALSE(std::filesystem::is_symlink(link)) << "the unit is enabled before it is configured";

        // The administrator enables it as docs/PACKAGING.md says.
        const auto enabled = runTool(*s_dir, { "/usr/bin/systemctl", "--root=" + root, "enable", unit }, "enable");
        ASSERT_EQ(enabled.code, 0) << enabled.err;
        ASSERT_TRUE(std::filesystem::is_symlink(link));

        // dpkg --purge: prerm, the files go, postrm remove, postrm purge.
        script("prerm", "remove");
        std::filesystem::remove(root + "/lib/systemd/system/" + unit);
        script("postrm", "remove");
        script("postrm", "purge");
        EXPECT_FALSE(std::filesystem::is_symlink(link)) << "purge left " << link;
        EXPECT_FALSE(std::filesystem::exists(state)) << "purge left " << state;

        // Installed again, it waits for its configuration as a first install does.
        ASSERT_EQ(runTool(*s_dir, { "/usr/bin/dpkg-deb", "-x", deb(package), root }, "dpkg-x").code, 0);
        script("postinst", "configure");
        EXPECT_FALSE(std::filesystem::is_symlink(link)) << "the package installed again came up enabled";
    }
}

// The packaged shardmapd could not start until someone made its store, and root's `init` made
// one it could not write. The shipped configuration lets the first start create it.
TEST_F(PackagesTest, TheShippedControllerConfigurationStartsOnAMissingStoreAndCreatesIt)
{
    const std::string store = s_dir->file("first-start/map.db");
    std::filesystem::create_directories(s_dir->file("first-start"));
    // The shipped file, with this test's store and a free port in place of the packaged ones.
    auto controller
        = ChildProcess::spawn({ root() + "/usr/bin/shardmapd", "--config", root() + "/etc/shardmap/shardmapd.conf",
                                  "--store", "sqlite:" + store, "--listen", "127.0.0.1:0" },
            s_dir->file("first-start.stderr"));
    ASSERT_TRUE(controller);
    const auto line = controller->readLine(std::chrono::seconds(30));
    EXPECT_TRUE(line && line->starts_with("listening on ")) << readWholeFile(s_dir->file("first-start.stderr"));
    controller->signal(SIGTERM);
    EXPECT_EQ(controller->wait(std::chrono::seconds(30)), 0) << readWholeFile(s_dir->file("first-start.stderr"));
    EXPECT_TRUE(std::filesystem::exists(store));
}

// systemd's own measure of a unit's sandbox (0 locked down, 10 unprotected): both units scored
// 3.7. And the man: pages their Documentation= names are the ones the packages install.
TEST_F(PackagesTest, TheUnitsScoreAtMostTwoInSystemdAnalyzeSecurityAndNameInstalledManPages)
{
    ASSERT_TRUE(std::filesystem::exists("/usr/bin/systemd-analyze")) << "systemd is missing: scripts/install-deps.sh";
    static const std::regex overall(R"(Overall exposure level for \S+: ([0-9.]+))");
    for (const auto& [package, unit] : kUnits) {
        SCOPED_TRACE(unit);
        const std::string installed = root() + "/lib/systemd/system/" + unit;
        const auto security = runTool(
            *s_dir, { "/usr/bin/systemd-analyze", "security", "--offline=yes", "--no-pager", installed }, "security");
        std::smatch score;
        ASSERT_TRUE(std::regex_search(security.out, score, overall)) << security.out << security.err;
        EXPECT_LE(std::stod(score[1]), 2.0) << security.out;

        // As installed, but starting the unpacked binary (verify checks it is executable).
        std::string text = readWholeFile(installed);
        const std::string binary = "/usr/bin/" + package;
        ASSERT_NE(text.find("ExecStart=" + binary + " "), std::string::npos) << text;
        text.replace(text.find(binary), binary.size(), root() + binary);
        EXPECT_NE(text.find("Documentation=man:"), std::string::npos) << text;
        const std::string copy = s_dir->file("verify-" + unit);
        std::ofstream(copy) << text;
        const auto verify = runTool(*s_dir, { "/usr/bin/systemd-analyze", "verify", "--man=yes", copy }, "verify",
            { "MANPATH=" + root() + "/usr/share/man" });
        EXPECT_EQ(verify.code, 0) << verify.err;
        EXPECT_EQ(verify.err, "") << "systemd-analyze warned";
    }
}
