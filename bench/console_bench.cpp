// console_bench: the console at scale (issue 6). It starts a fleet of real shardmap-node processes
// on loopback (--nodes, default 50, with --shards-per-node shards each, default 40), writes a few
// documents to some shards, and writes an SQLite shard map listing them with --spaces spaces
// (default 100,000) spread Zipf-like over the shards. Then, in this process, with the offscreen Qt
// platform, it opens the console's MainWindow on that map (1600x1000) and measures:
//
// 1. Time to first full paint: from MainWindow::connectTo() until the fleet page's model has every
//    node row and every shard row, every node has delivered a metrics sample, and the fleet tree's
//    viewport has painted after that (an event filter on its Paint events; the bench asks for one
//    update once the model is complete). Phases on the way are reported too (store connected,
//    first map, every node sampled, model complete).
// 2. UI-thread stalls while metrics stream at 1 Hz for --stream-seconds: a 1 ms precise timer on
//    the UI thread records the gap between its firings (max, p99, gaps over 50 ms). The same timer
//    runs during the load, whose gaps are reported separately. An instrumented
//    QApplication::notify() times every outermost event the UI thread handles, so the report can
//    say what the UI thread spent its time on (posted callbacks such as samples and maps, paints,
//    timers) and which events were the longest.
// 3. MainWindow::findSpace() of --finds random spaces: the time until it returns.
// 4. RSS: this process's VmRSS and VmHWM from /proc/self/status (the peak is reset after seeding,
//    so it is the console's), and the nodes' total VmRSS.
// 5. The planner wizard (issue 12; --no-wizard skips it), after the figures above are taken: a few
//    spaces on the shards with the most spaces get documents (--wizard-hot-*), so that the fleet is
//    lopsided in bytes and docs; then MainWindow::openWizard(Rebalance) and next() to the preview,
//    which reads the fleet's figures and plans on the connection's pool. Measured: the time until
//    the first plan is in the wizard (planReady) and its moves table has painted, split into the
//    figures read and the plan; then the same for setBand() and setMaxMoves() (each re-plans after
//    the page's 250 ms debounce); the moves and the plan's largest-over-mean before and after; and
//    the probe's UI-thread gaps in each step. --wizard-only measures the same on a FleetConnection
//    without the MainWindow (and without phases 2-4): the wizard's own cost, without the pages'.
//
// Every child gets PR_SET_PDEATHSIG (tests/support/process.cpp) and --exit-with-parent, and is
// stopped with SIGTERM (then SIGKILL) at the end. Nothing asserts on timings. Results:
// docs/BENCHMARKS.md, "The console at scale (issue 6)".

#include "bench/bench_report.h"
#include "core/client/node_client.h"
#include "core/map/map_editor.h"
#include "core/map/shard_map.h"
#include "core/store/metadata_store.h"
#include "tests/support/process.h"
#include "widgets/alerts/alerts_page.h"
#include "widgets/console/main_window.h"
#include "widgets/detail/detail_page.h"
#include "widgets/fleet/fleet_model.h"
#include "widgets/fleet/fleet_page.h"
#include "widgets/map/map_page.h"
#include "widgets/overview/overview_page.h"
#include "widgets/session/connection_spec.h"
#include "widgets/session/fleet_connection.h"
#include "widgets/style/theme.h"
#include "widgets/wizards/plan_moves_model.h"
#include "widgets/wizards/plan_wizard.h"

#include <CLI/CLI.hpp>
#include <QAbstractItemModel>
#include <QApplication>
#include <QElapsedTimer>
#include <QEvent>
#include <QEventLoop>
#include <QPointer>
#include <QTableView>
#include <QTimer>
#include <QTreeView>
#include <QWizardPage>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <malloc.h>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

namespace core = shardmap::core;
namespace widgets = shardmap::widgets;
using shardmap::bench::loadAverage;
using shardmap::bench::percentile;
using shardmap::bench::utcNow;
using shardmap::testing::ChildProcess;
using Clock = std::chrono::steady_clock;

struct Options {
    std::size_t nodes = 50;
    std::size_t shardsPerNode = 40;
    std::size_t spaces = 100000;
    double zipf = 0.7;
    std::size_t docsPerShard = 20;
    std::size_t docShardEvery = 4;
    std::size_t spaceBatch = 5000;
    int streamSeconds = 60;
    int churnSeconds = 20;
    double churnPerSecond = 2;
    std::size_t churnMoves = 1;
    // The page shown while metrics stream and the map changes (the first paint is the fleet
    // page's): "fleet", "map" (the shard map view, one tile per space), "overview" or "alerts".
    std::string streamPage = "fleet";
    int metricsIntervalMs = 1000;
    int historyIntervalMs = 1000;
    int nodeNice = 0;
    // Issue 16's targets at 10,000 shards and a million spaces.
    double paintBudgetMs = 3000;
    double rssBudgetMib = 1536;
    int loadTimeoutSeconds = 120;
    std::size_t finds = 10;
    double stallMs = 50;
    unsigned seedThreads = 8;
    std::uint64_t seed = 42;
    std::size_t longest = 8;
    std::string nodeBinary = SHARDMAP_NODE_BINARY;
    std::string workDir;
    bool seedOnly = false;
    bool keepFleet = false;
    bool keepData = false;
    bool json = false;
    // The planner wizard (issue 12): hot spaces seeded before it opens, then the re-plans.
    bool wizard = true;
    bool wizardOnly = false;
    std::size_t hotShards = 10;
    std::size_t hotSpaces = 40;
    std::size_t hotDocs = 20;
    double wizardBand = 0.2;
    int wizardMaxMoves = 100;
    int wizardTimeoutSeconds = 300;
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

double millisSince(Clock::time_point start)
{
    return millisBetween(start, Clock::now());
}

// ---------------------------------------------------------------------------------------------
// Memory and machine facts

// A "VmRSS:" style field of /proc/<pid>/status, in bytes (0 if absent).
std::uint64_t statusBytes(const std::string& statusFile, const std::string& field)
{
    std::ifstream in(statusFile);
    std::string line;
    while (std::getline(in, line)) {
        if (line.starts_with(field + ":")) {
            std::istringstream values(line.substr(field.size() + 1));
            std::uint64_t kb = 0;
            values >> kb;
            return kb * 1024;
        }
    }
    return 0;
}

std::uint64_t selfStatus(const std::string& field)
{
    return statusBytes("/proc/self/status", field);
}

// Resets VmHWM to the current RSS (Linux 4.0+), so the peak reported is the console's, not the
// seeding's.
bool resetPeakRss()
{
    std::ofstream out("/proc/self/clear_refs");
    out << "5";
    out.flush();
    return static_cast<bool>(out);
}

double mib(std::uint64_t bytes)
{
    return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

std::string cpuModel()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.starts_with("model name")) {
            const auto colon = line.find(':');
            return colon == std::string::npos ? line : line.substr(colon + 2);
        }
    }
    return "unknown CPU";
}

// ---------------------------------------------------------------------------------------------
// Seeding: the nodes, their shards and documents, the shard map

struct Node {
    std::string id;
    std::string address;
    std::vector<std::string> shards;
    std::optional<ChildProcess> process;
};

struct Fleet {
    std::filesystem::path dir;
    std::string storeUri;
    std::vector<Node> nodes;
    // The space -> shard assignment, by shard index (node * shardsPerNode + shard).
    std::vector<std::uint32_t> spaceShard;
    std::size_t docsWritten = 0;
    std::size_t shardsWithDocs = 0;
};

struct SeedTimes {
    double nodesMs = 0; // spawn -> every node listening
    double shardsMs = 0; // createShard on every node, and the documents
    double mapMs = 0; // nodes, shards and spaces committed
    double totalMs = 0;
};

std::string spaceId(std::size_t i)
{
    char text[32];
    std::snprintf(text, sizeof text, "space-%06zu", i);
    return text;
}

std::string nodeId(std::size_t i)
{
    char text[32];
    std::snprintf(text, sizeof text, "n%02zu", i);
    return text;
}

std::string shardId(std::size_t node, std::size_t shard)
{
    char text[32];
    std::snprintf(text, sizeof text, "n%02zu-s%02zu", node, shard);
    return text;
}

// Runs work(i) for i in [0, count) on up to `threads` threads; rethrows the first failure.
void parallelFor(std::size_t count, unsigned threads, const std::function<void(std::size_t)>& work)
{
    std::atomic<std::size_t> next { 0 };
    std::mutex mutex;
    std::exception_ptr failure;
    std::vector<std::thread> pool;
    const auto n = std::max(1U, std::min<unsigned>(threads, static_cast<unsigned>(count)));
    for (unsigned t = 0; t < n; ++t) {
        pool.emplace_back([&] {
            for (;;) {
                const std::size_t i = next.fetch_add(1);
                if (i >= count)
                    return;
                {
                    const std::lock_guard lock(mutex);
                    if (failure)
                        return;
                }
                try {
                    work(i);
                } catch (...) {
                    const std::lock_guard lock(mutex);
                    if (!failure)
                        failure = std::current_exception();
                }
            }
        });
    }
    for (auto& thread : pool)
        thread.join();
    if (failure)
        std::rethrow_exception(failure);
}

// Spaces over shards: Zipf-like with exponent `zipf` (0: uniform) over the shards in a shuffled
// order, so that the large shards are spread over the nodes.
std::vector<std::uint32_t> assignSpaces(std::size_t spaces, std::size_t shards, double zipf, std::uint64_t seed)
{
    std::mt19937_64 random(seed);
    std::vector<std::uint32_t> order(shards);
    for (std::size_t i = 0; i < shards; ++i)
        order[i] = static_cast<std::uint32_t>(i);
    std::shuffle(order.begin(), order.end(), random);
    std::vector<double> weights(shards);
    for (std::size_t rank = 0; rank < shards; ++rank)
        weights[order[rank]] = 1.0 / std::pow(static_cast<double>(rank + 1), zipf);
    std::discrete_distribution<std::size_t> pick(weights.begin(), weights.end());
    std::vector<std::uint32_t> assignment(spaces);
    for (auto& shard : assignment)
        shard = static_cast<std::uint32_t>(pick(random));
    return assignment;
}

