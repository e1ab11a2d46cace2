// The overview's figures without a window (core/fleet/fleet_totals.h): totals over the map and the
// nodes' latest samples, the hottest shards and spaces, and a shard's growth over 24 hours.

#include "core/fleet/fleet_totals.h"

#include <gtest/gtest.h>
#include <map>
#include <tuple>
#include <utility>

using namespace shardmap::core;

namespace {

constexpr std::uint64_t kTotalsGiB = std::uint64_t { 1 } << 30;

ShardMetricsValue shardFigures(const std::string& id, double queries, double writes, std::uint64_t bytes)
{
    ShardMetricsValue shard;
    shard.shard = id;
    shard.liveDocs = bytes / 100;
    shard.bytesEstimate = bytes;
    shard.queriesPerSecond = queries;
    shard.writesPerSecond = writes;
    return shard;
}

struct TotalsFleet {
    MapSnapshot map;
    std::map<std::string, NodeReading> readings;

    void addNode(const std::string& id, bool retired = false)
    {
        NodeRecord node;
        node.id = id;
        node.address = id + ":1";
        node.retired = retired;
        map.nodes[id] = { node, 1 };
    }
    void addShard(const std::string& id, const std::string& node, ShardState state = ShardState::Active)
    {
        map.shards[id] = { ShardRecord { id, node, state, 0, 0 }, 1 };
    }
    void sample(const std::string& node, bool reachable, std::uint64_t diskFree, std::vector<ShardMetricsValue> shards)
    {
        auto value = std::make_shared<NodeMetricsValue>();
        value->unixMs = 1000;
        value->nodeId = node;
        value->diskTotalBytes = 100 * kTotalsGiB;
        value->diskFreeBytes = diskFree;
        value->queriesPerSecond = 5;
        value->shards = std::move(shards);
        readings[node] = { reachable, value };
    }
    NodeReader reader() const
    {
        return [this](const std::string& id) {
            const auto found = readings.find(id);
            return found == readings.end() ? NodeReading {} : found->second;
        };
    }
};

} // namespace

TEST(FleetTotalsTest, TotalsCountReachableNodesAndSkipRetiredOnes)
{
    TotalsFleet fleet;
    fleet.addNode("n1");
    fleet.addNode("n2");
    fleet.addNode("n3", true);
    fleet.addShard("s1", "n1");
    fleet.addShard("s2", "n2", ShardState::Draining);
    fleet.addShard("s3", "n3", ShardState::Retired);
    fleet.sample("n1", true, 60 * kTotalsGiB, { shardFigures("s1", 1, 2, 1000) });
    fleet.sample("n2", false, 10 * kTotalsGiB, { shardFigures("s2", 3, 4, 5000) });
    fleet.sample("n3", true, 1 * kTotalsGiB, { shardFigures("s3", 5, 6, 7000) });

    const FleetTotals totals = fleetTotals(fleet.map, fleet.reader());
    EXPECT_EQ(totals.nodesActive, 2);
    EXPECT_EQ(totals.nodesUp, 1);
    EXPECT_EQ(totals.bytes, 1000u) << "the unreachable node's last figures are not counted";
    EXPECT_EQ(totals.docs, 10u);
    ASSERT_TRUE(totals.fullestDisk);
    EXPECT_EQ(totals.fullestDisk->node, "n1");
    EXPECT_DOUBLE_EQ(totals.fullestDisk->usedPercent, 40);
    EXPECT_EQ(totals.fullestDisk->freeBytes, 60 * kTotalsGiB);
    EXPECT_EQ(totals.shardsByState.at(ShardState::Active), 1);
    EXPECT_EQ(totals.shardsByState.at(ShardState::Draining), 1);
    EXPECT_EQ(totals.shardsByState.at(ShardState::Retired), 1);
    ASSERT_TRUE(totals.load) << "the load point sums every active node with a sample";
    EXPECT_DOUBLE_EQ(totals.load->writes, 6);
    EXPECT_DOUBLE_EQ(totals.load->searches, 10);
    EXPECT_DOUBLE_EQ(totals.load->diskUsed, static_cast<double>(130 * kTotalsGiB));
}

// Shards by their copies' health (issue 30): green with every copy the factor wants in sync,
// yellow with fewer, red with none serving (a copy on a node that does not answer serves none).
TEST(FleetTotalsTest, ShardsAreCountedByTheirCopiesHealth)
{
    TotalsFleet fleet;
    for (const char* node : { "n1", "n2", "n3" })
        fleet.addNode(node);
    fleet.addShard("green", "n1");
    fleet.addShard("yellow", "n1");
    fleet.map.shards["yellow"].value.replicas.push_back({ "n2", CopyState::CatchingUp });
    fleet.map.shards["yellow"].value.replicationFactor = 2;
    fleet.addShard("red", "n3");
    fleet.addShard("kept", "n3");
    fleet.map.shards["kept"].value.replicas.push_back({ "n1", CopyState::InSync });
    fleet.addShard("old", "n3", ShardState::Retired);
    fleet.sample("n1", true, kTotalsGiB, {});
    fleet.sample("n2", true, kTotalsGiB, {});
    fleet.sample("n3", false, kTotalsGiB, {});

    const FleetTotals totals = fleetTotals(fleet.map, fleet.reader());
    EXPECT_EQ(totals.shardsByCopyHealth,
        (std::map<CopyHealth, int> { { CopyHealth::Green, 2 }, { CopyHealth::Yellow, 1 }, { CopyHealth::Red, 1 } }))
        << "kept is green: its in-sync replica on n1 serves while n3 does not answer, and it wants one copy";
}

