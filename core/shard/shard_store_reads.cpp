#include "core/shard/shard_internal.h"
#include "core/util/validation.h"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

// The read half of ShardStore: search, scan and aggregates, each on a pooled reader connection.
namespace shardmap::core::shard_internal {

Document documentFromRow(const Statement& stmt, const std::vector<std::string>& fields, std::string space, int first)
{
    Document doc { std::move(space), stmt.columnText(first), fromStored(stmt.columnInt(first + 1)), {},
        stmt.columnInt(first + 2) != 0 };
    for (std::size_t i = 0; !doc.deleted && i < fields.size(); ++i) {
        const int column = first + 3 + static_cast<int>(i);
        if (!stmt.columnIsNull(column))
            doc.fields[fields[i]] = stmt.columnText(column);
    }
    // After the schema fields' columns: the catch-all column, then extra.
    const int extraColumn = first + 3 + static_cast<int>(fields.size()) + 1;
    if (!doc.deleted && !stmt.columnIsNull(extraColumn)) {
        const auto extra = nlohmann::json::parse(stmt.columnText(extraColumn), nullptr, false);
        for (const auto& [name, value] : extra.items())
            doc.fields[name] = value.get<std::string>();
    }
    return doc;
}

} // namespace shardmap::core::shard_internal

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

} // namespace

