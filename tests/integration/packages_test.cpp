// The Debian packages (issue 15): CPack makes the four of them from this very build, lintian
// finds no error in them, and unpacked into a scratch root (dpkg -x) their programs run and
// their files are in place.
#include "packages_fixture.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

using namespace shardmap::testing;

TEST_F(PackagesTest, CPackMakesTheFourPackagesWithComputedDependencies)
{
    for (const auto& [package, programs] : kPackages) {
        SCOPED_TRACE(package);
        ASSERT_TRUE(std::filesystem::exists(deb(package))) << s_cpack.out;
        EXPECT_EQ(field(package, "Package"), package);
        EXPECT_EQ(field(package, "Version"), kPackageVersion);
        // dpkg-shlibdeps: the libraries the binaries link, as package dependencies.
        const auto depends = field(package, "Depends");
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
    ASSERT_TRUE(std::filesystem::exists("/usr/bin/lintian")) << "lintian is missing: scripts/install-deps.sh";
    std::vector<std::string> argv { "/usr/bin/lintian", "--fail-on", "error", "--no-tag-display-limit",
        "--display-info" };
    for (const auto& [package, programs] : kPackages)
        argv.push_back(deb(package));
    const auto lintian = runTool(*s_dir, argv, "lintian");
    EXPECT_EQ(lintian.code, 0) << lintian.out << lintian.err;
    EXPECT_EQ(lintian.out.find("\nE: "), std::string::npos) << lintian.out;
    // Issue 27: linked with relro and BIND_NOW, as PIE, in every build.
    for (const char* tag : { "hardening-no-bindnow", "hardening-no-relro", "hardening-no-pie" })
        EXPECT_EQ(lintian.out.find(tag), std::string::npos) << lintian.out;
    // Fortify and the stack protector are compile flags: lintian sees them when this build was
    // compiled with Debian's (scripts/package.sh), not in the ci preset's, which the test suite
    // shares; PackageBuildFlags checks what scripts/package.sh compiles with in every build.
    if (std::string(SHARDMAP_CXX_FLAGS).find("-D_FORTIFY_SOURCE") != std::string::npos) {
        EXPECT_EQ(lintian.out.find("hardening-no-fortify-functions"), std::string::npos) << lintian.out;
        EXPECT_EQ(lintian.out.find("hardening-no-stackprotector"), std::string::npos) << lintian.out;
    }
    std::cout << lintian.out;
}

// Issue 27, point 4: what lintian's hardening-no-fortify-functions and hardening-no-stackprotector
// look for, checked on what scripts/package.sh builds without building it all (seconds, not the
// half hour of a second Release build): configured as the script does, every translation unit
// gets Debian's -D_FORTIFY_SOURCE=2 and -fstack-protector-strong, and one of the node's units
// compiled so imports a checked function (__snprintf_chk) and __stack_chk_fail.
TEST(PackageBuildFlags, EveryUnitOfThePackageBuildIsFortifiedAndStackProtected)
{
    TempDir dir;
    const auto configured = runTool(dir,
        { "/bin/bash", std::string(SHARDMAP_SOURCE_DIR) + "/scripts/package.sh", "--configure-only",
            dir.file("build") },
        "configure");
    ASSERT_EQ(configured.code, 0) << configured.out << configured.err;
    const auto units = nlohmann::json::parse(readWholeFile(dir.file("build/compile_commands.json")), nullptr, false);
    ASSERT_TRUE(units.is_array() && !units.empty()) << "no compile_commands.json";
    std::string documentUnit;
    for (const auto& unit : units) {
        const std::string command = unit["command"], file = unit["file"];
        EXPECT_NE(command.find(" -D_FORTIFY_SOURCE=2 "), std::string::npos) << file;
        EXPECT_NE(command.find(" -fstack-protector-strong "), std::string::npos) << file;
        if (file.ends_with("/core/shard/document.cpp"))
            documentUnit = "cd '" + unit["directory"].get<std::string>() + "' && " + command;
    }
    ASSERT_FALSE(documentUnit.empty()) << "core/shard/document.cpp is not compiled";
    // Its object where the test says, without the dependency file of a tree that was never built.
    const std::string object = dir.file("document.o");
    documentUnit = std::regex_replace(documentUnit, std::regex(R"( -(MD|MT \S+|MF \S+))"), "");
    documentUnit = std::regex_replace(documentUnit, std::regex(R"( -o \S+)"), " -o '" + object + "'");
    const auto compiled = runTool(dir, { "/bin/bash", "-c", documentUnit }, "compile");
    ASSERT_EQ(compiled.code, 0) << documentUnit << "\n" << compiled.err;
    const auto imports = runTool(dir, { "/usr/bin/nm", "-u", object }, "nm").out;
    EXPECT_NE(imports.find("__snprintf_chk"), std::string::npos) << imports;
    EXPECT_NE(imports.find("__stack_chk_fail"), std::string::npos) << imports;
}

TEST_F(PackagesTest, UnpackedIntoAScratchRootTheProgramsRunAndTheSystemFilesAreInPlace)
{
    const std::string root = PackagesTest::root();
    for (const auto& [package, programs] : kPackages) {
        SCOPED_TRACE(package);
        for (const auto& program : programs) {
            const auto version = runTool(*s_dir, { root + "/usr/bin/" + program, "--version" }, program,
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
             "/usr/share/shardmap/prometheus/prometheus.yml", "/usr/share/shardmap/prometheus/alerts.yml",
             "/usr/share/shardmap/prometheus/grafana-dashboard.json" })
        EXPECT_TRUE(std::filesystem::exists(root + path)) << path;
}

TEST_F(PackagesTest, TheServicePackagesMarkTheirConfigurationAsConffilesAndCreateTheServiceUser)
{
    for (const auto& [package, conffile] : std::map<std::string, std::string> {
             { "shardmap-node", "/etc/shardmap/node.conf" }, { "shardmapd", "/etc/shardmap/shardmapd.conf" } }) {
        SCOPED_TRACE(package);
        const std::string control = controlDir(package);
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
            EXPECT_EQ(runTool(*s_dir, { "/bin/sh", "-n", path }, "sh-n").code, 0) << script;
        }
    }
}

// Issue 27: the scrape configuration named a rule file that does not ship (shardmap-alerts.yml).
// promtool (Debian's prometheus package) reads both as Prometheus would; `check config` also
// loads the rule files the configuration names.
TEST_F(PackagesTest, PromtoolAcceptsTheShippedScrapeConfigurationAndAlertRules)
{
    ASSERT_TRUE(std::filesystem::exists("/usr/bin/promtool")) << "promtool is missing: scripts/install-deps.sh";
    const std::string shipped = root() + "/usr/share/shardmap/prometheus/";
    const auto config
        = runTool(*s_dir, { "/usr/bin/promtool", "check", "config", shipped + "prometheus.yml" }, "promtool");
    EXPECT_EQ(config.code, 0) << config.out << config.err;
    EXPECT_NE(config.out.find("SUCCESS: 1 rule files found"), std::string::npos) << config.out << config.err;
    const auto rules = runTool(*s_dir, { "/usr/bin/promtool", "check", "rules", shipped + "alerts.yml" }, "promtool");
    EXPECT_EQ(rules.code, 0) << rules.out << rules.err;
    EXPECT_NE(rules.out.find("SUCCESS"), std::string::npos) << rules.out << rules.err;
}
