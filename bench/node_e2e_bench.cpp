// node_e2e_bench: end-to-end benchmark of a real shardmap-node process over gRPC.
//
// 1. Ingest: the same synthetic documents are inserted (a) straight into a plain SQLite FTS5
//    table in this process (the machine's limit) and (b) through BulkWrite into the node; the
//    ratio of the two rates is the figure of merit, because absolute rates on a shared machine
//    mean little.
// 2. Search: p50/p99 latency of term, prefix and phrase queries, each scoped to one space.
// 3. Scan: documents per second streamed out of the largest spaces.
//
// Nothing here asserts on timings; the program reports and exits 0 unless something failed.

#include "bench/bench_main.h"
#include "bench/bench_process.h"
#include "bench/bench_report.h"
#include "bench/corpus.h"
#include "shardmap/v1/node.grpc.pb.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <grpcpp/grpcpp.h>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sqlite3.h>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

namespace v1 = shardmap::v1;
using shardmap::bench::BenchDoc;
using shardmap::bench::Corpus;
using shardmap::bench::CorpusOptions;
using shardmap::bench::cpuModel;
using shardmap::bench::finishWorkDir;
using shardmap::bench::joinCommand;
using shardmap::bench::measureInWorkDir;
using shardmap::bench::ServerProcess;
using shardmap::bench::SplitMix64;
using shardmap::bench::utcNow;
using Clock = std::chrono::steady_clock;
using Stub = v1::Node::Stub;

constexpr std::size_t kWarmupQueries = 10;
constexpr std::uint32_t kSearchLimit = 20;

struct Options {
    std::size_t docs = 200000;
    std::uint64_t firstDoc = 0;
    std::size_t spaces = 50;
    std::size_t batch = 1000;
    unsigned clients = 2;
    std::size_t queries = 300;
    std::size_t scanSpaces = 3;
    std::size_t scanBatch = 1000;
    std::size_t vocabulary = 4000;
    std::uint64_t seed = 42;
    std::string target;
    // Extra flags for the node this program starts (--metrics-listen, --log-level ...).
    std::vector<std::string> nodeArgs;
    std::string shard = "bench";
    std::string spacePrefix = "bench-";
    std::string nodeBinary = SHARDMAP_NODE_BINARY;
    std::string workDir;
    bool skipDirect = false;
    bool keepData = false;
    bool json = false;
};

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

std::chrono::system_clock::time_point deadlineIn(std::chrono::seconds seconds)
{
    return std::chrono::system_clock::now() + seconds;
}

void check(const grpc::Status& status, const std::string& what)
{
    if (!status.ok())
        throw std::runtime_error(
            what + " failed: " + std::to_string(status.error_code()) + " " + status.error_message());
}

double processCpuSeconds()
{
    rusage usage {};
    ::getrusage(RUSAGE_SELF, &usage);
    const auto seconds
        = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

std::uint64_t fileSizeOr0(const std::filesystem::path& path)
{
    std::error_code error;
    const auto size = std::filesystem::file_size(path, error);
    return error ? 0 : size;
}

// The node as a child process (bench/bench_process.h): started from the real binary, so the numbers
// include process and network boundaries exactly as deployed.

std::unique_ptr<ServerProcess> startNode(const std::vector<std::string>& extraArgs, const std::string& binary,
    const std::string& dataDir, const std::string& logPath)
{
    std::vector<std::string> command { binary, "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--node-id",
        "bench-node", "--min-free-bytes", "0", "--exit-with-parent" };
    command.insert(command.end(), extraArgs.begin(), extraArgs.end());
    auto node = ServerProcess::start(command, logPath);
    // The node checkpoints its shards on the way out: a large one takes a while.
    node->setStopGrace(std::chrono::seconds(120));
    return node;
}

// ---------------------------------------------------------------------------------------------
// Ingest

struct IngestResult {
    std::string name;
    std::size_t docs = 0;
    std::uint64_t bytes = 0;
    double seconds = 0;
    double clientCpu = 0;
    double nodeCpu = -1; // -1: not measured (direct, or --target)
    std::uint64_t applied = 0;
    std::uint64_t stale = 0;
    std::uint64_t rejected = 0;
    std::uint64_t bytesOnDisk = 0;
    double rate() const { return seconds > 0 ? static_cast<double>(docs) / seconds : 0; }
};

std::uint64_t totalBytes(const std::vector<BenchDoc>& docs)
{
    std::uint64_t total = 0;
    for (const auto& doc : docs)
        total += doc.bytes();
    return total;
}

void sqliteExec(sqlite3* db, const std::string& sql)
{
    char* message = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
        const std::string text = message ? message : "unknown error";
        sqlite3_free(message);
        throw std::runtime_error("sqlite: " + text + " in: " + sql);
    }
}

