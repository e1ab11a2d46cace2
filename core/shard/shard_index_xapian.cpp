// The Xapian index of a shard: XapianEngine (the rows' text and change log in the shard's file, the
// Xapian database beside it, built with the shard's weights, stored-only fields and tokenizer)
// behind the shard's index seam; its hits joined to docs by rowid on a reader connection, and their
// snippets made from the content table's indexed fields (core/shard/snippets.h).

#include "core/query/query_compiler.h"
#include "core/shard/fts5_tokens.h"
#include "core/shard/shard_index.h"
#include "core/shard/shard_internal.h"
#include "core/shard/snippets.h"
#include "core/shard/xapian_engine.h"

#include <algorithm>
#include <mutex>

namespace shardmap::core {

namespace {

using shard_internal::fromStored;
using shard_internal::joinColumns;
using shard_internal::textColumns;

class XapianShardIndex final : public ShardIndex {
public:
    XapianShardIndex(std::unique_ptr<XapianEngine> engine, const IndexSettings& settings)
        : m_engine(std::move(engine))
        , m_fields(settings.fieldNames())
        , m_schema(querySchemaOf(settings))
        , m_settings(settings)
    {
    }

    IndexEngine engine() const override { return IndexEngine::Xapian; }
    const char* textTable() const override { return "content"; }

    Status insert(std::int64_t rowid, const std::string& space, const RowText& text) override
    {
        return m_engine->insert(IndexedRow { rowid, space, text });
    }
    Status remove(std::int64_t rowid) override { return m_engine->remove(rowid); }
    Status committed() override { return m_engine->applyCommitted(); }
    Status checkpoint() override { return m_engine->checkpoint(); }
    std::uint64_t bytesBeside() const override { return m_engine->diskBytes(); }

    Result<SearchResult> search(SqliteDb& reader, const ShardSearchRequest& request) override;

private:
    Result<std::vector<SearchHit>> joinDocs(SqliteDb& reader, const ShardSearchRequest& request,
        const std::vector<IndexedHit>& found, std::vector<std::int64_t>& rowids);
    Status addSnippets(SqliteDb& reader, const QueryNode& query, const std::vector<std::int64_t>& rowids,
        std::vector<SearchHit>& hits);

