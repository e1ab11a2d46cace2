// shardmapctl plan: the rebalance planner's scenarios through the real binary, against real
// nodes and a real store (SQLite and a real etcd). Plans queue nothing until applied; a plan is
// refused against a map that moved on under its moves; an operation larger than one etcd Txn
// commits in chunks under one operation record, and a crash between chunks leaves the chunks
// before it queued and the record saying so.
#include "core/client/node_client.h"
#include "core/map/map_editor.h"
#include "ctl_run.h"
#include "node_test_helpers.h"
#include "tests/support/controller_process.h"
#include "tests/support/etcd_process.h"
#include "tests/support/seed_spaces.h"

#include <fstream>
#include <nlohmann/json.hpp>

using namespace shardmap;
using namespace shardmap::testing;
using nlohmann::json;

namespace {

enum class Backend { Sqlite, Etcd };

class CtlPlanTest : public ::testing::TestWithParam<Backend> {
protected:
    void SetUp() override
    {
        if (GetParam() == Backend::Etcd) {
            std::string error;
            EtcdProcess* etcd = EtcdProcess::shared(error);
            ASSERT_NE(etcd, nullptr) << error;
            static int counter = 0;
            m_store = "etcd://" + etcd->endpoint() + "/ctl-plan-" + std::to_string(::getpid()) + "-"
                + std::to_string(++counter);
        } else {
            m_store = "sqlite:" + m_dir.file("map.db");
        }
        startCtlFleet(m_dir, m_store, m_nodes);
    }

    CtlRun ctl(std::vector<std::string> args, const std::vector<std::string>& env = {})
    {
        return runCtl(m_dir, m_store, args, env);
    }

    void addShard(const std::string& id, const std::string& node)
    {
        auto created = ctl({ "shard", "create", id, "--node", node });
        ASSERT_EQ(created.code, 0) << created.err;
    }

    // Spaces on a shard, each with `docs` documents, written to its node.
    void addSpaces(const std::vector<std::string>& spaces, const std::string& shard, const std::vector<int>& docs)
    {
        auto store = core::openStore(m_store, false);
        ASSERT_TRUE(store);
        const auto snapshot = map();
        auto client = m_pool.get(snapshot.nodes.at(snapshot.shards.at(shard).value.node).value.address);
        ASSERT_TRUE(client);
        seedSpaces(**store, **client, shard, spaces, docs);
    }

    core::MapSnapshot map()
    {
        auto store = core::openStore(m_store, false);
        EXPECT_TRUE(store);
        auto snapshot = core::MapEditor(**store).snapshot();
        EXPECT_TRUE(snapshot);
        return *snapshot;
    }

    std::vector<core::AuditRecord> historySince(std::uint64_t revision)
    {
        auto store = core::openStore(m_store, false);
        auto history = (*store)->history(revision, 0, 0);
        EXPECT_TRUE(history);
        return *history;
    }

    TempDir m_dir;
    std::string m_store;
    std::vector<std::unique_ptr<NodeProcess>> m_nodes;
    core::NodeClientPool m_pool;
};

std::string backendName(const ::testing::TestParamInfo<Backend>& info)
{
    return info.param == Backend::Sqlite ? "Sqlite" : "Etcd";
}

} // namespace

