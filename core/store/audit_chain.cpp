#include "core/store/audit_chain.h"

// The hash chain's implementation: a record's canonical encoding and hash, the verifier that walks
// a history and the live records, and the check of a whole store.

#include "core/util/sha256.h"

#include <algorithm>

namespace shardmap::core {

namespace {

constexpr std::string_view kEncodingVersion = "shardmap-audit-1";
// History pages verifyAuditChain reads at a time.
constexpr std::size_t kPage = 1000;

void appendField(std::string& out, std::string_view text)
{
    out += std::to_string(text.size());
    out += ':';
    out += text;
    out += ',';
}

void appendOptional(std::string& out, const std::optional<std::string>& text)
{
    if (text)
        appendField(out, *text);
    else
        out += '~';
}

bool isHash(const std::string& text)
{
    return text.size() == kAuditChainAnchor.size() && std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    });
}

std::string revisionText(std::uint64_t revision)
{
    return "revision " + std::to_string(revision);
}

} // namespace

std::string canonicalAuditEncoding(const AuditRecord& record)
{
    std::string out;
    std::size_t size = 64 + record.actor.size() + record.action.size() + record.reason.size();
    for (const auto& change : record.changes)
        size += 32 + change.key.size() + (change.before ? change.before->size() : 0)
            + (change.after ? change.after->size() : 0);
    out.reserve(size);
    appendField(out, kEncodingVersion);
    appendField(out, std::to_string(record.revision));
    appendField(out, std::to_string(record.unixMs));
    appendField(out, record.actor);
    appendField(out, record.action);
    appendField(out, record.reason);
    appendField(out, std::to_string(record.changes.size()));
    for (const auto& change : record.changes) {
        appendField(out, change.key);
        appendOptional(out, change.before);
        appendOptional(out, change.after);
    }
    return out;
}

std::string auditChainHash(std::string_view previousHash, const AuditRecord& record)
{
    std::string data(previousHash);
    data += canonicalAuditEncoding(record);
    return toHex(sha256(data));
}

std::string_view auditChainPrevious(const std::string& previousRecordHash)
{
    return previousRecordHash.empty() ? kAuditChainAnchor : std::string_view(previousRecordHash);
}

const char* auditBreakKindName(AuditBreakKind kind)
{
    switch (kind) {
    case AuditBreakKind::MissingRevision: return "missing-revision";
    case AuditBreakKind::ChangedRecord: return "changed-record";
    case AuditBreakKind::HashMismatch: return "hash-mismatch";
    case AuditBreakKind::RecordDiffers: return "record-differs";
    }
    return "unknown";
}

// ---- the verifier --------------------------------------------------------------------------------

AuditChainVerifier::AuditChainVerifier(std::uint64_t after, std::string afterHash)
    : m_revision(after)
    , m_hash(std::move(afterHash))
    , m_chainStart(m_hash.empty() ? 0 : after)
{
}

void AuditChainVerifier::fail(std::uint64_t revision, AuditBreakKind kind, std::string message, std::string key)
{
    ++m_breaks;
    if (!m_break)
        m_break = AuditChainBreak { revision, kind, std::move(key), std::move(message) };
}

void AuditChainVerifier::add(const AuditRecord& record)
{
    if (record.revision != m_revision + 1)
        fail(m_revision + 1, AuditBreakKind::MissingRevision,
            revisionText(m_revision + 1) + " is missing from the audit (the next record is "
                + revisionText(record.revision) + ")");
    const bool verified = checkLink(record);
    remember(record, verified);
    m_revision = record.revision;
    // The next record is checked against this one's hash as stored, so that one edit is one break.
    m_hash = record.hash;
    ++m_records;
}

