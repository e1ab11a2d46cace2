// Issue 29's table: the same corpus and query mix through each index engine of a shard, in one
// run. The corpus: documents of tenants with Zipf sizes and Zipf words, 5-word titles and 40-word
// bodies (bench/corpus.h); the queries: tenant-scoped common terms, two-term ANDs, two-letter
// prefixes and rare terms, top 20. For each engine: ingest rate, query latency percentiles
// (overall and per kind), index size on disk, and how far its hits agree with the first engine's.
//
//   search_engines_bench [--docs 200000] [--spaces 100] [--queries 600] [--dir DIR] [--json]
//                        [--runs shard-fts5,node-fts5,node-xapian,shard-xapian,index-xapian,plain-xapian]

#include "bench/bench_process.h"
#include "bench/corpus.h"
#include "core/client/node_client.h"
#include "core/query/query_compiler.h"
#include "core/shard/shard_store.h"
#include "core/shard/xapian_index.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>
#include <xapian.h>

namespace {

using namespace shardmap;
using Clock = std::chrono::steady_clock;

struct Options {
    std::uint64_t docs = 200000;
    std::size_t spaces = 100;
    std::size_t queries = 600;
    std::size_t vocabulary = 50000;
    std::uint32_t limit = 20;
    std::string dir;
    bool json = false;
    std::string nodeBinary = SHARDMAP_NODE_BINARY;
    // Which engines run, in this order; the first is the one the others' hits are compared with.
    std::vector<std::string> runs
        = { "shard-fts5", "node-fts5", "node-xapian", "shard-xapian", "index-xapian", "plain-xapian" };
};

struct Query {
    std::string kind;
    std::string space;
    std::string text;
};

// What one engine answers: the ids of its top hits for each query, and its figures.
struct EngineRun {
    std::string name;
    double ingestDocsPerSecond = 0;
    std::uint64_t indexBytes = 0;
    std::vector<double> latencyMs;
    std::map<std::string, std::vector<double>> latencyByKind;
    std::vector<std::vector<std::string>> hits;
};

double percentile(std::vector<double> values, double p)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const auto at = static_cast<std::size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
    return values[std::min(at, values.size() - 1)];
}

bench::CorpusOptions corpusOptions(const Options& options)
{
    bench::CorpusOptions corpus;
    corpus.seed = 29;
    corpus.vocabulary = options.vocabulary;
    corpus.spaces = options.spaces;
    corpus.spacePrefix = "tenant-";
    corpus.titleWords = 5;
    corpus.bodyWords = 40;
    return corpus;
}

// The most frequent words rank first; a rare word of a tenant is the rarest word of one of its
// documents, so that it matches there.
std::vector<Query> makeQueries(const bench::Corpus& corpus, const Options& options)
{
    bench::SplitMix64 rng(2929);
    std::map<std::string, std::size_t> rank;
    for (std::size_t i = 0; i < corpus.vocabularySize(); ++i)
        rank.emplace(corpus.word(i), i);
    const char* kinds[] = { "common", "and", "prefix", "rare" };
    std::vector<Query> queries;
    for (std::size_t i = 0; i < options.queries; ++i) {
        // A document drawn at random names the tenant: large tenants are asked more often.
        const std::uint64_t doc = rng.below(options.docs);
        Query query { kinds[i % 4], corpus.spaceName(corpus.spaceIndexOf(doc)), {} };
        if (query.kind == "common") {
            query.text = corpus.word(rng.below(20));
        } else if (query.kind == "and") {
            query.text = corpus.word(rng.below(300)) + " AND " + corpus.word(rng.below(300));
        } else if (query.kind == "prefix") {
            query.text = corpus.word(rng.below(50)).substr(0, 2) + "*";
        } else {
            std::string rarest;
            for (const std::string& word : corpus.bodyWords(doc)) {
                if (rarest.empty() || rank[word] > rank[rarest])
                    rarest = word;
            }
            query.text = rarest;
        }
        queries.push_back(std::move(query));
    }
    return queries;
}

