#include "core/store/etcd_store.h"

// EtcdStore's implementation: opening (the magic and revision keys), reads at one etcd revision,
// commits as one compare-and-set transaction on the revision counter, and leases.

#include "core/store/audit_chain.h"
#include "core/store/etcd_client.h"
#include "core/store/etcd_store_codec.h"
#include "core/store/etcd_watch.h"
#include "core/store/lease_names.h"
#include "core/store/store_rules.h"
#include "core/util/clock.h"
#include "core/util/failpoint.h"
#include "core/util/validation.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <thread>

namespace shardmap::core {

using namespace etcd_codec;

namespace {

using store_rules::conflictError;
using store_rules::expectationProblem;
using store_rules::inQuotes;
using store_rules::joined;
using store_rules::validateLease;

constexpr std::string_view kEtcdMagic = "shardmap-store 1";
using store_rules::changedKeysNewestFirst;
using store_rules::changedSinceMessage;
using store_rules::conflictScanFrom;
using store_rules::kConflictKeysNamed;

std::string describeLease(const LeaseRow& lease, std::int64_t now)
{
    return store_rules::describeLease(lease.holder, lease.token, lease.expiresUnixMs, now);
}

Error leaseError(std::string message, const std::optional<LeaseRow>& lease)
{
    Error error = makeError(ErrorCode::FailedPrecondition, std::move(message));
    error.details["holder"] = lease ? lease->holder : std::string();
    error.details["token"] = std::to_string(lease ? lease->token : 0);
    return error;
}

std::string leaseState(const std::optional<LeaseRow>& lease, std::int64_t now)
{
    return lease ? describeLease(*lease, now) : "it was never granted";
}

bool outcomeUnknown(const Error& error)
{
    const auto found = error.details.find("outcome");
    return found != error.details.end() && found->second == "unknown";
}

std::string newCommitId()
{
    thread_local std::mt19937_64 random { std::random_device {}() };
    return std::to_string(random());
}

// Spreads out clients that lost a race for the counter so that they do not collide again.
void backOff(int attempt)
{
    thread_local std::mt19937 random { std::random_device {}() };
    std::uniform_int_distribution<int> ms(0, std::min(attempt, 20));
    std::this_thread::sleep_for(std::chrono::milliseconds(ms(random)));
}

const etcdserverpb::RangeResponse& rangeAt(const etcdserverpb::TxnResponse& response, int index)
{
    return response.responses(index).response_range();
}

std::optional<mvccpb::KeyValue> onlyValue(const etcdserverpb::RangeResponse& range)
{
    if (range.kvs_size() == 0)
        return std::nullopt;
    return range.kvs(0);
}

Result<Counter> counterValue(const etcdserverpb::RangeResponse& range)
{
    const auto kv = onlyValue(range);
    if (!kv)
        return Counter {};
    return decodeCounter(kv->value());
}

} // namespace

// ---- opening -----------------------------------------------------------------------------------

struct EtcdStore::CommitRead {
    struct Touched {
        std::optional<StoredRecord> record;
        std::int64_t etcdRevision = 0; // the key's etcd mod_revision, 0: absent
    };
    std::uint64_t current = 0;
    // The hash of the audit record of `current` (empty: before the chain), which the new one links to.
    std::string currentHash;
    std::int64_t counterEtcdRevision = 0;
    std::map<std::string, Touched> touched;
    std::optional<LeaseRow> lease;
    std::int64_t leaseEtcdRevision = 0;
};

struct EtcdStore::LeaseRead {
    std::optional<LeaseRow> lease;
    std::int64_t etcdRevision = 0;
};

Result<std::unique_ptr<EtcdStore>> EtcdStore::open(EtcdStoreConfig config, bool create)
{
    auto client = EtcdClient::create(config);
    if (!client)
        return client.error();
    std::unique_ptr<EtcdStore> store(new EtcdStore(std::move(config), std::move(*client)));
    if (auto status = store->initialise(create); !status) {
        Error error = status.error();
        if (error.context.empty())
            error.context = store->describe();
        return error;
    }
    return store;
}

EtcdStore::EtcdStore(EtcdStoreConfig config, std::shared_ptr<EtcdClient> client)
    : m_config(std::move(config))
    , m_client(std::move(client))
    , m_root(m_config.prefix + "/")
    , m_watches(std::make_shared<EtcdWatchRegistry>())
{
}

EtcdStore::~EtcdStore()
{
    m_watches->close();
}

// Checks the marker key; with create, writes it unless another client just did.
Status EtcdStore::initialise(bool create)
{
    constexpr int kAttempts = 3;
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
        etcdserverpb::RangeRequest request;
        request.set_key(magicKey(m_root));
        auto marker = m_client->range(request);
        if (!marker)
            return marker.error();
        if (const auto kv = onlyValue(*marker)) {
            if (kv->value() == kEtcdMagic)
                return {};
            return makeError(ErrorCode::FailedPrecondition,
                describe() + " is not a Shardmap store (its marker reads '" + kv->value() + "')");
        }
        if (!create)
            return makeError(ErrorCode::NotFound, "no Shardmap store at " + describe() + " (run `shardmapctl init`)");
        etcdserverpb::TxnRequest txn;
        *txn.add_compare() = modRevisionIs(magicKey(m_root), 0);
        *txn.add_success() = putOp(magicKey(m_root), std::string(kEtcdMagic));
        auto written = m_client->writeTxn(txn);
        if (written && written->succeeded())
            return {};
        if (!written && !outcomeUnknown(written.error()))
            return written.error();
    }
    return makeError(ErrorCode::Unavailable, "cannot create the store marker in etcd");
}

