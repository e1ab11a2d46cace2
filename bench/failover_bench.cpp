// failover_bench: how long the migration executor is without a leader when its leader dies
// (issue 5), against real processes: two shardmap-node processes (shard s0 on node 0, s1 on node
// 1), a shard map in SQLite or in a throwaway etcd this program starts on loopback (--backend),
// and two shardmapd replicas, "a" and "b", with --lease-ttl-ms TTL. Both replicas run with
// SHARDMAP_FAILPOINTS=migration.backfill.batch=sleep(50), so that a backfill of space "big"
// (--docs documents written straight to s0 with NodeClient::bulkWrite, as migration_bench does)
// lasts many seconds.
//
// One run: a migration of "big" is in its backfill with progress.docsDone > 0; the leader (the
// replica whose health service "shardmap.v1.Controller/executor" is SERVING) is killed with
// SIGKILL; the bench then polls, every --poll-ms, the store's audit history for the first record
// committed by the other replica (actor "shardmapd/<id>"): that is the new leader's first
// migration step. Reported per run: kill -> that commit as the bench saw it (poll), kill -> the
// commit's own timestamp, and kill -> the survivor's executor health turning SERVING (it holds the
// lease). The killed replica is then restarted (it stands by), and after --settle-ms the next run
// kills the new leader. A random pause of up to TTL/3 precedes each restart and each kill
// (--no-jitter: none); without it the standby's election ticks fall at nearly the same point of
// the dead leader's lease every run and the takeover times cluster. When a migration is past its backfill the bench
// waits for it to finish and queues the next one the other way.
//
// Expected: the dead leader renewed its lease at most TTL/3 before the kill, so the lease expires
// 2/3 TTL to TTL after it; the survivor tries every TTL/3, so it holds the lease at most
// TTL + TTL/3 after the kill; its executor's first step (a progress commit once it copied for
// up to 250 ms, or the next phase) and the bench's poll come on top.
//
// Nothing here asserts on timings. Results: docs/BENCHMARKS.md, "The shard map on etcd and
// failover (issue 5)".

#include "bench/bench_main.h"
#include "bench/bench_report.h"
#include "bench/corpus.h"
#include "core/client/node_client.h"
#include "core/map/map_editor.h"
#include "core/map/shard_map.h"
#include "core/migration/migration_requests.h"
#include "core/store/metadata_store.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "tests/support/etcd_process.h"
#include "tests/support/process.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <grpcpp/grpcpp.h>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

namespace core = shardmap::core;
using shardmap::bench::Corpus;
using shardmap::bench::CorpusOptions;
using shardmap::testing::ChildProcess;
using Clock = std::chrono::steady_clock;
using HealthStatus = grpc::health::v1::HealthCheckResponse;

constexpr const char* kExecutorHealth = "shardmap.v1.Controller/executor";

struct Options {
    std::string backend = "sqlite";
    std::int64_t leaseTtlMs = 3000;
    std::size_t runs = 10;
    std::size_t docs = 20000;
    std::size_t batch = 1000;
    std::uint32_t backfillBatch = 100;
    std::string failpoints = "migration.backfill.batch=sleep(50)";
    std::int64_t settleMs = 1000;
    std::int64_t pollMs = 10;
    // Random pauses of up to TTL/3 before each restart and each kill, so that the kill falls at any
    // point of the leader's renewal period and the standby's tick at any point of the lease's.
    bool jitter = true;
    std::size_t vocabulary = 4000;
    std::uint64_t seed = 42;
    std::string etcdEndpoint;
    std::string nodeBinary = SHARDMAP_NODE_BINARY;
    std::string controllerBinary = SHARDMAP_CONTROLLER_BINARY;
    std::string workDir;
    bool keepData = false;
    bool json = false;
};

template <typename T> T orThrow(core::Result<T> result, const std::string& what)
{
    if (!result)
        throw std::runtime_error(what + ": " + result.error().describe());
    return std::move(result.value());
}

double millisSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::int64_t nowUnixMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

using shardmap::bench::finishWorkDir;
using shardmap::bench::joinCommand;
using shardmap::bench::loadAverage;
using shardmap::bench::measureInWorkDir;
using shardmap::bench::percentile;
using shardmap::bench::utcNow;

std::string readLineOrThrow(ChildProcess& child, const std::string& what, const std::string& log)
{
    const auto line = child.readLine(std::chrono::seconds(30));
    const std::string prefix = "listening on ";
    if (!line || !line->starts_with(prefix))
        throw std::runtime_error(what + " did not report its address; see " + log);
    return line->substr(prefix.size());
}

