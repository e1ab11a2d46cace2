// The FTS5 index of a shard, in the shard's own file: the `fts` table (the text itself, with the
// tokenizer, prefix indexes and stored-only columns its index settings name), ranked with bm25()
// and the settings' field weights inside FTS5 and joined to docs, with its snippets.

#include "core/query/query_compiler.h"
#include "core/shard/fts5_tokens.h"
#include "core/shard/shard_index.h"
#include "core/shard/shard_internal.h"

#include <charconv>

namespace shardmap::core {

namespace {

using shard_internal::fromStored;
using shard_internal::joinColumns;
using shard_internal::textColumns;

int countSnippetMarks(const std::string& snippet)
{
    int marks = 0;
    for (std::size_t at = snippet.find("[["); at != std::string::npos; at = snippet.find("[[", at + 2))
        ++marks;
    return marks;
}

// The FTS5 MATCH expression: the compiled query within the spaces' tokens.
std::string spaceScopedMatch(const std::vector<std::string>& spaces, const std::string& compiled)
{
    std::string spaceFilter;
    for (const auto& space : spaces) {
        // Appended piece by piece: GCC 12 reports a bogus -Wrestrict for "\"" + std::string&&.
        spaceFilter.append(spaceFilter.empty() ? "\"" : " OR \"").append(spaceToken(space)).append("\"");
    }
    return "sp : (" + spaceFilter + ") AND " + compiled;
}

// bm25()'s weight of each column: none for the space column, each field's from the settings (a
// stored-only column holds no tokens, so its weight never counts), 1 for the catch-all.
std::string bm25Weights(const IndexSettings& settings)
{
    std::string weights = "0";
    for (const IndexField& field : settings.fields) {
        char text[32];
        const auto written = std::to_chars(text, text + sizeof text, field.weight);
        weights.append(", ").append(text, written.ptr);
    }
    return weights + ", 1";
}

// ?1 the MATCH, ?2 how many to rank, ?3 the page's limit, ?4 its offset, ?5... the spaces.
std::string rankedSearchSql(const std::string& weights, std::size_t spaceCount)
{
    std::string placeholders;
    for (std::size_t i = 0; i < spaceCount; ++i)
        placeholders += (i ? ", ?" : "?") + std::to_string(i + 5);
    // Rank inside FTS5 first and join only the winners to docs: joining every match before
    // ranking costs one random docs lookup per match (3x slower on large spaces, BENCHMARKS.md).
    // The space token already scopes the match; the IN check guards against token collisions.
    return "SELECT d.space, d.id, d.version, m.score, m.rowid FROM (SELECT rowid, bm25(fts, " + weights
        + ") AS score FROM fts WHERE fts MATCH ?1 ORDER BY score, rowid LIMIT ?2) AS m JOIN docs d ON d.rowid = m.rowid"
          " WHERE d.space IN ("
        + placeholders + ") ORDER BY m.score, m.rowid LIMIT ?3 OFFSET ?4";
}

class Fts5Index final : public ShardIndex {
public:
    Fts5Index(const IndexSettings& settings, Statement insert, Statement erase)
        : m_fields(settings.fieldNames())
        , m_schema(querySchemaOf(settings))
        , m_weights(bm25Weights(settings))
        , m_insert(std::move(insert))
        , m_delete(std::move(erase))
    {
    }

    IndexEngine engine() const override { return IndexEngine::Fts5; }
    const char* textTable() const override { return "fts"; }

    Status insert(std::int64_t rowid, const std::string& space, const RowText& text) override
    {
        m_insert.bind(1, rowid).bind(2, spaceToken(space));
        for (std::size_t i = 0; i < text.size(); ++i) {
            if (text[i])
                m_insert.bind(static_cast<int>(i) + 3, *text[i]);
            else
                m_insert.bindNull(static_cast<int>(i) + 3);
        }
        return m_insert.run();
    }
    Status remove(std::int64_t rowid) override { return m_delete.bind(1, rowid).run(); }
    // FTS5's index is part of the transaction, durable with the file.
    Status committed() override { return {}; }
    Status checkpoint() override { return {}; }
    std::uint64_t bytesBeside() const override { return 0; }

    Result<SearchResult> search(SqliteDb& reader, const ShardSearchRequest& request) override;

private:
    Result<SearchResult> rankedHits(
        SqliteDb& db, const ShardSearchRequest& request, const std::string& match, std::vector<std::int64_t>& rowids);
    Status addSnippets(
        SqliteDb& db, const std::string& match, const std::vector<std::int64_t>& rowids, std::vector<SearchHit>& hits);

