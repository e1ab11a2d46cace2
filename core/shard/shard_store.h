#pragma once

// A shard's store: its documents, their full-text index, the spaces' aggregates and the ownerships
// that fence writers, and the values its writes, searches and scans take and give.

#include "core/metrics/latency_histogram.h"
#include "core/shard/document.h"
#include "core/shard/sqlite_db.h"
#include "core/util/fs.h"
#include "core/util/index_engine.h"
#include "core/util/index_settings.h"
#include "core/util/log.h"
#include "core/util/result.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace shardmap::core {

struct Ownership {
    std::string space;
    SpaceRole role = SpaceRole::None;
    std::uint64_t epoch = 0;
};

struct WriteItem {
    Document doc;
    std::uint64_t epoch = 0;
};

enum class WriteOutcome : int { Applied = 1, Stale = 2, Rejected = 3 };

// Normal: a write applies when its version is newer than the stored one. Repair (a migration's
// verify copying the source's rows, which are authoritative): also when the version is the same
// and the content differs; never over a newer version. Backfill (a migration copying a space
// to its target): applied like Normal, but in slices of ShardStoreOptions::backfillSliceItems
// that a client's write may come between (the transaction commits after the current slice), so
// that clients never wait behind a large copy. Not atomic as a whole: when a slice fails, the
// ones before it may stay applied (harmless for a copy, which versions make idempotent).
enum class WriteMode { Normal, Repair, Backfill };

struct ItemResult {
    WriteOutcome outcome = WriteOutcome::Rejected;
    std::string reason;
    std::uint64_t storedVersion = 0;
};

struct WriteSummary {
    std::vector<ItemResult> results;
    std::uint32_t applied = 0;
    std::uint32_t stale = 0;
    std::uint32_t rejected = 0;
};

struct SpaceStats {
    std::string space;
    std::uint64_t liveDocs = 0;
    std::uint64_t bytesEstimate = 0;
    // Over every row's content, tombstones included (core/shard/document.h).
    std::uint64_t checksum = 0;
    std::uint64_t tombstones = 0;
    std::uint32_t checksumKind = kChecksumKind;

    bool operator==(const SpaceStats&) const = default;
};

struct FieldUse {
    std::string space;
    std::string field;
    std::uint64_t documents = 0;

    bool operator==(const FieldUse&) const = default;
};

struct ShardTotals {
    std::uint64_t liveDocs = 0;
    std::uint64_t tombstones = 0;
    std::uint64_t spaces = 0;
    std::uint64_t bytesEstimate = 0;
};

struct ShardSearchRequest {
    std::vector<std::string> spaces;
    std::string query;
    std::uint32_t limit = 20;
    std::uint32_t offset = 0;
    bool snippets = false;
};

struct SearchHit {
    std::string space;
    std::string id;
    std::uint64_t version = 0;
    double score = 0;
    std::string snippet;
};

struct SearchResult {
    std::vector<SearchHit> hits;
    std::string compiledQuery;
};

struct ScanPage {
    std::vector<Document> docs;
    std::string cursor;
    bool done = false;
};

// Cumulative activity counters; rates are deltas between two reads. A space's writes are its
// clients' writes (dual writes included), not a migration's copies; the shard's writesApplied
// and docsIndexed count both.
struct SpaceActivity {
    std::uint64_t queries = 0;
    std::uint64_t writes = 0;
};

struct ShardActivity {
    std::uint64_t queries = 0;
    std::uint64_t writesApplied = 0;
    std::uint64_t docsIndexed = 0;
    std::unordered_map<std::string, SpaceActivity> spaces;
};

