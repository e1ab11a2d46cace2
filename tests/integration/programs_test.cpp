// The four programs answer --version from the project's version, and the console answers --help
// and --version without a display (issue 15).
#include "ctl_run.h"
#include "tests/support/controller_process.h"

#include <gtest/gtest.h>

using namespace shardmap::testing;

namespace {

std::vector<std::pair<std::string, std::string>> programs()
{
    std::vector<std::pair<std::string, std::string>> list { { "shardmap-node", nodeBinary() },
        { "shardmapd", controllerBinary() }, { "shardmapctl", SHARDMAP_CTL_BINARY } };
#ifdef SHARDMAP_CONSOLE_BINARY
    list.emplace_back("shardmap", SHARDMAP_CONSOLE_BINARY);
#endif
    return list;
}

// No display: an X display that does not exist, as on a server or in an ssh session.
const std::vector<std::string> kNoDisplay { "QT_QPA_PLATFORM=xcb", "DISPLAY=:199", "WAYLAND_DISPLAY=" };

} // namespace

TEST(Programs, EveryProgramPrintsTheProjectVersion)
{
    TempDir dir;
    for (const auto& [name, path] : programs()) {
        SCOPED_TRACE(name);
        const auto run = runProgram(dir, { path, "--version" }, kNoDisplay, name);
        EXPECT_EQ(run.code, 0) << run.err;
        EXPECT_EQ(run.out, name + " " + SHARDMAP_VERSION + "\n") << run.err;
    }
}

#ifdef SHARDMAP_CONSOLE_BINARY
TEST(Programs, TheConsoleAnswersHelpWithoutADisplay)
{
    TempDir dir;
    const auto help = runProgram(dir, { SHARDMAP_CONSOLE_BINARY, "--help" }, kNoDisplay, "console");
    EXPECT_EQ(help.code, 0) << help.err;
    EXPECT_NE(help.out.find("--store <uri>"), std::string::npos) << help.out;
    EXPECT_NE(help.out.find("--demo"), std::string::npos);
    // Anything else still needs the display, and says so rather than hanging.
    const auto window = runProgram(dir, { SHARDMAP_CONSOLE_BINARY }, kNoDisplay, "console-window");
    EXPECT_NE(window.code, 0);
}
#endif
