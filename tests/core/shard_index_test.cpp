// The index engines of a shard side by side (issue 29): the engine a file keeps, the files beside
// it, both engines ranking the same documents alike, and a writer killed (SIGKILL at the
// failpoints between the file's commit and the index's) that loses nothing.

#include "core/shard/shard_index.h"
#include "core/shard/shard_store.h"
#include "core/util/failpoint.h"
#include "tests/support/test_dir.h"

#include <cmath>
#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace shardmap::core;
using shardmap::testing::TempDir;

namespace {

ShardStoreOptions optionsFor(IndexEngine engine)
{
    ShardStoreOptions options;
    options.engine = engine;
    return options;
}

std::unique_ptr<ShardStore> createEngineShard(const std::string& path, IndexEngine engine)
{
    auto store = ShardStore::create(path, "s1", optionsFor(engine));
    EXPECT_TRUE(store) << store.error().describe();
    if (!store)
        return nullptr;
    for (const char* space : { "acme", "globex" })
        EXPECT_TRUE((*store)->setOwnership({ space, SpaceRole::Owner, 1 }));
    return std::move(*store);
}

Document indexDoc(const std::string& space, const std::string& id, std::string title, std::string body)
{
    return Document { space, id, 1, { { "title", std::move(title) }, { "body", std::move(body) } }, false };
}

void writeAll(ShardStore& store, const std::vector<Document>& docs)
{
    std::vector<WriteItem> items;
    for (const auto& doc : docs)
        items.push_back({ doc, 1 });
    auto written = store.write(std::move(items));
    ASSERT_TRUE(written) << written.error().describe();
    ASSERT_EQ(written->applied, docs.size());
}

// A corpus whose documents differ in length and in how often they hold each word, so that BM25
// tells most of them apart.
std::vector<Document> rankingCorpus()
{
    const std::vector<std::string> words
        = { "river", "stone", "café", "maple", "harbour", "quartz", "lantern", "meadow", "orbit", "willow" };
    std::vector<Document> docs;
    for (int i = 0; i < 120; ++i) {
        std::string body;
        for (int w = 0; w < 4 + i % 13; ++w)
            body += words[static_cast<std::size_t>((i * 7 + w * w + w * (i % 5)) % 10)] + " ";
        const std::string title = words[static_cast<std::size_t>(i % 10)] + " notes " + std::to_string(i % 4);
        docs.push_back(indexDoc(i % 3 == 0 ? "globex" : "acme", "d" + std::to_string(i), title, body));
    }
    return docs;
}

// The ids of every hit (the limit is above any match count), best first.
std::vector<std::string> rankedIds(ShardStore& store, const std::string& query)
{
    auto found = store.search({ { "acme" }, query, 1000, 0, false });
    EXPECT_TRUE(found) << query << ": " << found.error().describe();
    std::vector<std::string> ids;
    for (const auto& hit : found ? found->hits : std::vector<SearchHit> {})
        ids.push_back(hit.id);
    return ids;
}

std::vector<std::string> sortedIds(ShardStore& store, const std::string& query)
{
    auto ids = rankedIds(store, query);
    std::sort(ids.begin(), ids.end());
    return ids;
}

const std::vector<std::string> kRankingQueries
    = { "river", "cafe", "Café", "river stone", "river OR quartz", "maple NOT orbit", "\"river stone\"", "har*",
          "title:meadow", "title:(willow OR lantern) river", "notes", "\"river sto*\"" };

TEST(ShardIndexTest, TheEngineIsTheFilesAndAFileWithoutOneIsFts5)
{
    TempDir dir;
    {
        auto xapian = createEngineShard(dir.file("x.db"), IndexEngine::Xapian);
        ASSERT_TRUE(xapian);
        writeAll(*xapian, { indexDoc("acme", "a", "hello", "kept across reopening") });
        auto fts5 = createEngineShard(dir.file("f.db"), IndexEngine::Fts5);
        ASSERT_TRUE(fts5);
        EXPECT_GT(xapian->bytesOnDisk(), std::filesystem::file_size(dir.file("x.db")));
    }
    EXPECT_TRUE(std::filesystem::is_directory(xapianIndexPath(dir.file("x.db"))));
    EXPECT_FALSE(std::filesystem::exists(xapianIndexPath(dir.file("f.db"))));
    // Options name the engine of a new shard only: an existing file keeps its own.
    auto reopened = ShardStore::open(dir.file("x.db"), optionsFor(IndexEngine::Fts5));
    ASSERT_TRUE(reopened) << reopened.error().describe();
    EXPECT_EQ((*reopened)->engine(), IndexEngine::Xapian);
    EXPECT_EQ(rankedIds(**reopened, "reopening").size(), 1u);
    reopened->reset();
    auto fts5 = ShardStore::open(dir.file("f.db"), optionsFor(IndexEngine::Xapian));
    ASSERT_TRUE(fts5);
    EXPECT_EQ((*fts5)->engine(), IndexEngine::Fts5);

    ShardStore::removeFiles(dir.file("x.db"));
    EXPECT_FALSE(std::filesystem::exists(dir.file("x.db")));
    EXPECT_FALSE(std::filesystem::exists(xapianIndexPath(dir.file("x.db"))));
}

void setMeta(const std::string& path, const std::string& sql)
{
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
}

TEST(ShardIndexTest, AFileNamingAnUnknownEngineOrTheWrongVersionIsRefused)
{
    TempDir dir;
    createEngineShard(dir.file("x.db"), IndexEngine::Xapian).reset();
    setMeta(dir.file("x.db"), "UPDATE meta SET value = 'lucene' WHERE key = 'engine'");
    auto unknown = ShardStore::open(dir.file("x.db"), {});
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.error().code, ErrorCode::FailedPrecondition);
    EXPECT_NE(unknown.error().message.find("lucene"), std::string::npos) << unknown.error().message;