void insertDirectBatch(
    sqlite3* db, sqlite3_stmt* insert, const std::vector<BenchDoc>& docs, std::size_t from, std::size_t to)
{
    sqliteExec(db, "BEGIN");
    for (std::size_t i = from; i < to; ++i) {
        sqlite3_bind_text(insert, 1, docs[i].title.data(), static_cast<int>(docs[i].title.size()), SQLITE_STATIC);
        sqlite3_bind_text(insert, 2, docs[i].body.data(), static_cast<int>(docs[i].body.size()), SQLITE_STATIC);
        if (sqlite3_step(insert) != SQLITE_DONE)
            throw std::runtime_error(std::string("sqlite insert: ") + sqlite3_errmsg(db));
        sqlite3_reset(insert);
    }
    sqliteExec(db, "COMMIT");
}

// The machine's limit: the same text into a plain FTS5 table with the node's tokenizer and prefix
// indexes, WAL and synchronous=NORMAL, one transaction per batch, one thread, no network.
IngestResult runDirectIngest(const std::vector<BenchDoc>& docs, const std::string& path, std::size_t batch)
{
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK)
        throw std::runtime_error("cannot open " + path);
    // Same page cache as the node's writer connection, so the comparison is of the work done.
    sqliteExec(db,
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-32768;"
        " CREATE VIRTUAL TABLE docs USING fts5(title, body, tags, prefix='2 3',"
        " tokenize='unicode61 remove_diacritics 2');");
    sqlite3_stmt* insert = nullptr;
    if (sqlite3_prepare_v2(db, "INSERT INTO docs(title, body, tags) VALUES (?1, ?2, NULL)", -1, &insert, nullptr)
        != SQLITE_OK)
        throw std::runtime_error(std::string("sqlite prepare: ") + sqlite3_errmsg(db));
    IngestResult result { "direct FTS5, 1 thread", docs.size(), totalBytes(docs) };
    const double cpuBefore = processCpuSeconds();
    const auto start = Clock::now();
    for (std::size_t from = 0; from < docs.size(); from += batch)
        insertDirectBatch(db, insert, docs, from, std::min(docs.size(), from + batch));
    result.seconds = secondsSince(start);
    result.clientCpu = processCpuSeconds() - cpuBefore;
    result.applied = docs.size();
    sqlite3_finalize(insert);
    result.bytesOnDisk = fileSizeOr0(path) + fileSizeOr0(path + "-wal");
    sqlite3_close(db);
    return result;
}

std::shared_ptr<grpc::Channel> makeChannel(const std::string& address)
{
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(128 * 1024 * 1024);
    args.SetMaxSendMessageSize(128 * 1024 * 1024);
    // Each client gets its own connection, as separate indexer processes would.
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    auto channel = grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
    if (!channel->WaitForConnected(deadlineIn(std::chrono::seconds(20))))
        throw std::runtime_error("cannot connect to " + address);
    return channel;
}

// Creates the shard unless it exists: the only change --target mode makes besides writing the
// bench spaces.
void ensureShard(Stub& stub, const std::string& shard)
{
    grpc::ClientContext context;
    context.set_deadline(deadlineIn(std::chrono::seconds(30)));
    v1::CreateShardRequest request;
    request.set_shard_id(shard);
    v1::ShardInfo info;
    const auto status = stub.CreateShard(&context, request, &info);
    if (status.error_code() != grpc::StatusCode::ALREADY_EXISTS)
        check(status, "CreateShard " + shard);
}

