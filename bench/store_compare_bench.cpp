// store_compare_bench: the metadata store's two backends side by side, in one run (issue 5). It
// starts a throwaway etcd on 127.0.0.1 (free, non-default client and peer ports, a temp data dir;
// tests/support/etcd_process) and opens an SQLite file under $TMPDIR, both through openStore(),
// then runs the same measurements, with the same number of operations, on each:
//
// 1. CAS commits/s, one writer: commit() of one key with expectModRevision = the revision of its
//    last commit (the writer keeps the state), --ops commits.
// 2. CAS commits/s, --writers threads on distinct keys through one store object (as the router
//    and the executor of one shardmapd share theirs), --ops commits in all, --ops / writers each.
//    A conflict is counted and the key re-read; with distinct keys there should be none.
// 3. Commit -> watch latency: a watch on the store; commits of one key at random moments (a pause
//    of 0-25 ms before each, same seed for both backends); from the start of commit() to the
//    watch callback that receives the commit's audit record, p50/p99, --watch-ops commits. Once
//    with the commit made through the watched store object, once through a second store object
//    opened on the same URI (as another process would: for SQLite another connection, which
//    learns of commits by polling every 20 ms; for etcd another client).
//
// For etcd it also reads etcd_server_proposals_committed_total from the server's /metrics (curl)
// around each throughput test: every commit Txn is one Raft proposal, whether its compares held or
// not, so proposals per commit above 1 counts the Txns retried after losing the race for the
// store's revision counter (see core/store/etcd_store.h).
//
// Each backend starts empty. Nothing here asserts on timings; results: docs/BENCHMARKS.md,
// "The shard map on etcd and failover (issue 5)".

#include "bench/bench_report.h"
#include "core/store/metadata_store.h"
#include "tests/support/etcd_process.h"
#include "tests/support/test_dir.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace core = shardmap::core;
using Clock = std::chrono::steady_clock;

struct Options {
    std::size_t ops = 2000;
    std::size_t watchOps = 300;
    std::size_t writers = 4;
    unsigned maxPauseMicros = 25000;
    std::vector<std::string> backends { "sqlite", "etcd" };
    std::string etcdEndpoint; // an etcd already running instead of a throwaway one
    std::uint64_t seed = 42;
    bool json = false;
};

template <typename T> T orThrow(core::Result<T> result, const std::string& what)
{
    if (!result)
        throw std::runtime_error(what + ": " + result.error().describe());
    return std::move(result.value());
}

double millisBetween(Clock::time_point from, Clock::time_point to)
{
    return std::chrono::duration<double, std::milli>(to - from).count();
}

using shardmap::bench::loadAverage;
using shardmap::bench::percentile;
using shardmap::bench::utcNow;

core::CommitRequest cas(const std::string& key, std::uint64_t value, std::uint64_t modRevision)
{
    core::CommitRequest request;
    request.mutations.push_back({ key, std::to_string(value), modRevision });
    request.actor = "store_compare_bench";
    request.action = "increment";
    return request;
}

std::uint64_t modRevisionOf(core::MetadataStore& store, const std::string& key)
{
    const auto listed = orThrow(store.list(key), "reading " + key);
    const auto found = listed.records.find(key);
    return found == listed.records.end() ? 0 : found->second.modRevision;
}

struct Throughput {
    std::size_t commits = 0;
    std::size_t conflicts = 0;
    double seconds = 0;
    double p50Ms = 0;
    double p99Ms = 0;
    // etcd only: Raft proposals committed during the test (each commit Txn is one, whether its
    // compares held or not), -1 when unknown.
    double proposals = -1;
    double rate() const { return seconds > 0 ? static_cast<double>(commits) / seconds : 0; }
};