void startNodes(Fleet& fleet, const Options& o)
{
    // Spawned from this (the main) thread: PR_SET_PDEATHSIG fires when the thread that forked
    // exits, so children of a short-lived worker thread would die with it.
    fleet.nodes.resize(o.nodes);
    for (std::size_t i = 0; i < o.nodes; ++i) {
        auto& node = fleet.nodes[i];
        node.id = nodeId(i);
        const auto dataDir = (fleet.dir / node.id).string();
        std::vector<std::string> command;
        if (o.nodeNice != 0) {
            // nice execs the node in its own process: every thread the node starts inherits it.
            command = { "/usr/bin/nice", "-n", std::to_string(o.nodeNice) };
        }
        command.insert(command.end(),
            { o.nodeBinary, "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--node-id", node.id, "--min-free-bytes",
                "0", "--history-interval-ms", std::to_string(o.historyIntervalMs), "--exit-with-parent" });
        auto child = ChildProcess::spawn(command, dataDir + ".log");
        if (!child)
            throw std::runtime_error("cannot start " + o.nodeBinary);
        node.process.emplace(std::move(*child));
    }
    parallelFor(o.nodes, o.seedThreads, [&](std::size_t i) {
        auto& node = fleet.nodes[i];
        const auto line = node.process->readLine(std::chrono::seconds(60));
        const std::string prefix = "listening on ";
        if (!line || !line->starts_with(prefix))
            throw std::runtime_error(
                node.id + " did not report its address; see " + (fleet.dir / (node.id + ".log")).string());
        node.address = line->substr(prefix.size());
    });
}

void createShards(Fleet& fleet, const Options& o)
{
    // The first space of every shard (by index) gets the shard's documents.
    std::vector<std::int64_t> firstSpace(o.nodes * o.shardsPerNode, -1);
    for (std::size_t i = 0; i < fleet.spaceShard.size(); ++i) {
        auto& first = firstSpace[fleet.spaceShard[i]];
        if (first < 0)
            first = static_cast<std::int64_t>(i);
    }
    std::atomic<std::size_t> docs { 0 };
    std::atomic<std::size_t> shardsWithDocs { 0 };
    parallelFor(o.nodes, o.seedThreads, [&](std::size_t n) {
        auto& node = fleet.nodes[n];
        auto client = orThrow(core::GrpcNodeClient::connect(node.address, {}), "connecting to " + node.id);
        for (std::size_t s = 0; s < o.shardsPerNode; ++s) {
            const std::string shard = shardId(n, s);
            orThrow(client->createShard(shard, {}), "CreateShard " + shard);
            node.shards.push_back(shard);
            const std::size_t index = n * o.shardsPerNode + s;
            if (o.docsPerShard == 0 || o.docShardEvery == 0 || index % o.docShardEvery != 0 || firstSpace[index] < 0)
                continue;
            const std::string space = spaceId(static_cast<std::size_t>(firstSpace[index]));
            orThrow(client->setOwnership(shard, { space, core::SpaceRole::Owner, 1 }), "SetOwnership " + space);
            std::vector<core::WriteItem> items;
            for (std::size_t d = 0; d < o.docsPerShard; ++d) {
                const std::string id = "doc-" + std::to_string(d);
                items.push_back({ core::Document { space, id, 1,
                                      { { "title", "document " + std::to_string(d) + " of " + space },
                                          { "body", "a few words about " + shard + " and search fleets at scale" } },
                                      false },
                    1 });
            }
            const auto written = orThrow(client->bulkWrite(shard, items), "BulkWrite to " + shard);
            docs += written.applied;
            ++shardsWithDocs;
        }
    });
    fleet.docsWritten = docs;
    fleet.shardsWithDocs = shardsWithDocs;
}

void writeMap(Fleet& fleet, const Options& o)
{
    fleet.storeUri = "sqlite:" + (fleet.dir / "map.db").string();
    auto store = orThrow(core::openStore(fleet.storeUri, true), "creating the store " + fleet.storeUri);
    const core::Actor actor { "console_bench", "benchmark fleet" };
    core::MapEditor editor(*store);
    for (const auto& node : fleet.nodes)
        orThrow(editor.addNode({ node.id, node.address, {}, false }, actor), "adding node " + node.id);
    // Shards: one commit per node with the records MapEditor::addShard would write (2,000 editor
    // calls would each decode a fresh snapshot first).
    for (const auto& node : fleet.nodes) {
        core::CommitRequest request;
        request.actor = actor.name;
        request.action = "bench-add-shards";
        request.reason = actor.reason;
        for (const auto& shard : node.shards)
            request.mutations.push_back(core::Mutation { core::keys::shard(shard),
                core::encode(core::ShardRecord { shard, node.id, core::ShardState::Active, 0, 0 }), 0 });
        orThrow(store->commit(request), "adding the shards of " + node.id);
    }
    // Spaces, in batches.
    for (std::size_t from = 0; from < fleet.spaceShard.size(); from += o.spaceBatch) {
        core::CommitRequest request;
        request.actor = actor.name;
        request.action = "bench-create-spaces";
        request.reason = actor.reason;
        const auto to = std::min(fleet.spaceShard.size(), from + o.spaceBatch);
        request.mutations.reserve(to - from);
        for (std::size_t i = from; i < to; ++i) {
            const std::size_t shard = fleet.spaceShard[i];
            core::SpaceRecord record;
            record.id = spaceId(i);
            record.shard = shardId(shard / o.shardsPerNode, shard % o.shardsPerNode);
            record.epoch = 1;
            request.mutations.push_back(core::Mutation { core::keys::space(record.id), core::encode(record), {} });
        }
        orThrow(store->commit(request), "creating spaces " + std::to_string(from) + "..");
    }
}

SeedTimes seedFleet(Fleet& fleet, const Options& o)
{
    SeedTimes times;
    const auto start = Clock::now();
    fleet.spaceShard = assignSpaces(o.spaces, o.nodes * o.shardsPerNode, o.zipf, o.seed);
    startNodes(fleet, o);
    times.nodesMs = millisSince(start);
    auto step = Clock::now();
    createShards(fleet, o);
    times.shardsMs = millisSince(step);
    step = Clock::now();
    writeMap(fleet, o);
    times.mapMs = millisSince(step);
    times.totalMs = millisSince(start);
    return times;
}

// The planner wizard's lopsided fleet: on the --wizard-hot-shards shards with the most spaces,
// --wizard-hot-spaces spaces each get documents (hotDocs/2 to hotDocs/2 + hotDocs - 1 each,
// varied), so those shards hold many times their share of bytes and docs and a rebalance has
// moves to make. Only the nodes' data changes; the map already lists these spaces there.
struct HotSeed {
    std::size_t shards = 0;
    std::size_t spaces = 0;
    std::size_t docs = 0;
    std::size_t mostMapSpaces = 0; // spaces the map lists on the hot shards: the most and the fewest
    std::size_t fewestMapSpaces = 0;
    double ms = 0;
};

HotSeed seedHotSpaces(const Fleet& fleet, const Options& o)
{
    HotSeed seed;
    const auto start = Clock::now();
    const std::size_t shards = o.nodes * o.shardsPerNode;
    std::vector<std::vector<std::size_t>> spacesOn(shards);
    for (std::size_t i = 0; i < fleet.spaceShard.size(); ++i)
        spacesOn[fleet.spaceShard[i]].push_back(i);
    std::vector<std::size_t> order(shards);
    std::iota(order.begin(), order.end(), std::size_t { 0 });
    std::stable_sort(order.begin(), order.end(),
        [&](std::size_t a, std::size_t b) { return spacesOn[a].size() > spacesOn[b].size(); });
    order.resize(std::min(o.hotShards, shards));
    if (order.empty() || o.hotSpaces == 0 || o.hotDocs == 0)
        return seed;
    seed.shards = order.size();
    seed.mostMapSpaces = spacesOn[order.front()].size();
    seed.fewestMapSpaces = spacesOn[order.back()].size();
    std::atomic<std::size_t> docs { 0 };
    std::atomic<std::size_t> spaces { 0 };
    parallelFor(order.size(), o.seedThreads, [&](std::size_t k) {
        const std::size_t index = order[k];
        const std::size_t n = index / o.shardsPerNode;
        const std::string shard = shardId(n, index % o.shardsPerNode);
        auto client = orThrow(core::GrpcNodeClient::connect(fleet.nodes[n].address, {}), "connecting to " + nodeId(n));
        // The first space of a shard that got the seeding's documents has them already.
        const bool seeded = o.docsPerShard > 0 && o.docShardEvery > 0 && index % o.docShardEvery == 0;
        std::vector<core::WriteItem> items;
        std::size_t taken = 0;
        for (std::size_t j = seeded ? 1 : 0; j < spacesOn[index].size() && taken < o.hotSpaces; ++j, ++taken) {
            const std::string space = spaceId(spacesOn[index][j]);
            orThrow(client->setOwnership(shard, { space, core::SpaceRole::Owner, 1 }), "SetOwnership " + space);
            const std::size_t count = o.hotDocs / 2 + (taken * 7) % o.hotDocs;
            for (std::size_t d = 0; d < count; ++d) {
                const std::string id = "doc-" + std::to_string(d);
                items.push_back({ core::Document { space, id, 1,
                                      { { "title", "document " + std::to_string(d) + " of " + space },
                                          { "body", "a hot space on " + shard + ", for the planner to move" } },
                                      false },
                    1 });
            }
        }
        if (!items.empty())
            docs += orThrow(client->bulkWrite(shard, items), "BulkWrite to " + shard).applied;
        spaces += taken;
    });
    seed.docs = docs;
    seed.spaces = spaces;
    seed.ms = millisSince(start);
    return seed;
}

std::uint64_t nodesRss(const Fleet& fleet)
{
    std::uint64_t total = 0;
    for (const auto& node : fleet.nodes) {
        if (node.process)
            total += statusBytes("/proc/" + std::to_string(node.process->pid()) + "/status", "VmRSS");
    }
    return total;
}

void stopFleet(Fleet& fleet)
{
    for (auto& node : fleet.nodes) {
        if (node.process)
            node.process->signal(SIGTERM);
    }
    for (auto& node : fleet.nodes) {
        if (!node.process)
            continue;
        if (!node.process->wait(std::chrono::seconds(15))) {
            std::cerr << "console_bench: " << node.id << " did not stop on SIGTERM; killing it\n";
            node.process->signal(SIGKILL);
            (void)node.process->wait(std::chrono::seconds(5));
        }
        node.process.reset(); // SIGKILLs it if it is still there
    }
}

// ---------------------------------------------------------------------------------------------
// Measuring the console

// What the UI thread spends its time on: every outermost event it handles, timed.
struct EventStats {
    double totalMs = 0;
    std::size_t count = 0;
    double maxMs = 0;
};

struct LongEvent {
    double atMs = 0; // since connectTo()
    double ms = 0;
    std::string what;
};