std::string EtcdStore::describe() const
{
    return m_config.describe();
}

Status EtcdStore::compactEtcd()
{
    etcdserverpb::RangeRequest request;
    request.set_key(magicKey(m_root));
    auto response = m_client->range(request);
    if (!response)
        return response.error();
    return m_client->compact(response->header().revision());
}

// ---- reads -------------------------------------------------------------------------------------

Result<StoreSnapshot> EtcdStore::snapshot()
{
    return list({});
}

// The counter and the records in one read-only Txn: both as of the same etcd revision.
Result<StoreSnapshot> EtcdStore::list(const std::string& prefix)
{
    const std::string from = dataKey(m_root, prefix);
    etcdserverpb::TxnRequest txn;
    *txn.add_success() = rangeOp(revisionKey(m_root));
    *txn.add_success() = rangeOp(from, rangeEnd(from));
    auto response = m_client->readTxn(txn);
    if (!response)
        return response.error();
    if (response->responses_size() != 2)
        return makeError(ErrorCode::Internal,
            "etcd answered a read with " + std::to_string(response->responses_size()) + " results instead of 2");
    StoreSnapshot snapshot;
    auto counter = counterValue(rangeAt(*response, 0));
    if (!counter)
        return counter.error();
    snapshot.revision = counter->revision;
    const std::size_t skip = dataPrefix(m_root).size();
    for (const auto& kv : rangeAt(*response, 1).kvs()) {
        const std::string key = kv.key().substr(skip);
        auto record = decodeRecord(key, kv.value());
        if (!record)
            return record.error();
        snapshot.records.emplace(key, std::move(*record));
    }
    return snapshot;
}

Result<std::uint64_t> EtcdStore::currentRevision()
{
    etcdserverpb::RangeRequest request;
    request.set_key(revisionKey(m_root));
    auto response = m_client->range(request);
    if (!response)
        return response.error();
    auto counter = counterValue(*response);
    if (!counter)
        return counter.error();
    return counter->revision;
}

Result<std::vector<AuditRecord>> EtcdStore::history(
    std::uint64_t fromRevision, std::uint64_t toRevision, std::size_t limit)
{
    std::vector<AuditRecord> records;
    if (toRevision != 0 && toRevision <= fromRevision)
        return records;
    etcdserverpb::RangeRequest request;
    request.set_key(auditKey(m_root, fromRevision + 1));
    request.set_range_end(toRevision != 0 ? auditKey(m_root, toRevision + 1) : rangeEnd(auditPrefix(m_root)));
    request.set_limit(static_cast<std::int64_t>(limit));
    auto response = m_client->range(request);
    if (!response)
        return response.error();
    for (const auto& kv : response->kvs()) {
        auto record = decodeAudit(kv.value());
        if (!record)
            return record.error();
        records.push_back(std::move(*record));
    }
    return records;
}

