// Issue 27: the console package depends on what the console loads at run time, the Qt plugins
// included (its icons are SVGs drawn by the SVG icon engine plugin, which dpkg-shlibdeps cannot
// see: nothing links it).
#include "packages_fixture.h"
#include "tests/support/controller_process.h"

#include <algorithm>
#include <csignal>
#include <gtest/gtest.h>
#include <regex>
#include <set>
#include <string>

using namespace shardmap::testing;

namespace {

// The plugin files a QT_DEBUG_PLUGINS=1 log says were loaded.
std::set<std::string> loadedPlugins(const std::string& log)
{
    static const std::regex loaded(R"re("(/[^"]+/plugins/[^"]+\.so)" loaded library)re");
    std::set<std::string> plugins;
    for (auto it = std::sregex_iterator(log.begin(), log.end(), loaded); it != std::sregex_iterator(); ++it)
        plugins.insert((*it)[1]);
    return plugins;
}

// dpkg -S: the installed package a file belongs to ("libqt6svg6:amd64: /usr/lib/..." -> libqt6svg6).
std::string owningPackage(const TempDir& dir, const std::string& file)
{
    const auto searched = runTool(dir, { "/usr/bin/dpkg", "-S", file }, "dpkg-S");
    return searched.out.substr(0, searched.out.find_first_of(":,"));
}

} // namespace

TEST_F(PackagesTest, EveryQtPluginTheConsoleLoadsComesFromAPackageItDependsOn)
{
    // The unpacked console, offscreen, with a home of its own, until it has drawn its SVG icons.
    const std::string log = s_dir->file("console-plugins.stderr");
    auto console = ChildProcess::spawn({ root() + "/usr/bin/shardmap" }, log,
        { "QT_QPA_PLATFORM=offscreen", "QT_DEBUG_PLUGINS=1", "HOME=" + s_dir->file("home"),
            "XDG_CONFIG_HOME=" + s_dir->file("home/.config"), "LANG=C.UTF-8" });
    ASSERT_TRUE(console);
    const bool drewIcons = pollUntil(std::chrono::seconds(60), [&] {
        const auto plugins = loadedPlugins(readWholeFile(log));
        return std::any_of(plugins.begin(), plugins.end(), [](const auto& p) { return p.ends_with("/libqsvgicon.so"); })
            && std::any_of(plugins.begin(), plugins.end(), [](const auto& p) { return p.ends_with("/libqsvg.so"); });
    });
    console->signal(SIGTERM);
    EXPECT_EQ(console->wait(std::chrono::seconds(30)), 0);
    ASSERT_TRUE(drewIcons) << "the console did not load the SVG icon engine and image format plugins:\n"
                           << readWholeFile(log);

    const auto depends = dependedPackages(field("shardmap", "Depends"));
    auto plugins = loadedPlugins(readWholeFile(log));
    // On a desktop the platform plugin is xcb's, beside the offscreen one this run loaded.
    const auto offscreen = std::find_if(
        plugins.begin(), plugins.end(), [](const auto& p) { return p.ends_with("/platforms/libqoffscreen.so"); });
    ASSERT_NE(offscreen, plugins.end()) << readWholeFile(log);
    plugins.insert(offscreen->substr(0, offscreen->rfind('/')) + "/libqxcb.so");
    for (const auto& plugin : plugins) {
        SCOPED_TRACE(plugin);
        const auto package = owningPackage(*s_dir, plugin);
        ASSERT_FALSE(package.empty()) << "no installed package provides " << plugin;
        EXPECT_TRUE(depends.contains(package))
            << package
            << " provides a plugin the console loads, but is not in its Depends: " << field("shardmap", "Depends");
    }
}
