// The README's "A shard map by hand" block, run as written (issue 27, point 12): its commands in
// bash, in a scratch HOME, with the built programs on the PATH. Only the node's port is changed
// to a free one (7400 may be taken on a shared machine). A README that drifts from the programs
// fails here.
#include "ctl_run.h"

#include <arpa/inet.h>
#include <filesystem>
#include <fstream>
#include <netinet/in.h>
#include <sstream>
#include <sys/socket.h>
#include <unistd.h>

namespace shardmap::testing {
namespace {

// The first ```sh block after the heading, or "" when there is none.
std::string shellBlockAfter(const std::string& markdown, const std::string& heading)
{
    const std::size_t at = markdown.find("\n" + heading + "\n");
    if (at == std::string::npos)
        return {};
    const std::string open = "```sh\n";
    const std::size_t begin = markdown.find(open, at);
    const std::size_t end = begin == std::string::npos ? begin : markdown.find("\n```", begin + open.size());
    if (end == std::string::npos)
        return {};
    return markdown.substr(begin + open.size(), end - begin - open.size() + 1);
}

int freePort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
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

TEST(Readme, TheShardMapByHandBlockRunsAsWritten)
{
    std::ifstream file(std::string(SHARDMAP_SOURCE_DIR) + "/README.md");
    std::stringstream markdown;
    markdown << file.rdbuf();
    std::string block = shellBlockAfter(markdown.str(), "## A shard map by hand");
    ASSERT_FALSE(block.empty()) << "no sh block under the heading";
    const int port = freePort();
    ASSERT_GT(port, 0);
    block = replaceAll(block, "127.0.0.1:7400", "127.0.0.1:" + std::to_string(port));

    TempDir dir;
    const std::string bin = std::filesystem::path(SHARDMAP_CTL_BINARY).parent_path().string() + ":"
        + std::filesystem::path(nodeBinary()).parent_path().string() + ":/usr/bin:/bin";
    // Every command must succeed (set -e); the node started in the block is stopped at the end.
    const std::string script = "set -euo pipefail\n" + block + "kill $(jobs -p) 2>/dev/null || true\n";
    const CtlRun run = runProgram(dir, { "/bin/bash", "-c", script }, { "HOME=" + dir.path(), "PATH=" + bin });
    EXPECT_EQ(run.code, 0) << run.out << run.err;
    EXPECT_NE(run.out.find("acme is on shard shard-1"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("[[Hello]]"), std::string::npos) << "the search found the document:\n" << run.out;
    EXPECT_NE(run.out.find("revisions 1 -> 3"), std::string::npos) << run.out;
    EXPECT_TRUE(std::filesystem::exists(dir.path() + "/shardmap/map.db"));
}

} // namespace
} // namespace shardmap::testing
