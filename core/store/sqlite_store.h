#pragma once

// The embedded metadata store: one SQLite file with the map's records, audit and leases.

#include "core/shard/sqlite_db.h"
#include "core/store/metadata_store.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace shardmap::core {

struct SqliteStoreOptions {
    // How long a write waits for another connection's write transaction (in this process or
    // another) before it fails with Unavailable "store is locked by another process".
    int busyTimeoutMs = 5000;
    // Reader connections kept for reuse; more are opened while many threads read at once.
    std::size_t readerConnections = 4;
    // How often a watch checks for commits made through other connections or processes; commits
    // through this store wake its watches at once.
    std::chrono::milliseconds watchPollInterval { 20 };
    // Fault injection for tests: runs inside commit() after the mutations and the audit record are
    // written and before COMMIT, so a test can kill the process in the middle of a transaction.
    std::function<void()> beforeCommit;
};

// The embedded metadata store: one SQLite file in WAL mode with synchronous=FULL (the map is small
// and a commit that was acknowledged must survive power loss). Tables: meta (magic, schema
// version, revision), records, audit (one row per revision, written in the commit's transaction,
// with its hash-chain link) and leases; opening a store of schema version 1 upgrades it in
// place. Any number of stores, in this process or others, may open the same file. What a call
// costs and waits for is the connection it runs on, so the methods below are grouped by that:
// pooled readers, the one writer, a watch's own thread. All methods are thread-safe.
class SqliteStore final : public MetadataStore {
public:
    // 2: audit records carry their hash-chain link (core/store/audit_chain.h).
    static constexpr int kSchemaVersion = 2;

    // Opens the store at path. create: make the file and schema if the file is missing (or empty).
    // Errors: NotFound (no file and !create), FailedPrecondition (not a Shardmap store, a newer
    // schema, a read-only file or directory), Unavailable (locked past busyTimeoutMs). A failed
    // open changes nothing (a file it created is removed again while still empty).
    static Result<std::unique_ptr<SqliteStore>> open(
        const std::string& path, bool create, SqliteStoreOptions options = {});
    ~SqliteStore() override;

    SqliteStore(const SqliteStore&) = delete;
    SqliteStore& operator=(const SqliteStore&) = delete;

    // On a pooled reader connection (readerConnections kept, more opened while many threads read),
    // inside one read transaction, so a call sees exactly one revision and, in WAL mode, does not
    // wait for a writer. snapshot and list read meta's revision and the records table, currentRevision the
    // revision alone, history the audit table's rows.
    Result<StoreSnapshot> snapshot() override;
    Result<StoreSnapshot> list(const std::string& prefix) override;
    Result<std::uint64_t> currentRevision() override;
    Result<std::vector<AuditRecord>> history(
        std::uint64_t fromRevision, std::uint64_t toRevision, std::size_t limit) override;
    // The leases table's rows under namePrefix whose expiry is later than this process's clock.
    Result<std::vector<LeaseGrant>> liveLeases(const std::string& namePrefix) override;

    // On the one writer connection, in BEGIN IMMEDIATE: the call holds SQLite's write lock from its
    // first read to COMMIT, waiting up to busyTimeoutMs for another connection's (then Unavailable
    // "store is locked by another process"). commit reads meta's revision, the touched records and
    // the fence's leases row, checks them, and writes the records, one audit row linked to the
    // previous row's hash and meta's revision + 1 in that one transaction.
    // Refuses (InvalidArgument) an empty commit, an empty or non-UTF-8 key, a non-UTF-8 value or
    // text, and a key written twice in one commit. A delete of a missing key is a change from
    // absent to absent.
    Result<std::uint64_t> commit(const CommitRequest& request) override;
    // Leases are rows of the leases table, read and written in the same kind of transaction; they
    // are not map revisions and write no audit row. A lease's row is kept when it is released or
    // expires, so its token only grows: acquiring a free, expired or released lease starts a new
    // grant with token + 1, acquiring one's own live lease renews it with the same token. Only
    // expired or released presence leases' rows are deleted, by the next presence grant.
    Result<LeaseGrant> acquireLease(
        const std::string& name, const std::string& holder, std::chrono::milliseconds ttl) override;
    // Renews while holder and token still match, even after expiry if nobody took the lease in
    // between; refuses a released lease.
    Result<LeaseGrant> renewLease(const LeaseGrant& grant, std::chrono::milliseconds ttl) override;
    // Releasing a lease that was already lost or released succeeds and changes nothing.
    Status releaseLease(const LeaseGrant& grant) override;