// The epoch to write each space with: the one held if the shard already owns it, else epoch 1.
std::uint64_t claimSpace(Stub& stub, const std::string& shard, const std::string& space)
{
    grpc::ClientContext getContext;
    getContext.set_deadline(deadlineIn(std::chrono::seconds(30)));
    v1::GetOwnershipRequest get;
    get.set_shard_id(shard);
    get.set_space(space);
    v1::GetOwnershipResponse held;
    check(stub.GetOwnership(&getContext, get, &held), "GetOwnership " + space);
    for (const auto& own : held.ownerships()) {
        if (own.space() != space)
            continue;
        if (own.role() == v1::SPACE_ROLE_FENCED)
            throw std::runtime_error(
                "space " + space + " is fenced on shard " + shard + "; pick another --space-prefix");
        return own.epoch();
    }
    grpc::ClientContext setContext;
    setContext.set_deadline(deadlineIn(std::chrono::seconds(30)));
    v1::SetOwnershipRequest set;
    set.set_shard_id(shard);
    set.set_space(space);
    set.set_role(v1::SPACE_ROLE_OWNER);
    set.set_epoch(1);
    v1::Ownership out;
    check(stub.SetOwnership(&setContext, set, &out), "SetOwnership " + space);
    return 1;
}

v1::BulkWriteRequest buildWriteRequest(const std::string& shard, const std::vector<BenchDoc>& docs, std::size_t from,
    std::size_t to, const std::map<std::string, std::uint64_t>& epochs, std::uint64_t version)
{
    v1::BulkWriteRequest request;
    request.set_shard_id(shard);
    request.mutable_items()->Reserve(static_cast<int>(to - from));
    for (std::size_t i = from; i < to; ++i) {
        auto* item = request.add_items();
        item->set_epoch(epochs.at(docs[i].space));
        auto* doc = item->mutable_doc();
        doc->set_space(docs[i].space);
        doc->set_id(docs[i].id);
        doc->set_version(version);
        (*doc->mutable_fields())["title"] = docs[i].title;
        (*doc->mutable_fields())["body"] = docs[i].body;
    }
    return request;
}

struct GrpcIngestPlan {
    std::string address;
    std::string shard;
    std::size_t batch = 1000;
    unsigned clients = 2;
    std::uint64_t version = 1;
    std::map<std::string, std::uint64_t> epochs;
};

// Client threads take the next batch from a shared counter until all are sent, so a slow
// response on one connection does not leave the node idle.
IngestResult runGrpcIngest(const GrpcIngestPlan& plan, const std::vector<BenchDoc>& docs, const ServerProcess* node)
{
    std::vector<std::unique_ptr<Stub>> stubs;
    for (unsigned i = 0; i < plan.clients; ++i)
        stubs.push_back(v1::Node::NewStub(makeChannel(plan.address)));
    const std::size_t batches = (docs.size() + plan.batch - 1) / plan.batch;
    std::atomic<std::size_t> next { 0 };
    std::atomic<std::uint64_t> applied { 0 }, stale { 0 }, rejected { 0 };
    std::atomic<bool> failed { false };
    std::mutex errorMutex;
    std::string firstError;
    auto client = [&](Stub& stub) {
        for (std::size_t b = next++; b < batches && !failed; b = next++) {
            const std::size_t from = b * plan.batch;
            const auto request = buildWriteRequest(
                plan.shard, docs, from, std::min(docs.size(), from + plan.batch), plan.epochs, plan.version);
            grpc::ClientContext context;
            context.set_deadline(deadlineIn(std::chrono::seconds(600)));
            v1::BulkWriteResponse response;
            const auto status = stub.BulkWrite(&context, request, &response);
            if (!status.ok()) {
                std::lock_guard lock(errorMutex);
                firstError = firstError.empty() ? "BulkWrite: " + status.error_message() : firstError;
                failed = true;
                return;
            }
            applied += response.applied();
            stale += response.stale();
            rejected += response.rejected();
            for (const auto& item : response.results()) {
                if (item.outcome() != v1::WRITE_OUTCOME_REJECTED)
                    continue;
                std::lock_guard lock(errorMutex);
                firstError = firstError.empty() ? "rejected: " + item.reason() : firstError;
            }
        }
    };
    IngestResult result { "gRPC BulkWrite, " + std::to_string(plan.clients) + " clients", docs.size(),
        totalBytes(docs) };
    const double nodeCpuBefore = node ? node->cpuSeconds() : 0;
    const double cpuBefore = processCpuSeconds();
    const auto start = Clock::now();
    std::vector<std::thread> threads;
    for (auto& stub : stubs)
        threads.emplace_back(client, std::ref(*stub));
    for (auto& thread : threads)
        thread.join();
    result.seconds = secondsSince(start);
    result.clientCpu = processCpuSeconds() - cpuBefore;
    result.nodeCpu = node ? node->cpuSeconds() - nodeCpuBefore : -1;
    result.applied = applied;
    result.stale = stale;
    result.rejected = rejected;
    if (failed)
        throw std::runtime_error(firstError);
    if (!firstError.empty())
        std::cerr << "warning: " << rejected << " items rejected, first: " << firstError << "\n";
    return result;
}

