#include "core/store/sqlite_store.h"

#include "core/store/audit_chain.h"
#include "core/store/lease_names.h"
#include "core/store/store_rules.h"
#include "core/util/clock.h"
#include "core/util/failpoint.h"
#include "core/util/validation.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sqlite3.h>
#include <thread>
#include <unistd.h>
#include <utility>

namespace shardmap::core {

namespace {

using store_rules::conflictError;
using store_rules::describeLease;
using store_rules::expectationProblem;
using store_rules::inQuotes;
using store_rules::joined;
using store_rules::validateLease;

constexpr std::string_view kSqliteMagic = "shardmap-store";
// Audit records a watch reads per read transaction; it delivers them after the transaction
// ends so that a slow callback does not pin a WAL snapshot.
constexpr std::size_t kWatchBatch = 256;
using store_rules::kConflictKeysNamed;
using store_rules::kConflictScanRecords;

constexpr std::string_view kReadRevisionSql = "SELECT value FROM meta WHERE key = 'revision'";
constexpr std::string_view kReadVersionSql = "SELECT value FROM meta WHERE key = 'schema_version'";
constexpr std::string_view kHistorySql
    = "SELECT revision, unix_ms, actor, action, reason, changes, hash FROM audit"
      " WHERE revision > ?1 AND (?2 = 0 OR revision <= ?2) ORDER BY revision LIMIT ?3";
constexpr std::string_view kListSql = "SELECT key, value, create_revision, mod_revision FROM records"
                                      " WHERE key >= ?1 AND (?2 IS NULL OR key < ?2) ORDER BY key";

std::string schemaSql()
{
    return "CREATE TABLE meta(key TEXT PRIMARY KEY, value NOT NULL) WITHOUT ROWID;"
           "CREATE TABLE records(key TEXT PRIMARY KEY, value TEXT NOT NULL, create_revision INTEGER NOT NULL,"
           " mod_revision INTEGER NOT NULL) WITHOUT ROWID;"
           "CREATE TABLE audit(revision INTEGER PRIMARY KEY, unix_ms INTEGER NOT NULL, actor TEXT NOT NULL,"
           " action TEXT NOT NULL, reason TEXT NOT NULL, changes TEXT NOT NULL, hash TEXT);"
           "CREATE TABLE leases(name TEXT PRIMARY KEY, holder TEXT NOT NULL, token INTEGER NOT NULL,"
           " expires_unix_ms INTEGER NOT NULL) WITHOUT ROWID;"
           "INSERT INTO meta(key, value) VALUES ('magic', '"
        + std::string(kSqliteMagic) + "'), ('schema_version', " + std::to_string(SqliteStore::kSchemaVersion)
        + "), ('revision', 0);";
}

// SQLite integers are signed; revisions and tokens never come near 2^63, so clamp rather than wrap.
std::int64_t asStored(std::uint64_t value)
{
    return static_cast<std::int64_t>(std::min<std::uint64_t>(value, INT64_MAX));
}
std::uint64_t fromStored(std::int64_t value)
{
    return value < 0 ? 0 : static_cast<std::uint64_t>(value);
}
// SQLITE_BUSY past the busy timeout is the one error a person can do something about.
Error lockedError(Error error)
{
    if (error.code == ErrorCode::Unavailable)
        error.message = "store is locked by another process (" + error.message + ")";
    return error;
}

Error notAStore(const std::string& path, const std::string& why)
{
    return makeError(ErrorCode::FailedPrecondition, path + " is not a Shardmap store (" + why + ")");
}

Error readOnlyError(const std::string& what)
{
    return makeError(ErrorCode::FailedPrecondition,
        what
            + " is read-only (or not writable by this user); the store needs to write its file and the -wal"
              " and -shm files beside it");
}

std::filesystem::path directoryOf(const std::string& path)
{
    const auto parent = std::filesystem::path(path).parent_path();
    return parent.empty() ? std::filesystem::path(".") : parent;
}

// Refuses what SQLite would get wrong or half-do: a read-only file opens silently read-only, and
// a WAL database in a read-only directory fails only at the first read.
Status checkLocation(const std::string& path, bool create)
{
    std::error_code ignored;
    const auto status = std::filesystem::status(path, ignored);
    const bool exists = std::filesystem::exists(status);
    if (exists && std::filesystem::is_directory(status))
        return notAStore(path, "it is a directory");
    if (!exists && !create)
        return makeError(ErrorCode::NotFound, "no Shardmap store at " + path + " (run `shardmapctl init`)");
    const auto directory = directoryOf(path);
    if (!std::filesystem::is_directory(directory, ignored))
        return makeError(
            ErrorCode::NotFound, "no Shardmap store at " + path + ": " + directory.string() + " is not a directory");
    if (exists && ::access(path.c_str(), W_OK) != 0)
        return readOnlyError(path);
    if (::access(directory.c_str(), W_OK) != 0)
        return readOnlyError("directory " + directory.string());
    return {};
}

// Creates an empty file (a valid empty SQLite database) if there is none; true when this call
// created it, so that a failed open can remove it again. 0600 whatever the umask: the map and its
// audit are the service account's alone, and SQLite gives the -wal and -shm files this mode too.
Result<bool> createIfMissing(const std::string& path, bool create)
{
    if (!create)
        return false;
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
        ::close(fd);
        return true;
    }
    if (errno == EEXIST)
        return false;
    if (errno == EACCES || errno == EROFS || errno == EPERM)
        return readOnlyError("directory " + directoryOf(path).string());
    return makeError(ErrorCode::Internal, "cannot create " + path + ": " + std::strerror(errno));
}

// Undoes createIfMissing after a failed open, unless another opener has written to the file.
void removeIfStillEmpty(const std::string& path)
{
    std::error_code error;
    if (std::filesystem::file_size(path, error) != 0 || error || std::filesystem::exists(path + "-wal", error))
        return;
    for (const char* suffix : { "", "-shm", "-journal" })
        std::filesystem::remove(path + suffix, error);
}

// Counts tables with the raw API: the result code tells "not a database" from everything else.
Result<std::int64_t> countTables(SqliteDb& db)
{
    std::int64_t count = 0;
    const auto readCount = [](void* out, int, char** values, char**) {
        *static_cast<std::int64_t*>(out) = std::strtoll(values[0], nullptr, 10);
        return 0;
    };
    const int rc = sqlite3_exec(db.handle(), "SELECT count(*) FROM sqlite_master", readCount, &count, nullptr);
    if ((rc & 0xFF) == SQLITE_NOTADB)
        return notAStore(db.path(), "not an SQLite database");
    if (rc != SQLITE_OK)
        return lockedError(sqliteError(db.handle(), rc, "reading " + db.path()));
    return count;
}

// Moves the schema from version `from` to from + 1; a new schema version adds a case here.
Status upgradeStep(SqliteDb& db, std::int64_t from)
{
    switch (from) {
    // 2: the audit's hash chain (core/store/audit_chain.h). The records written before keep no
    // hash; the first one written after links to the anchor.
    case 1: return db.exec("ALTER TABLE audit ADD COLUMN hash TEXT");
    default: return makeError(ErrorCode::Internal, "no upgrade from store schema version " + std::to_string(from));
    }
}

Result<std::uint64_t> readRevisionFrom(SqliteDb& db)
{
    auto revision = db.queryInt(kReadRevisionSql);
    if (!revision)
        return revision.error();
    return fromStored(*revision);
}

nlohmann::json textOrNull(const std::optional<std::string>& text)
{
    return text ? nlohmann::json(*text) : nlohmann::json(nullptr);
}

std::optional<std::string> textField(const nlohmann::json& object, const char* name)
{
    const auto found = object.find(name);
    if (found == object.end() || !found->is_string())
        return std::nullopt;
    return found->get<std::string>();
}

Result<std::string> encodeChanges(const std::vector<RecordChange>& changes)
{
    nlohmann::json list = nlohmann::json::array();
    for (const auto& change : changes)
        list.push_back(
            { { "key", change.key }, { "before", textOrNull(change.before) }, { "after", textOrNull(change.after) } });
    try {
        return list.dump();
    } catch (const nlohmann::json::exception& error) {
        return makeError(ErrorCode::InvalidArgument, std::string("cannot encode the audit record: ") + error.what());
    }
}

Result<std::vector<RecordChange>> decodeChanges(const std::string& text, std::uint64_t revision)
{
    const auto damaged = makeError(ErrorCode::Internal, "audit record " + std::to_string(revision) + " is damaged");
    const auto list = nlohmann::json::parse(text, nullptr, false);
    if (list.is_discarded() || !list.is_array())
        return damaged;
    std::vector<RecordChange> changes;
    for (const auto& item : list) {
        auto key = item.is_object() ? textField(item, "key") : std::nullopt;
        if (!key)
            return damaged;
        changes.push_back({ std::move(*key), textField(item, "before"), textField(item, "after") });
    }
    return changes;
}

Result<AuditRecord> auditFromRow(const Statement& stmt)
{
    AuditRecord record { fromStored(stmt.columnInt(0)), stmt.columnInt(1), stmt.columnText(2), stmt.columnText(3),
        stmt.columnText(4), {}, stmt.columnText(6) };
    auto changes = decodeChanges(stmt.columnText(5), record.revision);
    if (!changes)
        return changes.error();
    record.changes = std::move(*changes);
    return record;
}

// One statement, so one read transaction even outside an explicit one.
Result<std::vector<AuditRecord>> readHistory(SqliteDb& db, std::uint64_t from, std::uint64_t to, std::size_t limit)
{
    auto stmt = db.prepare(kHistorySql);
    if (!stmt)
        return stmt.error();
    const auto rows = limit == 0 ? std::int64_t { -1 } : asStored(limit);
    stmt->bind(1, asStored(from)).bind(2, asStored(to)).bind(3, rows);
    std::vector<AuditRecord> records;
    while (true) {
        auto row = stmt->step();
        if (!row)
            return row.error();
        if (!*row)
            return records;
        auto record = auditFromRow(*stmt);
        if (!record)
            return record.error();
        records.push_back(std::move(*record));
    }
}

// The smallest key above every key that starts with prefix; nullopt when there is none.
std::optional<std::string> prefixEnd(std::string prefix)
{
    while (!prefix.empty()) {
        const auto last = static_cast<unsigned char>(prefix.back());
        if (last != 0xFF) {
            prefix.back() = static_cast<char>(last + 1);
            return prefix;
        }
        prefix.pop_back();
    }
    return std::nullopt;
}

Result<std::map<std::string, StoredRecord>> readRecords(SqliteDb& db, const std::string& prefix)
{
    auto stmt = db.prepare(kListSql);
    if (!stmt)
        return stmt.error();
    const auto end = prefixEnd(prefix);
    stmt->bind(1, prefix);
    end ? stmt->bind(2, *end) : stmt->bindNull(2);
    std::map<std::string, StoredRecord> records;
    while (true) {
        auto row = stmt->step();
        if (!row)
            return row.error();
        if (!*row)
            return records;
        StoredRecord record { stmt->columnText(0), stmt->columnText(1), fromStored(stmt->columnInt(2)),
            fromStored(stmt->columnInt(3)) };
        records.emplace(record.key, std::move(record));
    }
}

Error leaseError(std::string message, const std::string& holder, std::uint64_t token)
{
    Error error = makeError(ErrorCode::FailedPrecondition, std::move(message));
    error.details["holder"] = holder;
    error.details["token"] = std::to_string(token);
    return error;
}

} // namespace

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

