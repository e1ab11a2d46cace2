// One key style for scripts (issue 27): every --json output of the real shardmapctl and the plan
// file it writes use snake_case keys; the plan file says its format version, and a stored plan
// file of version 1 (camelCase) still applies.
#include "admin_fixture.h"
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

// An output that parses, names no error and has no camelCase key.
void expectSnakeCaseJson(const CtlRun& run)
{
    const auto parsed = run.parsed();
    ASSERT_TRUE(parsed.is_object() || parsed.is_array()) << run.out << run.err;
    EXPECT_FALSE(parsed.is_object() && parsed.contains("error")) << run.out;
    EXPECT_EQ(camelKeys(parsed), std::vector<std::string> {}) << run.out;
}

// What needs shardmapd's Admin API (whoami, approvals) and what an approved change leaves behind
// (an operation, its migrations and report carry the approval), with a policy in the store.
class CtlAdminFormats : public AdminFixture {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(makeTestCertificates(m_dir.path()));
        ASSERT_TRUE(makeAccessTestCertificates(m_dir.path()));
        for (const char* name : { "alice", "bob" })
            ASSERT_TRUE(makeClientCertificate(m_dir.path(), name));
        std::ofstream(m_dir.file("access.json"))
            << R"({"version": 1, "roles": {"alice": "admin", "bob": "operator"}, "approval": {"max_spaces": 1}})";
        startCtlFleet(m_dir, storeUri(), m_nodes);
        for (const char* space : { "acme", "globex" }) {
            ASSERT_EQ(
                runCtl(m_dir, storeUri(), { "write", "--space", space, "--id", "d1", "--field", "title=x" }).code, 0);
            if (map().spaces.at(space).value.shard != "s0") {
                ASSERT_EQ(runCtl(m_dir, storeUri(), { "space", "reassign", space, "s0" }).code, 0);
            }
        }
        ASSERT_EQ(runCtl(m_dir, storeUri(), { "access", "set", m_dir.file("access.json") }).code, 0);
        m_controller = ControllerProcess::start(m_dir.file("shardmapd.stderr"),
            { "--store", storeUri(), "--id", "c1", "--tls-cert", m_dir.file("server.pem"), "--tls-key",
                m_dir.file("server.key"), "--tls-ca", m_dir.file("ca.pem"), "--access-policy",
                m_dir.file("access.json") });
        ASSERT_TRUE(m_controller);
    }

    // bob asks for a drain of s0 (two spaces: it waits for approval); its approval id.
    std::string askForDrain()
    {
        const auto asked = as("bob", { "--json", "drain", "s0" });
        EXPECT_EQ(asked.code, 10) << asked.err << asked.out;
        const auto approval = asked.parsed()["awaiting_approval"];
        return approval.is_object() ? approval["id"].get<std::string>() : std::string();
    }
};

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

// Issue 27, point 8: the outputs the first test leaves out.
TEST_F(CtlAdminFormats, WhoamiApprovalsAccessAndWhatAnApprovalMadeUseSnakeCaseKeys)
{
    const std::string refused = askForDrain();
    ASSERT_FALSE(refused.empty());
    ASSERT_EQ(as("alice", { "approvals", "refuse", refused, "--reason", "not now" }).code, 0);
    const std::string approved = askForDrain();
    ASSERT_FALSE(approved.empty());
    ASSERT_EQ(as("alice", { "approvals", "approve", approved }).code, 0);
    const auto operations = map().operations;
    ASSERT_EQ(operations.size(), 1u);
    const auto& operation = operations.begin()->second.value;
    ASSERT_FALSE(operation.migrations.empty());

    // Through the Admin API what only it answers, the rest from the store.
    for (const auto& args :
        std::vector<std::vector<std::string>> { { "--json", "whoami" }, { "--json", "approvals", "list" } }) {
        SCOPED_TRACE(args[1]);
        const auto run = as("alice", args);
        EXPECT_EQ(run.code, 0) << run.err;
        expectSnakeCaseJson(run);
    }
    const std::vector<std::vector<std::string>> fromTheStore {
        { "--json", "access", "show" },
        { "--json", "migrations", "show", operation.migrations.front() },
        { "--json", "operations", "show", operation.id },
        { "report", "--operation", operation.id, "--format", "json" },
    };
    for (const auto& args : fromTheStore) {
        SCOPED_TRACE(args[1] + " " + args[2]);
        const auto run = runCtl(m_dir, storeUri(), args);
        EXPECT_EQ(run.code, 0) << run.err;
        expectSnakeCaseJson(run);
    }
}
