// A migration moves every copy (issue 30): real nodes, a real shardmapd running the executor and
// its router, writers going through it. A space moved onto a shard with an in-sync replica ends on
// that replica too (searched there with the primary killed), a space moved off a shard with a
// replica leaves no row on it, and a target replica whose node is down leaves the migration marked
// catching up and is caught up when it returns.
#include "core/admin/fleet_admin.h"
#include "core/migration/migration_requests.h"
#include "node_test_helpers.h"
#include "shardmap/v1/router.grpc.pb.h"
#include "tests/support/controller_process.h"
#include "tests/support/fleet_test.h"
#include "tests/support/workload.h"

#include <grpcpp/grpcpp.h>

using namespace shardmap;
using namespace shardmap::testing;

namespace {

class MigrationCopiesTest : public FleetTest<::testing::Test> {
protected:
    void SetUp() override
    {
        startFleet(3);
        core::MigrationSettings settings;
        settings.rollbackWindowSeconds = 0;
        settings.backfillBatch = 100;
        core::MigrationRequests requests(*m_store, m_pool);
        auto set = requests.setSettings(settings, m_actor);
        ASSERT_TRUE(set) << set.error().describe();
        m_controller = ControllerProcess::start(
            m_dir.file("c1.stderr.log"), { "--store", storeUri(), "--id", "c1", "--lease-ttl-ms", "1000" });
        ASSERT_TRUE(m_controller);
    }

    static std::size_t indexOf(const std::string& id) { return std::stoul(id.substr(1)); }
    std::shared_ptr<core::NodeClient> clientOfNode(const std::string& node)
    {
        return *m_pool.get(m_nodes.at(indexOf(node))->address());
    }

    // The space's shard (source), another shard (target) and the third node (for the copies).
    void pickShards(const std::string& space)
    {
        m_source = map().space(space)->shard;
        m_target = m_source == "s0" ? "s1" : "s0";
        for (const char* node : { "n0", "n1", "n2" }) {
            if (node != map().shard(m_source)->node && node != map().shard(m_target)->node)
                m_copyNode = node;
        }
    }

    void addInSyncCopy(const std::string& shard)
    {
        core::FleetAdmin admin(*m_store, m_pool);
        auto added = admin.addReplica(shard, m_copyNode, m_actor);
        ASSERT_TRUE(added) << added.error().describe();
        ASSERT_TRUE(pollUntil(std::chrono::seconds(60), [&] { return copyState(shard) == core::CopyState::InSync; }))
            << m_controller->stderrText();
    }

    std::optional<core::CopyState> copyState(const std::string& shard)
    {
        const auto snapshot = map();
        const auto* copy = snapshot.shard(shard)->replicaOn(m_copyNode);
        return copy ? std::optional<core::CopyState>(copy->state) : std::nullopt;
    }

    core::MigrationRecord migrate(const std::string& space, const std::string& target, std::uint64_t throttle)
    {
        core::MigrationRequests requests(*m_store, m_pool);
        auto queued = requests.queue(space, target, m_actor, throttle);
        EXPECT_TRUE(queued) << queued.error().describe();
        if (!queued)
            return {};
        EXPECT_TRUE(pollUntil(std::chrono::seconds(90), [&] { return !migration(queued->id).active(); }))
            << migration(queued->id).status << "\n"
            << m_controller->stderrText();
        return migration(queued->id);
    }

    core::MigrationRecord migration(const std::string& id)
    {
        const auto snapshot = map();
        const auto found = snapshot.migrations.find(id);
        return found == snapshot.migrations.end() ? core::MigrationRecord {} : found->second.value;
    }

    // The space's count and checksum (tombstones included) on the copy equal the primary's.
    void expectCopyEqualsPrimary(const std::string& shard, const std::string& space)
    {
        auto primary = clientOfNode(map().shard(shard)->node)->spaceStats(shard, { space });
        auto copy = clientOfNode(m_copyNode)->spaceStats(shard, { space });
        ASSERT_TRUE(primary && copy && primary->size() == 1 && copy->size() == 1);
        EXPECT_GT(primary->front().liveDocs, 0u);
        EXPECT_EQ(copy->front().liveDocs, primary->front().liveDocs);
        EXPECT_EQ(copy->front().tombstones, primary->front().tombstones);
        EXPECT_EQ(copy->front().checksum, primary->front().checksum);
    }