std::uint64_t shardBytesOnDisk(Stub& stub, const std::string& shard)
{
    grpc::ClientContext context;
    context.set_deadline(deadlineIn(std::chrono::seconds(30)));
    v1::ListShardsResponse shards;
    check(stub.ListShards(&context, v1::ListShardsRequest {}, &shards), "ListShards");
    for (const auto& info : shards.shards()) {
        if (info.shard_id() == shard)
            return info.bytes_on_disk();
    }
    return 0;
}

std::vector<v1::SpaceStats> spaceStats(Stub& stub, const std::string& shard, const std::vector<std::string>& spaces)
{
    grpc::ClientContext context;
    context.set_deadline(deadlineIn(std::chrono::seconds(30)));
    v1::GetSpaceStatsRequest request;
    request.set_shard_id(shard);
    for (const auto& space : spaces)
        request.add_spaces(space);
    v1::GetSpaceStatsResponse response;
    check(stub.GetSpaceStats(&context, request, &response), "GetSpaceStats");
    return { response.stats().begin(), response.stats().end() };
}

// ---------------------------------------------------------------------------------------------
// Search

struct Query {
    std::string space;
    std::string text;
};

struct QuerySet {
    std::string name;
    std::string description;
    std::vector<Query> queries; // the first kWarmupQueries are not measured
};

struct LatencyStats {
    std::string name;
    std::string description;
    std::string example;
    std::size_t count = 0;
    double p50 = 0;
    double p99 = 0;
    double mean = 0;
    double max = 0;
    double avgHits = 0;
    double zeroHitShare = 0;
};

// Queries go to the space of a randomly chosen document, so spaces are searched in proportion to
// their size, as they would be if every document attracted the same traffic.
QuerySet wordQueries(const Corpus& corpus, SplitMix64& rng, std::size_t docs, std::size_t count, std::string name,
    std::string description, std::size_t minRank, std::size_t maxRank, std::size_t prefixLength)
{
    QuerySet set { std::move(name), std::move(description), {} };
    while (set.queries.size() < count + kWarmupQueries) {
        const auto& word = corpus.word(minRank + rng.below(maxRank - minRank));
        if (prefixLength > 0 && word.size() <= prefixLength)
            continue; // a prefix must be a strict prefix
        const std::string text = prefixLength > 0 ? word.substr(0, prefixLength) + "*" : word;
        set.queries.push_back({ corpus.spaceName(corpus.spaceIndexOf(rng.below(docs))), text });
    }
    return set;
}

// Two adjacent body words of a real document, searched in that document's space: at least one hit.
QuerySet phraseQueries(const Corpus& corpus, SplitMix64& rng, std::size_t docs, std::size_t count)
{
    QuerySet set { "phrase", "two adjacent words of a stored doc, in its space", {} };
    while (set.queries.size() < count + kWarmupQueries) {
        const std::uint64_t index = rng.below(docs);
        const auto words = corpus.bodyWords(index);
        if (words.size() < 2)
            continue;
        const std::size_t at = rng.below(words.size() - 1);
        set.queries.push_back(
            { corpus.spaceName(corpus.spaceIndexOf(index)), "\"" + words[at] + " " + words[at + 1] + "\"" });
    }
    return set;
}

std::vector<QuerySet> buildQueries(const Corpus& corpus, std::size_t docs, std::size_t count, std::uint64_t seed)
{
    SplitMix64 rng(seed ^ 0x5eedULL);
    const std::size_t vocab = corpus.vocabularySize();
    std::vector<QuerySet> sets;
    sets.push_back(wordQueries(corpus, rng, docs, count, "term-common", "one of the 50 most frequent words", 0, 50, 0));
    sets.push_back(
        wordQueries(corpus, rng, docs, count, "term-rare", "a word of the less frequent half", vocab / 2, vocab, 0));
    sets.push_back(wordQueries(corpus, rng, docs, count, "prefix-2", "2 letters* of a vocabulary word", 0, vocab, 2));
    sets.push_back(wordQueries(corpus, rng, docs, count, "prefix-3", "3 letters* of a vocabulary word", 0, vocab, 3));
    sets.push_back(phraseQueries(corpus, rng, docs, count));
    return sets;
}

