// The console's command line without a display (issue 27): a usage error exits 2 with the usage
// instead of aborting in QApplication, and --help speaks the language the window would, with
// Qt's own words (Usage, Options) and the console's option descriptions both translated. On
// Wayland the window names its .desktop file (app_id), so desktops can match the two.
#include "ctl_run.h"

#include <csignal>
#include <filesystem>
#include <gtest/gtest.h>
#include <regex>
#include <thread>

using namespace shardmap::testing;

#ifdef SHARDMAP_CONSOLE_BINARY

namespace {

// No display, as on a server or in an ssh session; a settings directory of the test's own, so a
// language stored by someone's console does not decide.
std::vector<std::string> noDisplay(const TempDir& dir, std::vector<std::string> more = {})
{
    std::vector<std::string> env { "QT_QPA_PLATFORM=xcb", "DISPLAY=:199",
        "WAYLAND_DISPLAY=", "XDG_CONFIG_HOME=" + dir.file("config") };
    env.insert(env.end(), more.begin(), more.end());
    return env;
}

// Polls a file until pattern matches in it (the first group), or gives up after a while.
std::string waitForInFile(const std::string& file, const std::regex& pattern)
{
    for (int i = 0; i < 300; ++i) {
        std::smatch match;
        const std::string text = readWholeFile(file);
        if (std::regex_search(text, match, pattern))
            return match[1].str();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return {};
}

// The end of a WAYLAND_DEBUG log: what the client did last, without the thousands of lines before.
std::string lastLines(const std::string& file)
{
    const std::string text = readWholeFile(file);
    return text.substr(text.size() > 3000 ? text.size() - 3000 : 0);
}

} // namespace

TEST(ConsoleCommandLine, AnUnknownOptionExitsTwoWithTheUsageWithoutADisplay)
{
    TempDir dir;
    for (const std::string bad : { "--bogus", "--store" }) {
        SCOPED_TRACE(bad);
        const auto run = runProgram(dir, { SHARDMAP_CONSOLE_BINARY, bad }, noDisplay(dir, { "LC_ALL=C" }), "console");
        EXPECT_EQ(run.code, 2) << run.err;
        EXPECT_TRUE(run.err.starts_with("shardmap: ")) << run.err;
        EXPECT_NE(run.err.find(bad == "--bogus" ? "Unknown option 'bogus'" : "Missing value after '--store'"),
            std::string::npos)
            << run.err;
        EXPECT_NE(run.err.find("Usage: "), std::string::npos) << run.err;
        EXPECT_NE(run.err.find("--store <uri>"), std::string::npos) << run.err;
    }
}

TEST(ConsoleCommandLine, HelpIsTranslatedUnderAGermanLocale)
{
    TempDir dir;
    const auto german = runProgram(
        dir, { SHARDMAP_CONSOLE_BINARY, "--help" }, noDisplay(dir, { "LANG=de_DE.UTF-8", "LC_ALL=de_DE.UTF-8" }), "de");
    EXPECT_EQ(german.code, 0) << german.err;
    EXPECT_NE(german.out.find("Shardmap-Konsole: die Flotte"), std::string::npos) << german.out;
    EXPECT_NE(german.out.find("Mit diesem Shard-Map-Speicher verbinden"), std::string::npos) << german.out;
    EXPECT_EQ(german.out.find("Connect to this shard map store"), std::string::npos) << german.out;
    // --language decides over the locale, as it does for the window.
    const auto english = runProgram(dir, { SHARDMAP_CONSOLE_BINARY, "--help", "--language", "en" },
        noDisplay(dir, { "LANG=de_DE.UTF-8", "LC_ALL=de_DE.UTF-8" }), "en");
    EXPECT_EQ(english.code, 0) << english.err;
    EXPECT_NE(english.out.find("Connect to this shard map store"), std::string::npos) << english.out;
    // A usage error is in German too.
    const auto bad = runProgram(dir, { SHARDMAP_CONSOLE_BINARY, "--bogus" },
        noDisplay(dir, { "LANG=de_DE.UTF-8", "LC_ALL=de_DE.UTF-8" }), "bad");
    EXPECT_EQ(bad.code, 2);
    EXPECT_NE(bad.err.find("Shardmap-Konsole"), std::string::npos) << bad.err;
}

TEST(ConsoleCommandLine, OnWaylandTheWindowNamesItsDesktopFile)
{
    TempDir dir;
    // A headless Wayland compositor of the test's own (Debian's weston).
    const std::string runtime = dir.file("runtime");
    std::filesystem::create_directory(runtime);
    std::filesystem::permissions(runtime, std::filesystem::perms::owner_all);
    auto weston = ChildProcess::spawn({ "/usr/bin/weston", "--backend=headless-backend.so", "--shell=kiosk-shell.so",
                                          "--socket=wayland-test", "--idle-time=0",
                                          // kiosk-shell makes the window fullscreen: room for its least size.
                                          "--width=2560", "--height=1600" },
        dir.file("weston.stderr"), { "XDG_RUNTIME_DIR=" + runtime });
    ASSERT_TRUE(weston);
    for (int i = 0; i < 300 && !std::filesystem::exists(runtime + "/wayland-test"); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ASSERT_TRUE(std::filesystem::exists(runtime + "/wayland-test")) << readWholeFile(dir.file("weston.stderr"));
    // WAYLAND_DEBUG: the client logs each request it sends, set_app_id among them.
    auto console = ChildProcess::spawn({ SHARDMAP_CONSOLE_BINARY, "--store", "sqlite:" + dir.file("map.db") },
        dir.file("console.stderr"),
        { "XDG_RUNTIME_DIR=" + runtime, "WAYLAND_DISPLAY=wayland-test", "QT_QPA_PLATFORM=wayland", "WAYLAND_DEBUG=1",
            "XDG_CONFIG_HOME=" + dir.file("config") });
    ASSERT_TRUE(console);
    const std::string appId = waitForInFile(dir.file("console.stderr"), std::regex("set_app_id\\(\"([^\"]*)\"\\)"));
    EXPECT_EQ(appId, "io.github.shardmap.Console");
    EXPECT_TRUE(std::filesystem::exists(std::string(SHARDMAP_SOURCE_DIR) + "/packaging/desktop/" + appId + ".desktop"));
    console->signal(SIGTERM);
    EXPECT_EQ(console->wait(std::chrono::seconds(20)).value_or(-1), 0) << lastLines(dir.file("console.stderr"));
    weston->signal(SIGTERM);
    weston->wait(std::chrono::seconds(20));
}

#endif
