// The console's command line without a display (issue 27): a usage error exits 2 with the usage
// instead of aborting in QApplication, and --help speaks the language the window would, with
// Qt's own words (Usage, Options) and the console's option descriptions both translated.
#include "ctl_run.h"

#include <gtest/gtest.h>

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

#endif
