// A replica's whole life with its parts together (issue 30): the administrator adds a copy of a
// shard that holds a tenant being written through shardmapd's router; the executor catches it up
// with the migration machinery while the router writes both copies; the primary's node is killed
// (kill -9) and its data directory deleted; the node is marked lost, which promotes the copy; the
// writers go on. No acknowledged write is lost and the tenant's searches are answered by the new
// primary.
#include "core/admin/fleet_admin.h"
#include "core/migration/migration_requests.h"
#include "node_test_helpers.h"
#include "shardmap/v1/router.grpc.pb.h"
#include "tests/support/controller_process.h"
#include "tests/support/fleet_test.h"
#include "tests/support/workload.h"

#include <filesystem>
#include <grpcpp/grpcpp.h>

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