    // On a thread and a connection of the watch's own: it reads the audit rows after the last
    // revision it delivered, 256 per read transaction, and delivers them after the transaction
    // ends. Commits through this store wake it at once; others' (PRAGMA data_version) are seen
    // within watchPollInterval. Destroying the store ends its watches with an Unavailable error
    // ("the store was closed").
    Result<std::unique_ptr<WatchHandle>> watch(
        std::uint64_t fromRevision, WatchCallback onRecord, WatchErrorCallback onError) override;

    std::string describe() const override;
    const std::string& path() const { return m_path; }

private:
    struct CommitSignal;
    struct WriteStatements;
    struct LeaseRow;
    class Watch;
    using StoredRecords = std::map<std::string, std::optional<StoredRecord>>;

    SqliteStore(std::string path, SqliteStoreOptions options);
    Status initialise(bool create);
    Status openWriter();
    Status switchToWal();
    Status createSchema();
    Status checkSchema();
    Status upgradeSchema();
    Status prepareStatements();

    Result<SqliteDb> openConnection() const;
    Result<SqliteDb> takeReader();
    void returnReader(SqliteDb db);
    template <typename T, typename Body> Result<T> readTransaction(Body body);
    template <typename T, typename Body> Result<T> writeTransaction(Body body);

    Result<std::uint64_t> commitLocked(const CommitRequest& request);
    Result<std::optional<StoredRecord>> readRecord(const std::string& key);
    Result<StoredRecords> readTouched(const std::vector<Mutation>& mutations);
    Status checkFence(const std::optional<LeaseGrant>& fence);
    Status checkExpectations(const CommitRequest& request, std::uint64_t current, const StoredRecords& touched);
    Result<std::string> describeChangesSince(std::uint64_t revision, std::uint64_t current);
    Result<std::vector<RecordChange>> applyMutations(
        const std::vector<Mutation>& mutations, const StoredRecords& touched, std::uint64_t revision);
    Status applyMutation(const Mutation& mutation, std::uint64_t revision);
    Status writeAudit(const CommitRequest& request, std::vector<RecordChange> changes, std::uint64_t revision);
    Result<std::string> readAuditHash(std::uint64_t revision);
    void signalCommit();

    Result<std::optional<LeaseRow>> readLease(const std::string& name);
    Status writeLease(const LeaseGrant& grant);
    Result<LeaseGrant> acquireLocked(const std::string& name, const std::string& holder, std::chrono::milliseconds ttl);
    Result<LeaseGrant> renewLocked(const LeaseGrant& grant, std::chrono::milliseconds ttl);
    Status releaseLocked(const LeaseGrant& grant);
    // Removes the expired and released presence leases other than the one just granted.
    Status prunePresenceLeases(const std::string& granted, std::int64_t now);

    std::string m_path;
    SqliteStoreOptions m_options;
    std::shared_ptr<CommitSignal> m_signal;

    // Write side: one connection and its prepared statements, guarded by m_writeMutex.
    std::mutex m_writeMutex;
    SqliteDb m_writer;
    std::unique_ptr<WriteStatements> m_stmts;

    std::mutex m_readerMutex;
    std::vector<SqliteDb> m_readers;
};

} // namespace shardmap::core
