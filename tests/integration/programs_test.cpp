// The four programs answer --version from the project's version, and the console answers --help
// and --version without a display; the servers read --config files and tell systemd when they
// are ready; their units pass systemd-analyze verify (issue 15).
#include "ctl_run.h"
#include "shardmap/v1/node.grpc.pb.h"
#include "tests/support/controller_process.h"

#include <algorithm>
#include <cctype>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <memory>
#include <poll.h>
#include <regex>
#include <sstream>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

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

TEST(Programs, TheConsoleConnectsToShardmapStoreAndOpensItReadOnlyWhenAsked)
{
    TempDir dir;
    const std::string store = "sqlite:" + dir.file("map.db");
    auto console = ChildProcess::spawn({ SHARDMAP_CONSOLE_BINARY, "--read-only", "--environment", "production" },
        dir.file("console.stderr"), { "QT_QPA_PLATFORM=offscreen", "SHARDMAP_STORE=" + store });
    ASSERT_TRUE(console);
    const auto line = console->readLine(std::chrono::seconds(30));
    ASSERT_TRUE(line) << readWholeFile(dir.file("console.stderr"));
    EXPECT_EQ(*line, "shardmap: connecting to " + store + " (from $SHARDMAP_STORE), read-only");
    console->signal(SIGTERM);
    EXPECT_EQ(console->wait(std::chrono::seconds(20)).value_or(-1), 0) << readWholeFile(dir.file("console.stderr"));
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
    // shardmapd's: every key known, and (create-store, issue 27) a missing store is made on the
    // first start.
    auto controller = ChildProcess::spawn(
        { controllerBinary(), "--config", std::string(SHARDMAP_SOURCE_DIR) + "/packaging/etc/shardmapd.conf", "--store",
            "sqlite:" + dir.file("absent.db"), "--listen", "127.0.0.1:0" },
        dir.file("controller.stderr"));
    ASSERT_TRUE(controller);
    const auto serving = controller->readLine(std::chrono::seconds(20));
    EXPECT_TRUE(serving && serving->starts_with("listening on 127.0.0.1:"))
        << readWholeFile(dir.file("controller.stderr"));
    controller->signal(SIGTERM);
    EXPECT_EQ(controller->wait(std::chrono::seconds(30)), 0) << readWholeFile(dir.file("controller.stderr"));
    EXPECT_TRUE(std::filesystem::exists(dir.file("absent.db")));
}