// ---------------------------------------------------------------------------------------------
// The fleet: nodes, the store (and its etcd), two shardmapd replicas.

struct Replica {
    std::string id;
    std::optional<ChildProcess> process;
    std::string address;
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<grpc::health::v1::Health::Stub> health;
    int starts = 0;

    bool running() const { return process.has_value(); }
    HealthStatus::ServingStatus executorHealth() const
    {
        if (!health)
            return HealthStatus::UNKNOWN;
        grpc::health::v1::HealthCheckRequest request;
        request.set_service(kExecutorHealth);
        HealthStatus response;
        grpc::ClientContext context;
        context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(500));
        const auto status = health->Check(&context, request, &response);
        return status.ok() ? response.status() : HealthStatus::UNKNOWN;
    }
    bool leads() const { return executorHealth() == HealthStatus::SERVING; }
};

struct Fleet {
    std::filesystem::path dir;
    std::unique_ptr<shardmap::testing::EtcdProcess> etcd;
    std::string storeUri;
    std::vector<ChildProcess> nodes;
    std::vector<std::string> nodeAddresses;
    std::unique_ptr<core::MetadataStore> store;
    core::NodeClientPool pool;
    Replica replicas[2] { { "a", {}, {}, {}, {}, 0 }, { "b", {}, {}, {}, {}, 0 } };
    core::Actor actor { "failover_bench", "benchmark" };
    std::mt19937_64 random;

    // Up to a third of the lease TTL, when jitter is on.
    void jitter(const Options& o)
    {
        if (!o.jitter)
            return;
        std::uniform_int_distribution<std::int64_t> pause(0, o.leaseTtlMs / 3);
        std::this_thread::sleep_for(std::chrono::milliseconds(pause(random)));
    }

    Replica& other(const Replica& r) { return &r == &replicas[0] ? replicas[1] : replicas[0]; }
};

void startReplica(Fleet& fleet, Replica& replica, const Options& o)
{
    ++replica.starts;
    const auto log = (fleet.dir / (replica.id + "-" + std::to_string(replica.starts) + ".log")).string();
    auto child
        = ChildProcess::spawn({ o.controllerBinary, "--store", fleet.storeUri, "--listen", "127.0.0.1:0", "--id",
                                  replica.id, "--lease-ttl-ms", std::to_string(o.leaseTtlMs), "--exit-with-parent" },
            log, { "SHARDMAP_FAILPOINTS=" + o.failpoints });
    if (!child)
        throw std::runtime_error("cannot start " + o.controllerBinary);
    replica.process.emplace(std::move(*child));
    replica.address = readLineOrThrow(*replica.process, "shardmapd " + replica.id, log);
    replica.channel = grpc::CreateChannel(replica.address, grpc::InsecureChannelCredentials());
    replica.health = grpc::health::v1::Health::NewStub(replica.channel);
}

void killReplica(Replica& replica)
{
    replica.process->signal(SIGKILL);
    (void)replica.process->wait(std::chrono::seconds(10));
    replica.process.reset();
    replica.health.reset();
    replica.channel.reset();
}

