#pragma once

// The Xapian engine of a shard (issue 29): the rows' text in a `content` table of the shard's
// SQLite file, a log of the rows each transaction changed (`index_log`, written in that same
// transaction), and the Xapian index beside the file (core/shard/xapian_index.h) that answers
// searches. After each commit the writer applies the log to the index and commits the index
// (without waiting for the disk) before the write is acknowledged, so a search made after a write
// sees it; a checkpoint syncs the index and only then prunes the log. On open the log's changes
// past the index's last one are applied again, and an index that cannot be opened, or that the
// log no longer reaches, is rebuilt from the content table: a crash anywhere loses nothing.

#include "core/shard/sqlite_db.h"
#include "core/shard/xapian_index.h"
#include "core/util/result.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace shardmap::core {

struct XapianEngineOptions {
    // The index's own options; its syncOnCommit is the engine's to set (off: checkpoints sync).
    XapianIndexOptions index;
    // Searches that may run at once (each holds a reader of the index).
    std::size_t searchers = 4;
    // A checkpoint after this many changes or this long after the last one, whichever first.
    std::uint64_t checkpointChanges = 50000;
    std::chrono::milliseconds checkpointInterval { 2000 };
};

// What opening the engine found and did.
struct XapianEngineOpening {
    std::uint64_t replayed = 0; // log entries applied again
    bool rebuilt = false; // the index was made anew from the content table
    std::string rebuildReason;
};

class XapianEngine final {
public:
    // Creates the content table and the log in the shard's file (in the shard's schema
    // transaction). `fields` are the shard's schema fields; other fields share one column.
    static Status createTables(SqliteDb& db, const std::vector<std::string>& fields);

    // `writer` is the shard's writer connection: the engine writes and reads its tables through
    // it, on the writer's thread only, and must be destroyed before it.
    static Result<std::unique_ptr<XapianEngine>> open(SqliteDb& writer, const std::string& indexPath,
        std::vector<std::string> fields, XapianEngineOptions options = {});
    ~XapianEngine();

    XapianEngine(const XapianEngine&) = delete;
    XapianEngine& operator=(const XapianEngine&) = delete;

    // In the writer's transaction: a row's text is stored (replacing what it had) or deleted.
    Status insert(const IndexedRow& row);
    Status remove(std::int64_t rowid);

    // After the writer's transaction committed (or rolled back), on the writer's thread: applies
    // what the log holds past the last applied change, commits the index, and checkpoints when due.
    Status applyCommitted();
    // Syncs the index to disk and prunes the log up to what it holds.
    Status checkpoint();

    // The rows of `spaces` that match, best first, as of the last applyCommitted. Any thread.
    Result<std::vector<IndexedHit>> search(
        const std::vector<std::string>& spaces, const QueryNode& query, std::uint32_t offset, std::uint32_t limit);

    const XapianEngineOpening& opening() const { return m_opening; }
    std::uint64_t appliedSeq() const { return m_applied; }
    std::uint64_t durableSeq() const { return m_durable; }
    std::uint64_t diskBytes() const;
    const std::string& indexPath() const { return m_path; }

private:
    XapianEngine(SqliteDb& writer, std::string path, std::vector<std::string> fields, XapianEngineOptions options);
    Status prepare();
    Status openIndex();
    Status rebuild(std::string reason);
    Result<std::uint64_t> lastLoggedSeq();
    Result<std::unique_ptr<XapianSearcher>> leaseSearcher();
    void returnSearcher(std::unique_ptr<XapianSearcher> searcher);

    SqliteDb& m_writer;
    std::string m_path;
    std::vector<std::string> m_fields;
    XapianEngineOptions m_options;
    std::unique_ptr<XapianIndex> m_index;
    Statement m_insertContent;
    Statement m_deleteContent;
    Statement m_logChange;
    Statement m_readLog;
    Statement m_pruneLog;
    std::uint64_t m_applied = 0;
    std::uint64_t m_durable = 0;
    std::uint64_t m_sinceCheckpoint = 0;
    std::chrono::steady_clock::time_point m_lastCheckpoint;
    XapianEngineOpening m_opening;

    std::mutex m_searchersMutex;
    std::condition_variable m_searcherReturned;
    std::vector<std::unique_ptr<XapianSearcher>> m_freeSearchers;
    std::size_t m_searchersOpen = 0;
};

} // namespace shardmap::core
