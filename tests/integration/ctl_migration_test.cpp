// shardmapctl's migration and operation commands, the real binary, against real nodes and a real
// SQLite store. No controller runs: these commands only queue and steer; the executor is tested
// on its own.
#include "core/client/node_client.h"
#include "core/map/map_editor.h"
#include "core/map/space_placement.h"
#include "core/migration/fleet_facts.h"
#include "ctl_run.h"
#include "node_test_helpers.h"

#include <nlohmann/json.hpp>

using namespace shardmap;
using namespace shardmap::testing;
using nlohmann::json;

namespace {

class CtlMigrationTest : public ::testing::Test {
protected:
    void SetUp() override { startCtlFleet(m_dir, storeUri(), m_nodes); }

    CtlRun ctl(std::vector<std::string> args) { return runCtl(m_dir, storeUri(), args); }

    std::string storeUri() const { return "sqlite:" + m_dir.file("map.db"); }

    void addShard(const std::string& id, const std::string& node)
    {
        auto created = ctl({ "shard", "create", id, "--node", node });
        ASSERT_EQ(created.code, 0) << created.err;
    }

    std::string addressOf(const std::string& node) { return map().nodes.at(node).value.address; }

    // A space on a shard with `docs` documents of about `bodyBytes` each, written to its node.
    void addSpace(const std::string& space, const std::string& shard, int docs, std::size_t bodyBytes = 200)
    {
        auto store = core::openStore(storeUri(), false);
        ASSERT_TRUE(store);
        core::SpaceRecord record;
        record.id = space;
        record.shard = shard;
        ASSERT_TRUE((*store)->commit({ { { core::keys::space(space), core::encode(record), 0 } }, std::nullopt,
            std::nullopt, "tester", "create-space", "" }));
        auto client = m_pool.get(addressOf(map().shards.at(shard).value.node));
        ASSERT_TRUE(client);
        ASSERT_TRUE((*client)->setOwnership(shard, { space, core::SpaceRole::Owner, 1 }));
        std::vector<core::WriteItem> items;
        for (int i = 0; i < docs; ++i)
            items.push_back({ { space, "doc-" + std::to_string(i), 1,
                                  { { "title", "t" }, { "body", std::string(bodyBytes, 'a' + i % 26) } }, false },
                1 });
        auto written = (*client)->bulkWrite(shard, items);
        ASSERT_TRUE(written) << written.error().describe();
    }

    std::uint64_t spaceBytes(const std::string& space, const std::string& shard)
    {
        auto client = m_pool.get(addressOf(map().shards.at(shard).value.node));
        auto stats = (*client)->spaceStats(shard, { space });
        EXPECT_TRUE(stats && !stats->empty());
        return stats && !stats->empty() ? stats->front().bytesEstimate : 0;
    }

    core::MapSnapshot map()
    {
        auto store = core::openStore(storeUri(), false);
        EXPECT_TRUE(store);
        auto snapshot = core::MapEditor(**store).snapshot();
        EXPECT_TRUE(snapshot);
        return *snapshot;
    }

    std::vector<core::AuditRecord> historySince(std::uint64_t revision)
    {
        auto store = core::openStore(storeUri(), false);
        auto history = (*store)->history(revision, 0, 0);
        EXPECT_TRUE(history);
        return *history;
    }

    // Queues a migration and returns its id.
    std::string migrate(const std::string& space, const std::string& target)
    {
        auto run = ctl({ "--json", "migrate", space, "--to", target });
        EXPECT_EQ(run.code, 0) << run.err;
        return run.parsed()["migration"].value("id", "");
    }

    // A refused request: its exit code, and nothing committed.
    void expectRefused(const std::vector<std::string>& args, int code, const std::string& message)
    {
        const auto before = map().revision;
        auto run = ctl(args);
        EXPECT_EQ(run.code, code) << run.out << run.err;
        EXPECT_NE(run.err.find(message), std::string::npos) << run.err;
        EXPECT_EQ(map().revision, before) << "a refused request commits nothing";
    }