double percentile(const std::vector<double>& sorted, std::size_t percent)
{
    if (sorted.empty())
        return 0;
    // Nearest rank ceil(percent / 100 * n), in integers: 0.99 * 300 is a hair above 297 in doubles.
    const std::size_t rank = std::max<std::size_t>(1, (sorted.size() * percent + 99) / 100);
    return sorted[std::min(rank, sorted.size()) - 1];
}

LatencyStats runQuerySet(Stub& stub, const std::string& shard, const QuerySet& set)
{
    std::vector<double> latencies;
    std::size_t hits = 0;
    std::size_t zeroHits = 0;
    for (std::size_t i = 0; i < set.queries.size(); ++i) {
        v1::SearchRequest request;
        request.set_shard_id(shard);
        request.add_spaces(set.queries[i].space);
        request.set_query(set.queries[i].text);
        request.set_limit(kSearchLimit);
        grpc::ClientContext context;
        context.set_deadline(deadlineIn(std::chrono::seconds(60)));
        v1::SearchResponse response;
        const auto start = Clock::now();
        check(stub.Search(&context, request, &response), "Search '" + set.queries[i].text + "'");
        const double ms = secondsSince(start) * 1000.0;
        if (i < kWarmupQueries)
            continue;
        latencies.push_back(ms);
        hits += static_cast<std::size_t>(response.hits_size());
        zeroHits += response.hits_size() == 0 ? 1 : 0;
    }
    std::sort(latencies.begin(), latencies.end());
    LatencyStats stats { set.name, set.description, set.queries.back().text, latencies.size() };
    stats.p50 = percentile(latencies, 50);
    stats.p99 = percentile(latencies, 99);
    for (const double ms : latencies)
        stats.mean += ms / static_cast<double>(latencies.size());
    stats.max = latencies.empty() ? 0 : latencies.back();
    stats.avgHits = static_cast<double>(hits) / static_cast<double>(std::max<std::size_t>(latencies.size(), 1));
    stats.zeroHitShare
        = static_cast<double>(zeroHits) / static_cast<double>(std::max<std::size_t>(latencies.size(), 1));
    return stats;
}

// ---------------------------------------------------------------------------------------------
// Scan

struct ScanResult {
    std::vector<std::pair<std::string, std::uint64_t>> spaces;
    std::uint64_t docs = 0;
    std::uint64_t bytes = 0;
    double seconds = 0;
    std::uint64_t expected = 0;
    double rate() const { return seconds > 0 ? static_cast<double>(docs) / seconds : 0; }
};

std::uint64_t scanSpace(
    Stub& stub, const std::string& shard, const std::string& space, std::size_t batch, std::uint64_t& bytes)
{
    grpc::ClientContext context;
    context.set_deadline(deadlineIn(std::chrono::seconds(600)));
    v1::ScanRequest request;
    request.set_shard_id(shard);
    request.set_space(space);
    request.set_batch_size(static_cast<std::uint32_t>(batch));
    auto reader = stub.Scan(&context, request);
    std::uint64_t docs = 0;
    v1::ScanBatch page;
    while (reader->Read(&page)) {
        docs += static_cast<std::uint64_t>(page.docs_size());
        for (const auto& doc : page.docs()) {
            for (const auto& [name, value] : doc.fields())
                bytes += value.size();
        }
    }
    check(reader->Finish(), "Scan " + space);
    return docs;
}

ScanResult runScan(
    Stub& stub, const std::string& shard, const std::vector<std::string>& spaces, std::size_t count, std::size_t batch)
{
    auto stats = spaceStats(stub, shard, spaces);
    std::sort(stats.begin(), stats.end(), [](const auto& a, const auto& b) { return a.live_docs() > b.live_docs(); });
    ScanResult result;
    const auto start = Clock::now();
    for (std::size_t i = 0; i < std::min(count, stats.size()); ++i) {
        const auto docs = scanSpace(stub, shard, stats[i].space(), batch, result.bytes);
        result.spaces.emplace_back(stats[i].space(), docs);
        result.docs += docs;
        result.expected += stats[i].live_docs();
    }
    result.seconds = secondsSince(start);
    return result;
}

// ---------------------------------------------------------------------------------------------
// Report

struct Report {
    Options options;
    std::string command;
    std::string node;
    double generateSeconds = 0;
    double avgDocBytes = 0;
    std::vector<IngestResult> ingest;
    std::uint64_t liveDocsAfter = 0;
    std::uint64_t nodeRssBytes = 0;
    std::vector<LatencyStats> search;
    ScanResult scan;
};