struct ShardStoreOptions {
    // What the index is built with (its fields, tokenizer, prefixes, weights; issue 31); used when
    // the shard is created, read from the file afterwards (a file without them has today's index
    // over the fields it records: docs/NODE.md, "Index settings").
    IndexSettings index = defaultIndexSettings();
    // The full-text index engine; used when the shard is created, read from the file afterwards
    // (a file without one is FTS5's: every shard made before engines were a choice).
    IndexEngine engine = IndexEngine::Fts5;
    // Largest the database file may grow (0: no limit). Past it writes fail ResourceExhausted.
    std::uint64_t maxBytes = 0;
    // synchronous=FULL instead of NORMAL: the last commit also survives power loss.
    bool syncFull = false;
    // Verify the file with PRAGMA quick_check when opening it.
    bool checkOnOpen = true;
    std::size_t readerConnections = 4;
    // Most items one group commit takes from the queue.
    std::size_t maxGroupItems = 20000;
    // Items of a WriteMode::Backfill slice: the most a client's write waits behind on a
    // migration's target (about 70-100 µs an item).
    std::size_t backfillSliceItems = 100;
    // Most backfill items one transaction takes while no client writes. FTS5 writes its pending
    // index at commit: a client arriving mid-transaction waits for that too, so it is bounded.
    std::size_t backfillGroupItems = 300;
    // Longest one search may run on the shard's file before it is stopped with ResourceExhausted
    // (a one-letter prefix over a large FTS5 shard expands to every term it names); 0: no limit.
    std::chrono::milliseconds searchBudget { 5000 };
    // Where the store says what went wrong that it retries (an index that lags its file).
    LogSink log;
};

// How a backup copies (ShardStore::backupTo): pages per step and the pause between steps, the
// throttle that lets the node's writes go on; stop is asked between steps (true: the copy ends,
// Cancelled); busy, when set, is asked before each pause and the pause is skipped when it says no
// write came since the last step (an idle node copies at full speed).
struct BackupPace {
    int pagesPerStep = 256;
    std::chrono::milliseconds pause { 5 };
    std::function<bool()> stop = {};
    std::function<bool()> busy = {};
};

// What a backup holds: its spaces' aggregates as of its consistent point, and, when the copy was
// made by reading the file (not through SQLite's backup), the digest of the bytes it wrote.
struct ShardBackup {
    std::vector<SpaceStats> spaces;
    std::optional<FileDigest> digest = std::nullopt;
};

inline constexpr std::uint32_t kMaxSearchLimit = 1000;
inline constexpr std::uint32_t kMaxSearchSpaces = 256;
// Fields one fieldUsage call may name.
inline constexpr std::uint32_t kMaxFieldUsageFields = 64;
inline constexpr std::uint32_t kMaxScanBatch = 5000;

// One shard: an SQLite database (WAL) with the documents, tombstones, per-space aggregates (count,
// bytes, checksum; kept in the same transaction as every write) and the ownership table that
// fences stale writers, and their full-text index, built as its IndexSettings say: FTS5 in the
// same file, or Xapian beside it (core/shard/shard_index.h).
//
// Writes from concurrent callers are group-committed: whoever takes the write lock first commits
// every batch queued so far in one transaction, each batch in its own savepoint so that one
// refused batch does not affect the others. A backfill's slices go in one transaction while no
// client writes; a client's batch ends that transaction after the slice being applied, and goes
// first.
// Reads use a small pool of their own connections.
class ShardIndex;

class ShardStore final {
public:
    static Result<std::unique_ptr<ShardStore>> create(
        const std::string& path, const std::string& shardId, const ShardStoreOptions& options);
    static Result<std::unique_ptr<ShardStore>> open(const std::string& path, const ShardStoreOptions& options);
    // Removes the files of the shard at `path` (the database, its WAL and shared memory, and what
    // its index keeps beside them); the shard must not be open.
    static void removeFiles(const std::string& path);
    // Names the shard file at `path` (not open) shard shardId: a snapshot's file restored under
    // another id (issue 32) answers as that shard.
    static Status relabel(const std::string& path, const std::string& shardId);
    ~ShardStore();

    ShardStore(const ShardStore&) = delete;
    ShardStore& operator=(const ShardStore&) = delete;

