// A shard's index built from its IndexSettings (issue 31) on each engine: porter stemming, trigram
// substrings (FTS5 only), token characters, field weights that change the ranking, stored-only
// fields that are returned but never matched, the settings a file records and its schema version,
// and a file from before index settings that opens with today's index.

#include "core/shard/shard_index.h"
#include "core/shard/shard_store.h"
#include "tests/support/test_dir.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <sqlite3.h>

using namespace shardmap::core;
using shardmap::testing::TempDir;

namespace {

IndexSettings settingsWith(std::vector<IndexField> fields, Tokenizer tokenizer = Tokenizer::Unicode61)
{
    IndexSettings settings = defaultIndexSettings();
    settings.fields = std::move(fields);
    settings.tokenizer = tokenizer;
    if (tokenizer == Tokenizer::Trigram)
        settings.prefixes.clear();
    return settings;
}

IndexSettings titleBody(double titleWeight = 1.0, double bodyWeight = 1.0, Tokenizer tokenizer = Tokenizer::Unicode61)
{
    return settingsWith({ { "title", true, titleWeight }, { "body", true, bodyWeight } }, tokenizer);
}

std::string metaValue(const std::string& path, const std::string& key)
{
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* stmt = nullptr;
    std::string value = "(none)";
    if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?1", -1, &stmt, nullptr) == SQLITE_OK) {
        sqlite3_bind_text(stmt, 1, key.c_str(), -1, SQLITE_TRANSIENT);
        if (sqlite3_step(stmt) == SQLITE_ROW)
            value = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return value;
}

void execOnFile(const std::string& path, const std::string& sql)
{
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
}

// One shard per test, made with the settings the test names, on the engine of the parameter.
class IndexSettingsShardTest : public ::testing::TestWithParam<IndexEngine> {
protected:
    Result<std::unique_ptr<ShardStore>> make(const IndexSettings& settings, const std::string& name = "s1")
    {
        ShardStoreOptions options;
        options.engine = GetParam();
        options.index = settings;
        auto store = ShardStore::create(m_dir.file(name + ".db"), name, options);
        if (store) {
            EXPECT_TRUE((*store)->setOwnership({ "acme", SpaceRole::Owner, 1 }));
        }
        return store;
    }

    std::unique_ptr<ShardStore> made(const IndexSettings& settings, const std::string& name = "s1")
    {
        auto store = make(settings, name);
        EXPECT_TRUE(store) << store.error().describe();
        return store ? std::move(*store) : nullptr;
    }

    static void put(ShardStore& store, std::vector<std::pair<std::string, std::map<std::string, std::string>>> docs)
    {
        std::vector<WriteItem> items;
        for (auto& [id, fields] : docs)
            items.push_back({ Document { "acme", id, 1, std::move(fields), false }, 1 });
        auto written = store.write(std::move(items));
        ASSERT_TRUE(written) << written.error().describe();
        EXPECT_EQ(written->rejected, 0u);
    }

    // The ids found, best first.
    static std::vector<std::string> found(ShardStore& store, const std::string& query)
    {
        auto result = store.search({ { "acme" }, query, 100, 0, true });
        EXPECT_TRUE(result) << query << ": " << result.error().describe();
        std::vector<std::string> ids;
        for (const SearchHit& hit : result ? result->hits : std::vector<SearchHit> {})
            ids.push_back(hit.id);
        return ids;
    }

