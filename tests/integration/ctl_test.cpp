// shardmapctl, the real binary, against real nodes and a real SQLite store.
#include "ctl_run.h"
#include "node_test_helpers.h"

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace shardmap;
using namespace shardmap::testing;
using nlohmann::json;

namespace {

class CtlTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        for (int i = 0; i < 2; ++i) {
            m_nodes.push_back(NodeProcess::start(m_dir.file("node" + std::to_string(i))));
            ASSERT_TRUE(m_nodes.back());
        }
    }

    CtlRun ctl(std::vector<std::string> args, const std::string& store = {})
    {
        return runCtl(m_dir, store.empty() ? "sqlite:" + m_dir.file("map.db") : store, args);
    }

    void buildFleet()
    {
        ASSERT_EQ(ctl({ "init" }).code, 0);
        for (int i = 0; i < 2; ++i) {
            const auto n = std::to_string(i);
            auto added = ctl(
                { "node", "add", "n" + n, m_nodes[static_cast<std::size_t>(i)]->address(), "--label", "zone=z" + n });
            ASSERT_EQ(added.code, 0) << added.err;
            auto shard = ctl({ "shard", "create", "s" + n, "--node", "n" + n });
            ASSERT_EQ(shard.code, 0) << shard.err;
        }
    }

    TempDir m_dir;
    std::vector<std::unique_ptr<NodeProcess>> m_nodes;
};

} // namespace

TEST_F(CtlTest, BuildsAFleetAndListsItAsTablesAndJson)
{
    buildFleet();
    auto nodes = ctl({ "node", "list" });
    EXPECT_EQ(nodes.code, 0);
    EXPECT_NE(nodes.out.find("NODE"), std::string::npos);
    EXPECT_NE(nodes.out.find("zone=z0"), std::string::npos);
    auto listed = ctl({ "--json", "node", "list" }).parsed();
    ASSERT_TRUE(listed.contains("nodes"));
    EXPECT_EQ(listed["nodes"].size(), 2u);
    EXPECT_EQ(listed["nodes"][0]["shards"], 1);
    auto shards = ctl({ "--json", "shard", "list" }).parsed();
    ASSERT_EQ(shards["shards"].size(), 2u);
    EXPECT_EQ(shards["shards"][0]["state"], "active");
    EXPECT_EQ(shards["shards"][0]["health"], "ok");
}

// A new shard's index engine: named with --engine, else the fleet's default-engine setting; in the
// map, shard create's answer and shard list (issue 29).
TEST_F(CtlTest, ShardsAreCreatedWithAnEngineAndListedWithIt)
{
    buildFleet();
    const auto settings = ctl({ "--json", "migrations", "settings", "--default-engine", "xapian" });
    ASSERT_EQ(settings.code, 0) << settings.err;
    EXPECT_EQ(settings.parsed()["settings"]["default_engine"], "xapian");
    const auto byDefault = ctl({ "--json", "shard", "create", "s2", "--node", "n0" });
    ASSERT_EQ(byDefault.code, 0) << byDefault.err;
    EXPECT_EQ(byDefault.parsed()["engine"], "xapian");
    const auto named = ctl({ "shard", "create", "s3", "--node", "n1", "--engine", "fts5" });
    ASSERT_EQ(named.code, 0) << named.err;
    EXPECT_NE(named.out.find("shard s3 created on node n1 with engine fts5"), std::string::npos) << named.out;

    const auto unknown = ctl({ "shard", "create", "s4", "--node", "n1", "--engine", "lucene" });
    EXPECT_EQ(unknown.code, 2);
    EXPECT_NE(unknown.err.find("unknown index engine 'lucene' (the engines are fts5, xapian)"), std::string::npos)
        << unknown.err;
    const auto badSetting = ctl({ "migrations", "settings", "--default-engine", "lucene" });
    EXPECT_EQ(badSetting.code, 2);
    EXPECT_NE(badSetting.err.find("unknown index engine 'lucene'"), std::string::npos) << badSetting.err;

    auto listed = ctl({ "--json", "shard", "list" }).parsed();
    std::map<std::string, std::string> engines;
    for (const auto& shard : listed["shards"])
        engines[shard["shard"]] = shard["engine"];
    EXPECT_EQ(engines,
        (std::map<std::string, std::string> {
            { "s0", "fts5" }, { "s1", "fts5" }, { "s2", "xapian" }, { "s3", "fts5" } }))
        << "s4 was refused before anything was made";
    const auto table = ctl({ "shard", "list" });
    ASSERT_EQ(table.code, 0) << table.err;
    EXPECT_NE(table.out.find("ENGINE"), std::string::npos) << table.out;
    std::istringstream lines(table.out);
    bool sawS2 = false;
    for (std::string line; std::getline(lines, line);) {
        if (line.starts_with("s2 ")) {
            sawS2 = true;
            EXPECT_NE(line.find(" xapian "), std::string::npos) << line;
        }
    }
    EXPECT_TRUE(sawS2) << table.out;
}