class TimedApplication final : public QApplication {
public:
    TimedApplication(int& argc, char** argv)
        : QApplication(argc, argv)
    {
    }

    bool notify(QObject* receiver, QEvent* event) override
    {
        if (m_depth > 0 || !m_recording)
            return nestedNotify(receiver, event);
        const auto type = event->type();
        const bool appCallback = receiver == this && type == QEvent::MetaCall;
        // An event can delete its receiver (DeferredDelete): described afterwards only if alive.
        const QPointer<QObject> alive(receiver);
        const auto start = Clock::now();
        m_tag = nullptr;
        const bool result = nestedNotify(receiver, event);
        const double ms = millisSince(start);
        const std::string kind
            = m_tag != nullptr ? std::string("posted callbacks: ") + m_tag : kindOf(type, appCallback);
        auto& stats = m_byKind[kind];
        stats.totalMs += ms;
        ++stats.count;
        stats.maxMs = std::max(stats.maxMs, ms);
        m_busyMs += ms;
        if (ms >= m_longThresholdMs) {
            m_long.push_back({ millisBetween(m_origin, start), ms,
                m_tag != nullptr ? std::string("posted callback: ") + m_tag
                                 : describe(alive.data(), type, appCallback) });
        }
        return result;
    }

    void startRecording(Clock::time_point origin, double longThresholdMs)
    {
        m_origin = origin;
        m_longThresholdMs = longThresholdMs;
        m_recording = true;
    }
    // Names the outermost event being handled (a slot of the bench calls it: "node sample").
    void tagCurrentEvent(const char* tag) { m_tag = tag; }
    // Takes the figures gathered since the last call.
    std::map<std::string, EventStats> takeStats() { return std::exchange(m_byKind, {}); }
    std::vector<LongEvent> takeLongEvents() { return std::exchange(m_long, {}); }
    double takeBusyMs() { return std::exchange(m_busyMs, 0.0); }

private:
    bool nestedNotify(QObject* receiver, QEvent* event)
    {
        ++m_depth;
        struct Leave {
            int& depth;
            ~Leave() { --depth; }
        } leave { m_depth };
        return QApplication::notify(receiver, event);
    }

    static std::string kindOf(QEvent::Type type, bool appCallback)
    {
        if (appCallback)
            return "posted callbacks: other results";
        switch (type) {
        case QEvent::UpdateRequest:
        case QEvent::UpdateLater:
        case QEvent::Paint: return "paint";
        case QEvent::Timer: return "timers";
        case QEvent::MetaCall: return "queued calls to widgets";
        case QEvent::LayoutRequest: return "layout";
        default: return "other";
        }
    }

    static std::string describe(QObject* receiver, QEvent::Type type, bool appCallback)
    {
        std::string text = appCallback ? "posted callback" : "event " + std::to_string(static_cast<int>(type));
        if (type == QEvent::UpdateRequest)
            text = "UpdateRequest (paint)";
        else if (type == QEvent::Timer)
            text = "Timer";
        else if (type == QEvent::MetaCall && !appCallback)
            text = "MetaCall";
        else if (type == QEvent::LayoutRequest)
            text = "LayoutRequest";
        if (receiver != nullptr) {
            text += std::string(" to ") + receiver->metaObject()->className();
            if (!receiver->objectName().isEmpty())
                text += " \"" + receiver->objectName().toStdString() + "\"";
        }
        return text;
    }

    int m_depth = 0;
    bool m_recording = false;
    Clock::time_point m_origin;
    double m_longThresholdMs = 20;
    double m_busyMs = 0;
    const char* m_tag = nullptr;
    std::map<std::string, EventStats> m_byKind;
    std::vector<LongEvent> m_long;
};

// The UI thread's time on a CPU and waiting for one (run queue), from
// /proc/thread-self/schedstat, in ms. On a shared machine a long gap of the timer below can be
// time this thread was runnable but not scheduled; this tells the two apart.
class SchedStat {
public:
    SchedStat()
        : m_fd(::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC))
    {
    }
    ~SchedStat()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    SchedStat(const SchedStat&) = delete;
    SchedStat& operator=(const SchedStat&) = delete;

    struct Value {
        double cpuMs = 0;
        double waitMs = 0;
    };
    std::optional<Value> read() const
    {
        if (m_fd < 0)
            return std::nullopt;
        char text[128];
        const ssize_t got = ::pread(m_fd, text, sizeof text - 1, 0);
        if (got <= 0)
            return std::nullopt;
        text[got] = '\0';
        unsigned long long cpuNs = 0;
        unsigned long long waitNs = 0;
        if (std::sscanf(text, "%llu %llu", &cpuNs, &waitNs) != 2)
            return std::nullopt;
        return Value { static_cast<double>(cpuNs) / 1e6, static_cast<double>(waitNs) / 1e6 };
    }

private:
    int m_fd = -1;
};

// One gap between two firings of the probe's timer: its length, and how much of it the UI
// thread spent on a CPU and waiting in the run queue (-1: unknown).
struct Gap {
    double ms = 0;
    double cpuMs = -1;
    double waitMs = -1;
    double atMs = 0; // since the probe's origin
};

// The gaps between firings of a 1 ms timer on the UI thread.
class StallProbe {
public:
    explicit StallProbe(Clock::time_point origin)
        : m_origin(origin)
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(1);
        QObject::connect(&m_timer, &QTimer::timeout, [this] { record(); });
    }
    void start()
    {
        m_last = Clock::now();
        m_lastStat = m_sched.read();
        m_timer.start();
    }
    // Takes the gaps recorded so far, closed by the gap from the last firing to now (a window in
    // which the timer never fired is one gap as long as the window), and starts a new series.
    std::vector<Gap> take()
    {
        record();
        return std::exchange(m_gaps, {});
    }
    void stop() { m_timer.stop(); }

private:
    void record()
    {
        const auto now = Clock::now();
        const auto stat = m_sched.read();
        if (m_last) {
            Gap gap;
            gap.ms = millisBetween(*m_last, now);
            gap.atMs = millisBetween(m_origin, *m_last);
            if (stat && m_lastStat) {
                gap.cpuMs = stat->cpuMs - m_lastStat->cpuMs;
                gap.waitMs = stat->waitMs - m_lastStat->waitMs;
            }
            m_gaps.push_back(gap);
        }
        m_last = now;
        m_lastStat = stat;
    }

    Clock::time_point m_origin;
    QTimer m_timer;
    SchedStat m_sched;
    std::optional<Clock::time_point> m_last;
    std::optional<SchedStat::Value> m_lastStat;
    std::vector<Gap> m_gaps;
};

struct GapSummary {
    std::size_t count = 0;
    double maxMs = 0;
    double p99Ms = 0;
    double p999Ms = 0;
    std::size_t over = 0;
    double threshold = 0;
    Gap longest;
    // The same with each gap's run-queue wait taken out: how long the UI thread was busy or
    // blocked, which is the console's own doing.
    double ownMaxMs = 0;
    double ownP99Ms = 0;
    std::size_t ownOver = 0;
    Gap ownLongest;
    double cpuMaxMs = 0; // the most CPU the UI thread used within one gap
};

double ownMs(const Gap& gap)
{
    return gap.waitMs >= 0 ? std::max(0.0, gap.ms - gap.waitMs) : gap.ms;
}

GapSummary summarizeGaps(const std::vector<Gap>& gaps, double threshold)
{
    GapSummary summary;
    summary.count = gaps.size();
    summary.threshold = threshold;
    if (gaps.empty())
        return summary;
    std::vector<double> wall;
    std::vector<double> own;
    for (const auto& gap : gaps) {
        wall.push_back(gap.ms);
        own.push_back(ownMs(gap));
        if (gap.ms > summary.longest.ms)
            summary.longest = gap;
        if (ownMs(gap) > ownMs(summary.ownLongest))
            summary.ownLongest = gap;
        summary.cpuMaxMs = std::max(summary.cpuMaxMs, gap.cpuMs);
        summary.over += gap.ms > threshold ? 1 : 0;
        summary.ownOver += ownMs(gap) > threshold ? 1 : 0;
    }
    summary.maxMs = summary.longest.ms;
    summary.p99Ms = percentile(wall, 0.99);
    summary.p999Ms = percentile(wall, 0.999);
    summary.ownMaxMs = ownMs(summary.ownLongest);
    summary.ownP99Ms = percentile(own, 0.99);
    return summary;
}

// Records when the fleet tree's viewport paints.
class PaintWatch final : public QObject {
public:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (event->type() == QEvent::Paint) {
            ++paints;
            if (armed && !painted) {
                painted = true;
                paintStart = Clock::now();
                // Fires once this paint (and the rest of its update request) has finished.
                QTimer::singleShot(0, this, [this] { paintDone = Clock::now(); });
            }
        }
        return QObject::eventFilter(watched, event);
    }

    bool armed = false;
    bool painted = false;
    std::size_t paints = 0;
    Clock::time_point paintStart;
    std::optional<Clock::time_point> paintDone;
};

// Runs the event loop until done() or the timeout; returns done().
bool runUntil(const std::function<bool()>& done, std::chrono::milliseconds timeout)
{
    if (done())
        return true;
    QEventLoop loop;
    QTimer check;
    check.setInterval(2);
    QObject::connect(&check, &QTimer::timeout, &loop, [&] {
        if (done())
            loop.quit();
    });
    QTimer::singleShot(timeout, &loop, &QEventLoop::quit);
    check.start();
    loop.exec();
    return done();
}

void runFor(std::chrono::milliseconds duration)
{
    QEventLoop loop;
    QTimer::singleShot(duration, &loop, &QEventLoop::quit);
    loop.exec();
}

struct LoadPhases {
    double connectedMs = -1; // FleetConnection Connected
    double firstMapMs = -1; // first mapChanged
    double allSampledMs = -1; // every node's latestSample non-null
    double modelCompleteMs = -1; // all node rows and shard rows in the model
    double completeMs = -1; // both of the above
    double paintMs = -1; // the viewport's paint event after that
    double paintedMs = -1; // that paint finished
    std::size_t mapSpaces = 0;
    std::size_t nodeRows = 0;
    std::size_t shardRows = 0;
    std::size_t sampledNodes = 0;
};

