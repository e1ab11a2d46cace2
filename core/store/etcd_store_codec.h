#pragma once

#include "core/store/metadata_store.h"

#include <cstdint>
#include <etcd/rpc.pb.h>
#include <string>

// How EtcdStore lays out the map in etcd keys and values, and the etcd request pieces it builds
// (internal to core/store). Every key starts with the store's root, PREFIX + "/".
namespace shardmap::core::etcd_codec {

// One lease as stored under leases/NAME; expiresUnixMs 0: released.
struct LeaseRow {
    std::string holder;
    std::uint64_t token = 0;
    std::int64_t expiresUnixMs = 0;

    bool operator==(const LeaseRow&) const = default;
};

std::string magicKey(const std::string& root);
std::string revisionKey(const std::string& root);
std::string dataPrefix(const std::string& root);
std::string dataKey(const std::string& root, const std::string& key);
std::string auditPrefix(const std::string& root);
// The revision in 20 digits, so that key order is revision order.
std::string auditKey(const std::string& root, std::uint64_t revision);
std::string leaseKey(const std::string& root, const std::string& name);
// The first key after every key that starts with prefix (etcd's range_end for a prefix).
std::string rangeEnd(const std::string& prefix);

// The map revision counter (meta/revision) with the hash of that revision's audit record, so that
// a commit links its own record to the chain without reading the one before: "REVISION HASH", or
// "REVISION" alone in a store written before the chain (its next record links to the anchor).
struct Counter {
    std::uint64_t revision = 0;
    std::string hash;
};
std::string encodeCounter(const Counter& counter);
Result<Counter> decodeCounter(const std::string& text);
// A record's value with its map revisions: JSON {"v", "c", "m"}.
std::string encodeRecord(const std::string& value, std::uint64_t createRevision, std::uint64_t modRevision);
Result<StoredRecord> decodeRecord(const std::string& key, const std::string& text);
// An audit record as JSON, its hash included; commitId tells a commit's own record from another
// client's.
std::string encodeAudit(const AuditRecord& record, const std::string& commitId);
Result<AuditRecord> decodeAudit(const std::string& text);
std::string encodeLease(const LeaseRow& lease);
Result<LeaseRow> decodeLease(const std::string& name, const std::string& text);

etcdserverpb::RequestOp rangeOp(const std::string& key, const std::string& end = {}, std::int64_t limit = 0);
etcdserverpb::RequestOp putOp(const std::string& key, const std::string& value);
etcdserverpb::RequestOp deleteOp(const std::string& key);
// key's etcd mod_revision equals revision (0: the key does not exist).
etcdserverpb::Compare modRevisionIs(const std::string& key, std::int64_t revision);

} // namespace shardmap::core::etcd_codec