    TempDir m_dir;
};

INSTANTIATE_TEST_SUITE_P(Engines, IndexSettingsShardTest, ::testing::Values(IndexEngine::Fts5, IndexEngine::Xapian),
    [](const ::testing::TestParamInfo<IndexEngine>& engine) { return std::string(indexEngineName(engine.param)); });

using Docs = std::vector<std::pair<std::string, std::map<std::string, std::string>>>;

TEST_P(IndexSettingsShardTest, PorterFindsRunsForRunningAndUnicode61DoesNot)
{
    const Docs docs { { "d1", { { "title", "the dog" }, { "body", "it runs every morning" } } },
        { "d2", { { "title", "the cat" }, { "body", "it sleeps" } } } };
    auto porter = made(titleBody(1, 1, Tokenizer::Porter), "porter");
    auto plain = made(titleBody(), "plain");
    ASSERT_TRUE(porter && plain);
    put(*porter, docs);
    put(*plain, docs);
    EXPECT_EQ(found(*porter, "running"), std::vector<std::string> { "d1" });
    EXPECT_EQ(found(*porter, "body:ran OR body:running"), std::vector<std::string> { "d1" });
    EXPECT_EQ(found(*plain, "running"), std::vector<std::string> {});
    EXPECT_EQ(found(*plain, "runs"), std::vector<std::string> { "d1" });
    // The snippet marks the stemmed match on either engine.
    auto result = porter->search({ { "acme" }, "running", 10, 0, true });
    ASSERT_TRUE(result);
    ASSERT_EQ(result->hits.size(), 1u);
    EXPECT_NE(result->hits[0].snippet.find("[[runs]]"), std::string::npos) << result->hits[0].snippet;
}

TEST_P(IndexSettingsShardTest, TokenCharactersKeepAWordWholeAndDiacriticsCanBeKept)
{
    IndexSettings joined = titleBody();
    joined.tokenChars = "-";
    joined.removeDiacritics = 0;
    auto store = made(joined);
    ASSERT_TRUE(store);
    put(*store, { { "d1", { { "body", "send an e-mail to the café" } } } });
    EXPECT_EQ(found(*store, "\"e-mail\""), std::vector<std::string> { "d1" });
    EXPECT_EQ(found(*store, "mail"), std::vector<std::string> {}) << "e-mail is one word";
    EXPECT_EQ(found(*store, "café"), std::vector<std::string> { "d1" });
    EXPECT_EQ(found(*store, "cafe"), std::vector<std::string> {}) << "remove_diacritics 0 keeps the accent";
}

TEST_P(IndexSettingsShardTest, AFieldsWeightDecidesWhichMatchRanksFirst)
{
    // d1 and d2 mirror each other: the same words, "fox" in d1's title and in d2's body.
    Docs docs { { "d1", { { "title", "fox gamma" }, { "body", "alpha beta" } } },
        { "d2", { { "title", "alpha beta" }, { "body", "fox gamma" } } } };
    for (int i = 0; i < 6; ++i)
        docs.push_back({ "other" + std::to_string(i), { { "title", "alpha delta" }, { "body", "beta gamma" } } });
    auto titleHeavy = made(titleBody(5, 1), "title-heavy");
    auto bodyHeavy = made(titleBody(1, 5), "body-heavy");
    ASSERT_TRUE(titleHeavy && bodyHeavy);
    put(*titleHeavy, docs);
    put(*bodyHeavy, docs);
    EXPECT_EQ(found(*titleHeavy, "fox"), (std::vector<std::string> { "d1", "d2" }));
    EXPECT_EQ(found(*bodyHeavy, "fox"), (std::vector<std::string> { "d2", "d1" }));
    // A weight below 1 counts less than 1 on both engines.
    auto titleLight = made(titleBody(0.5, 1), "title-light");
    ASSERT_TRUE(titleLight);
    put(*titleLight, docs);
    EXPECT_EQ(found(*titleLight, "fox"), (std::vector<std::string> { "d2", "d1" }));
}

TEST_P(IndexSettingsShardTest, AStoredOnlyFieldIsReturnedButNeverMatchedNorNamed)
{
    auto store = made(settingsWith({ { "title", true, 1.0 }, { "body", true, 1.0 }, { "notes", false, 1.0 } }));
    ASSERT_TRUE(store);
    put(*store,
        { { "d1", { { "title", "visible" }, { "notes", "hiddenword" } } },
            { "d2", { { "body", "hiddenword in the body" }, { "extra", "catchall" } } } });
    EXPECT_EQ(found(*store, "hiddenword"), std::vector<std::string> { "d2" }) << "only the indexed body matches";
    EXPECT_EQ(found(*store, "catchall"), std::vector<std::string> { "d2" }) << "other fields stay searchable whole";
    auto named = store->search({ { "acme" }, "notes:hiddenword", 10, 0, false });
    ASSERT_FALSE(named);
    EXPECT_EQ(named.error().code, ErrorCode::InvalidArgument);
    EXPECT_EQ(named.error().message,
        "field 'notes' at offset 0 is stored only, not indexed, so it cannot be searched; indexed fields: title, body");
    auto page = store->scan("acme", "", 10, false);
    ASSERT_TRUE(page) << page.error().describe();
    ASSERT_EQ(page->docs.size(), 2u);
    EXPECT_EQ(page->docs[0].fields.at("notes"), "hiddenword") << "kept with the document";
    EXPECT_EQ(store->fields(), (std::vector<std::string> { "title", "body", "notes" }));
}

TEST_P(IndexSettingsShardTest, TheFileRecordsItsSettingsAndOnlyThoseOlderNodesWouldMisapplyRaiseItsVersion)
{
    const bool xapian = GetParam() == IndexEngine::Xapian;
    const std::string usual = xapian ? "3" : "2";
    const IndexSettings weighted = titleBody(3, 1);
    const IndexSettings porter = titleBody(1, 1, Tokenizer::Porter);
    made(titleBody(), "plain").reset();
    made(weighted, "weighted").reset();
    made(porter, "porter").reset();
    EXPECT_EQ(metaValue(m_dir.file("plain.db"), "schema_version"), usual);
    EXPECT_EQ(metaValue(m_dir.file("weighted.db"), "schema_version"), "4");
    EXPECT_EQ(metaValue(m_dir.file("porter.db"), "schema_version"), xapian ? "4" : "2")
        << "FTS5 keeps its tokenizer in its own table, which an older node reads";
    EXPECT_EQ(metaValue(m_dir.file("weighted.db"), "index_settings"), encodeIndexSettings(weighted));
    EXPECT_EQ(metaValue(m_dir.file("weighted.db"), "fields"), "[\"title\",\"body\"]");
    auto reopened = ShardStore::open(m_dir.file("weighted.db"), {});
    ASSERT_TRUE(reopened) << reopened.error().describe();
    EXPECT_EQ((*reopened)->indexSettings(), weighted);
    EXPECT_EQ((*reopened)->engine(), GetParam());
}

// Every shard file made before issue 31 has no meta.index_settings: it opens as today's index over
// the fields meta.fields lists, and searches as it did.
TEST_P(IndexSettingsShardTest, AFileFromBeforeIndexSettingsOpensWithTodaysIndexOverItsFields)
{
    auto store = made(settingsWith({ { "name", true, 1.0 }, { "city", true, 1.0 } }));
    ASSERT_TRUE(store);
    put(*store, { { "d1", { { "name", "Zoë Runner" }, { "city", "Paris" }, { "note", "other words" } } } });
    const std::string path = store->path();
    store.reset();
    execOnFile(path, "DELETE FROM meta WHERE key = 'index_settings'");
    auto reopened = ShardStore::open(path, {});
    ASSERT_TRUE(reopened) << reopened.error().describe();
    IndexSettings expected = defaultIndexSettings();
    expected.fields = { { "name", true, 1.0 }, { "city", true, 1.0 } };
    EXPECT_EQ((*reopened)->indexSettings(), expected);
    EXPECT_EQ(found(**reopened, "zoe"), std::vector<std::string> { "d1" });
    EXPECT_EQ(found(**reopened, "city:paris"), std::vector<std::string> { "d1" });
    EXPECT_EQ(found(**reopened, "ru*"), std::vector<std::string> { "d1" });
    EXPECT_EQ(found(**reopened, "running"), std::vector<std::string> {}) << "no stemming";
    EXPECT_EQ(found(**reopened, "words"), std::vector<std::string> { "d1" });
}

TEST_P(IndexSettingsShardTest, InvalidSettingsAreRefusedWithTheirSentenceAndMakeNoFile)
{
    IndexSettings bad = titleBody();
    bad.fields.push_back({ "title", true, 1.0 });
    auto refused = make(bad);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ErrorCode::InvalidArgument);
    EXPECT_EQ(refused.error().message, validateIndexSettings(bad).error().message);
    EXPECT_FALSE(std::filesystem::exists(m_dir.file("s1.db")));
}