// `writers` threads, each committing `perWriter` CAS commits of its own key.
Throughput casThroughput(core::MetadataStore& store, std::size_t writers, std::size_t perWriter, const std::string& tag)
{
    std::vector<std::vector<double>> latencies(writers);
    std::vector<std::size_t> conflicts(writers, 0);
    std::vector<std::string> errors(writers);
    std::vector<std::thread> threads;
    std::atomic<bool> go { false };
    std::atomic<std::size_t> ready { 0 };
    for (std::size_t w = 0; w < writers; ++w) {
        threads.emplace_back([&, w] {
            const std::string key = tag + "/counter-" + std::to_string(w);
            std::uint64_t modRevision = 0;
            latencies[w].reserve(perWriter);
            ++ready;
            while (!go.load())
                std::this_thread::yield();
            for (std::size_t i = 0; i < perWriter;) {
                const auto start = Clock::now();
                auto revision = store.commit(cas(key, i + 1, modRevision));
                const auto end = Clock::now();
                if (revision) {
                    latencies[w].push_back(millisBetween(start, end));
                    modRevision = *revision;
                    ++i;
                    continue;
                }
                if (revision.error().code != core::ErrorCode::Conflict) {
                    errors[w] = revision.error().describe();
                    return;
                }
                ++conflicts[w];
                auto reread = store.list(key);
                if (reread && reread->records.count(key) != 0)
                    modRevision = reread->records.at(key).modRevision;
            }
        });
    }
    while (ready.load() < writers)
        std::this_thread::yield();
    const auto start = Clock::now();
    go = true;
    for (auto& thread : threads)
        thread.join();
    Throughput out;
    out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    std::vector<double> all;
    for (std::size_t w = 0; w < writers; ++w) {
        if (!errors[w].empty())
            throw std::runtime_error("writer " + std::to_string(w) + ": " + errors[w]);
        all.insert(all.end(), latencies[w].begin(), latencies[w].end());
        out.conflicts += conflicts[w];
    }
    out.commits = all.size();
    out.p50Ms = percentile(all, 0.5);
    out.p99Ms = percentile(all, 0.99);
    return out;
}

// When the watch callback saw each revision.
class DeliveryClock {
public:
    void delivered(std::uint64_t revision)
    {
        const auto now = Clock::now();
        std::lock_guard lock(m_mutex);
        m_revision = std::max(m_revision, revision);
        m_at = now;
        m_changed.notify_all();
    }
    void failed(const std::string& why)
    {
        std::lock_guard lock(m_mutex);
        m_error = why;
        m_changed.notify_all();
    }
    Clock::time_point waitFor(std::uint64_t revision)
    {
        std::unique_lock lock(m_mutex);
        if (!m_changed.wait_for(
                lock, std::chrono::seconds(30), [&] { return m_revision >= revision || !m_error.empty(); }))
            throw std::runtime_error("the watch did not deliver revision " + std::to_string(revision) + " in 30 s");
        if (!m_error.empty())
            throw std::runtime_error("the watch failed: " + m_error);
        return m_at;
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::uint64_t m_revision = 0;
    Clock::time_point m_at;
    std::string m_error;
};

struct WatchLatency {
    std::size_t commits = 0;
    double p50Ms = 0;
    double p99Ms = 0;
    double maxMs = 0;
    double afterReturnP50Ms = 0; // from commit() returning to the callback (0 if it ran first)
    double commitP50Ms = 0; // commit() itself
};

WatchLatency watchLatency(core::MetadataStore& watched, core::MetadataStore& committer, std::size_t commits,
    const Options& o, const std::string& key)
{
    DeliveryClock clock;
    const auto from = orThrow(watched.currentRevision(), "reading the revision");
    auto handle = orThrow(watched.watch(
                              from, [&](const core::AuditRecord& record) { clock.delivered(record.revision); },
                              [&](const core::Error& error) { clock.failed(error.describe()); }),
        "starting a watch");
    std::mt19937_64 random(o.seed);
    std::uniform_int_distribution<unsigned> pause(0, o.maxPauseMicros);
    std::uint64_t modRevision = modRevisionOf(committer, key);
    std::vector<double> total;
    std::vector<double> afterReturn;
    std::vector<double> commitTimes;
    for (std::size_t i = 0; i < commits; ++i) {
        std::this_thread::sleep_for(std::chrono::microseconds(pause(random)));
        const auto start = Clock::now();
        auto revision = committer.commit(cas(key, i + 1, modRevision));
        const auto returned = Clock::now();
        if (!revision)
            throw std::runtime_error("watch-latency commit: " + revision.error().describe());
        modRevision = *revision;
        const auto seen = clock.waitFor(*revision);
        total.push_back(millisBetween(start, seen));
        commitTimes.push_back(millisBetween(start, returned));
        afterReturn.push_back(std::max(0.0, millisBetween(returned, seen)));
    }
    handle.reset();
    WatchLatency out;
    out.commits = total.size();
    out.p50Ms = percentile(total, 0.5);
    out.p99Ms = percentile(total, 0.99);
    out.maxMs = total.empty() ? 0 : *std::max_element(total.begin(), total.end());
    out.afterReturnP50Ms = percentile(afterReturn, 0.5);
    out.commitP50Ms = percentile(commitTimes, 0.5);
    return out;
}

// A counter from etcd's /metrics (served on the client URL), through curl; nullopt if unreadable.
std::optional<double> etcdMetric(const std::string& endpoint, const std::string& name)
{
    if (endpoint.empty())
        return std::nullopt;
    const std::string command = "curl -s --max-time 5 http://" + endpoint + "/metrics";
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe)
        return std::nullopt;
    std::string text;
    char chunk[4096];
    for (std::size_t got; (got = std::fread(chunk, 1, sizeof chunk, pipe)) > 0;)
        text.append(chunk, got);
    ::pclose(pipe);
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (line.starts_with(name + " "))
            return std::stod(line.substr(name.size() + 1));
    }
    return std::nullopt;
}

