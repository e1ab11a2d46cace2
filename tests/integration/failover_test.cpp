// Automatic failover, lost-node marking and re-replication by shardmapd's executor (issue 30), with
// real nodes, a real shardmapd and the SQLite and etcd shard maps, under writes through the router;
// and a primary cut off from the leader alone (network namespaces), still reached by a router.
// The node holding a shard's primary is killed (kill -9) and no command is typed: the in-sync
// replica is promoted, writes resume, the node is marked lost, a new copy is made on the third node
// and caught up; or the old primary comes back, refuses writes at the old epoch and ends an
// in-sync replica with the same content. Every acknowledged write is read back from every copy.
#include "core/admin/fleet_admin.h"
#include "core/migration/migration_requests.h"
#include "metrics_scrape.h"
#include "tests/support/controller_process.h"
#include "tests/support/etcd_process.h"
#include "tests/support/fleet_test.h"
#include "tests/support/network_namespaces.h"
#include "tests/support/workload.h"

#include <filesystem>
#include <httplib.h>
#include <regex>

using namespace shardmap;
using namespace shardmap::testing;

namespace {

class FailoverTest : public FleetTest<::testing::TestWithParam<std::string>> {
protected:
    void SetUp() override
    {
        if (GetParam() == "etcd") {
            std::string error;
            ASSERT_TRUE(useSharedEtcd(error)) << "etcd is needed for this test and did not start: " << error;
        }
        startFleet(3);
    }

    // Short times, so that the test runs in seconds: promote after 1.5 s unreachable, lose after
    // loseAfterMs (0: never).
    void setFailoverSettings(std::uint64_t loseAfterMs)
    {
        core::MigrationSettings settings;
        settings.rollbackWindowSeconds = 0;
        settings.backfillBatch = 100;
        settings.failoverAfterMs = 1500;
        settings.loseNodeAfterMs = loseAfterMs;
        core::FleetAdmin admin(*m_store, m_pool);
        auto set = admin.setSettings(settings, m_actor);
        ASSERT_TRUE(set) << set.error().describe();
    }

    std::size_t indexOf(const std::string& node) const { return std::stoul(node.substr(1)); }

    std::shared_ptr<core::NodeClient> clientOfNode(const std::string& node)
    {
        return *m_pool.get(m_nodes.at(indexOf(node))->address());
    }

    bool copyInSync(const std::string& shard, const std::string& node)
    {
        const auto snapshot = map();
        const auto* record = snapshot.shard(shard);
        const auto* copy = record ? record->replicaOn(node) : nullptr;
        return copy && copy->state == core::CopyState::InSync;
    }

    // A controller with its metrics endpoint, a workload on "acme" through its router, and the
    // shard of acme with an in-sync replica (factor 2); fills m_shard, m_primary, m_replica and
    // m_third (the node holding neither).
    void startWithInSyncReplica()
    {
        m_controller = ControllerProcess::start(m_dir.file("c1.stderr.log"),
            { "--store", storeUri(), "--id", "c1", "--lease-ttl-ms", "1000", "--metrics-listen", "127.0.0.1:0" });
        ASSERT_TRUE(m_controller);
        m_workload = std::make_unique<Workload>(
            WorkloadOptions { { "acme" }, 300, 2, 4, 0.2, std::chrono::milliseconds(2), 30 },
            std::vector<WritePath> { routerServicePath(m_controller->address()) });
        ASSERT_TRUE(m_workload->prefill()) << m_workload->lastError();
        m_shard = map().space("acme")->shard;
        m_primary = map().shard(m_shard)->node;
        for (const std::string node : { "n0", "n1", "n2" }) {
            if (node == m_primary)
                continue;
            (m_replica.empty() ? m_replica : m_third) = node;
        }
        core::FleetAdmin admin(*m_store, m_pool);
        m_workload->start();
        // The copy first: with the factor raised first, the leader would pick a node itself.
        auto added = admin.addReplica(m_shard, m_replica, m_actor);
        ASSERT_TRUE(added) << added.error().describe();
        auto factor = admin.map().setReplication(m_shard, 2, std::nullopt, m_actor);
        ASSERT_TRUE(factor) << factor.error().describe();
        ASSERT_TRUE(pollUntil(std::chrono::seconds(90), [&] { return copyInSync(m_shard, m_replica); }))
            << m_controller->stderrText();
        std::this_thread::sleep_for(std::chrono::milliseconds(300)); // writes to both in-sync copies
        m_epochBefore = map().space("acme")->epoch;
    }

