// The Xapian index of a shard on its own (core/shard/xapian_index.h) and the tokenizer it shares
// with FTS5 (core/shard/fts5_tokens.h): what it matches, in which order, and what it survives.

#include "core/query/query_compiler.h"
#include "core/shard/fts5_tokens.h"
#include "core/shard/xapian_index.h"
#include "tests/support/test_dir.h"

#include <algorithm>
#include <gtest/gtest.h>

using namespace shardmap::core;
using shardmap::testing::TempDir;

namespace {

const std::vector<std::string> kFields { "title", "body", "tags" };

IndexedRow row(std::int64_t rowid, const std::string& space, std::optional<std::string> title,
    std::optional<std::string> body = std::nullopt, std::optional<std::string> other = std::nullopt)
{
    return { rowid, space, { std::move(title), std::move(body), std::nullopt, std::move(other) } };
}

class XapianIndexTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        auto opened = XapianIndex::open(m_dir.file("index"), kFields);
        ASSERT_TRUE(opened) << opened.error().describe();
        m_index = std::move(*opened);
    }

    std::vector<std::int64_t> find(const std::string& query, std::vector<std::string> spaces = { "acme" })
    {
        auto parsed = parseQuery(query, QuerySchema { kFields });
        EXPECT_TRUE(parsed) << query << ": " << parsed.error().describe();
        if (!parsed)
            return {};
        auto hits = m_index->search(spaces, *parsed, 0, 100);
        EXPECT_TRUE(hits) << query << ": " << hits.error().describe();
        std::vector<std::int64_t> rowids;
        if (!hits)
            return rowids;
        for (const auto& hit : *hits)
            rowids.push_back(hit.rowid);
        return rowids;
    }

    static std::vector<std::int64_t> sorted(std::vector<std::int64_t> rowids)
    {
        std::sort(rowids.begin(), rowids.end());
        return rowids;
    }

    TempDir m_dir;
    std::unique_ptr<XapianIndex> m_index;
};

TEST(Fts5Tokens, FoldCaseAndDiacriticsAsTheShardsFts5TableDoes)
{
    auto tokens = Fts5Tokens::open();
    ASSERT_TRUE(tokens) << tokens.error().describe();
    auto words = (*tokens)->tokens("Café au LAIT, naïve c++ foo-bar 42");
    ASSERT_TRUE(words);
    EXPECT_EQ(*words, (std::vector<std::string> { "cafe", "au", "lait", "naive", "c", "foo", "bar", "42" }));
}

TEST_F(XapianIndexTest, TermsPhrasesPrefixesAndBooleansMatchWhatTheyName)
{
    ASSERT_TRUE(m_index->put(row(1, "acme", "The quick brown fox", "jumps over the lazy dog")));
    ASSERT_TRUE(m_index->put(row(2, "acme", "A brown dog", "sleeps")));
    ASSERT_TRUE(m_index->put(row(3, "acme", "Quick thinking", "the fox is brownish")));
    ASSERT_TRUE(m_index->put(row(4, "acme", std::nullopt, std::nullopt, "colour: brown")));

    EXPECT_EQ(sorted(find("fox")), (std::vector<std::int64_t> { 1, 3 }));
    EXPECT_EQ(find("\"quick brown fox\""), (std::vector<std::int64_t> { 1 }));
    EXPECT_EQ(find("\"brown fox\""), (std::vector<std::int64_t> { 1 }));
    EXPECT_EQ(sorted(find("brown*")), (std::vector<std::int64_t> { 1, 2, 3, 4 }));
    EXPECT_EQ(sorted(find("bro*")), (std::vector<std::int64_t> { 1, 2, 3, 4 })) << "expanded to the terms it names";
    EXPECT_EQ(sorted(find("br*")), (std::vector<std::int64_t> { 1, 2, 3, 4 })) << "a two-character prefix term";
    EXPECT_EQ(sorted(find("title:br*")), (std::vector<std::int64_t> { 1, 2 })) << "a field's own terms, expanded";
    EXPECT_EQ(sorted(find("\"the fox is brow*\"")), (std::vector<std::int64_t> { 3 }));
    EXPECT_EQ(sorted(find("fox AND dog")), (std::vector<std::int64_t> { 1 }));
    EXPECT_EQ(sorted(find("fox dog")), (std::vector<std::int64_t> { 1 })) << "adjacent terms are AND";
    EXPECT_EQ(sorted(find("sleeps OR thinking")), (std::vector<std::int64_t> { 2, 3 }));
    EXPECT_EQ(sorted(find("brown NOT dog")), (std::vector<std::int64_t> { 4 }));
    EXPECT_EQ(sorted(find("title:dog")), (std::vector<std::int64_t> { 2 }));
    EXPECT_EQ(sorted(find("body:dog")), (std::vector<std::int64_t> { 1 }));
    EXPECT_EQ(sorted(find("title:(quick OR brown)")), (std::vector<std::int64_t> { 1, 2, 3 }));
    EXPECT_EQ(find("CAFÉ"), (std::vector<std::int64_t> {}));
}

