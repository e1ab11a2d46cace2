#pragma once

// The SQLite store's write lock seen from a test: whether some process holds it, and how to
// freeze a controller (SIGSTOP) at a moment when it does not. An SQLite store is one file; a
// process stopped inside a commit keeps its write lock, and no other controller can take the
// executor lease over until that process runs again or dies (an outage of the store that
// docs/MIGRATIONS.md names). Tests of lease expiry freeze the leader outside a commit.

#include "tests/support/process.h"

#include <chrono>
#include <csignal>
#include <sqlite3.h>
#include <string>
#include <thread>

namespace shardmap::testing {

// Whether some process holds the write lock of the SQLite file at path right now.
inline bool sqliteWriteLocked(const std::string& path)
{
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
        sqlite3_close(db);
        return false;
    }
    const int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK)
        sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    return rc == SQLITE_BUSY;
}

// Stops process with SIGSTOP at a moment it holds no write lock on the SQLite store at
// storePath (an empty path: another store, stopped at once). Returns false when every try found
// it inside a commit; it is then left running.
inline bool stopOutsideSqliteCommit(const ChildProcess& process, const std::string& storePath, int tries = 50)
{
    for (int attempt = 0; attempt < tries; ++attempt) {
        process.signal(SIGSTOP);
        if (storePath.empty() || !sqliteWriteLocked(storePath))
            return true;
        process.signal(SIGCONT);
        std::this_thread::sleep_for(std::chrono::milliseconds(7 + attempt % 5));
    }
    return false;
}

} // namespace shardmap::testing
