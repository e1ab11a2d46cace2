// snapshot_bench: a shard's snapshot against a plain file copy, and a node's write latency while
// it takes one (issue 32), on one real shardmap-node it starts.
//
// 1. Loads one shard with --docs corpus documents (one space per corpus space, epoch 1).
// 2. Snapshot rate, --rounds times: SnapshotShard into a fresh folder with the fleet's default
//    pause (--pause-ms) and with none, against `cp` of the snapshot file to the same disk, and
//    `cp` + `sync FILE` (the snapshot fsyncs its file; cp does not), side by side in each round.
//    The snapshot also hashes the file (XXH3-128).
// 3. Write latency: one writer writes one document per BulkWrite call, sequentially, for
//    --seconds while the node is idle, then for --seconds while it takes snapshots back to back,
//    then idle again; p50 / p99 / max of each window and the ratio of the snapshot window's p99
//    to the idle windows' (both idle windows pooled, so that a drift of the machine shows in
//    neither alone).
//
// Nothing here asserts on timings; the program reports and exits 0 unless something failed.

#include "bench/bench_main.h"
#include "bench/bench_process.h"
#include "bench/bench_report.h"
#include "bench/corpus.h"
#include "core/client/node_client.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <thread>

using namespace shardmap;
using namespace shardmap::bench;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
    std::string nodeBinary = SHARDMAP_NODE_BINARY;
    std::size_t docs = 60000;
    std::uint32_t pauseMs = 5;
    int seconds = 4;
    int rounds = 5;
    std::string workDir;
};

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

void load(core::NodeClient& node, const Options& options)
{
    const Corpus corpus({});
    for (std::size_t s = 0; s < corpus.options().spaces; ++s) {
        auto owned = node.setOwnership("s0", { corpus.spaceName(s), core::SpaceRole::Owner, 1 });
        if (!owned)
            throw std::runtime_error("ownership: " + owned.error().describe());
    }
    for (std::size_t first = 0; first < options.docs; first += 1000) {
        std::vector<core::WriteItem> items;
        for (const BenchDoc& doc : generateDocs(corpus, first, std::min<std::size_t>(1000, options.docs - first), 2))
            items.push_back({ { doc.space, doc.id, 1, { { "title", doc.title }, { "body", doc.body } }, false }, 1 });
        auto written = node.bulkWrite("s0", items);
        if (!written)
            throw std::runtime_error("loading: " + written.error().describe());
    }
}

// One snapshot of s0 into repository/<folder>/s0.db: seconds and bytes.
std::pair<double, std::uint64_t> snapshot(
    core::NodeClient& node, const std::string& repository, const std::string& folder, std::uint32_t pauseMs)
{
    std::filesystem::create_directories(repository + "/" + folder);
    const auto start = Clock::now();
    auto copied = node.snapshotShard({ "s0", repository, folder + "/s0.db", pauseMs });
    if (!copied)
        throw std::runtime_error("snapshot: " + copied.error().describe());
    return { secondsSince(start), copied->digest.bytes };
}

double timedShell(const std::string& command)
{
    const auto start = Clock::now();
    if (std::system(command.c_str()) != 0)
        throw std::runtime_error("failed: " + command);
    return secondsSince(start);
}

// Write latencies (ms) of one writer for `seconds`, while during() runs on another thread (it is
// told to stop when the window ends).
std::vector<double> writeWindow(core::NodeClient& node, int seconds, std::uint64_t& nextId,
    const std::function<void(const std::atomic<bool>&)>& during)
{
    std::atomic<bool> stop { false };
    std::string sideError;
    std::thread side([&] {
        try {
            during(stop);
        } catch (const std::exception& error) {
            sideError = error.what();
        }
    });
    std::vector<double> latencies;
    std::string writeError;
    static const std::string space = Corpus({}).spaceName(0);
    const auto end = Clock::now() + std::chrono::seconds(seconds);
    while (Clock::now() < end && writeError.empty()) {
        const std::string id = "w" + std::to_string(nextId++);
        const auto start = Clock::now();
        auto written = node.bulkWrite(
            "s0", { { { space, id, 1, { { "title", "latency probe" }, { "body", "one more " + id } } }, 1 } });
        if (!written)
            writeError = "write: " + written.error().describe();
        latencies.push_back(secondsSince(start) * 1000.0);
    }
    stop = true;
    side.join();
    if (!writeError.empty() || !sideError.empty())
        throw std::runtime_error(writeError + sideError);
    return latencies;
}

void printWindow(const char* name, const std::vector<double>& ms)
{
    std::printf("  %-22s %7zu writes  p50 %6.2f ms  p99 %6.2f ms  max %7.2f ms\n", name, ms.size(), percentile(ms, 0.5),
        percentile(ms, 0.99), ms.empty() ? 0.0 : *std::max_element(ms.begin(), ms.end()));
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return values.empty() ? 0.0 : values[values.size() / 2];
}

