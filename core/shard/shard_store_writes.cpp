// ShardStore's write path: batches queued and group-committed (clients' batches first, a
// backfill's slices between them), each item checked, compared with the stored row and written
// with its text indexed and its space's aggregates kept in the same transaction.

#include "core/shard/shard_index.h"
#include "core/shard/shard_internal.h"
#include "core/util/validation.h"

#include <algorithm>
#include <climits>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

namespace shardmap::core {

using namespace shard_internal;

namespace {

Status validateItem(const Document& doc)
{
    if (auto status = validateSpaceId(doc.space); !status)
        return status;
    if (auto status = validateDocId(doc.id); !status)
        return status;
    if (doc.version == 0)
        return makeError(ErrorCode::InvalidArgument, "version must be at least 1");
    if (doc.version > static_cast<std::uint64_t>(INT64_MAX))
        return makeError(ErrorCode::InvalidArgument, "version must be below 2^63");
    if (doc.deleted && !doc.fields.empty())
        return makeError(ErrorCode::InvalidArgument, "a tombstone carries no fields");
    if (documentBytes(doc) > kMaxDocumentBytes)
        return makeError(ErrorCode::InvalidArgument,
            "document is " + std::to_string(documentBytes(doc)) + " bytes; the limit is "
                + std::to_string(kMaxDocumentBytes));
    for (const auto& [name, value] : doc.fields) {
        if (auto status = validateFieldName(name); !status)
            return status;
        if (!isValidUtf8(value))
            return makeError(ErrorCode::InvalidArgument, "field '" + name + "' is not valid UTF-8");
    }
    return {};
}

} // namespace

struct ShardStore::PendingBatch {
    std::vector<WriteItem> items;
    bool repair = false;
    // A slice of a backfill: committed only when no other batch is queued.
    bool background = false;
    bool done = false;
    Result<WriteSummary> result = WriteSummary {};
};

// A document's row as a write finds it (exists false: no row yet).
struct ShardStore::StoredRow {
    bool exists = false;
    std::int64_t rowid = 0;
    std::uint64_t version = 0;
    bool deleted = false;
    std::uint64_t bytes = 0;
    std::uint64_t hash = 0;
};

Result<WriteSummary> ShardStore::write(std::vector<WriteItem> items, WriteMode mode)
{
    if (items.size() > kMaxBatchItems)
        return makeError(ErrorCode::InvalidArgument,
            "batch has " + std::to_string(items.size()) + " items; the limit is " + std::to_string(kMaxBatchItems));
    if (mode == WriteMode::Backfill)
        return writeSliced(std::move(items));
    auto batch = std::make_shared<PendingBatch>();
    batch->items = std::move(items);
    batch->repair = mode == WriteMode::Repair;
    return enqueueAndWait(std::move(batch));
}

Result<WriteSummary> ShardStore::writeSliced(std::vector<WriteItem> items)
{
    // Every slice is queued at once: with no other writer they go in one transaction as before;
    // when a client's batch arrives, the commit in progress ends after the slice it is applying
    // and the client's batch goes next (commitGroup).
    const std::size_t slice = std::max<std::size_t>(1, m_options.backfillSliceItems);
    std::vector<std::shared_ptr<PendingBatch>> slices;
    for (std::size_t begin = 0; begin < items.size() || begin == 0; begin += slice) {
        const std::size_t end = std::min(items.size(), begin + slice);
        auto batch = std::make_shared<PendingBatch>();
        batch->items.assign(std::make_move_iterator(items.begin() + static_cast<std::ptrdiff_t>(begin)),
            std::make_move_iterator(items.begin() + static_cast<std::ptrdiff_t>(end)));
        batch->background = true;
        slices.push_back(std::move(batch));
        if (end == items.size())
            break;
    }
    enqueueAllAndWait(slices);
    WriteSummary total;
    total.results.reserve(items.size());
    for (const auto& batch : slices) {
        if (!batch->result)
            return batch->result.error();
        total.results.insert(total.results.end(), batch->result->results.begin(), batch->result->results.end());
        total.applied += batch->result->applied;
        total.stale += batch->result->stale;
        total.rejected += batch->result->rejected;
    }
    return total;
}

Result<WriteSummary> ShardStore::enqueueAndWait(std::shared_ptr<PendingBatch> batch)
{
    enqueueAllAndWait({ batch });
    return batch->result;
}

void ShardStore::enqueueAllAndWait(const std::vector<std::shared_ptr<PendingBatch>>& batches)
{
    // Whoever finds no commit in progress commits a group from the queue (ours included if we
    // are late); the others wait for it. A waiter whose batch went in an earlier group returns
    // as soon as that group is committed, however long the queue behind it.
    std::unique_lock queue(m_queueMutex);
    for (const auto& batch : batches) {
        m_queue.push_back(batch);
        if (!batch->background)
            ++m_clientBatchesQueued;
    }
    auto allDone
        = [&] { return std::all_of(batches.begin(), batches.end(), [](const auto& batch) { return batch->done; }); };
    while (!allDone()) {
        if (m_committing) {
            m_committed.wait(queue);
            continue;
        }
        auto group = takeGroup();
        m_committing = true;
        queue.unlock();
        std::vector<std::shared_ptr<PendingBatch>> leftover;
        {
            std::lock_guard write(m_writeMutex);
            leftover = commitGroup(group);
            indexCommitted();
        }
        queue.lock();
        for (auto& committed : group)
            committed->done = true;
        // Backfill slices a client's batch cut short go first again after it.
        m_queue.insert(m_queue.begin(), leftover.begin(), leftover.end());
        m_committing = false;
        m_committed.notify_all();
    }
}

std::vector<std::shared_ptr<ShardStore::PendingBatch>> ShardStore::takeGroup()
{
    // Clients' batches first, all of them that fit; backfill slices only when none waits.
    std::vector<std::shared_ptr<PendingBatch>> group;
    std::size_t items = 0;
    for (auto it = m_queue.begin(); it != m_queue.end();) {
        if ((*it)->background) {
            ++it;
            continue;
        }
        if (!group.empty() && items + (*it)->items.size() > m_options.maxGroupItems)
            break;
        items += (*it)->items.size();
        --m_clientBatchesQueued;
        group.push_back(std::move(*it));
        it = m_queue.erase(it);
    }
    if (group.empty()) {
        // No client's batch waits (the queue holds only backfill slices): those at its front, up
        // to backfillGroupItems, in one transaction.
        const std::size_t limit = std::min(m_options.maxGroupItems, m_options.backfillGroupItems);
        while (!m_queue.empty() && (group.empty() || items + m_queue.front()->items.size() <= limit)) {
            items += m_queue.front()->items.size();
            group.push_back(std::move(m_queue.front()));
            m_queue.pop_front();
        }
    }
    return group;
}

std::vector<std::shared_ptr<ShardStore::PendingBatch>> ShardStore::commitGroup(
    std::vector<std::shared_ptr<PendingBatch>>& group)
{
    if (auto status = m_writer.exec("BEGIN IMMEDIATE"); !status) {
        for (auto& batch : group)
            batch->result = status.error();
        return {};
    }
    bool storageFailure = false;
    auto leftover = applyGroup(group, storageFailure);
    Status committed = storageFailure ? Status(makeError(ErrorCode::Internal, "rolled back")) : m_writer.exec("COMMIT");
    if (committed) {
        for (auto& batch : group) {
            if (batch->result)
                recordActivity(*batch);
        }
        return leftover;
    }
    recoverFailedGroup(group, committed, storageFailure);
    return leftover;
}

std::vector<std::shared_ptr<ShardStore::PendingBatch>> ShardStore::applyGroup(
    std::vector<std::shared_ptr<PendingBatch>>& group, bool& storageFailure)
{
    for (std::size_t i = 0; i < group.size(); ++i) {
        auto& batch = group[i];
        if (!applyInSavepoint(*batch, storageFailure))
            break;
        // A client's batch arrived while backfill slices are applied: commit what is applied
        // now, and leave the remaining slices for after it.
        if (batch->background && i + 1 < group.size() && m_clientBatchesQueued.load() > 0) {
            std::vector<std::shared_ptr<PendingBatch>> leftover(
                group.begin() + static_cast<std::ptrdiff_t>(i + 1), group.end());
            group.resize(i + 1);
            return leftover;
        }
    }
    return {};
}

bool ShardStore::applyInSavepoint(PendingBatch& batch, bool& storageFailure)
{
    // Each client batch in a savepoint, so that a refused one leaves the others. Not backfill
    // slices: a savepoint makes FTS5 flush its pending index to disk, which costs a slice of
    // 100 documents about a fifth of its time, and a slice needs none: its one refusal (the
    // epoch) comes before it writes anything, and anything else fails the transaction.
    const bool savepoint = !batch.background;
    if (savepoint)
        (void)m_writer.exec("SAVEPOINT batch");
    auto status = applyBatch(batch);
    if (!status) {
        batch.result = status.error();
        const auto code = status.error().code;
        storageFailure = code == ErrorCode::ResourceExhausted || code == ErrorCode::Internal
            || code == ErrorCode::Unavailable || (!savepoint && code != ErrorCode::FailedPrecondition);
        if (sqlite3_get_autocommit(m_writer.handle()) || storageFailure)
            return false;
        if (savepoint)
            (void)m_writer.exec("ROLLBACK TO batch");
    }
    if (savepoint)
        (void)m_writer.exec("RELEASE batch");
    return true;
}

void ShardStore::recoverFailedGroup(
    std::vector<std::shared_ptr<PendingBatch>>& group, const Status& committed, bool storageFailure)
{
    if (!sqlite3_get_autocommit(m_writer.handle()))
        (void)m_writer.exec("ROLLBACK");
    if (group.size() == 1) {
        auto& batch = group.front();
        batch->result = storageFailure ? batch->result : Result<WriteSummary>(committed.error());
        return;
    }
    // One batch broke the group: give each its own transaction so only the guilty one fails.
    for (auto& batch : group) {
        batch->result = WriteSummary {};
        std::vector<std::shared_ptr<PendingBatch>> single { batch };
        commitGroup(single);
    }
}

Status ShardStore::checkEpochs(const PendingBatch& batch) const
{
    std::lock_guard lock(m_ownershipMutex);
    for (const auto& item : batch.items) {
        if (!validateSpaceId(item.doc.space))
            continue; // rejected per item later
        const auto found = m_ownerships.find(item.doc.space);
        const Ownership held = found == m_ownerships.end() ? Ownership { item.doc.space } : found->second;
        if (held.epoch == item.epoch && acceptsWrites(held.role))
            continue;
        std::string why;
        if (held.role == SpaceRole::None)
            why = "shard " + m_id + " holds no ownership for space " + item.doc.space;
        else if (!acceptsWrites(held.role))
            why = "space " + item.doc.space + " is " + spaceRoleName(held.role) + " on shard " + m_id;
        else
            why = std::string(item.epoch < held.epoch ? "stale" : "unknown") + " epoch " + std::to_string(item.epoch)
                + " for space " + item.doc.space + "; shard " + m_id + " holds epoch " + std::to_string(held.epoch);
        return ownershipRefusal(m_id, held, item.epoch, std::move(why));
    }
    return {};
}

Status ShardStore::applyBatch(PendingBatch& batch)
{
    if (auto status = checkEpochs(batch); !status)
        return status;
    WriteSummary summary;
    summary.results.reserve(batch.items.size());
    std::unordered_map<std::string, SpaceStats> deltas;
    for (const auto& item : batch.items) {
        if (auto valid = validateItem(item.doc); !valid) {
            summary.results.push_back({ WriteOutcome::Rejected, valid.error().message, 0 });
            ++summary.rejected;
            continue;
        }
        auto result = applyItem(item.doc, batch.repair, deltas);
        if (!result)
            return result.error();
        summary.applied += result->outcome == WriteOutcome::Applied ? 1 : 0;
        summary.stale += result->outcome == WriteOutcome::Stale ? 1 : 0;
        summary.results.push_back(std::move(*result));
    }
    if (auto status = applyDeltas(deltas); !status)
        return status;
    batch.result = std::move(summary);
    return {};
}

Result<ItemResult> ShardStore::applyItem(
    const Document& doc, bool repair, std::unordered_map<std::string, SpaceStats>& deltas)
{
    auto stored = lookupRow(doc);
    if (!stored)
        return stored.error();
    const std::uint64_t hash = contentHash(doc);
    // A newer version wins. A repair (the migration source's row, which is authoritative) also
    // replaces the same version with other content; it never replaces a newer one.
    const bool replaces = !stored->exists || stored->version < doc.version
        || (repair && stored->version == doc.version && stored->hash != hash);
    if (!replaces)
        return ItemResult { WriteOutcome::Stale, {}, stored->version };

    SpaceStats& delta = deltas[doc.space];
    if (stored->exists)
        addRow(delta, stored->deleted, stored->bytes, rowTerm(doc.id, stored->hash), -1);
    const std::uint64_t bytes = doc.deleted ? 0 : documentBytes(doc);
    addRow(delta, doc.deleted, bytes, rowTerm(doc.id, hash), +1);

    std::string extra;
    std::vector<std::optional<std::string>> text;
    if (!doc.deleted)
        splitFields(doc, text, extra);
    if (stored->exists && !stored->deleted) {
        if (auto status = m_index->remove(stored->rowid); !status)
            return status.error();
    }
    auto rowid = writeRow(doc, *stored, bytes, extra, hash);
    if (!rowid)
        return rowid.error();
    if (!doc.deleted) {
        if (auto status = m_index->insert(*rowid, doc.space, text); !status)
            return status.error();
    }
    return ItemResult { WriteOutcome::Applied, {}, doc.version };
}

Result<ShardStore::StoredRow> ShardStore::lookupRow(const Document& doc)
{
    auto& lookup = m_stmts->lookup;
    lookup.bind(1, doc.space).bind(2, doc.id);
    auto row = lookup.step();
    if (!row) {
        lookup.reset();
        return row.error();
    }
    StoredRow stored;
    if (*row)
        stored = { true, lookup.columnInt(0), fromStored(lookup.columnInt(1)), lookup.columnInt(2) != 0,
            fromStored(lookup.columnInt(3)), fromStored(lookup.columnInt(4)) };
    lookup.reset();
    return stored;
}

// Updates the stored row in place (its rowid stays, so does its FTS row's) or inserts a new one;
// returns the row's rowid.
Result<std::int64_t> ShardStore::writeRow(
    const Document& doc, const StoredRow& stored, std::uint64_t bytes, const std::string& extra, std::uint64_t hash)
{
    Statement& stmt = stored.exists ? m_stmts->updateDoc : m_stmts->insertDoc;
    if (stored.exists)
        stmt.bind(1, stored.rowid)
            .bind(2, asStored(doc.version))
            .bind(3, std::int64_t { doc.deleted })
            .bind(4, asStored(bytes));
    else
        stmt.bind(1, doc.space)
            .bind(2, doc.id)
            .bind(3, asStored(doc.version))
            .bind(4, std::int64_t { doc.deleted })
            .bind(5, asStored(bytes));
    const int extraIndex = stored.exists ? 5 : 6;
    if (extra.empty())
        stmt.bindNull(extraIndex);
    else
        stmt.bind(extraIndex, extra);
    stmt.bind(extraIndex + 1, asStored(hash));
    if (auto status = stmt.run(); !status)
        return status.error();
    return stored.exists ? stored.rowid : sqlite3_last_insert_rowid(m_writer.handle());
}

void ShardStore::splitFields(
    const Document& doc, std::vector<std::optional<std::string>>& text, std::string& extra) const
{
    // One value per FTS column: the schema fields, then every other field joined in f__other.
    text.assign(m_fields.size() + 1, std::nullopt);
    nlohmann::json others = nlohmann::json::object();
    std::string other;
    for (const auto& [name, value] : doc.fields) {
        const auto known = std::find(m_fields.begin(), m_fields.end(), name);
        if (known != m_fields.end()) {
            text[static_cast<std::size_t>(known - m_fields.begin())] = value;
            continue;
        }
        others[name] = value;
        other += other.empty() ? value : "\n" + value;
    }
    if (!others.empty()) {
        text.back() = std::move(other);
        extra = others.dump();
    }
}

Status ShardStore::applyDeltas(const std::unordered_map<std::string, SpaceStats>& deltas)
{
    auto& read = m_stmts->readSpace;
    auto& upsert = m_stmts->upsertSpace;
    for (const auto& [space, delta] : deltas) {
        auto row = read.bind(1, space).step();
        if (!row) {
            read.reset();
            return row.error();
        }
        SpaceStats total { space };
        if (*row)
            total = { space, fromStored(read.columnInt(0)), fromStored(read.columnInt(1)),
                fromStored(read.columnInt(2)), fromStored(read.columnInt(3)) };
        read.reset();
        // Deltas are unsigned with wrap-around; adding them undoes earlier additions exactly.
        total.liveDocs += delta.liveDocs;
        total.bytesEstimate += delta.bytesEstimate;
        total.checksum += delta.checksum;
        total.tombstones += delta.tombstones;
        upsert.bind(1, space).bind(2, asStored(total.liveDocs)).bind(3, asStored(total.bytesEstimate));
        upsert.bind(4, asStored(total.checksum)).bind(5, asStored(total.tombstones));
        if (auto status = upsert.run(); !status)
            return status;
    }
    return {};
}

void ShardStore::recordActivity(const PendingBatch& batch)
{
    const auto& summary = batch.result.value();
    std::lock_guard lock(m_activityMutex);
    m_activity.writesApplied += summary.applied;
    // A migration's copies (backfill slices, verify's repairs) are the shard's work but not its
    // tenants' load: counted as a space's writes they would make the planner chase its own moves.
    const bool tenantWrites = !batch.background && !batch.repair;
    for (std::size_t i = 0; i < batch.items.size() && i < summary.results.size(); ++i) {
        if (summary.results[i].outcome != WriteOutcome::Applied)
            continue;
        if (tenantWrites)
            m_activity.spaces[batch.items[i].doc.space].writes += 1;
        m_activity.docsIndexed += batch.items[i].doc.deleted ? 0 : 1;
    }
}

} // namespace shardmap::core