Result<std::unique_ptr<WatchHandle>> EtcdStore::watch(
    std::uint64_t fromRevision, WatchCallback onRecord, WatchErrorCallback onError)
{
    if (!onRecord)
        return makeError(ErrorCode::InvalidArgument, "a watch needs a callback");
    return EtcdWatch::start(
        m_client, m_root, fromRevision, std::move(onRecord), std::move(onError), m_config.retryFor, m_watches);
}

// ---- commits -----------------------------------------------------------------------------------

Result<std::uint64_t> EtcdStore::commit(const CommitRequest& request)
{
    if (auto status = store_rules::validateCommitRequest(request, EtcdStore::kMaxMutations); !status)
        return status.error();
    const auto deadline = std::chrono::steady_clock::now() + m_config.retryFor;
    // Attempts whose Txn may or may not have been applied: (revision, audit record written).
    std::vector<std::pair<std::uint64_t, std::string>> unknown;
    for (int attempt = 1;; ++attempt) {
        for (const auto& [revision, audit] : unknown) {
            auto mine = auditRecordIs(revision, audit);
            if (mine && *mine)
                return revision;
        }
        auto read = readForCommit(request);
        if (!read) {
            Error error = read.error();
            if (!unknown.empty()) {
                error.message = "the commit's outcome is unknown (" + error.message + "); re-read the map";
                error.details["outcome"] = "unknown";
            }
            return error;
        }
        if (auto status = checkCommit(request, *read); !status)
            return status.error();
        const std::size_t unknownBefore = unknown.size();
        auto committed = tryCommit(request, *read);
        if (!committed) {
            if (!outcomeUnknown(committed.error()))
                return committed.error();
            unknown.emplace_back(read->current + 1, committed.error().details.at("audit"));
        } else if (*committed) {
            return read->current + 1;
        }
        if (std::chrono::steady_clock::now() > deadline)
            return makeError(unknown.size() > unknownBefore ? ErrorCode::Unavailable : ErrorCode::Aborted,
                "commit gave up after " + std::to_string(attempt)
                    + " attempts: other commits kept moving the map revision, or etcd did not answer");
        backOff(attempt);
    }
}

// The counter, every touched record and the fence's lease, as of one etcd revision.
Result<EtcdStore::CommitRead> EtcdStore::readForCommit(const CommitRequest& request)
{
    etcdserverpb::TxnRequest txn;
    *txn.add_success() = rangeOp(revisionKey(m_root));
    for (const auto& mutation : request.mutations)
        *txn.add_success() = rangeOp(dataKey(m_root, mutation.key));
    if (request.fence)
        *txn.add_success() = rangeOp(leaseKey(m_root, request.fence->name));
    auto response = m_client->readTxn(txn);
    if (!response)
        return response.error();
    if (response->responses_size() != txn.success_size())
        return makeError(ErrorCode::Internal, "etcd answered a read with the wrong number of results");
    CommitRead read;
    auto counter = counterValue(rangeAt(*response, 0));
    if (!counter)
        return counter.error();
    read.current = counter->revision;
    read.currentHash = std::move(counter->hash);
    if (const auto kv = onlyValue(rangeAt(*response, 0)))
        read.counterEtcdRevision = kv->mod_revision();
    int index = 1;
    for (const auto& mutation : request.mutations) {
        CommitRead::Touched touched;
        if (const auto kv = onlyValue(rangeAt(*response, index++))) {
            auto record = decodeRecord(mutation.key, kv->value());
            if (!record)
                return record.error();
            touched = { std::move(*record), kv->mod_revision() };
        }
        read.touched.emplace(mutation.key, std::move(touched));
    }
    if (request.fence) {
        if (const auto kv = onlyValue(rangeAt(*response, index))) {
            auto lease = decodeLease(request.fence->name, kv->value());
            if (!lease)
                return lease.error();
            read.lease = std::move(*lease);
            read.leaseEtcdRevision = kv->mod_revision();
        }
    }
    return read;
}

