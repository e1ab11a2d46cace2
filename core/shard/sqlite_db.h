#pragma once

// A thin C++ layer over SQLite's C API, shared by the shard stores and the metadata store.

#include "core/util/result.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace shardmap::core {

// Maps an SQLite result code to a domain error: SQLITE_FULL is ResourceExhausted (disk or
// capacity full), SQLITE_BUSY/LOCKED Unavailable, SQLITE_CORRUPT/NOTADB Internal ("corrupt").
Error sqliteError(sqlite3* db, int rc, std::string_view doing);

// A prepared statement. Binding indexes start at 1, column indexes at 0, as in SQLite.
class Statement final {
public:
    Statement() = default;
    Statement(sqlite3* db, sqlite3_stmt* stmt);
    Statement(Statement&& other) noexcept;
    Statement& operator=(Statement&& other) noexcept;
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    ~Statement();

    Statement& bind(int index, std::string_view text);
    Statement& bind(int index, std::int64_t value);
    Statement& bindNull(int index);

    // true: a row is ready; false: done. Errors map through sqliteError.
    Result<bool> step();
    // Runs a statement that returns no rows (or ignores them), then resets it.
    Status run();
    void reset();

    std::int64_t columnInt(int column) const;
    std::string columnText(int column) const;
    bool columnIsNull(int column) const;
    double columnDouble(int column) const;

private:
    sqlite3* m_db = nullptr;
    sqlite3_stmt* m_stmt = nullptr;
};

// One SQLite connection. Not thread-safe: each thread uses its own.
class SqliteDb final {
public:
    struct Options {
        bool readOnly = false;
        bool create = true;
        int busyTimeoutMs = 5000;
    };

    static Result<SqliteDb> open(const std::string& path, Options options);

    SqliteDb() = default;
    SqliteDb(SqliteDb&& other) noexcept;
    SqliteDb& operator=(SqliteDb&& other) noexcept;
    SqliteDb(const SqliteDb&) = delete;
    SqliteDb& operator=(const SqliteDb&) = delete;
    ~SqliteDb();

    Status exec(std::string_view sql);
    Result<Statement> prepare(std::string_view sql);
    // The first column of the first row, or the error; NotFound when no row.
    Result<std::int64_t> queryInt(std::string_view sql);
    Result<std::string> queryText(std::string_view sql);

    sqlite3* handle() const { return m_db; }
    const std::string& path() const { return m_path; }

private:
    template <typename T, typename Read> Result<T> queryOne(std::string_view sql, Read read);

    sqlite3* m_db = nullptr;
    std::string m_path;
};

} // namespace shardmap::core