// One step of the planner wizard: next() to the preview, or a parameter changed on it. Times are
// ms since the call; -1: did not happen.
struct WizardStep {
    std::string what;
    bool ready = false; // a plan (or an error) arrived and the moves table painted
    double callMs = -1; // the call itself (next(), setBand(), setMaxMoves()) on the UI thread
    double figuresStartMs = -1; // the wizard started reading the fleet's figures (first plan)
    double planStartMs = -1; // planning started (after the figures; a re-plan after the debounce)
    double readyMs = -1; // planReady with the new plan
    double paintedMs = -1; // the moves table's paint after that finished
    GapSummary gaps; // from the call to 500 ms after the paint
    bool hasResult = false;
    std::size_t moves = 0;
    int moveRows = 0; // rows in the wizard's moves table
    std::uint64_t bytesMoved = 0;
    std::uint64_t docsMoved = 0;
    double estimatedSeconds = 0;
    bool balancedBefore = false;
    bool balancedAfter = false;
    std::vector<core::ObjectiveSpread> objectives;
    std::vector<std::string> warnings;
    std::string error;
};

struct WizardMeasurements {
    bool ran = false;
    std::string how; // how the wizard was opened
    std::string error;
    HotSeed hot;
    double openMs = 0; // MainWindow::openWizard(): constructed and shown
    GapSummary openGaps; // openWizard() and 500 ms after
    std::vector<WizardStep> steps;
    std::map<std::string, EventStats> events; // from openWizard() to the end
    double seconds = 0;
    std::vector<LongEvent> longEvents;
    std::uint64_t rssEnd = 0;
    std::uint64_t hwmEnd = 0;
};

struct Measurements {
    bool loaded = false;
    LoadPhases load;
    GapSummary loadGaps;
    GapSummary streamGaps;
    GapSummary findGaps;
    std::map<std::string, EventStats> loadEvents;
    std::map<std::string, EventStats> streamEvents;
    std::vector<LongEvent> longEvents;
    std::vector<double> busyPerSecondMs; // UI-thread time in events, per second of the stream
    std::size_t samplesDuringStream = 0;
    std::size_t paintsDuringStream = 0;
    double streamSeconds = 0;
    GapSummary churnGaps;
    std::map<std::string, EventStats> churnEvents;
    std::size_t churnCommits = 0;
    std::size_t churnMaps = 0;
    double churnSecondsMeasured = 0;
    std::vector<double> findMs;
    std::size_t findsOk = 0;
    std::uint64_t rssBeforeConsole = 0;
    std::uint64_t rssAfterLoad = 0;
    std::uint64_t rssEnd = 0;
    std::uint64_t hwmEnd = 0;
    bool hwmReset = false;
    std::uint64_t nodesRssEnd = 0;
    std::string qtVersion;
    std::string platform;
    WizardMeasurements wizard;
};

std::size_t countShardRows(const QAbstractItemModel& model, int nodeRows)
{
    std::size_t shards = 0;
    for (int row = 0; row < nodeRows; ++row)
        shards += static_cast<std::size_t>(model.rowCount(model.index(row, 0)));
    return shards;
}

// 5. The planner wizard on the loaded console: hot spaces first (from a thread, while the event
// loop runs; not measured), then openWizard(Rebalance), next(), setBand(), setMaxMoves().
WizardMeasurements measureWizard(TimedApplication& app, const std::string& how,
    const std::function<widgets::PlanWizard*()>& open, StallProbe& probe, const Fleet& fleet, const Options& o)
{
    WizardMeasurements w;
    w.ran = true;
    w.how = how;
    {
        std::atomic<bool> done { false };
        std::string error;
        std::thread seeding([&] {
            try {
                w.hot = seedHotSpaces(fleet, o);
            } catch (const std::exception& e) {
                error = e.what();
            }
            done = true;
        });
        (void)runUntil([&] { return done.load(); }, std::chrono::seconds(600));
        seeding.join();
        if (!error.empty()) {
            w.error = "seeding the hot spaces: " + error;
            return w;
        }
        runFor(std::chrono::seconds(2)); // the nodes sample their new spaces
    }
    (void)probe.take();
    (void)app.takeStats();
    (void)app.takeLongEvents();
    (void)app.takeBusyMs();

    const auto phaseStart = Clock::now();
    widgets::PlanWizard* wizard = open();
    w.openMs = millisSince(phaseStart);
    runFor(std::chrono::milliseconds(500));
    w.openGaps = summarizeGaps(probe.take(), o.stallMs);

    auto* movesView = wizard->findChild<QTableView*>();
    PaintWatch paint;
    if (movesView != nullptr)
        movesView->viewport()->installEventFilter(&paint);
    WizardStep* current = nullptr;
    Clock::time_point stepStart;
    QObject::connect(wizard->page(widgets::PlanWizard::PreviewPageId), &QWizardPage::completeChanged, &paint, [&] {
        if (current == nullptr || !wizard->planning())
            return;
        const QString text = wizard->summaryText();
        if (text.startsWith(QLatin1String("Reading")) && current->figuresStartMs < 0)
            current->figuresStartMs = millisSince(stepStart);
        if (text.startsWith(QLatin1String("Planning")) && current->planStartMs < 0) {
            current->planStartMs = millisSince(stepStart);
            if (current->figuresStartMs >= 0)
                app.tagCurrentEvent("the wizard's figures");
        }
    });
    QObject::connect(wizard, &widgets::PlanWizard::planReady, &paint, [&] {
        app.tagCurrentEvent("a plan");
        if (current == nullptr || wizard->planning() || current->readyMs >= 0)
            return;
        current->readyMs = millisSince(stepStart);
        paint.armed = true;
        if (movesView != nullptr)
            movesView->viewport()->update();
    });

    const auto runStep = [&](const std::string& what, const std::function<void()>& action) {
        WizardStep step;
        step.what = what;
        current = &step;
        paint.armed = false;
        paint.painted = false;
        paint.paintDone.reset();
        (void)probe.take();
        stepStart = Clock::now();
        action();
        step.callMs = millisSince(stepStart);
        step.ready = runUntil([&] { return movesView == nullptr ? step.readyMs >= 0 : paint.paintDone.has_value(); },
            std::chrono::seconds(o.wizardTimeoutSeconds));
        if (paint.paintDone)
            step.paintedMs = millisBetween(stepStart, *paint.paintDone);
        runFor(std::chrono::milliseconds(500));
        step.gaps = summarizeGaps(probe.take(), o.stallMs);
        current = nullptr;
        if (const auto& result = wizard->result()) {
            step.hasResult = true;
            step.moves = result->plan.moves.size();
            step.bytesMoved = result->summary.bytesMoved;
            step.docsMoved = result->summary.docsMoved;
            step.estimatedSeconds = result->summary.estimatedSeconds;
            step.balancedBefore = result->summary.balancedBefore;
            step.balancedAfter = result->summary.balancedAfter;
            step.objectives = result->summary.objectives;
            step.warnings = result->warnings;
        }
        step.moveRows = wizard->movesModel()->rowCount();
        step.error = wizard->errorText().toStdString();
        w.steps.push_back(std::move(step));
    };
    runStep("first plan", [&] { wizard->next(); });
    char what[64];
    std::snprintf(what, sizeof what, "band %g%%", o.wizardBand * 100);
    runStep(what, [&] { wizard->setBand(o.wizardBand); });
    std::snprintf(what, sizeof what, "max %d moves", o.wizardMaxMoves);
    runStep(what, [&] { wizard->setMaxMoves(o.wizardMaxMoves); });

    w.seconds = millisSince(phaseStart) / 1000.0;
    w.events = app.takeStats();
    w.longEvents = app.takeLongEvents();
    w.rssEnd = selfStatus("VmRSS");
    w.hwmEnd = selfStatus("VmHWM");
    if (movesView != nullptr)
        movesView->viewport()->removeEventFilter(&paint);
    delete wizard;
    return w;
}

