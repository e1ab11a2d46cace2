// The fault harness of ARCHITECTURE §6: real nodes, two real shardmapd replicas (one routes the
// writers' traffic, one runs the executor), a stale in-process router that never follows the map,
// writers inserting, updating and deleting while spaces migrate back and forth, and a fault in
// every phase: the executor killed at each failpoint and restarted, a node killed and restarted,
// the store locked past its busy timeout, a dual write held in flight across the cutover, and
// cancels. After each run the invariants are checked against the model of acknowledged writes.
//
// SHARDMAP_FAULT_SEED picks the workload and where in the backfill the kills land (default 1);
// scripts/soak.sh runs every scenario over many seeds.
#include "core/map/map_editor.h"
#include "core/migration/migration_requests.h"
#include "core/router/router.h"
#include "node_test_helpers.h"
#include "tests/support/controller_process.h"
#include "tests/support/fleet_test.h"
#include "tests/support/workload.h"

#include <csignal>
#include <cstdlib>
#include <random>
#include <set>
#include <sqlite3.h>

using namespace shardmap;
using namespace shardmap::testing;

namespace {

std::uint32_t faultSeed()
{
    const char* seed = std::getenv("SHARDMAP_FAULT_SEED");
    return seed && *seed ? static_cast<std::uint32_t>(std::strtoul(seed, nullptr, 10)) : 1U;
}

enum class NodeKill { None, Source, Target };

struct Fault {
    std::string name;
    // Failpoints of the executor replica; a "kill" kills it there, and it is restarted without.
    std::string executorFailpoints;
    // Failpoints of the routing replica the writers use.
    std::string routerFailpoints;
    NodeKill nodeKill = NodeKill::None;
    bool cancel = false;
    bool storeOutage = false;
    // What the faulted migration must end as.
    core::MigrationPhase expected = core::MigrationPhase::Done;
};

std::ostream& operator<<(std::ostream& out, const Fault& fault)
{
    return out << fault.name;
}

// The backfill kill lands on a batch the seed picks.
std::string backfillBatch(const char* action)
{
    std::mt19937 random(faultSeed());
    return "migration.backfill.batch=" + std::string(action) + "@" + std::to_string(1 + random() % 4);
}

std::vector<Fault> faults()
{
    using P = core::MigrationPhase;
    std::vector<Fault> list;
    for (const char* point : { "migration.start.target_owned", "migration.dual_write.committed",
             "migration.dual_write.owned", "migration.backfill.done", "migration.verify.done",
             "migration.cutover.before_fence", "migration.cutover.fenced", "migration.cutover.before_commit",
             "migration.cutover.committed", "migration.cleanup.before_drop" }) {
        std::string name = std::string("kill_executor_at_") + point;
        std::replace(name.begin(), name.end(), '.', '_');
        list.push_back({ name, std::string(point) + "=kill", "", NodeKill::None, false, false, P::Done });
    }
    list.push_back({ "kill_executor_in_backfill", backfillBatch("kill"), "", NodeKill::None, false, false, P::Done });
    // A slow backfill (every batch sleeps) leaves time to cancel in the middle of it.
    list.push_back({ "kill_executor_while_removing_a_cancelled_copy",
        "migration.backfill.batch=sleep(100);migration.abort.before_drop=kill", "", NodeKill::None, true, false,
        P::Cancelled });
    list.push_back(
        { "cancel_in_backfill", "migration.backfill.batch=sleep(100)", "", NodeKill::None, true, false, P::Cancelled });
    list.push_back({ "kill_target_node_in_backfill", "migration.backfill.batch=sleep(100)", "", NodeKill::Target, false,
        false, P::Done });
    list.push_back({ "kill_source_node_in_backfill", "migration.backfill.batch=sleep(100)", "", NodeKill::Source, false,
        false, P::Done });
    list.push_back({ "store_locked_past_busy_timeout", "migration.backfill.batch=sleep(100)", "", NodeKill::None, false,
        true, P::Done });
    list.push_back({ "dual_write_in_flight_across_cutover", "", "router.before_target_write=sleep(40)", NodeKill::None,
        false, false, P::Done });
    return list;
}

class MigrationFaultTest : public FleetTest<::testing::TestWithParam<Fault>> {
protected:
    void SetUp() override
    {
        startFleet(2);
        core::MigrationSettings settings;
        settings.rollbackWindowSeconds = 0;
        settings.backfillBatch = 50;
        settings.maxPerShard = 2;
        core::MigrationRequests requests(*m_store, m_pool);
        ASSERT_TRUE(requests.setSettings(settings, m_actor));
    }