void startFleet(Fleet& fleet, const Options& o)
{
    if (o.backend == "etcd") {
        std::string endpoint = o.etcdEndpoint;
        if (endpoint.empty()) {
            std::string error;
            fleet.etcd = shardmap::testing::EtcdProcess::start(error);
            if (!fleet.etcd)
                throw std::runtime_error("cannot start etcd: " + error);
            endpoint = fleet.etcd->endpoint();
        }
        fleet.storeUri = "etcd://" + endpoint + "/failover-bench-" + std::to_string(::getpid());
    } else {
        fleet.storeUri = "sqlite:" + (fleet.dir / "map.db").string();
    }
    for (std::size_t i = 0; i < 2; ++i) {
        const auto log = (fleet.dir / ("node" + std::to_string(i) + ".log")).string();
        auto child = ChildProcess::spawn({ o.nodeBinary, "--listen", "127.0.0.1:0", "--data-dir",
                                             (fleet.dir / ("node" + std::to_string(i))).string(), "--node-id",
                                             "n" + std::to_string(i), "--min-free-bytes", "0", "--exit-with-parent" },
            log);
        if (!child)
            throw std::runtime_error("cannot start " + o.nodeBinary);
        fleet.nodes.push_back(std::move(*child));
        fleet.nodeAddresses.push_back(readLineOrThrow(fleet.nodes.back(), "shardmap-node " + std::to_string(i), log));
    }
    fleet.store = orThrow(core::openStore(fleet.storeUri, true), "opening the store " + fleet.storeUri);
    core::MapEditor editor(*fleet.store);
    for (std::size_t i = 0; i < 2; ++i) {
        const std::string node = "n" + std::to_string(i);
        const std::string shard = "s" + std::to_string(i);
        auto client = orThrow(fleet.pool.get(fleet.nodeAddresses[i]), "connecting to " + node);
        orThrow(client->createShard(shard, {}), "CreateShard " + shard);
        orThrow(editor.addNode({ node, fleet.nodeAddresses[i], {}, false }, fleet.actor), "adding " + node);
        orThrow(editor.addShard({ shard, node, core::ShardState::Active, 0, 0 }, fleet.actor), "adding " + shard);
    }
    core::MigrationRequests requests(*fleet.store, fleet.pool);
    auto settings = orThrow(requests.settings(), "reading the migration settings");
    settings.backfillBatch = o.backfillBatch;
    settings.rollbackWindowSeconds = 0;
    orThrow(requests.setSettings(settings, fleet.actor), "setting the migration settings");
}

// "big" on s0: every document written straight to the node, then its space record (epoch 1).
void loadSpace(Fleet& fleet, const Options& o)
{
    const Corpus corpus(CorpusOptions { o.seed, o.vocabulary, 50, "bench-" });
    const auto generated
        = shardmap::bench::generateDocs(corpus, 0, o.docs, std::max(1U, std::thread::hardware_concurrency()));
    auto client = orThrow(fleet.pool.get(fleet.nodeAddresses[0]), "connecting to n0");
    orThrow(client->setOwnership("s0", { "big", core::SpaceRole::Owner, 1 }), "SetOwnership big");
    for (std::size_t from = 0; from < generated.size(); from += o.batch) {
        std::vector<core::WriteItem> items;
        for (std::size_t i = from; i < std::min(generated.size(), from + o.batch); ++i) {
            const auto& doc = generated[i];
            items.push_back(
                { core::Document { "big", doc.id, 1, { { "title", doc.title }, { "body", doc.body } }, false }, 1 });
        }
        const auto written = orThrow(client->bulkWrite("s0", items), "BulkWrite to s0");
        if (written.applied != items.size())
            throw std::runtime_error("a bulk write to s0 did not apply every document");
    }
    core::SpaceRecord record;
    record.id = "big";
    record.shard = "s0";
    record.epoch = 1;
    core::CommitRequest request;
    request.actor = fleet.actor.name;
    request.action = "bench-create-space";
    request.mutations.push_back({ core::keys::space("big"), core::encode(record), 0 });
    orThrow(fleet.store->commit(request), "creating space big");
}

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

std::string shardOfBig(core::MetadataStore& store)
{
    auto listed = orThrow(store.list(core::keys::space("big")), "reading space big");
    const auto found = listed.records.find(core::keys::space("big"));
    if (found == listed.records.end())
        throw std::runtime_error("space big is not in the map");
    return orThrow(core::decodeSpace(found->second.value), "decoding space big").shard;
}

// ---------------------------------------------------------------------------------------------
// The runs

struct Run {
    std::string killed;
    std::string survivor;
    std::string migration;
    std::string phaseAtKill;
    std::uint64_t docsAtKill = 0;
    std::uint64_t docsTotal = 0;
    double leaseMs = -1; // kill -> survivor's executor health SERVING (as polled)
    double stepSeenMs = 0; // kill -> the survivor's first audit record seen by the poll
    double stepCommitMs = 0; // kill -> that record's unixMs (the store's clock)
    std::string firstAction;
    std::uint64_t docsAtFirstStep = 0;
    std::size_t migrationsQueued = 0; // before this run
};