// ---- the watch ---------------------------------------------------------------------------------

// A watch's thread. Its state is shared with the thread so that a callback may destroy its own
// handle: the thread is then detached and ends after the callback returns.
class SqliteStore::Watch final : public WatchHandle {
public:
    struct State;
    explicit Watch(std::shared_ptr<State> state);
    ~Watch() override;

private:
    std::shared_ptr<State> m_state;
    std::thread m_thread;
};

struct SqliteStore::Watch::State {
    enum class Wake { Stop, Closed, Commit, Timeout };

    State(SqliteDb connection, std::shared_ptr<CommitSignal> commitSignal, std::uint64_t from,
        WatchCallback recordCallback, WatchErrorCallback errorCallback, std::chrono::milliseconds interval)
        : db(std::move(connection))
        , signal(std::move(commitSignal))
        , last(from)
        , onRecord(std::move(recordCallback))
        , onError(std::move(errorCallback))
        , pollInterval(interval)
    {
    }

    void run();
    Status deliverPending();
    bool waitForCommit(std::uint64_t& seenCommits, std::int64_t& seenVersion, bool retrySoon);
    Wake waitForSignal(std::uint64_t& seenCommits);
    std::int64_t dataVersion();
    std::uint64_t commitCount();
    void fail(const Error& error);