// --rounds rounds of: a snapshot with the default pause, one without, cp and cp + sync of the
// round's file; the four side by side in each round (the disk's write speed drifts over a run),
// and the medians of each round's ratios.
void measureRate(
    core::NodeClient& node, const std::string& repository, const std::filesystem::path& dir, const Options& options)
{
    std::vector<double> toCp;
    std::vector<double> toCpSync;
    double mb = 0;
    std::printf("shard file: (%zu documents); per round: snapshot paced, unpaced, cp, cp + sync\n", options.docs);
    for (int round = 0; round < options.rounds; ++round) {
        const std::string tag = std::to_string(round);
        const auto [paced, bytes] = snapshot(node, repository, "paced" + tag, options.pauseMs);
        const double unpaced = snapshot(node, repository, "unpaced" + tag, 0).first;
        const std::string file = repository + "/unpaced" + tag + "/s0.db";
        const std::string copy = (dir / ("cp" + tag + ".db")).string();
        const std::string synced = (dir / ("cps" + tag + ".db")).string();
        const double cp = timedShell("cp '" + file + "' '" + copy + "'");
        const double cpSync = timedShell("cp '" + file + "' '" + synced + "' && sync '" + synced + "'");
        mb = static_cast<double>(bytes) / 1e6;
        std::printf("  round %d: %6.3f s  %6.3f s  %6.3f s  %6.3f s   %.1f MB   paced / cp %.2fx, / cp + sync %.2fx\n",
            round + 1, paced, unpaced, cp, cpSync, mb, cp / paced, cpSync / paced);
        toCp.push_back(cp / paced);
        toCpSync.push_back(cpSync / paced);
        for (const std::string& path : { file, copy, synced, repository + "/paced" + tag + "/s0.db" })
            std::filesystem::remove(path);
    }
    std::printf("  snapshot rate (default pace) / cp: median %.2fx; / cp + sync: median %.2fx (%d rounds)\n",
        median(toCp), median(toCpSync), options.rounds);
}

void measureLatency(core::NodeClient& node, const std::string& repository, const Options& options)
{
    std::uint64_t nextId = 0;
    const auto idle = [](const std::atomic<bool>&) {};
    int taken = 0;
    const auto snapshots = [&](const std::atomic<bool>& stop) {
        while (!stop)
            snapshot(node, repository, "during" + std::to_string(taken++), options.pauseMs);
    };
    auto before = writeWindow(node, options.seconds, nextId, idle);
    const auto during = writeWindow(node, options.seconds, nextId, snapshots);
    const auto after = writeWindow(node, options.seconds, nextId, idle);
    printWindow("idle (before)", before);
    printWindow("during snapshots", during);
    printWindow("idle (after)", after);
    before.insert(before.end(), after.begin(), after.end());
    std::printf("  %d snapshots taken; write p99 during / idle: %.2f\n", taken,
        percentile(during, 0.99) / percentile(before, 0.99));
}

void run(const std::filesystem::path& dir, const Options& options)
{
    auto node
        = ServerProcess::start({ options.nodeBinary, "--listen", "127.0.0.1:0", "--data-dir", (dir / "node").string() },
            (dir / "node.log").string());
    core::NodeClientOptions clientOptions;
    clientOptions.callTimeout = std::chrono::seconds(120);
    auto client = core::GrpcNodeClient::connect(node->address(), clientOptions);
    if (!client)
        throw std::runtime_error(client.error().describe());
    auto created = (*client)->createShard("s0", {});
    if (!created)
        throw std::runtime_error("create shard: " + created.error().describe());
    load(**client, options);
    const std::string repository = (dir / "repo").string();
    std::filesystem::create_directories(repository);
    std::printf("snapshot_bench on %s, load %s, %s\n", cpuModel().c_str(), loadAverage().c_str(), utcNow().c_str());
    measureRate(**client, repository, dir, options);
    measureLatency(**client, repository, options);
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app { "A shard's snapshot against cp, and write latency during snapshots (issue 32)" };
    Options options;
    app.add_option("--node-binary", options.nodeBinary, "shardmap-node to start")->capture_default_str();
    app.add_option("--docs", options.docs, "Documents in the shard")->capture_default_str();
    app.add_option("--pause-ms", options.pauseMs, "Pause between backup steps (the setting)")->capture_default_str();
    app.add_option("--rounds", options.rounds, "Rounds of the rate measurement")
        ->check(CLI::Range(1, 100))
        ->capture_default_str();
    app.add_option("--seconds", options.seconds, "Length of each write window")->capture_default_str();
    app.add_option("--work-dir", options.workDir, "Where the work directory goes (default: the temp dir)");
    CLI11_PARSE(app, argc, argv);
    std::cout << joinCommand(argc, argv) << "\n";
    std::filesystem::path dir;
    const bool ok = measureInWorkDir("snapshot_bench", options.workDir, "snapshot-bench", dir,
        [&](const std::filesystem::path& work) { run(work, options); });
    if (ok)
        std::filesystem::remove_all(dir);
    return ok ? 0 : 1;
}