Status EtcdStore::checkCommit(const CommitRequest& request, const CommitRead& read)
{
    if (const auto& fence = request.fence) {
        const auto now = nowUnixMs();
        const auto& lease = read.lease;
        const bool held
            = lease && lease->holder == fence->holder && lease->token == fence->token && lease->expiresUnixMs > now;
        if (!held)
            return leaseError("commit refused: lease " + inQuotes(fence->name) + " is no longer held by "
                    + inQuotes(fence->holder) + " with token " + std::to_string(fence->token) + ": "
                    + leaseState(lease, now),
                lease);
    }
    std::vector<std::string> problems;
    if (request.expectRevision && *request.expectRevision != read.current) {
        auto changed = describeChangesSince(*request.expectRevision, read.current);
        if (!changed)
            return changed.error();
        problems.push_back(std::move(*changed));
    }
    for (const auto& mutation : request.mutations) {
        if (auto problem = expectationProblem(mutation, read.touched.at(mutation.key).record))
            problems.push_back(std::move(*problem));
    }
    if (problems.empty())
        return {};
    return conflictError(problems, read.current);
}

// Names the keys changed after `revision` (newest first) with their current mod revisions.
Result<std::string> EtcdStore::describeChangesSince(std::uint64_t revision, std::uint64_t current)
{
    if (revision > current)
        return "expected revision " + std::to_string(revision) + " does not exist yet";
    const std::uint64_t scanFrom = conflictScanFrom(revision, current);
    auto recent = history(scanFrom, current, 0);
    if (!recent)
        return recent.error();
    auto keys = changedKeysNewestFirst(*recent);
    keys.resize(std::min(keys.size(), kConflictKeysNamed + 1));
    etcdserverpb::TxnRequest txn;
    for (std::size_t i = 0; i < keys.size() && i < kConflictKeysNamed; ++i)
        *txn.add_success() = rangeOp(dataKey(m_root, keys[i]));
    auto response = m_client->readTxn(txn);
    if (!response)
        return response.error();
    std::vector<std::string> named;
    for (int i = 0; i < response->responses_size(); ++i) {
        const auto& key = keys[static_cast<std::size_t>(i)];
        const auto kv = onlyValue(rangeAt(*response, i));
        auto record = kv ? decodeRecord(key, kv->value()) : Result<StoredRecord>(StoredRecord {});
        if (!record)
            return record.error();
        named.push_back(
            inQuotes(key) + (kv ? " (mod revision " + std::to_string(record->modRevision) + ")" : " (deleted)"));
    }
    return changedSinceMessage(revision, std::move(named), keys.size() > kConflictKeysNamed || scanFrom > revision);
}

// Sends the commit's Txn: true when it was applied, false when something it read changed first.
// An outcome-unknown error carries the audit record it tried to write in details["audit"].
Result<bool> EtcdStore::tryCommit(const CommitRequest& request, const CommitRead& read)
{
    const std::uint64_t revision = read.current + 1;
    etcdserverpb::TxnRequest txn;
    *txn.add_compare() = modRevisionIs(revisionKey(m_root), read.counterEtcdRevision);
    for (const auto& [key, touched] : read.touched)
        *txn.add_compare() = modRevisionIs(dataKey(m_root, key), touched.etcdRevision);
    if (request.fence)
        *txn.add_compare() = modRevisionIs(leaseKey(m_root, request.fence->name), read.leaseEtcdRevision);

    AuditRecord audit { revision, nowUnixMs(), request.actor, request.action, request.reason, {}, {} };
    for (const auto& mutation : request.mutations) {
        const auto& before = read.touched.at(mutation.key).record;
        audit.changes.push_back({ mutation.key, before ? std::optional(before->value) : std::nullopt, mutation.value });
        const std::string key = dataKey(m_root, mutation.key);
        if (mutation.value)
            *txn.add_success()
                = putOp(key, encodeRecord(*mutation.value, before ? before->createRevision : revision, revision));
        else
            *txn.add_success() = deleteOp(key);
    }
    // The counter's compare above makes read.currentHash the hash of the record this one follows.
    audit.hash = auditChainHash(auditChainPrevious(read.currentHash), audit);
    const std::string auditText = encodeAudit(audit, newCommitId());
    *txn.add_success() = putOp(revisionKey(m_root), encodeCounter({ revision, audit.hash }));
    *txn.add_success() = putOp(auditKey(m_root, revision), auditText);

    auto response = m_client->writeTxn(txn);
    if (response && response->succeeded()) {
        // Tests lose the answer of an applied Txn here, as a timeout after etcd applied it would.
        if (auto lost = failpoint("etcd.commit.answer_lost"); !lost) {
            Error error = lost.error();
            error.details["outcome"] = "unknown";
            response = std::move(error);
        }
    }
    if (!response) {
        Error error = response.error();
        if (outcomeUnknown(error))
            error.details["audit"] = auditText;
        return error;
    }
    return response->succeeded();
}