    // Waits for the replica's promotion, with no command typed, and for writes to be acknowledged
    // through the new primary.
    void expectFailoverAndWritesResume()
    {
        ASSERT_TRUE(pollUntil(std::chrono::seconds(30), [&] { return map().shard(m_shard)->node == m_replica; }))
            << m_controller->stderrText();
        const auto after = map();
        EXPECT_EQ(after.space("acme")->epoch, m_epochBefore + 1) << "the promotion raised the space's epoch";
        const auto* demoted = after.shard(m_shard)->replicaOn(m_primary);
        ASSERT_NE(demoted, nullptr);
        EXPECT_EQ(demoted->state, core::CopyState::CatchingUp) << "the old primary is demoted to catching up";
        const auto acknowledged = m_workload->acknowledged();
        ASSERT_TRUE(pollUntil(std::chrono::seconds(20), [&] { return m_workload->acknowledged() > acknowledged + 50; }))
            << "writes resume on the new primary\n"
            << m_workload->lastError() << "\n"
            << m_controller->stderrText();
    }

    // Stops the writers, settles every uncertain write, and reads every acknowledged one back
    // from each node given.
    void expectEveryAcknowledgedWriteOn(const std::vector<std::string>& nodes)
    {
        m_workload->stop();
        ASSERT_TRUE(m_workload->settle(std::chrono::seconds(30))) << m_workload->lastError() << "\n"
                                                                  << m_controller->stderrText();
        EXPECT_TRUE(m_workload->anomalies().empty()) << m_workload->anomalies().front();
        EXPECT_GT(m_workload->acknowledged(), 100u);
        const auto model = m_workload->model("acme");
        for (const std::string& node : nodes)
            EXPECT_EQ(compareWithModel(*clientOfNode(node), m_shard, "acme", model), std::vector<std::string> {})
                << "node " << node << " holds every acknowledged write";
    }

    // Queues space's migration to target at 40 docs/s, so that it stays in backfill, and waits
    // until it copies; its id.
    std::string queueSlowMigration(const std::string& space, const std::string& target)
    {
        core::MigrationRequests requests(*m_store, m_pool);
        auto queued = requests.queue(space, target, m_actor, 40);
        EXPECT_TRUE(queued) << queued.error().describe();
        if (!queued)
            return {};
        const std::string id = queued->id;
        EXPECT_TRUE(pollUntil(std::chrono::seconds(20), [&] {
            return map().migrations.at(id).value.phase == core::MigrationPhase::Backfill;
        })) << m_controller->stderrText();
        return id;
    }

    // kill -9 of the primary's node; true once the map names the replica the primary.
    bool killPrimaryAndAwaitFailover()
    {
        m_nodes.at(indexOf(m_primary))->kill9();
        return pollUntil(std::chrono::seconds(40), [&] { return map().shard(m_shard)->node == m_replica; });
    }

    std::unique_ptr<ControllerProcess> m_controller;
    std::unique_ptr<Workload> m_workload;
    std::string m_shard;
    std::string m_primary;
    std::string m_replica;
    std::string m_third;
    std::uint64_t m_epochBefore = 0;
};

} // namespace

