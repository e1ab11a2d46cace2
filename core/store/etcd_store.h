#pragma once

// The metadata store on etcd v3 and the configuration its URI gives.

#include "core/store/metadata_store.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace shardmap::core {

class EtcdClient;
class EtcdWatchRegistry;

// Where an etcd store lives and how to reach it, parsed from
// "etcd://HOST:PORT[,HOST:PORT...]/PREFIX[?user=U&password=P&ca=FILE&cert=FILE&key=FILE&timeout_ms=N]".
inline constexpr const char* kEtcdPasswordVariable = "SHARDMAP_ETCD_PASSWORD";

struct EtcdStoreConfig {
    std::vector<std::string> endpoints;
    // Every key of the store lives under PREFIX + "/"; several maps can share one etcd cluster.
    std::string prefix;
    std::string user;
    // The password: from password_file (its first line), else password= in the URI (shown in
    // process listings: avoid), else $SHARDMAP_ETCD_PASSWORD when a user is given.
    std::string password;
    std::string passwordFile;
    // TLS when caFile is set (cert and key files for client authentication, both or neither).
    std::string caFile;
    std::string certFile;
    std::string keyFile;
    // The deadline of every unary call; a watch stream has none but notices a dead server through
    // keepalive pings.
    std::chrono::milliseconds callTimeout { 5000 };
    // How long a commit or lease change keeps retrying when other commits keep winning the race
    // for the revision counter, and how long a watch keeps reconnecting before it reports an error.
    std::chrono::milliseconds retryFor { 30000 };

    static Result<EtcdStoreConfig> parse(const std::string& uri);
    // "etcd://HOST:PORT[,...]/PREFIX", without credentials.
    std::string describe() const;
};

// The metadata store on an etcd v3 cluster, for several controllers and consoles sharing one map.
// It passes the same conformance suite as SqliteStore; etcd's own revision is not the map's
// revision, because other keys (leases, other maps) share it and the map's must be consecutive.
//
// Keys under PREFIX/: meta/magic (marks the store), meta/revision (the map revision as decimal
// text, a space and the hash of its audit record: the head of the audit's hash chain), data/KEY
// (a record), audit/REVISION and leases/NAME; the methods below are grouped by the keys they use.
//
// Endpoints are tried in order: a call that fails with UNAVAILABLE or DEADLINE_EXCEEDED moves to
// the next. With user and password, the client authenticates per endpoint and sends the token as
// "token" metadata, authenticating again when etcd refuses an expired token. A Txn carries at most
// 128 operations by default (etcd's --max-txn-ops), so a commit takes at most 126 mutations.
// All methods are thread-safe.
class EtcdStore final : public MetadataStore {
public:
    static constexpr std::size_t kMaxMutations = 126;

    // Connects and checks the marker key; create: write it if missing. Opening an existing store
    // only reads, so an etcd user with read permission on the prefix alone opens it, reads and
    // watches the map and lists leases; its commits and lease changes fail with PermissionDenied
    // ("etcd user 'viewer' may not write under 'PREFIX/'"). Errors: NotFound (no store under the
    // prefix and !create), Unavailable (no endpoint answered), FailedPrecondition (authentication
    // refused, unreadable TLS files), PermissionDenied (the user may not read under the prefix).
    static Result<std::unique_ptr<EtcdStore>> open(EtcdStoreConfig config, bool create);
    ~EtcdStore() override;

    std::size_t maxMutationsPerCommit() const override { return kMaxMutations; }

    EtcdStore(const EtcdStore&) = delete;
    EtcdStore& operator=(const EtcdStore&) = delete;