Result<bool> EtcdStore::auditRecordIs(std::uint64_t revision, const std::string& expected)
{
    etcdserverpb::RangeRequest request;
    request.set_key(auditKey(m_root, revision));
    auto response = m_client->range(request);
    if (!response)
        return response.error();
    const auto kv = onlyValue(*response);
    return kv && kv->value() == expected;
}

// ---- leases ------------------------------------------------------------------------------------

Result<EtcdStore::LeaseRead> EtcdStore::readLease(const std::string& name)
{
    etcdserverpb::RangeRequest request;
    request.set_key(leaseKey(m_root, name));
    auto response = m_client->range(request);
    if (!response)
        return response.error();
    LeaseRead read;
    if (const auto kv = onlyValue(*response)) {
        auto lease = decodeLease(name, kv->value());
        if (!lease)
            return lease.error();
        read = { std::move(*lease), kv->mod_revision() };
    }
    return read;
}

Result<std::vector<LeaseGrant>> EtcdStore::liveLeases(const std::string& namePrefix)
{
    const std::string from = leaseKey(m_root, namePrefix);
    etcdserverpb::RangeRequest request;
    request.set_key(from);
    request.set_range_end(rangeEnd(from));
    auto response = m_client->range(request);
    if (!response)
        return response.error();
    const std::size_t skip = leaseKey(m_root, "").size();
    const std::int64_t now = nowUnixMs();
    std::vector<LeaseGrant> leases;
    for (const auto& kv : response->kvs()) {
        const std::string name = kv.key().substr(skip);
        auto lease = decodeLease(name, kv.value());
        if (!lease)
            return lease.error();
        if (lease->expiresUnixMs > now)
            leases.push_back({ name, lease->holder, lease->token, lease->expiresUnixMs });
    }
    std::sort(leases.begin(), leases.end(), [](const LeaseGrant& a, const LeaseGrant& b) { return a.name < b.name; });
    return leases;
}

// decide(lease, now) returns the row to write, or nullopt to leave the lease as it is. The
// result is the row written (name and all), or a grant with an empty holder when nothing was.
template <typename Decide> Result<LeaseGrant> EtcdStore::changeLease(const std::string& name, Decide decide)
{
    const auto deadline = std::chrono::steady_clock::now() + m_config.retryFor;
    std::vector<LeaseRow> unknown; // written, but the outcome is unknown
    for (int attempt = 1;; ++attempt) {
        auto read = readLease(name);
        if (!read)
            return read.error();
        if (read->lease && std::find(unknown.begin(), unknown.end(), *read->lease) != unknown.end())
            return LeaseGrant { name, read->lease->holder, read->lease->token, read->lease->expiresUnixMs };
        Result<std::optional<LeaseRow>> next = decide(read->lease, nowUnixMs());
        if (!next)
            return next.error();
        if (!*next)
            return LeaseGrant { name, {}, 0, 0 };
        const LeaseRow row = **next;
        etcdserverpb::TxnRequest txn;
        *txn.add_compare() = modRevisionIs(leaseKey(m_root, name), read->etcdRevision);
        *txn.add_success() = putOp(leaseKey(m_root, name), encodeLease(row));
        auto written = m_client->writeTxn(txn);
        if (written && written->succeeded())
            return LeaseGrant { name, row.holder, row.token, row.expiresUnixMs };
        if (!written && !outcomeUnknown(written.error()))
            return written.error();
        if (!written)
            unknown.push_back(row);
        if (std::chrono::steady_clock::now() > deadline)
            return makeError(ErrorCode::Aborted,
                "lease " + inQuotes(name) + " kept changing (or etcd did not answer) for "
                    + std::to_string(m_config.retryFor.count()) + " ms");
        backOff(attempt);
    }
}

