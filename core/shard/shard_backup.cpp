// ShardStore::backupTo: SQLite's online backup from a pooled reader that holds one read
// transaction for the whole copy (its consistent point), in small steps with a pause between them;
// and ShardStore::relabel, which names a restored copy.
#include "core/shard/shard_internal.h"
#include "core/util/validation.h"

#include <sqlite3.h>
#include <thread>

namespace shardmap::core {

namespace {

// Ends the read transaction however the copy ends, so the reader goes back to the pool clean.
class ReadTransaction {
public:
    explicit ReadTransaction(SqliteDb& db)
        : m_db(db)
    {
    }
    ~ReadTransaction()
    {
        if (m_open)
            (void)m_db.exec("COMMIT");
    }
    ReadTransaction(const ReadTransaction&) = delete;
    ReadTransaction& operator=(const ReadTransaction&) = delete;
    Status begin()
    {
        auto begun = m_db.exec("BEGIN");
        m_open = static_cast<bool>(begun);
        return begun;
    }

private:
    SqliteDb& m_db;
    bool m_open = false;
};

// Steps the backup to its end: BUSY and LOCKED (the destination's) are retried after the pause.
Status stepBackup(sqlite3_backup* backup, sqlite3* destination, const BackupPace& pace)
{
    while (true) {
        const int rc = sqlite3_backup_step(backup, pace.pagesPerStep > 0 ? pace.pagesPerStep : -1);
        if (rc == SQLITE_DONE)
            return {};
        if (rc != SQLITE_OK && rc != SQLITE_BUSY && rc != SQLITE_LOCKED)
            return sqliteError(destination, rc, "copying the shard's pages");
        if (pace.stop && pace.stop())
            return makeError(ErrorCode::Cancelled, "the shard's copy was stopped");
        if (pace.pause.count() > 0 && (!pace.busy || pace.busy()))
            std::this_thread::sleep_for(pace.pause);
    }
}

} // namespace

Result<ShardBackup> ShardStore::backupTo(const std::string& path, const BackupPace& pace)
{
    auto lease = acquireReader();
    if (!lease)
        return lease.error();
    ReadTransaction transaction(lease->db());
    if (auto begun = transaction.begin(); !begun)
        return begun.error();
    // The first read fixes the transaction's snapshot: the aggregates and every page copied below
    // are of the same point, whatever the writer commits meanwhile.
    auto spaces = shard_internal::readSpaceStats(lease->db(), {});
    if (!spaces)
        return spaces.error();
    auto destination = SqliteDb::open(path, { .readOnly = false, .create = true, .busyTimeoutMs = 5000 });
    if (!destination)
        return destination.error();
    // A temporary file that is fsynced whole once done: no journal and no sync per step (a
    // journal would double the writes, a sync per step stall every step on the disk).
    if (auto fast = destination->exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF"); !fast)
        return fast.error();
    sqlite3_backup* backup = sqlite3_backup_init(destination->handle(), "main", lease->db().handle(), "main");
    if (!backup)
        return sqliteError(destination->handle(), sqlite3_errcode(destination->handle()), "starting the copy");
    Status stepped = stepBackup(backup, destination->handle(), pace);
    ShardBackup out { std::move(*spaces), static_cast<std::uint64_t>(sqlite3_backup_pagecount(backup)) };
    const int finished = sqlite3_backup_finish(backup);
    if (!stepped)
        return stepped.error();
    if (finished != SQLITE_OK)
        return sqliteError(destination->handle(), finished, "finishing the copy");
    return out;
}

Status ShardStore::relabel(const std::string& path, const std::string& shardId)
{
    if (auto valid = validateShardId(shardId); !valid)
        return valid;
    auto db = SqliteDb::open(path, { .readOnly = false, .create = false, .busyTimeoutMs = 5000 });
    if (!db)
        return db.error();
    // validateShardId allows only [A-Za-z0-9._-]: nothing to quote.
    return db->exec("UPDATE meta SET value = '" + shardId + "' WHERE key = 'shard_id'");
}

} // namespace shardmap::core