TEST_F(XapianIndexTest, ASpaceIsAFilterAndOnlyItsRowsMatch)
{
    ASSERT_TRUE(m_index->put(row(1, "acme", "shared words")));
    ASSERT_TRUE(m_index->put(row(2, "globex", "shared words")));
    EXPECT_EQ(find("shared"), (std::vector<std::int64_t> { 1 }));
    EXPECT_EQ(find("shared", { "globex" }), (std::vector<std::int64_t> { 2 }));
    EXPECT_EQ(sorted(find("shared", { "acme", "globex" })), (std::vector<std::int64_t> { 1, 2 }));
    EXPECT_EQ(find("shared", { "initech" }), (std::vector<std::int64_t> {}));
}

TEST_F(XapianIndexTest, MoreOccurrencesAndShorterFieldsRankFirstAndWeightsCount)
{
    ASSERT_TRUE(m_index->put(row(1, "acme", "fox", "a long body of many other words that dilute the fox a lot")));
    ASSERT_TRUE(m_index->put(row(2, "acme", "fox fox fox")));
    ASSERT_TRUE(m_index->put(row(3, "acme", "no match here")));
    EXPECT_EQ(find("fox"), (std::vector<std::int64_t> { 2, 1 }));

    auto weighted = XapianIndex::open(m_dir.file("weighted"), kFields, { 256, { 1.0, 10.0, 1.0, 1.0 } });
    ASSERT_TRUE(weighted);
    ASSERT_TRUE((*weighted)->put(row(1, "acme", "fox")));
    ASSERT_TRUE((*weighted)->put(row(2, "acme", "other", "fox")));
    auto parsed = parseQuery("fox", QuerySchema { kFields });
    ASSERT_TRUE(parsed);
    auto hits = (*weighted)->search({ "acme" }, *parsed, 0, 10);
    ASSERT_TRUE(hits);
    ASSERT_EQ(hits->size(), 2u);
    EXPECT_EQ(hits->front().rowid, 2) << "a body match counts ten times a title match";
}

TEST_F(XapianIndexTest, ReplacedAndRemovedRowsAreSearchedAsTheyAreNow)
{
    ASSERT_TRUE(m_index->put(row(1, "acme", "old words")));
    ASSERT_TRUE(m_index->put(row(1, "acme", "new words")));
    EXPECT_EQ(find("old"), (std::vector<std::int64_t> {}));
    EXPECT_EQ(find("new"), (std::vector<std::int64_t> { 1 }));
    ASSERT_TRUE(m_index->remove(1));
    EXPECT_EQ(find("new"), (std::vector<std::int64_t> {}));
    EXPECT_TRUE(m_index->remove(1)) << "removing a row again changes nothing";
    EXPECT_EQ(m_index->documentCount(), 0u);
}

TEST_F(XapianIndexTest, OnlyCommittedChangesSurviveAReopenAndTheCommitRecordsItsSequence)
{
    EXPECT_EQ(m_index->committedSeq(), 0u);
    ASSERT_TRUE(m_index->put(row(1, "acme", "kept")));
    ASSERT_TRUE(m_index->commit(7));
    ASSERT_TRUE(m_index->put(row(2, "acme", "lost")));
    EXPECT_EQ(m_index->pendingChanges(), 1u);
    m_index.reset();

    auto again = XapianIndex::open(m_dir.file("index"), kFields);
    ASSERT_TRUE(again);
    m_index = std::move(*again);
    EXPECT_EQ(m_index->committedSeq(), 7u);
    EXPECT_EQ(find("kept"), (std::vector<std::int64_t> { 1 }));
    EXPECT_EQ(find("lost"), (std::vector<std::int64_t> {})) << "not committed: the shard replays it";
    EXPECT_EQ(*m_index->rowids(), (std::vector<std::int64_t> { 1 }));
    EXPECT_GT(m_index->diskBytes(), 0u);
}