    // Searches shardmapd's router for live documents of the model, one by one: each found once.
    void expectSearchesFind(const std::string& space, const std::map<std::string, ModelEntry>& model)
    {
        auto router
            = v1::Router::NewStub(grpc::CreateChannel(m_controller->address(), grpc::InsecureChannelCredentials()));
        std::size_t checked = 0;
        for (const auto& [id, entry] : model) {
            if (entry.deleted || entry.uncertain || ++checked > 20)
                continue;
            v1::RouterSearchRequest request;
            request.add_spaces(space);
            request.set_query("\"" + id + "\"");
            request.set_limit(5);
            v1::RouterSearchResponse response;
            auto context = contextWithDeadline();
            const auto status = router->Search(context.get(), request, &response);
            ASSERT_TRUE(status.ok()) << status.error_message();
            ASSERT_EQ(response.hits_size(), 1) << id;
            EXPECT_EQ(response.hits(0).id(), id);
        }
        EXPECT_GT(checked, 0u);
    }

    std::unique_ptr<ControllerProcess> m_controller;
    std::string m_source;
    std::string m_target;
    std::string m_copyNode;
};

} // namespace

TEST_F(MigrationCopiesTest, MovesTheSpaceOntoTheTargetsReplicaAndOffTheSourcesUnderWriters)
{
    Workload workload({ { "acme" }, 600, 2, 4, 0.2, std::chrono::milliseconds(2), 31 },
        { routerServicePath(m_controller->address()) });
    ASSERT_TRUE(workload.prefill()) << workload.lastError();
    pickShards("acme");
    // One node holds an in-sync copy of both shards.
    addInSyncCopy(m_source);
    addInSyncCopy(m_target);

    workload.start();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    // Throttled, so that writes land on both shards' copies while the backfill runs.
    const auto done = migrate("acme", m_target, 1000);
    std::this_thread::sleep_for(std::chrono::milliseconds(200)); // writes after the move too
    workload.stop();
    ASSERT_TRUE(workload.settle(std::chrono::seconds(20))) << workload.lastError();
    EXPECT_EQ(done.phase, core::MigrationPhase::Done) << done.status << " " << done.error;
    EXPECT_TRUE(workload.anomalies().empty()) << workload.anomalies().front();
    EXPECT_GT(workload.acknowledged(), 100u);

    const auto model = workload.model("acme");
    const std::string targetNode = map().shard(m_target)->node;
    EXPECT_EQ(map().space("acme")->shard, m_target);
    EXPECT_EQ(compareWithModel(*clientOfNode(targetNode), m_target, "acme", model), std::vector<std::string> {});
    EXPECT_EQ(compareWithModel(*clientOfNode(m_copyNode), m_target, "acme", model), std::vector<std::string> {})
        << "the target's replica holds every acknowledged document, the backfilled ones too";
    expectCopyEqualsPrimary(m_target, "acme");
    EXPECT_EQ(copyState(m_target), core::CopyState::InSync) << m_controller->stderrText();
    EXPECT_EQ(copyState(m_source), core::CopyState::InSync) << m_controller->stderrText();
    // The cleanup removed the space from every copy of the source.
    EXPECT_EQ(rowsOf(*clientOfNode(map().shard(m_source)->node), m_source, "acme"), 0u);
    EXPECT_EQ(rowsOf(*clientOfNode(m_copyNode), m_source, "acme"), 0u) << "the source's replica was cleaned up";
    EXPECT_NE(done.status.find("from its replicas"), std::string::npos) << done.status;

    // The target's primary dies: the replica answers every search, backfilled documents included.
    m_nodes.at(indexOf(targetNode))->kill9();
    expectSearchesFind("acme", model);
}

