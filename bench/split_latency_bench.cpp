// split_latency_bench: seed 002's latency table reproduced on one real shardmap-node (issue 12).
//
// Wrike ("Increase search performance by index partitioning in Apache Solr") split one Solr
// collection holding every account into collections of at most 0.1 of the original size, kept
// scoping each query to its account's collection, and showed the query latency distribution in
// buckets before and after. This program does the same with the shard split the planner (and the
// console's split wizard) proposes:
//
// 1. Starts one shardmap-node on loopback with a temp data dir and creates shard A.
// 2. Writes --tenants spaces with Zipf-distributed document counts (--docs in all, exponent
//    --zipf), documents from the deterministic bench corpus, the tenants' documents interleaved
//    (rowids mixed, as when tenants write concurrently).
// 3. "Before": a fixed, seeded sequence of --queries queries (terms and prefixes from the corpus
//    vocabulary, phrases from stored documents; --mix), each scoped to ONE tenant, the tenant
//    picked with probability proportional to its size (--pick size) or uniformly (--pick
//    uniform), sequential, latency measured client-side (gRPC round trip included).
// 4. Split: core::planSplit on a PlannerInput of that one shard (the spaces' live docs and bytes
//    from the node's spaceStats) plus a new shard B on the same node. The moves are applied by
//    this program with a DIRECT COPY, not the migration engine: B takes each moved tenant as
//    migration target at epoch 2, its documents are scanned from A and written to B, B becomes
//    owner and A fenced at epoch 2, the copy is checked (live count and checksum), then the
//    tenant is dropped from A (DropSpace).
// 5. "After": the same query sequence, each routed to the shard now holding its tenant.
// 6. The table in Wrike's shape (latency buckets, share of queries before and after), p50 / p90 /
//    p99 / max, per query type and per tenant group, docs per shard, the split's moves.
//
// The phases run minutes apart; on a shared machine other load can differ between them. Two
// options separate that from the split's effect: --paired loads an unsplit reference shard R
// (same batches, same order as A) and runs the "after" queries alternately on R and on the split
// shards; --rebuild-a copies A's remaining tenants to a fresh shard A2 and runs the sequence once
// more (both halves freshly written, as Wrike's re-indexed collections were, without what
// DropSpace leaves in A's full-text index). Each query's node CPU time (/proc) is kept too.
//
// Nothing here asserts on timings; the program reports and exits 0 unless something failed.

#include "bench/bench_main.h"
#include "bench/bench_process.h"
#include "bench/bench_report.h"
#include "bench/corpus.h"
#include "core/client/node_client.h"
#include "core/plan/planner.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

namespace core = shardmap::core;
using shardmap::bench::Corpus;
using shardmap::bench::CorpusOptions;
using shardmap::bench::cpuModel;
using shardmap::bench::finishWorkDir;
using shardmap::bench::joinCommand;
using shardmap::bench::loadAverage;
using shardmap::bench::measureInWorkDir;
using shardmap::bench::percentile;
using shardmap::bench::SplitMix64;
using shardmap::bench::utcNow;
using Clock = std::chrono::steady_clock;

constexpr const char* kShardA = "A";
constexpr const char* kShardB = "B";
constexpr const char* kShardA2 = "A2";
// --paired: an unsplit copy of A, written with the same batches in the same order.
constexpr const char* kShardR = "R";
constexpr const char* kNodeId = "n0";

struct Options {
    std::size_t tenants = 40;
    std::size_t docs = 200000;
    double zipf = 1.0;
    std::size_t minTenantDocs = 20;
    std::size_t queries = 3000;
    std::size_t warmup = 100;
    std::string pick = "size";
    std::string mix
        = "term-common=10,term-mid=10,term-rare=10,prefix-1=10,prefix-2=10,prefix-3=10,prefix-4=10,phrase=10";
    std::string buckets = "2,5,10,25,50,100,250";
    std::uint32_t limit = 20;
    std::size_t batch = 1000;
    unsigned writers = 2;
    std::uint32_t copyBatch = 2000;
    std::size_t vocabulary = 4000;
    std::uint64_t seed = 42;
    std::string nodeBinary = SHARDMAP_NODE_BINARY;
    std::string workDir;
    bool paired = false;
    bool rebuildA = false;
    bool keepData = false;
    bool json = false;
};

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