// Whether the record fits the chain; a record written before the chain began fits.
bool AuditChainVerifier::checkLink(const AuditRecord& record)
{
    if (record.hash.empty()) {
        if (m_chainStart == 0)
            return true;
        fail(record.revision, AuditBreakKind::HashMismatch,
            revisionText(record.revision) + " has no hash, but the audit chain began at " + revisionText(m_chainStart)
                + ": the record was replaced");
        return false;
    }
    if (!isHash(record.hash)) {
        fail(record.revision, AuditBreakKind::HashMismatch,
            revisionText(record.revision) + " has a malformed hash '" + record.hash.substr(0, 80) + "'");
        return false;
    }
    if (m_chainStart == 0)
        m_chainStart = record.revision;
    if (auditChainHash(auditChainPrevious(m_hash), record) == record.hash)
        return true;
    fail(record.revision, AuditBreakKind::ChangedRecord,
        revisionText(record.revision) + " does not match its hash: the record (its time, actor, action, reason or"
            + " changes) or its hash was changed after it was written");
    return false;
}

void AuditChainVerifier::remember(const AuditRecord& record, bool verified)
{
    for (const auto& change : record.changes) {
        if (m_trackAll || m_tracked.contains(change.key))
            m_writes[change.key] = AuditedWrite { record.revision, change.after, verified };
    }
}

void AuditChainVerifier::finish(std::uint64_t storeRevision)
{
    if (m_revision < storeRevision)
        fail(m_revision + 1, AuditBreakKind::MissingRevision,
            revisionText(m_revision + 1) + " is missing from the audit (the store is at " + revisionText(storeRevision)
                + ", the audit ends at " + revisionText(m_revision) + ")");
}

void AuditChainVerifier::checkLiveRecords(const StoreSnapshot& snapshot)
{
    for (const auto& [key, record] : snapshot.records) {
        if (auto problem = liveRecordProblem(key, &record))
            fail(record.modRevision, AuditBreakKind::RecordDiffers, std::move(*problem), key);
    }
    for (const auto& [key, write] : m_writes) {
        if (snapshot.records.contains(key))
            continue;
        if (auto problem = liveRecordProblem(key, nullptr))
            fail(write.revision, AuditBreakKind::RecordDiffers, std::move(*problem), key);
    }
}

std::optional<std::string> AuditChainVerifier::liveRecordProblem(const std::string& key, const StoredRecord* live) const
{
    const AuditedWrite* write = lastWrite(key);
    const std::string what
        = "record '" + key + "'" + (live ? " (mod " + revisionText(live->modRevision) + ")" : std::string());
    if (!write)
        return live ? std::optional(what + " was written without an audit record: no audit record wrote it")
                    : std::nullopt;
    if (!write->verified)
        return what + ": the audit record that wrote it last, " + revisionText(write->revision)
            + ", does not match its hash";
    if (!write->value)
        return live ? std::optional(
                   what + " was written without an audit record: " + revisionText(write->revision) + " deleted it")
                    : std::nullopt;
    if (!live)
        return what + " is gone, but no audit record deleted it (" + revisionText(write->revision) + " wrote it last)";
    if (write->revision != live->modRevision || *write->value != live->value)
        return what + " is not the value " + revisionText(write->revision)
            + " wrote: it was written without an audit record";
    return std::nullopt;
}

const AuditedWrite* AuditChainVerifier::lastWrite(const std::string& key) const
{
    const auto found = m_writes.find(key);
    return found == m_writes.end() ? nullptr : &found->second;
}

// ---- a whole store -----------------------------------------------------------------------------

Result<AuditChainReport> verifyAuditChain(MetadataStore& store, bool liveRecords)
{
    std::optional<StoreSnapshot> snapshot;
    std::uint64_t revision = 0;
    if (liveRecords) {
        auto read = store.snapshot();
        if (!read)
            return read.error();
        revision = read->revision;
        snapshot = std::move(*read);
    } else {
        auto current = store.currentRevision();
        if (!current)
            return current.error();
        revision = *current;
    }
    AuditChainVerifier verifier;
    if (liveRecords)
        verifier.trackAllKeys();
    while (verifier.revision() < revision) {
        auto page = store.history(verifier.revision(), revision, kPage);
        if (!page)
            return page.error();
        if (page->empty())
            break;
        for (const auto& record : *page)
            verifier.add(record);
    }
    verifier.finish(revision);
    if (snapshot)
        verifier.checkLiveRecords(*snapshot);
    return AuditChainReport { revision, verifier.records(), snapshot ? snapshot->records.size() : 0,
        verifier.chainStart(), verifier.hash(), verifier.firstBreak(), verifier.breaks() };
}

} // namespace shardmap::core