Measurements measureConsole(TimedApplication& app, const Fleet& fleet, const Options& o)
{
    Measurements m;
    m.qtVersion = qVersion();
    m.platform = QGuiApplication::platformName().toStdString();
    m.rssBeforeConsole = selfStatus("VmRSS");
    const std::size_t totalShards = o.nodes * o.shardsPerNode;

    widgets::MainWindow window;
    window.resize(1600, 1000);
    // The fleet page is what is measured, whichever page the console opens on.
    window.showPage(window.fleetPage());
    window.show();
    runFor(std::chrono::milliseconds(200)); // shown, laid out, painted empty
    auto* page = window.fleetPage();
    QAbstractItemModel* model = page->model();
    QTreeView* view = page->view();
    auto* connection = window.connection();
    PaintWatch paintWatch;
    view->viewport()->installEventFilter(&paintWatch);

    std::vector<QString> nodeIds;
    for (const auto& node : fleet.nodes)
        nodeIds.push_back(QString::fromStdString(node.id));

    std::size_t samples = 0;
    std::size_t maps = 0;
    const auto origin = Clock::now();
    StallProbe probe(origin);
    auto& load = m.load;
    const auto check = [&] {
        if (load.completeMs >= 0)
            return;
        const auto now = Clock::now();
        if (load.allSampledMs < 0) {
            std::size_t sampled = 0;
            for (const auto& id : nodeIds)
                sampled += connection->latestSample(id) ? 1 : 0;
            load.sampledNodes = sampled;
            if (sampled == nodeIds.size())
                load.allSampledMs = millisBetween(origin, now);
        }
        if (load.modelCompleteMs < 0) {
            const int nodeRows = model->rowCount();
            load.nodeRows = static_cast<std::size_t>(nodeRows);
            load.shardRows = countShardRows(*model, nodeRows);
            if (load.nodeRows == o.nodes && load.shardRows == totalShards)
                load.modelCompleteMs = millisBetween(origin, now);
        }
        if (load.allSampledMs >= 0 && load.modelCompleteMs >= 0) {
            load.completeMs = millisBetween(origin, now);
            paintWatch.armed = true;
            view->viewport()->update();
        }
    };
    QObject::connect(connection, &widgets::FleetConnection::stateChanged, &paintWatch,
        [&](widgets::FleetConnection::State state, const QString&) {
            if (state == widgets::FleetConnection::State::Connected && load.connectedMs < 0)
                load.connectedMs = millisSince(origin);
        });
    QObject::connect(connection, &widgets::FleetConnection::mapChanged, &paintWatch, [&](const widgets::MapPtr& map) {
        app.tagCurrentEvent("map");
        ++maps;
        if (load.firstMapMs < 0 && map) {
            load.firstMapMs = millisSince(origin);
            load.mapSpaces = map->spaces.size();
        }
        check();
    });
    QObject::connect(connection, &widgets::FleetConnection::nodeSample, &paintWatch, [&] {
        app.tagCurrentEvent("node sample");
        ++samples;
        check();
    });
    QObject::connect(model, &QAbstractItemModel::rowsInserted, &paintWatch, check);
    QObject::connect(model, &QAbstractItemModel::modelReset, &paintWatch, check);
    QObject::connect(model, &QAbstractItemModel::layoutChanged, &paintWatch, check);

    widgets::ConnectionSpec spec;
    spec.storeUri = QString::fromStdString(fleet.storeUri);
    spec.metricsIntervalMs = o.metricsIntervalMs;
    app.startRecording(origin, o.stallMs / 2);
    (void)app.takeStats();
    probe.start();
    window.connectTo(spec);

    // 1. Load: until the complete fleet has painted.
    m.loaded = runUntil(
        [&] {
            check();
            return paintWatch.paintDone.has_value();
        },
        std::chrono::seconds(o.loadTimeoutSeconds));
    if (load.paintMs < 0 && paintWatch.painted) {
        load.paintMs = millisBetween(origin, paintWatch.paintStart);
        if (paintWatch.paintDone)
            load.paintedMs = millisBetween(origin, *paintWatch.paintDone);
    }
    m.loadGaps = summarizeGaps(probe.take(), o.stallMs);
    m.loadEvents = app.takeStats();
    (void)app.takeBusyMs();
    m.rssAfterLoad = selfStatus("VmRSS");
    if (!m.loaded) {
        m.longEvents = app.takeLongEvents();
        return m;
    }

    // 2. Streaming: metrics at 1 Hz for --stream-seconds, one-second windows of UI-thread time.
    QWidget* streamPage = o.streamPage == "map" ? static_cast<QWidget*>(window.mapPage())
        : o.streamPage == "overview"            ? static_cast<QWidget*>(window.overviewPage())
        : o.streamPage == "alerts"              ? static_cast<QWidget*>(window.alertsPage())
                                                : nullptr;
    if (streamPage) {
        window.showPage(streamPage);
        runFor(std::chrono::milliseconds(500)); // its first paint, not counted as streaming
        (void)probe.take();
        (void)app.takeStats();
        (void)app.takeBusyMs();
    }
    samples = 0;
    const std::size_t paintsBefore = paintWatch.paints;
    const auto streamStart = Clock::now();
    for (int second = 0; second < o.streamSeconds; ++second) {
        const auto end = streamStart + std::chrono::seconds(second + 1);
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
        if (left.count() > 0)
            runFor(left);
        m.busyPerSecondMs.push_back(app.takeBusyMs());
    }
    m.streamSeconds = millisSince(streamStart) / 1000.0;
    m.samplesDuringStream = samples;
    m.paintsDuringStream = paintWatch.paints - paintsBefore;
    m.streamGaps = summarizeGaps(probe.take(), o.stallMs);
    m.streamEvents = app.takeStats();

    // 2b. The same while the map changes: a thread commits settings/migrations --churn-per-second
    // times a second, and with each commit moves --churn-moves random spaces to random shards.
    if (o.churnSeconds > 0) {
        std::atomic<bool> stop { false };
        std::atomic<std::size_t> commits { 0 };
        std::string churnError;
        std::thread churn([&] {
            try {
                auto store = orThrow(core::openStore(fleet.storeUri, false), "opening " + fleet.storeUri);
                // Moved spaces change lanes on the map page, counts on the fleet page and rows on the
                // detail page: what a cutover does to the map, without the copying.
                std::vector<std::uint32_t> placement = fleet.spaceShard;
                std::mt19937_64 moves(o.seed + 2);
                std::uniform_int_distribution<std::size_t> pickSpace(0, std::max<std::size_t>(1, placement.size()) - 1);
                std::uniform_int_distribution<std::size_t> pickShard(0, o.nodes * o.shardsPerNode - 1);
                const auto period = std::chrono::duration<double>(1.0 / o.churnPerSecond);
                auto next = Clock::now();
                for (std::uint32_t i = 1; !stop; ++i) {
                    core::MigrationSettings settings;
                    settings.backfillBatch = 1000 + i % 2;
                    core::CommitRequest request;
                    request.actor = "console_bench";
                    request.action = "bench-churn";
                    request.mutations.push_back(
                        core::Mutation { std::string(core::keys::kMigrationSettings), core::encode(settings), {} });
                    for (std::size_t k = 0; k < o.churnMoves && !placement.empty(); ++k) {
                        const std::size_t space = pickSpace(moves);
                        placement[space] = static_cast<std::uint32_t>(pickShard(moves));
                        core::SpaceRecord record;
                        record.id = spaceId(space);
                        record.shard = shardId(placement[space] / o.shardsPerNode, placement[space] % o.shardsPerNode);
                        record.epoch = 1 + i;
                        request.mutations.push_back(
                            core::Mutation { core::keys::space(record.id), core::encode(record), {} });
                    }
                    orThrow(store->commit(request), "committing settings");
                    ++commits;
                    next += std::chrono::duration_cast<Clock::duration>(period);
                    while (!stop && Clock::now() < next)
                        std::this_thread::sleep_for(std::chrono::milliseconds(5));
                }
            } catch (const std::exception& error) {
                churnError = error.what();
            }
        });
        maps = 0;
        (void)probe.take();
        (void)app.takeStats();
        const auto churnStart = Clock::now();
        runFor(std::chrono::seconds(o.churnSeconds));
        stop = true;
        churn.join();
        m.churnSecondsMeasured = millisSince(churnStart) / 1000.0;
        m.churnGaps = summarizeGaps(probe.take(), o.stallMs);
        m.churnEvents = app.takeStats();
        m.churnCommits = commits;
        m.churnMaps = maps;
        if (!churnError.empty())
            std::cerr << "console_bench: map churn stopped: " << churnError << "\n";
        runFor(std::chrono::seconds(2)); // the last refreshes land
        (void)probe.take();
    }

    // 3. Find space: random spaces, each followed by half a second of event loop.
    std::mt19937_64 random(o.seed + 1);
    std::uniform_int_distribution<std::size_t> pick(0, std::max<std::size_t>(1, o.spaces) - 1);
    for (std::size_t i = 0; i < o.finds && o.spaces > 0; ++i) {
        const auto id = QString::fromStdString(spaceId(pick(random)));
        const auto start = Clock::now();
        const bool found = window.findSpace(id);
        m.findMs.push_back(millisSince(start));
        m.findsOk += found ? 1 : 0;
        runFor(std::chrono::milliseconds(500));
    }
    m.findGaps = summarizeGaps(probe.take(), o.stallMs);
    m.longEvents = app.takeLongEvents();

    m.rssEnd = selfStatus("VmRSS");
    m.hwmEnd = selfStatus("VmHWM");
    m.nodesRssEnd = nodesRss(fleet);

    // 5. The planner wizard, after the figures above (its hot spaces change the nodes' data).
    if (o.wizard) {
        m.wizard = measureWizard(
            app, "MainWindow::openWizard(Rebalance)",
            [&] { return window.openWizard(static_cast<int>(core::Scenario::Rebalance)); }, probe, fleet, o);
    }
    probe.stop();
    window.connection()->close();
    // The detail page goes first: ~MainWindow deletes the FleetConnection (its first child)
    // before the pages, and ~DetailPage releases its node's space detail on that connection.
    delete window.detailPage();
    return m;
}

// --wizard-only: no MainWindow, only a FleetConnection and the PlanWizard on it, so that the
// UI thread carries the wizard and the connection's own work (samples, maps) and none of the
// pages'. The load is the time until the map and every node's sample are there.
Measurements measureWizardAlone(TimedApplication& app, const Fleet& fleet, const Options& o)
{
    Measurements m;
    m.qtVersion = qVersion();
    m.platform = QGuiApplication::platformName().toStdString();
    m.rssBeforeConsole = selfStatus("VmRSS");
    widgets::FleetConnection connection;
    std::vector<QString> nodeIds;
    for (const auto& node : fleet.nodes)
        nodeIds.push_back(QString::fromStdString(node.id));
    const auto origin = Clock::now();
    StallProbe probe(origin);
    auto& load = m.load;
    QObject::connect(&connection, &widgets::FleetConnection::stateChanged, &connection,
        [&](widgets::FleetConnection::State state, const QString&) {
            if (state == widgets::FleetConnection::State::Connected && load.connectedMs < 0)
                load.connectedMs = millisSince(origin);
        });
    QObject::connect(&connection, &widgets::FleetConnection::mapChanged, &connection, [&](const widgets::MapPtr& map) {
        app.tagCurrentEvent("map");
        if (load.firstMapMs < 0 && map) {
            load.firstMapMs = millisSince(origin);
            load.mapSpaces = map->spaces.size();
        }
    });
    QObject::connect(
        &connection, &widgets::FleetConnection::nodeSample, &connection, [&] { app.tagCurrentEvent("node sample"); });
    widgets::ConnectionSpec spec;
    spec.storeUri = QString::fromStdString(fleet.storeUri);
    spec.metricsIntervalMs = o.metricsIntervalMs;
    app.startRecording(origin, o.stallMs / 2);
    (void)app.takeStats();
    probe.start();
    connection.open(spec);
    m.loaded = runUntil(
        [&] {
            if (load.firstMapMs < 0)
                return false;
            std::size_t sampled = 0;
            for (const auto& id : nodeIds)
                sampled += connection.latestSample(id) ? 1 : 0;
            load.sampledNodes = sampled;
            if (sampled < nodeIds.size())
                return false;
            load.allSampledMs = load.completeMs = millisSince(origin);
            return true;
        },
        std::chrono::seconds(o.loadTimeoutSeconds));
    runFor(std::chrono::seconds(2));
    m.loadGaps = summarizeGaps(probe.take(), o.stallMs);
    m.loadEvents = app.takeStats();
    m.longEvents = app.takeLongEvents();
    m.rssAfterLoad = selfStatus("VmRSS");
    if (m.loaded) {
        m.rssEnd = selfStatus("VmRSS");
        m.hwmEnd = selfStatus("VmHWM");
        m.nodesRssEnd = nodesRss(fleet);
        m.wizard = measureWizard(
            app, "PlanWizard(Rebalance) on a FleetConnection, no MainWindow",
            [&] {
                auto* wizard = new widgets::PlanWizard(&connection, core::Scenario::Rebalance);
                wizard->show();
                return wizard;
            },
            probe, fleet, o);
    }
    probe.stop();
    connection.close();
    return m;
}