TEST_P(FailoverTest, APrimarysNodeKilledWithItsDiskFailsOverIsLostAndItsCopyIsRestoredWithNoCommandTyped)
{
    setFailoverSettings(5000);
    startWithInSyncReplica();
    ASSERT_FALSE(HasFatalFailure());

    m_nodes.at(indexOf(m_primary))->kill9();
    std::filesystem::remove_all(m_dataDirs.at(indexOf(m_primary)));
    expectFailoverAndWritesResume();
    ASSERT_FALSE(HasFatalFailure());

    // After lose-node-after the node is marked lost, a new copy is made on the third node and
    // caught up, and the lost copy leaves the map once it is replaced.
    ASSERT_TRUE(pollUntil(std::chrono::seconds(30), [&] { return map().node(m_primary)->lost; }))
        << m_controller->stderrText();
    ASSERT_TRUE(pollUntil(std::chrono::seconds(90), [&] {
        const auto now = map();
        return copyInSync(m_shard, m_third) && !now.shard(m_shard)->replicaOn(m_primary);
    })) << m_controller->stderrText();
    const auto restored = map();
    EXPECT_EQ(restored.shard(m_shard)->node, m_replica);
    EXPECT_EQ(restored.shard(m_shard)->replicas.size(), 1u) << "back at the factor: primary and one replica";
    std::this_thread::sleep_for(std::chrono::milliseconds(300)); // writes to both in-sync copies
    expectEveryAcknowledgedWriteOn({ m_replica, m_third });

    // The changes were the executor's, each with its audit record, and counted.
    auto history = m_store->history(0, 0, 0);
    ASSERT_TRUE(history) << history.error().describe();
    std::set<std::string> actions;
    for (const auto& record : *history) {
        if (record.actor == "shardmapd/c1")
            actions.insert(record.action);
    }
    EXPECT_TRUE(actions.contains("promote " + m_replica));
    EXPECT_TRUE(actions.contains("lose-node"));
    EXPECT_TRUE(actions.contains("add-replica " + m_third));
    EXPECT_TRUE(actions.contains("remove-replica " + m_primary));
    const std::string metrics = scrapeControllerMetrics(*m_controller);
    EXPECT_NE(metrics.find("\nshardmapd_failovers_total 1\n"), std::string::npos) << metrics;
    EXPECT_NE(metrics.find("\nshardmapd_nodes_lost_total 1\n"), std::string::npos) << metrics;
    EXPECT_NE(metrics.find("\nshardmapd_re_replications_total 1\n"), std::string::npos) << metrics;
    // The copies by state as the leader's scheduling lists them, and what the restoring catch-up
    // copied (issue 30's metrics).
    static const std::regex copied(R"(\nshardmapd_catch_up_docs_total ([0-9.e+]+)\n)");
    std::smatch match;
    ASSERT_TRUE(std::regex_search(metrics, match, copied)) << metrics;
    EXPECT_GT(std::stod(match[1]), 0.0);
    std::string later;
    EXPECT_TRUE(pollUntil(std::chrono::seconds(10), [&] {
        later = scrapeControllerMetrics(*m_controller);
        return later.find("\nshardmapd_shard_replicas{state=\"in_sync\"} 1\n") != std::string::npos
            && later.find("\nshardmapd_shard_replicas{state=\"lost\"} 0\n") != std::string::npos;
    })) << later;
}

// A space migrating off the shard when its primary's node dies (issue 30): waiting for the node
// would keep the whole shard unwritable, so the leader cancels the migration (it had not cut
// over), the space stays on the shard, the replica is promoted, and nothing acknowledged is lost.
TEST_P(FailoverTest, AMigrationOffAFailedPrimaryIsCancelledAndTheShardFailsOver)
{
    setFailoverSettings(0);
    startWithInSyncReplica();
    ASSERT_FALSE(HasFatalFailure());
    const std::string target = "s" + m_third.substr(1);
    const std::string id = queueSlowMigration("acme", target);
    ASSERT_FALSE(id.empty() || HasFailure());
    ASSERT_TRUE(killPrimaryAndAwaitFailover()) << m_controller->stderrText();
    const auto after = map();
    const auto& cancelled = after.migrations.at(id).value;
    EXPECT_EQ(cancelled.phase, core::MigrationPhase::Cancelled) << cancelled.status << " " << cancelled.error;
    EXPECT_EQ(after.space("acme")->shard, m_shard) << "the space stays on its shard";
    EXPECT_FALSE(after.space("acme")->migrating());
    EXPECT_NE(m_controller->stderrText().find(
                  "migration " + id + " of space acme cancelled (failover: node " + m_primary + " unreachable"),
        std::string::npos)
        << m_controller->stderrText();
    const auto acknowledged = m_workload->acknowledged();
    ASSERT_TRUE(pollUntil(std::chrono::seconds(20), [&] { return m_workload->acknowledged() > acknowledged + 50; }))
        << "writes resume on the new primary\n"
        << m_workload->lastError();
    expectEveryAcknowledgedWriteOn({ m_replica });
    EXPECT_EQ(rowsOf(*clientOfNode(m_third), target, "acme"), 0u) << "the target's partial copy is dropped";
}