    SqliteDb db;
    std::shared_ptr<CommitSignal> signal;
    std::uint64_t last;
    WatchCallback onRecord;
    WatchErrorCallback onError;
    std::chrono::milliseconds pollInterval;
    // Set under signal->mutex so that a thread about to wait cannot miss it.
    std::atomic<bool> stopping { false };
};

void SqliteStore::Watch::State::run()
{
    // Both markers are taken before each read, so a commit landing during the read wakes us again.
    std::uint64_t seenCommits = commitCount();
    std::int64_t seenVersion = dataVersion();
    while (true) {
        auto status = deliverPending();
        // A busy file (another process recovering the WAL) is retried at the next poll.
        if (!status && status.error().code != ErrorCode::Unavailable) {
            fail(status.error());
            return;
        }
        if (!waitForCommit(seenCommits, seenVersion, !status))
            return;
    }
}

Status SqliteStore::Watch::State::deliverPending()
{
    while (!stopping) {
        // Fault tests end the watch here, as a read that fails for good would.
        if (!failpoint("store.watch.read"))
            return makeError(ErrorCode::Internal, "the watch's read failed (failpoint store.watch.read)");
        auto batch = readHistory(db, last, 0, kWatchBatch);
        if (!batch)
            return batch.error();
        for (const auto& record : *batch) {
            if (stopping)
                return {};
            onRecord(record);
            last = record.revision;
        }
        if (batch->size() < kWatchBatch)
            return {};
    }
    return {};
}

bool SqliteStore::Watch::State::waitForCommit(std::uint64_t& seenCommits, std::int64_t& seenVersion, bool retrySoon)
{
    while (true) {
        const Wake wake = waitForSignal(seenCommits);
        if (wake == Wake::Stop)
            return false;
        if (wake == Wake::Closed) {
            fail(makeError(ErrorCode::Unavailable, "the store was closed"));
            return false;
        }
        const auto version = dataVersion();
        const bool changed = version != seenVersion;
        seenVersion = version;
        if (wake == Wake::Commit || changed || retrySoon)
            return true;
    }
}