    setMeta(dir.file("x.db"),
        "UPDATE meta SET value = 'xapian' WHERE key = 'engine';"
        " UPDATE meta SET value = '2' WHERE key = 'schema_version'");
    auto mismatched = ShardStore::open(dir.file("x.db"), {});
    ASSERT_FALSE(mismatched);
    EXPECT_NE(mismatched.error().message.find("does not go with"), std::string::npos) << mismatched.error().message;

    setMeta(dir.file("x.db"), "UPDATE meta SET value = '5' WHERE key = 'schema_version'");
    auto newer = ShardStore::open(dir.file("x.db"), {});
    ASSERT_FALSE(newer);
    EXPECT_NE(newer.error().message.find("newer than this node"), std::string::npos) << newer.error().message;
}

// Both engines find the same documents for every form of query. They rank with BM25 (k1 1.2,
// b 0.75) but do not score alike: FTS5 normalises each column by its own length and floors a
// common term's IDF at 1e-6, Xapian normalises by the whole document (docs/NODE.md "Search"), so
// the order they share is what BM25 itself decides (ShardIndexRankingTest below).
TEST(ShardIndexTest, BothEnginesFindTheSameDocumentsForEveryFormOfQuery)
{
    TempDir dir;
    auto fts5 = createEngineShard(dir.file("f.db"), IndexEngine::Fts5);
    auto xapian = createEngineShard(dir.file("x.db"), IndexEngine::Xapian);
    ASSERT_TRUE(fts5 && xapian);
    writeAll(*fts5, rankingCorpus());
    writeAll(*xapian, rankingCorpus());
    for (const auto& query : kRankingQueries) {
        const auto expected = sortedIds(*fts5, query);
        EXPECT_FALSE(expected.empty()) << query;
        EXPECT_EQ(sortedIds(*xapian, query), expected) << query;
    }
}

class ShardIndexRankingTest : public ::testing::TestWithParam<IndexEngine> { };

