// SqliteStore's commits: in one write transaction, the fence and every expectation checked against
// the rows the commit touches, then the mutations, the audit record and the new revision.

#include "core/store/sqlite_store_internal.h"
#include "core/store/store_rules.h"
#include "core/util/clock.h"

#include <algorithm>
#include <utility>

namespace shardmap::core {

using sqlite_store_internal::fromSqliteInteger;
using sqlite_store_internal::leaseError;
using sqlite_store_internal::readHistory;
using sqlite_store_internal::readRevisionFrom;
using sqlite_store_internal::toSqliteInteger;
using store_rules::changedKeysNewestFirst;
using store_rules::changedSinceMessage;
using store_rules::conflictError;
using store_rules::conflictScanFrom;
using store_rules::describeLease;
using store_rules::expectationProblem;
using store_rules::inQuotes;
using store_rules::joined;
using store_rules::kConflictKeysNamed;

Result<std::uint64_t> SqliteStore::commit(const CommitRequest& request)
{
    if (auto status = store_rules::validateCommitRequest(request); !status)
        return status.error();
    auto revision = writeTransaction<std::uint64_t>([&] { return commitLocked(request); });
    if (revision)
        signalCommit();
    return revision;
}

Result<std::uint64_t> SqliteStore::commitLocked(const CommitRequest& request)
{
    auto current = readRevisionFrom(m_writer);
    if (!current)
        return current.error();
    auto touched = readTouched(request.mutations);
    if (!touched)
        return touched.error();
    if (auto status = checkFence(request.fence); !status)
        return status.error();
    if (auto status = checkExpectations(request, *current, *touched); !status)
        return status.error();
    const std::uint64_t revision = *current + 1;
    auto changes = applyMutations(request.mutations, *touched, revision);
    if (!changes)
        return changes.error();
    if (auto status = writeAudit(request, std::move(*changes), revision); !status)
        return status.error();
    if (auto status = m_stmts->setRevision.bind(1, toSqliteInteger(revision)).run(); !status)
        return status.error();
    if (m_options.beforeCommit)
        m_options.beforeCommit();
    return revision;
}

Result<std::optional<StoredRecord>> SqliteStore::readRecord(const std::string& key)
{
    auto& stmt = m_stmts->readRecord;
    stmt.bind(1, key);
    auto row = stmt.step();
    if (!row)
        return row.error();
    std::optional<StoredRecord> record;
    if (*row)
        record = StoredRecord { key, stmt.columnText(0), fromSqliteInteger(stmt.columnInt(1)),
            fromSqliteInteger(stmt.columnInt(2)) };
    stmt.reset();
    return record;
}

Result<SqliteStore::StoredRecords> SqliteStore::readTouched(const std::vector<Mutation>& mutations)
{
    StoredRecords touched;
    for (const auto& mutation : mutations) {
        auto record = readRecord(mutation.key);
        if (!record)
            return record.error();
        touched.emplace(mutation.key, std::move(*record));
    }
    return touched;
}

Status SqliteStore::checkFence(const std::optional<LeaseGrant>& fence)
{
    if (!fence)
        return {};
    auto row = readLease(fence->name);
    if (!row)
        return row.error();
    const auto& lease = *row;
    const auto now = nowUnixMs();
    if (lease && lease->holder == fence->holder && lease->token == fence->token && lease->expiresUnixMs > now)
        return {};
    const std::string state
        = lease ? describeLease(lease->holder, lease->token, lease->expiresUnixMs, now) : "it was never granted";
    return leaseError("commit refused: lease " + inQuotes(fence->name) + " is no longer held by "
            + inQuotes(fence->holder) + " with token " + std::to_string(fence->token) + ": " + state,
        lease ? lease->holder : std::string(), lease ? lease->token : 0);
}

Status SqliteStore::checkExpectations(const CommitRequest& request, std::uint64_t current, const StoredRecords& touched)
{
    std::vector<std::string> problems;
    if (request.expectRevision && *request.expectRevision != current) {
        auto changed = describeChangesSince(*request.expectRevision, current);
        if (!changed)
            return changed.error();
        problems.push_back(std::move(*changed));
    }
    for (const auto& mutation : request.mutations) {
        if (auto problem = expectationProblem(mutation, touched.at(mutation.key)))
            problems.push_back(std::move(*problem));
    }
    if (problems.empty())
        return {};
    return conflictError(problems, current);
}

// Names the keys changed after `revision` (newest first) with their current mod revisions.
Result<std::string> SqliteStore::describeChangesSince(std::uint64_t revision, std::uint64_t current)
{
    if (revision > current)
        return "expected revision " + std::to_string(revision) + " does not exist yet";
    const std::uint64_t scanFrom = conflictScanFrom(revision, current);
    auto recent = readHistory(m_writer, scanFrom, 0, 0);
    if (!recent)
        return recent.error();
    auto keys = changedKeysNewestFirst(*recent);
    std::vector<std::string> named;
    for (std::size_t i = 0; i < keys.size() && i < kConflictKeysNamed; ++i) {
        auto record = readRecord(keys[i]);
        if (!record)
            return record.error();
        named.push_back(inQuotes(keys[i])
            + (*record ? " (mod revision " + std::to_string((*record)->modRevision) + ")" : " (deleted)"));
    }
    return changedSinceMessage(revision, std::move(named), keys.size() > kConflictKeysNamed || scanFrom > revision);
}

Result<std::vector<RecordChange>> SqliteStore::applyMutations(
    const std::vector<Mutation>& mutations, const StoredRecords& touched, std::uint64_t revision)
{
    std::vector<RecordChange> changes;
    for (const auto& mutation : mutations) {
        if (auto status = applyMutation(mutation, revision); !status)
            return status.error();
        const auto& before = touched.at(mutation.key);
        changes.push_back({ mutation.key, before ? std::optional(before->value) : std::nullopt, mutation.value });
    }
    return changes;
}

Status SqliteStore::applyMutation(const Mutation& mutation, std::uint64_t revision)
{
    if (!mutation.value)
        return m_stmts->deleteRecord.bind(1, mutation.key).run();
    return m_stmts->upsertRecord.bind(1, mutation.key)
        .bind(2, *mutation.value)
        .bind(3, toSqliteInteger(revision))
        .run();
}

void SqliteStore::signalCommit()
{
    {
        std::lock_guard lock(m_signal->mutex);
        ++m_signal->commits;
    }
    m_signal->changed.notify_all();
}

} // namespace shardmap::core
