#include "core/query/query_compiler.h"

#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <optional>
#include <random>
#include <sqlite3.h>
#include <string>
#include <variant>
#include <vector>

namespace shardmap::core {
namespace {

const QuerySchema& testSchema()
{
    static const QuerySchema schema { { "title", "body", "tags" } };
    return schema;
}

const std::string kAll = "{f_title f_body f_tags f__other}";

std::string compiled(std::string_view query, const QuerySchema& schema = testSchema())
{
    Result<std::string> result = compileQuery(query, schema);
    EXPECT_TRUE(result.ok()) << "query: " << query << "\nerror: " << (result ? "" : result.error().message);
    return result ? *result : std::string();
}

std::string errorFor(std::string_view query, const QuerySchema& schema = testSchema())
{
    Result<std::string> result = compileQuery(query, schema);
    EXPECT_FALSE(result.ok()) << "query: " << query << "\ncompiled: " << (result ? *result : "");
    if (result)
        return {};
    EXPECT_EQ(result.error().code, ErrorCode::InvalidArgument) << query;
    return result.error().message;
}

void expectError(std::string_view query, std::string_view expected)
{
    const std::string message = errorFor(query);
    EXPECT_NE(message.find(expected), std::string::npos)
        << "query: " << query << "\nmessage: " << message << "\nexpected to contain: " << expected;
}

// `open` + inner + ")".
std::string wrap(std::string_view open, const std::string& inner)
{
    std::string out(open);
    out += inner;
    out += ')';
    return out;
}

// `depth` levels of parentheses whose operators alternate, e.g. depth 2: `a AND (b OR (c))`.
// Alternation defeats the flattening of same-kind chains, so FTS5's parser stack grows with depth.
std::string alternatingNesting(int depth, std::string_view innermost)
{
    std::string query(innermost);
    for (int level = depth; level > 0; --level)
        query = wrap(level % 2 ? "a AND (" : "b OR (", query);
    return query;
}

std::string rightNestedNot(int depth)
{
    std::string query = "z";
    for (int level = 0; level < depth; ++level)
        query = wrap("a NOT (", query);
    return query;
}

std::string mixedFieldNesting(int depth)
{
    std::string query = "title:(x* OR \"y z\"*)";
    for (int level = depth - 1; level > 0; --level)
        query = wrap(level % 2 ? "body:a OR (" : "b AND (", query);
    return query;
}

// ---------------------------------------------------------------------------------------------
// Compiled text

TEST(QueryCompilerTest, ColumnNames)
{
    EXPECT_EQ(ftsColumnForField("title"), "f_title");
    EXPECT_EQ(ftsColumnForField("_other"), kOtherColumn);
}

TEST(QueryCompilerTest, TermsAreQuotedAndSearchEveryTextColumn)
{
    EXPECT_EQ(compiled("fox"), kAll + " : (\"fox\")");
    EXPECT_EQ(compiled("  fox\t\n"), kAll + " : (\"fox\")");
    EXPECT_EQ(compiled("café"), kAll + " : (\"café\")");
}

TEST(QueryCompilerTest, ImplicitAndExplicitAnd)
{
    EXPECT_EQ(compiled("quick fox"), kAll + " : (\"quick\" AND \"fox\")");
    EXPECT_EQ(compiled("quick AND fox"), kAll + " : (\"quick\" AND \"fox\")");
    EXPECT_EQ(compiled("a (b (c d))"), kAll + " : (\"a\" AND \"b\" AND \"c\" AND \"d\")");
}

TEST(QueryCompilerTest, PrecedenceIsOrThenAndThenNot)
{
    EXPECT_EQ(compiled("a OR b c"), kAll + " : (\"a\" OR (\"b\" AND \"c\"))");
    EXPECT_EQ(compiled("a b OR c"), kAll + " : ((\"a\" AND \"b\") OR \"c\")");
    EXPECT_EQ(compiled("a NOT b c"), kAll + " : ((\"a\" NOT \"b\") AND \"c\")");
    EXPECT_EQ(compiled("a b NOT c"), kAll + " : (\"a\" AND (\"b\" NOT \"c\"))");
    EXPECT_EQ(compiled("a OR b NOT c"), kAll + " : (\"a\" OR (\"b\" NOT \"c\"))");
    EXPECT_EQ(compiled("(a OR b) c"), kAll + " : ((\"a\" OR \"b\") AND \"c\")");
}

TEST(QueryCompilerTest, NotChainsOnlyOnTheLeft)
{
    EXPECT_EQ(compiled("a NOT b NOT c"), kAll + " : (\"a\" NOT \"b\" NOT \"c\")");
    EXPECT_EQ(compiled("a NOT (b NOT c)"), kAll + " : (\"a\" NOT (\"b\" NOT \"c\"))");
    EXPECT_EQ(compiled("(a OR b) OR (c OR d)"), kAll + " : (\"a\" OR \"b\" OR \"c\" OR \"d\")");
}

TEST(QueryCompilerTest, RedundantParenthesesDisappear)
{
    EXPECT_EQ(compiled("((fox))"), kAll + " : (\"fox\")");
    EXPECT_EQ(compiled("(((a OR b)))"), kAll + " : (\"a\" OR \"b\")");
}

TEST(QueryCompilerTest, LowerCaseOperatorsAndFts5KeywordsAreTerms)
{
    EXPECT_EQ(compiled("cats and dogs"), kAll + " : (\"cats\" AND \"and\" AND \"dogs\")");
    EXPECT_EQ(compiled("or not"), kAll + " : (\"or\" AND \"not\")");
    EXPECT_EQ(compiled("NEAR And"), kAll + " : (\"NEAR\" AND \"And\")");
}

TEST(QueryCompilerTest, Phrases)
{
    EXPECT_EQ(compiled("\"quick brown fox\""), kAll + " : (\"quick brown fox\")");
    EXPECT_EQ(compiled("say\"hello world\""), kAll + " : (\"say\" AND \"hello world\")");
    EXPECT_EQ(compiled("\"a (b) OR c:d\""), kAll + " : (\"a (b) OR c:d\")");
}

TEST(QueryCompilerTest, Prefixes)
{
    EXPECT_EQ(compiled("qu*"), kAll + " : (\"qu\" *)");
    EXPECT_EQ(compiled("q**"), kAll + " : (\"q\" *)");
    EXPECT_EQ(compiled("\"quick bro\"*"), kAll + " : (\"quick bro\" *)");
    EXPECT_EQ(compiled("\"quick bro*\""), kAll + " : (\"quick bro\" *)");
    EXPECT_EQ(compiled("\"quick bro *\""), kAll + " : (\"quick bro\" *)");
    EXPECT_EQ(compiled("a*b"), kAll + " : (\"a*b\")");
    EXPECT_EQ(compiled("OR*"), kAll + " : (\"OR\" *)");
}

TEST(QueryCompilerTest, PunctuationStaysInsideTheQuotedTerm)
{
    EXPECT_EQ(compiled("c++"), kAll + " : (\"c++\")");
    EXPECT_EQ(compiled("foo-bar"), kAll + " : (\"foo-bar\")");
    EXPECT_EQ(compiled("-x {y} ^z"), kAll + " : (\"-x\" AND \"{y}\" AND \"^z\")");
    EXPECT_EQ(compiled(":foo"), kAll + " : (\":foo\")");
    EXPECT_EQ(compiled("a+b*"), kAll + " : (\"a+b\" *)");
}

TEST(QueryCompilerTest, FieldQualifiers)
{
    EXPECT_EQ(compiled("title:fox"), "f_title : (\"fox\")");
    EXPECT_EQ(compiled("title:\"quick fox\""), "f_title : (\"quick fox\")");
    EXPECT_EQ(compiled("title:qu*"), "f_title : (\"qu\" *)");
    EXPECT_EQ(compiled("tags:(a OR b)"), "f_tags : (\"a\" OR \"b\")");
    EXPECT_EQ(compiled("title:AND"), "f_title : (\"AND\")");
    EXPECT_EQ(compiled("title::x"), "f_title : (\":x\")");
}

TEST(QueryCompilerTest, MixedQualifiedAndUnqualifiedOperands)
{
    EXPECT_EQ(compiled("brown title:fox"), "(" + kAll + " : (\"brown\") AND f_title : (\"fox\"))");
    EXPECT_EQ(compiled("title:a OR body:b"), "(f_title : (\"a\") OR f_body : (\"b\"))");
    EXPECT_EQ(compiled("(a OR title:b) c d"),
        "((" + kAll + " : (\"a\") OR f_title : (\"b\")) AND " + kAll + " : (\"c\") AND " + kAll + " : (\"d\"))");
    EXPECT_EQ(compiled("(a OR b) NOT tags:c"), "(" + kAll + " : (\"a\" OR \"b\") NOT f_tags : (\"c\"))");
}

TEST(QueryCompilerTest, SchemaDecidesTheColumns)
{
    EXPECT_EQ(compiled("x", QuerySchema {}), "{f__other} : (\"x\")");
    const QuerySchema odd { { "my-field", "n2" } };
    EXPECT_EQ(compiled("x", odd), "{\"f_my-field\" f_n2 f__other} : (\"x\")");
    EXPECT_EQ(compiled("my-field:x", odd), "\"f_my-field\" : (\"x\")");
}

// ---------------------------------------------------------------------------------------------
// Errors

TEST(QueryCompilerErrorTest, EmptyQuery)
{
    EXPECT_EQ(errorFor(""), "empty query");
    EXPECT_EQ(errorFor(" \t\r\n"), "empty query");
}

TEST(QueryCompilerErrorTest, QueryLength)
{
    std::string words;
    while (words.size() < kMaxQueryBytes - 2)
        words += "abcdefg ";
    const std::string longest = "\"" + words.substr(0, kMaxQueryBytes - 2) + "\"";
    EXPECT_TRUE(compileQuery(longest, testSchema()).ok());
    expectError(longest + " ", "query is 4097 bytes; at most 4096 are allowed");
}

TEST(QueryCompilerErrorTest, NestingDepth)
{
    const auto nested = [](int depth) { return std::string(depth, '(') + "a" + std::string(depth, ')'); };
    EXPECT_TRUE(compileQuery(nested(kMaxQueryDepth), testSchema()).ok());
    expectError(nested(kMaxQueryDepth + 1), "parentheses nested more than 32 deep at offset 32");
    EXPECT_TRUE(compileQuery("title:" + nested(kMaxQueryDepth), testSchema()).ok());
    expectError("title:" + nested(kMaxQueryDepth + 1), "nested more than 32 deep at offset 38");
}

TEST(QueryCompilerErrorTest, TermCount)
{
    std::string query;
    for (int i = 0; i < kMaxQueryTerms; ++i)
        query += "t ";
    EXPECT_TRUE(compileQuery(query, testSchema()).ok());
    expectError(query + "\"last one\"", "more than 256 terms (the next one starts at offset 512)");
}

TEST(QueryCompilerErrorTest, PrefixCount)
{
    std::string query;
    for (int i = 0; i < kMaxQueryPrefixes; ++i)
        query += "p* ";
    EXPECT_TRUE(compileQuery(query + "plain words", testSchema()).ok()) << "words that are not prefixes do not count";
    expectError(query + "\"last on*\"", "more than 16 prefix searches (the next one starts at offset 48)");
}

TEST(QueryCompilerErrorTest, WordLength)
{
    const std::string longest(kMaxQueryWordBytes, 'w');
    EXPECT_TRUE(compileQuery(longest, testSchema()).ok());
    EXPECT_TRUE(compileQuery("\"" + longest + " " + longest + "\"*", testSchema()).ok()) << "each word counts alone";
    expectError("ok " + longest + "w", "the word at offset 3 is 201 bytes long; at most 200 are searched for");
    expectError("title:\"a " + longest + "w*\"", "the word at offset 9 is 201 bytes long");
    expectError("a-" + longest + "\xc3\xa9", "the word at offset 2 is 202 bytes long"); // non-ASCII bytes count
    EXPECT_TRUE(compileQuery(longest + "-" + longest, testSchema()).ok()) << "punctuation ends a word";
}

TEST(QueryCompilerErrorTest, Phrases)
{
    expectError("title:\"abc", "unterminated phrase starting at offset 6");
    expectError("a \"b\" \"c", "unterminated phrase starting at offset 6");
    expectError("x \"\"", "empty phrase at offset 2");
    expectError("\"   \"*", "empty phrase at offset 0");
    expectError("\"-- !\"", "phrase '-- !' at offset 0 contains no letters or digits");
    expectError("\"*\"", "phrase '*' at offset 0 contains no letters or digits");
}

TEST(QueryCompilerErrorTest, TermsWithoutLettersOrDigits)
{
    expectError("-", "term '-' at offset 0 contains no letters or digits");
    expectError("a ***", "term '***' at offset 2 contains no letters or digits");
    expectError("\"fox\" *", "term '*' at offset 6");
    expectError("title:_", "term '_' at offset 6");
}

TEST(QueryCompilerErrorTest, DanglingOperators)
{
    expectError("a AND", "'AND' at offset 2 has nothing after it");
    expectError("a OR", "'OR' at offset 2 has nothing after it");
    expectError("(a NOT) b", "'NOT' at offset 3 has nothing after it");
    expectError("OR b", "'OR' at offset 0 needs something before it");
    expectError("(AND b)", "'AND' at offset 1 needs something before it");
    expectError("a AND OR b", "'AND' at offset 2 is followed by 'OR' at offset 6");
    expectError("a OR title:", "'title:' at offset 5 must be followed directly");
}

TEST(QueryCompilerErrorTest, NotNeedsALeftOperand)
{
    expectError("NOT a", "'NOT' at offset 0 needs something before it: it is binary, as in 'a NOT b'");
    expectError("(NOT a)", "'NOT' at offset 1 needs something before it");
    expectError("a AND NOT b", "'NOT' at offset 6 needs something before it");
    expectError("a OR NOT b", "'NOT' at offset 5 needs something before it");
    expectError("a NOT NOT b", "'NOT' at offset 6 needs something before it");
}

TEST(QueryCompilerErrorTest, Parentheses)
{
    expectError("(a", "'(' at offset 0 is never closed");
    expectError("x (a (b)", "'(' at offset 2 is never closed");
    expectError("a (", "'(' at offset 2 is never closed");
    expectError("a)", "unbalanced ')' at offset 1");
    expectError(")", "unbalanced ')' at offset 0");
    expectError("(a))", "unbalanced ')' at offset 3");
    expectError("()", "empty parentheses at offset 0");
    expectError("a ( )", "empty parentheses at offset 2");
    expectError("title:()", "empty parentheses at offset 6");
}

TEST(QueryCompilerErrorTest, FieldQualifiers)
{
    expectError(
        "title:", "'title:' at offset 0 must be followed directly by a term, a phrase or a parenthesized group");
    expectError("title: fox", "'title:' at offset 0 must be followed directly");
    expectError("(title:)", "'title:' at offset 1 must be followed directly");
}

TEST(QueryCompilerErrorTest, UnknownFields)
{
    expectError("foo:bar", "unknown field 'foo' at offset 0; known fields: title, body, tags");
    expectError("a sp:stoken", "unknown field 'sp' at offset 2");
    expectError("_other:x", "unknown field '_other'");
    expectError("Title:x", "unknown field 'Title'");
    const std::string message = errorFor("x:y", QuerySchema {});
    EXPECT_NE(message.find("known fields: (none)"), std::string::npos) << message;
}

TEST(QueryCompilerErrorTest, NestedFieldQualifiers)
{
    expectError("title:(a body:b)", "field qualifier 'body:' at offset 9 is inside another field qualifier");
    expectError("title:body:b", "field qualifier 'body:' at offset 6 is inside another");
    expectError("title:(title:b)", "cannot be nested");
}

TEST(QueryCompilerErrorTest, NulByte)
{
    expectError(std::string_view("a\0b", 3), "NUL character at offset 1");
}

TEST(QueryCompilerErrorTest, DeepNestingOfDifferentOperatorsIsRejectedNotPassedToFts5)
{
    // FTS5's parser stack cannot hold 32 levels of alternating operators; the compiler must say
    // so rather than emit a query that fails at execution time.
    const std::string message = errorFor(alternatingNesting(kMaxQueryDepth, "x"));
    EXPECT_NE(message.find("too deeply"), std::string::npos) << message;
    EXPECT_TRUE(compileQuery(alternatingNesting(20, "x"), testSchema()).ok());
    EXPECT_TRUE(compileQuery(rightNestedNot(20), testSchema()).ok());
}

// ---------------------------------------------------------------------------------------------
// Execution against a real FTS5 table

struct Doc {
    std::int64_t rowid;
    const char* sp;
    const char* title;
    const char* body;
    const char* tags;
    const char* other;
};

// Every space token starts with 's', so a prefix query `s*` that leaked into the sp column would
// match every row. Rows 1 and 3 have no field word starting with 's'.
const Doc kDocs[] = {
    { 1, "stoken", "The quick brown fox", "jumps over the lazy dog", "animals nature", "misc" },
    { 2, "stoken", "Slow brown dog", "sleeps in the sun", "animals", "" },
    { 3, "stoken", "C++ programming", "templates and foo-bar patterns, e-mail", "code cpp", "qux" },
    { 4, "stoken", "Café society", "naïve résumé", "people", "social" },
    { 5, "sother", "quick silver", "brown fox", "animals cpp", "qux" },
    { 6, "stoken", "Zebra", "zzz", "xyz", "supersecret" },
};

using Rows = std::vector<std::int64_t>;

class QueryFts5Test : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_EQ(sqlite3_open(":memory:", &m_db), SQLITE_OK);
        exec("CREATE VIRTUAL TABLE t USING fts5(sp, f_title, f_body, f_tags, f__other, prefix='2 3', "
             "tokenize='unicode61 remove_diacritics 2')");
        for (const Doc& doc : kDocs)
            insert(doc);
    }