// A migration of "big" in its backfill with docsDone > 0, queueing one (the other way) when the
// last has finished.
core::MigrationRecord backfillInProgress(Fleet& fleet, std::string& current, std::size_t& queued, const Options& o)
{
    const auto until = Clock::now() + std::chrono::minutes(5);
    while (Clock::now() < until) {
        std::optional<core::MigrationRecord> m;
        if (!current.empty())
            m = readMigration(*fleet.store, current);
        if (current.empty() || (m && core::isFinal(m->phase))) {
            if (m && m->phase != core::MigrationPhase::Done)
                throw std::runtime_error(
                    "migration " + current + " ended " + core::migrationPhaseName(m->phase) + ": " + m->error);
            const std::string target = shardOfBig(*fleet.store) == "s0" ? "s1" : "s0";
            core::MigrationRequests requests(*fleet.store, fleet.pool);
            current = orThrow(requests.queue("big", target, fleet.actor), "queueing big to " + target).id;
            ++queued;
            std::cerr << "  queued " << current << ": big -> " << target << "\n";
            continue;
        }
        if (m && m->phase == core::MigrationPhase::Failed)
            throw std::runtime_error("migration " + current + " failed: " + m->error);
        if (m && m->phase == core::MigrationPhase::Backfill && !m->backfilled && m->progress.docsDone > 0)
            return *m;
        std::this_thread::sleep_for(std::chrono::milliseconds(o.pollMs));
    }
    throw std::runtime_error(
        "no migration of big reached its backfill within 5 minutes (see the logs in " + fleet.dir.string() + ")");
}

Replica& findLeader(Fleet& fleet, const Options& o)
{
    const auto until = Clock::now() + std::chrono::milliseconds(3 * o.leaseTtlMs + 10000);
    while (Clock::now() < until) {
        const bool a = fleet.replicas[0].running() && fleet.replicas[0].leads();
        const bool b = fleet.replicas[1].running() && fleet.replicas[1].leads();
        if (a != b)
            return a ? fleet.replicas[0] : fleet.replicas[1];
        std::this_thread::sleep_for(std::chrono::milliseconds(o.pollMs));
    }
    throw std::runtime_error("not exactly one replica leads");
}

