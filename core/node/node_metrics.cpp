#include "core/node/node_metrics.h"

// NodeMetricsSampler's implementation: the sampling thread, each sample's process, shard and space
// figures with rates since the window's start, and the history ring.

#include "core/util/clock.h"

#include <algorithm>
#include <sqlite3.h>

namespace shardmap::core {

namespace {

double rate(std::uint64_t now, std::uint64_t before, double seconds)
{
    if (seconds <= 0 || now < before)
        return 0;
    return static_cast<double>(now - before) / seconds;
}

} // namespace

NodeMetricsSampler::NodeMetricsSampler(Options options, ShardRegistry& registry)
    : m_options(std::move(options))
    , m_registry(registry)
    , m_history(m_options.historyCapacity)
{
}

NodeMetricsSampler::~NodeMetricsSampler()
{
    stop();
}

void NodeMetricsSampler::start()
{
    // Prime both windows so the first real sample has a baseline to compute rates from.
    m_current = sample(m_tickWindow, Which::Tick);
    (void)sample(m_historyWindow, Which::History);
    m_thread = std::thread([this] { run(); });
}

void NodeMetricsSampler::stop()
{
    {
        std::lock_guard lock(m_stopMutex);
        m_stopping = true;
    }
    m_stopCondition.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

void NodeMetricsSampler::recordWrite(double milliseconds)
{
    m_nodeWriteTickLatency.record(milliseconds);
    m_nodeWriteHistoryLatency.record(milliseconds);
}

void NodeMetricsSampler::recordQuery(double milliseconds)
{
    m_nodeTickLatency.record(milliseconds);
    m_nodeHistoryLatency.record(milliseconds);
}

void NodeMetricsSampler::run()
{
    auto nextHistory = std::chrono::steady_clock::now() + m_options.historyInterval;
    std::unique_lock lock(m_stopMutex);
    while (!m_stopCondition.wait_for(lock, m_options.tick, [this] { return m_stopping; })) {
        lock.unlock();
        auto tick = sample(m_tickWindow, Which::Tick);
        {
            std::lock_guard guard(m_mutex);
            m_current = std::move(tick);
        }
        if (std::chrono::steady_clock::now() >= nextHistory) {
            m_history.push(sample(m_historyWindow, Which::History));
            nextHistory += m_options.historyInterval;
        }
        lock.lock();
    }
}

v1::NodeMetrics NodeMetricsSampler::sample(Window& window, Which which)
{
    const auto now = std::chrono::steady_clock::now();
    const double seconds = window.primed ? std::chrono::duration<double>(now - window.at).count() : 0;
    v1::NodeMetrics out;
    out.set_unix_ms(nowUnixMs());
    out.set_node_id(m_options.nodeId);
    const ProcessRates process = (which == Which::Tick ? m_processTick : m_processHistory).sample();
    out.set_rss_bytes(process.rssBytes);
    out.set_cpu_percent(process.cpuPercent);
    out.set_io_read_bytes_per_second(process.ioReadBytesPerSecond);
    out.set_io_write_bytes_per_second(process.ioWriteBytesPerSecond);
    out.set_iowait_percent(process.iowaitPercent);
    out.set_sqlite_memory_bytes(static_cast<std::uint64_t>(sqlite3_memory_used()));
    if (auto disk = readDiskSpace(m_registry.options().dataDir)) {
        out.set_disk_total_bytes(disk->totalBytes);
        out.set_disk_free_bytes(disk->freeBytes);
    }
    const LatencySummary latency = (which == Which::Tick ? m_nodeTickLatency : m_nodeHistoryLatency).takeAndReset();
    out.set_query_p50_ms(latency.p50Ms);
    out.set_query_p99_ms(latency.p99Ms);
    const LatencySummary writes
        = (which == Which::Tick ? m_nodeWriteTickLatency : m_nodeWriteHistoryLatency).takeAndReset();
    out.set_write_p50_ms(writes.p50Ms);
    out.set_write_p99_ms(writes.p99Ms);
    std::map<std::string, ShardActivity> seen;
    for (const auto& entry : m_registry.list()) {
        auto& shard = *out.add_shards();
        fillShard(shard, entry, window, seconds, which);
        out.set_queries_per_second(out.queries_per_second() + shard.queries_per_second());
        out.set_docs_indexed_per_second(out.docs_indexed_per_second() + shard.docs_indexed_per_second());
        out.set_bytes_on_disk(out.bytes_on_disk() + shard.bytes_on_disk());
        if (entry.store)
            seen[entry.id] = entry.store->activity();
    }
    window.shards = std::move(seen);
    window.at = now;
    window.primed = true;
    return out;
}

void NodeMetricsSampler::fillShard(
    v1::ShardMetrics& out, const ShardEntry& entry, Window& window, double seconds, Which which)
{
    out.set_shard_id(entry.id);
    if (!entry.store) {
        out.set_health(v1::SHARD_HEALTH_FAILED);
        return;
    }
    out.set_health(v1::SHARD_HEALTH_OK);
    ShardStore& store = *entry.store;
    out.set_engine(indexEngineName(store.engine()));
    out.set_bytes_on_disk(store.bytesOnDisk());
    if (auto totals = store.totals()) {
        out.set_live_docs(totals->liveDocs);
        out.set_bytes_estimate(totals->bytesEstimate);
        out.set_spaces(totals->spaces);
    }
    const LatencySummary latency = (which == Which::Tick ? store.tickLatency() : store.historyLatency()).takeAndReset();
    out.set_query_p50_ms(latency.p50Ms);
    out.set_query_p99_ms(latency.p99Ms);
    const ShardActivity now = store.activity();
    const auto previous = window.shards.find(entry.id);
    const ShardActivity before = previous == window.shards.end() ? ShardActivity {} : previous->second;
    out.set_queries_per_second(rate(now.queries, before.queries, seconds));
    out.set_writes_per_second(rate(now.writesApplied, before.writesApplied, seconds));
    out.set_docs_indexed_per_second(rate(now.docsIndexed, before.docsIndexed, seconds));
    if (which != Which::Tick)
        return; // per-space figures are only in the current sample: the history stays small
    auto stats = store.spaceStats({});
    if (!stats)
        return;
    for (const auto& space : *stats) {
        auto& metrics = *out.add_space_metrics();
        metrics.set_space(space.space);
        metrics.set_live_docs(space.liveDocs);
        metrics.set_bytes_estimate(space.bytesEstimate);
        const auto nowSpace = now.spaces.find(space.space);
        const auto beforeSpace = before.spaces.find(space.space);
        const SpaceActivity a = nowSpace == now.spaces.end() ? SpaceActivity {} : nowSpace->second;
        const SpaceActivity b = beforeSpace == before.spaces.end() ? SpaceActivity {} : beforeSpace->second;
        metrics.set_queries_per_second(rate(a.queries, b.queries, seconds));
        metrics.set_writes_per_second(rate(a.writes, b.writes, seconds));
    }
}

v1::NodeMetrics NodeMetricsSampler::current(bool includeSpaces) const
{
    v1::NodeMetrics out;
    {
        std::lock_guard lock(m_mutex);
        out = m_current;
    }
    addShardsSinceLastSample(out);
    if (!includeSpaces) {
        for (auto& shard : *out.mutable_shards())
            shard.clear_space_metrics();
    }
    return out;
}

void NodeMetricsSampler::addShardsSinceLastSample(v1::NodeMetrics& out) const
{
    // A shard created after the last tick would be missing for up to a tick, and an allocator
    // reading these metrics would take it for unreachable rather than new and empty.
    for (const auto& entry : m_registry.list()) {
        const bool sampled = std::any_of(out.shards().begin(), out.shards().end(),
            [&](const v1::ShardMetrics& shard) { return shard.shard_id() == entry.id; });
        if (sampled)
            continue;
        auto& shard = *out.add_shards();
        shard.set_shard_id(entry.id);
        shard.set_health(entry.store ? v1::SHARD_HEALTH_OK : v1::SHARD_HEALTH_FAILED);
        if (!entry.store)
            continue;
        shard.set_engine(indexEngineName(entry.store->engine()));
        shard.set_bytes_on_disk(entry.store->bytesOnDisk());
        if (auto totals = entry.store->totals()) {
            shard.set_live_docs(totals->liveDocs);
            shard.set_bytes_estimate(totals->bytesEstimate);
            shard.set_spaces(totals->spaces);
        }
    }
}

v1::MetricsHistory NodeMetricsSampler::history(std::int64_t sinceUnixMs) const
{
    v1::MetricsHistory out;
    out.set_interval_ms(m_options.historyInterval.count());
    for (auto& sample :
        m_history.snapshot([sinceUnixMs](const v1::NodeMetrics& m) { return m.unix_ms() >= sinceUnixMs; }))
        *out.add_samples() = std::move(sample);
    return out;
}

} // namespace shardmap::core