// The shard whose primary dies is the target of another space's migration: it fails over all the
// same, and the space moving in neither loses a write nor stays blocked (its migration finishes on
// the new primary or is cancelled with the space left on its source).
TEST_P(FailoverTest, AShardThatIsAMigrationTargetFailsOverAndTheSpaceMovingInLosesNothing)
{
    setFailoverSettings(0);
    startWithInSyncReplica();
    ASSERT_FALSE(HasFatalFailure());
    const std::string source = "s" + m_third.substr(1);
    addSpaceRecord("beta", source);
    Workload beta({ { "beta" }, 200, 2, 4, 0.2, std::chrono::milliseconds(3), 31 },
        { routerServicePath(m_controller->address()) });
    ASSERT_TRUE(beta.prefill()) << beta.lastError();
    ASSERT_EQ(map().space("beta")->shard, source);
    beta.start();
    const std::string id = queueSlowMigration("beta", m_shard);
    ASSERT_FALSE(id.empty() || HasFailure());
    ASSERT_TRUE(killPrimaryAndAwaitFailover()) << "the target shard fails over\n" << m_controller->stderrText();
    ASSERT_TRUE(pollUntil(std::chrono::seconds(90), [&] { return !map().migrations.at(id).value.active(); }))
        << "the migration into it ends: " << core::migrationPhaseName(map().migrations.at(id).value.phase) << "\n"
        << m_controller->stderrText();
    const auto acknowledged = beta.acknowledged();
    ASSERT_TRUE(pollUntil(std::chrono::seconds(20), [&] { return beta.acknowledged() > acknowledged + 50; }))
        << "writes to the space moving in go on\n"
        << beta.lastError();
    beta.stop();
    ASSERT_TRUE(beta.settle(std::chrono::seconds(30))) << beta.lastError();
    EXPECT_TRUE(beta.anomalies().empty()) << beta.anomalies().front();
    const auto after = map();
    const std::string home = after.space("beta")->shard;
    const auto& ended = after.migrations.at(id).value;
    EXPECT_EQ(home, ended.phase == core::MigrationPhase::Done ? m_shard : source)
        << core::migrationPhaseName(ended.phase);
    const std::string node = home == m_shard ? m_replica : m_third;
    EXPECT_EQ(compareWithModel(*clientOfNode(node), home, "beta", beta.model("beta")), std::vector<std::string> {})
        << "every acknowledged write of beta on " << home << " at " << node;
    expectEveryAcknowledgedWriteOn({ m_replica });
}

TEST_P(FailoverTest, TheOldPrimaryComingBackRefusesTheOldEpochAndEndsAnInSyncReplica)
{
    setFailoverSettings(0);
    startWithInSyncReplica();
    ASSERT_FALSE(HasFatalFailure());

    const std::string address = m_nodes.at(indexOf(m_primary))->address();
    m_nodes.at(indexOf(m_primary))->kill9();
    expectFailoverAndWritesResume();
    ASSERT_FALSE(HasFatalFailure());

    // The node restarts on its data directory, at its address.
    m_nodes.at(indexOf(m_primary)) = NodeProcess::start(m_dataDirs.at(indexOf(m_primary)), { "--listen", address });
    ASSERT_TRUE(m_nodes.at(indexOf(m_primary)));
    auto old = clientOfNode(m_primary);
    ASSERT_TRUE(pollUntil(std::chrono::seconds(30),
        [&] {
            auto held = old->ownerships(m_shard, "acme");
            return held && held->size() == 1 && held->front().epoch > m_epochBefore;
        }))
        << "the node is told the new epoch\n"
        << m_controller->stderrText();
    core::Document late;
    late.space = "acme";
    late.id = "written-at-the-old-epoch";
    late.version = 1;
    late.fields = { { "title", "late" } };
    auto refused = old->bulkWrite(m_shard, { { late, m_epochBefore } });
    ASSERT_FALSE(refused) << "the old primary took a write at the old epoch";
    EXPECT_NE(refused.error().message.find("stale epoch " + std::to_string(m_epochBefore)), std::string::npos)
        << refused.error().message;

    ASSERT_TRUE(pollUntil(std::chrono::seconds(90), [&] { return copyInSync(m_shard, m_primary); }))
        << m_controller->stderrText();
    EXPECT_EQ(map().shard(m_shard)->node, m_replica);
    EXPECT_FALSE(map().node(m_primary)->lost);
    std::this_thread::sleep_for(std::chrono::milliseconds(300)); // writes to both in-sync copies
    expectEveryAcknowledgedWriteOn({ m_replica, m_primary });
}