namespace {

// A datagram socket standing in for systemd's NOTIFY_SOCKET.
class NotifySocket {
public:
    explicit NotifySocket(const std::string& path)
        : m_path(path)
    {
        m_fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        sockaddr_un addr {};
        addr.sun_family = AF_UNIX;
        std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
        m_bound = ::bind(m_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    }
    ~NotifySocket() { ::close(m_fd); }
    bool bound() const { return m_bound; }
    // The next message, or "" after the timeout.
    std::string next(std::chrono::milliseconds timeout)
    {
        pollfd wait { m_fd, POLLIN, 0 };
        if (::poll(&wait, 1, static_cast<int>(timeout.count())) <= 0)
            return {};
        char buffer[4096];
        const auto n = ::recv(m_fd, buffer, sizeof buffer, 0);
        return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
    }

private:
    std::string m_path;
    int m_fd = -1;
    bool m_bound = false;
};

} // namespace

TEST(Programs, TheServersTellSystemdWhenTheyAreReadyAndWhenTheyStop)
{
    TempDir dir;
    ASSERT_EQ(runProgram(dir, { SHARDMAP_CTL_BINARY, "--store", "sqlite:" + dir.file("map.db"), "init" }).code, 0);
    const std::vector<std::pair<std::string, std::vector<std::string>>> servers {
        { "shardmap-node", { nodeBinary(), "--listen", "127.0.0.1:0", "--data-dir", dir.file("data") } },
        { "shardmapd",
            { controllerBinary(), "--listen", "127.0.0.1:0", "--store", "sqlite:" + dir.file("map.db"), "--id", "n" } },
    };
    for (const auto& [name, argv] : servers) {
        SCOPED_TRACE(name);
        NotifySocket notify(dir.file(name + ".notify"));
        ASSERT_TRUE(notify.bound());
        auto server
            = ChildProcess::spawn(argv, dir.file(name + ".stderr"), { "NOTIFY_SOCKET=" + dir.file(name + ".notify") });
        ASSERT_TRUE(server);
        const auto line = server->readLine(std::chrono::seconds(20));
        ASSERT_TRUE(line && line->starts_with("listening on ")) << readWholeFile(dir.file(name + ".stderr"));
        const auto ready = notify.next(std::chrono::seconds(5));
        EXPECT_NE(ready.find("READY=1"), std::string::npos) << ready;
        EXPECT_NE(ready.find("STATUS="), std::string::npos) << ready;
        server->signal(SIGTERM);
        const auto stopping = notify.next(std::chrono::seconds(10));
        EXPECT_NE(stopping.find("STOPPING=1"), std::string::npos) << stopping;
        EXPECT_EQ(server->wait(std::chrono::seconds(30)).value_or(-1), 0);
    }
}

TEST(Programs, TheSystemdUnitsPassSystemdAnalyzeVerify)
{
    TempDir dir;
    const std::vector<std::pair<std::string, std::string>> units { { "shardmap-node.service", nodeBinary() },
        { "shardmapd.service", controllerBinary() } };
    for (const auto& [unit, binary] : units) {
        SCOPED_TRACE(unit);
        // As installed, but starting the binary of this build (verify checks it is executable).
        std::string text = readWholeFile(std::string(SHARDMAP_SOURCE_DIR) + "/packaging/systemd/" + unit);
        const std::string installed = "/usr/bin/" + std::filesystem::path(binary).filename().string();
        ASSERT_NE(text.find("ExecStart=" + installed + " --config /etc/shardmap/"), std::string::npos);
        text.replace(text.find(installed), installed.size(), binary);
        EXPECT_NE(text.find("Type=notify"), std::string::npos);
        for (const char* hardening : { "User=shardmap", "ProtectSystem=strict", "NoNewPrivileges=true",
                 "StateDirectory=", "Restart=on-failure" })
            EXPECT_NE(text.find(hardening), std::string::npos) << hardening;
        std::ofstream(dir.file(unit)) << text;
        // The man: pages of Documentation= are looked up by the packages test, where they are installed.
        const auto verify
            = runProgram(dir, { "/usr/bin/systemd-analyze", "verify", "--man=no", dir.file(unit) }, {}, "verify");
        EXPECT_EQ(verify.code, 0) << verify.err;
        EXPECT_EQ(verify.err, "") << "systemd-analyze warned";
    }
}

TEST(Programs, BashCompletesShardmapctlSubcommandsAndOptions)
{
    TempDir dir;
    std::ofstream(dir.file("complete.sh"))
        << "source '" << SHARDMAP_SOURCE_DIR << "/packaging/completion/shardmapctl'\n"
        << "c() { COMP_WORDS=(\"$@\"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_WORDS[0]='" << SHARDMAP_CTL_BINARY
        << "'; _shardmapctl; echo \"${COMPREPLY[*]}\"; }\n"
        << "complete -p shardmapctl\n"
        << "c shardmapctl mig\n"
        << "c shardmapctl migrations ''\n"
        << "c shardmapctl --store sqlite:x.db --json migrations ro\n"
        << "c shardmapctl migrations list --st\n";
    const auto run = runProgram(dir, { "/bin/bash", dir.file("complete.sh") }, {}, "bash");
    ASSERT_EQ(run.code, 0) << run.err;
    std::vector<std::string> lines;
    std::istringstream out(run.out);
    for (std::string line; std::getline(out, line);)
        lines.push_back(line);
    ASSERT_EQ(lines.size(), 5u) << run.out;
    EXPECT_EQ(lines[0], "complete -F _shardmapctl shardmapctl");
    EXPECT_EQ(lines[1], "migrate migrations");
    EXPECT_EQ(lines[2], "list show pause resume cancel rollback abandon throttle settings");
    EXPECT_EQ(lines[3], "rollback") << "option values are not taken for subcommands";
    EXPECT_EQ(lines[4], "--state --store") << "a subcommand's options and the top level's";
}

TEST(Programs, TheDesktopFileAndTheAppStreamMetainfoValidate)
{
    TempDir dir;
    const std::string desktop = std::string(SHARDMAP_SOURCE_DIR) + "/packaging/desktop/";
    const auto launcher = runProgram(
        dir, { "/usr/bin/desktop-file-validate", desktop + "io.github.shardmap.Console.desktop" }, {}, "d");
    EXPECT_EQ(launcher.code, 0) << launcher.out << launcher.err;
    EXPECT_EQ(launcher.out.find("error:"), std::string::npos) << launcher.out;
    EXPECT_EQ(launcher.out.find("warning:"), std::string::npos) << launcher.out;
    const auto metainfo = runProgram(dir,
        { "/usr/bin/appstreamcli", "validate", "--no-net", desktop + "io.github.shardmap.Console.metainfo.xml" }, {},
        "a");
    EXPECT_EQ(metainfo.code, 0) << metainfo.out << metainfo.err;
    EXPECT_NE(metainfo.out.find("Validation was successful"), std::string::npos) << metainfo.out;
    // The launcher starts the program this build installs, whose --version the tests check.
    EXPECT_NE(
        readWholeFile(desktop + "io.github.shardmap.Console.desktop").find("\nExec=shardmap "), std::string::npos);
}

TEST(Programs, TheManPagesFormatCleanlyAndNameOnlyOptionsTheProgramsHave)
{
    TempDir dir;
    const std::string man = std::string(SHARDMAP_SOURCE_DIR) + "/packaging/man/";
    std::vector<std::pair<std::string, std::string>> pages { { "shardmap-node.1", nodeBinary() },
        { "shardmapd.8", controllerBinary() }, { "shardmapctl.1", SHARDMAP_CTL_BINARY } };
#ifdef SHARDMAP_CONSOLE_BINARY
    pages.emplace_back("shardmap.1", SHARDMAP_CONSOLE_BINARY);
#endif
    for (const auto& [page, program] : pages) {
        SCOPED_TRACE(page);
        const auto formatted = runProgram(
            dir, { "/usr/bin/groff", "-man", "-Tutf8", "-ww", "-z", man + page }, { "LC_ALL=C.UTF-8" }, "groff");
        EXPECT_EQ(formatted.code, 0);
        EXPECT_EQ(formatted.err, "") << "groff warned";
        const auto help = runProgram(dir, { program, "--help" }, kNoDisplay, "help");
        ASSERT_EQ(help.code, 0) << help.err;
        // Every option the page names (\-\-name in the roff source) is one --help lists.
        const std::string text = readWholeFile(man + page);
        std::size_t found = 0;
        for (auto at = text.find("\\-\\-"); at != std::string::npos; at = text.find("\\-\\-", at + 4)) {
            std::string name = "--";
            for (auto i = at + 4; i < text.size(); ++i) {
                if (text.compare(i, 2, "\\-") == 0) {
                    name += '-';
                    ++i;
                } else if (std::isalnum(static_cast<unsigned char>(text[i]))) {
                    name += text[i];
                } else {
                    break;
                }
            }
            ++found;
            EXPECT_NE(help.out.find(name), std::string::npos) << name << " is not an option of " << program;
        }
        EXPECT_GT(found, 3u);
    }
}

namespace {

// A node started for a logging test: its stdout's "listening on" read, stopped with SIGTERM by
// stop(), its stderr in `stderrFile`.
struct LoggedNode {
    std::unique_ptr<ChildProcess> process;
    std::string address;