Result<SearchResult> ShardStore::search(const ShardSearchRequest& request)
{
    const auto started = std::chrono::steady_clock::now();
    if (request.spaces.empty())
        return makeError(ErrorCode::InvalidArgument, "a search names at least one space");
    if (request.spaces.size() > kMaxSearchSpaces)
        return makeError(
            ErrorCode::InvalidArgument, "a search names at most " + std::to_string(kMaxSearchSpaces) + " spaces");
    for (const auto& space : request.spaces) {
        if (auto status = validateSpaceId(space); !status)
            return status.error();
    }
    if (request.limit > kMaxSearchLimit)
        return makeError(ErrorCode::InvalidArgument, "limit is at most " + std::to_string(kMaxSearchLimit));
    auto compiled = compileQuery(request.query, QuerySchema { m_fields });
    if (!compiled)
        return compiled.error();

    std::string spaceFilter;
    for (const auto& space : request.spaces) {
        // Appended piece by piece: GCC 12 reports a bogus -Wrestrict for "\"" + std::string&&.
        spaceFilter.append(spaceFilter.empty() ? "\"" : " OR \"").append(spaceToken(space)).append("\"");
    }
    const std::string match = "sp : (" + spaceFilter + ") AND " + *compiled;
    const auto columns = textColumns(m_fields);
    std::string weights = "0";
    for (std::size_t i = 0; i < columns.size(); ++i)
        weights += ", 1";
    std::string placeholders;
    for (std::size_t i = 0; i < request.spaces.size(); ++i)
        placeholders += (i ? ", ?" : "?") + std::to_string(i + 5);
    // Rank inside FTS5 first and join only the winners to docs: joining every match before
    // ranking costs one random docs lookup per match (3x slower on large spaces, BENCHMARKS.md).
    // The space token already scopes the match; the IN check guards against token collisions.
    const std::string sql = "SELECT d.space, d.id, d.version, m.score, m.rowid FROM (SELECT rowid, bm25(fts, " + weights
        + ") AS score FROM fts WHERE fts MATCH ?1 ORDER BY score LIMIT ?2) AS m JOIN docs d ON d.rowid = m.rowid"
          " WHERE d.space IN ("
        + placeholders + ") ORDER BY m.score LIMIT ?3 OFFSET ?4";

    auto lease = acquireReader();
    if (!lease)
        return lease.error();
    auto stmt = lease->db().prepare(sql);
    if (!stmt)
        return stmt.error();
    const std::int64_t limit = request.limit == 0 ? 20 : request.limit;
    stmt->bind(1, match).bind(2, limit + std::int64_t { request.offset }).bind(3, limit);
    stmt->bind(4, std::int64_t { request.offset });
    for (std::size_t i = 0; i < request.spaces.size(); ++i)
        stmt->bind(static_cast<int>(i) + 5, request.spaces[i]);
    SearchResult result;
    result.compiledQuery = match;
    std::vector<std::int64_t> rowids;
    while (true) {
        auto row = stmt->step();
        if (!row)
            return makeError(row.error().code, "search failed: " + row.error().message, m_id);
        if (!*row)
            break;
        result.hits.push_back(
            { stmt->columnText(0), stmt->columnText(1), fromStored(stmt->columnInt(2)), stmt->columnDouble(3), {} });
        rowids.push_back(stmt->columnInt(4));
    }
    if (request.snippets) {
        if (auto status = addSnippets(lease->db(), match, rowids, result.hits); !status)
            return status.error();
    }
    const std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - started;
    m_tickLatency.record(elapsed.count());
    m_historyLatency.record(elapsed.count());
    std::lock_guard lock(m_activityMutex);
    m_activity.queries += 1;
    for (const auto& space : request.spaces)
        m_activity.spaces[space].queries += 1;
    return result;
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

Result<ScanPage> ShardStore::scan(
    const std::string& space, const std::string& afterId, std::uint32_t batchSize, bool includeTombstones)
{
    if (auto status = validateSpaceId(space); !status)
        return status.error();
    const std::uint32_t limit = batchSize == 0 ? 500 : std::min(batchSize, kMaxScanBatch);
    const auto columns = textColumns(m_fields);
    const std::string sql = "SELECT d.id, d.version, d.deleted" + joinColumns(columns, "f.")
        + ", d.extra FROM docs d"
          " LEFT JOIN fts f ON f.rowid = d.rowid WHERE d.space = ?1 AND d.id > ?2"
        + (includeTombstones ? "" : " AND d.deleted = 0") + " ORDER BY d.id LIMIT ?3";
    auto lease = acquireReader();
    if (!lease)
        return lease.error();
    auto stmt = lease->db().prepare(sql);
    if (!stmt)
        return stmt.error();
    stmt->bind(1, space).bind(2, afterId).bind(3, std::int64_t { limit });
    ScanPage page;
    while (true) {
        auto row = stmt->step();
        if (!row)
            return row.error();
        if (!*row)
            break;
        page.docs.push_back(documentFromRow(*stmt, m_fields, space, 0));
    }
    page.done = page.docs.size() < limit;
    page.cursor = page.docs.empty() ? afterId : page.docs.back().id;
    return page;
}

Result<std::vector<SpaceStats>> ShardStore::spaceStats(const std::vector<std::string>& spaces)
{
    auto lease = acquireReader();
    if (!lease)
        return lease.error();
    const bool all = spaces.empty();
    auto stmt
        = lease->db().prepare(all ? "SELECT space, live, bytes, checksum, tombstones FROM spaces ORDER BY space"
                                  : "SELECT space, live, bytes, checksum, tombstones FROM spaces WHERE space = ?1");
    if (!stmt)
        return stmt.error();
    std::vector<SpaceStats> out;
    const std::vector<std::string> keys = all ? std::vector<std::string> { std::string() } : spaces;
    for (const auto& space : keys) {
        if (!all) {
            if (auto status = validateSpaceId(space); !status)
                return status.error();
            stmt->bind(1, space);
        }
        bool found = false;
        while (true) {
            auto row = stmt->step();
            if (!row)
                return row.error();
            if (!*row)
                break;
            found = true;
            out.push_back({ stmt->columnText(0), fromStored(stmt->columnInt(1)), fromStored(stmt->columnInt(2)),
                fromStored(stmt->columnInt(3)), fromStored(stmt->columnInt(4)) });
        }
        stmt->reset();
        if (!all && !found)
            out.push_back({ space, 0, 0, 0, 0 });
    }
    return out;
}

Result<ShardTotals> ShardStore::totals()
{
    auto lease = acquireReader();
    if (!lease)
        return lease.error();
    auto stmt = lease->db().prepare("SELECT COALESCE(SUM(live), 0), COALESCE(SUM(tombstones), 0), COUNT(*),"
                                    " COALESCE(SUM(bytes), 0) FROM spaces WHERE live > 0 OR tombstones > 0");
    if (!stmt)
        return stmt.error();
    auto row = stmt->step();
    if (!row)
        return row.error();
    return ShardTotals { fromStored(stmt->columnInt(0)), fromStored(stmt->columnInt(1)), fromStored(stmt->columnInt(2)),
        fromStored(stmt->columnInt(3)) };
}

Result<std::uint64_t> ShardStore::countSpaceRows(const std::string& space)
{
    auto stats = spaceStats({ space });
    if (!stats)
        return stats.error();
    return stats->front().liveDocs + stats->front().tombstones;
}

} // namespace shardmap::core