TEST_P(FailoverTest, ANodeThatAnswersAgainIsToldTheNewEpochsBeforeAnyCatchUpReachesIt)
{
    setFailoverSettings(0);
    // No catch-up gets as far as telling a copy an epoch: only the failover watch can fence the
    // old primary when it returns.
    m_controller = ControllerProcess::start(m_dir.file("c1.stderr.log"),
        { "--store", storeUri(), "--id", "c1", "--lease-ttl-ms", "1000" },
        { "SHARDMAP_FAILPOINTS=catchup.start.before_owned=error" });
    ASSERT_TRUE(m_controller);
    // Every shard gets its replica while it holds no space (in sync at once, nothing to catch up).
    core::FleetAdmin admin(*m_store, m_pool);
    for (int i = 0; i < 3; ++i) {
        const std::string shard = "s" + std::to_string(i);
        auto added = admin.addReplica(shard, "n" + std::to_string((i + 1) % 3), m_actor);
        ASSERT_TRUE(added) << added.error().describe();
        ASSERT_TRUE(admin.map().setReplication(shard, 2, std::nullopt, m_actor));
    }
    m_workload
        = std::make_unique<Workload>(WorkloadOptions { { "acme" }, 100, 1, 4, 0.0, std::chrono::milliseconds(2), 31 },
            std::vector<WritePath> { routerServicePath(m_controller->address()) });
    ASSERT_TRUE(m_workload->prefill()) << m_workload->lastError();
    m_shard = map().space("acme")->shard;
    m_primary = map().shard(m_shard)->node;
    m_replica = map().shard(m_shard)->replicas.at(0).node;
    ASSERT_TRUE(copyInSync(m_shard, m_replica));
    m_epochBefore = map().space("acme")->epoch;
    m_workload->start();

    const std::string address = m_nodes.at(indexOf(m_primary))->address();
    m_nodes.at(indexOf(m_primary))->kill9();
    expectFailoverAndWritesResume();
    ASSERT_FALSE(HasFatalFailure());
    // No router writes to the returning node either (a write to a copy tells it the epoch too).
    m_workload->stop();
    m_nodes.at(indexOf(m_primary)) = NodeProcess::start(m_dataDirs.at(indexOf(m_primary)), { "--listen", address });
    ASSERT_TRUE(m_nodes.at(indexOf(m_primary)));
    auto old = clientOfNode(m_primary);
    ASSERT_TRUE(pollUntil(std::chrono::seconds(30), [&] {
        auto held = old->ownerships(m_shard, "acme");
        return held && held->size() == 1 && held->front().epoch > m_epochBefore;
    })) << m_controller->stderrText();
    core::Document late;
    late.space = "acme";
    late.id = "written-at-the-old-epoch";
    late.version = 1;
    late.fields = { { "title", "late" } };
    EXPECT_FALSE(old->bulkWrite(m_shard, { { late, m_epochBefore } }));
    const auto now = map();
    const auto* copy = now.shard(m_shard)->replicaOn(m_primary);
    ASSERT_NE(copy, nullptr);
    EXPECT_EQ(copy->state, core::CopyState::CatchingUp) << "no catch-up reached the copy";
}

INSTANTIATE_TEST_SUITE_P(Stores, FailoverTest, ::testing::Values("sqlite", "etcd"),
    [](const ::testing::TestParamInfo<std::string>& test) { return test.param; });