    TempDir m_dir;
    std::vector<std::unique_ptr<NodeProcess>> m_nodes;
    core::NodeClientPool m_pool;
};

} // namespace

TEST_F(CtlMigrationTest, MigrateQueuesARecordAndMarksTheSpace)
{
    addSpace("acme", "s0", 20);
    const auto before = map().revision;
    auto run = ctl({ "migrate", "acme", "--to", "s1", "--reason", "balance", "--throttle", "500" });
    ASSERT_EQ(run.code, 0) << run.err;
    EXPECT_NE(run.out.find("queued m-"), std::string::npos) << run.out;
    const auto after = map();
    EXPECT_EQ(after.revision, before + 1) << "one commit";
    ASSERT_EQ(after.migrations.size(), 1u);
    const auto& migration = after.migrations.begin()->second.value;
    EXPECT_EQ(migration.space, "acme");
    EXPECT_EQ(migration.source, "s0");
    EXPECT_EQ(migration.target, "s1");
    EXPECT_EQ(migration.phase, core::MigrationPhase::Queued);
    EXPECT_EQ(migration.requestedBy, "tester");
    EXPECT_EQ(migration.reason, "balance");
    EXPECT_EQ(migration.throttleDocsPerSecond, 500u);
    EXPECT_GT(migration.createdUnixMs, 0);
    const auto& space = after.spaces.at("acme").value;
    EXPECT_EQ(space.migrationId, migration.id);
    EXPECT_EQ(space.phase, core::MigrationPhase::Queued);
    EXPECT_EQ(space.shard, "s0");
    EXPECT_EQ(space.target, "") << "the executor sets the target when dual writes start";
    const auto audit = historySince(before);
    ASSERT_EQ(audit.size(), 1u);
    EXPECT_EQ(audit[0].action, "migrate");
    EXPECT_EQ(audit[0].actor, "tester");
    EXPECT_EQ(audit[0].reason, "balance");
}

TEST_F(CtlMigrationTest, RefusedMigrationsSayWhyAndCommitNothing)
{
    addSpace("acme", "s0", 5);
    addShard("s2", "n1");
    expectRefused({ "migrate", "acme", "--to", "s0" }, 5, "space acme is already on shard s0");
    expectRefused({ "migrate", "acme", "--to", "s9" }, 3, "no shard s9 in the shard map");
    expectRefused({ "migrate", "ghost", "--to", "s1" }, 3, "no space ghost in the shard map");
    ASSERT_EQ(ctl({ "shard", "set-state", "s2", "draining" }).code, 0);
    expectRefused(
        { "migrate", "acme", "--to", "s2" }, 5, "shard s2 is draining; only an active shard can receive a space");
    ASSERT_EQ(ctl({ "space", "pin", "acme", "s0" }).code, 0);
    expectRefused({ "migrate", "acme", "--to", "s1" }, 5, "space acme is pinned to shard s0");
    ASSERT_EQ(ctl({ "space", "unpin", "acme" }).code, 0);
    const auto id = migrate("acme", "s1");
    ASSERT_FALSE(id.empty());
    expectRefused({ "migrate", "acme", "--to", "s1" }, 5, "space acme is already migrating (" + id + ")");
    auto asJson = ctl({ "--json", "migrate", "acme", "--to", "s1" }).parsed();
    EXPECT_EQ(asJson["error"]["code"], "failed precondition");
}