std::optional<double> ingestRatio(const Report& report)
{
    if (report.ingest.size() < 2 || report.ingest[0].rate() <= 0)
        return std::nullopt;
    return report.ingest[1].rate() / report.ingest[0].rate();
}

// Direct CPU per document over node CPU per document: what the rate ratio would be if each side
// had a core to itself. Steadier than the rate ratio on a shared machine, where other processes
// take CPU from one phase and not the other.
std::optional<double> cpuRatio(const Report& report)
{
    if (report.ingest.size() < 2 || report.ingest[1].nodeCpu <= 0)
        return std::nullopt;
    return report.ingest[0].clientCpu / report.ingest[1].nodeCpu;
}

void printHeader(const Report& report)
{
    const auto& o = report.options;
    std::printf("Shardmap node end-to-end benchmark  (%s)\n", utcNow().c_str());
    std::printf("  machine : %u CPUs, %s\n", std::thread::hardware_concurrency(), cpuModel().c_str());
    std::printf("  command : %s\n", report.command.c_str());
    std::printf("  node    : %s\n", report.node.c_str());
    if (o.firstDoc > 0)
        std::printf("  corpus  : documents %llu.. of the seed's sequence (earlier ones written by a previous run)\n",
            static_cast<unsigned long long>(o.firstDoc));
    std::printf("  corpus  : %zu docs, avg %.0f bytes (title+body), %zu spaces (Zipf sizes), vocabulary %zu, seed %llu"
                " (generated in %.1f s, not measured)\n",
        o.docs, report.avgDocBytes, o.spaces, o.vocabulary, static_cast<unsigned long long>(o.seed),
        report.generateSeconds);
    std::printf("  writes  : batches of %zu, %u gRPC client threads\n\n", o.batch, o.clients);
}

std::string cpuText(double seconds)
{
    if (seconds < 0)
        return "-";
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", seconds);
    return text;
}

void printIngest(const Report& report)
{
    std::printf(
        "Ingest                          docs   seconds     docs/s     MB/s  cpu-s bench  cpu-s node  on disk MB\n");
    for (const auto& r : report.ingest) {
        std::printf("  %-26s %9zu %9.2f %10.0f %8.2f %12s %11s %11.0f\n", r.name.c_str(), r.docs, r.seconds, r.rate(),
            static_cast<double>(r.bytes) / r.seconds / 1e6, cpuText(r.clientCpu).c_str(), cpuText(r.nodeCpu).c_str(),
            static_cast<double>(r.bytesOnDisk) / 1e6);
    }
    if (const auto ratio = ingestRatio(report))
        std::printf("  ratio gRPC / direct: %.2f   (target >= 0.60: %s)\n", *ratio, *ratio >= 0.6 ? "met" : "NOT met");
    if (const auto ratio = cpuRatio(report))
        std::printf("  CPU-time ratio, direct cpu-s / node cpu-s for the same docs: %.2f\n", *ratio);
    if (report.ingest.size() > 0) {
        const auto& g = report.ingest.back();
        std::printf("  node reports %llu live docs after ingest; applied %llu, stale %llu, rejected %llu\n",
            static_cast<unsigned long long>(report.liveDocsAfter), static_cast<unsigned long long>(g.applied),
            static_cast<unsigned long long>(g.stale), static_cast<unsigned long long>(g.rejected));
    }
    std::printf("\n");
}

void printSearch(const Report& report)
{
    std::printf("Search (one space per query, limit %u, sequential, client-side latency incl. gRPC)\n", kSearchLimit);
    std::printf("  %-12s %7s %9s %9s %9s %9s %9s %7s  %s\n", "type", "queries", "p50 ms", "p99 ms", "mean ms", "max ms",
        "avg hits", "0-hit", "example");
    for (const auto& s : report.search) {
        std::printf("  %-12s %7zu %9.2f %9.2f %9.2f %9.2f %9.1f %6.0f%%  %s\n", s.name.c_str(), s.count, s.p50, s.p99,
            s.mean, s.max, s.avgHits, s.zeroHitShare * 100, s.example.c_str());
    }
    std::printf("\n");
}