    // meta/revision and data/KEY, a record as JSON {"v": value, "c": createRevision, "m":
    // modRevision} with map revisions. snapshot and list read the counter and the data/ range in
    // one read-only Txn, so both are as of one etcd revision; currentRevision reads the counter.
    Result<StoreSnapshot> snapshot() override;
    Result<StoreSnapshot> list(const std::string& prefix) override;
    Result<std::uint64_t> currentRevision() override;
    // A commit reads the counter, the touched records and the fence's lease in one read-only Txn,
    // checks expectations and the fence itself (so conflicts name keys and revisions as SQLite
    // does), then sends one Txn that compares the etcd mod_revision of every key it read and
    // writes the records, the audit record (linked to the hash the counter held) and counter + 1
    // with the new record's hash. When that Txn fails, something it read changed: it reads again,
    // which either finds a real conflict or (another commit on other keys moved the counter)
    // retries, for up to retryFor. A Txn whose outcome is unknown (deadline, lost connection) is
    // decided by reading the audit record it would have written, which carries a random commit
    // id, before anything is retried or reported.
    Result<std::uint64_t> commit(const CommitRequest& request) override;

    // audit/REVISION (20 digits): JSON of the AuditRecord with its hash and its commit's id,
    // never overwritten. history is one Range over these keys.
    Result<std::vector<AuditRecord>> history(
        std::uint64_t fromRevision, std::uint64_t toRevision, std::size_t limit) override;
    // A watch's thread reads the audit keys after the last delivered revision, then streams an etcd
    // Watch on audit/ from the revision of that read; a cancelled or compacted watch or a lost
    // server starts over with a read, so nothing is skipped or delivered twice (EtcdWatch).
    // Destroying the store ends its watches with an Unavailable error ("the store was closed").
    Result<std::unique_ptr<WatchHandle>> watch(
        std::uint64_t fromRevision, WatchCallback onRecord, WatchErrorCallback onError) override;

    // leases/NAME: JSON {holder, token, expiresUnixMs}, compared and swapped on the key's
    // mod_revision like the records; they never touch the counter. Their expiry is wall-clock
    // time checked by the clients, like SQLite's, and no etcd lease is attached (it would delete
    // the key and restart the token): the key stays when the lease is released or expires, so
    // tokens only grow. Only expired or released presence leases' keys are deleted, by the next
    // presence grant, each by a Txn that compares its mod_revision. A change whose outcome is
    // unknown is decided by reading the key again for the row it wrote.
    Result<LeaseGrant> acquireLease(
        const std::string& name, const std::string& holder, std::chrono::milliseconds ttl) override;
    Result<LeaseGrant> renewLease(const LeaseGrant& grant, std::chrono::milliseconds ttl) override;
    Status releaseLease(const LeaseGrant& grant) override;
    // One Range over leases/NAMEPREFIX; the expired are left out by this process's clock.
    Result<std::vector<LeaseGrant>> liveLeases(const std::string& namePrefix) override;

    std::string describe() const override;

    // Compacts etcd's history up to its current revision (tests and maintenance; the map's own
    // history stays, since audit records are never overwritten).
    Status compactEtcd();

private:
    struct CommitRead;
    struct LeaseRead;

    EtcdStore(EtcdStoreConfig config, std::shared_ptr<EtcdClient> client);
    Status initialise(bool create);

    Result<CommitRead> readForCommit(const CommitRequest& request);
    Status checkCommit(const CommitRequest& request, const CommitRead& read);
    Result<std::string> describeChangesSince(std::uint64_t revision, std::uint64_t current);
    Result<bool> tryCommit(const CommitRequest& request, const CommitRead& read);
    Result<bool> auditRecordIs(std::uint64_t revision, const std::string& expected);

    Result<LeaseRead> readLease(const std::string& name);
    // Reads the lease, lets decide() say what to write, writes it by compare-and-swap; repeats
    // while other clients change the lease in between.
    template <typename Decide> Result<LeaseGrant> changeLease(const std::string& name, Decide decide);
    // Removes the expired and released presence leases other than the one just granted, each
    // only if it has not changed since it was read (its replica may be taking it again). Best
    // effort: the lease is granted either way.
    void prunePresenceLeases(const std::string& granted);

    EtcdStoreConfig m_config;
    std::shared_ptr<EtcdClient> m_client;
    // PREFIX + "/": every key of the store starts with it.
    std::string m_root;
    std::shared_ptr<EtcdWatchRegistry> m_watches;
};

} // namespace shardmap::core