TEST_F(CtlMigrationTest, PauseResumeThrottleAndCancelAQueuedMigration)
{
    addSpace("acme", "s0", 5);
    const auto id = migrate("acme", "s1");
    ASSERT_EQ(ctl({ "migrations", "pause", id }).code, 0);
    EXPECT_TRUE(map().migrations.at(id).value.paused);
    ASSERT_EQ(ctl({ "migrations", "resume", id }).code, 0);
    EXPECT_FALSE(map().migrations.at(id).value.paused);
    auto throttled = ctl({ "migrations", "throttle", id, "250" });
    ASSERT_EQ(throttled.code, 0) << throttled.err;
    EXPECT_NE(throttled.out.find("throttled to 250 docs/s"), std::string::npos);
    EXPECT_EQ(map().migrations.at(id).value.throttleDocsPerSecond, 250u);
    expectRefused({ "migrations", "rollback", id }, 5, "has not cut over yet (phase queued); cancel it instead");

    const auto before = map().revision;
    auto cancelled = ctl({ "--reason", "wrong target", "migrations", "cancel", id });
    ASSERT_EQ(cancelled.code, 0) << cancelled.err;
    EXPECT_NE(cancelled.out.find("cancelled; space acme stays on s0"), std::string::npos) << cancelled.out;
    const auto after = map();
    EXPECT_EQ(after.revision, before + 1);
    EXPECT_EQ(after.migrations.at(id).value.phase, core::MigrationPhase::Cancelled);
    EXPECT_EQ(after.migrations.at(id).value.status, "cancelled by tester: wrong target");
    EXPECT_FALSE(after.spaces.at("acme").value.migrating());
    expectRefused({ "migrations", "pause", id }, 5, "is cancelled");
    expectRefused({ "migrations", "pause", "m-0000000000000-0000" }, 3, "no migration m-0000000000000-0000");

    auto shown = ctl({ "migrations", "show", id });
    ASSERT_EQ(shown.code, 0) << shown.err;
    for (const char* text : { "pause-migration", "resume-migration", "throttle-migration", "cancel-migration",
             "phase \"queued\" -> \"cancelled\"", "wrong target" })
        EXPECT_NE(shown.out.find(text), std::string::npos) << text << "\n" << shown.out;
    auto shownJson = ctl({ "--json", "migrations", "show", id }).parsed();
    EXPECT_EQ(shownJson["migration"]["phase"], "cancelled");
    EXPECT_EQ(shownJson["history"].size(), 5u) << "migrate, pause, resume, throttle, cancel";
    EXPECT_EQ(shownJson["history"][0]["action"], "migrate");
}

TEST_F(CtlMigrationTest, ListFiltersMigrations)
{
    addSpace("acme", "s0", 5);
    addSpace("globex", "s1", 5);
    const auto first = migrate("acme", "s1");
    const auto second = migrate("globex", "s0");
    ASSERT_EQ(ctl({ "migrations", "cancel", first }).code, 0);
    auto all = ctl({ "--json", "migrations", "list" }).parsed();
    ASSERT_EQ(all["migrations"].size(), 2u);
    auto queued = ctl({ "--json", "migrations", "list", "--state", "queued" }).parsed();
    ASSERT_EQ(queued["migrations"].size(), 1u);
    EXPECT_EQ(queued["migrations"][0]["id"], second);
    auto finished = ctl({ "migrations", "list", "--state", "finished", "--json" }).parsed();
    ASSERT_EQ(finished["migrations"].size(), 1u);
    EXPECT_EQ(finished["migrations"][0]["id"], first);
    EXPECT_EQ(ctl({ "--json", "migrations", "list", "--space", "globex" }).parsed()["migrations"].size(), 1u);
    EXPECT_EQ(ctl({ "--json", "migrations", "list", "--shard", "s1" }).parsed()["migrations"].size(), 2u);
    auto table = ctl({ "migrations", "list" });
    EXPECT_NE(table.out.find("MIGRATION"), std::string::npos);
    EXPECT_NE(table.out.find("s1 -> s0"), std::string::npos) << table.out;
    EXPECT_EQ(ctl({ "migrations", "list", "--state", "sleeping" }).code, 2);
}