TEST_P(CtlPlanTest, APlanQueuesNothingUntilAppliedFromItsFile)
{
    addShard("s2", "n1");
    addSpaces({ "a", "b", "c", "d", "e", "f" }, "s0", { 60, 50, 40, 30, 20, 10 });
    const auto before = map().revision;
    const std::string file = m_dir.file("plan.json");
    auto planned = ctl({ "--json", "--reason", "even out", "plan", "rebalance", "-o", file });
    ASSERT_EQ(planned.code, 0) << planned.err;
    const json result = planned.parsed();
    const auto moves = result["plan"]["moves"];
    ASSERT_GE(moves.size(), 2u) << planned.out;
    EXPECT_FALSE(result["summary"]["balanced_before"].get<bool>());
    EXPECT_GT(result["summary"]["bytes_moved"].get<std::uint64_t>(), 0u);
    EXPECT_LT(result["summary"]["objectives"][0]["max_over_mean_after"].get<double>(),
        result["summary"]["objectives"][0]["max_over_mean_before"].get<double>());
    EXPECT_EQ(map().revision, before) << "planning commits nothing";
    auto human = ctl({ "plan", "rebalance" });
    ASSERT_EQ(human.code, 0) << human.err;
    for (const char* text :
        { "SPACE", "REASON", "rebalance: s0 holds", "BYTES AFTER", "max/mean", "docs/s per migration" })
        EXPECT_NE(human.out.find(text), std::string::npos) << text << "\n" << human.out;

    auto applied = ctl({ "--json", "plan", "apply", file });
    ASSERT_EQ(applied.code, 0) << applied.err;
    const auto after = map();
    ASSERT_EQ(after.operations.size(), 1u);
    const auto& op = after.operations.begin()->second.value;
    EXPECT_EQ(op.kind, core::OperationKind::Move);
    EXPECT_EQ(op.subject, "rebalance");
    EXPECT_EQ(op.reason, "even out");
    ASSERT_EQ(op.migrations.size(), moves.size());
    for (std::size_t i = 0; i < moves.size(); ++i) {
        const auto& migration = after.migrations.at(op.migrations[i]).value;
        EXPECT_EQ(migration.space, moves[i]["space"]);
        EXPECT_EQ(migration.target, moves[i]["to"]);
        EXPECT_NE(migration.reason.find("rebalance: s0 holds"), std::string::npos) << migration.reason;
    }
    // Planning again sees the queued migrations where they are going: nothing more to move.
    auto again = ctl({ "--json", "plan", "rebalance" });
    ASSERT_EQ(again.code, 0) << again.err;
    EXPECT_EQ(again.parsed()["plan"]["moves"].size(), 0u) << again.out;
}

