// The node client's metrics history and live stream, as the console will use them: values that
// cross threads, a stream that ends once, cancelled by destroying it, and a node that goes away.
#include "core/client/node_client.h"
#include "node_test_helpers.h"

#include <atomic>
#include <condition_variable>
#include <mutex>

using namespace shardmap;
using namespace shardmap::testing;

namespace {

struct Received {
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<core::NodeMetricsValue> samples;
    std::vector<core::Status> ends;

    bool waitFor(std::size_t samplesWanted, std::size_t endsWanted, std::chrono::milliseconds timeout)
    {
        std::unique_lock lock(mutex);
        return changed.wait_for(
            lock, timeout, [&] { return samples.size() >= samplesWanted && ends.size() >= endsWanted; });
    }
};

std::unique_ptr<core::MetricsSubscription> subscribe(core::NodeClient& client, Received& received)
{
    return client.watchMetrics(
        std::chrono::milliseconds(200), true,
        [&received](const core::NodeMetricsValue& sample) {
            std::lock_guard lock(received.mutex);
            received.samples.push_back(sample);
            received.changed.notify_all();
        },
        [&received](const core::Status& end) {
            std::lock_guard lock(received.mutex);
            received.ends.push_back(end);
            received.changed.notify_all();
        });
}

// A node sampling every 200 ms with shard s1, and a client of it.
struct MetricsNode {
    TempDir dir;
    std::unique_ptr<NodeProcess> node;
    std::unique_ptr<core::NodeClient> client;

    bool start()
    {
        node = NodeProcess::start(dir.file("data"), { "--metrics-tick-ms", "200", "--history-interval-ms", "200" });
        auto connected = node ? core::GrpcNodeClient::connect(node->address(), {})
                              : core::Result<std::unique_ptr<core::GrpcNodeClient>>(
                                  core::makeError(core::ErrorCode::Unavailable, "the node did not start"));
        if (!connected)
            return false;
        client = std::move(*connected);
        return static_cast<bool>(client->createShard("s1", {}));
    }
};

} // namespace

TEST(NodeClientMetricsTest, HistoryThenALiveStreamThatEndsOnceWhenDestroyed)
{
    MetricsNode metricsNode;
    ASSERT_TRUE(metricsNode.start());
    auto* client = &metricsNode.client;
    std::this_thread::sleep_for(std::chrono::milliseconds(700));

    auto history = (*client)->metricsHistory(0);
    ASSERT_TRUE(history) << history.error().describe();
    EXPECT_EQ(history->intervalMs, 200);
    ASSERT_GE(history->samples.size(), 2u);
    for (std::size_t i = 1; i < history->samples.size(); ++i)
        EXPECT_GT(history->samples[i].unixMs, history->samples[i - 1].unixMs) << "oldest first";
    EXPECT_EQ(history->samples.back().nodeId, "test-node");
    auto recent = (*client)->metricsHistory(history->samples.back().unixMs);
    ASSERT_TRUE(recent);
    EXPECT_LT(recent->samples.size(), history->samples.size()) << "since filters";

    Received received;
    auto subscription = subscribe(**client, received);
    ASSERT_TRUE(received.waitFor(3, 0, std::chrono::seconds(10))) << "no live samples";
    {
        std::lock_guard lock(received.mutex);
        EXPECT_GT(received.samples.back().unixMs, received.samples.front().unixMs);
        EXPECT_GT(received.samples.back().rssBytes, 0u);
        ASSERT_FALSE(received.samples.back().shards.empty());
        EXPECT_EQ(received.samples.back().shards.front().shard, "s1");
    }
    subscription.reset(); // cancels and waits
    std::lock_guard lock(received.mutex);
    ASSERT_EQ(received.ends.size(), 1u);
    EXPECT_TRUE(received.ends.front().ok()) << "a cancel is a normal end";
}

TEST(NodeClientMetricsTest, AStreamWhoseNodeDiesEndsOnceWithAnError)
{
    TempDir dir;
    auto node = NodeProcess::start(dir.file("data"), { "--metrics-tick-ms", "200" });
    ASSERT_TRUE(node);
    auto client = core::GrpcNodeClient::connect(node->address(), {});
    ASSERT_TRUE(client);
    Received received;
    auto subscription = subscribe(**client, received);
    ASSERT_TRUE(received.waitFor(1, 0, std::chrono::seconds(10)));
    node->kill9();
    ASSERT_TRUE(received.waitFor(1, 1, std::chrono::seconds(10))) << "the end was never reported";
    {
        std::lock_guard lock(received.mutex);
        ASSERT_EQ(received.ends.size(), 1u);
        EXPECT_FALSE(received.ends.front().ok());
        EXPECT_EQ(received.ends.front().error().code, core::ErrorCode::Unavailable)
            << received.ends.front().error().describe();
    }
    subscription.reset();
    std::lock_guard lock(received.mutex);
    EXPECT_EQ(received.ends.size(), 1u) << "ended twice";
}

// The node's samples carry the latency of the write batches it applied in their window (the
// balancer's write-p99 guard reads it), and none once the writes stop.
TEST(NodeClientMetricsTest, ASampleCarriesTheWriteLatencyOfItsWindow)
{
    MetricsNode metricsNode;
    ASSERT_TRUE(metricsNode.start());
    auto* client = &metricsNode.client;
    ASSERT_TRUE((*client)->setOwnership("s1", { "acme", core::SpaceRole::Owner, 1 }));
    double seen = 0;
    for (int i = 0; i < 50 && seen <= 0; ++i) {
        ASSERT_TRUE((*client)->bulkWrite(
            "s1", { { { "acme", "d" + std::to_string(i), 1, { { "body", "some words" } } }, 1 } }));
        auto sample = (*client)->metrics(false);
        ASSERT_TRUE(sample) << sample.error().describe();
        seen = sample->writeP99Ms;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_GT(seen, 0) << "a window with writes has their p99";
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    auto quiet = (*client)->metrics(false);
    ASSERT_TRUE(quiet);
    EXPECT_EQ(quiet->writeP99Ms, 0) << "a window without writes has none";
}