TEST(IndexSettingsTrigramTest, Fts5MatchesAnySubstringOfThreeOrMoreCharacters)
{
    TempDir dir;
    ShardStoreOptions options;
    options.index = titleBody(1, 1, Tokenizer::Trigram);
    auto store = ShardStore::create(dir.file("t.db"), "t", options);
    ASSERT_TRUE(store) << store.error().describe();
    ASSERT_TRUE((*store)->setOwnership({ "acme", SpaceRole::Owner, 1 }));
    auto written = (*store)->write({ { Document { "acme", "d1", 1, { { "body", "the shardmap console" } }, false }, 1 },
        { Document { "acme", "d2", 1, { { "body", "a shard map" } }, false }, 1 } });
    ASSERT_TRUE(written);
    auto hits = (*store)->search({ { "acme" }, "ardma", 10, 0, false });
    ASSERT_TRUE(hits) << hits.error().describe();
    ASSERT_EQ(hits->hits.size(), 1u);
    EXPECT_EQ(hits->hits[0].id, "d1");
    auto both = (*store)->search({ { "acme" }, "har", 10, 0, false });
    ASSERT_TRUE(both);
    EXPECT_EQ(both->hits.size(), 2u);
}

TEST(IndexSettingsTrigramTest, XapianRefusesTrigramAndMakesNoFile)
{
    TempDir dir;
    ShardStoreOptions options;
    options.engine = IndexEngine::Xapian;
    options.index = titleBody(1, 1, Tokenizer::Trigram);
    auto refused = ShardStore::create(dir.file("t.db"), "t", options);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ErrorCode::InvalidArgument);
    EXPECT_EQ(refused.error().message,
        "trigram needs the fts5 engine: the xapian engine indexes words, not every three characters");
    EXPECT_FALSE(std::filesystem::exists(dir.file("t.db")));
    EXPECT_FALSE(std::filesystem::exists(xapianIndexPath(dir.file("t.db"))));
}

} // namespace