std::filesystem::path makeWorkDir(const std::string& parent)
{
    const auto base = parent.empty() ? std::filesystem::temp_directory_path() : std::filesystem::path(parent);
    std::string pattern = (base / "shardmap-cbench-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
        throw std::runtime_error("cannot create a temp directory under " + base.string());
    return pattern;
}

// ---------------------------------------------------------------------------------------------
// The report

const char* verdict(bool met)
{
    return met ? "met" : "MISSED";
}

void printEvents(const char* title, const std::map<std::string, EventStats>& events, double seconds)
{
    std::printf("%s\n", title);
    std::printf("  %-44s %9s %10s %9s %9s\n", "UI-thread events (outermost)", "count", "total ms", "ms/s", "max ms");
    for (const auto& [kind, stats] : events)
        std::printf("  %-44s %9zu %10.1f %9.2f %9.2f\n", kind.c_str(), stats.count, stats.totalMs,
            seconds > 0 ? stats.totalMs / seconds : 0.0, stats.maxMs);
}

nlohmann::json eventsJson(const std::map<std::string, EventStats>& events)
{
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [kind, stats] : events)
        out[kind] = { { "count", stats.count }, { "total_ms", stats.totalMs }, { "max_ms", stats.maxMs } };
    return out;
}

nlohmann::json gapJson(const Gap& gap)
{
    return { { "ms", gap.ms }, { "cpu_ms", gap.cpuMs }, { "runqueue_wait_ms", gap.waitMs }, { "at_ms", gap.atMs } };
}

nlohmann::json gapsJson(const GapSummary& gaps)
{
    return { { "count", gaps.count }, { "max_ms", gaps.maxMs }, { "p99_ms", gaps.p99Ms }, { "p999_ms", gaps.p999Ms },
        { "over_threshold", gaps.over }, { "threshold_ms", gaps.threshold }, { "longest", gapJson(gaps.longest) },
        { "own_max_ms", gaps.ownMaxMs }, { "own_p99_ms", gaps.ownP99Ms }, { "own_over_threshold", gaps.ownOver },
        { "own_longest", gapJson(gaps.ownLongest) }, { "cpu_max_ms", gaps.cpuMaxMs } };
}

void printGaps(const char* what, const GapSummary& gaps)
{
    std::printf("%-24s %7zu %8.1f %7.2f %8.2f %6zu | %8.1f %7.2f %6zu | %8.1f  %5.1f cpu + %5.1f queued\n", what,
        gaps.count, gaps.maxMs, gaps.p99Ms, gaps.p999Ms, gaps.over, gaps.ownMaxMs, gaps.ownP99Ms, gaps.ownOver,
        gaps.cpuMaxMs, gaps.longest.cpuMs, gaps.longest.waitMs);
}

std::string thousands(std::uint64_t value)
{
    std::string text = std::to_string(value);
    for (auto at = static_cast<std::ptrdiff_t>(text.size()) - 3; at > 0; at -= 3)
        text.insert(static_cast<std::size_t>(at), ",");
    return text;
}

std::string spreadsText(const std::vector<core::ObjectiveSpread>& objectives)
{
    std::string text;
    for (const auto& spread : objectives) {
        if (spread.mean <= 0)
            continue;
        char part[160];
        std::snprintf(part, sizeof part, "%s%s %.2fx -> %.2fx (cv %.2f -> %.2f)", text.empty() ? "" : "; ",
            core::objectiveName(spread.objective), spread.maxOverMeanBefore, spread.maxOverMeanAfter,
            spread.stddevBefore, spread.stddevAfter);
        text += part;
    }
    return text.empty() ? "nothing measured" : text;
}

// The largest UI-thread gap of the wizard's open and steps, wall and own.
GapSummary worstWizardGap(const WizardMeasurements& w)
{
    GapSummary worst = w.openGaps;
    for (const auto& step : w.steps) {
        if (step.gaps.maxMs > worst.maxMs) {
            worst.maxMs = step.gaps.maxMs;
            worst.longest = step.gaps.longest;
        }
        if (step.gaps.ownMaxMs > worst.ownMaxMs) {
            worst.ownMaxMs = step.gaps.ownMaxMs;
            worst.ownLongest = step.gaps.ownLongest;
        }
        worst.over += step.gaps.over;
        worst.ownOver += step.gaps.ownOver;
        worst.count += step.gaps.count;
    }
    return worst;
}

void printWizard(const WizardMeasurements& w, const Options& o)
{
    const auto& h = w.hot;
    std::printf("planner wizard (%s): %zu hot spaces with %s documents on the %zu "
                "shards with the most spaces (%zu to %zu spaces in the map each), written %.1f s before it opened\n",
        w.how.c_str(), h.spaces, thousands(h.docs).c_str(), h.shards, h.fewestMapSpaces, h.mostMapSpaces, h.ms / 1000);
    if (!w.error.empty()) {
        std::printf("  WIZARD NOT MEASURED: %s\n", w.error.c_str());
        return;
    }
    std::printf("  opened (constructed and shown): %.1f ms\n", w.openMs);
    for (const auto& step : w.steps) {
        std::printf("  %s: ", step.what.c_str());
        if (!step.ready)
            std::printf("NO PLAN SHOWN within %d s; ", o.wizardTimeoutSeconds);
        if (step.figuresStartMs >= 0)
            std::printf("shown %.0f ms after next() (figures read %.0f ms, planned %.0f ms, planReady at %.0f, moves "
                        "table painted at %.0f); next() itself %.1f ms\n",
                step.paintedMs, step.planStartMs - step.figuresStartMs, step.readyMs - step.planStartMs, step.readyMs,
                step.paintedMs, step.callMs);
        else
            std::printf("shown %.0f ms after the call (the page's debounce, re-plan started at %.0f, planned %.0f ms, "
                        "planReady at %.0f, painted at %.0f); the call itself %.1f ms\n",
                step.paintedMs, step.planStartMs, step.readyMs - step.planStartMs, step.readyMs, step.paintedMs,
                step.callMs);
        if (step.hasResult) {
            std::printf(
                "      %zu moves (%d table rows), %s bytes and %s docs to copy, about %.0f s; balanced before %s, "
                "after %s; %zu warning(s)\n",
                step.moves, step.moveRows, thousands(step.bytesMoved).c_str(), thousands(step.docsMoved).c_str(),
                step.estimatedSeconds, step.balancedBefore ? "yes" : "no", step.balancedAfter ? "yes" : "no",
                step.warnings.size());
            std::printf(
                "      largest shard over the mean, before -> after: %s\n", spreadsText(step.objectives).c_str());
            for (const auto& warning : step.warnings) {
                std::string shown = warning.size() > 200 ? warning.substr(0, 200) + "..." : warning;
                std::printf("      warning: %s\n", shown.c_str());
            }
        }
        if (!step.error.empty())
            std::printf("      error: %s\n", step.error.c_str());
        std::printf("      longest UI-thread gap %.1f ms (own %.1f ms; %.1f cpu + %.1f queued), %zu gaps > %.0f ms\n",
            step.gaps.maxMs, step.gaps.ownMaxMs, step.gaps.longest.cpuMs, step.gaps.longest.waitMs, step.gaps.over,
            o.stallMs);
    }
    char title[160];
    std::snprintf(
        title, sizeof title, "during the planner wizard (open and %zu plans, %.1f s):", w.steps.size(), w.seconds);
    printEvents(title, w.events, w.seconds);
    auto longest = w.longEvents;
    std::sort(longest.begin(), longest.end(), [](const LongEvent& a, const LongEvent& b) { return a.ms > b.ms; });
    if (longest.size() > o.longest)
        longest.resize(o.longest);
    if (!longest.empty()) {
        std::printf("longest UI-thread events in the wizard (ms since connecting: ms, what):\n");
        for (const auto& event : longest)
            std::printf("  %9.0f: %7.1f  %s\n", event.atMs, event.ms, event.what.c_str());
    }
    std::printf("RSS after the wizard: console %.0f MiB (peak %.0f MiB)\n", mib(w.rssEnd), mib(w.hwmEnd));
}