SqliteStore::Watch::State::Wake SqliteStore::Watch::State::waitForSignal(std::uint64_t& seenCommits)
{
    std::unique_lock lock(signal->mutex);
    signal->changed.wait_for(
        lock, pollInterval, [&] { return stopping || signal->closed || signal->commits != seenCommits; });
    if (stopping)
        return Wake::Stop;
    if (signal->closed)
        return Wake::Closed;
    if (signal->commits == seenCommits)
        return Wake::Timeout;
    seenCommits = signal->commits;
    return Wake::Commit;
}

// Changes whenever another connection commits; -1 on error, which forces a read that reports it.
std::int64_t SqliteStore::Watch::State::dataVersion()
{
    auto version = db.queryInt("PRAGMA data_version");
    return version ? *version : -1;
}

std::uint64_t SqliteStore::Watch::State::commitCount()
{
    std::lock_guard lock(signal->mutex);
    return signal->commits;
}

void SqliteStore::Watch::State::fail(const Error& error)
{
    if (onError)
        onError(error);
}

SqliteStore::Watch::Watch(std::shared_ptr<State> state)
    : m_state(std::move(state))
    , m_thread([state = m_state] { state->run(); })
{
}

SqliteStore::Watch::~Watch()
{
    {
        std::lock_guard lock(m_state->signal->mutex);
        m_state->stopping = true;
    }
    m_state->signal->changed.notify_all();
    if (m_thread.get_id() == std::this_thread::get_id())
        m_thread.detach(); // destroyed from its own callback: it cannot wait for itself
    else
        m_thread.join();
}

// ---- opening -----------------------------------------------------------------------------------

Result<std::unique_ptr<SqliteStore>> SqliteStore::open(const std::string& path, bool create, SqliteStoreOptions options)
{
    if (path.empty())
        return makeError(ErrorCode::InvalidArgument, "the store path is empty");
    if (auto status = checkLocation(path, create); !status)
        return status.error();
    auto created = createIfMissing(path, create);
    if (!created)
        return created.error();
    std::unique_ptr<SqliteStore> store(new SqliteStore(path, std::move(options)));
    if (auto status = store->initialise(create); !status) {
        store.reset();
        if (*created)
            removeIfStillEmpty(path);
        Error error = status.error();
        if (error.context.empty() && error.message.find(path) == std::string::npos)
            error.context = path;
        return error;
    }
    return store;
}

SqliteStore::SqliteStore(std::string path, SqliteStoreOptions options)
    : m_path(std::move(path))
    , m_options(std::move(options))
    , m_signal(std::make_shared<CommitSignal>())
{
}

SqliteStore::~SqliteStore()
{
    {
        std::lock_guard lock(m_signal->mutex);
        m_signal->closed = true;
    }
    m_signal->changed.notify_all();
    std::lock_guard lock(m_writeMutex);
    m_stmts.reset();
}

Status SqliteStore::initialise(bool create)
{
    if (auto status = openWriter(); !status)
        return status;
    auto tables = countTables(m_writer);
    if (!tables)
        return tables.error();
    if (*tables == 0 && !create)
        return notAStore(m_path, "it is empty");
    if (*tables == 0) {
        if (auto status = createSchema(); !status)
            return status;
    }
    if (auto status = checkSchema(); !status)
        return status;
    if (auto status = switchToWal(); !status)
        return status;
    if (auto status = m_writer.exec("PRAGMA synchronous=FULL"); !status)
        return status;
    return prepareStatements();
}

Status SqliteStore::openWriter()
{
    auto writer
        = SqliteDb::open(m_path, { .readOnly = false, .create = false, .busyTimeoutMs = m_options.busyTimeoutMs });
    if (!writer)
        return writer.error();
    m_writer = std::move(*writer);
    // SQLite silently opens a write-protected file read-only; refuse before reading anything.
    if (sqlite3_db_readonly(m_writer.handle(), "main") == 1)
        return readOnlyError(m_path);
    return {};
}