    const std::string& id() const { return m_id; }
    const std::string& path() const { return m_path; }
    // Every field of the shard's schema (indexed or stored only), in column order.
    const std::vector<std::string>& fields() const { return m_fields; }
    const IndexSettings& indexSettings() const { return m_settings; }
    IndexEngine engine() const { return m_engine; }

    // Applies items whose version is newer than the stored one. FailedPrecondition (with
    // details space / held_epoch / held_role / sent_epoch) when an item's epoch is not the one
    // held for its space or the shard's role refuses writes; then nothing of the batch applies.
    Result<WriteSummary> write(std::vector<WriteItem> items, WriteMode mode = WriteMode::Normal);

    Result<Ownership> setOwnership(const Ownership& ownership);
    std::vector<Ownership> ownerships(std::string_view space = {}) const;

    Result<SearchResult> search(const ShardSearchRequest& request);
    Result<ScanPage> scan(
        const std::string& space, const std::string& afterId, std::uint32_t batchSize, bool includeTombstones);
    Result<std::vector<SpaceStats>> spaceStats(const std::vector<std::string>& spaces);
    // For each named field of this shard's index, the live documents per space with a value in it
    // (a scan of the shard, not O(1)); spaces with none are left out, as are fields the shard's
    // index does not have. What a template editor asks before a field is removed (issue 31).
    Result<std::vector<FieldUse>> fieldUsage(const std::vector<std::string>& fields);
    Result<ShardTotals> totals();

    // Rows (documents and tombstones) a space has on this shard.
    Result<std::uint64_t> countSpaceRows(const std::string& space);
    // Deletes up to batchSize rows of the space in one transaction, only while the space is held
    // fenced at fencedEpoch (checked under the write lock, so an ownership change cannot slip in
    // between): FailedPrecondition with the held epoch and role otherwise. Returns how many rows
    // it deleted.
    Result<std::uint64_t> dropSpaceBatch(const std::string& space, std::uint32_t batchSize, std::uint64_t fencedEpoch);

    Status checkpoint();
    // Copies the shard's database file to path (a new file) as of one consistent point: a read
    // transaction is held for the whole copy, so the writer goes on (WAL) and the copy is the shard
    // as that transaction saw it, paced by pace. When a checkpoint under the write lock took every
    // WAL frame into the file, the transaction reads the file alone, no checkpoint can change the
    // file until it ends, and the file is copied (and hashed) as bytes; otherwise, or if the file
    // changed all the same, through SQLite's online backup. The index an
    // engine keeps beside the file (Xapian's) is not copied; FTS5's is inside the file. Nothing is
    // fsynced: the caller makes the file durable (core/snapshot/snapshot_repository.h, copyShardFile).
    Result<ShardBackup> backupTo(const std::string& path, const BackupPace& pace);
    std::uint64_t bytesOnDisk() const;
    ShardActivity activity() const;
    LatencyHistogram& tickLatency() { return m_tickLatency; }
    LatencyHistogram& historyLatency() { return m_historyLatency; }

private:
    struct PendingBatch;
    struct StoredRow;
    class ReaderLease;

    ShardStore() = default;
    Status initialise(bool create, const std::string& shardId, const ShardStoreOptions& options);
    Status createSchema(const std::string& shardId, const ShardStoreOptions& options);
    Status loadSchema();
    Status loadEngine(int version);
    Status loadIndexSettings();
    Status loadOwnerships();
    Status prepareWriteStatements();
    Status openIndex();
    // After the writer's transaction ended, under the write lock: the index takes what it changed.
    void indexCommitted();
    Result<ReaderLease> acquireReader();
    // backupTo's first read on reader, under the write lock after a passive checkpoint: true when
    // the checkpoint took every WAL frame, so that the read sees the database file alone.
    bool readFromFileAlone(SqliteDb& reader);
    void releaseReader(SqliteDb db);