    std::unique_ptr<XapianEngine> m_engine;
    std::vector<std::string> m_fields;
    QuerySchema m_schema;
    IndexSettings m_settings;
    // Snippets' tokenizer (one instance is not safe for concurrent use).
    std::mutex m_tokensMutex;
    std::unique_ptr<Fts5Tokens> m_tokens;
};

Result<SearchResult> XapianShardIndex::search(SqliteDb& reader, const ShardSearchRequest& request)
{
    // The FTS5 form too: the same query is refused the same way on either engine, and a client
    // sees how the node read it.
    auto compiled = compileQuery(request.query, m_schema);
    if (!compiled)
        return compiled.error();
    auto query = parseQuery(request.query, m_schema);
    if (!query)
        return query.error();
    const std::uint32_t limit = request.limit == 0 ? 20 : request.limit;
    auto found = m_engine->search(request.spaces, *query, request.offset, limit);
    if (!found)
        return found.error();
    std::vector<std::int64_t> rowids;
    auto hits = joinDocs(reader, request, *found, rowids);
    if (!hits)
        return hits.error();
    SearchResult result { std::move(*hits), std::move(*compiled) };
    if (request.snippets) {
        if (auto status = addSnippets(reader, *query, rowids, result.hits); !status)
            return status.error();
    }
    return result;
}

// Each hit's document. The index is applied after the file's commit, so a row it names may be
// gone from the reader's snapshot (a drop or delete committed since): such hits are left out,
// as are rows of spaces the request does not name. `rowids` gets each kept hit's rowid.
Result<std::vector<SearchHit>> XapianShardIndex::joinDocs(SqliteDb& reader, const ShardSearchRequest& request,
    const std::vector<IndexedHit>& found, std::vector<std::int64_t>& rowids)
{
    auto stmt = reader.prepare("SELECT space, id, version FROM docs WHERE rowid = ?1 AND deleted = 0");
    if (!stmt)
        return stmt.error();
    std::vector<SearchHit> hits;
    for (const IndexedHit& hit : found) {
        stmt->bind(1, hit.rowid);
        auto row = stmt->step();
        if (!row)
            return makeError(row.error().code, "search failed: " + row.error().message);
        std::string space = *row ? stmt->columnText(0) : std::string();
        if (*row && std::find(request.spaces.begin(), request.spaces.end(), space) != request.spaces.end()) {
            hits.push_back({ std::move(space), stmt->columnText(1), fromStored(stmt->columnInt(2)), -hit.weight, {} });
            rowids.push_back(hit.rowid);
        }
        stmt->reset();
    }
    return hits;
}

Status XapianShardIndex::addSnippets(
    SqliteDb& reader, const QueryNode& query, const std::vector<std::int64_t>& rowids, std::vector<SearchHit>& hits)
{
    const auto columns = textColumns(m_fields);
    auto stmt = reader.prepare("SELECT " + joinColumns(columns, "").substr(2) + " FROM content WHERE rowid = ?1");
    if (!stmt)
        return stmt.error();
    std::lock_guard lock(m_tokensMutex);
    if (!m_tokens) {
        auto tokens = Fts5Tokens::open(m_settings);
        if (!tokens)
            return tokens.error();
        m_tokens = std::move(*tokens);
    }
    auto phrases = snippetPhrases(query, *m_tokens);
    if (!phrases)
        return phrases.error();
    for (std::size_t h = 0; h < hits.size(); ++h) {
        stmt->bind(1, rowids[h]);
        auto row = stmt->step();
        if (!row)
            return row.error();
        // As FTS5's snippets: the column with the most marked matches wins, none when none has one.
        int best = 0;
        for (std::size_t c = 0; *row && c < columns.size(); ++c) {
            const bool storedOnly = c < m_settings.fields.size() && !m_settings.fields[c].indexed;
            if (storedOnly || stmt->columnIsNull(static_cast<int>(c)))
                continue;
            const std::string field = c < m_fields.size() ? m_fields[c] : std::string(kOtherColumn);
            auto snippet = makeSnippet(stmt->columnText(static_cast<int>(c)), field, *phrases, *m_tokens);
            if (!snippet)
                return snippet.error();
            if (snippet->marks > best) {
                best = snippet->marks;
                hits[h].snippet = std::move(snippet->text);
            }
        }
        stmt->reset();
    }
    return {};
}

} // namespace

Status createXapianTables(SqliteDb& db, const IndexSettings& settings)
{
    return XapianEngine::createTables(db, settings.fieldNames());
}

// The index's options from the shard's settings: each field's weight and whether it is indexed
// (the catch-all: weight 1, indexed), and the tokenizer.
XapianEngineOptions xapianOptionsFor(const IndexSettings& settings)
{
    XapianEngineOptions options;
    for (const IndexField& field : settings.fields) {
        options.index.columnWeights.push_back(field.weight);
        options.index.columnIndexed.push_back(field.indexed);
    }
    options.index.columnWeights.push_back(1.0);
    options.index.columnIndexed.push_back(true);
    options.index.tokenizer = settings;
    return options;
}

Result<std::unique_ptr<ShardIndex>> openXapianIndex(
    SqliteDb& writer, const std::string& shardPath, const IndexSettings& settings)
{
    auto engine
        = XapianEngine::open(writer, xapianIndexPath(shardPath), settings.fieldNames(), xapianOptionsFor(settings));
    if (!engine)
        return engine.error();
    return std::unique_ptr<ShardIndex>(std::make_unique<XapianShardIndex>(std::move(*engine), settings));
}

std::string xapianIndexPath(const std::string& shardPath)
{
    return shardPath + ".xapian";
}

} // namespace shardmap::core