void timeQueries(
    EngineRun& run, const std::vector<Query>& queries, const std::function<std::vector<std::string>(const Query&)>& ask)
{
    for (const Query& query : queries)
        (void)ask(query); // warm the caches once: the figures are of a shard in use
    for (const Query& query : queries) {
        const auto started = Clock::now();
        run.hits.push_back(ask(query));
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
        run.latencyMs.push_back(ms);
        run.latencyByKind[query.kind].push_back(ms);
    }
}

std::uint64_t directoryBytes(const std::string& path)
{
    std::uint64_t total = 0;
    std::error_code error;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(path, error)) {
        if (entry.is_regular_file(error))
            total += entry.file_size(error);
    }
    return total;
}

// The documents in batches of 1000, each batch through `write`; returns the seconds writing took.
double ingest(
    const bench::Corpus& corpus, const Options& options, const std::function<void(std::vector<core::WriteItem>)>& write)
{
    constexpr std::uint64_t kBatch = 1000;
    double seconds = 0;
    for (std::uint64_t first = 0; first < options.docs; first += kBatch) {
        const auto docs = bench::generateDocs(corpus, first, std::min(kBatch, options.docs - first), 2);
        std::vector<core::WriteItem> items;
        for (const auto& doc : docs)
            items.push_back({ { doc.space, doc.id, 1, { { "title", doc.title }, { "body", doc.body } }, false }, 1 });
        const auto started = Clock::now();
        write(std::move(items));
        seconds += std::chrono::duration<double>(Clock::now() - started).count();
    }
    return seconds;
}

std::vector<std::string> hitIds(const core::Result<core::SearchResult>& found)
{
    std::vector<std::string> ids;
    for (const auto& hit : found ? found->hits : std::vector<core::SearchHit> {})
        ids.push_back(hit.id);
    return ids;
}

core::ShardSearchRequest searchRequest(const Query& query, const Options& options)
{
    core::ShardSearchRequest request;
    request.spaces = { query.space };
    request.query = query.text;
    request.limit = options.limit;
    return request;
}

// A shard's store in this process, on one engine: the node's own code without gRPC.
EngineRun runShard(
    core::IndexEngine engine, const bench::Corpus& corpus, const std::vector<Query>& queries, const Options& options)
{
    EngineRun run { std::string(engine == core::IndexEngine::Fts5 ? "SQLite FTS5" : "Xapian")
            + " shard in process (ShardStore, engine " + core::indexEngineName(engine) + ")",
        0, 0, {}, {}, {} };
    const std::string dir = options.dir + "/shard-" + core::indexEngineName(engine);
    std::filesystem::create_directories(dir);
    core::ShardStoreOptions storeOptions;
    storeOptions.index.fields = { { "title", true, 1.0 }, { "body", true, 1.0 } };
    storeOptions.engine = engine;
    auto store = core::ShardStore::create(dir + "/shard.db", "bench", storeOptions);
    if (!store)
        throw std::runtime_error(store.error().describe());
    for (std::size_t i = 0; i < options.spaces; ++i)
        (void)(*store)->setOwnership({ corpus.spaceName(i), core::SpaceRole::Owner, 1 });
    const double seconds = ingest(corpus, options, [&](std::vector<core::WriteItem> items) {
        auto written = (*store)->write(std::move(items));
        if (!written)
            throw std::runtime_error(written.error().describe());
    });
    run.ingestDocsPerSecond = static_cast<double>(options.docs) / seconds;
    (void)(*store)->checkpoint();
    run.indexBytes = directoryBytes(dir);
    timeQueries(
        run, queries, [&](const Query& query) { return hitIds((*store)->search(searchRequest(query, options))); });
    return run;
}