    // The search (shard_store_search.cpp): validated, timed and counted here, answered by the index.
    void recordSearch(const ShardSearchRequest& request, double elapsedMs);
    Status checkNoneFenced(const std::vector<std::string>& spaces) const;

    Result<WriteSummary> writeSliced(std::vector<WriteItem> items);
    Result<WriteSummary> enqueueAndWait(std::shared_ptr<PendingBatch> batch);
    void enqueueAllAndWait(const std::vector<std::shared_ptr<PendingBatch>>& batches);
    // Under m_queueMutex: the next group to commit.
    std::vector<std::shared_ptr<PendingBatch>> takeGroup();
    // Commits the group in one transaction; returns the backfill slices it left for later (a
    // client's batch arrived meanwhile), which are not done.
    std::vector<std::shared_ptr<PendingBatch>> commitGroup(std::vector<std::shared_ptr<PendingBatch>>& group);
    // Inside the group's transaction: each batch in turn until one fails the transaction
    // (storageFailure) or a client's batch cuts a backfill short (the slices left are returned).
    std::vector<std::shared_ptr<PendingBatch>> applyGroup(
        std::vector<std::shared_ptr<PendingBatch>>& group, bool& storageFailure);
    // false: the transaction cannot go on.
    bool applyInSavepoint(PendingBatch& batch, bool& storageFailure);
    // After a group's commit failed: rolls back, and commits each batch of a larger group alone.
    void recoverFailedGroup(
        std::vector<std::shared_ptr<PendingBatch>>& group, const Status& committed, bool storageFailure);
    Status applyBatch(PendingBatch& batch);
    Status checkEpochs(const PendingBatch& batch) const;
    Result<ItemResult> applyItem(const Document& doc, bool repair, std::unordered_map<std::string, SpaceStats>& deltas);
    Result<StoredRow> lookupRow(const Document& doc);
    Result<std::int64_t> writeRow(const Document& doc, const StoredRow& stored, std::uint64_t bytes,
        const std::string& extra, std::uint64_t hash);
    Status upgradeSchema(int from);
    void splitFields(const Document& doc, std::vector<std::optional<std::string>>& text, std::string& extra) const;
    Status applyDeltas(const std::unordered_map<std::string, SpaceStats>& deltas);
    void recordActivity(const PendingBatch& batch);

    // The space drop (shard_store_drop.cpp).
    Status checkFencedForDrop(const std::string& space, std::uint64_t fencedEpoch) const;
    Result<std::uint64_t> deleteSpaceRows(const std::string& space, std::uint32_t batchSize);

    std::string m_path;
    std::string m_id;
    std::vector<std::string> m_fields;
    IndexSettings m_settings;
    IndexEngine m_engine = IndexEngine::Fts5;
    ShardStoreOptions m_options;

    // Write side: one connection, guarded by m_writeMutex; the queue by m_queueMutex.
    std::mutex m_writeMutex;
    SqliteDb m_writer;
    struct WriteStatements;
    std::unique_ptr<WriteStatements> m_stmts;
    // The full-text index (core/shard/shard_index.h), written on the writer's connection.
    std::unique_ptr<ShardIndex> m_index;
    // The queue, each queued batch's `done` and whether a group commit is in progress.
    std::mutex m_queueMutex;
    std::deque<std::shared_ptr<PendingBatch>> m_queue;
    bool m_committing = false;
    // Clients' batches in the queue (not backfill slices): read by the committer between slices.
    std::atomic<int> m_clientBatchesQueued { 0 };
    std::condition_variable m_committed;

    mutable std::mutex m_ownershipMutex;
    std::unordered_map<std::string, Ownership> m_ownerships;

    std::mutex m_readerMutex;
    std::vector<SqliteDb> m_readers;

    mutable std::mutex m_activityMutex;
    ShardActivity m_activity;
    LatencyHistogram m_tickLatency;
    LatencyHistogram m_historyLatency;
};

} // namespace shardmap::core
