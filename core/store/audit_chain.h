#pragma once

// The audit's hash chain. Every audit record carries hash = SHA-256(hash of the record before it +
// the canonical encoding of this record), in hex; the first record of a chain links to the anchor
// (64 zeros), which stands for the start of the history or, in a store upgraded to the chain, for
// the records written before it (they stay, without a hash). So a record edited in the store no
// longer matches its hash, a deleted one leaves a revision missing, and a direct write of a key
// that bypassed the commit leaves a live record that no audit record wrote. A writer who
// recomputes every hash after its edit is not caught by the chain alone (there is no secret):
// restrict who may write the store, and compare the head hash with one kept elsewhere (a
// running shardmapd remembers the one it verified). Both store backends compute the hash when
// they commit, through the functions here, and `shardmapctl map verify-audit`, shardmapctl health
// and shardmapd check it with AuditChainVerifier.

#include "core/store/metadata_store.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace shardmap::core {

// What the first record of a chain links to.
inline constexpr std::string_view kAuditChainAnchor
    = "0000000000000000000000000000000000000000000000000000000000000000";

// The bytes the hash covers: a version tag, then revision, time, actor, action, reason and every
// change's key, before and after, each as a netstring ("LENGTH:BYTES,"), an absent value as "~".
// Lengths make it unambiguous whatever the texts contain.
std::string canonicalAuditEncoding(const AuditRecord& record);
// hex SHA-256 of previousHash (kAuditChainAnchor for the first record) and the canonical encoding.
std::string auditChainHash(std::string_view previousHash, const AuditRecord& record);
// What a new record links to, given the hash of the record before it (empty: there is none, or
// it was written before the chain).
std::string_view auditChainPrevious(const std::string& previousRecordHash);

enum class AuditBreakKind {
    // A revision between the first and the store's current one has no audit record.
    MissingRevision,
    // The record does not match its hash: it was changed after it was written.
    ChangedRecord,
    // A record of the chain has no hash or a malformed one, or a different hash than a check
    // before saw at its revision (the chain was rewritten).
    HashMismatch,
    // A live record is not what the newest audit record of its key wrote (a write that
    // bypassed the audit).
    RecordDiffers,
};
// "missing-revision", "changed-record", "hash-mismatch", "record-differs".
const char* auditBreakKindName(AuditBreakKind kind);

struct AuditChainBreak {
    std::uint64_t revision = 0;
    AuditBreakKind kind = AuditBreakKind::ChangedRecord;
    // The key, for RecordDiffers.
    std::string key;
    // A sentence naming the revision and what is wrong.
    std::string message;

    bool operator==(const AuditChainBreak&) const = default;
};

// The newest audit record of one key: its revision and the value it wrote (nullopt: deleted).
// verified: that record matched its hash (or was written before the chain began).
struct AuditedWrite {
    std::uint64_t revision = 0;
    std::optional<std::string> value;
    bool verified = true;
};

// Checks audit records fed in revision order. Each record is checked against the hash of the
// record before it as stored, so one edited record is one break and the records after it still
// verify; the first break is kept. Optionally remembers the newest write of some keys (or of
// every key) to check live records against.
class AuditChainVerifier {
public:
    // Starts after revision `after` whose hash was afterHash (0 and empty: the start of the
    // history).
    explicit AuditChainVerifier(std::uint64_t after = 0, std::string afterHash = {});

    // Remember the newest write of these keys; trackAllKeys: of every key.
    void trackKeys(std::set<std::string> keys) { m_tracked = std::move(keys); }
    void trackAllKeys() { m_trackAll = true; }

    void add(const AuditRecord& record);
    // The history read reaches the store's revision storeRevision: a shorter one lost its tail.
    void finish(std::uint64_t storeRevision);
    // Every live record is the value the newest audit record of its key wrote, at that revision,
    // and every key the audit left present is live. Needs trackAllKeys and the whole history.
    void checkLiveRecords(const StoreSnapshot& snapshot);

    const std::optional<AuditChainBreak>& firstBreak() const { return m_break; }
    std::size_t breaks() const { return m_breaks; }
    // The last record added and its hash.
    std::uint64_t revision() const { return m_revision; }
    const std::string& hash() const { return m_hash; }
    std::uint64_t records() const { return m_records; }
    // The first revision with a hash; 0 while none was seen.
    std::uint64_t chainStart() const { return m_chainStart; }
    const AuditedWrite* lastWrite(const std::string& key) const;
    // Why the key's live record (null: absent) is not what the newest audit record of the key
    // wrote; nullopt when it is. Only for tracked keys.
    std::optional<std::string> liveRecordProblem(const std::string& key, const StoredRecord* live) const;

private:
    void fail(std::uint64_t revision, AuditBreakKind kind, std::string message, std::string key = {});
    bool checkLink(const AuditRecord& record);
    void remember(const AuditRecord& record, bool verified);

    std::uint64_t m_revision;
    std::string m_hash;
    std::uint64_t m_records = 0;
    std::uint64_t m_chainStart = 0;
    std::optional<AuditChainBreak> m_break;
    std::size_t m_breaks = 0;
    bool m_trackAll = false;
    std::set<std::string> m_tracked;
    std::map<std::string, AuditedWrite> m_writes;
};

// What verifyAuditChain found.
struct AuditChainReport {
    // The store revision the check reached, and the records and live records it read.
    std::uint64_t revision = 0;
    std::uint64_t records = 0;
    std::uint64_t liveRecords = 0;
    std::uint64_t chainStart = 0;
    // The hash of the newest record (keep it elsewhere to notice a rewrite of the whole chain).
    std::string headHash;
    std::optional<AuditChainBreak> broken;
    std::size_t breaks = 0;
};

// Reads the store's whole history (in pages) and checks the chain; with liveRecords, also every
// live record against the audit (one snapshot, at the revision the history is read up to).
Result<AuditChainReport> verifyAuditChain(MetadataStore& store, bool liveRecords);

} // namespace shardmap::core