TEST_F(MigrationCopiesTest, ATargetCopyWhoseNodeIsDownEndsCatchingUpAndIsCaughtUpWhenBack)
{
    Workload workload({ { "acme" }, 400, 2, 4, 0.2, std::chrono::milliseconds(2), 32 },
        { routerServicePath(m_controller->address()) });
    ASSERT_TRUE(workload.prefill()) << workload.lastError();
    pickShards("acme");
    addInSyncCopy(m_target);
    const std::string address = m_nodes.at(indexOf(m_copyNode))->address();
    m_nodes.at(indexOf(m_copyNode))->kill9();

    workload.start();
    const auto done = migrate("acme", m_target, 0);
    EXPECT_EQ(done.phase, core::MigrationPhase::Done) << done.status << " " << done.error;
    // Not in sync: the migration marked it catching up when it could not tell it its role.
    EXPECT_EQ(copyState(m_target), core::CopyState::CatchingUp);
    const auto after = map();
    const auto* copy = after.shard(m_target)->replicaOn(m_copyNode);
    ASSERT_NE(copy, nullptr);
    EXPECT_NE(copy->reason.find("migration " + done.id), std::string::npos) << copy->reason;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    workload.stop();
    ASSERT_TRUE(workload.settle(std::chrono::seconds(20))) << workload.lastError();

    // Back on its address: its catch-up brings it in sync, the moved space included.
    m_nodes.at(indexOf(m_copyNode)) = NodeProcess::start(m_dataDirs.at(indexOf(m_copyNode)), nodeListenArgs(address));
    ASSERT_TRUE(m_nodes.at(indexOf(m_copyNode)));
    ASSERT_TRUE(pollUntil(std::chrono::seconds(90), [&] { return copyState(m_target) == core::CopyState::InSync; }))
        << m_controller->stderrText();
    const auto model = workload.model("acme");
    EXPECT_EQ(compareWithModel(*clientOfNode(m_copyNode), m_target, "acme", model), std::vector<std::string> {});
    expectCopyEqualsPrimary(m_target, "acme");
}

TEST_F(MigrationCopiesTest, ASplitMakesItsNewShardWithTheFleetsFactorAndMovesItsSpacesOntoEveryCopy)
{
    const std::vector<std::string> spaces { "acme", "globex", "initech", "umbrella" };
    for (const auto& space : spaces) {
        addSpaceRecord(space, "s0");
        ASSERT_TRUE(nodeOf("s0")->setOwnership("s0", { space, core::SpaceRole::Owner, 1 }));
    }
    Workload workload(
        { spaces, 150, 2, 4, 0.2, std::chrono::milliseconds(2), 33 }, { routerServicePath(m_controller->address()) });
    ASSERT_TRUE(workload.prefill()) << workload.lastError();
    m_source = "s0";
    m_copyNode = "n1";
    addInSyncCopy("s0");
    core::MigrationSettings settings;
    settings.rollbackWindowSeconds = 0;
    settings.backfillBatch = 100;
    settings.replicationFactor = 2;
    core::MigrationRequests requests(*m_store, m_pool);
    ASSERT_TRUE(requests.setSettings(settings, m_actor));

    workload.start();
    auto split = requests.split("s0", "s9", "", m_actor);
    ASSERT_TRUE(split) << split.error().describe();
    // Made on s0's node with a copy where s0 keeps its own, in sync at once (it was empty).
    const auto made = map();
    ASSERT_NE(made.shard("s9"), nullptr);
    EXPECT_EQ(made.shard("s9")->node, "n0");
    const auto* copy = made.shard("s9")->replicaOn("n1");
    ASSERT_NE(copy, nullptr);
    EXPECT_EQ(copy->state, core::CopyState::InSync);
    ASSERT_TRUE(pollUntil(std::chrono::seconds(90), [&] {
        const auto snapshot = map();
        const auto op = snapshot.operations.find(split->id);
        return op != snapshot.operations.end() && op->second.value.state != core::OperationState::Running;
    })) << m_controller->stderrText();
    workload.stop();
    ASSERT_TRUE(workload.settle(std::chrono::seconds(20))) << workload.lastError();
    const auto after = map();
    EXPECT_EQ(after.operations.at(split->id).value.state, core::OperationState::Done)
        << after.operations.at(split->id).value.error;

    std::size_t moved = 0;
    for (const auto& space : spaces) {
        const std::string shard = after.space(space)->shard;
        moved += shard == "s9" ? 1 : 0;
        // Every copy of the shard it is on holds it; the other shard's copies hold none of it.
        EXPECT_EQ(
            compareWithModel(*clientOfNode("n0"), shard, space, workload.model(space)), std::vector<std::string> {})
            << space;
        EXPECT_EQ(
            compareWithModel(*clientOfNode("n1"), shard, space, workload.model(space)), std::vector<std::string> {})
            << space << " on the copy of " << shard;
        const std::string other = shard == "s9" ? "s0" : "s9";
        EXPECT_EQ(rowsOf(*clientOfNode("n1"), other, space), 0u) << space;
    }
    EXPECT_GT(moved, 0u);
    EXPECT_EQ(after.shard("s9")->replicaOn("n1")->state, core::CopyState::InSync);
}

