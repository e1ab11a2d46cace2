// A replica's whole life with its parts together (issue 30): the administrator adds a copy of a
// shard that holds a tenant being written through shardmapd's router; the executor catches it up
// with the migration machinery while the router writes both copies; the primary's node is killed
// (kill -9) and its data directory deleted; the node is marked lost, which promotes the copy; the
// writers go on. No acknowledged write is lost and the tenant's searches are answered by the new
// primary.
#include "core/admin/fleet_admin.h"
#include "core/migration/migration_requests.h"
#include "core/migration/retired_shard_cleanup.h"
#include "core/store/lease_names.h"
#include "node_test_helpers.h"
#include "shardmap/v1/router.grpc.pb.h"
#include "tests/support/controller_process.h"
#include "tests/support/fleet_test.h"
#include "tests/support/workload.h"

#include <filesystem>
#include <grpcpp/grpcpp.h>
#include <set>

using namespace shardmap;
using namespace shardmap::testing;

namespace {

class ReplicaLifecycleTest : public FleetTest<::testing::Test> {
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
    }

    std::shared_ptr<core::NodeClient> clientOfNode(const std::string& node)
    {
        return *m_pool.get(m_nodes.at(std::stoul(node.substr(1)))->address());
    }
};

} // namespace

TEST_F(ReplicaLifecycleTest, ACopyCaughtUpUnderWritesTakesOverWhenItsPrimarysNodeIsLostWithNothingLost)
{
    auto controller = ControllerProcess::start(
        m_dir.file("c1.stderr.log"), { "--store", storeUri(), "--id", "c1", "--lease-ttl-ms", "1000" });
    ASSERT_TRUE(controller);
    Workload workload(
        { { "acme" }, 300, 2, 4, 0.2, std::chrono::milliseconds(2), 30 }, { routerServicePath(controller->address()) });
    ASSERT_TRUE(workload.prefill()) << workload.lastError();
    const std::string shard = map().space("acme")->shard;
    const std::string primaryNode = map().shard(shard)->node;
    const std::string copyNode = primaryNode == "n0" ? "n1" : "n0";

    workload.start();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    core::FleetAdmin admin(*m_store, m_pool);
    auto added = admin.addReplica(shard, copyNode, m_actor);
    ASSERT_TRUE(added) << added.error().describe();
    const auto* listed = map().shard(shard)->replicaOn(copyNode);
    ASSERT_NE(listed, nullptr);
    EXPECT_EQ(listed->state, core::CopyState::CatchingUp) << "the shard holds a tenant: the copy has to catch up";

    // The executor brings the copy in sync while the router keeps writing both copies.
    ASSERT_TRUE(pollUntil(std::chrono::seconds(90), [&] {
        const auto* copy = map().shard(shard)->replicaOn(copyNode);
        return copy && copy->state == core::CopyState::InSync;
    })) << controller->stderrText();
    std::this_thread::sleep_for(std::chrono::milliseconds(300)); // writes to both in-sync copies

    // The primary's disk dies with its node.
    m_nodes.at(std::stoul(primaryNode.substr(1)))->kill9();
    std::filesystem::remove_all(m_dataDirs.at(std::stoul(primaryNode.substr(1))));
    auto lost = admin.loseNode(primaryNode, m_actor);
    ASSERT_TRUE(lost) << lost.error().describe();
    const auto after = map();
    EXPECT_EQ(after.shard(shard)->node, copyNode) << "the in-sync copy was promoted";
    EXPECT_GT(after.space("acme")->epoch, 1u);
    std::this_thread::sleep_for(std::chrono::milliseconds(500)); // writes to the new primary
    workload.stop();
    ASSERT_TRUE(workload.settle(std::chrono::seconds(30))) << workload.lastError() << "\n" << controller->stderrText();

    EXPECT_TRUE(workload.anomalies().empty()) << workload.anomalies().front();
    EXPECT_GT(workload.acknowledged(), 100u);
    auto survivor = clientOfNode(copyNode);
    const auto model = workload.model("acme");
    EXPECT_EQ(compareWithModel(*survivor, shard, "acme", model), std::vector<std::string> {})
        << "every acknowledged write is on the copy that took over";

    // The tenant's searches are answered, by the new primary.
    auto router = v1::Router::NewStub(grpc::CreateChannel(controller->address(), grpc::InsecureChannelCredentials()));
    std::size_t checked = 0;
    for (const auto& [id, entry] : model) {
        if (entry.deleted || entry.uncertain || ++checked > 20)
            continue;
        v1::RouterSearchRequest request;
        request.add_spaces("acme");
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

// A retired shard (a merge's emptied one, a retired node's) kept its replicas: listed as copies,
// counted by health, their files on other nodes holding disk for nothing. The executor's cleanup
// drops them on their nodes and takes them off the record; the retired shard itself stays listed,
// its primary's file untouched, and a shard that is not retired keeps its copies.
TEST_F(ReplicaLifecycleTest, ARetiredShardsReplicasAreDroppedOnTheirNodesAndTakenOffItsRecord)
{
    for (const std::string node : { "n0", "n1" }) {
        for (const std::string shard : { "gone", "kept" }) {
            auto created = clientOfNode(node)->createShard(shard, {});
            ASSERT_TRUE(created) << created.error().describe();
        }
    }
    core::MapEditor editor(*m_store);
    for (const std::string shard : { "gone", "kept" }) {
        core::ShardRecord record { shard, "n0", core::ShardState::Active, 0, 0 };
        record.replicas.push_back({ "n1", core::CopyState::InSync });
        ASSERT_TRUE(editor.addShard(record, m_actor));
    }
    ASSERT_TRUE(editor.setShardState("gone", core::ShardState::Draining, m_actor));
    ASSERT_TRUE(editor.setShardState("gone", core::ShardState::Retired, m_actor));
    auto lease = m_store->acquireLease(std::string(core::kExecutorLease), "test-executor", std::chrono::minutes(10));
    ASSERT_TRUE(lease) << lease.error().describe();
    std::vector<std::string> logged;
    core::RetiredShardCleanup cleanup(
        *m_store, m_pool, [&]() -> core::Result<core::LeaseGrant> { return *lease; }, "test-executor",
        [&](core::LogLevel, const std::string& line) { logged.push_back(line); });

    // The replica's node does not answer: nothing changes, and the next round finishes the job.
    const std::string address = m_nodes[1]->address();
    m_nodes[1]->stop();
    cleanup.round();
    ASSERT_EQ(map().shard("gone")->replicas.size(), 1u);
    ASSERT_FALSE(logged.empty());
    EXPECT_NE(logged.back().find("the replicas of retired shard gone are not dropped yet"), std::string::npos)
        << logged.back();
    m_nodes[1] = NodeProcess::start(m_dataDirs[1], { "--listen", address });
    ASSERT_TRUE(m_nodes[1]);
    ASSERT_TRUE(pollUntil(std::chrono::seconds(20), [&] {
        cleanup.round();
        return map().shard("gone")->replicas.empty();
    })) << logged.back();

    const auto after = map();
    EXPECT_EQ(after.shard("gone")->state, core::ShardState::Retired) << "the retired shard stays listed";
    EXPECT_EQ(after.shard("kept")->replicas.size(), 1u) << "an active shard keeps its copy";
    const auto shardsOn = [&](const std::string& node) {
        std::set<std::string> ids;
        auto listed = clientOfNode(node)->listShards();
        EXPECT_TRUE(listed);
        for (const auto& summary : listed ? *listed : std::vector<core::ShardSummary> {})
            ids.insert(summary.id);
        return ids;
    };
    EXPECT_FALSE(shardsOn("n1").contains("gone")) << "the retired shard's copy was dropped";
    EXPECT_TRUE(shardsOn("n1").contains("kept"));
    EXPECT_TRUE(shardsOn("n0").contains("gone")) << "its primary's file is left as it was";
    auto history = m_store->history(0, 0, 0);
    ASSERT_TRUE(history);
    EXPECT_EQ(std::count_if(
                  history->begin(), history->end(), [](const auto& r) { return r.action == "drop-retired-replicas"; }),
        1);
}
