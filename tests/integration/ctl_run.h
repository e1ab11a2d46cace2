#pragma once

// Runs the real shardmapctl binary for a test and collects what it said.

#include "tests/support/process.h"
#include "tests/support/test_dir.h"

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

// shardmapctl --store STORE --actor tester ARGS..., its stderr kept in dir/ctl.stderr.
// env: extra NAME=VALUE entries for the child (failpoints).
inline CtlRun runCtl(const TempDir& dir, const std::string& store, const std::vector<std::string>& args,
    const std::vector<std::string>& env = {})
{
    std::vector<std::string> argv { SHARDMAP_CTL_BINARY, "--store", store, "--actor", "tester" };
    argv.insert(argv.end(), args.begin(), args.end());
    const std::string errFile = dir.file("ctl.stderr");
    std::filesystem::remove(errFile);
    auto child = ChildProcess::spawn(argv, errFile, env);
    CtlRun run;
    if (!child)
        return run;
    while (auto line = child->readLine(std::chrono::seconds(30)))
        run.out += *line + "\n";
    run.code = child->wait(std::chrono::seconds(30)).value_or(-1);
    run.err = readWholeFile(errFile);
    return run;
}

} // namespace shardmap::testing
