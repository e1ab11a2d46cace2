// Micro-benchmarks of core building blocks, in process, without gRPC. They show what the hot
// paths cost per call so that an end-to-end regression can be traced to (or ruled out in) core.

#include "bench/corpus.h"
#include "core/metrics/latency_histogram.h"
#include "core/query/query_compiler.h"
#include "core/shard/document.h"
#include "core/shard/shard_store.h"

#include <array>
#include <benchmark/benchmark.h>
#include <cstdlib>
#include <filesystem>
#include <sqlite3.h>
#include <string>
#include <string_view>
#include <vector>
#include <xxhash.h>

namespace {

using namespace shardmap::core;
using shardmap::bench::Corpus;
using shardmap::bench::CorpusOptions;

// The checksum term before issue 14, kept here to compare: a hash of (id, version) only.
std::uint64_t idVersionTerm(std::string_view id, std::uint64_t version)
{
    std::array<unsigned char, 8> bytes {};
    for (std::size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = static_cast<unsigned char>(version >> (8 * i));
    return XXH3_64bits_withSeed(bytes.data(), bytes.size(), XXH3_64bits(id.data(), id.size()));
}

void idVersionTermBench(benchmark::State& state)
{
    std::uint64_t version = 1;
    for (auto _ : state)
        benchmark::DoNotOptimize(idVersionTerm("doc-0000123456", version++));
}
BENCHMARK(idVersionTermBench);

// The checksum's cost per written row: the content hash of a typical document (title, body of
// about 1 KB, tags) and its row term (issue 14 made the checksum cover content).
void checksumTermBench(benchmark::State& state)
{
    Document doc { "space", "doc-0000123456", 1,
        { { "title", "Quarterly report on the northern region" }, { "body", std::string(1000, 'x') },
            { "tags", "finance report q3" } },
        false };
    for (auto _ : state) {
        ++doc.version;
        benchmark::DoNotOptimize(rowTerm(doc.id, contentHash(doc)));
    }
}
BENCHMARK(checksumTermBench);

void spaceTokenBench(benchmark::State& state)
{
    for (auto _ : state)
        benchmark::DoNotOptimize(spaceToken("bench-017"));
}
BENCHMARK(spaceTokenBench);

constexpr std::array<std::string_view, 5> kQueries { "fox", "quick brown fox", "\"quick brown fox\"", "qu*",
    "title:fox AND (body:\"lazy dog\" OR tags:cat*) NOT bird" };

void compileQueryBench(benchmark::State& state)
{
    const QuerySchema schema { { "title", "body", "tags" } };
    const auto query = kQueries[static_cast<std::size_t>(state.range(0))];
    state.SetLabel(std::string(query));
    for (auto _ : state) {
        auto compiled = compileQuery(query, schema);
        benchmark::DoNotOptimize(compiled);
    }
}
BENCHMARK(compileQueryBench)->DenseRange(0, static_cast<int>(kQueries.size()) - 1);

void latencyHistogramRecordBench(benchmark::State& state)
{
    LatencyHistogram histogram;
    double ms = 0.05;
    for (auto _ : state) {
        histogram.record(ms);
        // Walk over several decades so the bucket search is not always the same branch.
        ms = ms > 500 ? 0.05 : ms * 1.37;
    }
    benchmark::DoNotOptimize(histogram.peek());
}
BENCHMARK(latencyHistogramRecordBench);

// A fresh shard per run, removed afterwards, owning every space of the corpus at epoch 1.
class TempShard final {
public:
    explicit TempShard(const Corpus& corpus)
    {
        std::string pattern = (std::filesystem::temp_directory_path() / "shardmap-core-bench-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr)
            std::abort();
        m_dir = pattern;
        auto created = ShardStore::create((m_dir / "bench.db").string(), "bench", {});
        if (!created)
            std::abort();
        store = std::move(*created);
        for (std::size_t i = 0; i < corpus.options().spaces; ++i) {
            if (!store->setOwnership({ corpus.spaceName(i), SpaceRole::Owner, 1 }))
                std::abort();
        }
    }
    ~TempShard()
    {
        store.reset();
        std::error_code ignored;
        std::filesystem::remove_all(m_dir, ignored);
    }
    TempShard(const TempShard&) = delete;
    TempShard& operator=(const TempShard&) = delete;

    std::unique_ptr<ShardStore> store;

private:
    std::filesystem::path m_dir;
};

std::vector<WriteItem> makeItems(const Corpus& corpus, std::uint64_t first, std::size_t count)
{
    std::vector<WriteItem> items;
    items.reserve(count);
    for (std::uint64_t i = first; i < first + count; ++i) {
        auto doc = corpus.document(i);
        items.push_back(
            { Document { doc.space, doc.id, 1, { { "title", doc.title }, { "body", doc.body } }, false }, 1 });
    }
    return items;
}

// New documents in batches of 1000 (one transaction each), the shard growing as the run goes on:
// the in-process ceiling for what BulkWrite can reach through the node.
void shardStoreWriteBench(benchmark::State& state)
{
    const Corpus corpus(CorpusOptions {});
    TempShard shard(corpus);
    const auto batch = static_cast<std::size_t>(state.range(0));
    std::uint64_t next = 0;
    std::uint64_t bytes = 0;
    for (auto _ : state) {
        state.PauseTiming();
        auto items = makeItems(corpus, next, batch);
        for (const auto& item : items)
            bytes += documentBytes(item.doc);
        next += batch;
        state.ResumeTiming();
        auto summary = shard.store->write(std::move(items));
        if (!summary || summary->applied != batch)
            state.SkipWithError("write failed");
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(next));
    state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
}
// A fixed iteration count, so every run measures the same shard growth (0 to 30,000 docs).
BENCHMARK(shardStoreWriteBench)->Arg(1000)->Iterations(30)->Unit(benchmark::kMillisecond)->UseRealTime();

// The shard schema (docs table + external-content FTS5 with the node's tokenizer and prefixes),
// fed by the AFTER INSERT trigger the node uses or by an explicit INSERT INTO fts in the same
// transaction, next to the plain FTS5 table of the e2e baseline. It isolates what the trigger
// costs: the node's profile puts nearly all ingest CPU inside SQLite, and a statement that fires a
// trigger writing to FTS5 runs in a statement savepoint, whose xSavepoint makes FTS5 (3.40) flush
// its pending terms to disk, i.e. one tiny segment (and later merges) per document.
constexpr std::string_view kShardSchema
    = "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-32768;"
      "CREATE TABLE docs(rowid INTEGER PRIMARY KEY, space TEXT NOT NULL, id TEXT NOT NULL, version INTEGER NOT NULL,"
      " deleted INTEGER NOT NULL, bytes INTEGER NOT NULL, sp TEXT, f_title TEXT, f_body TEXT, f_tags TEXT,"
      " f__other TEXT, extra TEXT, UNIQUE(space, id));"
      "CREATE VIRTUAL TABLE fts USING fts5(sp, f_title, f_body, f_tags, f__other, content='docs',"
      " content_rowid='rowid', prefix='2 3', tokenize='unicode61 remove_diacritics 2');";
constexpr std::string_view kInsertTrigger
    = "CREATE TRIGGER docs_ai AFTER INSERT ON docs WHEN new.deleted = 0 BEGIN"
      " INSERT INTO fts(rowid, sp, f_title, f_body, f_tags, f__other)"
      " VALUES (new.rowid, new.sp, new.f_title, new.f_body, new.f_tags, new.f__other); END;";

class RawDb final {
public:
    explicit RawDb(const std::filesystem::path& path)
    {
        if (sqlite3_open(path.string().c_str(), &db) != SQLITE_OK)
            std::abort();
    }
    ~RawDb() { sqlite3_close(db); }
    RawDb(const RawDb&) = delete;
    RawDb& operator=(const RawDb&) = delete;
    void exec(std::string_view sql) const
    {
        if (sqlite3_exec(db, std::string(sql).c_str(), nullptr, nullptr, nullptr) != SQLITE_OK)
            std::abort();
    }
    sqlite3_stmt* prepare(std::string_view sql) const
    {
        sqlite3_stmt* stmt = nullptr;
        if (sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) != SQLITE_OK)
            std::abort();
        return stmt;
    }
    sqlite3* db = nullptr;
};

void bindText(sqlite3_stmt* stmt, int index, const std::string& text)
{
    sqlite3_bind_text(stmt, index, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
}

void stepAndReset(sqlite3_stmt* stmt)
{
    if (sqlite3_step(stmt) != SQLITE_DONE)
        std::abort();
    sqlite3_reset(stmt);
}

enum class FtsFeed { ViaTrigger, ExplicitInsert, PlainTable };

// The e2e benchmark's direct baseline, for comparison at the same size and in the same run.
constexpr std::string_view kPlainSchema
    = "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-32768;"
      "CREATE VIRTUAL TABLE docs USING fts5(title, body, tags, prefix='2 3',"
      " tokenize='unicode61 remove_diacritics 2');";

struct FtsStatements {
    sqlite3_stmt* first = nullptr; // docs row (shard schema) or the FTS row (plain table)
    sqlite3_stmt* second = nullptr; // the explicit FTS row, ExplicitInsert only
};

FtsStatements prepareFeed(const RawDb& db, FtsFeed feed)
{
    if (feed == FtsFeed::PlainTable) {
        db.exec(kPlainSchema);
        return { db.prepare("INSERT INTO docs(title, body) VALUES (?4, ?5)"), nullptr };
    }
    db.exec(kShardSchema);
    if (feed == FtsFeed::ViaTrigger)
        db.exec(kInsertTrigger);
    FtsStatements stmts { db.prepare("INSERT INTO docs(space, id, version, deleted, bytes, sp, f_title, f_body)"
                                     " VALUES (?1, ?2, 1, 0, 700, ?3, ?4, ?5)"),
        nullptr };
    if (feed == FtsFeed::ExplicitInsert)
        stmts.second
            = db.prepare("INSERT INTO fts(rowid, sp, f_title, f_body) VALUES (last_insert_rowid(), ?1, ?2, ?3)");
    return stmts;
}

void insertOne(const FtsStatements& stmts, FtsFeed feed, const shardmap::bench::BenchDoc& doc)
{
    const std::string token = feed == FtsFeed::PlainTable ? std::string() : spaceToken(doc.space);
    if (feed != FtsFeed::PlainTable) {
        bindText(stmts.first, 1, doc.space);
        bindText(stmts.first, 2, doc.id);
        bindText(stmts.first, 3, token);
    }
    bindText(stmts.first, 4, doc.title);
    bindText(stmts.first, 5, doc.body);
    stepAndReset(stmts.first);
    if (stmts.second == nullptr)
        return;
    bindText(stmts.second, 1, token);
    bindText(stmts.second, 2, doc.title);
    bindText(stmts.second, 3, doc.body);
    stepAndReset(stmts.second);
}

void ftsInsertBench(benchmark::State& state, FtsFeed feed)
{
    const Corpus corpus(CorpusOptions {});
    std::string pattern = (std::filesystem::temp_directory_path() / "shardmap-fts-bench-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
        std::abort();
    const std::filesystem::path dir = pattern;
    {
        RawDb db(dir / "fts.db");
        const auto stmts = prepareFeed(db, feed);
        std::uint64_t next = 0;
        for (auto _ : state) {
            state.PauseTiming();
            std::vector<shardmap::bench::BenchDoc> docs;
            for (std::size_t i = 0; i < 1000; ++i)
                docs.push_back(corpus.document(next++));
            state.ResumeTiming();
            db.exec("BEGIN");
            for (const auto& doc : docs)
                insertOne(stmts, feed, doc);
            db.exec("COMMIT");
        }
        state.SetItemsProcessed(static_cast<std::int64_t>(next));
        sqlite3_finalize(stmts.first);
        sqlite3_finalize(stmts.second);
    }
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
}
BENCHMARK_CAPTURE(ftsInsertBench, plainTable, FtsFeed::PlainTable)
    ->Iterations(30)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(ftsInsertBench, shardSchemaViaTrigger, FtsFeed::ViaTrigger)
    ->Iterations(30)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(ftsInsertBench, shardSchemaExplicitInsert, FtsFeed::ExplicitInsert)
    ->Iterations(30)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

} // namespace

BENCHMARK_MAIN();
