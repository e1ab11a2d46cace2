// What a newcomer reads when a file is wrong, through the real programs (issue 27): a bad plan
// file is named with what is wrong in a sentence, a config file's `[section]` line is named with
// its file and line, and a PDF report prints nothing on standard error without a session's
// XDG_RUNTIME_DIR (cron, su, ssh).
#include "ctl_run.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

using namespace shardmap::testing;

namespace {

std::string write(const TempDir& dir, const std::string& name, const std::string& text)
{
    std::ofstream(dir.file(name)) << text;
    return dir.file(name);
}

} // namespace

TEST(CtlErrors, ABadPlanFileIsNamedWithWhatIsWrongInASentence)
{
    TempDir dir;
    const std::string store = "sqlite:" + dir.file("map.db");
    ASSERT_EQ(runCtl(dir, store, { "init" }).code, 0);
    struct Case {
        std::string text;
        std::string says;
    };
    const std::vector<Case> cases {
        { R"({"version": 2, "moves": []})", "the plan has no \"base_revision\"" },
        { R"({"version": 2, "base_revision": "7", "moves": []})",
            "\"base_revision\" of the plan is a string, not a whole number of 0 or more" },
        { R"({"version": 2, "base_revision": 1, "moves": [{"space": 1}]})",
            "\"space\" of move 1 of the plan is a number, not a string" },
        { R"({"version": 2, "base_revision": 1, "moves": [], "new_shards": [{"id": "s9"}]})",
            "new shard 1 of the plan has no \"state\"" },
        { "{\"version\": 2,\n", "the plan is not JSON: at line 2, column 1" },
        { R"({"version": 9, "base_revision": 1, "moves": []})", "the plan's \"version\" is 9" },
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.text);
        const auto file = write(dir, "bad-plan.json", c.text);
        const auto run = runCtl(dir, store, { "plan", "apply", file });
        EXPECT_EQ(run.code, 2) << run.err;
        EXPECT_NE(run.err.find("shardmapctl: " + file + ": " + c.says), std::string::npos) << run.err;
        EXPECT_EQ(run.err.find("json.exception"), std::string::npos) << run.err;
    }
}

TEST(CtlErrors, AConfigFileWithASectionIsNamedWithItsFileAndLine)
{
    TempDir dir;
    const auto conf = write(dir, "node.conf", "# shardmap-node\n  [node]\nlisten = \"127.0.0.1:0\"\n");
    const auto run = runProgram(dir, { nodeBinary(), "--config", conf }, {}, "node");
    EXPECT_EQ(run.code, 2);
    EXPECT_NE(run.err.find("shardmap-node: " + conf + ":2: '[node]' starts a section"), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find("INI was not able"), std::string::npos) << run.err;
}

TEST(CtlErrors, APdfReportPrintsNoQtWarningWithoutARuntimeDirectory)
{
    TempDir dir;
    const std::string store = "sqlite:" + dir.file("map.db");
    ASSERT_EQ(runCtl(dir, store, { "init" }).code, 0);
    const auto run = runCtl(dir, store, { "report", "--since", "0", "--format", "pdf", "-o", dir.file("r.pdf") },
        { "XDG_RUNTIME_DIR=", "TMPDIR=" + dir.path() });
    EXPECT_EQ(run.code, 0) << run.err;
    EXPECT_EQ(run.err, "");
    EXPECT_TRUE(std::filesystem::file_size(dir.file("r.pdf")) > 0);
    // The runtime directory it made for Qt is gone again.
    for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
        EXPECT_FALSE(entry.path().filename().string().starts_with("shardmapctl-runtime-")) << entry.path();
}
