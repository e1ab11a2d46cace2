// Micro-benchmarks of the SQLite metadata store: how many compare-and-set commits per second one
// writer gets (every commit is fsynced: synchronous=FULL), and how long a commit takes to reach a
// watch, through the same store (its watches are woken at once) and through another connection
// (found by polling PRAGMA data_version every 20 ms). The store lives under $TMPDIR, so the figures
// are that disk's fsync.

#include "core/store/audit_chain.h"
#include "core/store/sqlite_store.h"
#include "tests/support/test_dir.h"

#include <algorithm>
#include <benchmark/benchmark.h>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

using namespace shardmap::core;
using shardmap::testing::TempDir;
using Clock = std::chrono::steady_clock;

std::unique_ptr<SqliteStore> openStore(const TempDir& dir, benchmark::State& state)
{
    auto store = SqliteStore::open(dir.file("map.db"), true);
    if (!store) {
        state.SkipWithError(store.error().describe().c_str());
        return nullptr;
    }
    return std::move(*store);
}

CommitRequest counterCas(std::uint64_t value, std::uint64_t modRevision)
{
    CommitRequest request;
    request.mutations.push_back({ "counter", std::to_string(value), modRevision });
    request.actor = "bench";
    request.action = "increment";
    return request;
}

double percentile(std::vector<double> samples, double fraction)
{
    if (samples.empty())
        return 0;
    std::sort(samples.begin(), samples.end());
    const auto index = static_cast<std::size_t>(fraction * static_cast<double>(samples.size() - 1));
    return samples[index];
}

// The writer knows the record's mod revision from its last commit: one CAS commit per iteration.
void storeCasCommitBench(benchmark::State& state)
{
    TempDir dir;
    auto store = openStore(dir, state);
    std::uint64_t modRevision = 0;
    for (auto _ : state) {
        if (!store)
            break;
        auto revision = store->commit(counterCas(modRevision + 1, modRevision));
        if (!revision) {
            state.SkipWithError(revision.error().describe().c_str());
            break;
        }
        modRevision = *revision;
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(storeCasCommitBench)->UseRealTime();

// The counter's value and mod revision; zeros when it does not exist (or cannot be read: the CAS
// then fails and reports it).
std::pair<std::uint64_t, std::uint64_t> readCounter(SqliteStore& store)
{
    auto listed = store.list("counter");
    if (!listed || listed->records.count("counter") == 0)
        return { 0, 0 };
    const auto& record = listed->records.at("counter");
    return { std::stoull(record.value), record.modRevision };
}

// What a client that keeps no state does: read the record (one read transaction), then CAS it.
void storeReadModifyCasBench(benchmark::State& state)
{
    TempDir dir;
    auto store = openStore(dir, state);
    for (auto _ : state) {
        if (!store)
            break;
        const auto [value, modRevision] = readCounter(*store);
        auto revision = store->commit(counterCas(value + 1, modRevision));
        if (!revision) {
            state.SkipWithError(revision.error().describe().c_str());
            break;
        }
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(storeReadModifyCasBench)->UseRealTime();

// What shardmapd's start and `shardmapctl map verify-audit` cost: the whole history of a store of
// state.range(0) commits, each two records of about 300 bytes, read and checked against the
// hash chain, and every live record against the audit.
void auditVerifyBench(benchmark::State& state)
{
    TempDir dir;
    auto store = openStore(dir, state);
    const std::string padding(280, 'x');
    for (std::int64_t i = 0; store && i < state.range(0); ++i) {
        CommitRequest request;
        request.mutations.push_back(
            { "spaces/s" + std::to_string(i % 500), padding + std::to_string(i), std::nullopt });
        request.mutations.push_back({ "migrations/m" + std::to_string(i), padding, std::nullopt });
        request.actor = "bench";
        request.action = "move";
        if (auto committed = store->commit(request); !committed) {
            state.SkipWithError(committed.error().describe().c_str());
            return;
        }
    }
    for (auto _ : state) {
        auto report = verifyAuditChain(*store, true);
        if (!report || report->broken) {
            state.SkipWithError(report ? report->broken->message.c_str() : report.error().describe().c_str());
            break;
        }
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(auditVerifyBench)->Arg(5000)->Unit(benchmark::kMillisecond)->UseRealTime();

// Records when the watch callback saw each revision.
class DeliveryClock {
public:
    void delivered(std::uint64_t revision)
    {
        const auto now = Clock::now();
        std::lock_guard lock(m_mutex);
        m_revision = revision;
        m_at = now;
        m_changed.notify_all();
    }
    Clock::time_point waitFor(std::uint64_t revision)
    {
        std::unique_lock lock(m_mutex);
        m_changed.wait(lock, [&] { return m_revision >= revision; });
        return m_at;
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::uint64_t m_revision = 0;
    Clock::time_point m_at;
};

double micros(Clock::duration duration)
{
    return std::chrono::duration<double, std::micro>(duration).count();
}

// Arg 0: commit through the watched store; arg 1: through a second store on the same file (as
// another process would).
// Counters: from the start of commit() to the callback (p50/p99), and from commit() returning to
// the callback (0 when the callback ran first).
void storeWatchLatencyBench(benchmark::State& state)
{
    TempDir dir;
    auto watched = openStore(dir, state);
    auto other = state.range(0) == 1 ? openStore(dir, state) : nullptr;
    if (!watched || (state.range(0) == 1 && !other))
        return;
    SqliteStore& committer = other ? *other : *watched;
    DeliveryClock clock;
    auto handle = watched->watch(
        0, [&](const AuditRecord& record) { clock.delivered(record.revision); }, nullptr);
    std::vector<double> total;
    std::vector<double> afterReturn;
    std::uint64_t modRevision = 0;
    std::mt19937 random(42);
    std::uniform_int_distribution<int> pauseMicros(0, 25000);
    for (auto _ : state) {
        // Commits at random moments: right after the previous delivery they would always just
        // miss a poll of the other-connection case.
        state.PauseTiming();
        std::this_thread::sleep_for(std::chrono::microseconds(pauseMicros(random)));
        state.ResumeTiming();
        const auto start = Clock::now();
        auto revision = committer.commit(counterCas(modRevision + 1, modRevision));
        const auto returned = Clock::now();
        if (!revision) {
            state.SkipWithError(revision.error().describe().c_str());
            break;
        }
        modRevision = *revision;
        const auto seen = clock.waitFor(*revision);
        total.push_back(micros(seen - start));
        afterReturn.push_back(std::max(0.0, micros(seen - returned)));
    }
    state.SetLabel(state.range(0) == 1 ? "commit via another connection" : "commit via the watched store");
    state.counters["commit_to_callback_p50_us"] = percentile(total, 0.5);
    state.counters["commit_to_callback_p99_us"] = percentile(total, 0.99);
    state.counters["return_to_callback_p50_us"] = percentile(afterReturn, 0.5);
    state.counters["return_to_callback_p99_us"] = percentile(afterReturn, 0.99);
}
BENCHMARK(storeWatchLatencyBench)->Arg(0)->Arg(1)->Iterations(300)->UseRealTime();

} // namespace

BENCHMARK_MAIN();
