// Fleet health's implementation: a node's vitals against the thresholds (CPU and memory averaged over
// the window), and a shard's state and whether its node reports it healthy.
#include "core/fleet/health.h"

#include <algorithm>
#include <limits>

namespace shardmap::core {

namespace {

// The level a value reaches against an amber and a red threshold (red checked first, so an
// administrator who sets red below amber still gets red).
HealthLevel levelOf(double value, double warning, double critical)
{
    if (value >= critical) {
        return HealthLevel::Critical;
    }
    return value >= warning ? HealthLevel::Warning : HealthLevel::Ok;
}

void addThresholdReason(HealthAssessment& out, HealthMetric metric, double value, double warning, double critical)
{
    const HealthLevel level = levelOf(value, warning, critical);
    if (level == HealthLevel::Ok) {
        return;
    }
    out.reasons.push_back({ metric, level, value, level == HealthLevel::Critical ? critical : warning, {}, {} });
}

void finish(HealthAssessment& out)
{
    std::stable_sort(out.reasons.begin(), out.reasons.end(),
        [](const HealthReason& a, const HealthReason& b) { return a.level > b.level; });
    out.level = out.reasons.empty() ? HealthLevel::Ok : out.reasons.front().level;
}

void evaluateVitals(HealthAssessment& out, const NodeSampleWindow& samples, const HealthThresholds& thresholds)
{
    const NodeVitals& latest = samples.latest();
    if (const auto disk = diskUsedPercent(latest)) {
        addThresholdReason(
            out, HealthMetric::DiskUsed, *disk, thresholds.diskUsedWarningPercent, thresholds.diskUsedCriticalPercent);
    }
    if (thresholds.memoryLimitBytes > 0) {
        const double percent
            = 100.0 * static_cast<double>(latest.rssBytes) / static_cast<double>(thresholds.memoryLimitBytes);
        addThresholdReason(
            out, HealthMetric::Memory, percent, thresholds.memoryWarningPercent, thresholds.memoryCriticalPercent);
    }
    if (const auto cpu = samples.cpuAverage(thresholds.cpuWindowMs); cpu && *cpu >= thresholds.cpuWarningPercent) {
        out.reasons.push_back(
            { HealthMetric::CpuAverage, HealthLevel::Warning, *cpu, thresholds.cpuWarningPercent, {}, {} });
    }
}

} // namespace

NodeVitals NodeVitals::of(const NodeMetricsValue& sample)
{
    return { sample.unixMs, sample.cpuPercent, sample.rssBytes, sample.diskTotalBytes, sample.diskFreeBytes };
}

void NodeSampleWindow::add(const NodeVitals& vitals, std::int64_t retainMs)
{
    if (!m_samples.empty() && vitals.unixMs < m_samples.back().unixMs) {
        m_samples.clear();
    }
    m_samples.push_back(vitals);
    const std::int64_t cutoff = vitals.unixMs - std::max<std::int64_t>(retainMs, 0);
    // Keep the newest sample at or before the cutoff: it shows that the window is covered.
    while (m_samples.size() >= 2 && m_samples[1].unixMs <= cutoff) {
        m_samples.pop_front();
    }
    while (m_samples.size() > kMaxSamples) {
        m_samples.pop_front();
    }
}

void NodeSampleWindow::seed(const std::vector<NodeVitals>& older, std::int64_t retainMs)
{
    // Only what lies before the first sample held, oldest first, so the order stays intact.
    const std::int64_t first = m_samples.empty() ? std::numeric_limits<std::int64_t>::max() : m_samples.front().unixMs;
    std::vector<NodeVitals> before;
    for (const NodeVitals& vitals : older) {
        if (vitals.unixMs < first && (before.empty() || vitals.unixMs > before.back().unixMs)) {
            before.push_back(vitals);
        }
    }
    m_samples.insert(m_samples.begin(), before.begin(), before.end());
    if (m_samples.empty()) {
        return;
    }
    const std::int64_t cutoff = m_samples.back().unixMs - std::max<std::int64_t>(retainMs, 0);
    while (m_samples.size() >= 2 && m_samples[1].unixMs <= cutoff) {
        m_samples.pop_front();
    }
    while (m_samples.size() > kMaxSamples) {
        m_samples.pop_front();
    }
}

template <typename Figure> std::optional<double> NodeSampleWindow::average(std::int64_t windowMs, Figure figure) const
{
    if (m_samples.empty()) {
        return std::nullopt;
    }
    const std::int64_t newest = m_samples.back().unixMs;
    const std::int64_t cutoff = newest - windowMs;
    if (m_samples.front().unixMs > cutoff) {
        return std::nullopt;
    }
    if (windowMs <= 0) {
        return figure(m_samples.back());
    }
    // Time-weighted: a sample's figure is the mean over the interval since the sample before it,
    // so ten-second history samples and one-second live samples count by the time they cover.
    double sum = 0;
    for (std::size_t i = 1; i < m_samples.size(); ++i) {
        const std::int64_t end = m_samples[i].unixMs;
        if (end <= cutoff) {
            continue;
        }
        const std::int64_t start = std::max(m_samples[i - 1].unixMs, cutoff);
        sum += figure(m_samples[i]) * static_cast<double>(end - start);
    }
    return sum / static_cast<double>(newest - cutoff);
}

std::optional<double> NodeSampleWindow::cpuAverage(std::int64_t windowMs) const
{
    return average(windowMs, [](const NodeVitals& vitals) { return vitals.cpuPercent; });
}

std::optional<double> NodeSampleWindow::rssAverage(std::int64_t windowMs) const
{
    return average(windowMs, [](const NodeVitals& vitals) { return static_cast<double>(vitals.rssBytes); });
}

std::optional<double> diskUsedPercent(const NodeVitals& vitals)
{
    if (vitals.diskTotalBytes == 0) {
        return std::nullopt;
    }
    const auto free = std::min(vitals.diskFreeBytes, vitals.diskTotalBytes);
    return 100.0 * static_cast<double>(vitals.diskTotalBytes - free) / static_cast<double>(vitals.diskTotalBytes);
}

HealthAssessment evaluateNode(const NodeHealthInput& node, const HealthThresholds& thresholds)
{
    HealthAssessment out;
    if (node.retired) {
        // Retired nodes are expected to go away; neither their link nor their figures alarm.
        out.reasons.push_back({ HealthMetric::NodeRetired, HealthLevel::Info, 0, 0, {}, {} });
        finish(out);
        return out;
    }
    if (node.reachable == false) {
        out.reasons.push_back({ HealthMetric::Unreachable, HealthLevel::Critical, 0, 0, node.linkError, {} });
    }
    // The last figures of an unreachable node still count: a full disk stays full.
    if (node.samples && !node.samples->empty()) {
        evaluateVitals(out, *node.samples, thresholds);
    }
    finish(out);
    return out;
}

HealthAssessment evaluateShard(const ShardHealthInput& shard)
{
    HealthAssessment out;
    if (shard.state != ShardState::Active) {
        out.reasons.push_back({ HealthMetric::ShardState, HealthLevel::Info, 0, 0, {}, shard.state });
    }
    if (shard.nodeSampled && shard.state != ShardState::Retired) {
        if (!shard.reported) {
            out.reasons.push_back({ HealthMetric::ShardMissing, HealthLevel::Warning, 0, 0, {}, {} });
        } else if (!shard.healthy) {
            out.reasons.push_back({ HealthMetric::ShardUnhealthy, HealthLevel::Critical, 0, 0, {}, {} });
        }
    }
    if (shard.state != ShardState::Retired && shard.copiesInSync < shard.copiesWanted) {
        out.reasons.push_back(
            { HealthMetric::ShardCopies, shard.copiesInSync == 0 ? HealthLevel::Critical : HealthLevel::Warning,
                static_cast<double>(shard.copiesInSync), static_cast<double>(shard.copiesWanted), {}, {} });
    }
    finish(out);
    return out;
}

const char* copyHealthName(CopyHealth health)
{
    switch (health) {
    case CopyHealth::Green: return "green";
    case CopyHealth::Yellow: return "yellow";
    case CopyHealth::Red: return "red";
    }
    return "unknown";
}

ShardCopiesHealth evaluateCopies(
    const MapSnapshot& map, const ShardRecord& shard, const std::set<std::string>& unreachable)
{
    const auto serves = [&](const std::string& nodeId) {
        const NodeRecord* node = map.node(nodeId);
        return node && !node->lost && !unreachable.contains(nodeId);
    };
    ShardCopiesHealth out;
    out.wanted = map.settings.value.replicationFactorOf(shard);
    for (const std::string& nodeId : shard.inSyncNodes())
        out.inSync += serves(nodeId) ? 1 : 0;
    if (out.inSync == 0)
        out.health = CopyHealth::Red;
    else if (out.inSync < out.wanted)
        out.health = CopyHealth::Yellow;
    return out;
}

std::string describeCopies(const ShardCopiesHealth& health)
{
    return std::to_string(health.inSync) + " of " + std::to_string(health.wanted) + " copies in sync ("
        + copyHealthName(health.health) + ")";
}

std::vector<CopyRow> copyRowsOf(const ShardRecord& shard)
{
    std::vector<CopyRow> rows { CopyRow { shard.id, shard.node, true } };
    for (const ShardCopy& copy : shard.replicas)
        rows.push_back(
            { shard.id, copy.node, false, copy.state, copy.docsDone, copy.docsTotal, copy.sinceUnixMs, copy.reason });
    return rows;
}

std::vector<CopyRow> copyRowsOn(const MapSnapshot& map, const std::string& nodeId)
{
    std::vector<CopyRow> rows;
    for (const auto& shards : { map.shardsOn(nodeId), map.copiesOn(nodeId) }) {
        for (const ShardRecord* shard : shards) {
            for (CopyRow& row : copyRowsOf(*shard)) {
                if (row.node == nodeId)
                    rows.push_back(std::move(row));
            }
        }
    }
    std::sort(rows.begin(), rows.end(), [](const CopyRow& a, const CopyRow& b) { return a.shard < b.shard; });
    return rows;
}

} // namespace shardmap::core