    void TearDown() override { sqlite3_close(m_db); }

    void exec(const char* sql)
    {
        char* error = nullptr;
        ASSERT_EQ(sqlite3_exec(m_db, sql, nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
    }

    void insert(const Doc& doc)
    {
        sqlite3_stmt* stmt = nullptr;
        ASSERT_EQ(sqlite3_prepare_v2(m_db,
                      "INSERT INTO t(rowid, sp, f_title, f_body, f_tags, f__other) "
                      "VALUES (?, ?, ?, ?, ?, ?)",
                      -1, &stmt, nullptr),
            SQLITE_OK);
        sqlite3_bind_int64(stmt, 1, doc.rowid);
        const char* texts[] = { doc.sp, doc.title, doc.body, doc.tags, doc.other };
        for (int i = 0; i < 5; ++i)
            sqlite3_bind_text(stmt, i + 2, texts[i], -1, SQLITE_STATIC);
        EXPECT_EQ(sqlite3_step(stmt), SQLITE_DONE);
        sqlite3_finalize(stmt);
    }

    // Runs a raw MATCH expression; returns the matching rowids, or the SQLite error message.
    std::variant<Rows, std::string> match(const std::string& expression)
    {
        sqlite3_stmt* stmt = nullptr;
        if (sqlite3_prepare_v2(m_db, "SELECT rowid FROM t WHERE t MATCH ? ORDER BY rowid", -1, &stmt, nullptr)
            != SQLITE_OK)
            return std::string(sqlite3_errmsg(m_db));
        sqlite3_bind_text(stmt, 1, expression.c_str(), -1, SQLITE_TRANSIENT);
        Rows rows;
        int rc = SQLITE_ROW;
        while ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
            rows.push_back(sqlite3_column_int64(stmt, 0));
        sqlite3_finalize(stmt);
        if (rc != SQLITE_DONE)
            return std::string(sqlite3_errmsg(m_db));
        return rows;
    }

    // What the shard store does: restrict to one space, then AND the compiled user query.
    Rows search(std::string_view query, std::string_view space = "stoken")
    {
        Result<std::string> result = compileQuery(query, testSchema());
        EXPECT_TRUE(result.ok()) << query << ": " << (result ? "" : result.error().message);
        if (!result)
            return {};
        return matchOrFail("sp : " + std::string(space) + " AND " + *result);
    }

    Rows matchOrFail(const std::string& expression)
    {
        auto rows = match(expression);
        EXPECT_TRUE(std::holds_alternative<Rows>(rows)) << expression << ": " << std::get<std::string>(rows);
        return std::holds_alternative<Rows>(rows) ? std::get<Rows>(rows) : Rows {};
    }

    // A compiled query must always be valid FTS5, also combined with the space restriction.
    void expectAcceptedByFts5(std::string_view query)
    {
        Result<std::string> result = compileQuery(query, testSchema());
        if (!result) {
            EXPECT_EQ(result.error().code, ErrorCode::InvalidArgument) << query;
            return;
        }
        for (const std::string& expression :
            { *result, "sp : stoken AND " + *result, "sp : stoken AND (" + *result + ")" }) {
            auto rows = match(expression);
            EXPECT_TRUE(std::holds_alternative<Rows>(rows))
                << "query: " << query << "\nexpression: " << expression << "\nerror: " << std::get<std::string>(rows);
        }
    }

    sqlite3* m_db = nullptr;
};

TEST_F(QueryFts5Test, Terms)
{
    EXPECT_EQ(search("fox"), (Rows { 1 }));
    EXPECT_EQ(search("brown"), (Rows { 1, 2 }));
    EXPECT_EQ(search("BROWN"), (Rows { 1, 2 }));
    EXPECT_EQ(search("nothing"), (Rows {}));
    EXPECT_EQ(search("supersecret"), (Rows { 6 })); // catch-all column
    EXPECT_EQ(search("brown", "sother"), (Rows { 5 }));
}

TEST_F(QueryFts5Test, Phrases)
{
    EXPECT_EQ(search("\"brown fox\""), (Rows { 1 }));
    EXPECT_EQ(search("\"fox brown\""), (Rows {}));
    EXPECT_EQ(search("\"brown dog\""), (Rows { 2 }));
    EXPECT_EQ(search("\"lazy   dog\""), (Rows { 1 }));
}

TEST_F(QueryFts5Test, PrefixesOfOneTwoAndThreeLetters)
{
    EXPECT_EQ(search("q*"), (Rows { 1, 3 })); // quick, qux
    EXPECT_EQ(search("z*"), (Rows { 6 }));
    EXPECT_EQ(search("qu*"), (Rows { 1, 3 }));
    EXPECT_EQ(search("sl*"), (Rows { 2 }));
    EXPECT_EQ(search("bro*"), (Rows { 1, 2 }));
    EXPECT_EQ(search("soc*"), (Rows { 4 }));
    EXPECT_EQ(search("templ*"), (Rows { 3 }));
    EXPECT_EQ(search("\"quick bro\"*"), (Rows { 1 }));
    EXPECT_EQ(search("\"slow bro*\""), (Rows { 2 }));
    EXPECT_EQ(search("\"bro quick\"*"), (Rows {}));
}

TEST_F(QueryFts5Test, PrefixNeverMatchesTheSpaceColumn)
{
    EXPECT_EQ(search("s*"), (Rows { 2, 4, 6 }));
    EXPECT_EQ(search("st*"), (Rows {}));
    EXPECT_EQ(search("sto*"), (Rows {}));
    EXPECT_EQ(search("stoken"), (Rows {}));
    EXPECT_EQ(search("\"stoken\""), (Rows {}));
    // Without the space restriction too: only field words count (row 5 has "silver").
    EXPECT_EQ(matchOrFail(compiled("s*")), (Rows { 2, 4, 5, 6 }));
    EXPECT_EQ(matchOrFail(compiled("sother OR stoken")), (Rows {}));
    EXPECT_EQ(matchOrFail(compiled("title:s* OR x*")), (Rows { 2, 4, 5, 6 }));
}

TEST_F(QueryFts5Test, BooleanOperators)
{
    EXPECT_EQ(search("brown AND dog"), (Rows { 1, 2 }));
    EXPECT_EQ(search("brown dog"), (Rows { 1, 2 }));
    EXPECT_EQ(search("brown NOT fox"), (Rows { 2 }));
    EXPECT_EQ(search("fox OR cpp"), (Rows { 1, 3 }));
    EXPECT_EQ(search("brown dog NOT lazy"), (Rows { 2 }));
    EXPECT_EQ(search("(fox OR zebra) NOT quick"), (Rows { 6 }));
    EXPECT_EQ(search("animals NOT brown NOT zzz"), (Rows {}));
    EXPECT_EQ(search("animals NOT (fox NOT lazy)"), (Rows { 1, 2 }));
    EXPECT_EQ(search("and"), (Rows { 3 })); // lower case: a term
}

TEST_F(QueryFts5Test, FieldQualifiers)
{
    EXPECT_EQ(search("title:brown"), (Rows { 1, 2 }));
    EXPECT_EQ(search("body:brown"), (Rows {}));
    EXPECT_EQ(search("title:dog"), (Rows { 2 }));
    EXPECT_EQ(search("body:dog"), (Rows { 1 }));
    EXPECT_EQ(search("tags:(cpp OR nature)"), (Rows { 1, 3 }));
    EXPECT_EQ(search("title:(brown NOT fox)"), (Rows { 2 }));
    EXPECT_EQ(search("body:\"lazy dog\""), (Rows { 1 }));
    EXPECT_EQ(search("title:\"lazy dog\""), (Rows {}));
    EXPECT_EQ(search("tags:ani*"), (Rows { 1, 2 }));
    EXPECT_EQ(search("tags:s*"), (Rows {}));
}

TEST_F(QueryFts5Test, MixedQualifiedAndUnqualified)
{
    EXPECT_EQ(search("brown title:fox"), (Rows { 1 }));
    EXPECT_EQ(search("title:slow OR body:lazy"), (Rows { 1, 2 }));
    EXPECT_EQ(search("animals NOT title:fox"), (Rows { 2 }));
    EXPECT_EQ(search("(zebra OR title:fox) NOT lazy"), (Rows { 6 }));
}

TEST_F(QueryFts5Test, PunctuationTerms)
{
    EXPECT_EQ(search("c++"), (Rows { 3 }));
    EXPECT_EQ(search("\"c++ programming\""), (Rows { 3 }));
    EXPECT_EQ(search("foo-bar"), (Rows { 3 }));
    EXPECT_EQ(search("e-mail"), (Rows { 3 }));
    EXPECT_EQ(search("programming!"), (Rows { 3 }));
    EXPECT_EQ(search("{patterns}"), (Rows { 3 }));
    EXPECT_EQ(search("NEAR(qux)"), (Rows {}));
    EXPECT_EQ(search("bar-foo"), (Rows {}));
}

TEST_F(QueryFts5Test, Diacritics)
{
    EXPECT_EQ(search("cafe"), (Rows { 4 }));
    EXPECT_EQ(search("café"), (Rows { 4 }));
    EXPECT_EQ(search("resume naive"), (Rows { 4 }));
    EXPECT_EQ(search("ré*"), (Rows { 4 }));
}

TEST_F(QueryFts5Test, FuzzishInputsThatCompileAreValidFts5)
{
    const char* inputs[] = {
        "fox",
        "a b c",
        "a OR b",
        "a NOT b",
        "(a)",
        "((a OR b) c) NOT d",
        "\"a b\"*",
        "\"a b*\"",
        "x*",
        "c++ AND c#",
        "foo-bar",
        "*foo",
        "a*b*",
        "NEAR(a b)",
        "NEAR",
        "a:b",
        "\"a:b\"",
        "title:(a OR (b NOT c))",
        "title:\"x y\"* body:z*",
        "a\tb\nc",
        "{a b}",
        "[x]",
        "a^2",
        "'quoted'",
        "-a",
        "+a",
        "a' OR 1=1",
        "\"; DROP TABLE t; --\"",
        "\\",
        "a\\\"b",
        "é",
        "日本語",
        "x AND (y OR z) NOT w",
        "title:AND",
        "tags:OR*",
        ":x",
        "x:",
        "title::x",
        "\"\"\"\"",
        "a \"b\"c",
        "b\"c\"d",
        "\xff\xfe",
        "a\x01b",
        "AND",
        "OR",
        "NOT",
        "title:x NOT body:y",
        "(title:x OR y) (tags:z NOT w)",
    };
    for (const char* input : inputs)
        expectAcceptedByFts5(input);
}

TEST_F(QueryFts5Test, RandomInputsThatCompileAreValidFts5)
{
    const std::vector<std::string> pieces = {
        "a",
        "fox",
        "s*",
        "qu*",
        "c++",
        "x-y",
        "\"",
        "\"p q\"",
        "\"r s\"*",
        "(",
        ")",
        " ",
        " ",
        " ",
        "AND",
        "OR",
        "NOT",
        "and",
        "title:",
        "body:",
        "tags:",
        "nope:",
        ":",
        "*",
        "-",
        "NEAR",
        "{",
        "}",
        "é",
        "\t",
        "^",
        "'",
    };
    std::mt19937 random(20240611);
    std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1);
    std::uniform_int_distribution<int> length(1, 14);
    int compiledCount = 0;
    for (int iteration = 0; iteration < 3000; ++iteration) {
        std::string query;
        for (int n = length(random); n > 0; --n)
            query += pieces[pick(random)];
        compiledCount += compileQuery(query, testSchema()).ok() ? 1 : 0;
        expectAcceptedByFts5(query);
    }
    EXPECT_GT(compiledCount, 300); // the generator must exercise the emitter, not just the errors
}

TEST_F(QueryFts5Test, DeepQueriesThatCompileAreValidFts5)
{
    for (int depth = 1; depth <= kMaxQueryDepth + 1; ++depth) {
        expectAcceptedByFts5(alternatingNesting(depth, "x"));
        expectAcceptedByFts5(alternatingNesting(depth, "title:\"x y\"*"));
        expectAcceptedByFts5(rightNestedNot(depth));
        expectAcceptedByFts5(mixedFieldNesting(depth));
        expectAcceptedByFts5(std::string(depth, '(') + "a OR b" + std::string(depth, ')'));
    }
}

TEST_F(QueryFts5Test, DeepQueriesStillMatch)
{
    std::string alternating = "brown";
    std::string notChain = "fox";
    for (int level = 0; level < 21; ++level) {
        alternating = wrap(level % 2 ? "animals AND (" : "zebra OR (", alternating);
        notChain = wrap("animals NOT (", notChain);
    }
    EXPECT_EQ(search(alternating), (Rows { 1, 2, 6 }));
    EXPECT_EQ(search(notChain), (Rows { 2 })); // an odd number of NOTs: animals without fox
    EXPECT_EQ(search(std::string(kMaxQueryDepth, '(') + "fox" + std::string(kMaxQueryDepth, ')')), (Rows { 1 }));
}

} // namespace
} // namespace shardmap::core
