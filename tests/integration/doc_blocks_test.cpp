// Every command block of README.md and docs/*.md, run (issue 27, point 12): a page that drifts
// from the programs fails here. A block runs with bash -euo pipefail in a scratch HOME, with the
// built programs on a clean PATH; the comment on the line before its fence says where:
//   (none)                                 nothing more: the block brings up what it needs
//   <!-- doc-test: on the test fleet -->   $SHARDMAP_STORE names DocFleet's map (doc_fleet.h)
//   <!-- doc-test: on a fresh etcd -->     etcdctl reaches an etcd of the test's own
//   <!-- doc-test: not run: REASON -->     not run; every program it names must exist and know
//                                          the subcommands and options given to it
// What differs on every machine is replaced before a block runs: each 127.0.0.1:PORT by a free
// port, and the ids of the test fleet's drain that docs/REPORTS.md writes by the real ones.
#include "ctl_run.h"
#include "doc_commands.h"
#include "doc_fleet.h"
#include "tests/support/etcd_roles.h"

#include <arpa/inet.h>
#include <filesystem>
#include <netinet/in.h>
#include <regex>
#include <sys/socket.h>
#include <unistd.h>

using namespace shardmap::testing;

namespace shardmap::testing {

// A failing block is named by its page and line, not by its bytes.
void PrintTo(const DocBlock& block, std::ostream* out)
{
    *out << block.page << ":" << block.line;
}

} // namespace shardmap::testing

namespace {

// What docs/REPORTS.md writes for the drain's operation and its two migrations.
const std::vector<std::string> kReportIds { "op-1796133282583-1d42", "m-1796133282590-5b1e", "m-1796133282604-c07a" };

// What a block that runs must also print, by page and heading.
const std::map<std::pair<std::string, std::string>, std::vector<std::string>> kExpectedOutput {
    { { "README.md", "## A shard map by hand" }, { "acme is on shard shard-1", "[[Hello]]", "revisions 1 -> 3" } },
};

std::vector<std::string> pages()
{
    std::vector<std::string> found { "README.md" };
    for (const auto& entry : std::filesystem::directory_iterator(std::string(SHARDMAP_SOURCE_DIR) + "/docs")) {
        if (entry.path().extension() == ".md")
            found.push_back("docs/" + entry.path().filename().string());
    }
    std::sort(found.begin() + 1, found.end());
    return found;
}

const std::set<std::string> kShells { "sh", "bash", "shell", "console" };

bool hasPrompt(const DocBlock& block)
{
    return ("\n" + block.text).find("\n$ ") != std::string::npos;
}

// Blocks of commands: sh, bash, shell and console blocks, and any other that holds a "$ " prompt
// (which the test refuses: it is to be labelled console).
bool isCommandBlock(const DocBlock& block)
{
    return kShells.contains(block.language) || hasPrompt(block);
}

std::vector<DocBlock> commandBlocks()
{
    std::vector<DocBlock> blocks;
    for (const auto& page : pages()) {
        for (auto& block : readDocBlocks(SHARDMAP_SOURCE_DIR, page)) {
            if (isCommandBlock(block))
                blocks.push_back(std::move(block));
        }
    }
    return blocks;
}

int freePort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address {};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0
        && ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0)
        port = ntohs(address.sin_port);
    ::close(fd);
    return port;
}

