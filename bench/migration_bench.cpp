// migration_bench: end-to-end benchmark of live migrations (issue 4), against real processes: two
// shardmap-node processes (shard s0 on node 0, s1 on node 1), an SQLite shard map, and a real
// shardmapd that routes writes and runs the migration executor. In one run it measures:
//
// 1. Backfill rate against direct bulk ingest of the same documents: (a) N corpus documents written
//    with NodeClient::bulkWrite, batches of --batch, into a fresh shard on node 1; (b) the same N
//    documents in space "big" on s0, moved to s1 by a migration; its backfill time is taken from
//    the store's audit records (the "migration-backfill" commit to the "migration-verify" commit);
//    (c) then a new copy of s1 (now holding "big") on node 0, brought in sync by the executor's
//    catch-up (issue 30), timed the same way ("catch-up-backfill" to "catch-up-verify").
// 2. The write pause at cutover: a writer thread writes 1-4 documents per call, continuously,
//    through shardmapd's Router service while space "hot" (--hot-docs documents) is moved back and
//    forth --cutovers times. Every call's wall-clock interval is kept; a cutover's pause is the
//    longest call in flight at the migration's cutoverUnixMs.
// 3. Search latency on the source during a backfill: sequential NodeClient::search calls on the
//    source shard for --search-seconds while nothing migrates, then while a migration of "big"
//    copies it away (unthrottled, then throttled to --throttle docs/s). Each of those migrations
//    is cancelled once the search window ends, so "big" stays where it is.
//
// Nothing here asserts on timings; the program reports and exits 0 unless something failed.
// Results and commands: docs/BENCHMARKS.md, "Live migrations (issue 4)".

#include "bench/bench_main.h"
#include "bench/bench_process.h"
#include "bench/bench_report.h"
#include "bench/corpus.h"
#include "core/client/node_client.h"
#include "core/map/map_editor.h"
#include "core/map/shard_map.h"
#include "core/migration/migration_requests.h"
#include "core/store/metadata_store.h"
#include "core/util/clock.h"
#include "shardmap/v1/router.grpc.pb.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <grpcpp/grpcpp.h>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

namespace core = shardmap::core;
namespace v1 = shardmap::v1;
using shardmap::bench::BenchDoc;
using shardmap::bench::Corpus;
using shardmap::bench::CorpusOptions;
using shardmap::bench::SplitMix64;
using Clock = std::chrono::steady_clock;

constexpr std::uint32_t kSearchLimit = 20;
// A cutover's window ends at its migration's "done" commit, at least this long after cutoverUnixMs.
constexpr std::int64_t kCutoverTailMs = 100;

struct Options {
    // Issue 31's reindex: the shards written to (s1 and "direct") built with this tokenizer
    // (unicode61, porter, trigram), so that the backfill into s1 is a reindex of "big".
    std::string targetTokenizer;
    std::size_t docs = 100000;
    std::size_t batch = 1000;
    std::uint32_t backfillBatch = 1000;
    std::size_t cutovers = 30;
    std::size_t hotDocs = 2000;
    double searchSeconds = 10;
    // Searches cycle through the words of these frequency ranks (0: the most frequent).
    std::size_t queryMinRank = 0;
    std::size_t queryMaxRank = 50;
    std::uint64_t throttle = 5000;
    std::uint64_t cutoverThrottle = 0; // docs/s of test 2's migrations of "hot" (0: unthrottled)
    double writerIdleSeconds = 3;
    unsigned writerPauseMicros = 0;
    std::size_t vocabulary = 4000;
    std::uint64_t seed = 42;
    std::string nodeBinary = SHARDMAP_NODE_BINARY;
    std::string controllerBinary = SHARDMAP_CONTROLLER_BINARY;
    std::string workDir;
    std::string callsCsv;
    bool skipBackfill = false;
    bool skipSearch = false;
    // Node i runs on CPU i and shardmapd on CPU 0 (taskset): the search test's source (node 1)
    // then has a core to itself, as it would have a host to itself in a fleet.
    bool pin = false;
    bool skipCutover = false;
    bool keepData = false;
    bool json = false;
};

// The index settings of the shards written to: today's with --target-tokenizer's tokenizer.
std::optional<core::IndexSettings> targetIndex(const Options& o)
{
    if (o.targetTokenizer.empty())
        return std::nullopt;
    core::IndexSettings settings = core::defaultIndexSettings();
    auto tokenizer = core::parseTokenizer(o.targetTokenizer);
    if (!tokenizer)
        throw std::runtime_error("--target-tokenizer: " + tokenizer.error().message);
    settings.tokenizer = *tokenizer;
    if (settings.tokenizer == core::Tokenizer::Trigram)
        settings.prefixes.clear();
    return settings;
}

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