TEST_F(CtlTest, WritesAndSearchesThroughTheRouter)
{
    buildFleet();
    auto written = ctl({ "write", "--space", "acme", "--id", "doc-1", "--field", "title=Quarterly report", "--field",
        "body=revenue grew in the north" });
    ASSERT_EQ(written.code, 0) << written.err;
    EXPECT_NE(written.out.find("created space acme"), std::string::npos) << written.out;
    std::ofstream lines(m_dir.file("docs.jsonl"));
    lines << R"({"space":"acme","id":"doc-2","fields":{"title":"Plan","body":"north expansion"}})"
          << "\n"
          << R"({"space":"globex","id":"g-1","fields":{"body":"north pole"}})"
          << "\n";
    lines.close();
    auto bulk = ctl({ "--json", "write", "--file", m_dir.file("docs.jsonl") });
    ASSERT_EQ(bulk.code, 0) << bulk.err;
    EXPECT_EQ(bulk.parsed()["applied"], 2);
    auto found = ctl({ "--json", "search", "--space", "acme", "--space", "globex", "north" });
    ASSERT_EQ(found.code, 0) << found.err;
    EXPECT_EQ(found.parsed()["hits"].size(), 3u);
    auto human = ctl({ "search", "--space", "acme", "revenue" });
    EXPECT_NE(human.out.find("[[revenue]]"), std::string::npos) << human.out;
    auto where = ctl({ "space", "where", "acme" });
    EXPECT_NE(where.out.find("acme is on shard s"), std::string::npos) << where.out;
    auto stats = ctl({ "--json", "stats", "--spaces" });
    ASSERT_EQ(stats.code, 0) << stats.err;
    EXPECT_EQ(stats.parsed()["nodes"].size(), 2u);
}

TEST_F(CtlTest, HistoryAndDiffShowWhoMovedWhat)
{
    buildFleet();
    ASSERT_EQ(ctl({ "write", "--space", "acme", "--id", "1", "--field", "body=x" }).code, 0);
    const auto where = ctl({ "--json", "space", "where", "acme" }).parsed();
    const std::string from = where["shard"];
    const std::string to = from == "s0" ? "s1" : "s0";
    const std::uint64_t before = where["revision"];
    auto moved = ctl({ "--reason", "balance", "space", "reassign", "acme", to });
    ASSERT_EQ(moved.code, 0) << moved.err;
    ASSERT_EQ(ctl({ "shard", "set-state", from, "draining" }).code, 0);
    auto history = ctl({ "--json", "map", "history" }).parsed();
    const auto& last = history["history"].back();
    EXPECT_EQ(last["actor"], "tester");
    EXPECT_EQ(last["action"], "set-shard-state draining");
    auto diff = ctl({ "--json", "map", "diff", std::to_string(before), std::to_string(before + 2) }).parsed();
    ASSERT_EQ(diff["spaces"].size(), 1u);
    EXPECT_EQ(diff["spaces"][0]["from"], from);
    EXPECT_EQ(diff["spaces"][0]["to"], to);
    EXPECT_EQ(diff["spaces"][0]["to_epoch"], 2);
    ASSERT_EQ(diff["shards"].size(), 1u);
    EXPECT_EQ(diff["shards"][0]["after"], "draining");
    auto human = ctl({ "map", "history" });
    EXPECT_NE(human.out.find("balance"), std::string::npos);
}

