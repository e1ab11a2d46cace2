#pragma once

// Helpers shared by the write and read halves of ShardStore; not part of the public API.

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

// The document of a row selected as "d.id, d.version, d.deleted, f.<text columns>..., d.extra"
// starting at column `first` (the scan and the schema upgrade read rows this way).
Document documentFromRow(const Statement& stmt, const std::vector<std::string>& fields, std::string space, int first);

} // namespace shardmap::core::shard_internal

namespace shardmap::core {

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