    static LoggedNode start(const TempDir& dir, const std::string& name, const std::vector<std::string>& flags,
        const std::vector<std::string>& env = {})
    {
        std::vector<std::string> argv { nodeBinary(), "--listen", "127.0.0.1:0", "--data-dir", dir.file(name) };
        argv.insert(argv.end(), flags.begin(), flags.end());
        LoggedNode node;
        auto spawned = ChildProcess::spawn(argv, dir.file(name + ".stderr"), env);
        if (!spawned)
            return node;
        node.process = std::make_unique<ChildProcess>(std::move(*spawned));
        const auto line = node.process->readLine(std::chrono::seconds(20));
        if (line && line->starts_with("listening on "))
            node.address = line->substr(13);
        return node;
    }

    // A write to a shard the node does not have: refused with NOT_FOUND.
    void writeToAnUnknownShard() const
    {
        auto stub = shardmap::v1::Node::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
        shardmap::v1::BulkWriteRequest request;
        request.set_shard_id("no-such-shard");
        shardmap::v1::BulkWriteResponse response;
        const auto status = stub->BulkWrite(contextWithDeadline().get(), request, &response);
        EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
    }

    int stop()
    {
        process->signal(SIGTERM);
        return process->wait(std::chrono::seconds(30)).value_or(-1);
    }
};

std::vector<std::string> linesOf(const std::string& text)
{
    std::vector<std::string> lines;
    std::stringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

} // namespace

// Logging through spdlog (issue 15): levels and timestamps, quiet at the default level, refused
// requests with their reason at debug, and syslog priority prefixes for the journal.
TEST(Programs, TheServersLogWithTimestampsAndLevelsAndOnlyWhatTheLevelAsksFor)
{
    TempDir dir;
    const std::regex stamped(
        R"(^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2} (debug|info|warning|error) shardmap-node: .+)");

    auto debug = LoggedNode::start(dir, "debug", { "--log-level", "debug" });
    ASSERT_FALSE(debug.address.empty()) << readWholeFile(dir.file("debug.stderr"));
    debug.writeToAnUnknownShard();
    ASSERT_EQ(debug.stop(), 0);
    const auto lines = linesOf(readWholeFile(dir.file("debug.stderr")));
    ASSERT_FALSE(lines.empty());
    for (const auto& line : lines)
        EXPECT_TRUE(std::regex_match(line, stamped)) << line;
    const auto has = [&](const std::string& level, const std::string& text) {
        return std::any_of(lines.begin(), lines.end(), [&](const std::string& line) {
            return line.find(" " + level + " shardmap-node: ") != std::string::npos
                && line.find(text) != std::string::npos;
        });
    };
    EXPECT_TRUE(has("info", "serving on " + debug.address)) << readWholeFile(dir.file("debug.stderr"));
    EXPECT_TRUE(has("debug", "refused BulkWrite from ")) << readWholeFile(dir.file("debug.stderr"));
    EXPECT_TRUE(has("debug", "no-such-shard")) << "the refusal says why";
    EXPECT_TRUE(has("info", "stopped cleanly"));

    // The default (info): the start and the stop, not every refused request.
    auto quiet = LoggedNode::start(dir, "quiet", {});
    ASSERT_FALSE(quiet.address.empty());
    quiet.writeToAnUnknownShard();
    ASSERT_EQ(quiet.stop(), 0);
    const auto quietLog = readWholeFile(dir.file("quiet.stderr"));
    EXPECT_NE(quietLog.find("serving on"), std::string::npos) << quietLog;
    EXPECT_EQ(quietLog.find("refused"), std::string::npos) << quietLog;

    // warn: nothing at all from a clean start and stop.
    auto warn = LoggedNode::start(dir, "warn", { "--log-level", "warn" });
    ASSERT_FALSE(warn.address.empty());
    ASSERT_EQ(warn.stop(), 0);
    EXPECT_EQ(readWholeFile(dir.file("warn.stderr")), "");

    // A level that does not exist is a usage error.
    const auto bad = runProgram(dir, { nodeBinary(), "--log-level", "loud" }, {}, "bad-level");
    EXPECT_EQ(bad.code, 2) << bad.err;
    EXPECT_NE(bad.err.find("--log-level"), std::string::npos) << bad.err;
}

TEST(Programs, UnderTheJournalTheServersPrefixTheSyslogPriorityInsteadOfATimestamp)
{
    TempDir dir;
    // systemd points JOURNAL_STREAM at the stream it gave the service: here, the stderr file.
    const std::string file = dir.file("journal.stderr");
    std::ofstream(file).close();
    struct stat st { };
    ASSERT_EQ(::stat(file.c_str(), &st), 0);
    auto node = LoggedNode::start(dir, "journal", { "--log-level", "debug" },
        { "JOURNAL_STREAM=" + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) });
    ASSERT_FALSE(node.address.empty()) << readWholeFile(file);
    node.writeToAnUnknownShard();
    ASSERT_EQ(node.stop(), 0);
    const auto lines = linesOf(readWholeFile(file));
    ASSERT_FALSE(lines.empty());
    for (const auto& line : lines)
        EXPECT_TRUE(std::regex_match(line, std::regex(R"(^<[2-7]>shardmap-node: .+)"))) << line;
    EXPECT_TRUE(std::any_of(lines.begin(), lines.end(),
        [](const std::string& line) { return line.starts_with("<6>shardmap-node: version "); }));
    EXPECT_TRUE(std::any_of(lines.begin(), lines.end(),
        [](const std::string& line) { return line.starts_with("<7>shardmap-node: refused BulkWrite"); }));
}