Run failOver(Fleet& fleet, const Options& o, std::string& current, std::size_t& queued)
{
    Run run;
    const auto queuedBefore = queued;
    fleet.jitter(o);
    auto m = backfillInProgress(fleet, current, queued, o);
    run.migrationsQueued = queued - queuedBefore;
    Replica& leader = findLeader(fleet, o);
    Replica& survivor = fleet.other(leader);
    run.killed = leader.id;
    run.survivor = survivor.id;
    run.migration = current;
    const std::string survivorActor = "shardmapd/" + survivor.id;
    // The record may have moved on since it was read; re-read it right before the kill.
    if (auto fresh = readMigration(*fleet.store, current))
        m = *fresh;
    const auto revisionAtKill = orThrow(fleet.store->currentRevision(), "reading the revision");
    const std::int64_t killUnixMs = nowUnixMs();
    const auto killedAt = Clock::now();
    killReplica(leader);
    run.phaseAtKill = core::migrationPhaseName(m.phase);
    run.docsAtKill = m.progress.docsDone;
    run.docsTotal = m.progress.docsTotal;

    const auto until = killedAt + std::chrono::milliseconds(10 * o.leaseTtlMs + 30000);
    for (;;) {
        if (Clock::now() > until)
            throw std::runtime_error("replica " + survivor.id + " made no commit within "
                + std::to_string(10 * o.leaseTtlMs + 30000) + " ms of the kill");
        if (run.leaseMs < 0 && survivor.leads())
            run.leaseMs = millisSince(killedAt);
        auto history = fleet.store->history(revisionAtKill, 0, 0);
        if (history) {
            const auto first = std::find_if(history->begin(), history->end(),
                [&](const core::AuditRecord& record) { return record.actor == survivorActor; });
            if (first != history->end()) {
                run.stepSeenMs = millisSince(killedAt);
                run.stepCommitMs = static_cast<double>(first->unixMs - killUnixMs);
                run.firstAction = first->action;
                for (const auto& change : first->changes) {
                    if (change.key == core::keys::migration(current) && change.after) {
                        if (auto after = core::decodeMigration(*change.after))
                            run.docsAtFirstStep = after->progress.docsDone;
                    }
                }
                if (run.leaseMs < 0)
                    run.leaseMs = run.stepSeenMs; // the health poll had not caught it yet
                break;
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(o.pollMs));
    }
    // The killed replica comes back as the standby.
    fleet.jitter(o);
    startReplica(fleet, leader, o);
    const auto answered = Clock::now() + std::chrono::seconds(10);
    while (leader.executorHealth() == HealthStatus::UNKNOWN && Clock::now() < answered)
        std::this_thread::sleep_for(std::chrono::milliseconds(o.pollMs));
    std::this_thread::sleep_for(std::chrono::milliseconds(o.settleMs));
    return run;
}

struct Summary {
    double min = 0;
    double p50 = 0;
    double max = 0;
};

Summary summarize(const std::vector<Run>& runs, double Run::*field)
{
    std::vector<double> values;
    for (const auto& run : runs)
        values.push_back(run.*field);
    if (values.empty())
        return {};
    return { *std::min_element(values.begin(), values.end()), percentile(values, 0.5),
        *std::max_element(values.begin(), values.end()) };
}

// The fleet started in workDir, the space loaded, both replicas up, then o.runs leader kills.
void measureFailovers(
    const Options& o, const std::filesystem::path& workDir, std::vector<Run>& runs, std::string& storeDescription)
{
    Fleet fleet;
    fleet.dir = workDir;
    fleet.random.seed(o.seed);
    startFleet(fleet, o);
    storeDescription = fleet.store->describe();
    std::cerr << "store " << storeDescription << "; loading " << o.docs << " documents into big on s0...\n";
    loadSpace(fleet, o);
    startReplica(fleet, fleet.replicas[0], o);
    const auto until = Clock::now() + std::chrono::seconds(10);
    while (!fleet.replicas[0].leads() && Clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(o.pollMs));
    startReplica(fleet, fleet.replicas[1], o);
    std::string current;
    std::size_t queued = 0;
    for (std::size_t i = 0; i < o.runs; ++i) {
        runs.push_back(failOver(fleet, o, current, queued));
        const auto& r = runs.back();
        std::cerr << "run " << i + 1 << ": killed " << r.killed << " at " << r.docsAtKill << "/" << r.docsTotal
                  << " docs; " << r.survivor << " leads after " << r.leaseMs << " ms, first step (" << r.firstAction
                  << ", " << r.docsAtFirstStep << " docs) seen " << r.stepSeenMs << " ms, committed " << r.stepCommitMs
                  << " ms after the kill\n";
    }
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app { "Failover time of the migration executor: from killing the leading shardmapd to the new leader's "
                   "first migration step, over repeated runs" };
    Options o;
    app.add_option("--backend", o.backend, "Shard map store: sqlite (a file) or etcd (a throwaway server)")
        ->capture_default_str()
        ->check(CLI::IsMember({ "sqlite", "etcd" }));
    app.add_option("--lease-ttl-ms", o.leaseTtlMs, "shardmapd --lease-ttl-ms of both replicas")
        ->capture_default_str()
        ->check(CLI::Range(100, 600000));
    app.add_option("--runs", o.runs, "Leader kills")->capture_default_str()->check(CLI::Range(1, 1000));
    app.add_option("--docs", o.docs, "Documents of the space moved")
        ->capture_default_str()
        ->check(CLI::Range(100, 10000000));
    app.add_option("--batch", o.batch, "Documents per BulkWrite when loading it")->capture_default_str();
    app.add_option("--backfill-batch", o.backfillBatch, "MigrationSettings.backfillBatch")
        ->capture_default_str()
        ->check(CLI::Range(1, 5000));
    app.add_option("--failpoints", o.failpoints, "SHARDMAP_FAILPOINTS of both replicas (slows the backfill)")
        ->capture_default_str();
    app.add_option("--settle-ms", o.settleMs, "Pause after restarting the killed replica, before the next run")
        ->capture_default_str();
    app.add_option("--seed", o.seed, "Seed of the corpus and of the random pauses")->capture_default_str();
    app.add_option("--poll-ms", o.pollMs, "Poll interval of the store's history and of the replicas' health")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000));
    app.add_flag("!--no-jitter", o.jitter,
        "Restart and kill at fixed delays (the standby's ticks then fall at the same point of the lease every run)");
    app.add_option("--etcd-endpoint", o.etcdEndpoint, "HOST:PORT of a running etcd instead of a throwaway one");
    app.add_option("--node-binary", o.nodeBinary, "shardmap-node to start")->capture_default_str();
    app.add_option("--controller-binary", o.controllerBinary, "shardmapd to start")->capture_default_str();
    app.add_option("--work-dir", o.workDir, "Where the temp directory goes (default: the system temp dir)");
    app.add_flag("--keep-data", o.keepData, "Keep the temp directory (node data, map, logs)");
    app.add_flag("--json", o.json, "Also print a JSON summary");
    CLI11_PARSE(app, argc, argv);
    const std::string command = joinCommand(argc, argv);

    const std::string date = utcNow();
    const std::string loadBefore = loadAverage();
    std::filesystem::path workDir;
    std::vector<Run> runs;
    std::string storeDescription;
    if (!measureInWorkDir("failover_bench", o.workDir, "shardmap-fbench", workDir,
            [&](const std::filesystem::path& dir) { measureFailovers(o, dir, runs, storeDescription); }))
        return 1;
    const std::string loadAfter = loadAverage();

    const double ttl = static_cast<double>(o.leaseTtlMs);
    std::printf("failover_bench, %s; %u CPUs; load average before %s, after %s\n", date.c_str(),
        std::thread::hardware_concurrency(), loadBefore.c_str(), loadAfter.c_str());
    std::printf("command: %s\nstore: %s; lease TTL %.0f ms; replicas' failpoints: %s; %zu docs, backfill batch %u\n\n",
        command.c_str(), storeDescription.c_str(), ttl, o.failpoints.c_str(), o.docs, o.backfillBatch);
    std::printf("%4s %6s %-10s %13s %10s %12s %14s %-20s %11s\n", "run", "killed", "migration", "docs at kill",
        "lease ms", "step seen ms", "step commit ms", "first step", "docs then");
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto& r = runs[i];
        std::printf("%4zu %6s %-10s %6llu/%-6llu %10.0f %12.0f %14.0f %-20s %11llu\n", i + 1, r.killed.c_str(),
            r.migration.c_str(), static_cast<unsigned long long>(r.docsAtKill),
            static_cast<unsigned long long>(r.docsTotal), r.leaseMs, r.stepSeenMs, r.stepCommitMs,
            r.firstAction.c_str(), static_cast<unsigned long long>(r.docsAtFirstStep));
    }
    const auto lease = summarize(runs, &Run::leaseMs);
    const auto seen = summarize(runs, &Run::stepSeenMs);
    const auto committed = summarize(runs, &Run::stepCommitMs);
    std::printf("\n%-52s %8s %8s %8s\n", "", "min", "p50", "max");
    std::printf("%-52s %8.0f %8.0f %8.0f\n", "kill -> survivor leads (executor health SERVING), ms", lease.min,
        lease.p50, lease.max);
    std::printf(
        "%-52s %8.0f %8.0f %8.0f\n", "kill -> new leader's first step seen (poll), ms", seen.min, seen.p50, seen.max);
    std::printf("%-52s %8.0f %8.0f %8.0f\n", "kill -> new leader's first step committed, ms", committed.min,
        committed.p50, committed.max);
    std::printf("expected lease takeover: %.0f-%.0f ms after the kill (2/3 TTL to TTL + TTL/3), plus the first step "
                "and the %lld ms poll\n",
        ttl * 2 / 3, ttl + ttl / 3, static_cast<long long>(o.pollMs));
    std::size_t within = 0;
    for (const auto& r : runs)
        within += r.stepSeenMs <= ttl + ttl / 3 + static_cast<double>(o.pollMs) ? 1 : 0;
    std::printf("runs whose first step was seen within TTL + TTL/3 + poll (%.0f ms): %zu of %zu\n",
        ttl + ttl / 3 + static_cast<double>(o.pollMs), within, runs.size());

    if (o.json) {
        nlohmann::json out;
        out["date"] = date;
        out["load_before"] = loadBefore;
        out["load_after"] = loadAfter;
        out["command"] = command;
        out["store"] = storeDescription;
        out["lease_ttl_ms"] = o.leaseTtlMs;
        for (const auto& r : runs)
            out["runs"].push_back({ { "killed", r.killed }, { "survivor", r.survivor }, { "migration", r.migration },
                { "phase_at_kill", r.phaseAtKill }, { "docs_at_kill", r.docsAtKill }, { "docs_total", r.docsTotal },
                { "lease_ms", r.leaseMs }, { "step_seen_ms", r.stepSeenMs }, { "step_commit_ms", r.stepCommitMs },
                { "first_action", r.firstAction }, { "docs_at_first_step", r.docsAtFirstStep } });
        out["summary"] = { { "lease_ms", { lease.min, lease.p50, lease.max } },
            { "step_seen_ms", { seen.min, seen.p50, seen.max } },
            { "step_commit_ms", { committed.min, committed.p50, committed.max } } };
        std::cout << out.dump(2) << std::endl;
    }
    finishWorkDir(workDir, o.keepData);
    return 0;
}