void printScan(const Report& report)
{
    const auto& scan = report.scan;
    std::printf("Scan (batch %zu) of the %zu largest spaces\n", report.options.scanBatch, scan.spaces.size());
    for (const auto& [space, docs] : scan.spaces)
        std::printf("  %-20s %9llu docs\n", space.c_str(), static_cast<unsigned long long>(docs));
    std::printf(
        "  total %llu docs (expected %llu) in %.2f s: %.0f docs/s, %.1f MB/s of field text   (target >= 50000: %s)\n",
        static_cast<unsigned long long>(scan.docs), static_cast<unsigned long long>(scan.expected), scan.seconds,
        scan.rate(), static_cast<double>(scan.bytes) / std::max(scan.seconds, 1e-9) / 1e6,
        scan.rate() >= 50000 ? "met" : "NOT met");
    if (report.nodeRssBytes > 0)
        std::printf("  node RSS at the end: %.0f MB\n", static_cast<double>(report.nodeRssBytes) / 1e6);
    std::printf("\n");
}

nlohmann::json toJson(const Report& report)
{
    const auto& o = report.options;
    nlohmann::json out;
    out["date"] = utcNow();
    out["machine"] = { { "cpus", std::thread::hardware_concurrency() }, { "cpu_model", cpuModel() } };
    out["command"] = report.command;
    out["config"] = { { "docs", o.docs }, { "first_doc", o.firstDoc }, { "spaces", o.spaces }, { "batch", o.batch },
        { "clients", o.clients }, { "queries", o.queries }, { "seed", o.seed }, { "vocabulary", o.vocabulary },
        { "avg_doc_bytes", report.avgDocBytes }, { "target", o.target }, { "shard", o.shard } };
    for (const auto& r : report.ingest) {
        out["ingest"].push_back({ { "name", r.name }, { "docs", r.docs }, { "seconds", r.seconds },
            { "docs_per_second", r.rate() }, { "bench_cpu_seconds", r.clientCpu }, { "node_cpu_seconds", r.nodeCpu },
            { "bytes_on_disk", r.bytesOnDisk }, { "applied", r.applied }, { "stale", r.stale },
            { "rejected", r.rejected } });
    }
    if (const auto ratio = ingestRatio(report))
        out["ingest_ratio"] = *ratio;
    if (const auto ratio = cpuRatio(report))
        out["ingest_cpu_ratio"] = *ratio;
    for (const auto& s : report.search) {
        out["search"][s.name]
            = { { "queries", s.count }, { "p50_ms", s.p50 }, { "p99_ms", s.p99 }, { "mean_ms", s.mean },
                  { "max_ms", s.max }, { "avg_hits", s.avgHits }, { "zero_hit_share", s.zeroHitShare } };
    }
    out["scan"] = { { "spaces", report.scan.spaces.size() }, { "docs", report.scan.docs },
        { "seconds", report.scan.seconds }, { "docs_per_second", report.scan.rate() } };
    out["node_rss_bytes"] = report.nodeRssBytes;
    return out;
}

// ---------------------------------------------------------------------------------------------

void addOptions(CLI::App& app, Options& o)
{
    app.add_option("--docs", o.docs, "Documents to ingest")->capture_default_str()->check(CLI::Range(1, 100000000));
    app.add_option("--first-doc", o.firstDoc,
           "Index of the first document: with --target, a second run can grow the shard written by a first one")
        ->capture_default_str();
    app.add_option("--spaces", o.spaces, "Spaces the documents are spread over (Zipf sizes)")
        ->capture_default_str()
        ->check(CLI::Range(1, 100000));
    app.add_option("--batch", o.batch, "Documents per BulkWrite request and per direct transaction")
        ->capture_default_str()
        ->check(CLI::Range(1, 10000));
    app.add_option("--clients", o.clients, "Concurrent gRPC client threads for ingest")
        ->capture_default_str()
        ->check(CLI::Range(1, 256));
    app.add_option("--queries", o.queries, "Measured queries per query type")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000000));
    app.add_option("--scan-spaces", o.scanSpaces, "How many of the largest spaces to scan")->capture_default_str();
    app.add_option("--scan-batch", o.scanBatch, "Scan batch size")->capture_default_str()->check(CLI::Range(1, 5000));
    app.add_option("--vocabulary", o.vocabulary, "Distinct pseudo-words")
        ->capture_default_str()
        ->check(CLI::Range(100, 1000000));
    app.add_option("--seed", o.seed, "Corpus seed")->capture_default_str();
    app.add_option("--target", o.target, "HOST:PORT of a running node (default: start one in a temp dir)");
    app.add_option("--node-arg", o.nodeArgs,
        "A flag for the node this program starts, repeatable (--node-arg=--metrics-listen=127.0.0.1:0)");
    app.add_option("--shard", o.shard, "Shard to write and search (created if missing)")->capture_default_str();
    app.add_option("--space-prefix", o.spacePrefix, "Prefix of the bench space ids")->capture_default_str();
    app.add_option("--node-binary", o.nodeBinary, "shardmap-node to start")->capture_default_str();
    app.add_option("--work-dir", o.workDir, "Where the temp directory goes (default: the system temp dir)");
    app.add_flag("--skip-direct", o.skipDirect, "Skip the direct SQLite baseline");
    app.add_flag("--keep-data", o.keepData, "Keep the temp directory (node data, direct db, node log)");
    app.add_flag("--json", o.json, "Also print a JSON summary");
}