// Runs a throughput test; for etcd, counts the Raft proposals it caused.
Throughput withProposals(const std::string& metricsEndpoint, const std::function<Throughput()>& test)
{
    const std::string metric = "etcd_server_proposals_committed_total";
    const auto before = etcdMetric(metricsEndpoint, metric);
    auto result = test();
    const auto after = etcdMetric(metricsEndpoint, metric);
    if (before && after)
        result.proposals = *after - *before;
    return result;
}

struct BackendResult {
    std::string backend;
    std::string uri;
    Throughput one;
    Throughput many;
    WatchLatency sameStore;
    WatchLatency otherStore;
};

BackendResult runBackend(
    const std::string& backend, const std::string& uri, const std::string& metricsEndpoint, const Options& o)
{
    std::cerr << backend << ": " << uri << "\n";
    BackendResult result { backend, uri, {}, {}, {}, {} };
    auto store = orThrow(core::openStore(uri, true), "opening " + uri);
    // A warm-up commit: the first one creates tables, connections and channels.
    orThrow(store->commit(cas("warmup", 1, 0)), "warm-up commit");
    std::cerr << "  one writer, " << o.ops << " CAS commits...\n";
    result.one = withProposals(metricsEndpoint, [&] { return casThroughput(*store, 1, o.ops, "one"); });
    std::cerr << "  " << o.writers << " writers, " << o.ops << " CAS commits in all...\n";
    result.many
        = withProposals(metricsEndpoint, [&] { return casThroughput(*store, o.writers, o.ops / o.writers, "many"); });
    std::cerr << "  commit -> watch, same store, " << o.watchOps << " commits...\n";
    result.sameStore = watchLatency(*store, *store, o.watchOps, o, "watched");
    auto other = orThrow(core::openStore(uri, false), "opening a second store on " + uri);
    std::cerr << "  commit -> watch, another store object, " << o.watchOps << " commits...\n";
    result.otherStore = watchLatency(*store, *other, o.watchOps, o, "watched");
    return result;
}

void printReport(const std::vector<BackendResult>& results, const Options& o, const std::string& date,
    const std::string& loadBefore, const std::string& loadAfter, const std::string& command)
{
    std::printf("store_compare_bench, %s; %u CPUs; load average before %s, after %s\n", date.c_str(),
        std::thread::hardware_concurrency(), loadBefore.c_str(), loadAfter.c_str());
    std::printf("command: %s\n\n", command.c_str());
    std::printf("%-52s", "");
    for (const auto& r : results)
        std::printf(" %22s", r.backend.c_str());
    std::printf("\n");
    auto row = [&](const std::string& name, auto value) {
        std::printf("%-52s", name.c_str());
        for (const auto& r : results)
            std::printf(" %22s", value(r).c_str());
        std::printf("\n");
    };
    auto fmt = [](const char* format, auto... args) {
        char text[64];
        std::snprintf(text, sizeof text, format, args...);
        return std::string(text);
    };
    row("CAS commits/s, 1 writer (" + std::to_string(o.ops) + " commits)",
        [&](const BackendResult& r) { return fmt("%.0f", r.one.rate()); });
    row("  commit latency p50 / p99 ms",
        [&](const BackendResult& r) { return fmt("%.2f / %.2f", r.one.p50Ms, r.one.p99Ms); });
    row("CAS commits/s, " + std::to_string(o.writers) + " writers, distinct keys",
        [&](const BackendResult& r) { return fmt("%.0f", r.many.rate()); });
    row("  commit latency p50 / p99 ms",
        [&](const BackendResult& r) { return fmt("%.2f / %.2f", r.many.p50Ms, r.many.p99Ms); });
    row("  conflicts (re-read and retried)", [&](const BackendResult& r) { return fmt("%zu", r.many.conflicts); });
    row("etcd Raft proposals per commit, 1 writer / N writers", [&](const BackendResult& r) {
        if (r.one.proposals < 0 || r.many.proposals < 0)
            return std::string("-");
        return fmt("%.2f / %.2f", r.one.proposals / static_cast<double>(std::max<std::size_t>(1, r.one.commits)),
            r.many.proposals / static_cast<double>(std::max<std::size_t>(1, r.many.commits)));
    });
    row("commit -> watch, same store: p50 / p99 ms (n=" + std::to_string(o.watchOps) + ")",
        [&](const BackendResult& r) { return fmt("%.2f / %.2f", r.sameStore.p50Ms, r.sameStore.p99Ms); });
    row("  max ms; commit() p50 ms; return -> callback p50 ms", [&](const BackendResult& r) {
        return fmt("%.2f; %.2f; %.2f", r.sameStore.maxMs, r.sameStore.commitP50Ms, r.sameStore.afterReturnP50Ms);
    });
    row("commit -> watch, other store object: p50 / p99 ms",
        [&](const BackendResult& r) { return fmt("%.2f / %.2f", r.otherStore.p50Ms, r.otherStore.p99Ms); });
    row("  max ms; commit() p50 ms; return -> callback p50 ms", [&](const BackendResult& r) {
        return fmt("%.2f; %.2f; %.2f", r.otherStore.maxMs, r.otherStore.commitP50Ms, r.otherStore.afterReturnP50Ms);
    });
}

