#include "core/shard/sqlite_db.h"

// The SQLite wrapper's implementation: result codes as domain errors, statements that bind, step
// and reset, and connections that open with a busy timeout.

#include <sqlite3.h>
#include <utility>

namespace shardmap::core {

Error sqliteError(sqlite3* db, int rc, std::string_view doing)
{
    const int primary = rc & 0xFF;
    std::string detail = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    std::string message = std::string(doing) + ": " + detail;
    switch (primary) {
    case SQLITE_FULL: return makeError(ErrorCode::ResourceExhausted, message);
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return makeError(ErrorCode::Unavailable, message);
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: return makeError(ErrorCode::Internal, "corrupt database: " + message);
    case SQLITE_CONSTRAINT: return makeError(ErrorCode::FailedPrecondition, message);
    case SQLITE_CANTOPEN: return makeError(ErrorCode::NotFound, message);
    case SQLITE_ERROR: return makeError(ErrorCode::InvalidArgument, message);
    default: return makeError(ErrorCode::Internal, message);
    }
}

Statement::Statement(sqlite3* db, sqlite3_stmt* stmt)
    : m_db(db)
    , m_stmt(stmt)
{
}

Statement::Statement(Statement&& other) noexcept
    : m_db(std::exchange(other.m_db, nullptr))
    , m_stmt(std::exchange(other.m_stmt, nullptr))
{
}

Statement& Statement::operator=(Statement&& other) noexcept
{
    if (this != &other) {
        sqlite3_finalize(m_stmt);
        m_db = std::exchange(other.m_db, nullptr);
        m_stmt = std::exchange(other.m_stmt, nullptr);
    }
    return *this;
}

Statement::~Statement()
{
    sqlite3_finalize(m_stmt);
}

Statement& Statement::bind(int index, std::string_view text)
{
    sqlite3_bind_text(m_stmt, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    return *this;
}

Statement& Statement::bind(int index, std::int64_t value)
{
    sqlite3_bind_int64(m_stmt, index, value);
    return *this;
}

Statement& Statement::bindNull(int index)
{
    sqlite3_bind_null(m_stmt, index);
    return *this;
}

Result<bool> Statement::step()
{
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    Error error = sqliteError(m_db, rc, "executing statement");
    sqlite3_reset(m_stmt);
    return error;
}

Status Statement::run()
{
    auto stepped = step();
    reset();
    if (!stepped)
        return stepped.error();
    return {};
}

void Statement::reset()
{
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
}

std::int64_t Statement::columnInt(int column) const
{
    return sqlite3_column_int64(m_stmt, column);
}

std::string Statement::columnText(int column) const
{
    const auto* text = sqlite3_column_text(m_stmt, column);
    const int size = sqlite3_column_bytes(m_stmt, column);
    if (!text)
        return {};
    return std::string(reinterpret_cast<const char*>(text), static_cast<std::size_t>(size));
}

bool Statement::columnIsNull(int column) const
{
    return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

double Statement::columnDouble(int column) const
{
    return sqlite3_column_double(m_stmt, column);
}

Result<SqliteDb> SqliteDb::open(const std::string& path, Options options)
{
    int flags = options.readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
    if (options.create && !options.readOnly)
        flags |= SQLITE_OPEN_CREATE;
    flags |= SQLITE_OPEN_NOMUTEX;
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
    SqliteDb db;
    db.m_db = raw;
    db.m_path = path;
    if (rc != SQLITE_OK)
        return sqliteError(raw, rc, "opening " + path);
    sqlite3_extended_result_codes(raw, 1);
    sqlite3_busy_timeout(raw, options.busyTimeoutMs);
    return db;
}

SqliteDb::SqliteDb(SqliteDb&& other) noexcept
    : m_db(std::exchange(other.m_db, nullptr))
    , m_path(std::move(other.m_path))
{
}

SqliteDb& SqliteDb::operator=(SqliteDb&& other) noexcept
{
    if (this != &other) {
        sqlite3_close_v2(m_db);
        m_db = std::exchange(other.m_db, nullptr);
        m_path = std::move(other.m_path);
    }
    return *this;
}

SqliteDb::~SqliteDb()
{
    sqlite3_close_v2(m_db);
}

Status SqliteDb::exec(std::string_view sql)
{
    char* message = nullptr;
    const std::string text(sql);
    const int rc = sqlite3_exec(m_db, text.c_str(), nullptr, nullptr, &message);
    sqlite3_free(message);
    if (rc != SQLITE_OK)
        return sqliteError(m_db, rc, "executing '" + text.substr(0, 60) + "'");
    return {};
}

Result<Statement> SqliteDb::prepare(std::string_view sql)
{
    sqlite3_stmt* stmt = nullptr;
    const int rc
        = sqlite3_prepare_v3(m_db, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    if (rc != SQLITE_OK)
        return sqliteError(m_db, rc, "preparing '" + std::string(sql.substr(0, 60)) + "'");
    return Statement(m_db, stmt);
}

template <typename T, typename Read> Result<T> SqliteDb::queryOne(std::string_view sql, Read read)
{
    auto stmt = prepare(sql);
    if (!stmt)
        return stmt.error();
    auto row = stmt->step();
    if (!row)
        return row.error();
    if (!*row)
        return makeError(ErrorCode::NotFound, "no row for '" + std::string(sql) + "'");
    return read(*stmt);
}

Result<std::int64_t> SqliteDb::queryInt(std::string_view sql)
{
    return queryOne<std::int64_t>(sql, [](const Statement& stmt) { return stmt.columnInt(0); });
}

Result<std::string> SqliteDb::queryText(std::string_view sql)
{
    return queryOne<std::string>(sql, [](const Statement& stmt) { return stmt.columnText(0); });
}

} // namespace shardmap::core