// A real shardmap-node (its shards on `engine`, --default-engine) and one client over gRPC on
// loopback: what a tenant's write and query cost as deployed.
EngineRun runNode(
    core::IndexEngine engine, const bench::Corpus& corpus, const std::vector<Query>& queries, const Options& options)
{
    EngineRun run { std::string("shardmap-node over gRPC, engine ") + core::indexEngineName(engine), 0, 0, {}, {}, {} };
    const std::string dir = options.dir + "/node-" + core::indexEngineName(engine);
    auto node = bench::ServerProcess::start(
        { options.nodeBinary, "--listen", "127.0.0.1:0", "--data-dir", dir, "--node-id", "bench-node",
            "--min-free-bytes", "0", "--exit-with-parent", "--default-engine", core::indexEngineName(engine) },
        dir + ".log");
    node->setStopGrace(std::chrono::seconds(300));
    core::NodeClientOptions clientOptions;
    clientOptions.callTimeout = std::chrono::seconds(120);
    auto client = core::GrpcNodeClient::connect(node->address(), clientOptions);
    if (!client)
        throw std::runtime_error(client.error().describe());
    auto& nodeClient = **client;
    if (auto created = nodeClient.createShard("bench", { "title", "body" }); !created)
        throw std::runtime_error(created.error().describe());
    for (std::size_t i = 0; i < options.spaces; ++i)
        (void)nodeClient.setOwnership("bench", { corpus.spaceName(i), core::SpaceRole::Owner, 1 });
    const double seconds = ingest(corpus, options, [&](std::vector<core::WriteItem> items) {
        auto written = nodeClient.bulkWrite("bench", items);
        if (!written)
            throw std::runtime_error(written.error().describe());
    });
    run.ingestDocsPerSecond = static_cast<double>(options.docs) / seconds;
    timeQueries(run, queries,
        [&](const Query& query) { return hitIds(nodeClient.search("bench", searchRequest(query, options))); });
    client->reset();
    node->stop();
    run.indexBytes = directoryBytes(dir);
    return run;
}

EngineRun runXapian(const bench::Corpus& corpus, const std::vector<Query>& queries, const Options& options)
{
    EngineRun run { "Xapian index in process (core/shard/xapian_index)", 0, 0, {}, {}, {} };
    const std::vector<std::string> fields { "title", "body" };
    auto index = core::XapianIndex::open(options.dir + "/xapian", fields);
    if (!index)
        throw std::runtime_error(index.error().describe());
    constexpr std::uint64_t kBatch = 1000;
    double seconds = 0;
    for (std::uint64_t first = 0; first < options.docs; first += kBatch) {
        const auto docs = bench::generateDocs(corpus, first, std::min(kBatch, options.docs - first), 2);
        const auto started = Clock::now();
        for (std::size_t i = 0; i < docs.size(); ++i) {
            const auto rowid = static_cast<std::int64_t>(first + i + 1);
            if (auto status = (*index)->put({ rowid, docs[i].space, { docs[i].title, docs[i].body, std::nullopt } });
                !status)
                throw std::runtime_error(status.error().describe());
        }
        if ((first + kBatch) % 10000 == 0 || first + kBatch >= options.docs)
            (void)(*index)->commit(first + docs.size());
        seconds += std::chrono::duration<double>(Clock::now() - started).count();
    }
    run.ingestDocsPerSecond = static_cast<double>(options.docs) / seconds;
    run.indexBytes = (*index)->diskBytes();
    const core::QuerySchema schema { fields };
    timeQueries(run, queries, [&](const Query& query) {
        std::vector<std::string> ids;
        auto parsed = core::parseQuery(query.text, schema);
        if (!parsed)
            return ids;
        auto found = (*index)->search({ query.space }, *parsed, 0, options.limit);
        for (const auto& hit : found ? *found : std::vector<core::IndexedHit> {})
            ids.push_back(corpus.docId(static_cast<std::uint64_t>(hit.rowid - 1)));
        return ids;
    });
    return run;
}