std::int64_t nowUnixMicros()
{
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

template <typename T> T orThrow(core::Result<T> result, const std::string& what)
{
    if (!result)
        throw std::runtime_error(what + ": " + result.error().describe());
    return std::move(result.value());
}

using shardmap::bench::cpuModel;
using shardmap::bench::finishWorkDir;
using shardmap::bench::joinCommand;
using shardmap::bench::loadAverage;
using shardmap::bench::measureInWorkDir;
using shardmap::bench::percentile;
using shardmap::bench::utcNow;

struct Latency {
    std::size_t count = 0;
    double p50 = 0;
    double p99 = 0;
    double max = 0;
    double mean = 0;
};

Latency summarize(const std::vector<double>& samples)
{
    Latency out;
    out.count = samples.size();
    if (samples.empty())
        return out;
    out.p50 = percentile(samples, 0.5);
    out.p99 = percentile(samples, 0.99);
    out.max = *std::max_element(samples.begin(), samples.end());
    double sum = 0;
    for (const double s : samples)
        sum += s;
    out.mean = sum / static_cast<double>(samples.size());
    return out;
}

nlohmann::json toJson(const Latency& l)
{
    return { { "count", l.count }, { "p50_ms", l.p50 }, { "p99_ms", l.p99 }, { "max_ms", l.max },
        { "mean_ms", l.mean } };
}

double selfCpuSeconds()
{
    rusage usage {};
    ::getrusage(RUSAGE_SELF, &usage);
    const auto seconds
        = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// ---------------------------------------------------------------------------------------------
// Child processes: the real shardmap-node and shardmapd binaries, started with their listen port
// 0; each prints "listening on HOST:PORT" on stdout once it serves (bench/bench_process.h).

using shardmap::bench::ServerProcess;

// CPU seconds of the bench and its children between two points, to show where time goes.
struct CpuSample {
    double bench = 0;
    double node0 = 0;
    double node1 = 0;
    double controller = 0;
};

struct CpuUse {
    double bench = 0;
    double node0 = 0;
    double node1 = 0;
    double controller = 0;
};

nlohmann::json toJson(const CpuUse& cpu)
{
    return { { "bench", cpu.bench }, { "node0", cpu.node0 }, { "node1", cpu.node1 }, { "shardmapd", cpu.controller } };
}

// ---------------------------------------------------------------------------------------------
// The fixture: two nodes, the store, shardmapd.

struct Fleet {
    std::filesystem::path dir;
    std::vector<std::unique_ptr<ServerProcess>> nodes;
    std::unique_ptr<ServerProcess> controller;
    std::unique_ptr<core::MetadataStore> store;
    core::NodeClientPool pool;
    std::vector<std::shared_ptr<core::NodeClient>> clients;
    core::Actor actor { "migration_bench", "benchmark" };

    std::string storeUri() const { return "sqlite:" + (dir / "map.db").string(); }
    std::string controllerLog() const { return (dir / "shardmapd.log").string(); }
    static std::string shardOf(std::size_t node) { return "s" + std::to_string(node); }
    core::NodeClient& client(const std::string& shard) { return *clients[shard == "s0" ? 0 : 1]; }

    CpuSample cpu() const
    {
        return { selfCpuSeconds(), nodes[0]->cpuSeconds(), nodes[1]->cpuSeconds(),
            controller ? controller->cpuSeconds() : 0 };
    }
    CpuUse cpuSince(const CpuSample& before) const
    {
        const auto now = cpu();
        return { now.bench - before.bench, now.node0 - before.node0, now.node1 - before.node1,
            now.controller - before.controller };
    }
};

// The command line of a fleet process, pinned to one CPU when --pin asks for it.
std::vector<std::string> pinned(const Options& o, int cpu, std::vector<std::string> args)
{
    if (!o.pin)
        return args;
    args.insert(args.begin(), { "/usr/bin/taskset", "-c", std::to_string(cpu) });
    return args;
}

void startFleet(Fleet& fleet, const Options& o)
{
    for (std::size_t i = 0; i < 2; ++i) {
        const auto data = fleet.dir / ("node" + std::to_string(i));
        fleet.nodes.push_back(ServerProcess::start(
            pinned(o, static_cast<int>(i),
                { o.nodeBinary, "--listen", "127.0.0.1:0", "--data-dir", data.string(), "--node-id",
                    "n" + std::to_string(i), "--min-free-bytes", "0", "--exit-with-parent" }),
            (fleet.dir / ("node" + std::to_string(i) + ".log")).string()));
    }
    fleet.store = orThrow(core::openStore(fleet.storeUri(), true), "opening the store");
    core::MapEditor editor(*fleet.store);
    for (std::size_t i = 0; i < 2; ++i) {
        const std::string node = "n" + std::to_string(i);
        auto client = orThrow(fleet.pool.get(fleet.nodes[i]->address()), "connecting to " + node);
        orThrow(client->createShard(Fleet::shardOf(i), {}, std::nullopt, i == 1 ? targetIndex(o) : std::nullopt),
            "CreateShard " + Fleet::shardOf(i));
        orThrow(editor.addNode({ node, fleet.nodes[i]->address(), {}, false }, fleet.actor), "adding " + node);
        orThrow(editor.addShard({ Fleet::shardOf(i), node, core::ShardState::Active, 0, 0 }, fleet.actor),
            "adding " + Fleet::shardOf(i));
        fleet.clients.push_back(client);
    }
    core::MigrationRequests requests(*fleet.store, fleet.pool);
    auto settings = orThrow(requests.settings(), "reading the migration settings");
    settings.backfillBatch = o.backfillBatch;
    settings.rollbackWindowSeconds = 0;
    orThrow(requests.setSettings(settings, fleet.actor), "setting the migration settings");
    fleet.controller
        = ServerProcess::start(pinned(o, 0,
                                   { o.controllerBinary, "--store", fleet.storeUri(), "--listen", "127.0.0.1:0", "--id",
                                       "bench", "--lease-ttl-ms", "2000", "--exit-with-parent" }),
            fleet.controllerLog());
}

// ---------------------------------------------------------------------------------------------
// Documents

std::vector<core::Document> toDocuments(const std::vector<BenchDoc>& docs, const std::string& space)
{
    std::vector<core::Document> out;
    out.reserve(docs.size());
    for (const auto& doc : docs)
        out.push_back(core::Document { space, doc.id, 1, { { "title", doc.title }, { "body", doc.body } }, false });
    return out;
}

std::uint64_t totalBytes(const std::vector<BenchDoc>& docs)
{
    std::uint64_t total = 0;
    for (const auto& doc : docs)
        total += doc.bytes();
    return total;
}

struct IngestResult {
    std::string name;
    std::size_t docs = 0;
    double seconds = 0;
    CpuUse cpu;
    double rate() const { return seconds > 0 ? static_cast<double>(docs) / seconds : 0; }
};

// Owner at epoch 1 on the shard, then every document in batches, one call at a time.
IngestResult bulkIngest(Fleet& fleet, core::NodeClient& client, const std::string& shard, const std::string& space,
    const std::vector<core::Document>& docs, std::size_t batch, const std::string& name)
{
    orThrow(client.setOwnership(shard, { space, core::SpaceRole::Owner, 1 }), "SetOwnership " + space);
    IngestResult result { name, docs.size(), 0, {} };
    const auto cpuBefore = fleet.cpu();
    const auto start = Clock::now();
    for (std::size_t from = 0; from < docs.size(); from += batch) {
        std::vector<core::WriteItem> items;
        for (std::size_t i = from; i < std::min(docs.size(), from + batch); ++i)
            items.push_back({ docs[i], 1 });
        const auto written = orThrow(client.bulkWrite(shard, items), "BulkWrite to " + shard);
        if (written.applied != items.size())
            throw std::runtime_error("a bulk write to " + shard + " did not apply every document");
    }
    result.seconds = secondsSince(start);
    result.cpu = fleet.cpuSince(cpuBefore);
    return result;
}

// The space record of a space written straight to a node: owner shard, epoch 1.
void createSpaceRecord(Fleet& fleet, const std::string& space, const std::string& shard)
{
    core::SpaceRecord record;
    record.id = space;
    record.shard = shard;
    record.epoch = 1;
    core::CommitRequest request;
    request.actor = fleet.actor.name;
    request.action = "bench-create-space";
    request.mutations.push_back({ core::keys::space(space), core::encode(record), 0 });
    orThrow(fleet.store->commit(request), "creating space " + space);
}

// ---------------------------------------------------------------------------------------------
// Migrations

std::optional<core::MigrationRecord> readMigration(core::MetadataStore& store, const std::string& id)
{
    auto listed = store.list(core::keys::migration(id));
    if (!listed)
        return std::nullopt;
    const auto found = listed->records.find(core::keys::migration(id));
    if (found == listed->records.end())
        return std::nullopt;
    auto decoded = core::decodeMigration(found->second.value);
    if (!decoded)
        return std::nullopt;
    return *decoded;
}

core::SpaceRecord readSpace(core::MetadataStore& store, const std::string& id)
{
    auto listed = orThrow(store.list(core::keys::space(id)), "reading space " + id);
    const auto found = listed.records.find(core::keys::space(id));
    if (found == listed.records.end())
        throw std::runtime_error("space " + id + " is not in the map");
    return orThrow(core::decodeSpace(found->second.value), "decoding space " + id);
}

// Polls the migration record until predicate holds; throws after timeout or if it failed.
core::MigrationRecord waitMigration(core::MetadataStore& store, const std::string& id,
    const std::function<bool(const core::MigrationRecord&)>& predicate, std::chrono::seconds timeout,
    std::chrono::milliseconds poll = std::chrono::milliseconds(20))
{
    const auto until = Clock::now() + timeout;
    std::optional<core::MigrationRecord> last;
    while (Clock::now() < until) {
        last = readMigration(store, id);
        if (last && predicate(*last))
            return *last;
        if (last && last->phase == core::MigrationPhase::Failed)
            throw std::runtime_error("migration " + id + " failed: " + last->error);
        std::this_thread::sleep_for(poll);
    }
    throw std::runtime_error("migration " + id + " did not get there within " + std::to_string(timeout.count())
        + " s; phase " + (last ? core::migrationPhaseName(last->phase) : "?") + ", status '"
        + (last ? last->status : "") + "', error '" + (last ? last->error : "") + "'");
}

bool isFinalRecord(const core::MigrationRecord& m)
{
    return core::isFinal(m.phase);
}

std::string queueMigration(Fleet& fleet, const std::string& space, const std::string& target, std::uint64_t throttle)
{
    core::MigrationRequests requests(*fleet.store, fleet.pool);
    return orThrow(requests.queue(space, target, fleet.actor, throttle), "queueing " + space + " to " + target).id;
}

std::string otherShard(const std::string& shard)
{
    return shard == "s0" ? "s1" : "s0";
}

// When each action of a migration was committed (first occurrence), from the audit history.
std::map<std::string, std::int64_t> auditTimes(core::MetadataStore& store, const std::string& id, std::uint64_t from)
{
    std::map<std::string, std::int64_t> times;
    const auto records = orThrow(store.history(from, 0, 0), "reading the audit history");
    const auto key = core::keys::migration(id);
    for (const auto& record : records) {
        for (const auto& change : record.changes) {
            if (change.key == key) {
                times.emplace(record.action, record.unixMs);
                break;
            }
        }
    }
    return times;
}

// ---------------------------------------------------------------------------------------------
// 1. Backfill against direct ingest

struct ProgressSample {
    double seconds = 0; // since the migration's backfill commit
    std::uint64_t docsDone = 0;
};

struct BackfillResult {
    std::string migration;
    std::string source;
    std::string target;
    std::uint64_t docsDone = 0;
    double backfillSeconds = 0; // "migration-backfill" -> "migration-verify" commits
    double startedToBackfilledSeconds = 0; // startedUnixMs -> "migration-verify"
    double verifySeconds = 0; // "migration-verify" -> "migration-cutover-start"
    double cutoverToDoneSeconds = 0; // "migration-cutover" -> "migration-done" (cleanup of the source)
    double totalSeconds = 0; // createdUnixMs -> finishedUnixMs
    double steadyRate = 0; // from progress samples, excluding the first and last second
    std::size_t progressCommits = 0;
    CpuUse cpu; // between queue and the verify commit
    std::vector<ProgressSample> samples;
    double rate() const { return backfillSeconds > 0 ? static_cast<double>(docsDone) / backfillSeconds : 0; }
};

BackfillResult runBackfill(Fleet& fleet, const std::string& space, std::size_t expectedDocs)
{
    const auto from = orThrow(fleet.store->currentRevision(), "reading the revision");
    const std::string source = readSpace(*fleet.store, space).shard;
    const std::string target = otherShard(source);
    BackfillResult result;
    result.source = source;
    result.target = target;
    const auto cpuBefore = fleet.cpu();
    result.migration = queueMigration(fleet, space, target, 0);
    // Progress as the executor saves it (every 250 ms), to see the rate over time.
    std::optional<std::int64_t> backfillStartMs;
    core::MigrationRecord m;
    for (;;) {
        m = waitMigration(
            *fleet.store, result.migration, [](const core::MigrationRecord&) { return true; },
            std::chrono::seconds(60));
        if (m.phase == core::MigrationPhase::Failed)
            throw std::runtime_error("migration failed: " + m.error);
        if (m.phase == core::MigrationPhase::Backfill && !backfillStartMs)
            backfillStartMs = nowUnixMicros() / 1000;
        if (backfillStartMs && (result.samples.empty() || result.samples.back().docsDone != m.progress.docsDone))
            result.samples.push_back(
                { static_cast<double>(nowUnixMicros() / 1000 - *backfillStartMs) / 1000.0, m.progress.docsDone });
        if (m.backfilled
            || !(m.phase == core::MigrationPhase::Queued || m.phase == core::MigrationPhase::DualWrite
                || m.phase == core::MigrationPhase::Backfill))
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    result.cpu = fleet.cpuSince(cpuBefore);
    m = waitMigration(*fleet.store, result.migration, isFinalRecord, std::chrono::seconds(600));
    if (m.phase != core::MigrationPhase::Done)
        throw std::runtime_error("migration " + result.migration + " ended " + core::migrationPhaseName(m.phase));
    result.docsDone = m.progress.docsDone;
    if (result.docsDone != expectedDocs)
        std::cerr << "warning: the backfill copied " << result.docsDone << " rows, expected " << expectedDocs << "\n";
    const auto times = auditTimes(*fleet.store, result.migration, from);
    auto at = [&](const std::string& action) {
        const auto found = times.find(action);
        if (found == times.end())
            throw std::runtime_error("no '" + action + "' audit record for " + result.migration);
        return found->second;
    };
    result.backfillSeconds = static_cast<double>(at("migration-verify") - at("migration-backfill")) / 1000.0;
    result.startedToBackfilledSeconds = static_cast<double>(at("migration-verify") - m.startedUnixMs) / 1000.0;
    result.verifySeconds = static_cast<double>(at("migration-cutover-start") - at("migration-verify")) / 1000.0;
    result.cutoverToDoneSeconds = static_cast<double>(m.finishedUnixMs - m.cutoverUnixMs) / 1000.0;
    result.totalSeconds = static_cast<double>(m.finishedUnixMs - m.createdUnixMs) / 1000.0;
    const auto records = orThrow(fleet.store->history(from, 0, 0), "reading the audit history");
    for (const auto& record : records) {
        if (record.action == "migration-progress")
            ++result.progressCommits;
    }
    // Steady rate: the samples between 1 s in and the last sample.
    const ProgressSample* first = nullptr;
    for (const auto& sample : result.samples) {
        if (sample.seconds >= 1.0 && sample.docsDone > 0) {
            first = &sample;
            break;
        }
    }
    if (first && result.samples.size() >= 2) {
        const auto& last = result.samples.back();
        if (last.seconds > first->seconds)
            result.steadyRate = static_cast<double>(last.docsDone - first->docsDone) / (last.seconds - first->seconds);
    }
    return result;
}

// ---------------------------------------------------------------------------------------------
// 1b. A replica's catch-up (issue 30) against the same direct ingest

struct CatchUpResult {
    std::string id;
    std::uint64_t docsDone = 0;
    double backfillSeconds = 0; // "catch-up-backfill" -> "catch-up-verify" commits
    double verifySeconds = 0; // "catch-up-verify" -> "catch-up-in-sync"
    double totalSeconds = 0; // createdUnixMs -> finishedUnixMs
    CpuUse cpu; // from the copy's commit to in sync
    double rate() const { return backfillSeconds > 0 ? static_cast<double>(docsDone) / backfillSeconds : 0; }
};

// Commits shard's record with (or, catchingUp false, without) a catching-up copy on node.
void setCopy(Fleet& fleet, const std::string& shard, const std::string& node, bool catchingUp)
{
    const auto listed = orThrow(fleet.store->list(core::keys::shard(shard)), "reading " + shard);
    const auto& stored = listed.records.at(core::keys::shard(shard));
    auto record = orThrow(core::decodeShard(stored.value), "decoding " + shard);
    record.replicas.clear();
    if (catchingUp)
        record.replicas.push_back({ node, core::CopyState::CatchingUp, 0, 0, core::nowUnixMs(), "migration_bench" });
    core::CommitRequest request;
    request.mutations.push_back({ core::keys::shard(shard), core::encode(record), stored.modRevision });
    request.actor = fleet.actor.name;
    request.action = catchingUp ? "bench-add-copy" : "bench-remove-copy";
    orThrow(fleet.store->commit(request), "committing the copy of " + shard);
}

// The copy of shard (on the other node) made from nothing by the executor's catch-up: its
// backfill time from the audit records, as the migration's in part 1. The copy is taken out of
// the map afterwards, so that the later parts see the fleet they always did.
CatchUpResult runCatchUp(Fleet& fleet, const std::string& shard, std::size_t copyNode, std::size_t expectedDocs)
{
    const auto from = orThrow(fleet.store->currentRevision(), "reading the revision");
    const std::string node = "n" + std::to_string(copyNode);
    orThrow(fleet.clients[copyNode]->createShard(shard, {}), "CreateShard " + shard + " on " + node);
    CatchUpResult result;
    const auto cpuBefore = fleet.cpu();
    setCopy(fleet, shard, node, true);
    const auto deadline = Clock::now() + std::chrono::seconds(600);
    core::MigrationRecord m;
    for (;;) {
        if (Clock::now() > deadline)
            throw std::runtime_error("the catch-up of " + shard + " on " + node + " did not end in 600 s");
        const auto map = orThrow(
            core::MapSnapshot::decode(orThrow(fleet.store->snapshot(), "reading the map")), "decoding the map");
        bool found = false;
        for (const auto& [id, versioned] : map.migrations) {
            if (versioned.value.isCatchUp() && versioned.value.source == shard && versioned.value.copyNode == node) {
                m = versioned.value;
                found = true;
            }
        }
        if (found && core::isFinal(m.phase))
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    result.cpu = fleet.cpuSince(cpuBefore);
    if (m.phase != core::MigrationPhase::Done)
        throw std::runtime_error("catch-up " + m.id + " ended " + core::migrationPhaseName(m.phase) + ": " + m.status);
    result.id = m.id;
    result.docsDone = m.progress.docsDone;
    if (result.docsDone != expectedDocs)
        std::cerr << "warning: the catch-up copied " << result.docsDone << " rows, expected " << expectedDocs << "\n";
    const auto times = auditTimes(*fleet.store, m.id, from);
    auto at = [&](const std::string& action) {
        const auto found = times.find(action);
        if (found == times.end())
            throw std::runtime_error("no '" + action + "' audit record for " + m.id);
        return found->second;
    };
    result.backfillSeconds = static_cast<double>(at("catch-up-verify") - at("catch-up-backfill")) / 1000.0;
    result.verifySeconds = static_cast<double>(at("catch-up-in-sync") - at("catch-up-verify")) / 1000.0;
    result.totalSeconds = static_cast<double>(m.finishedUnixMs - m.createdUnixMs) / 1000.0;
    setCopy(fleet, shard, node, false);
    return result;
}

// ---------------------------------------------------------------------------------------------
// 3. Search on the source, idle and during a backfill

struct SearchRow {
    std::string name;
    std::string shard;
    std::string space;
    Latency latency;
    double seconds = 0;
    std::uint64_t docsCopied = 0; // by the migration during the window
    std::size_t errors = 0;
    double avgHits = 0;
    CpuUse cpu; // during the window
};

class SearchLoop final {
public:
    SearchLoop(core::NodeClient& client, std::string shard, std::string space, const Corpus& corpus, const Options& o)
        : m_client(client)
        , m_shard(std::move(shard))
        , m_space(std::move(space))
    {
        for (std::size_t rank = o.queryMinRank; rank < std::min(o.queryMaxRank, corpus.vocabularySize()); ++rank)
            m_words.push_back(corpus.word(rank));
        if (m_words.empty())
            m_words.push_back(corpus.word(0));
        m_thread = std::thread([this] { run(); });
    }
    ~SearchLoop() { stop(); }
    SearchLoop(const SearchLoop&) = delete;
    SearchLoop& operator=(const SearchLoop&) = delete;

    void stop()
    {
        m_stop = true;
        if (m_thread.joinable())
            m_thread.join();
    }
    // After stop().
    const std::vector<double>& millis() const { return m_millis; }
    std::size_t errors() const { return m_errors; }
    double avgHits() const
    {
        return m_millis.empty() ? 0 : static_cast<double>(m_hits) / static_cast<double>(m_millis.size());
    }

private:
    void run()
    {
        for (std::size_t n = 0; !m_stop.load(); ++n) {
            core::ShardSearchRequest request;
            request.spaces = { m_space };
            request.query = m_words[n % m_words.size()];
            request.limit = kSearchLimit;
            const auto start = Clock::now();
            auto result = m_client.search(m_shard, request);
            const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
            if (!result) {
                ++m_errors;
                continue;
            }
            m_millis.push_back(ms);
            m_hits += result->hits.size();
        }
    }

    core::NodeClient& m_client;
    std::string m_shard;
    std::string m_space;
    std::vector<std::string> m_words;
    std::atomic<bool> m_stop { false };
    std::vector<double> m_millis;
    std::size_t m_errors = 0;
    std::uint64_t m_hits = 0;
    std::thread m_thread;
};

SearchRow idleSearch(Fleet& fleet, const Corpus& corpus, const Options& o, const std::string& space)
{
    const std::string shard = readSpace(*fleet.store, space).shard;
    SearchRow row { "idle", shard, space, {}, 0, 0, 0, 0, {} };
    const auto cpuBefore = fleet.cpu();
    const auto start = Clock::now();
    SearchLoop loop(fleet.client(shard), shard, space, corpus, o);
    std::this_thread::sleep_for(std::chrono::duration<double>(o.searchSeconds));
    loop.stop();
    row.seconds = secondsSince(start);
    row.cpu = fleet.cpuSince(cpuBefore);
    row.latency = summarize(loop.millis());
    row.errors = loop.errors();
    row.avgHits = loop.avgHits();
    return row;
}

// Queues a move of the space off its shard, searches the source from the moment the backfill
// starts until it ends or `seconds` passed, then cancels the migration if it has not cut over yet
// and waits for it to finish.
SearchRow searchDuringBackfill(Fleet& fleet, const Corpus& corpus, const Options& o, const std::string& space,
    std::uint64_t throttle, const std::string& name, std::string& migrationOut)
{
    const std::string shard = readSpace(*fleet.store, space).shard;
    SearchRow row { name, shard, space, {}, 0, 0, 0, 0, {} };
    const auto id = queueMigration(fleet, space, otherShard(shard), throttle);
    migrationOut = id;
    auto m = waitMigration(
        *fleet.store, id,
        [](const core::MigrationRecord& r) {
            return r.phase != core::MigrationPhase::Queued && r.phase != core::MigrationPhase::DualWrite;
        },
        std::chrono::seconds(60), std::chrono::milliseconds(5));
    const std::uint64_t docsBefore = m.progress.docsDone;
    {
        const auto cpuBefore = fleet.cpu();
        const auto start = Clock::now();
        SearchLoop loop(fleet.client(shard), shard, space, corpus, o);
        while (secondsSince(start) < o.searchSeconds) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            auto fresh = readMigration(*fleet.store, id);
            if (fresh)
                m = *fresh;
            if (m.backfilled || m.phase != core::MigrationPhase::Backfill)
                break;
        }
        loop.stop();
        row.seconds = secondsSince(start);
        row.cpu = fleet.cpuSince(cpuBefore);
        row.latency = summarize(loop.millis());
        row.errors = loop.errors();
        row.avgHits = loop.avgHits();
    }
    core::MigrationRequests requests(*fleet.store, fleet.pool);
    if (auto cancelled = requests.cancel(id, fleet.actor); !cancelled)
        std::cerr << "note: cancel of " << id << " refused (" << cancelled.error().message << "); letting it finish\n";
    m = waitMigration(*fleet.store, id, isFinalRecord, std::chrono::seconds(600));
    // docsDone at the last progress save before the window closed is what the migration copied
    // while the searches ran (to within one progress interval).
    row.docsCopied = m.progress.docsDone - std::min(m.progress.docsDone, docsBefore);
    return row;
}

// ---------------------------------------------------------------------------------------------
// 2. Cutover write pause

struct WriteCall {
    std::int64_t startUs = 0; // wall clock, unix microseconds
    std::int64_t endUs = 0;
    double ms = 0; // steady clock
    bool ok = true;
    std::uint32_t retries = 0;
};

class Writer final {
public:
    Writer(const std::string& address, std::string space, std::vector<BenchDoc> docs, std::uint64_t firstVersion,
        unsigned pauseMicros)
        : m_space(std::move(space))
        , m_docs(std::move(docs))
        , m_version(firstVersion)
        , m_pause(pauseMicros)
    {
        grpc::ChannelArguments args;
        args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
        auto channel = grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
        if (!channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(20)))
            throw std::runtime_error("cannot connect to shardmapd at " + address);
        m_stub = v1::Router::NewStub(channel);
    }
    ~Writer() { stop(); }
    Writer(const Writer&) = delete;
    Writer& operator=(const Writer&) = delete;

    // Writes every document once, in batches of 500 (creates nothing: the space must exist).
    void prefill()
    {
        for (std::size_t from = 0; from < m_docs.size(); from += 500) {
            std::vector<std::size_t> indexes;
            for (std::size_t i = from; i < std::min(m_docs.size(), from + 500); ++i)
                indexes.push_back(i);
            std::string error;
            if (!write(indexes, error).ok)
                throw std::runtime_error("prefilling " + m_space + " through shardmapd: " + error);
        }
    }
    void start()
    {
        m_thread = std::thread([this] { run(); });
    }
    void stop()
    {
        m_stop = true;
        if (m_thread.joinable())
            m_thread.join();
    }
    // After stop().
    const std::vector<WriteCall>& calls() const { return m_calls; }
    const std::string& firstError() const { return m_firstError; }

private:
    WriteCall write(const std::vector<std::size_t>& indexes, std::string& error)
    {
        v1::RouterWriteRequest request;
        const std::uint64_t version = ++m_version;
        for (const auto i : indexes) {
            auto* doc = request.add_docs();
            doc->set_space(m_space);
            doc->set_id(m_docs[i].id);
            doc->set_version(version);
            (*doc->mutable_fields())["title"] = m_docs[i].title;
            (*doc->mutable_fields())["body"] = m_docs[i].body;
        }
        grpc::ClientContext context;
        context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
        v1::RouterWriteResponse response;
        WriteCall call;
        call.startUs = nowUnixMicros();
        const auto start = Clock::now();
        const auto status = m_stub->BulkWrite(&context, request, &response);
        call.ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        call.endUs = call.startUs + static_cast<std::int64_t>(call.ms * 1000);
        call.retries = response.retries();
        if (!status.ok()) {
            call.ok = false;
            error = "BulkWrite: " + std::to_string(status.error_code()) + " " + status.error_message();
        } else if (response.applied() != indexes.size()) {
            call.ok = false;
            error = "applied " + std::to_string(response.applied()) + " of " + std::to_string(indexes.size());
            for (const auto& item : response.results()) {
                if (!item.reason().empty()) {
                    error += ": " + item.reason();
                    break;
                }
            }
        }
        return call;
    }

    void run()
    {
        SplitMix64 rng(7);
        std::vector<std::size_t> indexes;
        while (!m_stop.load()) {
            indexes.clear();
            const std::size_t count = 1 + rng.below(4);
            const std::size_t first = rng.below(m_docs.size());
            for (std::size_t k = 0; k < count; ++k)
                indexes.push_back((first + k) % m_docs.size());
            std::string error;
            m_calls.push_back(write(indexes, error));
            if (!m_calls.back().ok && m_firstError.empty())
                m_firstError = error;
            if (m_pause > 0)
                std::this_thread::sleep_for(std::chrono::microseconds(m_pause));
        }
    }

    std::string m_space;
    std::vector<BenchDoc> m_docs;
    std::uint64_t m_version;
    unsigned m_pause;
    std::unique_ptr<v1::Router::Stub> m_stub;
    std::atomic<bool> m_stop { false };
    std::vector<WriteCall> m_calls;
    std::string m_firstError;
    std::thread m_thread;
};

struct CutoverSample {
    std::string migration;
    std::string from;
    std::string to;
    std::int64_t cutoverStartMs = 0; // the "migration-cutover-start" commit (phase cutover)
    std::int64_t cutoverMs = 0; // cutoverUnixMs: just before the commit that switches the owner
    double inFlightMs = 0; // longest write call in flight at cutoverUnixMs (0: none)
    // The same among calls that started after the backfill ended (the "migration-verify" commit): a
    // dual write that started earlier may have waited behind a backfill batch on the target.
    double inFlightAfterBackfillMs = 0;
    double windowMaxMs = 0; // longest write call overlapping [cutover start commit, done commit]
    std::size_t windowCalls = 0;
    std::uint32_t windowRetries = 0;
    double heldMs = -1; // the executor's "writes held" (fence -> commit), from shardmapd's log
    double migrationSeconds = 0; // created -> finished
};

struct CutoverResult {
    std::vector<CutoverSample> samples;
    Latency idleWrites; // before the first migration
    Latency dualWrites; // while dual writing (backfill, verify), away from cutovers
    Latency betweenWrites; // after the first migration, outside every migration's dual write and cutover
    Latency pause; // over cutovers: inFlightMs
    Latency pauseAfterBackfill; // over cutovers: inFlightAfterBackfillMs
    Latency windowPause; // over cutovers: windowMaxMs
    Latency held; // over cutovers: heldMs
    std::size_t calls = 0;
    std::size_t failed = 0;
    std::uint64_t retries = 0;
    std::string firstError;
    double seconds = 0;
};

// "writes held X ms" per migration id, from shardmapd's log.
std::map<std::string, double> heldFromLog(const std::string& path)
{
    std::map<std::string, double> held;
    std::ifstream in(path);
    const std::regex pattern(R"(migration (\S+): .* cut over to .* writes held ([0-9.]+) ms)");
    for (std::string line; std::getline(in, line);) {
        std::smatch match;
        if (std::regex_search(line, match, pattern))
            held[match[1].str()] = std::stod(match[2].str());
    }
    return held;
}

CutoverResult runCutovers(Fleet& fleet, const Options& o, const Corpus& corpus)
{
    const std::string space = "hot";
    createSpaceRecord(fleet, space, "s0");
    orThrow(fleet.client("s0").setOwnership("s0", { space, core::SpaceRole::Owner, 1 }), "SetOwnership hot");
    // Documents after the N of the backfill test: other text, and ids of their own.
    auto docs = shardmap::bench::generateDocs(corpus, o.docs, o.hotDocs, 2);
    Writer writer(fleet.controller->address(), space, std::move(docs), 1, o.writerPauseMicros);
    writer.prefill();
    const auto from = orThrow(fleet.store->currentRevision(), "reading the revision");
    CutoverResult result;
    const auto start = Clock::now();
    writer.start();
    std::this_thread::sleep_for(std::chrono::duration<double>(o.writerIdleSeconds));
    const std::int64_t migrationsStartUs = nowUnixMicros();
    std::vector<std::string> ids;
    for (std::size_t k = 0; k < o.cutovers; ++k) {
        const std::string shard = readSpace(*fleet.store, space).shard;
        const auto id = queueMigration(fleet, space, otherShard(shard), o.cutoverThrottle);
        ids.push_back(id);
        const auto m = waitMigration(*fleet.store, id, isFinalRecord, std::chrono::seconds(120));
        if (m.phase != core::MigrationPhase::Done)
            throw std::runtime_error("migration " + id + " of hot ended " + core::migrationPhaseName(m.phase));
        std::cerr << "  cutover " << (k + 1) << "/" << o.cutovers << " " << m.source << " -> " << m.target << "\r"
                  << std::flush;
    }
    std::cerr << "\n";
    writer.stop();
    result.seconds = secondsSince(start);
    const auto& calls = writer.calls();
    result.calls = calls.size();
    result.firstError = writer.firstError();
    for (const auto& call : calls) {
        result.failed += call.ok ? 0 : 1;
        result.retries += call.retries;
    }
    // Give shardmapd a moment to flush its log.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const auto held = heldFromLog(fleet.controllerLog());
    // Microseconds: dual writing (dual-write commit -> cutover start), cutover (-> done).
    std::vector<std::pair<std::int64_t, std::int64_t>> dualWindows;
    std::vector<std::pair<std::int64_t, std::int64_t>> windows;
    for (const auto& id : ids) {
        const auto m = *readMigration(*fleet.store, id);
        const auto times = auditTimes(*fleet.store, id, from);
        CutoverSample sample;
        sample.migration = id;
        sample.from = m.source;
        sample.to = m.target;
        sample.cutoverMs = m.cutoverUnixMs;
        const auto startAt = times.find("migration-cutover-start");
        sample.cutoverStartMs = startAt != times.end() ? startAt->second : m.cutoverUnixMs;
        sample.migrationSeconds = static_cast<double>(m.finishedUnixMs - m.createdUnixMs) / 1000.0;
        const std::int64_t atUs = m.cutoverUnixMs * 1000;
        const auto verifyAt = times.find("migration-verify");
        const std::int64_t backfilledUs = verifyAt != times.end() ? verifyAt->second * 1000 : 0;
        const std::int64_t windowFrom = sample.cutoverStartMs * 1000;
        const std::int64_t windowTo = std::max(m.finishedUnixMs, m.cutoverUnixMs + kCutoverTailMs) * 1000;
        windows.emplace_back(windowFrom, windowTo);
        if (const auto dual = times.find("migration-dual-write"); dual != times.end())
            dualWindows.emplace_back(dual->second * 1000, windowFrom);
        for (const auto& call : calls) {
            // cutoverUnixMs has millisecond resolution: in flight at any moment of that millisecond.
            if (call.startUs <= atUs + 999 && call.endUs >= atUs) {
                sample.inFlightMs = std::max(sample.inFlightMs, call.ms);
                if (call.startUs >= backfilledUs)
                    sample.inFlightAfterBackfillMs = std::max(sample.inFlightAfterBackfillMs, call.ms);
            }
            if (call.startUs <= windowTo && call.endUs >= windowFrom) {
                sample.windowMaxMs = std::max(sample.windowMaxMs, call.ms);
                ++sample.windowCalls;
                sample.windowRetries += call.retries;
            }
        }
        if (const auto found = held.find(id); found != held.end())
            sample.heldMs = found->second;
        result.samples.push_back(sample);
    }
    if (!o.callsCsv.empty()) {
        std::ofstream csv(o.callsCsv);
        csv << "kind,start_unix_us,ms,retries,ok,detail\n";
        for (const auto& call : calls)
            csv << "call," << call.startUs << "," << call.ms << "," << call.retries << "," << (call.ok ? 1 : 0)
                << ",\n";
        for (const auto& id : ids) {
            for (const auto& [action, unixMs] : auditTimes(*fleet.store, id, from))
                csv << "commit," << unixMs * 1000 << ",0,0,1," << id << " " << action << "\n";
            const auto m = *readMigration(*fleet.store, id);
            csv << "commit," << m.cutoverUnixMs * 1000 << ",0,0,1," << id << " cutoverUnixMs\n";
        }
    }
    std::vector<double> idle;
    std::vector<double> dualWriting;
    std::vector<double> between;
    auto overlaps = [](const WriteCall& call, const std::vector<std::pair<std::int64_t, std::int64_t>>& list) {
        for (const auto& [windowFrom, windowTo] : list) {
            if (call.startUs <= windowTo && call.endUs >= windowFrom)
                return true;
        }
        return false;
    };
    for (const auto& call : calls) {
        if (!call.ok)
            continue;
        if (call.endUs < migrationsStartUs)
            idle.push_back(call.ms);
        else if (overlaps(call, windows))
            continue;
        else if (overlaps(call, dualWindows))
            dualWriting.push_back(call.ms);
        else
            between.push_back(call.ms);
    }
    result.idleWrites = summarize(idle);
    result.dualWrites = summarize(dualWriting);
    result.betweenWrites = summarize(between);
    std::vector<double> pauses, pausesAfterBackfill, windowPauses, helds;
    for (const auto& sample : result.samples) {
        pauses.push_back(sample.inFlightMs);
        pausesAfterBackfill.push_back(sample.inFlightAfterBackfillMs);
        windowPauses.push_back(sample.windowMaxMs);
        if (sample.heldMs >= 0)
            helds.push_back(sample.heldMs);
    }
    result.pause = summarize(pauses);
    result.pauseAfterBackfill = summarize(pausesAfterBackfill);
    result.windowPause = summarize(windowPauses);
    result.held = summarize(helds);
    return result;
}

// ---------------------------------------------------------------------------------------------
// Report

struct Report {
    Options options;
    std::string command;
    std::string date;
    std::string loadBefore;
    std::string loadAfter;
    double avgDocBytes = 0;
    std::optional<IngestResult> direct;
    std::optional<IngestResult> load; // "big" into s0, for reference
    std::optional<BackfillResult> backfill;
    std::optional<CatchUpResult> catchUp;
    std::vector<SearchRow> search;
    std::vector<std::string> searchMigrations;
    std::optional<CutoverResult> cutover;
    double seconds = 0;
};

const char* verdict(bool met)
{
    return met ? "met" : "NOT met";
}

void printCpu(const char* label, const CpuUse& cpu, double seconds)
{
    std::printf("    %-34s bench %.1f s, node0 %.1f s, node1 %.1f s, shardmapd %.1f s of CPU in %.1f s wall\n", label,
        cpu.bench, cpu.node0, cpu.node1, cpu.controller, seconds);
}

void printReport(const Report& r)
{
    const auto& o = r.options;
    std::printf("migration_bench  %s\n", r.date.c_str());
    std::printf("  machine: %u CPUs, %s; load average before %s, after %s\n", std::thread::hardware_concurrency(),
        cpuModel().c_str(), r.loadBefore.c_str(), r.loadAfter.c_str());
    std::printf("  command: %s\n", r.command.c_str());
    std::printf("  docs %zu (avg %.0f bytes of title + body), batch %zu, backfill batch %u, cutovers %zu, hot docs "
                "%zu, search %.0f s, throttle %llu docs/s; total %.0f s\n\n",
        o.docs, r.avgDocBytes, o.batch, o.backfillBatch, o.cutovers, o.hotDocs, o.searchSeconds,
        static_cast<unsigned long long>(o.throttle), r.seconds);

    if (r.direct && r.backfill) {
        const auto& d = *r.direct;
        const auto& b = *r.backfill;
        std::printf("1. Backfill against direct bulk ingest (same %zu documents)\n", d.docs);
        std::printf("  %-52s %9s %10s\n", "", "seconds", "docs/s");
        std::printf("  %-52s %9.2f %10.0f\n", d.name.c_str(), d.seconds, d.rate());
        if (r.load)
            std::printf("  %-52s %9.2f %10.0f\n", r.load->name.c_str(), r.load->seconds, r.load->rate());
        const std::string name = "backfill " + b.source + " -> " + b.target + " (audit: backfill -> verify)";
        std::printf("  %-52s %9.2f %10.0f\n", name.c_str(), b.backfillSeconds, b.rate());
        std::printf("  %-52s %9.2f %10.0f\n", "  same, from startedUnixMs", b.startedToBackfilledSeconds,
            b.startedToBackfilledSeconds > 0 ? static_cast<double>(b.docsDone) / b.startedToBackfilledSeconds : 0);
        std::printf("  %-52s %9s %10.0f\n", "  steady rate from progress records (after 1 s)", "", b.steadyRate);
        const double ratio = d.rate() > 0 ? b.rate() / d.rate() : 0;
        std::printf(
            "  ratio backfill / direct: %.2f (target >= 0.70: %s); backfill %.0f docs/s (target >= 5,000: %s)\n", ratio,
            verdict(ratio >= 0.7), b.rate(), verdict(b.rate() >= 5000));
        std::printf("  migration %s: %llu rows copied, %zu progress commits; verify %.2f s, cutover -> done (cleanup) "
                    "%.2f s, queued -> done %.2f s\n",
            b.migration.c_str(), static_cast<unsigned long long>(b.docsDone), b.progressCommits, b.verifySeconds,
            b.cutoverToDoneSeconds, b.totalSeconds);
        printCpu("direct ingest:", d.cpu, d.seconds);
        printCpu("backfill (queue -> copied):", b.cpu, b.startedToBackfilledSeconds);
        std::printf("\n");
    }
    if (r.direct && r.catchUp) {
        const auto& d = *r.direct;
        const auto& c = *r.catchUp;
        std::printf("1b. A replica's catch-up against the same direct ingest\n");
        std::printf("  %-52s %9s %10s\n", "", "seconds", "docs/s");
        std::printf("  %-52s %9.2f %10.0f\n", d.name.c_str(), d.seconds, d.rate());
        std::printf("  %-52s %9.2f %10.0f\n", "catch-up of s1's copy on node 0 (backfill -> verify)", c.backfillSeconds,
            c.rate());
        const double ratio = d.rate() > 0 ? c.rate() / d.rate() : 0;
        std::printf("  ratio catch-up / direct: %.2f (target >= 0.70: %s)\n", ratio, verdict(ratio >= 0.7));
        std::printf("  catch-up %s: %llu rows copied; verify %.2f s, queued -> in sync %.2f s\n", c.id.c_str(),
            static_cast<unsigned long long>(c.docsDone), c.verifySeconds, c.totalSeconds);
        printCpu("catch-up (copy added -> in sync):", c.cpu, c.totalSeconds);
        std::printf("\n");
    }

    if (r.cutover) {
        const auto& c = *r.cutover;
        std::printf("2. Cutover write pause (%zu cutovers of 'hot', %zu docs; writer: 1-4 docs per call through "
                    "shardmapd)\n",
            c.samples.size(), o.hotDocs);
        std::printf("  %-58s %6s %8s %8s %8s\n", "", "n", "p50 ms", "p99 ms", "max ms");
        auto row = [](const char* name, const Latency& l) {
            std::printf("  %-58s %6zu %8.2f %8.2f %8.2f\n", name, l.count, l.p50, l.p99, l.max);
        };
        row("pause: longest write in flight at cutoverUnixMs", c.pause);
        row("  same, among writes started after the backfill ended", c.pauseAfterBackfill);
        row("longest write overlapping [cutover start, done] commits", c.windowPause);
        row("executor's 'writes held' (fence -> commit, shardmapd log)", c.held);
        row("writes before any migration", c.idleWrites);
        row("writes while dual writing (backfill, verify)", c.dualWrites);
        row("writes between migrations (queued, single owner)", c.betweenWrites);
        std::printf("  target p99 <= 50 ms: %s; %zu write calls, %zu failed, %llu router retries%s%s\n",
            verdict(c.pause.p99 <= 50), c.calls, c.failed, static_cast<unsigned long long>(c.retries),
            c.firstError.empty() ? "" : "; first failure: ", c.firstError.c_str());
        std::printf("  per cutover (ms): in flight / window max [calls, retries] / held:");
        for (std::size_t i = 0; i < c.samples.size(); ++i) {
            const auto& s = c.samples[i];
            std::printf("%s%.1f/%.1f[%zu,%u]/%.1f", i % 6 == 0 ? "\n    " : "  ", s.inFlightMs, s.windowMaxMs,
                s.windowCalls, s.windowRetries, s.heldMs);
        }
        std::printf("\n\n");
    }

    if (!r.search.empty()) {
        std::printf("3. Search on the source shard (sequential, one space, limit %u, words of frequency ranks "
                    "[%zu, %zu))\n",
            kSearchLimit, o.queryMinRank, o.queryMaxRank);
        std::printf("  %-34s %6s %5s %7s %8s %8s %8s %11s %6s\n", "", "shard", "s", "queries", "p50 ms", "p99 ms",
            "max ms", "copied docs", "errors");
        const SearchRow* idle = nullptr;
        for (const auto& row : r.search) {
            std::printf("  %-34s %6s %5.1f %7zu %8.2f %8.2f %8.2f %11llu %6zu", row.name.c_str(), row.shard.c_str(),
                row.seconds, row.latency.count, row.latency.p50, row.latency.p99, row.latency.max,
                static_cast<unsigned long long>(row.docsCopied), row.errors);
            if (row.name == "idle") {
                idle = &row;
                std::printf("\n");
            } else if (idle && idle->latency.p99 > 0) {
                const double ratio = row.latency.p99 / idle->latency.p99;
                std::printf("   p99 %.2fx idle (target <= 1.2: %s), p50 %.2fx\n", ratio, verdict(ratio <= 1.2),
                    idle->latency.p50 > 0 ? row.latency.p50 / idle->latency.p50 : 0);
            } else {
                std::printf("\n");
            }
        }
        std::printf("  CPU seconds during each window (bench = the search client):\n");
        for (const auto& row : r.search)
            printCpu((row.name + ":").c_str(), row.cpu, row.seconds);
        std::printf("\n");
    }
}

nlohmann::json toJson(const Report& r)
{
    const auto& o = r.options;
    nlohmann::json out;
    out["date"] = r.date;
    out["machine"] = { { "cpus", std::thread::hardware_concurrency() }, { "cpu_model", cpuModel() },
        { "load_before", r.loadBefore }, { "load_after", r.loadAfter } };
    out["command"] = r.command;
    out["config"] = { { "docs", o.docs }, { "batch", o.batch }, { "backfill_batch", o.backfillBatch },
        { "cutovers", o.cutovers }, { "hot_docs", o.hotDocs }, { "search_seconds", o.searchSeconds },
        { "throttle", o.throttle }, { "query_ranks", { o.queryMinRank, o.queryMaxRank } }, { "seed", o.seed },
        { "avg_doc_bytes", r.avgDocBytes } };
    if (r.direct && r.backfill) {
        const auto& d = *r.direct;
        const auto& b = *r.backfill;
        out["backfill"] = { { "direct_seconds", d.seconds }, { "direct_docs_per_second", d.rate() },
            { "direct_cpu", toJson(d.cpu) }, { "migration", b.migration }, { "docs", b.docsDone },
            { "backfill_seconds", b.backfillSeconds }, { "backfill_docs_per_second", b.rate() },
            { "started_to_backfilled_seconds", b.startedToBackfilledSeconds },
            { "steady_docs_per_second", b.steadyRate }, { "ratio", d.rate() > 0 ? b.rate() / d.rate() : 0 },
            { "progress_commits", b.progressCommits }, { "verify_seconds", b.verifySeconds },
            { "cutover_to_done_seconds", b.cutoverToDoneSeconds }, { "total_seconds", b.totalSeconds },
            { "backfill_cpu", toJson(b.cpu) } };
        if (r.load)
            out["backfill"]["load_source_docs_per_second"] = r.load->rate();
    }
    if (r.direct && r.catchUp) {
        const auto& c = *r.catchUp;
        out["catch_up"] = { { "id", c.id }, { "docs", c.docsDone }, { "backfill_seconds", c.backfillSeconds },
            { "docs_per_second", c.rate() }, { "ratio", r.direct->rate() > 0 ? c.rate() / r.direct->rate() : 0 },
            { "verify_seconds", c.verifySeconds }, { "total_seconds", c.totalSeconds }, { "cpu", toJson(c.cpu) } };
    }
    if (r.cutover) {
        const auto& c = *r.cutover;
        out["cutover"] = { { "cutovers", c.samples.size() }, { "pause", toJson(c.pause) },
            { "pause_after_backfill", toJson(c.pauseAfterBackfill) }, { "window_pause", toJson(c.windowPause) },
            { "held", toJson(c.held) }, { "idle_writes", toJson(c.idleWrites) },
            { "dual_writes", toJson(c.dualWrites) }, { "between_writes", toJson(c.betweenWrites) },
            { "calls", c.calls }, { "failed", c.failed }, { "retries", c.retries } };
        for (const auto& s : c.samples)
            out["cutover"]["samples"].push_back({ { "migration", s.migration }, { "from", s.from }, { "to", s.to },
                { "in_flight_ms", s.inFlightMs }, { "in_flight_after_backfill_ms", s.inFlightAfterBackfillMs },
                { "window_max_ms", s.windowMaxMs }, { "window_calls", s.windowCalls }, { "held_ms", s.heldMs },
                { "cutover_start_to_cutover_ms", s.cutoverMs - s.cutoverStartMs },
                { "migration_seconds", s.migrationSeconds } });
    }
    for (const auto& row : r.search)
        out["search"].push_back({ { "name", row.name }, { "shard", row.shard }, { "seconds", row.seconds },
            { "latency", toJson(row.latency) }, { "docs_copied", row.docsCopied }, { "errors", row.errors },
            { "avg_hits", row.avgHits }, { "cpu", toJson(row.cpu) } });
    return out;
}

// ---------------------------------------------------------------------------------------------

void runBenchmark(Report& report, const std::filesystem::path& workDir)
{
    const auto& o = report.options;
    const Corpus corpus(CorpusOptions { o.seed, o.vocabulary, 50, "bench-" });
    std::cerr << "generating " << o.docs << " documents...\n";
    const auto generated
        = shardmap::bench::generateDocs(corpus, 0, o.docs, std::max(1U, std::thread::hardware_concurrency()));
    report.avgDocBytes = static_cast<double>(totalBytes(generated)) / static_cast<double>(generated.size());

    Fleet fleet;
    fleet.dir = workDir;
    startFleet(fleet, o);
    std::cerr << "nodes at " << fleet.nodes[0]->address() << ", " << fleet.nodes[1]->address() << "; shardmapd at "
              << fleet.controller->address() << "\n";

    const bool needBig = !o.skipBackfill || !o.skipSearch;
    if (!o.skipBackfill) {
        // (a) direct: a fresh shard on node 1, the node the backfill writes to.
        std::cerr << "direct bulk ingest into a fresh shard on node 1...\n";
        orThrow(fleet.clients[1]->createShard("direct", {}, std::nullopt, targetIndex(o)), "CreateShard direct");
        report.direct = bulkIngest(fleet, *fleet.clients[1], "direct", "direct", toDocuments(generated, "direct"),
            o.batch, "direct bulkWrite, node 1, fresh shard");
    }
    if (needBig) {
        std::cerr << "loading 'big' on s0...\n";
        report.load = bulkIngest(fleet, *fleet.clients[0], "s0", "big", toDocuments(generated, "big"), o.batch,
            "same, into s0 on node 0 (the source; reference)");
        createSpaceRecord(fleet, "big", "s0");
    }
    if (!o.skipBackfill) {
        std::cerr << "migrating 'big' s0 -> s1 (backfill measured)...\n";
        report.backfill = runBackfill(fleet, "big", o.docs);
        // 'big' is on s1 now (node 1): its copy is made on node 0.
        std::cerr << "catch-up of a new copy of s1 on node 0 (issue 30)...\n";
        report.catchUp = runCatchUp(fleet, "s1", 0, o.docs);
    }
    if (!o.skipSearch) {
        std::string id;
        std::cerr << "search, idle...\n";
        report.search.push_back(idleSearch(fleet, corpus, o, "big"));
        std::cerr << "search during an unthrottled backfill...\n";
        report.search.push_back(searchDuringBackfill(fleet, corpus, o, "big", 0, "during backfill, unthrottled", id));
        report.searchMigrations.push_back(id);
        std::cerr << "search, idle...\n";
        report.search.push_back(idleSearch(fleet, corpus, o, "big"));
        std::cerr << "search during a backfill throttled to " << o.throttle << " docs/s...\n";
        report.search.push_back(searchDuringBackfill(
            fleet, corpus, o, "big", o.throttle, "during backfill, " + std::to_string(o.throttle) + " docs/s", id));
        report.searchMigrations.push_back(id);
    }
    if (!o.skipCutover) {
        std::cerr << "cutovers of 'hot' with a writer through shardmapd...\n";
        report.cutover = runCutovers(fleet, o, corpus);
    }
    if (fleet.controller->stop() != 0)
        std::cerr << "warning: shardmapd did not exit cleanly; see " << fleet.controllerLog() << "\n";
    for (auto& node : fleet.nodes)
        node->stop();
}

void addOptions(CLI::App& app, Options& o)
{
    app.add_option("--docs", o.docs, "Documents of the backfill test (and of the space searched)")
        ->capture_default_str()
        ->check(CLI::Range(1000, 10000000));
    app.add_option("--batch", o.batch, "Documents per direct BulkWrite")
        ->capture_default_str()
        ->check(CLI::Range(1, 10000));
    app.add_option("--backfill-batch", o.backfillBatch, "MigrationSettings.backfillBatch")
        ->capture_default_str()
        ->check(CLI::Range(1, 5000));
    app.add_option("--cutovers", o.cutovers, "Migrations of the hot space (back and forth)")
        ->capture_default_str()
        ->check(CLI::Range(1, 10000));
    app.add_option("--hot-docs", o.hotDocs, "Documents of the hot space")
        ->capture_default_str()
        ->check(CLI::Range(10, 1000000));
    app.add_option("--search-seconds", o.searchSeconds, "Length of each search window")
        ->capture_default_str()
        ->check(CLI::Range(0.5, 3600.0));
    app.add_option("--query-min-rank", o.queryMinRank, "Searches use the words of frequency ranks [min, max)")
        ->capture_default_str();
    app.add_option("--query-max-rank", o.queryMaxRank, "(0 is the most frequent word)")->capture_default_str();
    app.add_option("--throttle", o.throttle, "docs/s of the throttled backfill row")
        ->capture_default_str()
        ->check(CLI::Range(1, 100000000));
    app.add_option("--cutover-throttle", o.cutoverThrottle, "docs/s of test 2's migrations of the hot space (0: none)")
        ->capture_default_str()
        ->check(CLI::Range(0, 100000000));
    app.add_option("--writer-idle-seconds", o.writerIdleSeconds, "Writer-only time before the first cutover")
        ->capture_default_str();
    app.add_option("--writer-pause-us", o.writerPauseMicros, "Pause between the writer's calls")->capture_default_str();
    app.add_option("--vocabulary", o.vocabulary, "Distinct pseudo-words")->capture_default_str();
    app.add_option("--seed", o.seed, "Corpus seed")->capture_default_str();
    app.add_option("--node-binary", o.nodeBinary, "shardmap-node to start")->capture_default_str();
    app.add_option("--controller-binary", o.controllerBinary, "shardmapd to start")->capture_default_str();
    app.add_option("--calls-csv", o.callsCsv,
        "Write every write call of the cutover test (start unix us, ms, retries, ok) and each migration's commit "
        "times to this CSV file");
    app.add_option("--work-dir", o.workDir, "Where the temp directory goes (default: the system temp dir)");
    app.add_flag("--skip-backfill", o.skipBackfill, "Skip test 1 (direct ingest against backfill)");
    app.add_flag("--skip-search", o.skipSearch, "Skip test 3 (search during backfill)");
    app.add_option("--target-tokenizer", o.targetTokenizer,
        "Build s1 and the direct shard with this tokenizer (issue 31: the backfill is then a reindex)");
    app.add_flag(
        "--pin", o.pin, "Pin node i to CPU i and shardmapd to CPU 0, so the search test's source has a core to itself");
    app.add_flag("--skip-cutover", o.skipCutover, "Skip test 2 (cutover write pause)");
    app.add_flag("--keep-data", o.keepData, "Keep the temp directory (node data, map, logs)");
    app.add_flag("--json", o.json, "Also print a JSON summary");
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app { "End-to-end benchmark of live migrations: backfill rate against direct ingest, cutover write "
                   "pause through shardmapd, source search latency during a backfill" };
    Report report;
    addOptions(app, report.options);
    CLI11_PARSE(app, argc, argv);
    report.command = joinCommand(argc, argv);
    report.date = utcNow();
    report.loadBefore = loadAverage();
    std::filesystem::path workDir;
    const auto start = Clock::now();
    if (!measureInWorkDir("migration_bench", report.options.workDir, "shardmap-mbench", workDir,
            [&report](const std::filesystem::path& dir) { runBenchmark(report, dir); }))
        return 1;
    report.seconds = secondsSince(start);
    report.loadAfter = loadAverage();
    printReport(report);
    if (report.options.json)
        std::cout << toJson(report).dump(2) << std::endl;
    finishWorkDir(workDir, report.options.keepData);
    return 0;
}