namespace {

// A primary cut off from the executor's leader but not from its clients (issue 30): the leader
// (c1) runs in a network namespace whose route to the primary's node (n0, alone on its address) is
// blackholed; a second shardmapd (c2, not leading) keeps reaching every node and serves the
// writers. After the leader promotes the replica, no write is acknowledged by the old primary
// alone: every write c2 acknowledged is on the new primary. Healed, the old primary is told the
// new epochs and caught up.
class PartitionedPrimaryTest : public FleetTest<::testing::Test> {
protected:
    void SetUp() override
    {
        m_network = NetworkNamespaces::create(1, m_unavailable);
        if (!m_network)
            GTEST_SKIP() << "network namespaces unavailable: " << m_unavailable;
        m_nodeHosts = { m_network->serviceHost(), m_network->storeHost(), m_network->storeHost() };
        startFleet(3);
        core::MigrationSettings settings;
        settings.rollbackWindowSeconds = 0;
        settings.backfillBatch = 100;
        settings.failoverAfterMs = 1500;
        core::FleetAdmin admin(*m_store, m_pool);
        ASSERT_TRUE(admin.setSettings(settings, m_actor));
    }

    std::shared_ptr<core::NodeClient> clientOfNode(std::size_t i) { return *m_pool.get(m_nodes.at(i)->address()); }

    bool s0CopyInSync(const std::string& node)
    {
        const auto snapshot = map();
        const auto* copy = snapshot.shard("s0")->replicaOn(node);
        return copy && copy->state == core::CopyState::InSync;
    }

    std::string m_unavailable;
    std::unique_ptr<NetworkNamespaces> m_network;
};

} // namespace

TEST_F(PartitionedPrimaryTest, NoWriteIsAcknowledgedByTheOldPrimaryAloneAfterThePromotion)
{
    auto leader = ControllerProcess::start(m_dir.file("c1.stderr.log"),
        { "--store", storeUri(), "--id", "c1", "--lease-ttl-ms", "1000", "--listen", m_network->hostInside(0) + ":0",
            "--insecure" },
        {}, m_network->inside(0, {}));
    ASSERT_TRUE(leader);
    ASSERT_TRUE(pollUntil(std::chrono::seconds(10), [&] { return leader->leads(); })) << leader->stderrText();
    auto router = ControllerProcess::start(
        m_dir.file("c2.stderr.log"), { "--store", storeUri(), "--id", "c2", "--lease-ttl-ms", "1000" });
    ASSERT_TRUE(router);
    addSpaceRecord("acme", "s0");
    ASSERT_TRUE(nodeOf("s0")->setOwnership("s0", { "acme", core::SpaceRole::Owner, 1 }));
    Workload workload(
        { { "acme" }, 300, 2, 4, 0.2, std::chrono::milliseconds(2), 35 }, { routerServicePath(router->address()) });
    ASSERT_TRUE(workload.prefill()) << workload.lastError();
    core::FleetAdmin admin(*m_store, m_pool);
    auto added = admin.addReplica("s0", "n1", m_actor);
    ASSERT_TRUE(added) << added.error().describe();
    ASSERT_TRUE(admin.map().setReplication("s0", 2, std::nullopt, m_actor));
    ASSERT_TRUE(pollUntil(std::chrono::seconds(60), [&] { return s0CopyInSync("n1"); })) << leader->stderrText();
    const std::uint64_t epochBefore = map().space("acme")->epoch;

    workload.start();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    std::string error;
    ASSERT_TRUE(m_network->cut(0, m_network->serviceHost(), error)) << error;
    ASSERT_TRUE(pollUntil(std::chrono::seconds(30), [&] { return map().shard("s0")->node == "n1"; }))
        << leader->stderrText();
    EXPECT_EQ(map().space("acme")->epoch, epochBefore + 1);
    EXPECT_NE(leader->stderrText().find("node n0 does not answer"), std::string::npos) << leader->stderrText();
    // The old primary still answers the router and the test: it is cut off from the leader only.
    EXPECT_TRUE(clientOfNode(0)->metrics(false)) << "n0 answers its clients";
    const auto acknowledged = workload.acknowledged();
    ASSERT_TRUE(pollUntil(std::chrono::seconds(20), [&] { return workload.acknowledged() > acknowledged + 50; }))
        << "writes resume through c2 on the new primary\n"
        << workload.lastError() << "\n"
        << router->stderrText();
    workload.stop();
    ASSERT_TRUE(workload.settle(std::chrono::seconds(30))) << workload.lastError();
    EXPECT_TRUE(workload.anomalies().empty()) << workload.anomalies().front();
    const auto model = workload.model("acme");
    EXPECT_EQ(compareWithModel(*clientOfNode(1), "s0", "acme", model), std::vector<std::string> {})
        << "every acknowledged write is on the new primary: none was acknowledged by n0 alone";

    // Healed: the leader tells n0 the new epoch (it refuses the old one) and catches it up.
    ASSERT_TRUE(m_network->heal(0, m_network->serviceHost(), error)) << error;
    ASSERT_TRUE(pollUntil(std::chrono::seconds(90), [&] { return s0CopyInSync("n0"); })) << leader->stderrText();
    EXPECT_EQ(compareWithModel(*clientOfNode(0), "s0", "acme", model), std::vector<std::string> {})
        << "the old primary ends an in-sync replica with the same content";
    core::Document late;
    late.space = "acme";
    late.id = "written-at-the-old-epoch";
    late.version = 1;
    late.fields = { { "title", "late" } };
    EXPECT_FALSE(clientOfNode(0)->bulkWrite("s0", { { late, epochBefore } })) << "n0 took a write at the old epoch";
}