// A migration in its rollback window is done and can be rolled back until a time (issue 26):
// `migrations list`, `watch` and `show` say so, as the console does, and show no ETA of 0 s.
TEST_F(CtlMigrationTest, AMigrationInItsRollbackWindowSaysUntilWhenItCanBeRolledBack)
{
    addSpace("acme", "s0", 5);
    const auto id = migrate("acme", "s1");
    // As the executor's cutover leaves it a minute ago (no controller runs here).
    const auto now = map();
    core::MigrationRecord migration = now.migrations.at(id).value;
    migration.phase = core::MigrationPhase::Cleanup;
    migration.backfilled = true;
    migration.cutoverUnixMs = core::nowUnixMs() - 60'000;
    migration.progress.etaSeconds = 0;
    core::SpaceRecord space = now.spaces.at("acme").value;
    space.shard = "s1";
    space.target = "s0";
    space.phase = core::MigrationPhase::Cleanup;
    auto store = core::openStore(storeUri(), false);
    ASSERT_TRUE(store);
    ASSERT_TRUE(
        (*store)->commit({ { { core::keys::migration(id), core::encode(migration), now.migrations.at(id).modRevision },
                               { core::keys::space("acme"), core::encode(space), now.spaces.at("acme").modRevision } },
            std::nullopt, std::nullopt, "executor", "migration-cutover", "" }));
    const std::string until = "rollback possible until " + core::utcClock(migration.cutoverUnixMs + 600'000);

    auto list = ctl({ "migrations", "list" });
    ASSERT_EQ(list.code, 0) << list.err;
    EXPECT_NE(list.out.find("done, " + until), std::string::npos) << list.out;
    EXPECT_EQ(list.out.find(" 0s "), std::string::npos) << list.out;
    auto watch = ctl({ "watch", "--once", id });
    EXPECT_NE(watch.out.find("done, " + until), std::string::npos) << watch.out;
    auto show = ctl({ "migrations", "show", id });
    ASSERT_EQ(show.code, 0) << show.err;
    EXPECT_NE(show.out.find("cleanup: done, " + until + " ("), std::string::npos) << show.out;
    const auto eta = show.out.find("\neta ");
    ASSERT_NE(eta, std::string::npos) << show.out;
    const std::string etaLine = show.out.substr(eta + 1, show.out.find('\n', eta + 1) - eta - 1);
    EXPECT_TRUE(etaLine.ends_with(" -")) << etaLine;
}

TEST_F(CtlMigrationTest, DrainSpreadsTheSpacesOverTheOtherShardsInOneCommit)
{
    addShard("s2", "n0");
    addSpace("a", "s0", 40);
    addSpace("b", "s0", 30);
    addSpace("c", "s0", 20);
    addSpace("d", "s0", 10);
    const auto before = map().revision;
    auto run = ctl({ "--reason", "maintenance", "drain", "s0" });
    ASSERT_EQ(run.code, 0) << run.err;
    EXPECT_NE(run.out.find("shard s0 is draining; 4 migration(s) queued"), std::string::npos) << run.out;
    const auto after = map();
    EXPECT_EQ(after.revision, before + 1);
    EXPECT_EQ(after.shards.at("s0").value.state, core::ShardState::Draining);
    ASSERT_EQ(after.operations.size(), 1u);
    const auto& op = after.operations.begin()->second.value;
    EXPECT_EQ(op.kind, core::OperationKind::Drain);
    EXPECT_EQ(op.subject, "s0");
    EXPECT_EQ(op.state, core::OperationState::Running);
    EXPECT_EQ(op.reason, "maintenance");
    EXPECT_EQ(op.migrations.size(), 4u);
    std::map<std::string, int> perTarget;
    for (const auto& id : op.migrations) {
        const auto& migration = after.migrations.at(id).value;
        EXPECT_EQ(migration.operation, op.id);
        EXPECT_EQ(migration.source, "s0");
        EXPECT_EQ(migration.phase, core::MigrationPhase::Queued);
        EXPECT_EQ(after.spaces.at(migration.space).value.migrationId, id);
        ++perTarget[migration.target];
    }
    EXPECT_EQ(perTarget.size(), 2u) << "spread over s1 and s2";
    EXPECT_EQ(perTarget.count("s0"), 0u);
    EXPECT_EQ(historySince(before).at(0).action, "drain");

    auto list = ctl({ "--json", "operations", "list" }).parsed();
    ASSERT_EQ(list["operations"].size(), 1u);
    EXPECT_EQ(list["operations"][0]["kind"], "drain");
    auto shown = ctl({ "--json", "operations", "show", op.id }).parsed();
    EXPECT_EQ(shown["operation"]["migration_records"].size(), 4u);
    auto human = ctl({ "operations", "show", op.id });
    EXPECT_NE(human.out.find("shard s0 is draining"), std::string::npos) << human.out;
    EXPECT_EQ(ctl({ "operations", "show", "op-0000000000000-0000" }).code, 3);
}

TEST_F(CtlMigrationTest, DrainingAnEmptyShardIsDoneAtOnce)
{
    auto run = ctl({ "--json", "drain", "s1" });
    ASSERT_EQ(run.code, 0) << run.err;
    EXPECT_EQ(run.parsed()["operation"]["state"], "done");
    EXPECT_EQ(map().shards.at("s1").value.state, core::ShardState::Draining);
}

TEST_F(CtlMigrationTest, AnOperationWithAPinnedSpaceCommitsNothing)
{
    addShard("s2", "n1");
    addSpace("a", "s0", 5);
    addSpace("b", "s0", 5);
    ASSERT_EQ(ctl({ "space", "pin", "b", "s0" }).code, 0);
    expectRefused({ "drain", "s0" }, 5, "b (pinned to s0)");
    expectRefused({ "merge", "s0", "--into", "s1" }, 5, "b (pinned to s0)");
    expectRefused({ "retire-node", "n0" }, 5, "b (pinned to s0)");
    const auto map = this->map();
    EXPECT_TRUE(map.operations.empty());
    EXPECT_TRUE(map.migrations.empty());
    EXPECT_EQ(map.shards.at("s0").value.state, core::ShardState::Active);
    ASSERT_EQ(ctl({ "space", "unpin", "b" }).code, 0);
    const auto id = migrate("a", "s1");
    expectRefused({ "drain", "s0" }, 5, "space a is already migrating (" + id + ")");
}

TEST_F(CtlMigrationTest, SplitMovesAboutHalfTheBytesToANewShardOnTheNode)
{
    addSpace("big", "s0", 40);
    addSpace("mid", "s0", 25);
    addSpace("small", "s0", 15);
    addSpace("tiny", "s0", 10);
    std::map<std::string, std::uint64_t> bytes;
    std::uint64_t total = 0;
    for (const char* space : { "big", "mid", "small", "tiny" })
        total += bytes[space] = spaceBytes(space, "s0");
    expectRefused({ "split", "s1", "--new-shard", "s9" }, 5, "shard s1 holds 0 space(s); a split needs at least 2");
    expectRefused({ "split", "s0", "--new-shard", "s1" }, 4, "shard s1 already exists");
    const auto before = map().revision;
    auto run = ctl({ "split", "s0", "--new-shard", "s0b" });
    ASSERT_EQ(run.code, 0) << run.err;
    const auto after = map();
    EXPECT_EQ(after.revision, before + 1);
    ASSERT_TRUE(after.shards.contains("s0b"));
    EXPECT_EQ(after.shards.at("s0b").value.node, "n0");
    EXPECT_EQ(after.shards.at("s0b").value.state, core::ShardState::Active);
    EXPECT_EQ(after.shards.at("s0").value.state, core::ShardState::Active);
    std::uint64_t moved = 0;
    std::size_t moves = 0;
    for (const auto& [id, migration] : after.migrations) {
        EXPECT_EQ(migration.value.target, "s0b");
        moved += bytes[migration.value.space];
        ++moves;
    }
    EXPECT_GE(moves, 1u);
    EXPECT_LT(moves, 4u);
    EXPECT_GT(moved * 10, total * 3) << moved << " of " << total;
    EXPECT_LT(moved * 10, total * 7) << moved << " of " << total;
    auto shards = (*m_pool.get(m_nodes[0]->address()))->listShards();
    ASSERT_TRUE(shards);
    EXPECT_TRUE(std::any_of(shards->begin(), shards->end(), [](const auto& s) { return s.id == "s0b"; }));
}

TEST_F(CtlMigrationTest, MergeMovesEverySpaceIntoTheOtherShard)
{
    addSpace("a", "s1", 5);
    addSpace("b", "s1", 5);
    expectRefused({ "merge", "s1", "--into", "s1" }, 2, "cannot be merged into itself");
    auto run = ctl({ "--json", "merge", "s1", "--into", "s0" });
    ASSERT_EQ(run.code, 0) << run.err;
    EXPECT_EQ(run.parsed()["operation"]["migrations"].size(), 2u);
    const auto after = map();
    EXPECT_EQ(after.shards.at("s1").value.state, core::ShardState::Draining);
    for (const auto& [id, migration] : after.migrations)
        EXPECT_EQ(migration.value.target, "s0");
    EXPECT_EQ(after.operations.begin()->second.value.into, "s0");
}

TEST_F(CtlMigrationTest, IsolateCreatesAShardAndPinsTheSpaceToIt)
{
    addSpace("whale", "s0", 30);
    addSpace("minnow", "s0", 3);
    auto run = ctl({ "isolate", "whale", "--new-shard", "whale-only", "--node", "n1" });
    ASSERT_EQ(run.code, 0) << run.err;
    const auto after = map();
    ASSERT_TRUE(after.shards.contains("whale-only"));
    EXPECT_EQ(after.shards.at("whale-only").value.node, "n1");
    const auto& space = after.spaces.at("whale").value;
    EXPECT_EQ(space.pin, "whale-only");
    EXPECT_EQ(after.migrations.at(space.migrationId).value.target, "whale-only");
    EXPECT_EQ(after.spaces.at("minnow").value.migrationId, "");
    auto shards = (*m_pool.get(m_nodes[1]->address()))->listShards();
    ASSERT_TRUE(shards);
    EXPECT_TRUE(std::any_of(shards->begin(), shards->end(), [](const auto& s) { return s.id == "whale-only"; }));
    expectRefused({ "isolate", "whale", "--new-shard", "again" }, 5, "already migrating");
}

TEST_F(CtlMigrationTest, SettingsRoundTripAndAreValidated)
{
    auto shown = ctl({ "migrations", "settings" });
    ASSERT_EQ(shown.code, 0) << shown.err;
    EXPECT_NE(shown.out.find("max-concurrent"), std::string::npos);
    const auto before = map().revision;
    auto set = ctl({ "migrations", "settings", "--max-concurrent", "8", "--max-target-fill", "0.8", "--batch", "200",
        "--rollback-window", "60" });
    ASSERT_EQ(set.code, 0) << set.err;
    EXPECT_EQ(map().revision, before + 1);
    auto parsed = ctl({ "--json", "migrations", "settings" }).parsed();
    EXPECT_EQ(parsed["settings"]["max_concurrent"], 8);
    EXPECT_EQ(parsed["settings"]["backfill_batch"], 200);
    EXPECT_EQ(parsed["settings"]["rollback_window_seconds"], 60);
    EXPECT_DOUBLE_EQ(parsed["settings"]["max_target_fill"].get<double>(), 0.8);
    EXPECT_EQ(parsed["settings"]["max_per_node"], 2) << "flags not given keep their value";
    expectRefused(
        { "migrations", "settings", "--batch", "0" }, 2, "backfill_batch must be a whole number from 1 to 5000");
    expectRefused({ "migrations", "settings", "--max-target-fill", "1.5" }, 2, "max_target_fill");
    expectRefused({ "migrations", "settings", "--cutover-timeout-ms", "10" }, 2, "from 50 to 600000");
    EXPECT_EQ(historySince(before).at(0).action, "set-migration-settings");
}

TEST_F(CtlMigrationTest, WatchOncePrintsTheActiveMigrations)
{
    addSpace("acme", "s0", 5);
    addSpace("globex", "s1", 5);
    const auto first = migrate("acme", "s1");
    const auto second = migrate("globex", "s0");
    auto frame = ctl({ "watch", "--once" });
    ASSERT_EQ(frame.code, 0) << frame.err;
    EXPECT_NE(frame.out.find(first), std::string::npos) << frame.out;
    EXPECT_NE(frame.out.find(second), std::string::npos);
    EXPECT_NE(frame.out.find("queued"), std::string::npos);
    EXPECT_NE(frame.out.find("[--------------------]"), std::string::npos) << frame.out;
    EXPECT_EQ(frame.out.find('\033'), std::string::npos) << "no escapes when stdout is not a terminal";
    auto parsed = ctl({ "--json", "watch", "--once", first }).parsed();
    ASSERT_EQ(parsed["migrations"].size(), 1u);
    EXPECT_EQ(parsed["migrations"][0]["id"], first);
    EXPECT_EQ(ctl({ "watch", "--once", "m-0000000000000-0000" }).code, 3);

    // Following a migration to its end: a cancelled one ends the watch with exit code 1.
    ASSERT_EQ(ctl({ "migrations", "cancel", first }).code, 0);
    auto followed = ctl({ "watch", first });
    EXPECT_EQ(followed.code, 1) << followed.out << followed.err;
    EXPECT_NE(followed.out.find("cancelled"), std::string::npos) << followed.out;
    ASSERT_EQ(ctl({ "migrations", "cancel", second }).code, 0);
    auto idle = ctl({ "watch", "--once" });
    EXPECT_NE(idle.out.find("no active migrations"), std::string::npos) << idle.out;
}

// A node holding a replica is not retired at once: the operation runs until the executor has made
// the copy again elsewhere, says so, and the node takes no new copy meanwhile (issue 30).
TEST_F(CtlMigrationTest, RetireNodeSaysItWaitsForTheReplicasItsNodeHolds)
{
    ASSERT_EQ(ctl({ "shard", "replicas", "add", "s0", "n1" }).code, 0);
    auto run = ctl({ "retire-node", "n1" });
    ASSERT_EQ(run.code, 0) << run.err;
    EXPECT_NE(run.out.find("1 replica(s) on n1 are made again on other nodes before it retires: s0"),
        std::string::npos)
        << run.out;
    auto after = map();
    EXPECT_FALSE(after.nodes.at("n1").value.retired) << "its copy of s0 is not made elsewhere yet";
    EXPECT_EQ(after.shards.at("s1").value.state, core::ShardState::Draining) << "retired with the node";
    auto shown = ctl({ "--json", "operations", "list" });
    ASSERT_EQ(shown.code, 0) << shown.err;
    EXPECT_EQ(shown.parsed()["operations"][0]["state"], "running") << shown.out;
    addShard("s2", "n0");
    expectRefused({ "shard", "replicas", "add", "s2", "n1" }, 5, "node n1 is being retired");
}

TEST_F(CtlMigrationTest, RetireNodeDrainsItsShardsOrRetiresAnEmptyNodeAtOnce)
{
    addShard("s2", "n0");
    addSpace("a", "s1", 5);
    addSpace("b", "s1", 5);
    auto run = ctl({ "--json", "retire-node", "n1" });
    ASSERT_EQ(run.code, 0) << run.err;
    EXPECT_EQ(run.parsed()["operation"]["kind"], "retire-node");
    auto after = map();
    EXPECT_EQ(after.shards.at("s1").value.state, core::ShardState::Draining);
    EXPECT_FALSE(after.nodes.at("n1").value.retired) << "the executor retires it when the spaces moved";
    for (const auto& [id, migration] : after.migrations)
        EXPECT_NE(migration.value.target, "s1");
    expectRefused({ "migrate", "a", "--to", "s1" }, 5, "already migrating");

    // A node without spaces has nothing to wait for.
    ASSERT_EQ(ctl({ "node", "add", "n9", "127.0.0.1:1" }).code, 0);
    auto empty = ctl({ "--json", "retire-node", "n9" });
    ASSERT_EQ(empty.code, 0) << empty.err;
    EXPECT_EQ(empty.parsed()["operation"]["state"], "done");
    EXPECT_TRUE(map().nodes.at("n9").value.retired);
    expectRefused({ "retire-node", "n9" }, 5, "node n9 is already retired");
    expectRefused({ "retire-node", "ghost" }, 3, "no node ghost");
}