std::string replaceAll(std::string text, const std::string& from, const std::string& to)
{
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

// The script with every fixed loopback port replaced by a free one (the same for the same port).
std::string withFreePorts(std::string script)
{
    const std::regex loopback(R"(127\.0\.0\.1:([1-9][0-9]*))");
    std::set<std::string> ports;
    for (auto it = std::sregex_iterator(script.begin(), script.end(), loopback); it != std::sregex_iterator(); ++it)
        ports.insert((*it)[0]);
    for (const auto& port : ports)
        script = replaceAll(script, port, "127.0.0.1:" + std::to_string(freePort()));
    return script;
}

std::string directoryOf(const std::string& file)
{
    return std::filesystem::path(file).parent_path().string();
}

// Programs by name from CMake's "name=file|name=file".
std::map<std::string, std::string> programsIn(const std::string& cmakeList)
{
    std::map<std::string, std::string> programs;
    std::istringstream list(cmakeList);
    for (std::string entry; std::getline(list, entry, '|');) {
        if (const auto equals = entry.find('='); equals != std::string::npos)
            programs[entry.substr(0, equals)] = entry.substr(equals + 1);
    }
    return programs;
}

// The servers and the CLIs, which blocks run from the PATH.
std::map<std::string, std::string> builtPrograms()
{
    return programsIn(SHARDMAP_DOC_PROGRAMS);
}

DocCommandChecker& checker()
{
    static DocCommandChecker instance([] {
        DocCommandChecker::Setup setup { SHARDMAP_SOURCE_DIR, SHARDMAP_BUILD_DIR, builtPrograms(), SHARDMAP_DOC_NINJA };
        setup.programs.merge(programsIn(SHARDMAP_DOC_BENCH_PROGRAMS));
        return setup;
    }());
    return instance;
}

class DocBlocksTest : public ::testing::TestWithParam<DocBlock> {
protected:
    // bash -euo pipefail in HOME=dir, in a clean environment; what a block starts in the
    // background is stopped when it ends.
    CtlRun runBlock(const std::string& script, const std::vector<std::string>& env = {})
    {
        std::string path;
        for (const auto& [name, file] : builtPrograms())
            path += directoryOf(file) + ":";
        std::filesystem::create_directories(m_dir.file("run"));
        std::filesystem::permissions(m_dir.file("run"), std::filesystem::perms::owner_all);
        std::vector<std::string> argv { "/usr/bin/env", "-i", "HOME=" + m_dir.path(), "PATH=" + path + "/usr/bin:/bin",
            "LANG=C.UTF-8", "QT_QPA_PLATFORM=offscreen", "XDG_RUNTIME_DIR=" + m_dir.file("run") };
        argv.insert(argv.end(), env.begin(), env.end());
        argv.insert(argv.end(),
            { "/bin/bash", "-c",
                "set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\ncd \"$HOME\"\n" + script });
        return runProgram(m_dir, argv, {}, "block");
    }

    void expectRuns(const DocBlock& block, const CtlRun& run)
    {
        EXPECT_EQ(run.code, 0) << "the block failed:\n"
                               << block.text << "\nstdout:\n"
                               << run.out << "stderr:\n"
                               << run.err;
        const auto expected = kExpectedOutput.find({ block.page, block.heading });
        if (expected == kExpectedOutput.end())
            return;
        for (const auto& text : expected->second)
            EXPECT_NE(run.out.find(text), std::string::npos) << "no \"" << text << "\" in:\n" << run.out;
    }

    void runOnTheTestFleet(const DocBlock& block)
    {
        DocFleet fleet;
        ASSERT_NO_FATAL_FAILURE(fleet.start(m_dir));
        std::vector<std::string> real { fleet.drainOperation() };
        real.insert(real.end(), fleet.drainMigrations().begin(), fleet.drainMigrations().end());
        std::string script = withFreePorts(docScript(block));
        for (std::size_t i = 0; i < kReportIds.size(); ++i)
            script = replaceAll(script, kReportIds[i], real.at(i));
        expectRuns(block, runBlock(script, { "SHARDMAP_STORE=" + fleet.storeUri() }));
    }

    void runOnAFreshEtcd(const DocBlock& block)
    {
        std::string error;
        auto etcd = EtcdProcess::start(error);
        ASSERT_TRUE(etcd) << error;
        EXPECT_TRUE(runEtcdScript(*etcd, m_dir, docScript(block), error)) << error;
    }

    void checkWithoutRunning(const DocBlock& block, const std::string& reason)
    {
        EXPECT_NE(reason.find_first_not_of(' '), std::string::npos)
            << "say why the block is not run: <!-- doc-test: not run: REASON -->";
        const auto commands = docCommands(block);
        EXPECT_FALSE(commands.empty()) << "no command found in:\n" << block.text;
        for (const auto& command : commands) {
            for (const auto& problem : checker().problems(command))
                ADD_FAILURE() << problem;
        }
    }

    TempDir m_dir;
};

TEST_P(DocBlocksTest, RunsOrSaysWhyNot)
{
    const DocBlock& block = GetParam();
    SCOPED_TRACE(block.page + ":" + std::to_string(block.line) + " (" + block.heading + ")");
    if (!kShells.contains(block.language) || (block.language != "console" && hasPrompt(block))) {
        ADD_FAILURE() << "a transcript with $ prompts is labelled ```console, other commands ```sh";
        return;
    }
    const std::string notRun = "not run:";
    if (block.marker.empty())
        expectRuns(block, runBlock(withFreePorts(docScript(block))));
    else if (block.marker == "on the test fleet")
        runOnTheTestFleet(block);
    else if (block.marker == "on a fresh etcd")
        runOnAFreshEtcd(block);
    else if (block.marker.starts_with(notRun))
        checkWithoutRunning(block, block.marker.substr(notRun.size()));
    else
        ADD_FAILURE() << "unknown <!-- doc-test: " << block.marker << " -->";
}

std::string nameOf(const ::testing::TestParamInfo<DocBlock>& info)
{
    std::string name = std::filesystem::path(info.param.page).stem().string() + "_" + std::to_string(info.param.line);
    std::replace_if(
        name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
    return name;
}

INSTANTIATE_TEST_SUITE_P(Pages, DocBlocksTest, ::testing::ValuesIn(commandBlocks()), nameOf);

// A reader that finds no block would pass every page.
TEST(DocBlocks, ThePagesHaveTheirCommandBlocks)
{
    const auto blocks = commandBlocks();
    EXPECT_GE(blocks.size(), 30u);
    const auto in = [&](const std::string& page) {
        return std::count_if(blocks.begin(), blocks.end(), [&](const DocBlock& b) { return b.page == page; });
    };
    EXPECT_GE(in("README.md"), 4);
    EXPECT_GE(in("docs/BENCHMARKS.md"), 19);
}

// The parts the checks of blocks that do not run rely on.
TEST(DocBlocks, CommandsAreSplitAsBashSplitsThem)
{
    DocBlock block;
    block.language = "sh";
    block.text = "B=\"bench/x --json\"   # a comment\n$B --a 1 | sort -rn > out.txt 2>&1 && echo 'a # b' \\\n  --c\n"
                 "until grep -q x log; do sleep 0.1; done\n";
    const auto commands = docCommands(block);
    ASSERT_EQ(commands.size(), 5u);
    EXPECT_EQ(commands[0].words, (std::vector<std::string> { "bench/x", "--json", "--a", "1" }));
    EXPECT_EQ(commands[1].words, (std::vector<std::string> { "sort", "-rn" }));
    EXPECT_EQ(commands[2].words, (std::vector<std::string> { "echo", "a # b", "--c" }));
    EXPECT_EQ(commands[3].words, (std::vector<std::string> { "grep", "-q", "x", "log" }));
    EXPECT_EQ(commands[4].words, (std::vector<std::string> { "sleep", "0.1" }));
}

} // namespace
