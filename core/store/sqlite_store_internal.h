#pragma once

// What the files of SqliteStore share and nobody else needs: the writer's statements, the commit
// signal its watches wait on, a lease's row, the two kinds of transaction and the row conversions.

#include "core/store/sqlite_store.h"

#include <algorithm>
#include <climits>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace shardmap::core {

namespace sqlite_store_internal {

// SQLite integers are signed; revisions and tokens never come near 2^63, so clamp rather than wrap.
// (Named apart from shard_internal's bit-for-bit asStored, whose rule is not this one.)
inline std::int64_t toSqliteInteger(std::uint64_t value)
{
    return static_cast<std::int64_t>(std::min<std::uint64_t>(value, INT64_MAX));
}
inline std::uint64_t fromSqliteInteger(std::int64_t value)
{
    return value < 0 ? 0 : static_cast<std::uint64_t>(value);
}
// SQLITE_BUSY past the busy timeout is the one error a person can do something about.
inline Error lockedError(Error error)
{
    if (error.code == ErrorCode::Unavailable)
        error.message = "store is locked by another process (" + error.message + ")";
    return error;
}

// The revision in the meta table, read through db (the writer or a reader in its transaction).
Result<std::uint64_t> readRevisionFrom(SqliteDb& db);
// Audit records after `from` up to `to` (0: no bound), at most `limit` (0: no limit), in one
// statement, so one read transaction even outside an explicit one (sqlite_store_audit.cpp).
Result<std::vector<AuditRecord>> readHistory(SqliteDb& db, std::uint64_t from, std::uint64_t to, std::size_t limit);
// A refused lease or fence, with the lease's current holder and token in its details
// (sqlite_store_leases.cpp).
Error leaseError(std::string message, const std::string& holder, std::uint64_t token);

} // namespace sqlite_store_internal

// Commits through one store wake its watches at once; commits by other connections are found by
// polling PRAGMA data_version.
struct SqliteStore::CommitSignal {
    std::mutex mutex;
    std::condition_variable changed;
    std::uint64_t commits = 0;
    bool closed = false;
};

struct SqliteStore::WriteStatements {
    Statement readRecord;
    Statement upsertRecord;
    Statement deleteRecord;
    Statement insertAudit;
    Statement readAuditHash;
    Statement setRevision;
    Statement readLease;
    Statement writeLease;
    Statement prunePresence;
};

struct SqliteStore::LeaseRow {
    std::string holder;
    std::uint64_t token = 0;
    std::int64_t expiresUnixMs = 0;
};

// Runs body inside one read transaction: every statement in it sees the same revision.
template <typename T, typename Body> Result<T> SqliteStore::readTransaction(Body body)
{
    auto db = takeReader();
    if (!db)
        return sqlite_store_internal::lockedError(db.error());
    auto begun = db->exec("BEGIN");
    Result<T> result = begun ? body(*db) : Result<T>(begun.error());
    // A connection whose transaction did not end cleanly is dropped, not pooled.
    if (db->exec("COMMIT"))
        returnReader(std::move(*db));
    if (!result)
        return sqlite_store_internal::lockedError(result.error());
    return result;
}

// Runs body inside BEGIN IMMEDIATE: the write lock is taken up front, so the reads body bases its
// decision on cannot be overtaken by another writer before COMMIT.
template <typename T, typename Body> Result<T> SqliteStore::writeTransaction(Body body)
{
    std::lock_guard lock(m_writeMutex);
    if (auto status = m_writer.exec("BEGIN IMMEDIATE"); !status)
        return sqlite_store_internal::lockedError(status.error());
    Result<T> result = body();
    if (result) {
        if (auto status = m_writer.exec("COMMIT"); !status)
            result = Result<T>(status.error());
    }
    if (!result) {
        (void)m_writer.exec("ROLLBACK");
        return sqlite_store_internal::lockedError(result.error());
    }
    return result;
}

} // namespace shardmap::core