// Retiring a node that holds a replica (issue 30: "retire-node moves every copy"): the executor
// makes the copy again on another node, catches it up under writers, drops the old one from the
// map and from its node, and only then retires the node. The node's own (empty) shard has no
// move, so the operation runs on the copies alone.
TEST_F(MigrationCopiesTest, RetiringANodeMakesItsReplicasAgainElsewhereThenRetiresIt)
{
    Workload workload({ { "acme" }, 400, 2, 4, 0.2, std::chrono::milliseconds(2), 34 },
        { routerServicePath(m_controller->address()) });
    ASSERT_TRUE(workload.prefill()) << workload.lastError();
    pickShards("acme");
    const std::string otherNode = map().shard(m_target)->node;
    addInSyncCopy(m_source);
    core::FleetAdmin admin(*m_store, m_pool);
    ASSERT_TRUE(admin.map().setReplication(m_source, 2, std::nullopt, m_actor));
    const std::string retiring = m_copyNode;

    workload.start();
    core::MigrationRequests requests(*m_store, m_pool);
    auto retire = requests.retireNode(retiring, m_actor);
    ASSERT_TRUE(retire) << retire.error().describe();
    EXPECT_EQ(retire->state, core::OperationState::Running) << "it waits for the copy on " << retiring;
    EXPECT_TRUE(retire->migrations.empty());
    ASSERT_TRUE(pollUntil(std::chrono::seconds(120), [&] {
        const auto snapshot = map();
        return snapshot.operations.at(retire->id).value.state != core::OperationState::Running;
    })) << m_controller->stderrText();
    workload.stop();
    ASSERT_TRUE(workload.settle(std::chrono::seconds(20))) << workload.lastError();
    EXPECT_TRUE(workload.anomalies().empty()) << workload.anomalies().front();

    const auto after = map();
    EXPECT_EQ(after.operations.at(retire->id).value.state, core::OperationState::Done)
        << after.operations.at(retire->id).value.error;
    EXPECT_TRUE(after.node(retiring)->retired);
    const auto* shard = after.shard(m_source);
    EXPECT_EQ(shard->replicaOn(retiring), nullptr) << "the old copy is off the map";
    ASSERT_NE(shard->replicaOn(otherNode), nullptr) << "a new copy on the node that may take one";
    EXPECT_EQ(shard->replicaOn(otherNode)->state, core::CopyState::InSync);
    m_copyNode = otherNode;
    EXPECT_EQ(compareWithModel(*clientOfNode(otherNode), m_source, "acme", workload.model("acme")),
        std::vector<std::string> {})
        << "the new copy holds every acknowledged write";
    expectCopyEqualsPrimary(m_source, "acme");
    // Dropped on its node just after the map's commit (which may finish the operation first).
    EXPECT_TRUE(pollUntil(std::chrono::seconds(10), [&] {
        auto left = clientOfNode(retiring)->listShards();
        return left && std::none_of(left->begin(), left->end(), [&](const auto& summary) {
            return summary.id == m_source;
        });
    })) << "the old copy is dropped on its node";
    EXPECT_NE(m_controller->stderrText().find("copy on " + retiring + " is made elsewhere; dropped from the map"),
        std::string::npos)
        << m_controller->stderrText();
}

