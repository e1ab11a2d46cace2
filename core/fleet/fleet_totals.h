#pragma once

// The fleet summed up for its overview: nodes up, shards by state, documents and size, the fullest
// disk, the fleet's rates and disk use, the hottest shards and each shard's growth over 24 h.

#include "core/client/node_client.h"
#include "core/fleet/health.h"
#include "core/map/shard_map.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace shardmap::core {

// What the totals read of a node: whether its link is up and its latest sample (null before the
// first). The console answers from what its connection already holds.
struct NodeReading {
    bool reachable = false;
    std::shared_ptr<const NodeMetricsValue> sample;
};
using NodeReader = std::function<NodeReading(const std::string& nodeId)>;

// The fleet's writes and searches per second and its disk use at one moment (a point of the
// overview's 24 h charts).
struct FleetLoadPoint {
    double writes = 0;
    double searches = 0;
    double diskUsed = 0;
};

// The node whose disk is the fullest, in percent used.
struct FullestDisk {
    std::string node;
    double usedPercent = 0;
    std::uint64_t freeBytes = 0;
};

// The totals of a map and its nodes' latest samples. Retired nodes count nowhere. Documents,
// size and the fullest disk come from the reachable nodes; the load point from every node with a
// sample (a node that just went away still carries its last rates).
struct FleetTotals {
    int nodesActive = 0;
    int nodesUp = 0;
    std::uint64_t docs = 0;
    std::uint64_t bytes = 0;
    std::optional<FullestDisk> fullestDisk;
    std::map<ShardState, int> shardsByState;
    // Shards not retired by their copies' health (evaluateCopies; a node that does not answer
    // serves no copy).
    std::map<CopyHealth, int> shardsByCopyHealth;
    // Empty when no node has a sample yet.
    std::optional<FleetLoadPoint> load;
};
FleetTotals fleetTotals(const MapSnapshot& map, const NodeReader& read);

// A shard among the busiest (queries plus writes per second), as its node last reported it.
struct HotShard {
    std::string shard;
    std::string node;
    double queriesPerSecond = 0;
    double writesPerSecond = 0;
    std::uint64_t bytesEstimate = 0;
};
// The `count` busiest shards of every node with a sample (a shard that two nodes report, as the
// old shard of a move in its rollback window, counts twice), busiest first, ties by shard id.
std::vector<HotShard> hottestShards(const MapSnapshot& map, const NodeReader& read, std::size_t count);

// A space among the busiest, on the shard that reported it.
struct HotSpace {
    SpaceMetricsValue space;
    std::string shard;
};
// The `count` busiest spaces (queries plus writes per second) of the samples added, read one node
// at a time (off the UI thread: every node is asked for its spaces), kept short as they arrive.
class HottestSpaces {
public:
    explicit HottestSpaces(std::size_t count)
        : m_count(count)
    {
    }
    // A node's sample with its spaces' figures. A space counts on the shard the map places it on:
    // the old shard of a move in its rollback window reports the copy it keeps.
    void add(const MapSnapshot& map, NodeMetricsValue sample);
    // Busiest first, ties by size.
    std::vector<HotSpace> take();

private:
    std::size_t m_count;
    std::vector<HotSpace> m_hot;
};

// Each shard's growth over the last 24 hours: its oldest size seen in that time, from the nodes'
// histories or the live samples, against its size now.
class ShardGrowth {
public:
    static constexpr std::int64_t kWindowMs = 24LL * 3600 * 1000;
    // Once a minute is enough for a 24 h growth, and every shard of the fleet is a lot to walk
    // at every refresh.
    static constexpr std::int64_t kRenewMs = 60 * 1000;

    // A size from a node's history; the oldest seen wins.
    void addOldest(const std::string& shard, std::int64_t unixMs, std::uint64_t bytes);
    // Replaces the baselines older than the window with the live samples' sizes, at most once
    // per kRenewMs.
    void renew(const MapSnapshot& map, const NodeReader& read, std::int64_t nowUnixMs);
    // Bytes grown since the baseline (negative when the shard shrank); a shard without one gets
    // its size now as the baseline.
    double growth(const std::string& shard, std::uint64_t bytesNow, std::int64_t nowUnixMs);
    void clear();

private:
    struct Baseline {
        std::int64_t unixMs = 0;
        std::uint64_t bytes = 0;
    };
    std::unordered_map<std::string, Baseline> m_since;
    std::int64_t m_renewedUnixMs = 0;
};

} // namespace shardmap::core