nlohmann::json toJson(const Throughput& t)
{
    return { { "commits", t.commits }, { "seconds", t.seconds }, { "commits_per_second", t.rate() },
        { "p50_ms", t.p50Ms }, { "p99_ms", t.p99Ms }, { "conflicts", t.conflicts }, { "etcd_proposals", t.proposals } };
}

nlohmann::json toJson(const WatchLatency& w)
{
    return { { "commits", w.commits }, { "p50_ms", w.p50Ms }, { "p99_ms", w.p99Ms }, { "max_ms", w.maxMs },
        { "after_return_p50_ms", w.afterReturnP50Ms }, { "commit_p50_ms", w.commitP50Ms } };
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app { "Compare-and-set commits per second and commit-to-watch latency of the metadata store, SQLite "
                   "against etcd (a throwaway server on loopback), in one run" };
    Options o;
    app.add_option("--ops", o.ops, "CAS commits of each throughput test (the same for every backend)")
        ->capture_default_str()
        ->check(CLI::Range(10, 10000000));
    app.add_option("--watch-ops", o.watchOps, "Commits of each watch-latency test")
        ->capture_default_str()
        ->check(CLI::Range(10, 1000000));
    app.add_option("--writers", o.writers, "Concurrent writers of the second throughput test")
        ->capture_default_str()
        ->check(CLI::Range(1, 256));
    app.add_option("--max-pause-us", o.maxPauseMicros, "Random pause before each watch-latency commit, up to this")
        ->capture_default_str();
    app.add_option("--backends", o.backends, "Backends to run, in this order (sqlite, etcd)")
        ->capture_default_str()
        ->check(CLI::IsMember({ "sqlite", "etcd" }));
    app.add_option("--etcd-endpoint", o.etcdEndpoint, "HOST:PORT of a running etcd to use instead of starting one");
    app.add_option("--seed", o.seed, "Seed of the random pauses")->capture_default_str();
    app.add_flag("--json", o.json, "Also print a JSON summary");
    CLI11_PARSE(app, argc, argv);
    std::string command = "store_compare_bench";
    for (int i = 1; i < argc; ++i)
        command += std::string(" ") + argv[i];

    const std::string date = utcNow();
    const std::string loadBefore = loadAverage();
    std::vector<BackendResult> results;
    try {
        shardmap::testing::TempDir dir;
        std::unique_ptr<shardmap::testing::EtcdProcess> etcd;
        for (const auto& backend : o.backends) {
            std::string uri;
            std::string metricsEndpoint;
            if (backend == "sqlite") {
                uri = "sqlite:" + dir.file("map.db");
            } else {
                std::string endpoint = o.etcdEndpoint;
                if (endpoint.empty()) {
                    std::string error;
                    etcd = shardmap::testing::EtcdProcess::start(error);
                    if (!etcd)
                        throw std::runtime_error("cannot start etcd: " + error);
                    endpoint = etcd->endpoint();
                }
                metricsEndpoint = endpoint;
                uri = "etcd://" + endpoint + "/store-compare-bench-" + std::to_string(std::random_device {}());
            }
            results.push_back(runBackend(backend, uri, metricsEndpoint, o));
        }
    } catch (const std::exception& error) {
        std::cerr << "store_compare_bench: " << error.what() << "\n";
        return 1;
    }
    const std::string loadAfter = loadAverage();
    printReport(results, o, date, loadBefore, loadAfter, command);
    if (o.json) {
        nlohmann::json out;
        out["date"] = date;
        out["load_before"] = loadBefore;
        out["load_after"] = loadAfter;
        out["command"] = command;
        for (const auto& r : results)
            out["backends"].push_back({ { "backend", r.backend }, { "uri", r.uri }, { "one_writer", toJson(r.one) },
                { "writers", toJson(r.many) }, { "watch_same_store", toJson(r.sameStore) },
                { "watch_other_store", toJson(r.otherStore) } });
        std::cout << out.dump(2) << std::endl;
    }
    return 0;
}