// Xapian as an application would use it on its own, the yardstick of issue 29: one database, the
// text indexed by its TermGenerator without field prefixes, the tenant a boolean term, queries
// through its QueryParser (AND by default, wildcards expanded in full), BM25.
EngineRun runPlainXapian(const bench::Corpus& corpus, const std::vector<Query>& queries, const Options& options)
{
    EngineRun run { "Xapian on its own (TermGenerator, QueryParser)", 0, 0, {}, {}, {} };
    const std::string path = options.dir + "/plain-xapian";
    Xapian::WritableDatabase db(path, Xapian::DB_CREATE_OR_OPEN);
    Xapian::TermGenerator terms;
    constexpr std::uint64_t kBatch = 1000;
    double seconds = 0;
    for (std::uint64_t first = 0; first < options.docs; first += kBatch) {
        const auto docs = bench::generateDocs(corpus, first, std::min(kBatch, options.docs - first), 2);
        const auto started = Clock::now();
        for (std::size_t i = 0; i < docs.size(); ++i) {
            Xapian::Document doc;
            terms.set_document(doc);
            terms.index_text(docs[i].title);
            terms.increase_termpos();
            terms.index_text(docs[i].body);
            doc.add_boolean_term("S" + docs[i].space);
            db.replace_document(static_cast<Xapian::docid>(first + i + 1), doc);
        }
        if ((first + kBatch) % 10000 == 0 || first + kBatch >= options.docs)
            db.commit();
        seconds += std::chrono::duration<double>(Clock::now() - started).count();
    }
    run.ingestDocsPerSecond = static_cast<double>(options.docs) / seconds;
    run.indexBytes = directoryBytes(path);
    Xapian::QueryParser parser;
    parser.set_database(db);
    parser.set_default_op(Xapian::Query::OP_AND);
    Xapian::Enquire enquire(db);
    timeQueries(run, queries, [&](const Query& query) {
        const Xapian::Query parsed = parser.parse_query(query.text,
            Xapian::QueryParser::FLAG_BOOLEAN | Xapian::QueryParser::FLAG_PHRASE | Xapian::QueryParser::FLAG_WILDCARD);
        enquire.set_query(Xapian::Query(Xapian::Query::OP_FILTER, parsed, Xapian::Query("S" + query.space)));
        std::vector<std::string> ids;
        const Xapian::MSet found = enquire.get_mset(0, options.limit);
        for (auto hit = found.begin(); hit != found.end(); ++hit)
            ids.push_back(corpus.docId(static_cast<std::uint64_t>(*hit - 1)));
        return ids;
    });
    return run;
}

// How many queries found the same set of top hits as the reference engine, and the mean share
// of the reference's hits found.
std::pair<std::size_t, double> agreement(const EngineRun& reference, const EngineRun& run)
{
    std::size_t same = 0;
    double shares = 0;
    for (std::size_t i = 0; i < reference.hits.size(); ++i) {
        const std::set<std::string> a(reference.hits[i].begin(), reference.hits[i].end());
        const std::set<std::string> b(run.hits[i].begin(), run.hits[i].end());
        same += a == b ? 1 : 0;
        std::size_t common = 0;
        for (const auto& id : a)
            common += b.count(id);
        shares += a.empty() ? (b.empty() ? 1.0 : 0.0) : static_cast<double>(common) / static_cast<double>(a.size());
    }
    return { same, reference.hits.empty() ? 1.0 : shares / static_cast<double>(reference.hits.size()) };
}

