#pragma once

// Runs the real shardmapctl binary for a test and collects what it said.

#include "tests/support/node_process.h"
#include "tests/support/process.h"
#include "tests/support/test_dir.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace shardmap::testing {

struct CtlRun {
    int code = -1;
    std::string out;
    std::string err;
    nlohmann::json parsed() const { return nlohmann::json::parse(out, nullptr, false); }
};

// Runs a program to its end: its standard output, exit code, and standard error (kept in
// dir/<name>.stderr). env: extra NAME=VALUE entries for the child (failpoints, LANG). quiet:
// how long it may print nothing before it is taken for stuck.
inline CtlRun runProgram(const TempDir& dir, const std::vector<std::string>& argv,
    const std::vector<std::string>& env = {}, const std::string& name = "tool",
    std::chrono::milliseconds quiet = std::chrono::seconds(30))
{
    const std::string errFile = dir.file(name + ".stderr");
    std::filesystem::remove(errFile);
    auto child = ChildProcess::spawn(argv, errFile, env);
    CtlRun run;
    if (!child)
        return run;
    while (auto line = child->readLine(quiet))
        run.out += *line + "\n";
    run.code = child->wait(std::chrono::seconds(30)).value_or(-1);
    run.err = readWholeFile(errFile);
    return run;
}

// shardmapctl --store STORE --actor tester ARGS..., its stderr kept in dir/ctl.stderr.
inline CtlRun runCtl(const TempDir& dir, const std::string& store, const std::vector<std::string>& args,
    const std::vector<std::string>& env = {})
{
    std::vector<std::string> argv { SHARDMAP_CTL_BINARY, "--store", store, "--actor", "tester" };
    argv.insert(argv.end(), args.begin(), args.end());
    return runProgram(dir, argv, env, "ctl");
}

// Two real nodes (data under dir/node0, dir/node1) registered as n0 and n1 with shards s0 on n0
// and s1 on n1, through the binary, in a store it initialises.
inline void startCtlFleet(
    const TempDir& dir, const std::string& store, std::vector<std::unique_ptr<NodeProcess>>& nodes)
{
    for (int i = 0; i < 2; ++i) {
        nodes.push_back(NodeProcess::start(dir.file("node" + std::to_string(i))));
        ASSERT_TRUE(nodes.back());
    }
    ASSERT_EQ(runCtl(dir, store, { "init" }).code, 0);
    for (int i = 0; i < 2; ++i) {
        const auto n = std::to_string(i);
        auto added = runCtl(dir, store, { "node", "add", "n" + n, nodes[static_cast<std::size_t>(i)]->address() });
        ASSERT_EQ(added.code, 0) << added.err;
        auto created = runCtl(dir, store, { "shard", "create", "s" + n, "--node", "n" + n });
        ASSERT_EQ(created.code, 0) << created.err;
    }
}

} // namespace shardmap::testing
