#include "core/shard/shard_index.h"
#include "core/shard/shard_internal.h"
#include "core/util/validation.h"

#include <algorithm>
#include <nlohmann/json.hpp>

// The read half of ShardStore: rows as documents, scans and the spaces' aggregates, each on a
// pooled reader connection (searches are the index's: shard_store_search.cpp).
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

Result<std::vector<SpaceStats>> readSpaceStats(SqliteDb& db, const std::vector<std::string>& spaces)
{
    const bool all = spaces.empty();
    auto stmt = db.prepare(all ? "SELECT space, live, bytes, checksum, tombstones FROM spaces ORDER BY space"
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

} // namespace shardmap::core::shard_internal

namespace shardmap::core {

using namespace shard_internal;

Result<ScanPage> ShardStore::scan(
    const std::string& space, const std::string& afterId, std::uint32_t batchSize, bool includeTombstones)
{
    if (auto status = validateSpaceId(space); !status)
        return status.error();
    const std::uint32_t limit = batchSize == 0 ? 500 : std::min(batchSize, kMaxScanBatch);
    const auto columns = textColumns(m_fields);
    const std::string sql = "SELECT d.id, d.version, d.deleted" + joinColumns(columns, "f.")
        + ", d.extra FROM docs d"
          " LEFT JOIN "
        + std::string(m_index->textTable()) + " f ON f.rowid = d.rowid WHERE d.space = ?1 AND d.id > ?2"
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
    return shard_internal::readSpaceStats(lease->db(), spaces);
}

Result<std::vector<FieldUse>> ShardStore::fieldUsage(const std::vector<std::string>& fields)
{
    auto lease = acquireReader();
    if (!lease)
        return lease.error();
    std::vector<FieldUse> out;
    for (const auto& field : fields) {
        if (std::find(m_fields.begin(), m_fields.end(), field) == m_fields.end())
            continue;
        auto stmt = lease->db().prepare("SELECT d.space, COUNT(*) FROM docs d JOIN " + std::string(m_index->textTable())
            + " f ON f.rowid = d.rowid WHERE d.deleted = 0 AND f." + ftsColumnForField(field)
            + " <> '' GROUP BY d.space ORDER BY d.space");
        if (!stmt)
            return stmt.error();
        while (true) {
            auto row = stmt->step();
            if (!row)
                return row.error();
            if (!*row)
                break;
            out.push_back({ stmt->columnText(0), field, fromStored(stmt->columnInt(1)) });
        }
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
