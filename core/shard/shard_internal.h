#pragma once

// What the files of ShardStore share and nobody else needs: the row conversions, the FTS5 column
// layout, the writer's statements and the refusal an ownership check gives.

#include "core/query/query_compiler.h"
#include "core/shard/shard_store.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shardmap::core::shard_internal {

// SQLite stores signed 64-bit integers; versions and sums are unsigned and round-trip bit for bit.
inline std::int64_t asStored(std::uint64_t value)
{
    return static_cast<std::int64_t>(value);
}
inline std::uint64_t fromStored(std::int64_t value)
{
    return static_cast<std::uint64_t>(value);
}

inline std::string joinColumns(const std::vector<std::string>& columns, std::string_view prefix)
{
    std::string out;
    for (const auto& column : columns)
        out += ", " + std::string(prefix) + column;
    return out;
}

// The FTS5 text columns of a shard: one per schema field, then the catch-all.
inline std::vector<std::string> textColumns(const std::vector<std::string>& fields)
{
    std::vector<std::string> columns;
    for (const auto& field : fields)
        columns.push_back(ftsColumnForField(field));
    columns.emplace_back(kOtherColumn);
    return columns;
}

// A row entering (sign +1) or leaving (-1) a space's aggregates. Unsigned arithmetic wraps
// modulo 2^64, which is what the sums need.
inline void addRow(SpaceStats& delta, bool deleted, std::uint64_t bytes, std::uint64_t term, int sign)
{
    const auto factor = static_cast<std::uint64_t>(static_cast<std::int64_t>(sign));
    delta.checksum += factor * term;
    if (deleted) {
        delta.tombstones += factor;
        return;
    }
    delta.liveDocs += factor;
    delta.bytesEstimate += factor * bytes;
}

// The FailedPrecondition of a write, an ownership change or a drop that the space's ownership on
// this shard refuses, with the details the executor and the router read (shard, space, held_epoch,
// held_role, sent_epoch).
Error ownershipRefusal(const std::string& shard, const Ownership& held, std::uint64_t sentEpoch, std::string why);

// The document of a row selected as "d.id, d.version, d.deleted, f.<text columns>..., d.extra"
// starting at column `first` (the scan and the schema upgrade read rows this way).
Document documentFromRow(const Statement& stmt, const std::vector<std::string>& fields, std::string space, int first);

// The aggregates of the spaces named (empty: every space) as the connection reads them: inside a
// transaction, as of its snapshot (ShardStore::spaceStats, and the backup's consistent point).
Result<std::vector<SpaceStats>> readSpaceStats(SqliteDb& db, const std::vector<std::string>& spaces);

} // namespace shardmap::core::shard_internal

namespace shardmap::core {

// The writer's prepared statements (ShardStore::prepareWriteStatements).
struct ShardStore::WriteStatements {
    Statement lookup;
    Statement insertDoc;
    Statement updateDoc;
    Statement readSpace;
    Statement upsertSpace;
};

// A reader connection borrowed from the store's pool and returned at destruction.
class ShardStore::ReaderLease {
public:
    ReaderLease(ShardStore* store, SqliteDb db)
        : m_store(store)
        , m_db(std::move(db))
    {
    }
    ReaderLease(ReaderLease&& other) noexcept
        : m_store(std::exchange(other.m_store, nullptr))
        , m_db(std::move(other.m_db))
    {
    }
    ReaderLease& operator=(ReaderLease&&) = delete;
    ReaderLease(const ReaderLease&) = delete;
    ReaderLease& operator=(const ReaderLease&) = delete;
    ~ReaderLease()
    {
        if (m_store)
            m_store->releaseReader(std::move(m_db));
    }
    SqliteDb& db() { return m_db; }

private:
    ShardStore* m_store;
    SqliteDb m_db;
};

} // namespace shardmap::core