    std::unique_ptr<ControllerProcess> startReplica(
        const std::string& id, const std::vector<std::string>& flags, const std::string& failpoints)
    {
        std::vector<std::string> args { "--store", storeUri(), "--id", id, "--lease-ttl-ms", "1000" };
        args.insert(args.end(), flags.begin(), flags.end());
        std::vector<std::string> env;
        if (!failpoints.empty())
            env.push_back("SHARDMAP_FAILPOINTS=" + failpoints);
        return ControllerProcess::start(m_dir.file(id + ".stderr.log"), args, env);
    }

    std::optional<core::MigrationRecord> migration(const std::string& id)
    {
        auto snapshot = m_store->snapshot();
        if (!snapshot)
            return std::nullopt; // the store may be locked by the outage scenario
        auto map = core::MapSnapshot::decode(*snapshot);
        const auto found = map->migrations.find(id);
        return found == map->migrations.end() ? std::nullopt : std::optional(found->second.value);
    }

    core::SpaceRecord space(const std::string& id)
    {
        auto map = core::MapSnapshot::decode(*m_store->snapshot());
        return *map->space(id);
    }

    void restartNode(std::size_t index)
    {
        const std::string address = m_nodes[index]->address();
        m_nodes[index]->kill9();
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        m_nodes[index] = NodeProcess::start(m_dataDirs[index], { "--listen", address });
        ASSERT_TRUE(m_nodes[index]) << "node " << index << " did not come back on " << address;
    }

    // Holds the store's write lock longer than its busy timeout (5 s): commits and lease
    // renewals fail meanwhile, reads go on (WAL).
    void lockStore(std::chrono::milliseconds duration)
    {
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(m_dir.file("map.db").c_str(), &db), SQLITE_OK);
        // The executor may be committing right now: wait for the lock like any writer would.
        sqlite3_busy_timeout(db, 5000);
        ASSERT_EQ(sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
        std::this_thread::sleep_for(duration);
        sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
        sqlite3_close(db);
    }
};

} // namespace