TEST_F(CtlTest, BadInputGetsAClearErrorAndAnExitCode)
{
    buildFleet();
    auto unknown = ctl({ "space", "where", "nobody" });
    EXPECT_EQ(unknown.code, 3);
    EXPECT_NE(unknown.err.find("no space nobody"), std::string::npos) << unknown.err;
    auto duplicate = ctl({ "node", "add", "n0", "127.0.0.1:1" });
    EXPECT_EQ(duplicate.code, 4);
    EXPECT_NE(duplicate.err.find("already exists"), std::string::npos);
    auto badState = ctl({ "shard", "set-state", "s0", "sleeping" });
    EXPECT_EQ(badState.code, 2);
    ASSERT_EQ(ctl({ "write", "--space", "acme", "--id", "1", "--field", "body=x" }).code, 0);
    const std::string home = ctl({ "--json", "space", "where", "acme" }).parsed()["shard"];
    auto retire = ctl({ "shard", "set-state", home, "retired" });
    EXPECT_EQ(retire.code, 5);
    EXPECT_NE(retire.err.find("still holds 1 space(s) (acme)"), std::string::npos) << retire.err;
    auto busyNode = ctl({ "node", "remove", "n0" });
    EXPECT_EQ(busyNode.code, 5);
    auto badAddress = ctl({ "node", "add", "n9", "no-port" });
    EXPECT_EQ(badAddress.code, 2);
    auto asJson = ctl({ "--json", "space", "where", "nobody" }).parsed();
    EXPECT_EQ(asJson["error"]["code"], "not found");
}

TEST_F(CtlTest, StoreProblemsAreExplained)
{
    auto missing = ctl({ "node", "list" }, "sqlite:" + m_dir.file("absent.db"));
    EXPECT_EQ(missing.code, 3);
    EXPECT_NE(missing.err.find("shardmapctl init"), std::string::npos) << missing.err;
    {
        std::ofstream junk(m_dir.file("junk.db"));
        junk << "this is not a database";
    }
    auto notAStore = ctl({ "node", "list" }, "sqlite:" + m_dir.file("junk.db"));
    EXPECT_EQ(notAStore.code, 5) << notAStore.err;
    EXPECT_NE(notAStore.err.find("not a Shardmap store"), std::string::npos) << notAStore.err;
    auto badUri = ctl({ "node", "list" }, "mysql://x");
    EXPECT_EQ(badUri.code, 2);
}

TEST_F(CtlTest, StoreCopyMovesTheMapWithItsHistoryIntoAnEmptyStore)
{
    buildFleet();
    const std::string copy = "sqlite:" + m_dir.file("copy.db");
    auto copied = ctl({ "store", "copy", "--from", "sqlite:" + m_dir.file("map.db"), "--to", copy, "--json" });
    ASSERT_EQ(copied.code, 0) << copied.err;
    const auto out = copied.parsed();
    EXPECT_EQ(out["commits"], 4); // 2 nodes and 2 shards (init commits nothing)
    auto nodes = ctl({ "node", "list", "--json" }, copy);
    ASSERT_EQ(nodes.code, 0) << nodes.err;
    EXPECT_EQ(nodes.parsed().size(), 2u);
    auto history = ctl({ "map", "history", "--json" }, copy);
    ASSERT_EQ(history.code, 0) << history.err;
    EXPECT_NE(history.out.find("tester"), std::string::npos) << "actors are kept";

    // A second copy into the now non-empty store is refused and changes nothing.
    auto again = ctl({ "store", "copy", "--from", "sqlite:" + m_dir.file("map.db"), "--to", copy });
    EXPECT_EQ(again.code, 5) << again.err;
    EXPECT_NE(again.err.find("not empty"), std::string::npos) << again.err;
}