// A replication factor is kept with no command typed (issue 30): the fleet's factor raised to 2
// gives every shard a copy, a shard's own factor of 3 gives it one on each other node, made by
// the executor's leader where the placement rule and the allocator say, caught up under writers.
TEST_F(MigrationCopiesTest, ARaisedFactorGetsItsCopiesWithNoCommandTyped)
{
    Workload workload({ { "acme" }, 300, 2, 4, 0.2, std::chrono::milliseconds(2), 36 },
        { routerServicePath(m_controller->address()) });
    ASSERT_TRUE(workload.prefill()) << workload.lastError();
    pickShards("acme");
    workload.start();
    core::MigrationRequests requests(*m_store, m_pool);
    auto settings = requests.settings();
    ASSERT_TRUE(settings);
    settings->replicationFactor = 2;
    ASSERT_TRUE(requests.setSettings(*settings, m_actor));
    core::FleetAdmin admin(*m_store, m_pool);
    ASSERT_TRUE(admin.map().setReplication(m_source, 3, std::nullopt, m_actor));
    const auto inSync = [](const core::ShardRecord& shard) {
        return std::count_if(shard.replicas.begin(), shard.replicas.end(),
            [](const core::ShardCopy& copy) { return copy.state == core::CopyState::InSync; });
    };
    ASSERT_TRUE(pollUntil(std::chrono::seconds(90), [&] {
        const auto snapshot = map();
        for (const auto& [id, shard] : snapshot.shards) {
            if (inSync(shard.value) != (id == m_source ? 2 : 1) || shard.value.replicas.size() != (id == m_source ? 2u : 1u))
                return false;
        }
        return true;
    })) << m_controller->stderrText();
    std::this_thread::sleep_for(std::chrono::milliseconds(200)); // writes to every in-sync copy
    workload.stop();
    ASSERT_TRUE(workload.settle(std::chrono::seconds(20))) << workload.lastError();
    EXPECT_TRUE(workload.anomalies().empty()) << workload.anomalies().front();
    const auto model = workload.model("acme");
    const auto after = map();
    for (const auto& copy : after.shard(m_source)->replicas)
        EXPECT_EQ(compareWithModel(*clientOfNode(copy.node), m_source, "acme", model), std::vector<std::string> {})
            << "the copy on " << copy.node << " holds every acknowledged write";
    auto history = m_store->history(0, 0, 0);
    ASSERT_TRUE(history);
    std::size_t made = 0;
    for (const auto& record : *history)
        made += record.actor == "shardmapd/c1" && record.reason == "brings the shard to its replication factor" ? 1 : 0;
    EXPECT_EQ(made, 4u) << "two for the shard of factor 3, one for each other shard";
}

TEST_F(MigrationCopiesTest, ACancelledMigrationLeavesNoRowOnTheTargetsReplica)
{
    Workload workload({ { "acme" }, 600, 2, 4, 0.2, std::chrono::milliseconds(2), 34 },
        { routerServicePath(m_controller->address()) });
    ASSERT_TRUE(workload.prefill()) << workload.lastError();
    pickShards("acme");
    addInSyncCopy(m_target);
    workload.start();
    core::MigrationRequests requests(*m_store, m_pool);
    auto queued = requests.queue("acme", m_target, m_actor, 100);
    ASSERT_TRUE(queued) << queued.error().describe();
    // The backfill has reached the target's replica: then the migration is cancelled.
    ASSERT_TRUE(pollUntil(std::chrono::seconds(30), [&] {
        return rowsOf(*clientOfNode(m_copyNode), m_target, "acme") > 0;
    })) << m_controller->stderrText();
    ASSERT_TRUE(requests.cancel(queued->id, m_actor));
    ASSERT_TRUE(pollUntil(std::chrono::seconds(60), [&] { return !migration(queued->id).active(); }))
        << m_controller->stderrText();
    workload.stop();
    ASSERT_TRUE(workload.settle(std::chrono::seconds(20))) << workload.lastError();
    EXPECT_EQ(migration(queued->id).phase, core::MigrationPhase::Cancelled) << migration(queued->id).error;
    EXPECT_EQ(map().space("acme")->shard, m_source);
    EXPECT_EQ(rowsOf(*clientOfNode(map().shard(m_target)->node), m_target, "acme"), 0u);
    EXPECT_EQ(rowsOf(*clientOfNode(m_copyNode), m_target, "acme"), 0u) << "the abort removed the replica's copy too";
    EXPECT_EQ(copyState(m_target), core::CopyState::InSync);
    EXPECT_EQ(compareWithModel(*clientOfNode(map().shard(m_source)->node), m_source, "acme", workload.model("acme")),
        std::vector<std::string> {});
}