TEST_P(MigrationFaultTest, InvariantsHoldAcrossTheFault)
{
    const Fault& fault = GetParam();
    const std::uint32_t seed = faultSeed();
    SCOPED_TRACE("fault " + fault.name + ", seed " + std::to_string(seed));

    auto routerReplica = startReplica("router", { "--no-executor" }, fault.routerFailpoints);
    ASSERT_TRUE(routerReplica);
    auto executor = startReplica("executor", {}, fault.executorFailpoints);
    ASSERT_TRUE(executor);

    // A router that never follows the map: it learns of migrations only from the nodes' refusals.
    core::RouterOptions staleOptions;
    staleOptions.followChanges = false;
    staleOptions.actor = "stale-router";
    auto stale = core::Router::start(*m_store, m_pool, staleOptions);
    ASSERT_TRUE(stale) << stale.error().describe();
    std::shared_ptr<core::Router> staleRouter = std::move(*stale);
    WritePath stalePath = inProcessRouterPath(staleRouter);

    std::mt19937 random(seed);
    const int ids = 300 + static_cast<int>(random() % 300);
    Workload workload({ { "alpha", "beta" }, ids, 3, 4, 0.25, std::chrono::milliseconds(3), seed },
        { routerServicePath(routerReplica->address()), routerServicePath(routerReplica->address()), stalePath });
    ASSERT_TRUE(workload.prefill()) << workload.lastError();
    // The stale router reads the map once, now, with both spaces on their first shard.
    ASSERT_TRUE(staleRouter->refresh("alpha"));
    ASSERT_TRUE(staleRouter->refresh("beta"));
    workload.start();

    const std::string alphaSource = space("alpha").shard;
    const std::string betaSource = space("beta").shard;
    auto other = [](const std::string& shard) { return shard == "s0" ? std::string("s1") : std::string("s0"); };
    core::MigrationRequests requests(*m_store, m_pool);
    auto faulted = requests.queue("alpha", other(alphaSource), m_actor);
    ASSERT_TRUE(faulted) << faulted.error().describe();
    auto bystander = requests.queue("beta", other(betaSource), m_actor);
    ASSERT_TRUE(bystander) << bystander.error().describe();

    bool killedNode = false;
    bool cancelled = false;
    bool outage = false;
    int executorRestarts = 0;
    std::thread outageThread;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    auto finished = [&](const std::string& id) {
        auto m = migration(id);
        return m && !m->active();
    };
    while (!(finished(faulted->id) && finished(bystander->id)) && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        if (executor->process().wait(std::chrono::milliseconds(0))) {
            // Killed at its failpoint: restart it as an operator's supervisor would, without.
            ++executorRestarts;
            executor = startReplica("executor", {}, "");
            ASSERT_TRUE(executor);
        }
        const auto m = migration(faulted->id);
        if (!m)
            continue;
        const bool copying = m->phase == core::MigrationPhase::Backfill && m->progress.docsDone > 0;
        if (fault.nodeKill != NodeKill::None && copying && !killedNode) {
            killedNode = true;
            const std::string shard = fault.nodeKill == NodeKill::Source ? m->source : m->target;
            restartNode(shard == "s0" ? 0 : 1);
        }
        if (fault.cancel && !cancelled
            && (copying || (m->phase == core::MigrationPhase::Backfill && executorRestarts > 0))) {
            cancelled = true;
            auto cancel = requests.cancel(faulted->id, m_actor);
            ASSERT_TRUE(cancel) << cancel.error().describe();
        }
        if (fault.storeOutage && copying && !outage) {
            outage = true;
            outageThread = std::thread([this] { lockStore(std::chrono::milliseconds(6500)); });
        }
    }
    if (outageThread.joinable())
        outageThread.join();
    ASSERT_TRUE(finished(faulted->id) && finished(bystander->id))
        << "migrations did not finish: " << migration(faulted->id)->status << " / " << migration(bystander->id)->status
        << "\nexecutor:\n"
        << executor->stderrText();
    if (fault.executorFailpoints.find("=kill") != std::string::npos) {
        EXPECT_GE(executorRestarts, 1) << "the failpoint never fired";
    }
    EXPECT_EQ(migration(faulted->id)->phase, fault.expected) << migration(faulted->id)->error;
    EXPECT_EQ(migration(bystander->id)->phase, core::MigrationPhase::Done) << migration(bystander->id)->error;

    // And back again, without a fault, while the writers go on.
    const std::string alphaNow = space("alpha").shard;
    auto back = requests.queue("alpha", other(alphaNow), m_actor);
    ASSERT_TRUE(back) << back.error().describe();
    ASSERT_TRUE(pollUntil(std::chrono::seconds(60), [&] { return finished(back->id); })) << executor->stderrText();
    EXPECT_EQ(migration(back->id)->phase, core::MigrationPhase::Done) << migration(back->id)->error;

    workload.stop();
    ASSERT_TRUE(workload.settle(std::chrono::seconds(30))) << workload.lastError();
    EXPECT_TRUE(workload.anomalies().empty()) << workload.anomalies().front();
    EXPECT_GT(workload.acknowledged(), 0u);

    for (const std::string id : { "alpha", "beta" }) {
        SCOPED_TRACE("space " + id);
        const auto record = space(id);
        EXPECT_TRUE(record.migrationId.empty());
        EXPECT_TRUE(record.target.empty());
        // No acknowledged write lost, no deleted document back, nothing never written.
        EXPECT_EQ(
            compareWithModel(*nodeOf(record.shard), record.shard, id, workload.model(id)), std::vector<std::string> {});
        // Nothing of the space on the other shard (cleaned up after a move, removed after a cancel).
        EXPECT_EQ(rowsOf(*nodeOf(other(record.shard)), other(record.shard), id), 0u);
        // Exactly one owner, at the map's epoch.
        auto owner = nodeOf(record.shard)->ownerships(record.shard, id);
        ASSERT_TRUE(owner && owner->size() == 1);
        EXPECT_EQ(owner->front().role, core::SpaceRole::Owner);
        EXPECT_EQ(owner->front().epoch, record.epoch);
        auto old = nodeOf(other(record.shard))->ownerships(other(record.shard), id);
        ASSERT_TRUE(old);
        for (const auto& held : *old)
            EXPECT_NE(held.role, core::SpaceRole::Owner) << "two owners";
    }
    // Readers see no duplicates: a search over both spaces through the router.
    core::ShardSearchRequest search { { "alpha", "beta" }, "common", 1000, 0, false };
    auto found = staleRouter->search(search);
    if (found) {
        std::set<std::string> seen;
        for (const auto& hit : found->hits)
            EXPECT_TRUE(seen.insert(hit.space + "/" + hit.id).second) << "duplicate " << hit.space << "/" << hit.id;
    }
}

INSTANTIATE_TEST_SUITE_P(Faults, MigrationFaultTest, ::testing::ValuesIn(faults()),
    [](const ::testing::TestParamInfo<Fault>& test) { return test.param.name; });