// What BM25 decides on any engine: more of the term ranks higher at the same length, a shorter
// document higher with the same count, a rare term above a common one.
TEST_P(ShardIndexRankingTest, BM25OrdersTheHitsOnEveryEngine)
{
    TempDir dir;
    auto store = createEngineShard(dir.file("s.db"), GetParam());
    ASSERT_TRUE(store);
    std::vector<Document> docs = { indexDoc("acme", "thrice", "t", "kiwi kiwi kiwi plum plum plum"),
        indexDoc("acme", "once", "t", "kiwi plum plum plum plum plum"), indexDoc("acme", "short", "t", "fig plum"),
        indexDoc("acme", "long", "t", "fig plum plum plum plum plum plum plum plum plum"),
        indexDoc("acme", "rare", "t", "lime plum"), indexDoc("acme", "common", "t", "plum plum") };
    for (int i = 0; i < 20; ++i)
        docs.push_back(indexDoc("acme", "filler" + std::to_string(i), "t", "plum pear apple"));
    writeAll(*store, docs);
    EXPECT_EQ(rankedIds(*store, "kiwi"), (std::vector<std::string> { "thrice", "once" }));
    EXPECT_EQ(rankedIds(*store, "fig"), (std::vector<std::string> { "short", "long" }));
    const auto either = rankedIds(*store, "lime OR plum");
    ASSERT_FALSE(either.empty());
    EXPECT_EQ(either.front(), "rare");
}

INSTANTIATE_TEST_SUITE_P(Engines, ShardIndexRankingTest, ::testing::Values(IndexEngine::Fts5, IndexEngine::Xapian),
    [](const ::testing::TestParamInfo<IndexEngine>& engine) { return std::string(indexEngineName(engine.param)); });

// Pages of a ranked list join up into the whole list on every engine: each page starts where the
// one before it ended, with no hit twice and none left out, ties in score included (an
// application pages through a space's hits with offsets).
TEST_P(ShardIndexRankingTest, PagesJoinUpIntoTheWholeRankedList)
{
    TempDir dir;
    auto store = createEngineShard(dir.file("s.db"), GetParam());
    ASSERT_TRUE(store);
    writeAll(*store, rankingCorpus());
    for (const std::string query : { "river", "notes", "river OR quartz", "har*" }) {
        const auto whole = rankedIds(*store, query);
        ASSERT_GT(whole.size(), 14u) << query;
        std::vector<std::string> paged;
        for (std::uint32_t offset = 0; offset < whole.size() + 7; offset += 7) {
            auto page = store->search({ { "acme" }, query, 7, offset, false });
            ASSERT_TRUE(page) << query << ": " << page.error().describe();
            EXPECT_LE(page->hits.size(), 7u);
            for (const auto& hit : page->hits)
                paged.push_back(hit.id);
        }
        EXPECT_EQ(paged, whole) << query;
    }
}

// Both engines cut the same snippet from a hit: the window, the [[marks]] and the ellipses.
TEST(ShardIndexTest, BothEnginesCutTheSameSnippets)
{
    TempDir dir;
    auto fts5 = createEngineShard(dir.file("f.db"), IndexEngine::Fts5);
    auto xapian = createEngineShard(dir.file("x.db"), IndexEngine::Xapian);
    ASSERT_TRUE(fts5 && xapian);
    std::vector<Document> docs = rankingCorpus();
    docs.push_back(indexDoc("acme", "long", "Harbour lights",
        "Far up the river, past the old stone bridge, the lantern-maker kept a shop that sold maps of every "
        "harbour on the coast. Nobody bought them. The river moved the stones each spring."));
    writeAll(*fts5, docs);
    writeAll(*xapian, docs);
    for (const std::string query : { "river", "har*", "\"river stone\"", "lantern maps", "title:harbour" }) {
        auto fromFts5 = fts5->search({ { "acme" }, query, 1000, 0, true });
        auto fromXapian = xapian->search({ { "acme" }, query, 1000, 0, true });
        ASSERT_TRUE(fromFts5 && fromXapian) << query;
        std::map<std::string, std::string> expected;
        for (const auto& hit : fromFts5->hits)
            expected[hit.id] = hit.snippet;
        ASSERT_EQ(fromXapian->hits.size(), expected.size()) << query;
        for (const auto& hit : fromXapian->hits) {
            EXPECT_FALSE(hit.snippet.empty()) << query << " " << hit.id;
            EXPECT_EQ(hit.snippet, expected[hit.id]) << query << " " << hit.id;
        }
    }
}

// Hits as (score, id), sorted: ties in score may come in either order.
std::vector<std::pair<double, std::string>> scoredHits(ShardStore& store, const std::string& query)
{
    auto found = store.search({ { "acme", "globex" }, query, 1000, 0, false });
    EXPECT_TRUE(found) << query << ": " << found.error().describe();
    std::vector<std::pair<double, std::string>> hits;
    for (const auto& hit : found ? found->hits : std::vector<SearchHit> {})
        hits.emplace_back(std::round(hit.score * 1e6) / 1e6, hit.space + "/" + hit.id);
    std::sort(hits.begin(), hits.end());
    return hits;
}