std::uint64_t nowUnixMs()
{
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count());
}

std::vector<std::string> spaceNames(const Corpus& corpus)
{
    std::vector<std::string> names;
    for (std::size_t i = 0; i < corpus.options().spaces; ++i)
        names.push_back(corpus.spaceName(i));
    return names;
}

void runBenchmark(Report& report, const std::filesystem::path& workDir)
{
    const auto& o = report.options;
    const Corpus corpus(CorpusOptions { o.seed, o.vocabulary, o.spaces, o.spacePrefix });
    auto start = Clock::now();
    auto docs
        = shardmap::bench::generateDocs(corpus, o.firstDoc, o.docs, std::max(1U, std::thread::hardware_concurrency()));
    report.generateSeconds = secondsSince(start);
    report.avgDocBytes = static_cast<double>(totalBytes(docs)) / static_cast<double>(docs.size());

    std::unique_ptr<ServerProcess> node;
    std::string address = o.target;
    if (address.empty()) {
        node = startNode(o.nodeArgs, o.nodeBinary, (workDir / "node").string(), (workDir / "node.log").string());
        address = node->address();
        report.node = "started " + o.nodeBinary + " on " + address + ", data in " + (workDir / "node").string();
    } else {
        report.node = "running node at " + address + " (--target)";
    }
    auto stub = v1::Node::NewStub(makeChannel(address));
    ensureShard(*stub, o.shard);
    GrpcIngestPlan plan { address, o.shard, o.batch, o.clients, nowUnixMs(), {} };
    const auto spaces = spaceNames(corpus);
    for (const auto& space : spaces)
        plan.epochs[space] = claimSpace(*stub, o.shard, space);

    if (!o.skipDirect) {
        std::cerr << "direct FTS5 ingest of " << docs.size() << " docs...\n";
        report.ingest.push_back(runDirectIngest(docs, (workDir / "direct.db").string(), o.batch));
    }
    std::cerr << "gRPC ingest of " << docs.size() << " docs...\n";
    report.ingest.push_back(runGrpcIngest(plan, docs, node.get()));
    report.ingest.back().bytesOnDisk = shardBytesOnDisk(*stub, o.shard);
    for (const auto& stat : spaceStats(*stub, o.shard, spaces))
        report.liveDocsAfter += stat.live_docs();
    docs.clear();
    docs.shrink_to_fit();

    std::cerr << "search...\n";
    // Queries draw on every document the shard should hold, those of earlier runs included.
    for (const auto& set : buildQueries(corpus, o.firstDoc + o.docs, o.queries, o.seed))
        report.search.push_back(runQuerySet(*stub, o.shard, set));
    std::cerr << "scan...\n";
    report.scan = runScan(*stub, o.shard, spaces, o.scanSpaces, o.scanBatch);
    report.nodeRssBytes = node ? node->rssBytes() : 0;
    if (node && node->stop() != 0)
        std::cerr << "warning: the node did not exit cleanly; see " << (workDir / "node.log").string() << "\n";
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app {
        "End-to-end benchmark of shardmap-node: gRPC ingest vs direct SQLite FTS5, search latency, scan rate"
    };
    Report report;
    addOptions(app, report.options);
    CLI11_PARSE(app, argc, argv);
    report.command = joinCommand(argc, argv);
    std::filesystem::path workDir;
    if (!measureInWorkDir("node_e2e_bench", report.options.workDir, "shardmap-bench", workDir,
            [&report](const std::filesystem::path& dir) { runBenchmark(report, dir); }))
        return 1;
    printHeader(report);
    printIngest(report);
    printSearch(report);
    printScan(report);
    if (report.options.json)
        std::cout << toJson(report).dump(2) << std::endl;
    finishWorkDir(workDir, report.options.keepData);
    return 0;
}
