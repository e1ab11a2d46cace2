#pragma once

// The metadata store's interface and values: records, commits with their audit, watches and leases,
// with the error semantics every backend keeps.

#include "core/util/result.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shardmap::core {

// One record of the store: an opaque value (the shard map keeps JSON) under a key, with the
// revision that created it and the revision that last changed it. Keys are "kind/id" paths
// (nodes/n1, shards/s1, spaces/acme, migrations/m-7, settings/limits).
struct StoredRecord {
    std::string key;
    std::string value;
    std::uint64_t createRevision = 0;
    std::uint64_t modRevision = 0;

    bool operator==(const StoredRecord&) const = default;
};

// Every record as of one revision. A snapshot never mixes two revisions.
struct StoreSnapshot {
    std::uint64_t revision = 0;
    std::map<std::string, StoredRecord> records;
};

// One key's change in a commit: its value before and after (nullopt: absent).
struct RecordChange {
    std::string key;
    std::optional<std::string> before;
    std::optional<std::string> after;

    bool operator==(const RecordChange&) const = default;
};

// The audit record of one commit. Revisions are consecutive: commit N+1 follows commit N.
struct AuditRecord {
    std::uint64_t revision = 0;
    std::int64_t unixMs = 0;
    std::string actor;
    std::string action;
    std::string reason;
    std::vector<RecordChange> changes;
    // The record's link in the audit's hash chain (core/store/audit_chain.h): hex SHA-256 of the
    // previous record's hash and this record. The store computes it when it commits; empty for
    // records written before the store kept the chain.
    std::string hash;
};

// A put (value set) or delete (value nullopt) of one key, optionally conditional on the key's
// modRevision: expectModRevision 0 means "must not exist".
struct Mutation {
    std::string key;
    std::optional<std::string> value;
    std::optional<std::uint64_t> expectModRevision;
};

// A lease held by one holder; token grows every time the lease changes hands, so a write fenced
// with an old token is refused even if the old holder does not know it lost the lease.
struct LeaseGrant {
    std::string name;
    std::string holder;
    std::uint64_t token = 0;
    std::int64_t expiresUnixMs = 0;
};

// An atomic change of the map: all mutations or none, with one audit record.
struct CommitRequest {
    std::vector<Mutation> mutations;
    // Commit only if the store is still at this revision (whole-map compare-and-set).
    std::optional<std::uint64_t> expectRevision;
    // Commit only while this lease is held with this token (leader-only writes).
    std::optional<LeaseGrant> fence;
    std::string actor;
    std::string action;
    std::string reason;
};

// Delivers audit records in revision order, none skipped. The callback runs on a store thread;
// it must not block for long. Destroying the handle stops the watch and waits for a callback in
// progress to return.
class WatchHandle {
public:
    virtual ~WatchHandle() = default;
};
using WatchCallback = std::function<void(const AuditRecord&)>;
// Called once if the watch cannot continue (store gone, history compacted past it).
using WatchErrorCallback = std::function<void(const Error&)>;

// The metadata store behind the shard map. Backends: SQLite (one file, embedded, default) and
// etcd v3. Every backend passes the same conformance suite (tests/core/store_conformance_test).
//
// Conflicts: a commit whose expectRevision or any expectModRevision no longer holds fails with
// ErrorCode::Conflict, a message naming the keys that changed, and details "current_revision".
// A commit with a fence whose lease was lost or re-granted fails with ErrorCode::FailedPrecondition.
// A backend with its own access control (etcd's users and roles) refuses what the caller's
// identity may not do with ErrorCode::PermissionDenied, before anything changed.
class MetadataStore {
public:
    virtual ~MetadataStore() = default;

    virtual Result<StoreSnapshot> snapshot() = 0;
    // Records under a key prefix ("spaces/") as of one consistent revision.
    virtual Result<StoreSnapshot> list(const std::string& prefix) = 0;
    virtual Result<std::uint64_t> currentRevision() = 0;
    // Applies the request atomically; returns the new revision.
    virtual Result<std::uint64_t> commit(const CommitRequest& request) = 0;
    // Audit records with fromRevision < revision <= toRevision (toRevision 0: up to now), oldest
    // first, at most limit (0: no limit).
    virtual Result<std::vector<AuditRecord>> history(
        std::uint64_t fromRevision, std::uint64_t toRevision, std::size_t limit)
        = 0;
    // Every commit after fromRevision, in order, first those already made, then new ones.
    virtual Result<std::unique_ptr<WatchHandle>> watch(
        std::uint64_t fromRevision, WatchCallback onRecord, WatchErrorCallback onError)
        = 0;

    // Grants the lease to holder if it is free, expired, or already the holder's (then renews).
    // FailedPrecondition naming the current holder otherwise.
    // Granting a presence lease (a name under kReplicaLeasePrefix, one per shardmapd run) also
    // removes the other presence leases that expired or were released, which would otherwise stay
    // forever, one per run; such a name granted again starts at token 1. Other leases (the
    // executor's) are never removed: their token must keep growing to fence old holders.
    virtual Result<LeaseGrant> acquireLease(
        const std::string& name, const std::string& holder, std::chrono::milliseconds ttl)
        = 0;
    // Extends a held lease; FailedPrecondition if it was lost (expired and taken, or re-granted).
    virtual Result<LeaseGrant> renewLease(const LeaseGrant& grant, std::chrono::milliseconds ttl) = 0;
    virtual Status releaseLease(const LeaseGrant& grant) = 0;
    // The leases whose name starts with namePrefix and that are held now (not expired or
    // released), by name: who holds the executor lease, which controller replicas are alive.
    virtual Result<std::vector<LeaseGrant>> liveLeases(const std::string& namePrefix) = 0;

    // A short description for status bars and logs ("sqlite:/var/lib/shardmap/map.db").
    virtual std::string describe() const = 0;

    // The most mutations one commit may carry (etcd: one Txn); larger changes commit in chunks.
    virtual std::size_t maxMutationsPerCommit() const { return std::numeric_limits<std::size_t>::max(); }
};

// Opens a store from a URI: "sqlite:PATH" (created if missing when create is true) or
// "etcd://HOST:PORT[,HOST:PORT...]/PREFIX[?user=U&password=P&ca=FILE&cert=FILE&key=FILE]" (see
// EtcdStoreConfig; create writes the store's marker under PREFIX if it is missing).
Result<std::unique_ptr<MetadataStore>> openStore(const std::string& uri, bool create);

} // namespace shardmap::core