std::vector<Document> liveIndexDocs(ShardStore& store)
{
    std::vector<Document> docs;
    for (const char* space : { "acme", "globex" }) {
        auto page = store.scan(space, "", kMaxScanBatch, false);
        EXPECT_TRUE(page && page->done);
        if (page)
            docs.insert(docs.end(), page->docs.begin(), page->docs.end());
    }
    return docs;
}

// The child's writes: ten batches of new documents, each also replacing one earlier document and
// deleting another, with a checkpoint after each batch.
void childWrites(ShardStore& store)
{
    const auto corpus = rankingCorpus();
    for (int batch = 0; batch < 8; ++batch) {
        std::vector<WriteItem> items;
        for (int i = 0; i < 10; ++i)
            items.push_back({ corpus[static_cast<std::size_t>(40 + batch * 10 + i)], 1 });
        Document replaced = corpus[static_cast<std::size_t>(batch * 2)];
        replaced.version = 2;
        replaced.fields["body"] = "rewritten by batch " + std::to_string(batch);
        Document deleted = corpus[static_cast<std::size_t>(batch * 2 + 1)];
        deleted.version = 2;
        deleted.deleted = true;
        deleted.fields.clear();
        items.push_back({ replaced, 1 });
        items.push_back({ deleted, 1 });
        if (!store.write(std::move(items)))
            _exit(4);
        if (!store.checkpoint())
            _exit(5);
    }
}

// A writer killed (SIGKILL) at a failpoint between the shard file's commit and the index's
// (before the index took the transaction, after it did, after the index synced and before the
// log was pruned): reopened, the shard's search answers what a fresh index of the documents
// its file holds answers, the killed batch included.
struct KillPoint {
    std::string failpoint;
    // Batches the file holds when the point fires the fourth time (opening checkpoints once).
    std::size_t batches = 4;
};

class ShardIndexKillTest : public ::testing::TestWithParam<KillPoint> { };

TEST_P(ShardIndexKillTest, AWriterKilledBetweenTheCommitsLosesNothing)
{
    TempDir dir;
    const std::string path = dir.file("x.db");
    {
        auto store = createEngineShard(path, IndexEngine::Xapian);
        ASSERT_TRUE(store);
        const auto corpus = rankingCorpus();
        writeAll(*store, std::vector<Document>(corpus.begin(), corpus.begin() + 40));
    }
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        // The fourth time: three batches were acknowledged, the fourth is in the file.
        if (!setFailpoints(GetParam().failpoint + "=kill@4"))
            _exit(2);
        auto store = ShardStore::open(path, {});
        if (!store)
            _exit(3);
        childWrites(**store);
        _exit(6);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "child exit " << WEXITSTATUS(status);

    auto reopened = ShardStore::open(path, {});
    ASSERT_TRUE(reopened) << reopened.error().describe();
    const auto docs = liveIndexDocs(**reopened);
    // 40 first, then each batch adds ten and deletes one.
    const std::size_t batches = GetParam().batches;
    EXPECT_EQ(docs.size(), 40u + batches * 9) << GetParam().failpoint;
    auto fresh = createEngineShard(dir.file("fresh.db"), IndexEngine::Xapian);
    ASSERT_TRUE(fresh);
    writeAll(*fresh, docs);
    for (const auto& query : kRankingQueries)
        EXPECT_EQ(scoredHits(**reopened, query), scoredHits(*fresh, query)) << GetParam().failpoint << ": " << query;
    EXPECT_EQ(scoredHits(**reopened, "rewritten batch").size(), batches);
}

INSTANTIATE_TEST_SUITE_P(Failpoints, ShardIndexKillTest,
    ::testing::Values(KillPoint { "shard.index.before_apply" }, KillPoint { "shard.index.applied" },
        KillPoint { "shard.index.synced", 3 }),
    [](const ::testing::TestParamInfo<KillPoint>& point) {
        return point.param.failpoint.substr(point.param.failpoint.rfind('.') + 1);
    });

} // namespace