TEST(FleetTotalsTest, AFleetWithoutSamplesHasNoDiskAndNoLoad)
{
    TotalsFleet fleet;
    fleet.addNode("n1");
    const FleetTotals totals = fleetTotals(fleet.map, fleet.reader());
    EXPECT_EQ(totals.nodesActive, 1);
    EXPECT_EQ(totals.nodesUp, 0);
    EXPECT_FALSE(totals.fullestDisk);
    EXPECT_FALSE(totals.load);
}

TEST(FleetTotalsTest, TheHottestShardsAreTheBusiestTiesByShardId)
{
    TotalsFleet fleet;
    fleet.addNode("n1");
    fleet.addNode("n2");
    fleet.sample("n1", true, kTotalsGiB, { shardFigures("s-b", 1, 1, 1), shardFigures("s-c", 9, 0, 1) });
    fleet.sample("n2", false, kTotalsGiB, { shardFigures("s-a", 2, 0, 1), shardFigures("s-d", 0, 0, 1) });

    const std::vector<HotShard> hot = hottestShards(fleet.map, fleet.reader(), 3);
    ASSERT_EQ(hot.size(), 3u);
    EXPECT_EQ(hot[0].shard, "s-c");
    EXPECT_EQ(hot[1].shard, "s-a") << "load 2, the same as s-b: the smaller id first";
    EXPECT_EQ(hot[1].node, "n2") << "an unreachable node's last sample still counts";
    EXPECT_EQ(hot[2].shard, "s-b");
    EXPECT_EQ(hottestShards(fleet.map, fleet.reader(), 10).size(), 4u);
}

TEST(FleetTotalsTest, TheHottestSpacesCountWhereTheMapPlacesThem)
{
    MapSnapshot map;
    for (const auto& [id, shard] : { std::pair { "a", "s1" }, std::pair { "b", "s2" } }) {
        SpaceRecord space;
        space.id = id;
        space.shard = shard;
        map.spaces[id] = { space, 1 };
    }
    NodeMetricsValue sample;
    ShardMetricsValue s1 = shardFigures("s1", 0, 0, 0);
    ShardMetricsValue s3 = shardFigures("s3", 0, 0, 0);
    for (const auto& [id, load, bytes] : { std::tuple { "a", 5.0, 10u }, std::tuple { "b", 7.0, 10u } }) {
        SpaceMetricsValue space;
        space.space = id;
        space.queriesPerSecond = load;
        space.bytesEstimate = bytes;
        s1.spaceMetrics.push_back(space);
    }
    SpaceMetricsValue unknown;
    unknown.space = "c";
    unknown.queriesPerSecond = 1;
    s3.spaceMetrics.push_back(unknown);
    sample.shards = { s1, s3 };

    HottestSpaces hot(10);
    hot.add(map, sample);
    const std::vector<HotSpace> top = hot.take();
    ASSERT_EQ(top.size(), 2u) << "b lives on s2: s1's copy of it is not its figure";
    EXPECT_EQ(top[0].space.space, "a");
    EXPECT_EQ(top[0].shard, "s1");
    EXPECT_EQ(top[1].space.space, "c") << "a space the map does not know is listed where it was read";
}

TEST(FleetTotalsTest, AShardGrowsFromItsOldestSizeInTheWindow)
{
    TotalsFleet fleet;
    fleet.addNode("n1");
    fleet.sample("n1", true, kTotalsGiB, { shardFigures("s1", 0, 0, 5000) });
    ShardGrowth growth;
    growth.addOldest("s1", 2000, 3000);
    growth.addOldest("s1", 1500, 2000);
    growth.addOldest("s1", 2500, 1000);
    EXPECT_DOUBLE_EQ(growth.growth("s1", 5000, 3000), 3000) << "the oldest size seen wins";
    EXPECT_DOUBLE_EQ(growth.growth("s2", 700, 3000), 0) << "a new shard starts from its size now";
    EXPECT_DOUBLE_EQ(growth.growth("s2", 400, 4000), -300);

    const std::int64_t later = 1500 + ShardGrowth::kWindowMs + 1;
    growth.renew(fleet.map, fleet.reader(), later);
    EXPECT_DOUBLE_EQ(growth.growth("s1", 6000, later), 1000) << "a baseline older than a day is the live size";
    growth.clear();
    EXPECT_DOUBLE_EQ(growth.growth("s1", 6000, later), 0);
}