Result<LeaseGrant> EtcdStore::acquireLease(
    const std::string& name, const std::string& holder, std::chrono::milliseconds ttl)
{
    if (auto status = validateLease(name, holder, ttl); !status)
        return status.error();
    auto granted = changeLease(
        name, [&](const std::optional<LeaseRow>& lease, std::int64_t now) -> Result<std::optional<LeaseRow>> {
            const bool live = lease && lease->expiresUnixMs > now;
            if (live && lease->holder != holder)
                return leaseError("lease " + inQuotes(name) + " is taken: " + describeLease(*lease, now), lease);
            // The holder's own live lease is renewed; anything else starts a new grant with a new token.
            const std::uint64_t token = live ? lease->token : (lease ? lease->token + 1 : 1);
            return std::optional(LeaseRow { holder, token, now + ttl.count() });
        });
    if (granted && store_rules::isPresenceLease(name))
        prunePresenceLeases(name);
    return granted;
}

void EtcdStore::prunePresenceLeases(const std::string& granted)
{
    const std::string from = leaseKey(m_root, std::string(kReplicaLeasePrefix));
    etcdserverpb::RangeRequest request;
    request.set_key(from);
    request.set_range_end(rangeEnd(from));
    // Not done now (etcd did not answer, or a row changed meanwhile): the next grant tries again.
    auto response = m_client->range(request);
    if (!response)
        return;
    const std::size_t skip = leaseKey(m_root, "").size();
    const std::int64_t now = nowUnixMs();
    for (const auto& kv : response->kvs()) {
        const std::string name = kv.key().substr(skip);
        auto lease = decodeLease(name, kv.value());
        if (name == granted || !lease || lease->expiresUnixMs > now)
            continue;
        etcdserverpb::TxnRequest txn;
        *txn.add_compare() = modRevisionIs(kv.key(), kv.mod_revision());
        *txn.add_success() = deleteOp(kv.key());
        (void)m_client->writeTxn(txn);
    }
}

Result<LeaseGrant> EtcdStore::renewLease(const LeaseGrant& grant, std::chrono::milliseconds ttl)
{
    if (auto status = validateLease(grant.name, grant.holder, ttl); !status)
        return status.error();
    return changeLease(
        grant.name, [&](const std::optional<LeaseRow>& lease, std::int64_t now) -> Result<std::optional<LeaseRow>> {
            if (!lease || lease->holder != grant.holder || lease->token != grant.token || lease->expiresUnixMs == 0)
                return leaseError("lease " + inQuotes(grant.name) + " was lost by " + inQuotes(grant.holder) + ": "
                        + leaseState(lease, now),
                    lease);
            return std::optional(LeaseRow { grant.holder, grant.token, now + ttl.count() });
        });
}

Status EtcdStore::releaseLease(const LeaseGrant& grant)
{
    auto released = changeLease(
        grant.name, [&](const std::optional<LeaseRow>& lease, std::int64_t) -> Result<std::optional<LeaseRow>> {
            if (!lease || lease->holder != grant.holder || lease->token != grant.token || lease->expiresUnixMs == 0)
                return std::optional<LeaseRow>(); // already lost or released: nothing to give back
            // The key stays, so the next grant's token follows this one's.
            return std::optional(LeaseRow { grant.holder, grant.token, 0 });
        });
    if (!released)
        return released.error();
    return {};
}

} // namespace shardmap::core
