// Snippets made for an engine without its own (core/shard/snippets.h), held against what FTS5's
// snippet() makes of the same text and query with the node's arguments, in a real FTS5 table.

#include "core/query/query_compiler.h"
#include "core/shard/fts5_tokens.h"
#include "core/shard/snippets.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

using namespace shardmap::core;

namespace {

const QuerySchema kSnippetSchema { { "body" } };

class SnippetsTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        auto opened = Fts5Tokens::open();
        ASSERT_TRUE(opened) << opened.error().describe();
        m_tokens = std::move(*opened);
        ASSERT_EQ(sqlite3_open(":memory:", &m_db), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(m_db,
                      "CREATE VIRTUAL TABLE fts USING fts5(f_body, f__other, "
                      "tokenize = 'unicode61 remove_diacritics 2')",
                      nullptr, nullptr, nullptr),
            SQLITE_OK);
    }
    void TearDown() override { sqlite3_close(m_db); }

    Snippet ours(const std::string& text, const std::string& query)
    {
        auto parsed = parseQuery(query, kSnippetSchema);
        EXPECT_TRUE(parsed) << parsed.error().describe();
        auto phrases = snippetPhrases(*parsed, *m_tokens);
        EXPECT_TRUE(phrases) << phrases.error().describe();
        auto snippet = makeSnippet(text, "body", *phrases, *m_tokens);
        EXPECT_TRUE(snippet) << snippet.error().describe();
        return snippet ? *snippet : Snippet {};
    }

    // FTS5's snippet of the text's f_body column, as the node asks for it (shard_store_reads.cpp).
    std::string fts5(const std::string& text, const std::string& query)
    {
        sqlite3_exec(m_db, "DELETE FROM fts", nullptr, nullptr, nullptr);
        sqlite3_stmt* insert = nullptr;
        sqlite3_prepare_v2(m_db, "INSERT INTO fts(rowid, f_body) VALUES (1, ?1)", -1, &insert, nullptr);
        sqlite3_bind_text(insert, 1, text.c_str(), -1, SQLITE_TRANSIENT);
        EXPECT_EQ(sqlite3_step(insert), SQLITE_DONE);
        sqlite3_finalize(insert);
        auto compiled = compileQuery(query, kSnippetSchema);
        EXPECT_TRUE(compiled) << compiled.error().describe();
        sqlite3_stmt* select = nullptr;
        EXPECT_EQ(sqlite3_prepare_v2(m_db, "SELECT snippet(fts, 0, '[[', ']]', '…', 12) FROM fts WHERE fts MATCH ?1",
                      -1, &select, nullptr),
            SQLITE_OK);
        sqlite3_bind_text(select, 1, compiled->c_str(), -1, SQLITE_TRANSIENT);
        std::string snippet = "<no match>";
        if (sqlite3_step(select) == SQLITE_ROW)
            snippet = reinterpret_cast<const char*>(sqlite3_column_text(select, 0));
        sqlite3_finalize(select);
        return snippet;
    }

    std::unique_ptr<Fts5Tokens> m_tokens;
    sqlite3* m_db = nullptr;
};

TEST_F(SnippetsTest, AShortTextIsMarkedWhole)
{
    const std::string text = "The quick brown fox jumps over the lazy dog.";
    EXPECT_EQ(ours(text, "fox").text, "The quick brown [[fox]] jumps over the lazy dog.");
    EXPECT_EQ(ours(text, "fox").text, fts5(text, "fox"));
    EXPECT_EQ(ours(text, "fox").marks, 1);
}

TEST_F(SnippetsTest, SameAsFts5ForWordsPhrasesPrefixesAndCuts)
{
    const std::string longText = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi "
                                 "rho sigma tau upsilon phi chi psi omega and then the fox came at last to the end";
    const std::string accented = "Le café de la gare est fermé, mais le Café du Port sert un café noir toute la nuit";
    const std::string sentences = "The night was long and the wind was cold. Ships came in late: the harbour was "
                                  "full of them by morning. Nobody slept much, and the market opened early as "
                                  "always. By noon the harbour was closed to ships for the storm.";
    struct Case {
        std::string text;
        std::string query;
    };
    const std::vector<Case> cases {
        { longText, "alpha" },
        { longText, "omega" },
        { longText, "fox" },
        { longText, "end" },
        { longText, "\"sigma tau\"" },
        { longText, "ome*" },
        { longText, "kappa OR fox" },
        { longText, "body:theta" },
        { accented, "cafe" },
        { accented, "\"cafe noir\"" },
        { accented, "nuit NOT jour" },
        { sentences, "harbour" },
        { sentences, "ships OR harbour" },
        { sentences, "closed" },
        { sentences, "ship*" },
    };
    for (const auto& c : cases)
        EXPECT_EQ(ours(c.text, c.query).text, fts5(c.text, c.query)) << c.query;
}

TEST_F(SnippetsTest, TheWindowHoldsTheMostDifferentTerms)
{
    // "fox" alone at the start, then "fox" next to "dog" further on: the window takes both terms.
    const std::string text = "fox one two three four five six seven eight nine ten eleven twelve thirteen "
                             "fourteen fifteen sixteen seventeen dog fox";
    const auto snippet = ours(text, "fox dog");
    EXPECT_NE(snippet.text.find("[[dog]] [[fox]]"), std::string::npos) << snippet.text;
    EXPECT_EQ(snippet.marks, 2);
    EXPECT_TRUE(snippet.text.starts_with("…")) << snippet.text;
}

TEST_F(SnippetsTest, WhatANotExcludesAndOtherFieldsAreNotMarked)
{
    const std::string text = "red apples and green pears";
    auto parsed = parseQuery("apples NOT pears", kSnippetSchema);
    ASSERT_TRUE(parsed);
    auto phrases = snippetPhrases(*parsed, *m_tokens);
    ASSERT_TRUE(phrases);
    auto snippet = makeSnippet(text, "body", *phrases, *m_tokens);
    ASSERT_TRUE(snippet);
    EXPECT_EQ(snippet->text, "red [[apples]] and green pears");

    auto qualified = parseQuery("title:apples", QuerySchema { { "title", "body" } });
    ASSERT_TRUE(qualified);
    auto titlePhrases = snippetPhrases(*qualified, *m_tokens);
    ASSERT_TRUE(titlePhrases);
    auto inBody = makeSnippet(text, "body", *titlePhrases, *m_tokens);
    ASSERT_TRUE(inBody);
    EXPECT_EQ(inBody->marks, 0);
    EXPECT_EQ(inBody->text, text);
}

TEST_F(SnippetsTest, NoTokensNoMarks)
{
    auto parsed = parseQuery("fox", kSnippetSchema);
    ASSERT_TRUE(parsed);
    auto phrases = snippetPhrases(*parsed, *m_tokens);
    ASSERT_TRUE(phrases);
    auto empty = makeSnippet("", "body", *phrases, *m_tokens);
    ASSERT_TRUE(empty);
    EXPECT_EQ(empty->text, "");
    auto punctuation = makeSnippet("... !!! ...", "body", *phrases, *m_tokens);
    ASSERT_TRUE(punctuation);
    EXPECT_EQ(punctuation->text, "... !!! ...");
    EXPECT_EQ(punctuation->marks, 0);
}

} // namespace