TEST_P(CtlPlanTest, APlanIsRefusedAgainstAMapThatMovedOnUnderIt)
{
    addShard("s2", "n1");
    addSpaces({ "a", "b", "c", "d" }, "s0", { 40, 30, 20, 10 });
    const std::string file = m_dir.file("plan.json");
    auto planned = ctl({ "--json", "plan", "rebalance", "-o", file });
    ASSERT_EQ(planned.code, 0) << planned.err;
    const std::string moved = planned.parsed()["plan"]["moves"][0]["space"];
    ASSERT_EQ(ctl({ "space", "pin", moved, "s0" }).code, 0);
    const auto before = map().revision;
    auto refused = ctl({ "plan", "apply", file });
    EXPECT_EQ(refused.code, 4) << refused.out << refused.err;
    EXPECT_NE(refused.err.find("moved on since the plan was made"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("space " + moved + " was pinned to shard s0"), std::string::npos) << refused.err;
    EXPECT_EQ(map().revision, before) << "a refused plan commits nothing";
    EXPECT_TRUE(map().migrations.empty());
    auto missing = ctl({ "plan", "apply", m_dir.file("nope.json") });
    EXPECT_EQ(missing.code, 3) << missing.err;
    std::ofstream(m_dir.file("bad.json")) << "{\"version\": 7}";
    EXPECT_EQ(ctl({ "plan", "apply", m_dir.file("bad.json") }).code, 2);
}

// A drain planned before a space arrived on the shard would leave it on a draining shard.
TEST_P(CtlPlanTest, ADrainPlanIsRefusedWhenASpaceArrivedOnTheShardSince)
{
    addSpaces({ "a", "b" }, "s0", { 10 });
    const std::string file = m_dir.file("drain.json");
    ASSERT_EQ(ctl({ "plan", "drain", "s0", "-o", file }).code, 0);
    addSpaces({ "late" }, "s0", { 5 });
    const auto before = map().revision;
    auto refused = ctl({ "plan", "apply", file });
    EXPECT_EQ(refused.code, 4) << refused.out << refused.err;
    EXPECT_NE(refused.err.find("late (on s0) would stay on what the drain empties"), std::string::npos) << refused.err;
    EXPECT_EQ(map().revision, before);
    EXPECT_EQ(map().shards.at("s0").value.state, core::ShardState::Active);
}

TEST_P(CtlPlanTest, AddShardCreatesTheNewShardWhenApplied)
{
    addSpaces({ "a", "b", "c", "d", "e", "f", "g", "h" }, "s0", { 20 });
    addSpaces({ "i", "j", "k", "l", "m", "n", "o", "p" }, "s1", { 20 });
    auto dry = ctl({ "--json", "plan", "add-shard", "s9@n1" });
    ASSERT_EQ(dry.code, 0) << dry.err;
    EXPECT_FALSE(map().shards.contains("s9")) << "planning creates nothing";
    auto run = ctl({ "--json", "plan", "add-shard", "s9@n1", "--apply" });
    ASSERT_EQ(run.code, 0) << run.err;
    const json result = run.parsed();
    const auto after = map();
    ASSERT_TRUE(after.shards.contains("s9"));
    EXPECT_EQ(after.shards.at("s9").value.node, "n1");
    ASSERT_EQ(after.operations.size(), 1u);
    const auto& op = after.operations.begin()->second.value;
    ASSERT_GE(op.migrations.size(), 3u);
    for (const auto& id : op.migrations)
        EXPECT_EQ(after.migrations.at(id).value.target, "s9");
    EXPECT_LE(
        result["summary"]["bytes_moved"].get<double>(), 1.25 * result["summary"]["lower_bound_bytes"].get<double>());
    auto client = m_pool.get(m_nodes[1]->address());
    auto shards = (*client)->listShards();
    ASSERT_TRUE(shards);
    EXPECT_TRUE(std::any_of(shards->begin(), shards->end(), [](const auto& s) { return s.id == "s9"; }))
        << "the shard exists on its node";
    EXPECT_EQ(ctl({ "plan", "add-shard", "nope" }).code, 3);
}

TEST_P(CtlPlanTest, ScenariosAreRefusedWithTheirReasons)
{
    addSpaces({ "a", "b" }, "s0", { 10 });
    auto unknown = ctl({ "plan", "drain", "s7" });
    EXPECT_EQ(unknown.code, 3);
    EXPECT_NE(unknown.err.find("no shard s7"), std::string::npos) << unknown.err;
    ASSERT_EQ(ctl({ "space", "pin", "b", "s0" }).code, 0);
    auto pinned = ctl({ "plan", "drain", "s0" });
    EXPECT_EQ(pinned.code, 5);
    EXPECT_NE(pinned.err.find("b (pinned to s0)"), std::string::npos) << pinned.err;
    auto split = ctl({ "plan", "split", "s0", "--new-shard", "s1" });
    EXPECT_EQ(split.code, 4) << split.err;
    auto below = ctl({ "plan", "merge", "--below", "1" });
    EXPECT_EQ(below.code, 5) << below.err;
    EXPECT_NE(below.err.find("a merge needs two"), std::string::npos) << below.err;
    auto limit = ctl({ "plan", "split", "s0", "--new-shard", "s5", "--limit", "100000000" });
    EXPECT_EQ(limit.code, 5);
    EXPECT_NE(limit.err.find("split limit"), std::string::npos) << limit.err;
}

// 80 moves need 1 + 1 + 160 mutations: two Txns of at most 126 on etcd, one commit on SQLite.
TEST_P(CtlPlanTest, ALargeDrainCommitsInChunksUnderOneOperation)
{
    std::vector<std::string> spaces;
    for (int i = 0; i < 80; ++i)
        spaces.push_back("t" + std::to_string(i));
    addSpaces(spaces, "s0", { 1 });
    const auto before = map().revision;
    auto run = ctl({ "--reason", "hardware", "drain", "s0" });
    ASSERT_EQ(run.code, 0) << run.err;
    const auto after = map();
    ASSERT_EQ(after.operations.size(), 1u);
    const auto& op = after.operations.begin()->second.value;
    EXPECT_EQ(op.state, core::OperationState::Running);
    EXPECT_EQ(op.plannedMoves, 80u);
    EXPECT_EQ(op.migrations.size(), 80u);
    for (const auto& space : spaces)
        EXPECT_TRUE(after.spaces.at(space).value.migrating()) << space;
    const auto commits = historySince(before);
    EXPECT_EQ(commits.size(), GetParam() == Backend::Etcd ? 2u : 1u);
    if (GetParam() == Backend::Etcd) {
        EXPECT_NE(commits[0].reason.find("(part 62/80 moves)"), std::string::npos) << commits[0].reason;
        EXPECT_NE(commits[1].reason.find("(part 80/80 moves)"), std::string::npos) << commits[1].reason;
    }
}

// Only etcd commits an operation in chunks (SQLite takes it in one commit: there is no between).
class CtlPlanChunkTest : public CtlPlanTest { };

TEST_P(CtlPlanChunkTest, ACrashBetweenChunksLeavesTheFirstChunkQueuedAndSaysSo)
{
    std::vector<std::string> spaces;
    for (int i = 0; i < 80; ++i)
        spaces.push_back("t" + std::to_string(i));
    addSpaces(spaces, "s0", { 1 });
    auto run = ctl({ "drain", "s0" }, { "SHARDMAP_FAILPOINTS=operation.chunk.committed=kill@1" });
    EXPECT_NE(run.code, 0) << "killed between the chunks";
    const auto after = map();
    ASSERT_EQ(after.operations.size(), 1u);
    const auto& op = after.operations.begin()->second.value;
    EXPECT_EQ(op.state, core::OperationState::Queuing);
    EXPECT_EQ(op.plannedMoves, 80u);
    ASSERT_EQ(op.migrations.size(), 62u);
    std::size_t marked = 0;
    for (const auto& space : spaces)
        marked += after.spaces.at(space).value.migrating() ? 1 : 0;
    EXPECT_EQ(marked, 62u) << "exactly the first chunk's spaces are queued";
    for (const auto& id : op.migrations)
        EXPECT_EQ(after.migrations.at(id).value.phase, core::MigrationPhase::Queued);
    EXPECT_EQ(after.shards.at("s0").value.state, core::ShardState::Draining) << "the first chunk carries the state";
}

// The same crash, then a writer that never came back: the executor finishes the record as failed
// once it has not changed for --abandoned-queuing-ms (of the executor's clock) and its migrations
// ended, and planning again queues what is left.
TEST_P(CtlPlanChunkTest, AnAbandonedQueuingOperationEndsFailedAndPlanningAgainMovesTheRest)
{
    std::vector<std::string> spaces;
    for (int i = 0; i < 80; ++i)
        spaces.push_back("t" + std::to_string(i));
    addSpaces(spaces, "s0", { 1 });
    ASSERT_NE(ctl({ "drain", "s0" }, { "SHARDMAP_FAILPOINTS=operation.chunk.committed=kill@1" }).code, 0);
    const core::OperationRecord aged = map().operations.begin()->second.value;
    ASSERT_EQ(ctl({ "migrations", "settings", "--rollback-window", "0", "--max-per-shard", "0", "--max-per-node", "0",
                      "--max-concurrent", "16" })
                  .code,
        0);
    auto controller = ControllerProcess::start(m_dir.file("c1.stderr.log"),
        { "--store", m_store, "--id", "c1", "--lease-ttl-ms", "1000", "--abandoned-queuing-ms", "3000",
            "--archive-after-ms", "0" });
    ASSERT_TRUE(controller);
    ASSERT_TRUE(pollUntil(std::chrono::seconds(120), [&] {
        return map().operations.at(aged.id).value.state == core::OperationState::Failed;
    })) << controller->stderrText();
    const auto ended = map();
    const auto& op = ended.operations.at(aged.id).value;
    EXPECT_NE(op.error.find("interrupted while queuing: 62 of 80 moves were queued"), std::string::npos) << op.error;
    for (const auto& id : op.migrations)
        EXPECT_EQ(ended.migrations.at(id).value.phase, core::MigrationPhase::Done) << id;
    EXPECT_EQ(ended.shards.at("s0").value.state, core::ShardState::Draining)
        << "nothing retired for a partial operation";

    // Finished migrations leave the executor's working set; the map (and so everything below)
    // still has them.
    auto store = core::openStore(m_store, false);
    ASSERT_TRUE(store);
    ASSERT_TRUE(pollUntil(std::chrono::seconds(60), [&] {
        auto archived = (*store)->list(std::string(core::keys::kArchivedMigrations));
        return archived && archived->records.size() == 62;
    })) << controller->stderrText();
    auto working = (*store)->list(std::string(core::keys::kMigrations));
    ASSERT_TRUE(working);
    EXPECT_TRUE(working->records.empty());
    EXPECT_EQ(map().migrations.size(), 62u);

    // What a report will read: the timeline the executor kept for each migration.
    auto shown = ctl({ "migrations", "show", op.migrations.front() });
    ASSERT_EQ(shown.code, 0) << shown.err;
    for (const char* text : { "timeline:", "\nsource              s0\n", "queued  ", "dual_write  ",
             "cutover write hold", "compared", "(equal)", "done" })
        EXPECT_NE(shown.out.find(text), std::string::npos) << text << "\n" << shown.out;
    auto shownJson = ctl({ "--json", "migrations", "show", op.migrations.front() }).parsed();
    EXPECT_EQ(shownJson["timeline"]["requested_source"], "s0");
    EXPECT_GE(shownJson["timeline"]["write_hold_ms"].get<double>(), 0.0);

    // The operation's report, in both forms, from what the store keeps.
    const std::string csvFile = m_dir.file("report.csv");
    ASSERT_EQ(ctl({ "report", "--operation", aged.id, "--format", "csv", "-o", csvFile }).code, 0);
    std::ifstream csvIn(csvFile, std::ios::binary);
    const std::string csv((std::istreambuf_iterator<char>(csvIn)), std::istreambuf_iterator<char>());
    std::size_t lines = 0;
    for (std::size_t at = csv.find("\r\n"); at != std::string::npos; at = csv.find("\r\n", at + 2))
        ++lines;
    EXPECT_EQ(lines, 63u) << "a header and one row per queued migration";
    EXPECT_EQ(csv.rfind("migration,space,requested_source,requested_target,outcome", 0), 0u);
    auto report = ctl({ "report", "--operation", aged.id, "--format", "json" });
    ASSERT_EQ(report.code, 0) << report.err;
    const json reported = report.parsed();
    EXPECT_EQ(reported["schema"], "shardmap.migration-report");
    EXPECT_EQ(reported["summary"]["migrations"], 62);
    EXPECT_EQ(reported["summary"]["by_outcome"]["done"], 62);
    EXPECT_EQ(reported["summary"]["verified_equal"], 62);
    EXPECT_EQ(reported["operations"][0]["state"], "failed");
    for (const auto& row : reported["migrations"]) {
        EXPECT_EQ(row["requested_source"], "s0");
        EXPECT_EQ(ended.migrations.at(row["migration"].get<std::string>()).value.progress.docsDone,
            row["docs_done"].get<std::uint64_t>());
        EXPECT_NE(csv.find(row["migration"].get<std::string>() + "," + row["space"].get<std::string>() + ",s0,"),
            std::string::npos);
    }
    EXPECT_EQ(ctl({ "report", "--operation", aged.id, "--format", "pdf" }).code, 2);
    EXPECT_EQ(ctl({ "report", "--format", "csv" }).code, 2) << "which migrations?";

    auto again = ctl({ "--json", "plan", "drain", "s0", "--apply" });
    ASSERT_EQ(again.code, 0) << again.err;
    EXPECT_EQ(again.parsed()["operation"]["migrations"].size(), 18u) << "the moves never queued";
}

INSTANTIATE_TEST_SUITE_P(Stores, CtlPlanTest, ::testing::Values(Backend::Sqlite, Backend::Etcd), backendName);
INSTANTIATE_TEST_SUITE_P(Stores, CtlPlanChunkTest, ::testing::Values(Backend::Etcd), backendName);

// The what-if simulator through the binary on real nodes' figures: every strategy is reported,
// the current map's figures are those of the spaces written, dynamic lookup moves little, mod-N
// moves more than rendezvous when a shard is added, and impossible removals are refused.
TEST_P(CtlPlanTest, SimulateComparesTheStrategiesOnTheFleetsOwnSpaces)
{
    addShard("s2", "n1");
    addShard("s3", "n0");
    const std::vector<int> docCounts { 12, 7, 3 };
    std::map<std::string, double> docs { { "s0", 0 }, { "s1", 0 }, { "s2", 0 }, { "s3", 0 } };
    const std::vector<std::pair<std::string, int>> layout { { "s0", 20 }, { "s1", 12 }, { "s2", 8 } };
    int next = 0;
    for (const auto& [shard, count] : layout) {
        std::vector<std::string> spaces;
        for (int i = 0; i < count; ++i) {
            spaces.push_back("sp" + std::to_string(next++));
            docs[shard] += docCounts[static_cast<std::size_t>(i) % docCounts.size()];
        }
        addSpaces(spaces, shard, docCounts);
    }
    auto run = ctl({ "--json", "simulate", "--add-shards", "1" });
    ASSERT_EQ(run.code, 0) << run.err;
    const json result = run.parsed();
    ASSERT_TRUE(result.is_object()) << run.out;
    EXPECT_EQ(result["spaces"].get<int>(), 40);
    EXPECT_EQ(result["shards"], json({ "s0", "s1", "s2", "s3" }));
    EXPECT_EQ(result["added_shards"].size(), 1u);
    EXPECT_EQ(result["removed_shards"], json({ "s3" }));
    std::map<std::string, json> byName;
    for (const auto& strategy : result["strategies"])
        byName[strategy["name"].get<std::string>()] = strategy;
    for (const char* name : { "current", "planner", "load-aware", "jump", "rendezvous", "mod-n", "bounded-load" })
        EXPECT_TRUE(byName.contains(name)) << name << "\n" << run.out;

    const json& current = byName["current"];
    double docSum = 0, docMost = 0, byteSum = 0, byteMost = 0;
    for (const auto& [shard, count] : docs) {
        docSum += count;
        docMost = std::max(docMost, count);
    }
    ASSERT_EQ(current["shards"].size(), 4u);
    for (const auto& shard : current["shards"]) {
        EXPECT_EQ(shard["docs"].get<double>(), docs.at(shard["shard"].get<std::string>())) << shard.dump();
        byteSum += shard["bytes"].get<double>();
        byteMost = std::max(byteMost, shard["bytes"].get<double>());
    }
    EXPECT_NEAR(current["docs"]["max_over_mean"].get<double>(), docMost / (docSum / 4), 1e-9);
    EXPECT_NEAR(current["bytes"]["max_over_mean"].get<double>(), byteMost / (byteSum / 4), 1e-9);
    EXPECT_NEAR(result["total"]["bytes"].get<double>(), byteSum, 1);
    EXPECT_EQ(current["moved_on_remove"]["bytes"].get<double>(), 0) << "s3 holds nothing";
    ASSERT_TRUE(current["moved_on_add"]["known"].get<bool>()) << current.dump();
    EXPECT_LE(current["moved_on_add"]["bytes"].get<double>(), 1.25 * result["minimum_moved_on_add"].get<double>());
    EXPECT_LT(
        byName["planner"]["bytes"]["max_over_mean"].get<double>(), current["bytes"]["max_over_mean"].get<double>());
    EXPECT_GT(byName["mod-n"]["moved_on_add"]["bytes"].get<double>(),
        byName["rendezvous"]["moved_on_add"]["bytes"].get<double>());
    EXPECT_GT(byName["mod-n"]["moved_on_add"]["share_of_bytes"].get<double>(), 0.5);

    auto human = ctl({ "simulate", "--remove-shards", "2", "--grow-top", "3", "--top-factor", "2" });
    ASSERT_EQ(human.code, 0) << human.err;
    for (const char* text : { "STRATEGY", "MAX/MEAN BYTES", "HOTTEST Q/S x MEAN", "MOVED +1", "MOVED -2",
             "mod-n: ", "bounded-load: ", "dynamic lookup" })
        EXPECT_NE(human.out.find(text), std::string::npos) << text << "\n" << human.out;
    EXPECT_EQ(ctl({ "simulate", "--remove-shards", "4" }).code, 2) << "one shard must stay";
}
