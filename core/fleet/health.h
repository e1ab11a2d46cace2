#pragma once

// The health of nodes and shards: thresholds, the levels they reach and why; the console colours its
// rows by it and the alerts build on it.

#include "core/client/node_client.h"
#include "core/map/shard_map.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace shardmap::core {

// When a node or shard counts as amber (Warning) or red (Critical). The defaults follow what
// operators of search fleets alert on: disk used at 80/90 %, CPU at 85 % averaged over five
// minutes (a short burst is normal during merges), the process's memory near its limit. An
// administrator changes them in the console; the console stores them, the core only evaluates.
struct HealthThresholds {
    double diskUsedWarningPercent = 80;
    double diskUsedCriticalPercent = 90;
    double cpuWarningPercent = 85;
    std::int64_t cpuWindowMs = 5 * 60 * 1000;
    // Resident memory a node may use; 0 turns the memory check off.
    std::uint64_t memoryLimitBytes = std::uint64_t { 4 } << 30;
    double memoryWarningPercent = 80;
    double memoryCriticalPercent = 95;

    bool operator==(const HealthThresholds&) const = default;
};

// Ordered: a row shows the worst level of its reasons. Info is worth seeing (a draining shard)
// but not a problem.
enum class HealthLevel { Ok, Info, Warning, Critical };

enum class HealthMetric {
    // The console has no live link to the node (detail: the link's error).
    Unreachable,
    // The node is retired: no link is expected.
    NodeRetired,
    DiskUsed,
    CpuAverage,
    Memory,
    // The node's sample reports the shard unhealthy.
    ShardUnhealthy,
    // The node's sample does not list a shard the map places on it.
    ShardMissing,
    // Draining, read-only or retired (state).
    ShardState,
    // Fewer copies in sync than the shard's replication factor wants (value: in sync and serving,
    // threshold: wanted); yellow is a warning, none serving critical (issue 30).
    ShardCopies,
};

// Why a node or shard has its level, as facts; the console words them. Percentages are
// 0..100; value and threshold are unused (0) for the metrics that have no figure.
struct HealthReason {
    HealthMetric metric = HealthMetric::Unreachable;
    HealthLevel level = HealthLevel::Ok;
    double value = 0;
    double threshold = 0;
    std::string detail;
    std::optional<ShardState> state;

    bool operator==(const HealthReason&) const = default;
};

// A level with its reasons, worst first. Ok has no reasons.
struct HealthAssessment {
    HealthLevel level = HealthLevel::Ok;
    std::vector<HealthReason> reasons;

    bool operator==(const HealthAssessment&) const = default;
};

// The figures of one node sample that health depends on.
struct NodeVitals {
    std::int64_t unixMs = 0;
    double cpuPercent = 0;
    std::uint64_t rssBytes = 0;
    std::uint64_t diskTotalBytes = 0;
    std::uint64_t diskFreeBytes = 0;

    static NodeVitals of(const NodeMetricsValue& sample);
    bool operator==(const NodeVitals&) const = default;
};

// A node's recent vitals, oldest first, for averages over a time window. Keeps what the window
// needs plus one older sample (which tells that the window is fully covered), at most
// kMaxSamples, so memory stays bounded whatever the sample rate.
class NodeSampleWindow {
public:
    static constexpr std::size_t kMaxSamples = 4096;

    // Appends a sample and drops what is older than retainMs before it. A sample older than the
    // newest one (the node's clock went back, it restarted) starts the window over.
    void add(const NodeVitals& vitals, std::int64_t retainMs);
    // Adds samples from before the oldest one held (a node's history, fetched after the live
    // stream started), so the window is covered without waiting for it to fill.
    void seed(const std::vector<NodeVitals>& older, std::int64_t retainMs);
    void clear() { m_samples.clear(); }

    bool empty() const { return m_samples.empty(); }
    std::size_t size() const { return m_samples.size(); }
    const NodeVitals& latest() const { return m_samples.back(); }
    // Mean CPU over the windowMs before the newest sample, weighted by the time each sample
    // covers; nullopt until the samples cover the whole window (a burst right after connecting
    // is not a five-minute average).
    std::optional<double> cpuAverage(std::int64_t windowMs) const;
    // Mean resident memory over the same window, weighted the same way (bytes).
    std::optional<double> rssAverage(std::int64_t windowMs) const;

private:
    template <typename Figure> std::optional<double> average(std::int64_t windowMs, Figure figure) const;

    std::deque<NodeVitals> m_samples;
};

struct NodeHealthInput {
    // Whether the console has a live link; nullopt while the first connection attempt runs.
    std::optional<bool> reachable;
    std::string linkError;
    bool retired = false;
    // May be empty (no sample yet).
    const NodeSampleWindow* samples = nullptr;
};

struct ShardHealthInput {
    ShardState state = ShardState::Active;
    // Whether the node's latest sample listed the shard, and if so whether it was healthy.
    bool nodeSampled = false;
    bool reported = false;
    bool healthy = true;
    // Copies in sync and serving, and how many the shard wants (evaluateCopies); 0 wanted: not judged.
    std::size_t copiesInSync = 0;
    std::uint32_t copiesWanted = 0;
};

HealthAssessment evaluateNode(const NodeHealthInput& node, const HealthThresholds& thresholds);
HealthAssessment evaluateShard(const ShardHealthInput& shard);

// A shard's health from its copies (issue 30), in the colours administrators of search fleets
// read: green, every copy its replication factor wants is in sync; yellow, fewer, but at least one
// serves; red, none serves (its primary's node is lost or unreachable and no replica is in sync).
enum class CopyHealth { Green, Yellow, Red };

// "green", "yellow", "red".
const char* copyHealthName(CopyHealth health);

struct ShardCopiesHealth {
    CopyHealth health = CopyHealth::Green;
    // Copies in sync on a node neither lost nor unreachable, the primary included.
    std::size_t inSync = 0;
    // The shard's replication factor (its own or the fleet's).
    std::uint32_t wanted = 1;

    bool operator==(const ShardCopiesHealth&) const = default;
};

// unreachable: the nodes known not to answer now (a copy there does not serve).
ShardCopiesHealth evaluateCopies(
    const MapSnapshot& map, const ShardRecord& shard, const std::set<std::string>& unreachable = {});

// "2 of 3 copies in sync (yellow)": how the CLI and the console sum a shard's copies up.
std::string describeCopies(const ShardCopiesHealth& health);

// One copy of a shard as the CLI and the console list them (the primary first, then its replicas
// in the record's order). The primary has no state of its own: it is the copy the others follow.
struct CopyRow {
    std::string shard;
    std::string node;
    bool primary = false;
    CopyState state = CopyState::InSync;
    // Catch-up progress, when/why it entered its state (replicas only).
    std::uint64_t docsDone = 0;
    std::uint64_t docsTotal = 0;
    std::int64_t sinceUnixMs = 0;
    std::string reason = {};

    bool operator==(const CopyRow&) const = default;
};

// The copies of one shard.
std::vector<CopyRow> copyRowsOf(const ShardRecord& shard);
// The copies a node holds (primaries and replicas), by shard id.
std::vector<CopyRow> copyRowsOn(const MapSnapshot& map, const std::string& nodeId);

// Percentage of the disk in use, nullopt when the total is unknown (0).
std::optional<double> diskUsedPercent(const NodeVitals& vitals);

} // namespace shardmap::core