TEST_F(XapianIndexTest, APrefixStandsForItsMostFrequentTermsOnlyAndLongWordsAreBounded)
{
    auto capped = XapianIndex::open(m_dir.file("capped"), kFields, { 3, {} });
    ASSERT_TRUE(capped);
    // ten words starting with "w"; w0 in every row, w1 in nine, ..., w9 in one.
    for (int rowid = 1; rowid <= 10; ++rowid) {
        std::string title;
        for (int word = 0; word <= 10 - rowid; ++word)
            title += "w" + std::to_string(word) + " ";
        ASSERT_TRUE((*capped)->put(row(rowid, "acme", title)));
    }
    auto parsed = parseQuery("w*", QuerySchema { kFields });
    ASSERT_TRUE(parsed);
    auto hits = (*capped)->search({ "acme" }, *parsed, 0, 100);
    ASSERT_TRUE(hits) << hits.error().describe();
    EXPECT_EQ(hits->size(), 10u) << "w0, the most frequent, is in every row";

    ASSERT_TRUE(m_index->put(row(1, "acme", std::string(300, 'x') + " short")));
    EXPECT_EQ(find("short"), (std::vector<std::int64_t> { 1 })) << "a 300-byte token does not stop the rest";
    EXPECT_EQ(find("xxx*"), (std::vector<std::int64_t> { 1 })) << "a prefix finds a long token, as in FTS5";
    EXPECT_EQ(find("xx*"), (std::vector<std::int64_t> { 1 }));
    EXPECT_EQ(find(std::string(200, 'x')), (std::vector<std::int64_t> {})) << "its first 200 bytes are not it";
    // The parser refuses a longer word for every engine; a tree built otherwise is refused here.
    QueryNode tooLong { QueryNodeKind::Term, std::string(250, 'y'), false, {} };
    auto refused = m_index->search({ "acme" }, tooLong, 0, 10);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ErrorCode::InvalidArgument);
    EXPECT_NE(refused.error().message.find("at most 200"), std::string::npos) << refused.error().message;
}

TEST_F(XapianIndexTest, AOneLetterPrefixOverManyDistinctTermsStandsForTheCapOnly)
{
    // 1,000 distinct words that start with "q", each in one row: `q*` could name them all.
    constexpr int kRows = 1000;
    for (int rowid = 1; rowid <= kRows; ++rowid)
        ASSERT_TRUE(m_index->put(row(rowid, "acme", "filler q" + std::to_string(rowid))));
    ASSERT_TRUE(m_index->commit(1));
    const XapianIndexOptions defaults;
    const auto count = [&](const std::string& query) {
        auto parsed = parseQuery(query, QuerySchema { kFields });
        EXPECT_TRUE(parsed) << parsed.error().describe();
        auto hits = m_index->search({ "acme" }, *parsed, 0, 2 * kRows);
        EXPECT_TRUE(hits) << hits.error().describe();
        return hits ? hits->size() : 0;
    };
    EXPECT_EQ(count("q*"), defaults.maxPrefixExpansion) << "each row holds one term: the rows are the terms";
    EXPECT_EQ(count("title:q*"), defaults.maxPrefixExpansion);
    EXPECT_EQ(count("\"filler q*\""), 64u) << "a phrase's last word stands for at most 64 terms";
    EXPECT_EQ(count("q1*"), 112u) << "below the cap a prefix names every term: q1, q10-q19, q100-q199, q1000";
    EXPECT_EQ(count("filler"), static_cast<std::size_t>(kRows));
    std::string widest = "q*";
    for (int i = 1; i < kMaxQueryPrefixes; ++i)
        widest += " OR q*";
    EXPECT_EQ(count(widest), defaults.maxPrefixExpansion) << "the most prefixes a query may hold, each bounded";
}

} // namespace