// The replication lag on shardmapd's /metrics (issue 30): a replica caught up at 150 docs/s shows
// the documents it has yet to copy, falling as it copies, and no sample once it is in sync.
namespace {

class ReplicaLagTest : public FleetTest<::testing::Test> { };

} // namespace

TEST_F(ReplicaLagTest, TheLagGaugeFallsAsTheCatchUpCopiesAndGoesWhenInSync)
{
    startFleet(2);
    ASSERT_FALSE(HasFatalFailure());
    core::MigrationSettings settings;
    settings.rollbackWindowSeconds = 0;
    settings.backfillBatch = 50;
    settings.defaultThrottleDocsPerSecond = 150;
    core::FleetAdmin admin(*m_store, m_pool);
    ASSERT_TRUE(admin.setSettings(settings, m_actor));
    auto controller = ControllerProcess::start(m_dir.file("c1.stderr.log"),
        { "--store", storeUri(), "--id", "c1", "--lease-ttl-ms", "1000", "--metrics-listen", "127.0.0.1:0" });
    ASSERT_TRUE(controller);
    Workload workload({ { "acme" }, 600, 1, 50, 0.0, std::chrono::milliseconds(1), 37 },
        { routerServicePath(controller->address()) });
    ASSERT_TRUE(workload.prefill()) << workload.lastError();
    const std::string shard = map().space("acme")->shard;
    const std::string other = map().shard(shard)->node == "n0" ? "n1" : "n0";
    auto added = admin.addReplica(shard, other, m_actor);
    ASSERT_TRUE(added) << added.error().describe();

    const std::regex sample(
        R"(\nshardmapd_replica_lag_documents\{shard=")" + shard + R"(",node=")" + other + R"("\} ([0-9.e+]+)\n)");
    std::vector<double> seen;
    std::string metrics;
    const bool caughtUp = pollUntil(std::chrono::seconds(60), [&] {
        metrics = scrapeControllerMetrics(*controller);
        std::smatch match;
        if (std::regex_search(metrics, match, sample))
            seen.push_back(std::stod(match[1]));
        const auto now = map();
        const auto* copy = now.shard(shard)->replicaOn(other);
        return copy && copy->state == core::CopyState::InSync;
    });
    ASSERT_TRUE(caughtUp) << controller->stderrText();
    std::vector<double> behind;
    std::copy_if(seen.begin(), seen.end(), std::back_inserter(behind), [](double value) { return value > 0; });
    ASSERT_GE(behind.size(), 2u) << "the lag was seen while the copy caught up\n" << metrics;
    EXPECT_LE(behind.front(), 600.0);
    EXPECT_LT(behind.back(), behind.front()) << "it falls as the catch-up copies";
    EXPECT_TRUE(std::is_sorted(behind.rbegin(), behind.rend())) << "never rises";
    EXPECT_TRUE(pollUntil(std::chrono::seconds(10),
        [&] {
            metrics = scrapeControllerMetrics(*controller);
            return !std::regex_search(metrics, sample);
        }))
        << "no sample for an in-sync copy\n"
        << metrics;
}
