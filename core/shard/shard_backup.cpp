// ShardStore::backupTo: a copy from a pooled reader that holds one read transaction for the whole
// copy (its consistent point), in small steps with a pause between them: the file's bytes when the
// transaction reads the file alone, else SQLite's online backup; and ShardStore::relabel, which
// names a restored copy.
#include "core/shard/shard_internal.h"
#include "core/util/validation.h"

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

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

// Between two steps of a copy: Cancelled when asked to stop, else the pause while the node writes.
Status paceStep(const BackupPace& pace)
{
    if (pace.stop && pace.stop())
        return makeError(ErrorCode::Cancelled, "the shard's copy was stopped");
    if (pace.pause.count() > 0 && (!pace.busy || pace.busy()))
        std::this_thread::sleep_for(pace.pause);
    return {};
}

// Steps the backup to its end: BUSY and LOCKED (the destination's) are retried after the pause.
Status stepBackup(sqlite3_backup* backup, sqlite3* destination, const BackupPace& pace)
{
    while (true) {
        const int rc = sqlite3_backup_step(backup, pace.pagesPerStep > 0 ? pace.pagesPerStep : -1);
        if (rc == SQLITE_DONE)
            return {};
        if (rc != SQLITE_OK && rc != SQLITE_BUSY && rc != SQLITE_LOCKED)
            return sqliteError(destination, rc, "copying the shard's pages");
        if (auto paced = paceStep(pace); !paced)
            return paced;
    }
}

class OwnedFd {
public:
    explicit OwnedFd(int fd)
        : m_fd(fd)
    {
    }
    ~OwnedFd()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    OwnedFd(const OwnedFd&) = delete;
    OwnedFd& operator=(const OwnedFd&) = delete;
    int get() const { return m_fd; }

private:
    int m_fd;
};

bool sameFileState(const struct stat& before, const struct stat& after)
{
    return before.st_size == after.st_size && before.st_mtim.tv_sec == after.st_mtim.tv_sec
        && before.st_mtim.tv_nsec == after.st_mtim.tv_nsec;
}

Status writeWhole(int fd, const char* data, std::size_t size, const std::string& path)
{
    while (size > 0) {
        const ssize_t put = ::write(fd, data, size);
        if (put < 0 && errno == EINTR)
            continue;
        if (put < 0)
            return fileError(errno, "cannot write", path);
        data += put;
        size -= static_cast<std::size_t>(put);
    }
    return {};
}

// The shard's file copied to path as bytes, hashed as they are written, in steps of the pace's
// pages. Aborted when the file changed meanwhile (size or modification time): the caller copies
// through SQLite instead.
Result<FileDigest> copyQuietShardFile(const std::string& from, const std::string& path, const BackupPace& pace)
{
    OwnedFd in(::open(from.c_str(), O_RDONLY | O_CLOEXEC));
    struct stat before { };
    if (in.get() < 0 || ::fstat(in.get(), &before) != 0)
        return fileError(errno, "cannot open", from);
    OwnedFd out(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    if (out.get() < 0)
        return fileError(errno, "cannot create", path);
    FileHasher hasher;
    off_t offset = 0;
    off_t flushed = 0;
    constexpr off_t kWritebackBytes = 8 << 20;
    std::vector<char> buffer(pace.pagesPerStep > 0 ? static_cast<std::size_t>(pace.pagesPerStep) * 4096 : 4u << 20);
    while (true) {
        const ssize_t got = ::read(in.get(), buffer.data(), buffer.size());
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return fileError(errno, "cannot read", from);
        if (got == 0)
            break;
        if (auto written = writeWhole(out.get(), buffer.data(), static_cast<std::size_t>(got), path); !written)
            return written.error();
        hasher.update(buffer.data(), static_cast<std::size_t>(got));
        // Start the disk's writeback of what was just written, so that the caller's fsync at the
        // end waits for the last steps only, not the whole file.
        offset += got;
        if (offset - flushed >= kWritebackBytes) {
            (void)::sync_file_range(out.get(), flushed, offset - flushed, SYNC_FILE_RANGE_WRITE);
            flushed = offset;
        }
        if (auto paced = paceStep(pace); !paced)
            return paced.error();
    }
    struct stat after { };
    if (::fstat(in.get(), &after) != 0 || !sameFileState(before, after))
        return makeError(ErrorCode::Aborted, "the shard's file changed while it was copied", from);
    return hasher.finish();
}

} // namespace

bool ShardStore::readFromFileAlone(SqliteDb& reader)
{
    std::lock_guard write(m_writeMutex);
    int logFrames = -1;
    int checkpointed = -1;
    const int rc
        = sqlite3_wal_checkpoint_v2(m_writer.handle(), "main", SQLITE_CHECKPOINT_PASSIVE, &logFrames, &checkpointed);
    // Every frame in the file and no writer until the first read below: that read takes the
    // snapshot of the file alone (SQLite's read mark 0), which blocks any later checkpoint from
    // writing into the file until the transaction ends.
    const bool alone = rc == SQLITE_OK && logFrames >= 0 && logFrames == checkpointed;
    return reader.exec("SELECT count(*) FROM meta") && alone;
}

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
    const bool fileAlone = readFromFileAlone(lease->db());
    auto spaces = shard_internal::readSpaceStats(lease->db(), {});
    if (!spaces)
        return spaces.error();
    if (fileAlone) {
        auto copied = copyQuietShardFile(m_path, path, pace);
        if (copied)
            return ShardBackup { std::move(*spaces), std::move(*copied) };
        if (copied.error().code != ErrorCode::Aborted)
            return copied.error();
        (void)std::remove(path.c_str());
    }
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
    ShardBackup out { std::move(*spaces), std::nullopt };
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