// WAL before the first table: readers never wait for the writer, and a commit is one append.
// The switch needs an exclusive lock, and when two connections ask at once SQLite refuses one of
// them at once instead of waiting (it would deadlock); so retry within the busy timeout.
Status SqliteStore::switchToWal()
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(m_options.busyTimeoutMs);
    while (true) {
        auto mode = m_writer.queryText("PRAGMA journal_mode=WAL");
        if (mode && *mode == "wal")
            return {};
        if (mode)
            return makeError(ErrorCode::FailedPrecondition, "cannot switch to WAL; the file stays in mode " + *mode);
        if (mode.error().code != ErrorCode::Unavailable || std::chrono::steady_clock::now() > deadline)
            return lockedError(mode.error());
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

Status SqliteStore::createSchema()
{
    if (auto status = switchToWal(); !status)
        return status;
    return writeTransaction<void>([this]() -> Status {
        auto tables = countTables(m_writer);
        if (!tables)
            return tables.error();
        if (*tables > 0)
            return {}; // another process initialised the file since we looked
        return m_writer.exec(schemaSql());
    });
}

Status SqliteStore::checkSchema()
{
    auto magic = m_writer.queryText("SELECT value FROM meta WHERE key = 'magic'");
    if (!magic && magic.error().code == ErrorCode::Unavailable)
        return lockedError(magic.error());
    if (!magic || *magic != kSqliteMagic)
        return notAStore(m_path, "it has no Shardmap marker");
    auto version = m_writer.queryInt(kReadVersionSql);
    if (!version)
        return lockedError(version.error());
    if (*version > kSchemaVersion)
        return makeError(ErrorCode::FailedPrecondition,
            "store schema version " + std::to_string(*version) + " is newer than this build understands ("
                + std::to_string(kSchemaVersion) + ")");
    if (*version < 1)
        return notAStore(m_path, "schema version " + std::to_string(*version));
    return *version < kSchemaVersion ? upgradeSchema() : Status {};
}

// Every step in one transaction: a crash half-way leaves the old version intact.
Status SqliteStore::upgradeSchema()
{
    return writeTransaction<void>([this]() -> Status {
        auto version = m_writer.queryInt(kReadVersionSql); // another process may have upgraded it meanwhile
        if (!version)
            return version.error();
        for (auto from = *version; from < kSchemaVersion; ++from) {
            if (auto status = upgradeStep(m_writer, from); !status)
                return status;
        }
        return m_writer.exec(
            "UPDATE meta SET value = " + std::to_string(kSchemaVersion) + " WHERE key = 'schema_version'");
    });
}

Status SqliteStore::prepareStatements()
{
    m_stmts = std::make_unique<WriteStatements>();
    const std::pair<Statement*, std::string_view> all[] = {
        { &m_stmts->readRecord, "SELECT value, create_revision, mod_revision FROM records WHERE key = ?1" },
        { &m_stmts->upsertRecord,
            "INSERT INTO records(key, value, create_revision, mod_revision) VALUES (?1, ?2, ?3, ?3)"
            " ON CONFLICT(key) DO UPDATE SET value = excluded.value, mod_revision = excluded.mod_revision" },
        { &m_stmts->deleteRecord, "DELETE FROM records WHERE key = ?1" },
        { &m_stmts->insertAudit,
            "INSERT INTO audit(revision, unix_ms, actor, action, reason, changes, hash)"
            " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)" },
        { &m_stmts->readAuditHash, "SELECT hash FROM audit WHERE revision = ?1" },
        { &m_stmts->setRevision, "UPDATE meta SET value = ?1 WHERE key = 'revision'" },
        { &m_stmts->readLease, "SELECT holder, token, expires_unix_ms FROM leases WHERE name = ?1" },
        { &m_stmts->prunePresence,
            "DELETE FROM leases WHERE substr(name, 1, length(?1)) = ?1 AND expires_unix_ms <= ?2 AND name != ?3" },
        { &m_stmts->writeLease,
            "INSERT INTO leases(name, holder, token, expires_unix_ms) VALUES (?1, ?2, ?3, ?4)"
            " ON CONFLICT(name) DO UPDATE SET holder = excluded.holder, token = excluded.token,"
            " expires_unix_ms = excluded.expires_unix_ms" },
    };
    for (const auto& [stmt, sql] : all) {
        auto prepared = m_writer.prepare(sql);
        if (!prepared)
            return prepared.error();
        *stmt = std::move(*prepared);
    }
    return {};
}

// ---- connections and transactions ---------------------------------------------------------------

Result<SqliteDb> SqliteStore::openConnection() const
{
    auto db = SqliteDb::open(m_path, { .readOnly = false, .create = false, .busyTimeoutMs = m_options.busyTimeoutMs });
    if (!db)
        return db.error();
    // These connections only read: query_only turns a stray write into an error.
    if (auto status = db->exec("PRAGMA query_only=1"); !status)
        return status.error();
    return db;
}

Result<SqliteDb> SqliteStore::takeReader()
{
    {
        std::lock_guard lock(m_readerMutex);
        if (!m_readers.empty()) {
            SqliteDb db = std::move(m_readers.back());
            m_readers.pop_back();
            return db;
        }
    }
    return openConnection();
}

void SqliteStore::returnReader(SqliteDb db)
{
    std::lock_guard lock(m_readerMutex);
    if (m_readers.size() < m_options.readerConnections)
        m_readers.push_back(std::move(db));
}

// Runs body inside one read transaction: every statement in it sees the same revision.
template <typename T, typename Body> Result<T> SqliteStore::readTransaction(Body body)
{
    auto db = takeReader();
    if (!db)
        return lockedError(db.error());
    auto begun = db->exec("BEGIN");
    Result<T> result = begun ? body(*db) : Result<T>(begun.error());
    // A connection whose transaction did not end cleanly is dropped, not pooled.
    if (db->exec("COMMIT"))
        returnReader(std::move(*db));
    if (!result)
        return lockedError(result.error());
    return result;
}

// Runs body inside BEGIN IMMEDIATE: the write lock is taken up front, so the reads body bases its
// decision on cannot be overtaken by another writer before COMMIT.
template <typename T, typename Body> Result<T> SqliteStore::writeTransaction(Body body)
{
    std::lock_guard lock(m_writeMutex);
    if (auto status = m_writer.exec("BEGIN IMMEDIATE"); !status)
        return lockedError(status.error());
    Result<T> result = body();
    if (result) {
        if (auto status = m_writer.exec("COMMIT"); !status)
            result = Result<T>(status.error());
    }
    if (!result) {
        (void)m_writer.exec("ROLLBACK");
        return lockedError(result.error());
    }
    return result;
}

// ---- reads -------------------------------------------------------------------------------------

Result<StoreSnapshot> SqliteStore::snapshot()
{
    return list({});
}

Result<StoreSnapshot> SqliteStore::list(const std::string& prefix)
{
    return readTransaction<StoreSnapshot>([&](SqliteDb& db) -> Result<StoreSnapshot> {
        auto revision = readRevisionFrom(db);
        if (!revision)
            return revision.error();
        auto records = readRecords(db, prefix);
        if (!records)
            return records.error();
        return StoreSnapshot { *revision, std::move(*records) };
    });
}

Result<std::uint64_t> SqliteStore::currentRevision()
{
    return readTransaction<std::uint64_t>([](SqliteDb& db) { return readRevisionFrom(db); });
}

Result<std::vector<AuditRecord>> SqliteStore::history(
    std::uint64_t fromRevision, std::uint64_t toRevision, std::size_t limit)
{
    return readTransaction<std::vector<AuditRecord>>(
        [&](SqliteDb& db) { return readHistory(db, fromRevision, toRevision, limit); });
}

Result<std::unique_ptr<WatchHandle>> SqliteStore::watch(
    std::uint64_t fromRevision, WatchCallback onRecord, WatchErrorCallback onError)
{
    if (!onRecord)
        return makeError(ErrorCode::InvalidArgument, "a watch needs a callback");
    auto db = openConnection();
    if (!db)
        return lockedError(db.error());
    auto state = std::make_shared<Watch::State>(
        std::move(*db), m_signal, fromRevision, std::move(onRecord), std::move(onError), m_options.watchPollInterval);
    return std::unique_ptr<WatchHandle>(std::make_unique<Watch>(std::move(state)));
}

std::string SqliteStore::describe() const
{
    return "sqlite:" + m_path;
}

// ---- commits -----------------------------------------------------------------------------------

Result<std::uint64_t> SqliteStore::commit(const CommitRequest& request)
{
    if (auto status = store_rules::validateCommitRequest(request); !status)
        return status.error();
    auto revision = writeTransaction<std::uint64_t>([&] { return commitLocked(request); });
    if (revision)
        signalCommit();
    return revision;
}

Result<std::uint64_t> SqliteStore::commitLocked(const CommitRequest& request)
{
    auto current = readRevisionFrom(m_writer);
    if (!current)
        return current.error();
    auto touched = readTouched(request.mutations);
    if (!touched)
        return touched.error();
    if (auto status = checkFence(request.fence); !status)
        return status.error();
    if (auto status = checkExpectations(request, *current, *touched); !status)
        return status.error();
    const std::uint64_t revision = *current + 1;
    auto changes = applyMutations(request.mutations, *touched, revision);
    if (!changes)
        return changes.error();
    if (auto status = writeAudit(request, std::move(*changes), revision); !status)
        return status.error();
    if (auto status = m_stmts->setRevision.bind(1, asStored(revision)).run(); !status)
        return status.error();
    if (m_options.beforeCommit)
        m_options.beforeCommit();
    return revision;
}

Result<std::optional<StoredRecord>> SqliteStore::readRecord(const std::string& key)
{
    auto& stmt = m_stmts->readRecord;
    stmt.bind(1, key);
    auto row = stmt.step();
    if (!row)
        return row.error();
    std::optional<StoredRecord> record;
    if (*row)
        record = StoredRecord { key, stmt.columnText(0), fromStored(stmt.columnInt(1)), fromStored(stmt.columnInt(2)) };
    stmt.reset();
    return record;
}

Result<SqliteStore::StoredRecords> SqliteStore::readTouched(const std::vector<Mutation>& mutations)
{
    StoredRecords touched;
    for (const auto& mutation : mutations) {
        auto record = readRecord(mutation.key);
        if (!record)
            return record.error();
        touched.emplace(mutation.key, std::move(*record));
    }
    return touched;
}

Status SqliteStore::checkFence(const std::optional<LeaseGrant>& fence)
{
    if (!fence)
        return {};
    auto row = readLease(fence->name);
    if (!row)
        return row.error();
    const auto& lease = *row;
    const auto now = nowUnixMs();
    if (lease && lease->holder == fence->holder && lease->token == fence->token && lease->expiresUnixMs > now)
        return {};
    const std::string state
        = lease ? describeLease(lease->holder, lease->token, lease->expiresUnixMs, now) : "it was never granted";
    return leaseError("commit refused: lease " + inQuotes(fence->name) + " is no longer held by "
            + inQuotes(fence->holder) + " with token " + std::to_string(fence->token) + ": " + state,
        lease ? lease->holder : std::string(), lease ? lease->token : 0);
}

Status SqliteStore::checkExpectations(const CommitRequest& request, std::uint64_t current, const StoredRecords& touched)
{
    std::vector<std::string> problems;
    if (request.expectRevision && *request.expectRevision != current) {
        auto changed = describeChangesSince(*request.expectRevision, current);
        if (!changed)
            return changed.error();
        problems.push_back(std::move(*changed));
    }
    for (const auto& mutation : request.mutations) {
        if (auto problem = expectationProblem(mutation, touched.at(mutation.key)))
            problems.push_back(std::move(*problem));
    }
    if (problems.empty())
        return {};
    return conflictError(problems, current);
}

// Names the keys changed after `revision` (newest first) with their current mod revisions.
Result<std::string> SqliteStore::describeChangesSince(std::uint64_t revision, std::uint64_t current)
{
    if (revision > current)
        return "expected revision " + std::to_string(revision) + " does not exist yet";
    const std::uint64_t scanFrom
        = std::max<std::uint64_t>(revision, current - std::min<std::uint64_t>(current, kConflictScanRecords));
    auto recent = readHistory(m_writer, scanFrom, 0, 0);
    if (!recent)
        return recent.error();
    std::vector<std::string> keys;
    for (auto record = recent->rbegin(); record != recent->rend(); ++record) {
        for (const auto& change : record->changes) {
            if (std::find(keys.begin(), keys.end(), change.key) == keys.end())
                keys.push_back(change.key);
        }
    }
    std::vector<std::string> named;
    for (std::size_t i = 0; i < keys.size() && i < kConflictKeysNamed; ++i) {
        auto record = readRecord(keys[i]);
        if (!record)
            return record.error();
        named.push_back(inQuotes(keys[i])
            + (*record ? " (mod revision " + std::to_string((*record)->modRevision) + ")" : " (deleted)"));
    }
    if (keys.size() > kConflictKeysNamed || scanFrom > revision)
        named.push_back("and more");
    return "expected revision " + std::to_string(revision) + "; changed since: " + joined(named, ", ");
}

Result<std::vector<RecordChange>> SqliteStore::applyMutations(
    const std::vector<Mutation>& mutations, const StoredRecords& touched, std::uint64_t revision)
{
    std::vector<RecordChange> changes;
    for (const auto& mutation : mutations) {
        if (auto status = applyMutation(mutation, revision); !status)
            return status.error();
        const auto& before = touched.at(mutation.key);
        changes.push_back({ mutation.key, before ? std::optional(before->value) : std::nullopt, mutation.value });
    }
    return changes;
}

Status SqliteStore::applyMutation(const Mutation& mutation, std::uint64_t revision)
{
    if (!mutation.value)
        return m_stmts->deleteRecord.bind(1, mutation.key).run();
    return m_stmts->upsertRecord.bind(1, mutation.key).bind(2, *mutation.value).bind(3, asStored(revision)).run();
}

Status SqliteStore::writeAudit(const CommitRequest& request, std::vector<RecordChange> changes, std::uint64_t revision)
{
    auto encoded = encodeChanges(changes);
    if (!encoded)
        return encoded.error();
    auto previous = readAuditHash(revision - 1);
    if (!previous)
        return previous.error();
    AuditRecord record { revision, nowUnixMs(), request.actor, request.action, request.reason, std::move(changes), {} };
    record.hash = auditChainHash(auditChainPrevious(*previous), record);
    auto& stmt = m_stmts->insertAudit;
    stmt.bind(1, asStored(revision)).bind(2, record.unixMs).bind(3, request.actor).bind(4, request.action);
    return stmt.bind(5, request.reason).bind(6, *encoded).bind(7, record.hash).run();
}

// The hash of the audit record of revision; empty when there is none or it predates the chain
// (the new record then links to the anchor, and verify-audit names what is missing).
Result<std::string> SqliteStore::readAuditHash(std::uint64_t revision)
{
    auto& stmt = m_stmts->readAuditHash;
    stmt.bind(1, asStored(revision));
    auto row = stmt.step();
    if (!row)
        return row.error();
    std::string hash = *row ? stmt.columnText(0) : std::string();
    stmt.reset();
    return hash;
}

void SqliteStore::signalCommit()
{
    {
        std::lock_guard lock(m_signal->mutex);
        ++m_signal->commits;
    }
    m_signal->changed.notify_all();
}

// ---- leases ------------------------------------------------------------------------------------

Result<LeaseGrant> SqliteStore::acquireLease(
    const std::string& name, const std::string& holder, std::chrono::milliseconds ttl)
{
    if (auto status = validateLease(name, holder, ttl); !status)
        return status.error();
    return writeTransaction<LeaseGrant>([&] { return acquireLocked(name, holder, ttl); });
}

Result<LeaseGrant> SqliteStore::renewLease(const LeaseGrant& grant, std::chrono::milliseconds ttl)
{
    if (auto status = validateLease(grant.name, grant.holder, ttl); !status)
        return status.error();
    return writeTransaction<LeaseGrant>([&] { return renewLocked(grant, ttl); });
}

Status SqliteStore::releaseLease(const LeaseGrant& grant)
{
    return writeTransaction<void>([&] { return releaseLocked(grant); });
}

Result<std::vector<LeaseGrant>> SqliteStore::liveLeases(const std::string& namePrefix)
{
    return readTransaction<std::vector<LeaseGrant>>([&](SqliteDb& db) -> Result<std::vector<LeaseGrant>> {
        auto stmt = db.prepare("SELECT name, holder, token, expires_unix_ms FROM leases"
                               " WHERE substr(name, 1, length(?1)) = ?1 AND expires_unix_ms > ?2 ORDER BY name");
        if (!stmt)
            return stmt.error();
        stmt->bind(1, namePrefix).bind(2, nowUnixMs());
        std::vector<LeaseGrant> leases;
        while (true) {
            auto row = stmt->step();
            if (!row)
                return row.error();
            if (!*row)
                return leases;
            leases.push_back(
                { stmt->columnText(0), stmt->columnText(1), fromStored(stmt->columnInt(2)), stmt->columnInt(3) });
        }
    });
}

Result<std::optional<SqliteStore::LeaseRow>> SqliteStore::readLease(const std::string& name)
{
    auto& stmt = m_stmts->readLease;
    stmt.bind(1, name);
    auto row = stmt.step();
    if (!row)
        return row.error();
    std::optional<LeaseRow> lease;
    if (*row)
        lease = LeaseRow { stmt.columnText(0), fromStored(stmt.columnInt(1)), stmt.columnInt(2) };
    stmt.reset();
    return lease;
}

Status SqliteStore::writeLease(const LeaseGrant& grant)
{
    auto& stmt = m_stmts->writeLease;
    stmt.bind(1, grant.name).bind(2, grant.holder).bind(3, asStored(grant.token)).bind(4, grant.expiresUnixMs);
    return stmt.run();
}

Result<LeaseGrant> SqliteStore::acquireLocked(
    const std::string& name, const std::string& holder, std::chrono::milliseconds ttl)
{
    auto row = readLease(name);
    if (!row)
        return row.error();
    const auto& lease = *row;
    const auto now = nowUnixMs();
    const bool live = lease && lease->expiresUnixMs > now;
    if (live && lease->holder != holder)
        return leaseError("lease " + inQuotes(name)
                + " is taken: " + describeLease(lease->holder, lease->token, lease->expiresUnixMs, now),
            lease->holder, lease->token);
    // The holder's own live lease is renewed; anything else starts a new grant with a new token.
    const std::uint64_t token = live ? lease->token : (lease ? lease->token + 1 : 1);
    LeaseGrant grant { name, holder, token, now + ttl.count() };
    if (auto status = writeLease(grant); !status)
        return status.error();
    if (store_rules::isPresenceLease(name)) {
        if (auto status = prunePresenceLeases(name, now); !status)
            return status.error();
    }
    return grant;
}

Status SqliteStore::prunePresenceLeases(const std::string& granted, std::int64_t now)
{
    auto& stmt = m_stmts->prunePresence;
    stmt.bind(1, std::string(kReplicaLeasePrefix)).bind(2, now).bind(3, granted);
    return stmt.run();
}

Result<LeaseGrant> SqliteStore::renewLocked(const LeaseGrant& grant, std::chrono::milliseconds ttl)
{
    auto row = readLease(grant.name);
    if (!row)
        return row.error();
    const auto& lease = *row;
    const auto now = nowUnixMs();
    if (!lease || lease->holder != grant.holder || lease->token != grant.token || lease->expiresUnixMs == 0) {
        const std::string state
            = lease ? describeLease(lease->holder, lease->token, lease->expiresUnixMs, now) : "it was never granted";
        return leaseError("lease " + inQuotes(grant.name) + " was lost by " + inQuotes(grant.holder) + ": " + state,
            lease ? lease->holder : std::string(), lease ? lease->token : 0);
    }
    LeaseGrant renewed = grant;
    renewed.expiresUnixMs = now + ttl.count();
    if (auto status = writeLease(renewed); !status)
        return status.error();
    return renewed;
}

Status SqliteStore::releaseLocked(const LeaseGrant& grant)
{
    auto row = readLease(grant.name);
    if (!row)
        return row.error();
    const auto& lease = *row;
    if (!lease || lease->holder != grant.holder || lease->token != grant.token || lease->expiresUnixMs == 0)
        return {}; // already lost or released: nothing to give back
    // The row stays, so the next grant's token follows this one's.
    LeaseGrant released = grant;
    released.expiresUnixMs = 0;
    return writeLease(released);
}

} // namespace shardmap::core
