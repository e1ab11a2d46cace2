#include "core/store/sqlite_store.h"

// SqliteStore's implementation, opening: the file's location and mode checks, the schema (created,
// checked, upgraded in place), the writer and its statements, the reader pool, and the record reads.

#include "core/store/sqlite_store_internal.h"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sqlite3.h>
#include <thread>
#include <unistd.h>
#include <utility>

namespace shardmap::core {

using sqlite_store_internal::fromSqliteInteger;
using sqlite_store_internal::lockedError;
using sqlite_store_internal::readRevisionFrom;

namespace {

constexpr std::string_view kSqliteMagic = "shardmap-store";
constexpr std::string_view kReadRevisionSql = "SELECT value FROM meta WHERE key = 'revision'";
constexpr std::string_view kReadVersionSql = "SELECT value FROM meta WHERE key = 'schema_version'";
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
        StoredRecord record { stmt->columnText(0), stmt->columnText(1), fromSqliteInteger(stmt->columnInt(2)),
            fromSqliteInteger(stmt->columnInt(3)) };
        records.emplace(record.key, std::move(record));
    }
}

} // namespace

Result<std::uint64_t> sqlite_store_internal::readRevisionFrom(SqliteDb& db)
{
    auto revision = db.queryInt(kReadRevisionSql);
    if (!revision)
        return revision.error();
    return fromSqliteInteger(*revision);
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

std::string SqliteStore::describe() const
{
    return "sqlite:" + m_path;
}

} // namespace shardmap::core