TEST_F(MigrationCopiesTest, ARollbackMovesTheSpaceBackOntoEveryCopyOfTheOldSource)
{
    core::MigrationSettings settings;
    settings.rollbackWindowSeconds = 120;
    settings.backfillBatch = 100;
    core::MigrationRequests requests(*m_store, m_pool);
    ASSERT_TRUE(requests.setSettings(settings, m_actor));
    Workload workload({ { "acme" }, 400, 2, 4, 0.2, std::chrono::milliseconds(2), 35 },
        { routerServicePath(m_controller->address()) });
    ASSERT_TRUE(workload.prefill()) << workload.lastError();
    pickShards("acme");
    addInSyncCopy(m_source);
    addInSyncCopy(m_target);
    workload.start();
    auto queued = requests.queue("acme", m_target, m_actor, 0);
    ASSERT_TRUE(queued) << queued.error().describe();
    ASSERT_TRUE(pollUntil(std::chrono::seconds(60), [&] {
        return migration(queued->id).phase == core::MigrationPhase::Cleanup;
    })) << m_controller->stderrText();
    // Writes during the window reach the old source's copies, which follow the new owner.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ASSERT_TRUE(requests.rollback(queued->id, m_actor));
    ASSERT_TRUE(pollUntil(std::chrono::seconds(60), [&] { return !migration(queued->id).active(); }))
        << m_controller->stderrText();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    workload.stop();
    ASSERT_TRUE(workload.settle(std::chrono::seconds(20))) << workload.lastError();
    EXPECT_EQ(migration(queued->id).phase, core::MigrationPhase::Cancelled) << migration(queued->id).error;
    EXPECT_EQ(map().space("acme")->shard, m_source);
    const auto model = workload.model("acme");
    EXPECT_EQ(compareWithModel(*clientOfNode(map().shard(m_source)->node), m_source, "acme", model),
        std::vector<std::string> {});
    EXPECT_EQ(compareWithModel(*clientOfNode(m_copyNode), m_source, "acme", model), std::vector<std::string> {})
        << "the old source's replica followed the window's writes";
    EXPECT_EQ(copyState(m_source), core::CopyState::InSync) << m_controller->stderrText();
    EXPECT_EQ(copyState(m_target), core::CopyState::InSync) << m_controller->stderrText();
    EXPECT_EQ(rowsOf(*clientOfNode(m_copyNode), m_target, "acme"), 0u);
    EXPECT_EQ(rowsOf(*clientOfNode(map().shard(m_target)->node), m_target, "acme"), 0u);
}

TEST_F(MigrationCopiesTest, ACleanupRetriesASourceCopyWhoseNodeIsDownUntilItIsBack)
{
    Workload workload({ { "acme" }, 300, 2, 4, 0.2, std::chrono::milliseconds(2), 36 },
        { routerServicePath(m_controller->address()) });
    ASSERT_TRUE(workload.prefill()) << workload.lastError();
    pickShards("acme");
    addInSyncCopy(m_source);
    const std::string address = m_nodes.at(indexOf(m_copyNode))->address();
    m_nodes.at(indexOf(m_copyNode))->kill9();
    core::MigrationRequests requests(*m_store, m_pool);
    auto queued = requests.queue("acme", m_target, m_actor, 0);
    ASSERT_TRUE(queued) << queued.error().describe();
    // Cut over, and then held in the cleanup: the source's copy still has the space's rows.
    ASSERT_TRUE(pollUntil(std::chrono::seconds(60),
        [&] {
            const auto m = migration(queued->id);
            return m.phase == core::MigrationPhase::Cleanup && m.status.find("retrying in") != std::string::npos;
        }))
        << migration(queued->id).status << "\n"
        << m_controller->stderrText();
    // The record says why: the copy and its node.
    EXPECT_NE(migration(queued->id).error.find("on node " + m_copyNode + " still holds acme"), std::string::npos)
        << migration(queued->id).error;
    EXPECT_EQ(map().space("acme")->shard, m_target);

    m_nodes.at(indexOf(m_copyNode)) = NodeProcess::start(m_dataDirs.at(indexOf(m_copyNode)), nodeListenArgs(address));
    ASSERT_TRUE(m_nodes.at(indexOf(m_copyNode)));
    ASSERT_TRUE(pollUntil(std::chrono::seconds(60), [&] { return !migration(queued->id).active(); }))
        << m_controller->stderrText();
    EXPECT_EQ(migration(queued->id).phase, core::MigrationPhase::Done) << migration(queued->id).error;
    EXPECT_EQ(rowsOf(*clientOfNode(m_copyNode), m_source, "acme"), 0u);
}