template <typename T> T orThrow(core::Result<T> result, const std::string& what)
{
    if (!result)
        throw std::runtime_error(what + ": " + result.error().describe());
    return std::move(result.value());
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
// The node process (bench/bench_process.h, as in migration_bench): started with port 0, it prints
// "listening on HOST:PORT" on stdout once it serves.

using shardmap::bench::ServerProcess;

// ---------------------------------------------------------------------------------------------
// Tenants: Zipf sizes, documents interleaved.

struct Tenants {
    std::vector<std::string> names;
    std::vector<std::size_t> sizes;
    // owner[k]: the tenant of corpus document k.
    std::vector<std::uint32_t> owner;
    // The corpus documents of each tenant, in index order.
    std::vector<std::vector<std::uint32_t>> docsOf;
};

std::string tenantName(std::size_t index)
{
    char name[32];
    std::snprintf(name, sizeof name, "tenant-%03zu", index);
    return name;
}

// Sizes proportional to 1 / (rank + 1)^exponent summing to total, each at least minDocs (the
// largest tenant gives up what the minimum adds to the tail).
std::vector<std::size_t> zipfSizes(std::size_t total, std::size_t count, double exponent, std::size_t minDocs)
{
    std::vector<double> weights(count);
    double sum = 0;
    for (std::size_t i = 0; i < count; ++i) {
        weights[i] = 1.0 / std::pow(static_cast<double>(i + 1), exponent);
        sum += weights[i];
    }
    std::vector<std::size_t> sizes(count);
    std::size_t assigned = 0;
    for (std::size_t i = 0; i < count; ++i) {
        sizes[i]
            = std::max(minDocs, static_cast<std::size_t>(std::floor(static_cast<double>(total) * weights[i] / sum)));
        assigned += sizes[i];
    }
    if (assigned > total) {
        const std::size_t excess = assigned - total;
        if (sizes[0] <= excess + minDocs)
            throw std::runtime_error("--docs is too small for --tenants x --min-tenant-docs");
        sizes[0] -= excess;
    } else {
        sizes[0] += total - assigned; // rounding remainder to the largest
    }
    return sizes;
}

Tenants makeTenants(const Options& o)
{
    Tenants t;
    t.sizes = zipfSizes(o.docs, o.tenants, o.zipf, o.minTenantDocs);
    for (std::size_t i = 0; i < o.tenants; ++i)
        t.names.push_back(tenantName(i));
    t.owner.reserve(o.docs);
    for (std::size_t i = 0; i < o.tenants; ++i)
        t.owner.insert(t.owner.end(), t.sizes[i], static_cast<std::uint32_t>(i));
    // Fisher-Yates with the corpus generator: the same interleaving on every run and platform.
    SplitMix64 rng(o.seed ^ 0x7e4a47ULL);
    for (std::size_t i = t.owner.size(); i > 1; --i)
        std::swap(t.owner[i - 1], t.owner[rng.below(i)]);
    t.docsOf.resize(o.tenants);
    for (std::size_t k = 0; k < t.owner.size(); ++k)
        t.docsOf[t.owner[k]].push_back(static_cast<std::uint32_t>(k));
    return t;
}

core::Document documentOf(const Corpus& corpus, const Tenants& tenants, std::uint64_t index)
{
    auto doc = corpus.document(index);
    core::Document out;
    out.space = tenants.names[tenants.owner[index]];
    out.id = doc.id;
    out.version = 1;
    out.fields = { { "title", std::move(doc.title) }, { "body", std::move(doc.body) } };
    return out;
}

struct IngestResult {
    double seconds = 0;
    std::uint64_t bytes = 0; // per shard written
    double nodeCpu = 0;
    std::vector<std::string> shards;
};

// Owner at epoch 1 for every tenant on each shard, then every document in batches of o.batch
// (mixed tenants, in document order) from o.writers threads; each batch to every shard in turn
// (A, and with --paired the reference shard R, which then has the same layout as A).
IngestResult ingest(core::NodeClient& client, const ServerProcess& node, const Corpus& corpus, const Tenants& tenants,
    const Options& o, const std::vector<std::string>& shards)
{
    for (const auto& shard : shards) {
        for (const auto& name : tenants.names)
            orThrow(
                client.setOwnership(shard, { name, core::SpaceRole::Owner, 1 }), "SetOwnership " + shard + " " + name);
    }
    IngestResult result;
    result.shards = shards;
    const std::size_t batches = (o.docs + o.batch - 1) / o.batch;
    std::atomic<std::size_t> next { 0 };
    std::atomic<std::uint64_t> bytes { 0 };
    std::atomic<std::size_t> done { 0 };
    std::mutex errorMutex;
    std::string firstError;
    const double cpuBefore = node.cpuSeconds();
    const auto start = Clock::now();
    std::vector<std::thread> workers;
    for (unsigned w = 0; w < std::max(1U, o.writers); ++w) {
        workers.emplace_back([&] {
            for (std::size_t b = next++; b < batches; b = next++) {
                std::vector<core::WriteItem> items;
                std::uint64_t batchBytes = 0;
                for (std::size_t k = b * o.batch; k < std::min(o.docs, (b + 1) * o.batch); ++k) {
                    auto doc = documentOf(corpus, tenants, k);
                    batchBytes += core::documentBytes(doc);
                    items.push_back({ std::move(doc), 1 });
                }
                std::string error;
                for (const auto& shard : shards) {
                    auto written = client.bulkWrite(shard, items);
                    if (!written)
                        error = "BulkWrite to " + shard + ": " + written.error().describe();
                    else if (written->applied != items.size())
                        error = "a bulk write to " + shard + " applied " + std::to_string(written->applied) + " of "
                            + std::to_string(items.size());
                    if (!error.empty())
                        break;
                }
                if (!error.empty()) {
                    std::lock_guard lock(errorMutex);
                    if (firstError.empty())
                        firstError = error;
                    next = batches;
                    return;
                }
                bytes += batchBytes;
                const std::size_t finished = ++done;
                if (finished % 20 == 0)
                    std::cerr << "  " << finished * o.batch << " / " << o.docs << " docs\r" << std::flush;
            }
        });
    }
    for (auto& worker : workers)
        worker.join();
    std::cerr << "\n";
    if (!firstError.empty())
        throw std::runtime_error(firstError);
    result.seconds = secondsSince(start);
    result.bytes = bytes;
    result.nodeCpu = node.cpuSeconds() - cpuBefore;
    return result;
}

// ---------------------------------------------------------------------------------------------
// Queries

struct QueryType {
    std::string name;
    std::string description;
    double weight = 0;
};

const std::vector<QueryType>& knownQueryTypes()
{
    static const std::vector<QueryType> types {
        { "term-common", "one of the 50 most frequent words", 0 },
        { "term-mid", "a word of frequency rank 50-500", 0 },
        { "term-rare", "a word of the less frequent half of the vocabulary", 0 },
        { "prefix-1", "1 letter* (Wrike's heaviest instant-search case; no FTS5 prefix index)", 0 },
        { "prefix-2", "2 letters* of a vocabulary word", 0 },
        { "prefix-3", "3 letters* of a vocabulary word", 0 },
        { "prefix-4", "4 letters* of a vocabulary word (no FTS5 prefix index)", 0 },
        { "phrase", "two adjacent body words of a stored doc of the tenant", 0 },
    };
    return types;
}

std::vector<QueryType> parseMix(const std::string& mix)
{
    std::vector<QueryType> out;
    std::stringstream in(mix);
    for (std::string part; std::getline(in, part, ',');) {
        const auto eq = part.find('=');
        if (eq == std::string::npos)
            throw std::runtime_error("--mix: '" + part + "' is not NAME=WEIGHT");
        const std::string name = part.substr(0, eq);
        const double weight = std::stod(part.substr(eq + 1));
        const auto& known = knownQueryTypes();
        const auto found = std::find_if(known.begin(), known.end(), [&](const QueryType& t) { return t.name == name; });
        if (found == known.end())
            throw std::runtime_error("--mix: unknown query type '" + name + "'");
        if (weight > 0)
            out.push_back({ found->name, found->description, weight });
    }
    if (out.empty())
        throw std::runtime_error("--mix names no query type with a positive weight");
    return out;
}

std::vector<double> parseBuckets(const std::string& text)
{
    std::vector<double> edges;
    std::stringstream in(text);
    for (std::string part; std::getline(in, part, ',');)
        edges.push_back(std::stod(part));
    if (edges.empty() || !std::is_sorted(edges.begin(), edges.end())
        || std::adjacent_find(edges.begin(), edges.end()) != edges.end() || edges.front() <= 0)
        throw std::runtime_error("--buckets: positive, strictly increasing edges in ms, e.g. 2,5,10,25,50,100,250");
    return edges;
}

struct Query {
    std::uint32_t tenant = 0;
    std::uint32_t type = 0; // index into the mix
    std::string text;
};

// The seeded sequence both phases run. The tenant is drawn first (by size: the tenant of a random
// document, so every document attracts the same traffic; uniform: any tenant alike), then the type
// by its weight, then the text.
std::vector<Query> buildQueries(const Corpus& corpus, const Tenants& tenants, const std::vector<QueryType>& mix,
    bool bySize, std::size_t count, std::uint64_t seed)
{
    SplitMix64 rng(seed);
    double totalWeight = 0;
    for (const auto& type : mix)
        totalWeight += type.weight;
    const std::size_t vocab = corpus.vocabularySize();
    std::vector<Query> out;
    out.reserve(count);
    while (out.size() < count) {
        Query q;
        q.tenant = bySize ? tenants.owner[rng.below(tenants.owner.size())]
                          : static_cast<std::uint32_t>(rng.below(tenants.names.size()));
        double draw = rng.unit() * totalWeight;
        q.type = static_cast<std::uint32_t>(mix.size() - 1);
        for (std::size_t i = 0; i < mix.size(); ++i) {
            if (draw < mix[i].weight) {
                q.type = static_cast<std::uint32_t>(i);
                break;
            }
            draw -= mix[i].weight;
        }
        const std::string& name = mix[q.type].name;
        if (name == "term-common") {
            q.text = corpus.word(rng.below(std::min<std::size_t>(50, vocab)));
        } else if (name == "term-mid") {
            q.text
                = corpus.word(std::min<std::size_t>(50, vocab - 1) + rng.below(std::min<std::size_t>(450, vocab / 2)));
        } else if (name == "term-rare") {
            q.text = corpus.word(vocab / 2 + rng.below(vocab - vocab / 2));
        } else if (name.starts_with("prefix-")) {
            const std::size_t length = static_cast<std::size_t>(name.back() - '0');
            std::string word;
            do
                word = corpus.word(rng.below(vocab));
            while (word.size() <= length); // a prefix must be a strict prefix
            q.text = word.substr(0, length) + "*";
        } else { // phrase
            const auto& docs = tenants.docsOf[q.tenant];
            const std::uint64_t index = docs[rng.below(docs.size())];
            const auto words = corpus.bodyWords(index);
            if (words.size() < 2)
                continue;
            const std::size_t at = rng.below(words.size() - 1);
            q.text = "\"" + words[at] + " " + words[at + 1] + "\"";
        }
        out.push_back(std::move(q));
    }
    return out;
}

struct PhaseResult {
    std::string name;
    std::vector<double> millis; // per query of the sequence, in order (-1: failed)
    std::vector<std::uint32_t> hits;
    // The node's CPU time (user + system, from /proc, clock-tick resolution) across each query:
    // per query it is mostly 0 or a tick, but its mean over many queries is the node's work per
    // query, much less sensitive than latency to other processes on the box.
    std::vector<double> cpuMs;
    std::size_t errors = 0;
    std::string firstError;
    double seconds = 0;
    double nodeCpu = 0;
    double benchCpu = 0;
    std::map<std::string, std::size_t> queriesPerShard;
};

struct PhaseRun {
    PhaseResult routed;
    // With a reference shard (--paired): the same queries on it, alternating with the routed ones.
    std::optional<PhaseResult> reference;
};

// Runs the warmup queries (not recorded), then the sequence, one query at a time. With a
// reference shard each query also runs there, the two in alternating order (reference first on
// even queries), so that both see the same load from the rest of the machine.
PhaseRun runPhase(const std::string& name, core::NodeClient& client, const ServerProcess& node, const Tenants& tenants,
    const std::vector<Query>& warmup, const std::vector<Query>& queries, const std::vector<std::string>& shardOfTenant,
    std::uint32_t limit, const std::string& reference = {})
{
    auto search = [&](const Query& q, const std::string& shard) {
        core::ShardSearchRequest request;
        request.spaces = { tenants.names[q.tenant] };
        request.query = q.text;
        request.limit = limit;
        return client.search(shard, request);
    };
    for (const auto& q : warmup) {
        (void)search(q, shardOfTenant[q.tenant]);
        if (!reference.empty())
            (void)search(q, reference);
    }
    PhaseRun run;
    run.routed.name = name;
    if (!reference.empty()) {
        run.reference.emplace();
        run.reference->name = name + " on " + reference;
    }
    auto once = [&](PhaseResult& into, const Query& q, const std::string& shard) {
        const double cpu0 = node.cpuSeconds();
        const auto t0 = Clock::now();
        auto found = search(q, shard);
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        into.cpuMs.push_back((node.cpuSeconds() - cpu0) * 1000.0);
        into.queriesPerShard[shard] += 1;
        if (!found) {
            ++into.errors;
            if (into.firstError.empty())
                into.firstError = "'" + q.text + "' in " + tenants.names[q.tenant] + " on " + shard + ": "
                    + found.error().describe();
            into.millis.push_back(-1);
            into.hits.push_back(0);
            return;
        }
        into.millis.push_back(ms);
        into.hits.push_back(static_cast<std::uint32_t>(found->hits.size()));
    };
    const double cpuBefore = node.cpuSeconds();
    const double benchBefore = selfCpuSeconds();
    const auto start = Clock::now();
    for (std::size_t i = 0; i < queries.size(); ++i) {
        const auto& q = queries[i];
        if (run.reference && i % 2 == 0)
            once(*run.reference, q, reference);
        once(run.routed, q, shardOfTenant[q.tenant]);
        if (run.reference && i % 2 == 1)
            once(*run.reference, q, reference);
        if ((i + 1) % 250 == 0)
            std::cerr << "  " << (i + 1) << " / " << queries.size() << " queries\r" << std::flush;
    }
    std::cerr << "\n";
    for (PhaseResult* phase : { &run.routed, run.reference ? &*run.reference : nullptr }) {
        if (!phase)
            continue;
        phase->seconds = secondsSince(start);
        phase->nodeCpu = node.cpuSeconds() - cpuBefore;
        phase->benchCpu = selfCpuSeconds() - benchBefore;
    }
    return run;
}

// ---------------------------------------------------------------------------------------------
// The split

struct MovedTenant {
    std::string space;
    std::uint64_t docs = 0;
    std::uint64_t bytes = 0;
    std::uint64_t copied = 0;
    std::uint64_t dropped = 0;
    bool verified = false;
};

struct ShardFigures {
    std::string shard;
    std::uint64_t liveDocs = 0;
    std::uint64_t bytesEstimate = 0;
    std::uint64_t bytesOnDisk = 0;
    std::uint64_t spaces = 0;
};

struct SplitResult {
    core::PlanResult plan;
    double planMillis = 0;
    std::vector<MovedTenant> moved;
    std::uint64_t bytesMoved = 0;
    std::uint64_t docsMoved = 0;
    double copySeconds = 0;
    double dropSeconds = 0;
    double nodeCpu = 0;
    std::vector<ShardFigures> before;
    std::vector<ShardFigures> after;
};

std::vector<ShardFigures> shardFigures(core::NodeClient& client)
{
    std::vector<ShardFigures> out;
    for (const auto& s : orThrow(client.listShards(), "ListShards")) {
        ShardFigures f;
        f.shard = s.id;
        f.liveDocs = s.liveDocs;
        f.bytesEstimate = s.bytesEstimate;
        f.bytesOnDisk = s.bytesOnDisk;
        f.spaces = s.spaces;
        out.push_back(f);
    }
    std::sort(out.begin(), out.end(), [](const ShardFigures& a, const ShardFigures& b) { return a.shard < b.shard; });
    return out;
}

// The planner's input for one node holding shard A, the spaces' docs and bytes as the node counts
// them, their query rate as the "before" phase measured it.
core::PlannerInput plannerInput(core::NodeClient& client, const std::map<std::string, double>& queriesPerSecond)
{
    core::PlannerInput input;
    const auto metrics = orThrow(client.metrics(false), "GetMetrics");
    core::PlannerNode node;
    node.id = kNodeId;
    node.retired = false;
    node.diskFreeBytes = metrics.diskFreeBytes;
    node.diskTotalBytes = metrics.diskTotalBytes;
    input.nodes.push_back(node);
    core::PlannerShard shard;
    shard.record.id = kShardA;
    shard.record.node = kNodeId;
    shard.record.state = core::ShardState::Active;
    input.shards.push_back(shard);
    for (const auto& stats : orThrow(client.spaceStats(kShardA, {}), "GetSpaceStats A")) {
        if (stats.liveDocs == 0)
            continue;
        core::PlannerSpace space;
        space.id = stats.space;
        space.shard = kShardA;
        space.load.docs = static_cast<double>(stats.liveDocs);
        space.load.bytes = static_cast<double>(stats.bytesEstimate);
        if (const auto found = queriesPerSecond.find(stats.space); found != queriesPerSecond.end())
            space.load.queriesPerSecond = found->second;
        input.spaces.push_back(space);
    }
    return input;
}

// Copies one space from one shard to another on the node, directly (not the migration engine):
// the target takes it as migration target at `epoch`, every document (tombstones included) is
// scanned from the source and written to the target, the target becomes owner and the source
// fenced at `epoch`, and the target's live count and checksum must equal the source's.
MovedTenant copySpace(core::NodeClient& client, const std::string& from, const std::string& to,
    const std::string& space, std::uint64_t epoch, std::uint32_t batch)
{
    MovedTenant moved;
    moved.space = space;
    const auto sourceStats = orThrow(client.spaceStats(from, { space }), "GetSpaceStats " + from);
    orThrow(client.setOwnership(to, { space, core::SpaceRole::MigrationTarget, epoch }),
        "SetOwnership " + to + " " + space);
    std::string after;
    for (;;) {
        auto page = orThrow(client.scanPage(from, space, after, batch, true), "Scan " + from + " " + space);
        if (!page.docs.empty()) {
            std::vector<core::WriteItem> items;
            items.reserve(page.docs.size());
            for (auto& doc : page.docs)
                items.push_back({ std::move(doc), epoch });
            const auto written = orThrow(client.bulkWrite(to, items), "BulkWrite " + to + " " + space);
            moved.copied += written.applied;
            if (written.applied + written.stale != items.size())
                throw std::runtime_error("copy of " + space + ": " + to + " rejected documents");
        }
        if (page.done || page.cursor == after)
            break;
        after = page.cursor;
    }
    orThrow(client.setOwnership(from, { space, core::SpaceRole::Fenced, epoch }), "SetOwnership " + from + " " + space);
    orThrow(client.setOwnership(to, { space, core::SpaceRole::Owner, epoch }), "SetOwnership " + to + " " + space);
    const auto targetStats = orThrow(client.spaceStats(to, { space }), "GetSpaceStats " + to);
    moved.verified = sourceStats.size() == 1 && targetStats.size() == 1
        && sourceStats[0].liveDocs == targetStats[0].liveDocs && sourceStats[0].checksum == targetStats[0].checksum;
    if (!moved.verified)
        throw std::runtime_error(
            "copy of " + space + " to " + to + " does not match its source (live docs or checksum)");
    return moved;
}

// Applies the plan's moves by a direct copy (copySpace, epoch 2), then drops the moved tenants
// from A.
SplitResult split(core::NodeClient& client, const ServerProcess& node, const Options& o,
    const std::map<std::string, double>& queriesPerSecond, std::vector<std::string>& shardOfTenant,
    const Tenants& tenants)
{
    SplitResult result;
    result.before = shardFigures(client);
    const auto input = plannerInput(client, queriesPerSecond);
    core::ShardRecord newShard;
    newShard.id = kShardB;
    newShard.node = kNodeId;
    newShard.state = core::ShardState::Active;
    const auto planStart = Clock::now();
    result.plan = orThrow(core::planSplit(input, kShardA, newShard), "planSplit");
    result.planMillis = secondsSince(planStart) * 1000.0;
    if (result.plan.plan.moves.empty())
        throw std::runtime_error("planSplit proposed no moves");
    const double cpuBefore = node.cpuSeconds();
    orThrow(client.createShard(kShardB, {}), "CreateShard B");
    const auto copyStart = Clock::now();
    for (const auto& move : result.plan.plan.moves) {
        if (move.from != kShardA || move.to != kShardB)
            throw std::runtime_error("unexpected move of " + move.space + ": " + move.from + " -> " + move.to);
        MovedTenant moved = copySpace(client, kShardA, kShardB, move.space, 2, o.copyBatch);
        moved.docs = move.docs;
        moved.bytes = move.bytes;
        result.moved.push_back(moved);
        result.bytesMoved += moved.bytes;
        result.docsMoved += moved.copied;
        std::cerr << "  copied " << move.space << " (" << moved.copied << " docs)\n";
    }
    result.copySeconds = secondsSince(copyStart);
    const auto dropStart = Clock::now();
    for (auto& moved : result.moved) {
        moved.dropped = orThrow(client.dropSpace(kShardA, moved.space, 2, 0, 0), "DropSpace A " + moved.space).deleted;
        for (std::size_t t = 0; t < tenants.names.size(); ++t) {
            if (tenants.names[t] == moved.space)
                shardOfTenant[t] = kShardB;
        }
    }
    result.dropSeconds = secondsSince(dropStart);
    result.nodeCpu = node.cpuSeconds() - cpuBefore;
    result.after = shardFigures(client);
    return result;
}

// --rebuild-a: the tenants still on A copied into a fresh shard A2 (copySpace, epoch 3), which
// then serves them; A keeps its rows but is no longer queried. Both halves are then freshly
// written, as Wrike's re-indexed collections were.
struct RebuildResult {
    std::size_t spaces = 0;
    std::uint64_t docs = 0;
    double seconds = 0;
};

RebuildResult rebuildA(
    core::NodeClient& client, const Options& o, const Tenants& tenants, std::vector<std::string>& shardOfTenant)
{
    RebuildResult result;
    orThrow(client.createShard(kShardA2, {}), "CreateShard A2");
    const auto start = Clock::now();
    for (std::size_t t = 0; t < tenants.names.size(); ++t) {
        if (shardOfTenant[t] != kShardA)
            continue;
        const auto moved = copySpace(client, kShardA, kShardA2, tenants.names[t], 3, o.copyBatch);
        result.docs += moved.copied;
        result.spaces += 1;
        shardOfTenant[t] = kShardA2;
    }
    result.seconds = secondsSince(start);
    return result;
}

// ---------------------------------------------------------------------------------------------
// Report

struct Summary {
    std::size_t count = 0;
    double p50 = 0;
    double p90 = 0;
    double p99 = 0;
    double max = 0;
    double mean = 0;
    double cpuMs = 0; // the node's mean CPU ms per query
};

nlohmann::json toJson(const Summary& s)
{
    return { { "count", s.count }, { "p50_ms", s.p50 }, { "p90_ms", s.p90 }, { "p99_ms", s.p99 }, { "max_ms", s.max },
        { "mean_ms", s.mean }, { "node_cpu_ms_per_query", s.cpuMs } };
}

struct Bucket {
    std::string label;
    double high = 0; // exclusive; infinity for the last
    std::vector<std::size_t> counts; // per column
};

struct Report {
    Options options;
    std::string command;
    std::string date;
    std::string loadBefore;
    std::string loadAfter;
    std::string nodeAddress;
    Tenants tenants;
    std::vector<QueryType> mix;
    std::vector<double> edges;
    std::vector<Query> queries;
    IngestResult ingest;
    PhaseResult before;
    PhaseResult after;
    // --paired: the same queries on the unsplit reference shard R, alternating with "after".
    std::optional<PhaseResult> afterReference;
    SplitResult split;
    std::vector<std::string> shardOfTenant; // after the split
    // --rebuild-a: A's remaining tenants copied to a fresh A2, the same sequence once more.
    std::optional<RebuildResult> rebuild;
    std::optional<PhaseResult> rebuilt;
    std::optional<PhaseResult> rebuiltReference;
    double seconds = 0;
};

double share(std::size_t part, std::size_t whole)
{
    return whole == 0 ? 0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

struct Group {
    std::string name;
    std::function<bool(const Query&)> keep;
};

// Tenant groups, then query types.
std::vector<Group> groups(const Report& r)
{
    std::vector<Group> out {
        { "all queries", [](const Query&) { return true; } },
        { "largest tenant (" + r.tenants.names[0] + ", on " + r.shardOfTenant[0] + " after)",
            [](const Query& q) { return q.tenant == 0; } },
        { "other tenants that stayed on A",
            [&r](const Query& q) { return q.tenant != 0 && r.shardOfTenant[q.tenant] == kShardA; } },
        { "other tenants moved to B",
            [&r](const Query& q) { return q.tenant != 0 && r.shardOfTenant[q.tenant] == kShardB; } },
    };
    for (std::size_t t = 0; t < r.mix.size(); ++t)
        out.push_back({ "type " + r.mix[t].name, [t](const Query& q) { return q.type == t; } });
    return out;
}

struct Column {
    std::string name;
    const PhaseResult* phase = nullptr;
};

// A comparison of phases over the same queries: those that succeeded in every column.
class Comparison {
public:
    Comparison(const Report& r, std::string title, std::vector<Column> columns)
        : m_report(r)
        , m_title(std::move(title))
        , m_columns(std::move(columns))
    {
        for (std::size_t i = 0; i < r.queries.size(); ++i) {
            bool ok = true;
            for (const auto& c : m_columns)
                ok = ok && c.phase->millis[i] >= 0;
            if (ok)
                m_common.push_back(i);
        }
    }

    Summary summary(std::size_t column, const std::function<bool(const Query&)>& keep) const
    {
        const PhaseResult& phase = *m_columns[column].phase;
        std::vector<double> samples;
        double cpu = 0;
        for (const std::size_t i : m_common) {
            if (!keep(m_report.queries[i]))
                continue;
            samples.push_back(phase.millis[i]);
            cpu += phase.cpuMs[i];
        }
        Summary s;
        s.count = samples.size();
        if (samples.empty())
            return s;
        s.p50 = percentile(samples, 0.5);
        s.p90 = percentile(samples, 0.9);
        s.p99 = percentile(samples, 0.99);
        s.max = *std::max_element(samples.begin(), samples.end());
        double sum = 0;
        for (const double v : samples)
            sum += v;
        s.mean = sum / static_cast<double>(samples.size());
        s.cpuMs = cpu / static_cast<double>(samples.size());
        return s;
    }

    // Wrike's order: the slowest bucket first.
    std::vector<Bucket> buckets() const
    {
        auto label = [](double v) {
            char text[32];
            std::snprintf(text, sizeof text, "%g", v);
            return std::string(text);
        };
        std::vector<Bucket> out;
        double low = 0;
        for (const double edge : m_report.edges) {
            out.push_back({ label(low) + " - " + label(edge), edge, std::vector<std::size_t>(m_columns.size(), 0) });
            low = edge;
        }
        out.push_back({ ">= " + label(low), std::numeric_limits<double>::infinity(),
            std::vector<std::size_t>(m_columns.size(), 0) });
        for (std::size_t c = 0; c < m_columns.size(); ++c) {
            for (const std::size_t i : m_common) {
                const double ms = m_columns[c].phase->millis[i];
                for (auto& b : out) {
                    if (ms < b.high) {
                        b.counts[c] += 1;
                        break;
                    }
                }
            }
        }
        std::reverse(out.begin(), out.end());
        return out;
    }

    void print() const
    {
        const std::size_t n = m_common.size();
        std::printf("%s\n", m_title.c_str());
        std::printf("  %-20s", "Execution time (ms)");
        for (const auto& c : m_columns)
            std::printf(" %24s", (c.name + " (% of total)").c_str());
        std::printf("   [queries]\n");
        for (const auto& b : buckets()) {
            std::printf("  %-20s", b.label.c_str());
            for (const std::size_t count : b.counts)
                std::printf(" %22.1f %%", share(count, n));
            std::printf("   [");
            for (std::size_t c = 0; c < b.counts.size(); ++c)
                std::printf("%s%zu", c == 0 ? "" : " / ", b.counts[c]);
            std::printf("]\n");
        }
        std::printf("\n  %-46s %5s %17s %17s %17s %17s %17s %13s\n", m_columns[0].name.c_str(), "n", "p50 ms", "p90 ms",
            "p99 ms", "max ms", "mean ms", "node cpu ms/q");
        for (std::size_t c = 1; c < m_columns.size(); ++c)
            std::printf("  -> %s\n", m_columns[c].name.c_str());
        for (const auto& g : groups(m_report)) {
            const Summary x = summary(0, g.keep);
            for (std::size_t c = 1; c < m_columns.size(); ++c) {
                const Summary y = summary(c, g.keep);
                auto ratio = [](double a, double v) { return a > 0 ? v / a : 0; };
                std::printf("  %-46s %5zu %7.2f->%-7.2f %7.2f->%-7.2f %7.1f->%-7.1f %7.1f->%-7.1f %7.2f->%-7.2f "
                            "%5.2f->%-5.2f  p50 x%.2f p99 x%.2f mean x%.2f\n",
                    c == 1 ? g.name.c_str() : "", x.count, x.p50, y.p50, x.p90, y.p90, x.p99, y.p99, x.max, y.max,
                    x.mean, y.mean, x.cpuMs, y.cpuMs, ratio(x.p50, y.p50), ratio(x.p99, y.p99), ratio(x.mean, y.mean));
            }
        }
        std::printf("\n");
    }

    nlohmann::json json() const
    {
        nlohmann::json out;
        out["title"] = m_title;
        out["queries"] = m_common.size();
        for (const auto& c : m_columns)
            out["columns"].push_back(c.name);
        for (const auto& b : buckets()) {
            nlohmann::json j = { { "range_ms", b.label } };
            for (std::size_t c = 0; c < m_columns.size(); ++c)
                j["share"].push_back(share(b.counts[c], m_common.size()));
            j["count"] = b.counts;
            out["buckets"].push_back(j);
        }
        for (const auto& g : groups(m_report)) {
            nlohmann::json j = { { "name", g.name } };
            for (std::size_t c = 0; c < m_columns.size(); ++c)
                j["columns"].push_back(toJson(summary(c, g.keep)));
            out["groups"].push_back(j);
        }
        return out;
    }

private:
    const Report& m_report;
    std::string m_title;
    std::vector<Column> m_columns;
    std::vector<std::size_t> m_common;
};

std::vector<Comparison> comparisons(const Report& r)
{
    std::vector<Comparison> out;
    std::vector<Column> main { { "Before", &r.before }, { "After", &r.after } };
    if (r.rebuilt)
        main.push_back({ "A rebuilt", &*r.rebuilt });
    out.emplace_back(r,
        "Before -> after, sequential phases (Wrike's table; the phases ran minutes apart, so other load on the machine "
        "differs between them)",
        main);
    if (r.afterReference)
        out.emplace_back(r,
            "Paired (--paired): each query on the unsplit reference shard R and on its split shard, alternating, in "
            "the same minutes",
            std::vector<Column> { { "R (unsplit)", &*r.afterReference }, { "After", &r.after } });
    if (r.rebuiltReference)
        out.emplace_back(r, "Paired, A rebuilt: R against A2 / B, alternating",
            std::vector<Column> { { "R (unsplit)", &*r.rebuiltReference }, { "A rebuilt", &*r.rebuilt } });
    return out;
}

std::size_t hitMismatches(const Report& r, const PhaseResult& later)
{
    std::size_t n = 0;
    for (std::size_t i = 0; i < r.queries.size(); ++i)
        n += r.before.millis[i] >= 0 && later.millis[i] >= 0 && r.before.hits[i] != later.hits[i] ? 1 : 0;
    return n;
}

std::vector<const PhaseResult*> phases(const Report& r)
{
    std::vector<const PhaseResult*> out { &r.before, &r.after };
    for (const auto* p : { r.afterReference ? &*r.afterReference : nullptr, r.rebuilt ? &*r.rebuilt : nullptr,
             r.rebuiltReference ? &*r.rebuiltReference : nullptr }) {
        if (p)
            out.push_back(p);
    }
    return out;
}

double meanOf(const std::vector<double>& values)
{
    double sum = 0;
    for (const double v : values)
        sum += v;
    return values.empty() ? 0 : sum / static_cast<double>(values.size());
}

const core::ShardOutcome* outcomeOf(const core::PlanResult& plan, const std::string& shard)
{
    for (const auto& s : plan.shards) {
        if (s.shard == shard)
            return &s;
    }
    return nullptr;
}

void printReport(const Report& r)
{
    const auto& o = r.options;
    std::printf("split_latency_bench  %s\n", r.date.c_str());
    std::printf("  machine: %u CPUs, %s; load average before %s, after %s\n", std::thread::hardware_concurrency(),
        cpuModel().c_str(), r.loadBefore.c_str(), r.loadAfter.c_str());
    std::printf("  command: %s\n", r.command.c_str());
    std::printf(
        "  one shardmap-node at %s (loopback), all shards on it; total %.0f s\n\n", r.nodeAddress.c_str(), r.seconds);

    const auto& sizes = r.tenants.sizes;
    std::printf("Tenants: %zu, %zu docs, Zipf exponent %.2f (min %zu docs); largest %zu docs (%.1f %%), then %zu, %zu, "
                "%zu, ...; smallest %zu\n",
        o.tenants, o.docs, o.zipf, o.minTenantDocs, sizes[0], share(sizes[0], o.docs), sizes.size() > 1 ? sizes[1] : 0,
        sizes.size() > 2 ? sizes[2] : 0, sizes.size() > 3 ? sizes[3] : 0, sizes.back());
    std::string written;
    for (const auto& shard : r.ingest.shards)
        written += (written.empty() ? "" : " and ") + shard;
    std::printf("  ingest into %s: %.1f s, %.0f docs/s per shard, %.1f MB (document bytes), node CPU %.1f s; documents "
                "of all tenants interleaved\n\n",
        written.c_str(), r.ingest.seconds, static_cast<double>(o.docs) / std::max(r.ingest.seconds, 1e-9),
        static_cast<double>(r.ingest.bytes) / 1e6, r.ingest.nodeCpu);

    const auto& s = r.split;
    std::printf("Split of A as the planner proposes it (core::planSplit, %.1f ms): %zu tenants move to B, %llu docs, "
                "%.1f MB\n",
        s.planMillis, s.moved.size(), static_cast<unsigned long long>(s.docsMoved),
        static_cast<double>(s.bytesMoved) / 1e6);
    for (const char* shard : { kShardA, kShardB }) {
        if (const auto* out = outcomeOf(s.plan, shard))
            std::printf("  planner: %s %s bytes %.1f MB -> %.1f MB, docs %.0f -> %.0f, spaces %zu -> %zu\n", shard,
                out->isNew ? "(new)" : "     ", out->before.bytes / 1e6, out->after.bytes / 1e6, out->before.docs,
                out->after.docs, out->spacesBefore, out->spacesAfter);
    }
    std::printf("  moved (docs):");
    for (std::size_t i = 0; i < s.moved.size(); ++i)
        std::printf("%s%s (%llu)", i % 6 == 0 ? "\n    " : ", ", s.moved[i].space.c_str(),
            static_cast<unsigned long long>(s.moved[i].copied));
    std::printf("\n  applied by a DIRECT COPY in this bench, not the migration engine: B migration target at epoch 2, "
                "scan A -> BulkWrite B (batch %u, tenant by tenant), B owner / A fenced at epoch 2, live count + "
                "checksum verified, then DropSpace on A\n",
        o.copyBatch);
    std::printf("  copy %.1f s (%.0f docs/s), drop %.1f s, node CPU %.1f s\n", s.copySeconds,
        static_cast<double>(s.docsMoved) / std::max(s.copySeconds, 1e-9), s.dropSeconds, s.nodeCpu);
    std::printf("  %-6s %12s %12s %15s %15s %14s\n", "shard", "docs before", "docs after", "MB est. before",
        "MB est. after", "disk MB after");
    for (const auto& fa : s.after) {
        ShardFigures fb;
        for (const auto& f : s.before) {
            if (f.shard == fa.shard)
                fb = f;
        }
        std::printf("  %-6s %12llu %12llu %15.1f %15.1f %14.1f\n", fa.shard.c_str(),
            static_cast<unsigned long long>(fb.liveDocs), static_cast<unsigned long long>(fa.liveDocs),
            static_cast<double>(fb.bytesEstimate) / 1e6, static_cast<double>(fa.bytesEstimate) / 1e6,
            static_cast<double>(fa.bytesOnDisk) / 1e6);
    }
    if (r.rebuild)
        std::printf("  --rebuild-a: A's %zu remaining tenants (%llu docs) copied to a fresh shard A2 in %.1f s; "
                    "\"A rebuilt\" queries A2 and B\n",
            r.rebuild->spaces, static_cast<unsigned long long>(r.rebuild->docs), r.rebuild->seconds);
    std::printf("\n");

    std::printf("Queries: %zu, sequential, each scoped to one tenant (picked %s), limit %u, the same seeded sequence "
                "in every phase (%zu warmup queries before each, not counted); latency client-side incl. gRPC\n",
        r.queries.size(), o.pick == "size" ? "with probability proportional to its size" : "uniformly over tenants",
        o.limit, o.warmup);
    std::printf("  mix:");
    for (const auto& t : r.mix)
        std::printf(" %s=%g", t.name.c_str(), t.weight);
    std::printf("\n");
    for (const auto* p : phases(r)) {
        std::string perShard;
        for (const auto& [shard, count] : p->queriesPerShard)
            perShard += (perShard.empty() ? "" : ", ") + shard + " " + std::to_string(count);
        std::printf("  phase %-18s %6.1f s, node CPU %5.1f s (%.2f ms/query by /proc ticks), errors %zu, hit counts "
                    "differing from 'before' %zu; queries: %s\n",
            p->name.c_str(), p->seconds, p->nodeCpu, meanOf(p->cpuMs), p->errors, hitMismatches(r, *p),
            perShard.c_str());
        if (!p->firstError.empty())
            std::printf("    first error: %s\n", p->firstError.c_str());
    }
    std::printf("\n");
    for (const auto& c : comparisons(r))
        c.print();
}

nlohmann::json toJson(const Report& r)
{
    const auto& o = r.options;
    nlohmann::json out;
    out["date"] = r.date;
    out["machine"] = { { "cpus", std::thread::hardware_concurrency() }, { "cpu_model", cpuModel() },
        { "load_before", r.loadBefore }, { "load_after", r.loadAfter } };
    out["command"] = r.command;
    out["seconds"] = r.seconds;
    out["config"] = { { "tenants", o.tenants }, { "docs", o.docs }, { "zipf", o.zipf },
        { "min_tenant_docs", o.minTenantDocs }, { "queries", o.queries }, { "warmup", o.warmup }, { "pick", o.pick },
        { "mix", o.mix }, { "buckets_ms", r.edges }, { "limit", o.limit }, { "seed", o.seed },
        { "vocabulary", o.vocabulary }, { "paired", o.paired }, { "rebuild_a", o.rebuildA } };
    out["tenant_docs"] = r.tenants.sizes;
    out["ingest"] = { { "shards", r.ingest.shards }, { "seconds", r.ingest.seconds }, { "bytes", r.ingest.bytes },
        { "node_cpu", r.ingest.nodeCpu } };
    const auto& s = r.split;
    nlohmann::json split;
    split["method"] = "direct copy by the bench (scan A, BulkWrite B, fence A, DropSpace A), not the migration engine";
    split["plan_ms"] = s.planMillis;
    split["docs_moved"] = s.docsMoved;
    split["bytes_moved"] = s.bytesMoved;
    split["copy_seconds"] = s.copySeconds;
    split["drop_seconds"] = s.dropSeconds;
    split["node_cpu"] = s.nodeCpu;
    for (const auto& m : s.moved)
        split["moves"].push_back({ { "space", m.space }, { "docs", m.copied }, { "bytes", m.bytes },
            { "dropped_rows", m.dropped }, { "verified", m.verified } });
    for (const auto& sh : s.plan.shards)
        split["planner_shards"].push_back(
            { { "shard", sh.shard }, { "new", sh.isNew }, { "bytes_before", sh.before.bytes },
                { "bytes_after", sh.after.bytes }, { "docs_before", sh.before.docs }, { "docs_after", sh.after.docs },
                { "spaces_before", sh.spacesBefore }, { "spaces_after", sh.spacesAfter } });
    auto figures = [](const std::vector<ShardFigures>& list) {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& f : list)
            j.push_back({ { "shard", f.shard }, { "live_docs", f.liveDocs }, { "bytes_estimate", f.bytesEstimate },
                { "bytes_on_disk", f.bytesOnDisk }, { "spaces", f.spaces } });
        return j;
    };
    split["shards_before"] = figures(s.before);
    split["shards_after"] = figures(s.after);
    out["split"] = split;
    if (r.rebuild)
        out["rebuild_a"]
            = { { "spaces", r.rebuild->spaces }, { "docs", r.rebuild->docs }, { "seconds", r.rebuild->seconds } };
    for (const auto* p : phases(r))
        out["phases"].push_back({ { "name", p->name }, { "seconds", p->seconds }, { "node_cpu", p->nodeCpu },
            { "node_cpu_ms_per_query", meanOf(p->cpuMs) }, { "errors", p->errors },
            { "hit_count_mismatches", hitMismatches(r, *p) }, { "queries_per_shard", p->queriesPerShard } });
    for (const auto& c : comparisons(r))
        out["comparisons"].push_back(c.json());
    return out;
}

// ---------------------------------------------------------------------------------------------

void runBenchmark(Report& report, const std::filesystem::path& workDir)
{
    const auto& o = report.options;
    report.mix = parseMix(o.mix);
    report.edges = parseBuckets(o.buckets);
    const Corpus corpus(CorpusOptions { o.seed, o.vocabulary, 1, "bench-", 700, 8 });
    report.tenants = makeTenants(o);
    const auto& tenants = report.tenants;
    report.queries = buildQueries(corpus, tenants, report.mix, o.pick == "size", o.queries, o.seed ^ 0x5eedULL);
    const auto warmup = buildQueries(corpus, tenants, report.mix, o.pick == "size", o.warmup, o.seed ^ 0x3a3aULL);

    auto node
        = ServerProcess::start({ o.nodeBinary, "--listen", "127.0.0.1:0", "--data-dir", (workDir / "node").string(),
                                   "--node-id", kNodeId, "--min-free-bytes", "0", "--exit-with-parent" },
            (workDir / "node.log").string());
    report.nodeAddress = node->address();
    std::cerr << "node at " << node->address() << "\n";
    core::NodeClientOptions clientOptions;
    clientOptions.callTimeout = std::chrono::milliseconds(120000);
    core::NodeClientPool pool(clientOptions);
    auto client = orThrow(pool.get(node->address()), "connecting to the node");
    std::vector<std::string> loaded { kShardA };
    if (o.paired)
        loaded.push_back(kShardR);
    for (const auto& shard : loaded)
        orThrow(client->createShard(shard, {}), "CreateShard " + shard);

    std::cerr << "writing " << o.docs << " documents of " << o.tenants << " tenants into A"
              << (o.paired ? " and R" : "") << "...\n";
    report.ingest = ingest(*client, *node, corpus, tenants, o, loaded);

    std::vector<std::string> shardOfTenant(tenants.names.size(), kShardA);
    std::cerr << "queries before the split...\n";
    report.before = runPhase("before", *client, *node, tenants, warmup, report.queries, shardOfTenant, o.limit).routed;

    std::map<std::string, double> queriesPerSecond;
    for (const auto& q : report.queries)
        queriesPerSecond[tenants.names[q.tenant]] += 1.0 / std::max(report.before.seconds, 1e-9);
    std::cerr << "splitting A as planSplit proposes (direct copy to B, then drop from A)...\n";
    report.split = split(*client, *node, o, queriesPerSecond, shardOfTenant, tenants);
    report.shardOfTenant = shardOfTenant;

    const std::string reference = o.paired ? kShardR : "";
    std::cerr << "queries after the split" << (o.paired ? ", paired with R" : "") << "...\n";
    auto after = runPhase("after", *client, *node, tenants, warmup, report.queries, shardOfTenant, o.limit, reference);
    report.after = std::move(after.routed);
    report.afterReference = std::move(after.reference);
    if (o.rebuildA) {
        std::cerr << "--rebuild-a: copying A's remaining tenants to a fresh shard A2...\n";
        report.rebuild = rebuildA(*client, o, tenants, shardOfTenant);
        std::cerr << "queries after the split, A rebuilt...\n";
        auto rebuilt
            = runPhase("a-rebuilt", *client, *node, tenants, warmup, report.queries, shardOfTenant, o.limit, reference);
        report.rebuilt = std::move(rebuilt.routed);
        report.rebuiltReference = std::move(rebuilt.reference);
    }
    if (node->stop() != 0)
        std::cerr << "warning: the node did not exit cleanly; see " << (workDir / "node.log").string() << "\n";
}

void addOptions(CLI::App& app, Options& o)
{
    app.add_option("--tenants", o.tenants, "Tenants (spaces) in shard A")
        ->capture_default_str()
        ->check(CLI::Range(2, 999));
    app.add_option("--docs", o.docs, "Documents in all")->capture_default_str()->check(CLI::Range(1000, 5000000));
    app.add_option("--zipf", o.zipf, "Exponent of the tenants' Zipf sizes")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 4.0));
    app.add_option("--min-tenant-docs", o.minTenantDocs, "Fewest documents a tenant gets")
        ->capture_default_str()
        ->check(CLI::Range(1, 100000));
    app.add_option("--queries", o.queries, "Queries per phase (the same sequence before and after)")
        ->capture_default_str()
        ->check(CLI::Range(10, 1000000));
    app.add_option("--warmup", o.warmup, "Unrecorded queries before each phase")->capture_default_str();
    app.add_option("--pick", o.pick, "How a query's tenant is picked: size (proportional to its docs) or uniform")
        ->capture_default_str()
        ->check(CLI::IsMember({ "size", "uniform" }));
    app.add_option("--mix", o.mix,
           "Query types and weights: term-common, term-mid, term-rare, prefix-1, prefix-2, prefix-3, prefix-4, phrase")
        ->capture_default_str();
    app.add_option("--buckets", o.buckets, "Upper edges of the latency buckets, ms")->capture_default_str();
    app.add_option("--limit", o.limit, "Hits per query")->capture_default_str()->check(CLI::Range(1, 1000));
    app.add_option("--batch", o.batch, "Documents per BulkWrite while loading A")
        ->capture_default_str()
        ->check(CLI::Range(1, 10000));
    app.add_option("--writers", o.writers, "Concurrent BulkWrite callers while loading A")
        ->capture_default_str()
        ->check(CLI::Range(1, 16));
    app.add_option("--copy-batch", o.copyBatch, "Documents per scan page and BulkWrite of the split's copy")
        ->capture_default_str()
        ->check(CLI::Range(1, 5000));
    app.add_option("--vocabulary", o.vocabulary, "Distinct pseudo-words of the corpus")
        ->capture_default_str()
        ->check(CLI::Range(100, 1000000));
    app.add_option("--seed", o.seed, "Corpus, tenant and query seed")->capture_default_str();
    app.add_option("--node-binary", o.nodeBinary, "shardmap-node to start")->capture_default_str();
    app.add_option("--work-dir", o.workDir, "Where the temp directory goes (default: the system temp dir)");
    app.add_flag("--paired", o.paired,
        "Also load an unsplit reference shard R (same batches as A) and run the 'after' queries alternately on R and "
        "on the split shards, so that both see the same load from the rest of the machine (doubles ingest and the "
        "'after' phase)");
    app.add_flag("--rebuild-a", o.rebuildA,
        "After the 'after' phase, copy A's remaining tenants to a fresh shard A2 and run the sequence a third time "
        "(both halves freshly written, as Wrike's re-indexed collections; shows what the drop leaves in A)");
    app.add_flag("--keep-data", o.keepData, "Keep the temp directory (node data, log)");
    app.add_flag("--json", o.json, "Also print a JSON summary");
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app { "Seed 002's latency table: Zipf tenants in one shard against the same tenants split as the "
                   "planner proposes, the same one-tenant queries before and after, on one real shardmap-node" };
    Report report;
    addOptions(app, report.options);
    CLI11_PARSE(app, argc, argv);
    report.command = joinCommand(argc, argv);
    report.date = utcNow();
    report.loadBefore = loadAverage();
    std::filesystem::path workDir;
    const auto start = Clock::now();
    if (!measureInWorkDir("split_latency_bench", report.options.workDir, "shardmap-splitbench", workDir,
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