    std::vector<std::string> m_fields;
    QuerySchema m_schema;
    std::string m_weights;
    Statement m_insert;
    Statement m_delete;
};

Result<SearchResult> Fts5Index::search(SqliteDb& reader, const ShardSearchRequest& request)
{
    auto compiled = compileQuery(request.query, m_schema);
    if (!compiled)
        return compiled.error();
    const std::string match = spaceScopedMatch(request.spaces, *compiled);
    std::vector<std::int64_t> rowids;
    auto result = rankedHits(reader, request, match, rowids);
    if (!result)
        return result.error();
    if (request.snippets) {
        if (auto status = addSnippets(reader, match, rowids, result->hits); !status)
            return status.error();
    }
    return result;
}

// The page of hits the request asks for, best first, and each hit's FTS rowid (for its snippet).
Result<SearchResult> Fts5Index::rankedHits(
    SqliteDb& db, const ShardSearchRequest& request, const std::string& match, std::vector<std::int64_t>& rowids)
{
    auto stmt = db.prepare(rankedSearchSql(m_weights, request.spaces.size()));
    if (!stmt)
        return stmt.error();
    const std::int64_t limit = request.limit == 0 ? 20 : request.limit;
    stmt->bind(1, match).bind(2, limit + std::int64_t { request.offset }).bind(3, limit);
    stmt->bind(4, std::int64_t { request.offset });
    for (std::size_t i = 0; i < request.spaces.size(); ++i)
        stmt->bind(static_cast<int>(i) + 5, request.spaces[i]);
    SearchResult result;
    result.compiledQuery = match;
    while (true) {
        auto row = stmt->step();
        if (!row)
            return makeError(row.error().code, "search failed: " + row.error().message);
        if (!*row)
            return result;
        result.hits.push_back(
            { stmt->columnText(0), stmt->columnText(1), fromStored(stmt->columnInt(2)), stmt->columnDouble(3), {} });
        rowids.push_back(stmt->columnInt(4));
    }
}

Status Fts5Index::addSnippets(
    SqliteDb& db, const std::string& match, const std::vector<std::int64_t>& rowids, std::vector<SearchHit>& hits)
{
    // snippet() needs the MATCH cursor, so each hit is looked up again by rowid; only the page's
    // hits pay for it. The snippet of the column with the most marked matches wins.
    const auto columns = textColumns(m_fields);
    std::string snippets;
    for (std::size_t i = 0; i < columns.size(); ++i)
        snippets += (i ? ", " : "") + ("snippet(fts, " + std::to_string(i + 1) + ", '[[', ']]', '…', 12)");
    auto stmt = db.prepare("SELECT " + snippets + " FROM fts WHERE fts MATCH ?1 AND rowid = ?2");
    if (!stmt)
        return stmt.error();
    for (std::size_t h = 0; h < hits.size(); ++h) {
        stmt->bind(1, match).bind(2, rowids[h]);
        auto row = stmt->step();
        if (!row)
            return row.error();
        for (std::size_t i = 0; *row && i < columns.size(); ++i) {
            std::string candidate = stmt->columnText(static_cast<int>(i));
            if (countSnippetMarks(candidate) > countSnippetMarks(hits[h].snippet))
                hits[h].snippet = std::move(candidate);
        }
        stmt->reset();
    }
    return {};
}

// A column's declaration: a stored-only field is UNINDEXED (kept and returned, never tokenized).
std::string fts5Columns(const IndexSettings& settings)
{
    std::string columns;
    for (const IndexField& field : settings.fields)
        columns += ", " + ftsColumnForField(field.name) + (field.indexed ? "" : " UNINDEXED");
    return columns + ", " + std::string(kOtherColumn);
}

// The tokenize option, double-quoted: bare words, and the token characters (punctuation) in single
// quotes. SQLite 3.40's FTS5 refuses a double-quoted argument inside a single-quoted option
// ("parse error in tokenize directive"). No argument holds a quote (validateIndexSettings).
std::string fts5TokenizeOption(const IndexSettings& settings)
{
    const std::vector<std::string> args = fts5TokenizerArgs(settings);
    std::string option;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const bool punctuation = i > 0 && args[i - 1] == "tokenchars";
        option += (i ? " " : "") + (punctuation ? "'" + args[i] + "'" : args[i]);
    }
    return "tokenize=\"" + option + "\"";
}

std::string fts5PrefixOption(const IndexSettings& settings)
{
    std::string lengths;
    for (std::uint32_t length : settings.prefixes)
        lengths += (lengths.empty() ? "" : " ") + std::to_string(length);
    return lengths.empty() ? std::string() : ", prefix='" + lengths + "'";
}

} // namespace

Status createFts5Tables(SqliteDb& db, const IndexSettings& settings)
{
    // The FTS5 table keeps the text itself (no external content): deleting a row then needs only
    // its rowid, and rows are written explicitly rather than by triggers, because SQLite 3.40
    // flushes FTS5's pending data at every statement savepoint a trigger opens (measured: half
    // the ingest rate; docs/BENCHMARKS.md).
    return db.exec("CREATE VIRTUAL TABLE fts USING fts5(sp" + fts5Columns(settings) + fts5PrefixOption(settings) + ", "
        + fts5TokenizeOption(settings) + ")");
}

Result<std::unique_ptr<ShardIndex>> openFts5Index(SqliteDb& writer, const IndexSettings& settings)
{
    const auto columns = textColumns(settings.fieldNames());
    std::string placeholders;
    for (std::size_t i = 0; i < columns.size(); ++i)
        placeholders += ", ?" + std::to_string(i + 3);
    auto insert = writer.prepare(
        "INSERT INTO fts(rowid, sp" + joinColumns(columns, "") + ") VALUES (?1, ?2" + placeholders + ")");
    if (!insert)
        return insert.error();
    auto erase = writer.prepare("DELETE FROM fts WHERE rowid = ?1");
    if (!erase)
        return erase.error();
    return std::unique_ptr<ShardIndex>(std::make_unique<Fts5Index>(settings, std::move(*insert), std::move(*erase)));
}

} // namespace shardmap::core
