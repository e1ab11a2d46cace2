// The four programs answer --version from the project's version, and the console answers --help
// and --version without a display; the servers read --config files (issue 15).
#include "ctl_run.h"
#include "tests/support/controller_process.h"

#include <filesystem>
#include <fstream>
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

TEST(Programs, TheServersReadTheirFlagsFromAConfigFileAndNameTheLineOfABadOne)
{
    TempDir dir;
    auto write = [&](const std::string& name, const std::string& text) {
        std::ofstream(dir.file(name)) << text;
        return dir.file(name);
    };
    // Every flag from the file: the node listens where the file says and keeps its data there.
    const auto good = write("node.conf",
        "# shardmap-node\nlisten = \"127.0.0.1:0\"\ndata-dir = \"" + dir.file("data")
            + "\"\nnode-id = \"from-conf\"\n");
    auto node = ChildProcess::spawn({ nodeBinary(), "--config", good }, dir.file("node.stderr"));
    ASSERT_TRUE(node);
    const auto line = node->readLine(std::chrono::seconds(20));
    ASSERT_TRUE(line && line->starts_with("listening on 127.0.0.1:")) << readWholeFile(dir.file("node.stderr"));
    EXPECT_TRUE(std::filesystem::is_directory(dir.file("data")));

    struct Case {
        std::string program;
        std::string text;
        std::string expected;
    };
    const std::vector<Case> cases {
        { nodeBinary(), "listen = \"127.0.0.1:0\"\n\nlisen = \"x\"\n", "bad.conf:3: unknown key 'lisen'" },
        { nodeBinary(), "# tick\nmetrics-tick-ms = 5\n", "bad.conf:2: bad value: --metrics-tick-ms" },
        { controllerBinary(), "store = \"sqlite:/nowhere\"\nlease-ttl = 5\n", "bad.conf:2: unknown key 'lease-ttl'" },
        { controllerBinary(), "lease-ttl-ms = 10\n", "bad.conf:1: bad value: --lease-ttl-ms" },
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.text);
        const auto bad = write("bad.conf", c.text);
        const auto run = runProgram(dir, { c.program, "--config", bad }, {}, "bad");
        EXPECT_EQ(run.code, 2);
        EXPECT_NE(run.err.find(c.expected), std::string::npos) << run.err;
    }
    // The command line overrides the file; a missing file is an error too.
    const auto missing = runProgram(dir, { nodeBinary(), "--config", dir.file("missing.conf") }, {}, "missing");
    EXPECT_EQ(missing.code, 2);
    EXPECT_NE(missing.err.find("missing.conf"), std::string::npos);
}

TEST(Programs, TheShippedConfigFilesAreValid)
{
    TempDir dir;
    // The node's, with where to listen and keep data overridden for the test.
    auto node
        = ChildProcess::spawn({ nodeBinary(), "--config", std::string(SHARDMAP_SOURCE_DIR) + "/packaging/etc/node.conf",
                                  "--listen", "127.0.0.1:0", "--data-dir", dir.file("data") },
            dir.file("node.stderr"));
    ASSERT_TRUE(node);
    const auto line = node->readLine(std::chrono::seconds(20));
    EXPECT_TRUE(line && line->starts_with("listening on 127.0.0.1:")) << readWholeFile(dir.file("node.stderr"));
    // shardmapd's: every key known; it stops only because the store does not exist here.
    const auto controller = runProgram(dir,
        { controllerBinary(), "--config", std::string(SHARDMAP_SOURCE_DIR) + "/packaging/etc/shardmapd.conf", "--store",
            "sqlite:" + dir.file("absent.db"), "--listen", "127.0.0.1:0" },
        {}, "controller");
    EXPECT_EQ(controller.code, 1) << controller.err;
    EXPECT_EQ(controller.err.find("unknown key"), std::string::npos) << controller.err;
}