nlohmann::json wizardJson(const WizardMeasurements& w)
{
    nlohmann::json out;
    out["error"] = w.error;
    out["hot"] = { { "shards", w.hot.shards }, { "spaces", w.hot.spaces }, { "documents", w.hot.docs },
        { "map_spaces_most", w.hot.mostMapSpaces }, { "map_spaces_fewest", w.hot.fewestMapSpaces },
        { "ms", w.hot.ms } };
    out["open_ms"] = w.openMs;
    out["open_gaps"] = gapsJson(w.openGaps);
    out["steps"] = nlohmann::json::array();
    for (const auto& step : w.steps) {
        nlohmann::json objectives = nlohmann::json::array();
        for (const auto& spread : step.objectives)
            objectives.push_back({ { "objective", core::objectiveName(spread.objective) }, { "mean", spread.mean },
                { "max_over_mean_before", spread.maxOverMeanBefore },
                { "max_over_mean_after", spread.maxOverMeanAfter }, { "cv_before", spread.stddevBefore },
                { "cv_after", spread.stddevAfter } });
        out["steps"].push_back({ { "what", step.what }, { "ready", step.ready }, { "call_ms", step.callMs },
            { "figures_start_ms", step.figuresStartMs }, { "plan_start_ms", step.planStartMs },
            { "ready_ms", step.readyMs }, { "painted_ms", step.paintedMs }, { "gaps", gapsJson(step.gaps) },
            { "moves", step.moves }, { "move_rows", step.moveRows }, { "bytes_moved", step.bytesMoved },
            { "docs_moved", step.docsMoved }, { "estimated_seconds", step.estimatedSeconds },
            { "balanced_before", step.balancedBefore }, { "balanced_after", step.balancedAfter },
            { "objectives", objectives }, { "warnings", step.warnings }, { "error", step.error } });
    }
    out["events"] = eventsJson(w.events);
    out["seconds"] = w.seconds;
    for (const auto& event : w.longEvents)
        out["long_events"].push_back({ { "at_ms", event.atMs }, { "ms", event.ms }, { "what", event.what } });
    out["rss_bytes"] = { { "console_end", w.rssEnd }, { "console_peak", w.hwmEnd } };
    return out;
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App cli { "The console at scale: first paint, UI-thread stalls while metrics stream, find-space and RSS of "
                   "the console's MainWindow against a fleet of real shardmap-node processes" };
    Options o;
    cli.add_option("--nodes", o.nodes, "shardmap-node processes")->capture_default_str()->check(CLI::Range(1, 200));
    cli.add_option("--shards-per-node", o.shardsPerNode, "Shards on each node")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000));
    cli.add_option("--spaces", o.spaces, "Spaces in the shard map")
        ->capture_default_str()
        ->check(CLI::Range(0, 10000000));
    cli.add_option("--zipf", o.zipf, "Exponent of the spaces' Zipf spread over the shards (0: uniform)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 4.0));
    cli.add_option("--docs-per-shard", o.docsPerShard, "Documents written to each shard that gets some")
        ->capture_default_str();
    cli.add_option("--doc-shard-every", o.docShardEvery, "Every Nth shard gets documents (0: none)")
        ->capture_default_str();
    cli.add_option("--space-batch", o.spaceBatch, "Space records per store commit when seeding")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000000));
    cli.add_option("--stream-seconds", o.streamSeconds, "How long metrics stream while stalls are measured")
        ->capture_default_str()
        ->check(CLI::Range(0, 3600));
    cli.add_option("--churn-seconds", o.churnSeconds,
           "After the plain stream, how long metrics stream while the map changes (0: skip)")
        ->capture_default_str()
        ->check(CLI::Range(0, 3600));
    cli.add_option("--churn-per-second", o.churnPerSecond,
           "Map commits per second in that phase (settings/migrations rewritten, as a running migration's progress "
           "commits change the map)")
        ->capture_default_str()
        ->check(CLI::Range(0.1, 100.0));
    cli.add_option("--churn-moves", o.churnMoves,
           "Spaces each of those commits moves to another shard (their records only, as a cutover does)")
        ->capture_default_str()
        ->check(CLI::Range(0, 10000));
    cli.add_option("--stream-page", o.streamPage, "The page shown while metrics stream and the map changes")
        ->check(CLI::IsMember({ "fleet", "map", "overview", "alerts" }))
        ->capture_default_str();
    cli.add_option("--metrics-interval-ms", o.metricsIntervalMs, "ConnectionSpec::metricsIntervalMs")
        ->capture_default_str()
        ->check(CLI::Range(200, 60000));
    cli.add_option("--paint-budget-ms", o.paintBudgetMs, "The first full paint's target")->capture_default_str();
    cli.add_option("--rss-budget-mib", o.rssBudgetMib, "The console's peak RSS target")->capture_default_str();
    cli.add_option("--node-nice", o.nodeNice,
           "Start the nodes under nice -n N: on a machine of two cores, 19 stands for nodes on machines of their own, "
           "where they do not take the console's CPU")
        ->capture_default_str()
        ->check(CLI::Range(0, 19));
    cli.add_option("--history-interval-ms", o.historyIntervalMs, "The nodes' --history-interval-ms")
        ->capture_default_str()
        ->check(CLI::Range(100, 3600000));
    cli.add_option("--load-timeout", o.loadTimeoutSeconds, "Seconds to wait for the first full paint")
        ->capture_default_str()
        ->check(CLI::Range(1, 3600));
    cli.add_option("--finds", o.finds, "MainWindow::findSpace() calls of random spaces")->capture_default_str();
    cli.add_option("--stall-ms", o.stallMs, "A gap of the UI thread's 1 ms timer longer than this is a stall")
        ->capture_default_str();
    cli.add_option("--seed-threads", o.seedThreads, "Threads that start nodes and create shards")
        ->capture_default_str()
        ->check(CLI::Range(1, 64));
    cli.add_option("--seed", o.seed, "Seed of the spaces' spread and of the spaces found")->capture_default_str();
    cli.add_option("--node-binary", o.nodeBinary, "shardmap-node to start")->capture_default_str();
    cli.add_option("--work-dir", o.workDir, "Where the temp directory goes (default: the system temp dir)");
    cli.add_flag("--seed-only", o.seedOnly, "Start and seed the fleet, skip the console");
    cli.add_flag("--keep-fleet", o.keepFleet,
        "After the run, keep the nodes running and the map in place until Ctrl-C (to look at it with `shardmap "
        "--store URI`)");
    cli.add_flag("--keep-data", o.keepData, "Keep the temp directory (node data, map, logs)");
    cli.add_flag("--json", o.json, "Also print a JSON summary");
    cli.add_flag("--wizard,!--no-wizard", o.wizard,
           "At the end, measure the planner wizard (Rebalance): the preview's first plan and two live re-plans")
        ->capture_default_str();
    cli.add_flag("--wizard-only", o.wizardOnly,
        "Measure only the planner wizard, on a FleetConnection without the MainWindow (no streaming, map commits or "
        "find-space phases)");
    cli.add_option("--wizard-hot-shards", o.hotShards,
           "Before the wizard, this many of the shards with the most spaces get documents in some spaces")
        ->capture_default_str();
    cli.add_option("--wizard-hot-spaces", o.hotSpaces, "Spaces that get documents on each hot shard")
        ->capture_default_str();
    cli.add_option(
           "--wizard-hot-docs", o.hotDocs, "Documents per hot space: from half this to one and a half times it, varied")
        ->capture_default_str()
        ->check(CLI::Range(1, 100000));
    cli.add_option("--wizard-band", o.wizardBand, "The band set on the preview page (the wizard starts at 0.10)")
        ->capture_default_str()
        ->check(CLI::Range(0.01, 0.5));
    cli.add_option("--wizard-max-moves", o.wizardMaxMoves, "The move budget set on the preview page after that")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000000));
    cli.add_option("--wizard-timeout", o.wizardTimeoutSeconds, "Seconds to wait for each plan")
        ->capture_default_str()
        ->check(CLI::Range(1, 3600));
    CLI11_PARSE(cli, argc, argv);
    std::string command = "console_bench";
    for (int i = 1; i < argc; ++i)
        command += std::string(" ") + argv[i];

    const std::string date = utcNow();
    const std::string loadBefore = loadAverage();
    std::filesystem::path workDir;
    Fleet fleet;
    SeedTimes seedTimes;
    Measurements m;
    try {
        workDir = makeWorkDir(o.workDir);
        fleet.dir = workDir;
        std::cerr << "seeding " << o.nodes << " nodes x " << o.shardsPerNode << " shards, " << o.spaces << " spaces in "
                  << workDir.string() << "...\n";
        seedTimes = seedFleet(fleet, o);
        std::cerr << "seeded in " << seedTimes.totalMs / 1000.0 << " s (nodes " << seedTimes.nodesMs / 1000.0
                  << " s, shards and documents " << seedTimes.shardsMs / 1000.0 << " s, map "
                  << seedTimes.mapMs / 1000.0 << " s)\n";
        if (!o.seedOnly) {
            // The console's settings (recent connections, geometry) go to the work directory.
            const auto config = (workDir / "config").string();
            ::setenv("XDG_CONFIG_HOME", config.c_str(), 1);
            if (std::getenv("QT_QPA_PLATFORM") == nullptr)
                ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
            // The seeding's heap goes back before the console's figures are taken.
            ::malloc_trim(0);
            const bool hwmReset = resetPeakRss();
            int qtArgc = 1;
            char* qtArgv[] = { argv[0], nullptr };
            TimedApplication app(qtArgc, qtArgv);
            QCoreApplication::setOrganizationName(QStringLiteral("shardmap-bench"));
            QCoreApplication::setApplicationName(QStringLiteral("console_bench"));
            // The console's style and palette (Fusion), as app/console/main.cpp sets them.
            const widgets::ThemeManager theme;
            if (o.wizardOnly) {
                std::cerr << "measuring the planner wizard on a FleetConnection...\n";
                m = measureWizardAlone(app, fleet, o);
            } else {
                std::cerr << "measuring the console (" << o.streamSeconds << " s of streaming)...\n";
                m = measureConsole(app, fleet, o);
            }
            m.hwmReset = hwmReset;
        }
    } catch (const std::exception& error) {
        std::cerr << "console_bench: " << error.what() << "\n";
        stopFleet(fleet);
        if (!workDir.empty())
            std::cerr << "(work directory kept: " << workDir.string() << ")\n";
        return 1;
    }
    const std::string loadAfter = loadAverage();

    std::printf("console_bench, %s; %u CPUs (%s), %.1f GiB RAM; load average before %s, after %s\n", date.c_str(),
        std::thread::hardware_concurrency(), cpuModel().c_str(),
        static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGESIZE))
            / (1024.0 * 1024.0 * 1024.0),
        loadBefore.c_str(), loadAfter.c_str());
    std::printf("command: %s\n", command.c_str());
    std::printf("fleet: %zu nodes x %zu shards = %zu shards, %zu spaces (Zipf %.2f), %zu documents on %zu shards; "
                "store %s\n",
        o.nodes, o.shardsPerNode, o.nodes * o.shardsPerNode, o.spaces, o.zipf, fleet.docsWritten, fleet.shardsWithDocs,
        fleet.storeUri.c_str());
    std::printf("page shown while streaming and during map churn: %s\n", o.streamPage.c_str());
    std::printf("seeding: %.1f s (nodes listening %.1f s, shards and documents %.1f s, map %.1f s)\n",
        seedTimes.totalMs / 1000, seedTimes.nodesMs / 1000, seedTimes.shardsMs / 1000, seedTimes.mapMs / 1000);

    bool ok = true;
    const std::string overHeader = "> " + std::to_string(static_cast<int>(o.stallMs));
    const auto printGapsHeader = [&] {
        std::printf("\nUI-thread stalls: gaps between firings of a 1 ms timer, ms (\"own\": minus the UI thread's "
                    "run-queue wait, i.e. busy or blocked)\n");
        std::printf("%-24s %7s %8s %7s %8s %6s | %8s %7s %6s | %8s  %s\n", "", "gaps", "max", "p99", "p99.9",
            overHeader.c_str(), "own max", "own p99", overHeader.c_str(), "max cpu", "longest gap =");
    };
    const auto printWizardRows = [&] {
        if (m.wizard.ran && m.wizard.error.empty()) {
            printGaps("wizard: open", m.wizard.openGaps);
            for (const auto& step : m.wizard.steps)
                printGaps(("wizard: " + step.what).c_str(), step.gaps);
        }
    };
    const auto printWizardVerdict = [&] {
        if (m.wizard.ran && m.wizard.error.empty() && !m.wizard.steps.empty()) {
            const auto worst = worstWizardGap(m.wizard);
            bool allShown = true;
            std::string shown;
            for (const auto& step : m.wizard.steps) {
                allShown = allShown && step.ready;
                char part[96];
                std::snprintf(
                    part, sizeof part, "%s%s %.0f ms", shown.empty() ? "" : ", ", step.what.c_str(), step.paintedMs);
                shown += part;
            }
            std::printf("planner wizard (issue 12): plans shown: %s (%s); longest UI-thread gap in the wizard %.1f ms "
                        "<= %.0f ms: %s (without run-queue wait %.1f ms: %s)\n",
                shown.c_str(), allShown ? "all" : "NOT ALL", worst.maxMs, o.stallMs, verdict(worst.maxMs <= o.stallMs),
                worst.ownMaxMs, verdict(worst.ownMaxMs <= o.stallMs));
            ok = ok && allShown;
        }
    };
    if (!o.seedOnly && o.wizardOnly) {
        const auto& l = m.load;
        std::printf("Qt %s, platform %s; metrics every %d ms; --wizard-only: a FleetConnection and the wizard, no "
                    "MainWindow\n\n",
            m.qtVersion.c_str(), m.platform.c_str(), o.metricsIntervalMs);
        std::printf("load, ms from FleetConnection::open(): connected %.0f, first map %.0f (%zu spaces), every node "
                    "sampled %.0f\n",
            l.connectedMs, l.firstMapMs, l.mapSpaces, l.allSampledMs);
        if (!m.loaded) {
            std::printf("THE FLEET DID NOT LOAD within %d s: %zu of %zu nodes sampled\n", o.loadTimeoutSeconds,
                l.sampledNodes, o.nodes);
            ok = false;
        }
        printGapsHeader();
        printGaps("during the load (+2 s)", m.loadGaps);
        printWizardRows();
        std::printf("\n");
        printEvents("during the load (+2 s):", m.loadEvents, l.allSampledMs > 0 ? l.allSampledMs / 1000 + 2 : 0);
        std::printf("RSS: console %.0f MiB after the load (peak %.0f MiB%s); nodes %.0f MiB in total\n", mib(m.rssEnd),
            mib(m.hwmEnd), m.hwmReset ? " since seeding" : ", including seeding", mib(m.nodesRssEnd));
        if (m.wizard.ran)
            printWizard(m.wizard, o);
        std::printf("\n");
        printWizardVerdict();
    } else if (!o.seedOnly) {
        const auto& l = m.load;
        std::printf("Qt %s, platform %s; metrics every %d ms\n\n", m.qtVersion.c_str(), m.platform.c_str(),
            o.metricsIntervalMs);
        std::printf("load, ms from connectTo(): connected %.0f, first map %.0f (%zu spaces), every node sampled %.0f, "
                    "model complete %.0f (%zu node rows, %zu shard rows), both %.0f, viewport paint %.0f, painted "
                    "%.0f\n",
            l.connectedMs, l.firstMapMs, l.mapSpaces, l.allSampledMs, l.modelCompleteMs, l.nodeRows, l.shardRows,
            l.completeMs, l.paintMs, l.paintedMs);
        if (!m.loaded) {
            std::printf("THE FLEET DID NOT LOAD within %d s: %zu of %zu node rows, %zu of %zu shard rows, %zu of %zu "
                        "nodes sampled\n",
                o.loadTimeoutSeconds, l.nodeRows, o.nodes, l.shardRows, o.nodes * o.shardsPerNode, l.sampledNodes,
                o.nodes);
            ok = false;
        }
        printGapsHeader();
        printGaps("during the load", m.loadGaps);
        printGaps("while metrics stream", m.streamGaps);
        if (o.churnSeconds > 0)
            printGaps("stream + map commits", m.churnGaps);
        printGaps("during find-space", m.findGaps);
        printWizardRows();
        std::printf("\n");
        const double loadSeconds = l.paintedMs > 0 ? l.paintedMs / 1000 : 0;
        printEvents("during the load:", m.loadEvents, loadSeconds);
        printEvents("while metrics stream:", m.streamEvents, m.streamSeconds);
        if (o.churnSeconds > 0) {
            char title[160];
            std::snprintf(title, sizeof title,
                "while metrics stream and the map changes (%zu commits, %zu maps in %.1f s):", m.churnCommits,
                m.churnMaps, m.churnSecondsMeasured);
            printEvents(title, m.churnEvents, m.churnSecondsMeasured);
        }
        if (!m.busyPerSecondMs.empty()) {
            std::printf("UI thread busy per second of streaming: p50 %.1f ms, max %.1f ms; %zu samples in %.1f s "
                        "(%.1f/s), %zu viewport paints\n",
                percentile(m.busyPerSecondMs, 0.5),
                *std::max_element(m.busyPerSecondMs.begin(), m.busyPerSecondMs.end()), m.samplesDuringStream,
                m.streamSeconds,
                m.streamSeconds > 0 ? static_cast<double>(m.samplesDuringStream) / m.streamSeconds : 0.0,
                m.paintsDuringStream);
        }
        auto longest = m.longEvents;
        std::sort(longest.begin(), longest.end(), [](const LongEvent& a, const LongEvent& b) { return a.ms > b.ms; });
        if (longest.size() > o.longest)
            longest.resize(o.longest);
        if (!longest.empty()) {
            std::printf("longest UI-thread events (ms since connectTo: ms, what):\n");
            for (const auto& event : longest)
                std::printf("  %9.0f: %7.1f  %s\n", event.atMs, event.ms, event.what.c_str());
        }
        if (!m.findMs.empty()) {
            std::printf("findSpace(): %zu of %zu found; p50 %.1f ms, max %.1f ms\n", m.findsOk, m.findMs.size(),
                percentile(m.findMs, 0.5), *std::max_element(m.findMs.begin(), m.findMs.end()));
        }
        std::printf("RSS: console %.0f MiB %s (peak %.0f MiB%s), %.0f MiB before the window, %.0f MiB after "
                    "the load; nodes %.0f MiB in total (%.1f MiB each)\n",
            mib(m.rssEnd), m.wizard.ran ? "before the wizard" : "at the end", mib(m.hwmEnd),
            m.hwmReset ? " since seeding" : ", including seeding", mib(m.rssBeforeConsole), mib(m.rssAfterLoad),
            mib(m.nodesRssEnd), o.nodes > 0 ? mib(m.nodesRssEnd) / static_cast<double>(o.nodes) : 0);
        if (m.wizard.ran)
            printWizard(m.wizard, o);
        std::printf("\n");
        const bool paintMet = m.loaded && l.paintedMs <= o.paintBudgetMs;
        const bool stallMet = m.loaded && m.streamGaps.maxMs <= o.stallMs;
        const bool ownStallMet = m.loaded && m.streamGaps.ownMaxMs <= o.stallMs;
        const bool rssMet = m.hwmEnd <= static_cast<std::uint64_t>(o.rssBudgetMib) * 1024 * 1024;
        std::printf("targets: first full paint %.0f ms <= %.0f ms: %s; longest UI-thread gap while streaming %.1f ms "
                    "<= %.0f ms: %s (without run-queue wait %.1f ms: %s); console peak RSS %.0f MiB <= %.0f MiB: %s\n",
            l.paintedMs, o.paintBudgetMs, verdict(paintMet), m.streamGaps.maxMs, o.stallMs, verdict(stallMet),
            m.streamGaps.ownMaxMs, verdict(ownStallMet), mib(m.hwmEnd), o.rssBudgetMib, verdict(rssMet));
        printWizardVerdict();
    }

    if (o.json) {
        nlohmann::json out;
        out["date"] = date;
        out["load_before"] = loadBefore;
        out["load_after"] = loadAfter;
        out["command"] = command;
        out["cpus"] = std::thread::hardware_concurrency();
        out["cpu"] = cpuModel();
        out["fleet"] = { { "nodes", o.nodes }, { "shards_per_node", o.shardsPerNode }, { "spaces", o.spaces },
            { "zipf", o.zipf }, { "documents", fleet.docsWritten }, { "shards_with_documents", fleet.shardsWithDocs } };
        out["seed_ms"] = { { "total", seedTimes.totalMs }, { "nodes", seedTimes.nodesMs },
            { "shards_and_documents", seedTimes.shardsMs }, { "map", seedTimes.mapMs } };
        if (!o.seedOnly) {
            const auto& l = m.load;
            out["mode"] = o.wizardOnly ? "wizard-only" : "main-window";
            out["qt"] = m.qtVersion;
            out["platform"] = m.platform;
            out["loaded"] = m.loaded;
            out["load_ms"] = { { "connected", l.connectedMs }, { "first_map", l.firstMapMs },
                { "all_sampled", l.allSampledMs }, { "model_complete", l.modelCompleteMs },
                { "complete", l.completeMs }, { "paint", l.paintMs }, { "painted", l.paintedMs } };
            out["gaps"] = { { "load", gapsJson(m.loadGaps) }, { "stream", gapsJson(m.streamGaps) },
                { "stream_with_map_commits", gapsJson(m.churnGaps) }, { "find", gapsJson(m.findGaps) } };
            out["events"] = { { "load", eventsJson(m.loadEvents) }, { "stream", eventsJson(m.streamEvents) },
                { "stream_with_map_commits", eventsJson(m.churnEvents) } };
            out["map_churn"]
                = { { "seconds", m.churnSecondsMeasured }, { "commits", m.churnCommits }, { "maps", m.churnMaps } };
            out["busy_per_second_ms"] = m.busyPerSecondMs;
            out["samples_during_stream"] = m.samplesDuringStream;
            out["stream_seconds"] = m.streamSeconds;
            out["find_ms"] = m.findMs;
            out["finds_ok"] = m.findsOk;
            out["rss_bytes"] = { { "console_end", m.rssEnd }, { "console_peak", m.hwmEnd },
                { "console_before_window", m.rssBeforeConsole }, { "console_after_load", m.rssAfterLoad },
                { "nodes_total", m.nodesRssEnd } };
            for (const auto& event : m.longEvents)
                out["long_events"].push_back({ { "at_ms", event.atMs }, { "ms", event.ms }, { "what", event.what } });
            if (m.wizard.ran)
                out["wizard"] = wizardJson(m.wizard);
        }
        std::cout << out.dump(2) << std::endl;
    }

    if (o.keepFleet) {
        std::cerr << "\nfleet kept running: shardmap --store " << fleet.storeUri << "\n(Ctrl-C to stop it)\n";
        sigset_t stopSignals;
        sigemptyset(&stopSignals);
        sigaddset(&stopSignals, SIGINT);
        sigaddset(&stopSignals, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);
        int received = 0;
        sigwait(&stopSignals, &received);
    }
    stopFleet(fleet);
    if (!o.keepData)
        std::filesystem::remove_all(workDir);
    else
        std::cerr << "data kept in " << workDir.string() << "\n";
    return ok ? 0 : 1;
}