void print(const std::vector<EngineRun>& runs, const Options& options)
{
    nlohmann::json out = { { "docs", options.docs }, { "spaces", options.spaces }, { "queries", options.queries },
        { "engines", nlohmann::json::array() } };
    for (const EngineRun& run : runs) {
        const auto [same, share] = agreement(runs.front(), run);
        nlohmann::json engine = { { "engine", run.name }, { "ingest_docs_per_second", run.ingestDocsPerSecond },
            { "index_bytes", run.indexBytes }, { "p50_ms", percentile(run.latencyMs, 0.5) },
            { "p90_ms", percentile(run.latencyMs, 0.9) }, { "p99_ms", percentile(run.latencyMs, 0.99) },
            { "same_hits_as_first", same }, { "share_of_first_hits", share }, { "kinds", nlohmann::json::object() } };
        for (const auto& [kind, latencies] : run.latencyByKind)
            engine["kinds"][kind]
                = { { "p50_ms", percentile(latencies, 0.5) }, { "p99_ms", percentile(latencies, 0.99) } };
        out["engines"].push_back(engine);
    }
    if (options.json) {
        std::cout << out.dump(2) << "\n";
        return;
    }
    std::printf("%llu documents of %zu tenants, %zu queries, top %u\n\n", static_cast<unsigned long long>(options.docs),
        options.spaces, options.queries, options.limit);
    std::printf("| engine | ingest docs/s | p50 ms | p90 ms | p99 ms | index MiB | same top %u as the first |\n",
        options.limit);
    std::printf("|---|---|---|---|---|---|---|\n");
    for (const auto& engine : out["engines"])
        std::printf("| %s | %.0f | %.2f | %.2f | %.2f | %.0f | %d of %zu (%.0f %% of its hits) |\n",
            engine["engine"].get<std::string>().c_str(), engine["ingest_docs_per_second"].get<double>(),
            engine["p50_ms"].get<double>(), engine["p90_ms"].get<double>(), engine["p99_ms"].get<double>(),
            engine["index_bytes"].get<double>() / (1024.0 * 1024.0), engine["same_hits_as_first"].get<int>(),
            options.queries, 100.0 * engine["share_of_first_hits"].get<double>());
    std::printf("\np50 / p99 ms by kind of query:\n");
    for (const auto& engine : out["engines"]) {
        std::printf("  %s:", engine["engine"].get<std::string>().c_str());
        for (const auto& [kind, figures] : engine["kinds"].items())
            std::printf(
                "  %s %.2f / %.2f", kind.c_str(), figures["p50_ms"].get<double>(), figures["p99_ms"].get<double>());
        std::printf("\n");
    }
}

} // namespace

int main(int argc, char** argv)
{
    Options options;
    CLI::App app("The index engines of a shard on one corpus and one query mix (issue 29)");
    app.add_option("--docs", options.docs, "documents")->capture_default_str();
    app.add_option("--spaces", options.spaces, "tenants, Zipf-sized")->capture_default_str();
    app.add_option("--queries", options.queries, "queries, a quarter of each kind")->capture_default_str();
    app.add_option("--vocabulary", options.vocabulary, "distinct words, Zipf-frequent")->capture_default_str();
    app.add_option("--dir", options.dir, "where the indexes are built (default: a new temporary directory)");
    app.add_flag("--json", options.json, "print JSON");
    app.add_option("--node-binary", options.nodeBinary, "shardmap-node to start")->capture_default_str();
    app.add_option("--runs", options.runs, "engines to run, the first the reference")
        ->delimiter(',')
        ->check(
            CLI::IsMember({ "shard-fts5", "node-fts5", "node-xapian", "shard-xapian", "index-xapian", "plain-xapian" }))
        ->capture_default_str();
    CLI11_PARSE(app, argc, argv);
    bool made = false;
    if (options.dir.empty()) {
        options.dir = (std::filesystem::temp_directory_path() / ("search-engines-bench-" + std::to_string(::getpid())))
                          .string();
        made = true;
    }
    try {
        std::filesystem::create_directories(options.dir);
        const bench::Corpus corpus(corpusOptions(options));
        const auto queries = makeQueries(corpus, options);
        std::vector<EngineRun> runs;
        for (const std::string& name : options.runs) {
            std::cerr << "search_engines_bench: " << name << "\n";
            if (name == "shard-fts5" || name == "shard-xapian")
                runs.push_back(runShard(*core::parseIndexEngine(name.substr(6)), corpus, queries, options));
            else if (name == "node-fts5" || name == "node-xapian")
                runs.push_back(runNode(*core::parseIndexEngine(name.substr(5)), corpus, queries, options));
            else if (name == "index-xapian")
                runs.push_back(runXapian(corpus, queries, options));
            else
                runs.push_back(runPlainXapian(corpus, queries, options));
        }
        print(runs, options);
    } catch (const std::exception& error) {
        std::cerr << "search_engines_bench: " << error.what() << "\n";
        return 1;
    }
    if (made)
        std::filesystem::remove_all(options.dir);
    return 0;
}
