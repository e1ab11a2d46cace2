// The fleet totals' implementation: one walk over the map's nodes and their latest samples per
// figure; the hottest shards are chosen by pointer into the samples and copied out at the end.

#include "core/fleet/fleet_totals.h"

#include "core/fleet/health.h"
#include "core/fleet/history_digest.h"
#include "core/map/space_placement.h"

#include <algorithm>
#include <set>

namespace shardmap::core {

namespace {

void addToLoad(FleetLoadPoint& load, const NodeMetricsValue& sample)
{
    load.writes += writesPerSecond(sample);
    load.searches += sample.queriesPerSecond;
    load.diskUsed += static_cast<double>(sample.diskTotalBytes - std::min(sample.diskFreeBytes, sample.diskTotalBytes));
}

void addReachable(FleetTotals& totals, const std::string& node, const NodeMetricsValue& sample)
{
    for (const auto& shard : sample.shards) {
        totals.docs += shard.liveDocs;
        totals.bytes += shard.bytesEstimate;
    }
    const auto used = diskUsedPercent(NodeVitals::of(sample));
    if (used && (!totals.fullestDisk || *used > totals.fullestDisk->usedPercent))
        totals.fullestDisk = FullestDisk { node, *used, sample.diskFreeBytes };
}

} // namespace

FleetTotals fleetTotals(const MapSnapshot& map, const NodeReader& read)
{
    FleetTotals totals;
    std::set<std::string> unreachable;
    for (const auto& [id, node] : map.nodes) {
        if (node.value.retired)
            continue;
        ++totals.nodesActive;
        const NodeReading reading = read(id);
        if (!reading.reachable)
            unreachable.insert(id);
        if (reading.sample) {
            if (!totals.load)
                totals.load.emplace();
            addToLoad(*totals.load, *reading.sample);
        }
        if (!reading.reachable)
            continue;
        ++totals.nodesUp;
        if (reading.sample)
            addReachable(totals, id, *reading.sample);
    }
    for (const auto& [id, shard] : map.shards) {
        ++totals.shardsByState[shard.value.state];
        if (shard.value.state != ShardState::Retired)
            ++totals.shardsByCopyHealth[evaluateCopies(map, shard.value, unreachable).health];
    }
    return totals;
}

std::vector<HotShard> hottestShards(const MapSnapshot& map, const NodeReader& read, std::size_t count)
{
    struct Hot {
        const ShardMetricsValue* shard;
        const std::string* node;
        double load;
    };
    std::vector<Hot> hot;
    std::vector<std::shared_ptr<const NodeMetricsValue>> keep; // the samples the pointers point into
    for (const auto& [id, node] : map.nodes) {
        NodeReading reading = read(id);
        if (!reading.sample)
            continue;
        for (const auto& shard : reading.sample->shards)
            hot.push_back({ &shard, &id, shard.queriesPerSecond + shard.writesPerSecond });
        keep.push_back(std::move(reading.sample));
    }
    const std::size_t n = std::min(count, hot.size());
    std::partial_sort(
        hot.begin(), hot.begin() + static_cast<std::ptrdiff_t>(n), hot.end(), [](const Hot& a, const Hot& b) {
            return a.load != b.load ? a.load > b.load : a.shard->shard < b.shard->shard;
        });
    std::vector<HotShard> out;
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        const ShardMetricsValue& shard = *hot[i].shard;
        out.push_back(
            { shard.shard, *hot[i].node, shard.queriesPerSecond, shard.writesPerSecond, shard.bytesEstimate });
    }
    return out;
}

void HottestSpaces::add(const MapSnapshot& map, NodeMetricsValue sample)
{
    for (auto& shard : sample.shards) {
        for (auto& space : shard.spaceMetrics) {
            const SpaceRecord* record = map.space(space.space);
            if (!record || placementOf(map, *record).shard == shard.shard)
                m_hot.push_back({ std::move(space), shard.shard });
        }
    }
    const auto load = [](const HotSpace& a) { return a.space.queriesPerSecond + a.space.writesPerSecond; };
    if (m_hot.size() > 4 * m_count) {
        std::partial_sort(m_hot.begin(), m_hot.begin() + static_cast<std::ptrdiff_t>(m_count), m_hot.end(),
            [&](const HotSpace& a, const HotSpace& b) { return load(a) > load(b); });
        m_hot.resize(m_count);
    }
}

std::vector<HotSpace> HottestSpaces::take()
{
    std::vector<HotSpace> hot = std::move(m_hot);
    m_hot.clear();
    std::sort(hot.begin(), hot.end(), [](const HotSpace& a, const HotSpace& b) {
        const double la = a.space.queriesPerSecond + a.space.writesPerSecond;
        const double lb = b.space.queriesPerSecond + b.space.writesPerSecond;
        return la != lb ? la > lb : a.space.bytesEstimate > b.space.bytesEstimate;
    });
    if (hot.size() > m_count)
        hot.resize(m_count);
    return hot;
}

void ShardGrowth::addOldest(const std::string& shard, std::int64_t unixMs, std::uint64_t bytes)
{
    Baseline& oldest = m_since[shard];
    if (oldest.unixMs == 0 || unixMs < oldest.unixMs)
        oldest = { unixMs, bytes };
}

void ShardGrowth::renew(const MapSnapshot& map, const NodeReader& read, std::int64_t nowUnixMs)
{
    if (nowUnixMs - m_renewedUnixMs < kRenewMs)
        return;
    m_renewedUnixMs = nowUnixMs;
    for (const auto& [id, node] : map.nodes) {
        const NodeReading reading = read(id);
        if (!reading.sample)
            continue;
        for (const auto& shard : reading.sample->shards) {
            Baseline& oldest = m_since[shard.shard];
            if (oldest.unixMs == 0 || oldest.unixMs < nowUnixMs - kWindowMs)
                oldest = { reading.sample->unixMs, shard.bytesEstimate };
        }
    }
}

double ShardGrowth::growth(const std::string& shard, std::uint64_t bytesNow, std::int64_t nowUnixMs)
{
    Baseline& since = m_since[shard];
    if (since.unixMs == 0)
        since = { nowUnixMs, bytesNow };
    return static_cast<double>(bytesNow) - static_cast<double>(since.bytes);
}

void ShardGrowth::clear()
{
    m_since.clear();
    m_renewedUnixMs = 0;
}

} // namespace shardmap::core
