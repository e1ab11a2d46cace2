// One key style for scripts (issue 27): every --json output of the real shardmapctl and the plan
// file it writes use snake_case keys; the plan file says its format version, and a stored plan
// file of version 1 (camelCase) still applies.
#include "ctl_run.h"

#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace shardmap::testing;
using nlohmann::json;

namespace {

// Every key anywhere in value that has an upper-case letter, with where it is.
void collectCamelKeys(const json& value, const std::string& where, std::vector<std::string>& out)
{
    if (value.is_object()) {
        for (const auto& [key, child] : value.items()) {
            if (std::any_of(key.begin(), key.end(), [](char c) { return c >= 'A' && c <= 'Z'; }))
                out.push_back(where + "." + key);
            collectCamelKeys(child, where + "." + key, out);
        }
    } else if (value.is_array()) {
        for (const auto& child : value)
            collectCamelKeys(child, where + "[]", out);
    }
}

std::vector<std::string> camelKeys(const json& value)
{
    std::vector<std::string> out;
    collectCamelKeys(value, "", out);
    return out;
}

} // namespace

TEST(CtlFormats, EveryJsonOutputAndThePlanFileUseSnakeCaseKeys)
{
    TempDir dir;
    const std::string store = "sqlite:" + dir.file("map.db");
    std::vector<std::unique_ptr<NodeProcess>> nodes;
    startCtlFleet(dir, store, nodes);
    for (const char* space : { "acme", "globex", "initech" }) {
        const auto written = runCtl(dir, store, { "write", "--space", space, "--id", "d1", "--field", "title=hello" });
        ASSERT_EQ(written.code, 0) << written.err;
    }
    const std::vector<std::vector<std::string>> commands {
        { "node", "list" },
        { "shard", "list" },
        { "space", "list" },
        { "space", "where", "acme" },
        { "map", "history" },
        { "map", "diff", "1", "3" },
        { "map", "verify-audit" },
        { "stats", "--spaces" },
        { "migrations", "list", "--all" },
        { "migrations", "settings" },
        { "operations", "list" },
        { "plan", "rebalance" },
        { "plan", "drain", "s0" },
        { "simulate" },
        { "health" },
    };
    for (auto args : commands) {
        SCOPED_TRACE(args[0] + " " + args[1 % args.size()]);
        args.insert(args.begin(), "--json");
        const auto run = runCtl(dir, store, args);
        const auto parsed = run.parsed();
        ASSERT_TRUE(parsed.is_object()) << run.out << run.err;
        EXPECT_FALSE(parsed.contains("error")) << run.out;
        EXPECT_EQ(camelKeys(parsed), std::vector<std::string> {}) << run.out;
    }
    // The plan file: versioned, in the same style.
    const auto drafted = runCtl(dir, store, { "plan", "drain", "s0", "-o", dir.file("plan.json") });
    ASSERT_EQ(drafted.code, 0) << drafted.err;
    const json plan = json::parse(readWholeFile(dir.file("plan.json")));
    EXPECT_EQ(plan["version"], 2);
    EXPECT_TRUE(plan.contains("base_revision")) << plan.dump();
    EXPECT_TRUE(plan.contains("new_shards")) << plan.dump();
    EXPECT_EQ(camelKeys(plan), std::vector<std::string> {}) << plan.dump();
    const auto applied = runCtl(dir, store, { "plan", "apply", dir.file("plan.json") });
    EXPECT_EQ(applied.code, 0) << applied.err;
}

TEST(CtlFormats, AStoredPlanFileOfVersionOneStillApplies)
{
    TempDir dir;
    const std::string store = "sqlite:" + dir.file("map.db");
    std::vector<std::unique_ptr<NodeProcess>> nodes;
    startCtlFleet(dir, store, nodes);
    // Written by shardmapctl before plan files were versioned 2: camelCase keys, a shard to create.
    const std::string file = std::string(SHARDMAP_SOURCE_DIR) + "/tests/data/plan-v1.json";
    ASSERT_NE(readWholeFile(file).find("\"newShards\""), std::string::npos);
    const auto applied = runCtl(dir, store, { "plan", "apply", file });
    ASSERT_EQ(applied.code, 0) << applied.err;
    const auto shards = runCtl(dir, store, { "--json", "shard", "list" }).parsed();
    bool created = false;
    for (const auto& shard : shards["shards"])
        created = created || (shard["shard"] == "s9" && shard["node"] == "n0" && shard["capacity_docs"] == 1000);
    EXPECT_TRUE(created) << shards.dump();
}
