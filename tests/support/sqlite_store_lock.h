#pragma once

// The SQLite store's write lock seen from a test: whether some process holds it, and how to
// freeze a controller (SIGSTOP) at a moment when it does not. An SQLite store is one file; a
// process stopped inside a commit keeps its write lock, and no other controller can take the
// executor lease over until that process runs again or dies (an outage of the store that
// docs/MIGRATIONS.md names). Tests of lease expiry freeze the leader outside a commit.

#include "tests/support/process.h"

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
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

// Waits (up to a second) until every thread of the process is stopped ('T' in
// /proc/PID/task/*/stat): SIGSTOP is only sent by kill(), and a thread still running could begin
// a commit after a probe of the lock found it free.
inline bool waitUntilStopped(pid_t pid)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
    while (std::chrono::steady_clock::now() < deadline) {
        bool all = true;
        std::error_code error;
        for (const auto& task : std::filesystem::directory_iterator(tasks, error)) {
            std::ifstream stat(task.path() / "stat");
            std::string line;
            std::getline(stat, line);
            const auto name = line.rfind(')'); // the state follows "(comm) "
            if (name == std::string::npos || name + 2 >= line.size() || line[name + 2] != 'T')
                all = false;
        }
        if (all && !error)
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
}

// Stops process with SIGSTOP at a moment it holds no write lock on the SQLite store at
// storePath (an empty path: another store, stopped at once). Returns false when every try found
// it inside a commit; it is then left running.
inline bool stopOutsideSqliteCommit(const ChildProcess& process, const std::string& storePath, int tries = 50)
{
    for (int attempt = 0; attempt < tries; ++attempt) {
        process.signal(SIGSTOP);
        if (storePath.empty() || (waitUntilStopped(process.pid()) && !sqliteWriteLocked(storePath)))
            return true;
        process.signal(SIGCONT);
        std::this_thread::sleep_for(std::chrono::milliseconds(7 + attempt % 5));
    }
    return false;
}

} // namespace shardmap::testing
