// ShardStore's full-text index, FTS5 in the shard's own file: the text a write puts in it and
// takes out of it, and the searches it answers (ranked in FTS5, joined to docs, with snippets).

#include "core/shard/shard_internal.h"
#include "core/util/validation.h"

#include <chrono>

namespace shardmap::core {

using namespace shard_internal;

namespace {

int countMarks(const std::string& snippet)
{
    int marks = 0;
    for (std::size_t at = snippet.find("[["); at != std::string::npos; at = snippet.find("[[", at + 2))
        ++marks;
    return marks;
}

Status validateSearchRequest(const ShardSearchRequest& request)
{
    if (request.spaces.empty())
        return makeError(ErrorCode::InvalidArgument, "a search names at least one space");
    if (request.spaces.size() > kMaxSearchSpaces)
        return makeError(
            ErrorCode::InvalidArgument, "a search names at most " + std::to_string(kMaxSearchSpaces) + " spaces");
    for (const auto& space : request.spaces) {
        if (auto status = validateSpaceId(space); !status)
            return status;
    }
    if (request.limit > kMaxSearchLimit)
        return makeError(ErrorCode::InvalidArgument, "limit is at most " + std::to_string(kMaxSearchLimit));
    return {};
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

// ?1 the MATCH, ?2 how many to rank, ?3 the page's limit, ?4 its offset, ?5... the spaces.
std::string rankedSearchSql(std::size_t textColumnCount, std::size_t spaceCount)
{
    std::string weights = "0";
    for (std::size_t i = 0; i < textColumnCount; ++i)
        weights += ", 1";
    std::string placeholders;
    for (std::size_t i = 0; i < spaceCount; ++i)
        placeholders += (i ? ", ?" : "?") + std::to_string(i + 5);
    // Rank inside FTS5 first and join only the winners to docs: joining every match before
    // ranking costs one random docs lookup per match (3x slower on large spaces, BENCHMARKS.md).
    // The space token already scopes the match; the IN check guards against token collisions.
    return "SELECT d.space, d.id, d.version, m.score, m.rowid FROM (SELECT rowid, bm25(fts, " + weights
        + ") AS score FROM fts WHERE fts MATCH ?1 ORDER BY score LIMIT ?2) AS m JOIN docs d ON d.rowid = m.rowid"
          " WHERE d.space IN ("
        + placeholders + ") ORDER BY m.score LIMIT ?3 OFFSET ?4";
}

} // namespace

Status ShardStore::indexText(
    std::int64_t rowid, const std::string& space, const std::vector<std::optional<std::string>>& text)
{
    auto& insert = m_stmts->ftsInsert;
    insert.bind(1, rowid).bind(2, spaceToken(space));
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i])
            insert.bind(static_cast<int>(i) + 3, *text[i]);
        else
            insert.bindNull(static_cast<int>(i) + 3);
    }
    return insert.run();
}

Status ShardStore::unindexText(std::int64_t rowid)
{
    return m_stmts->ftsDelete.bind(1, rowid).run();
}

Result<SearchResult> ShardStore::search(const ShardSearchRequest& request)
{
    const auto started = std::chrono::steady_clock::now();
    if (auto status = validateSearchRequest(request); !status)
        return status.error();
    auto compiled = compileQuery(request.query, QuerySchema { m_fields });
    if (!compiled)
        return compiled.error();
    const std::string match = spaceScopedMatch(request.spaces, *compiled);
    auto lease = acquireReader();
    if (!lease)
        return lease.error();
    std::vector<std::int64_t> rowids;
    auto result = rankedHits(lease->db(), request, match, rowids);
    if (!result)
        return result.error();
    if (request.snippets) {
        if (auto status = addSnippets(lease->db(), match, rowids, result->hits); !status)
            return status.error();
    }
    const std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - started;
    recordSearch(request, elapsed.count());
    return result;
}

// The page of hits the request asks for, best first, and each hit's FTS rowid (for its snippet).
Result<SearchResult> ShardStore::rankedHits(
    SqliteDb& db, const ShardSearchRequest& request, const std::string& match, std::vector<std::int64_t>& rowids)
{
    auto stmt = db.prepare(rankedSearchSql(textColumns(m_fields).size(), request.spaces.size()));
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
            return makeError(row.error().code, "search failed: " + row.error().message, m_id);
        if (!*row)
            return result;
        result.hits.push_back(
            { stmt->columnText(0), stmt->columnText(1), fromStored(stmt->columnInt(2)), stmt->columnDouble(3), {} });
        rowids.push_back(stmt->columnInt(4));
    }
}

Status ShardStore::addSnippets(
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
            if (countMarks(candidate) > countMarks(hits[h].snippet))
                hits[h].snippet = std::move(candidate);
        }
        stmt->reset();
    }
    return {};
}

void ShardStore::recordSearch(const ShardSearchRequest& request, double elapsedMs)
{
    m_tickLatency.record(elapsedMs);
    m_historyLatency.record(elapsedMs);
    std::lock_guard lock(m_activityMutex);
    m_activity.queries += 1;
    for (const auto& space : request.spaces)
        m_activity.spaces[space].queries += 1;
}

} // namespace shardmap::core
