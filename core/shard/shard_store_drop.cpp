// ShardStore's space drop: a fenced space's rows deleted a batch at a time, each batch in one
// transaction with the space's aggregates, fenced like a write so a late caller deletes nothing.

#include "core/shard/shard_index.h"
#include "core/shard/shard_internal.h"
#include "core/util/validation.h"

#include <utility>
#include <vector>

namespace shardmap::core {

using namespace shard_internal;

namespace {

// Rowid, and whether the row is a live document (a tombstone has no FTS row).
using DroppedRow = std::pair<std::int64_t, bool>;

// Reads the selected rows of a space and takes each out of its aggregates (delta).
Result<std::vector<DroppedRow>> readDroppedRows(Statement& select, SpaceStats& delta)
{
    std::vector<DroppedRow> rows;
    while (true) {
        auto row = select.step();
        if (!row)
            return row.error();
        if (!*row)
            return rows;
        const bool deleted = select.columnInt(3) != 0;
        rows.emplace_back(select.columnInt(0), !deleted);
        addRow(delta, deleted, fromStored(select.columnInt(4)),
            rowTerm(select.columnText(1), fromStored(select.columnInt(5))), -1);
    }
}

} // namespace

Result<std::uint64_t> ShardStore::dropSpaceBatch(
    const std::string& space, std::uint32_t batchSize, std::uint64_t fencedEpoch)
{
    if (auto status = validateSpaceId(space); !status)
        return status.error();
    std::lock_guard lock(m_writeMutex);
    if (auto status = checkFencedForDrop(space, fencedEpoch); !status)
        return status.error();
    if (auto status = m_writer.exec("BEGIN IMMEDIATE"); !status)
        return status.error();
    auto dropped = deleteSpaceRows(space, batchSize);
    const Status committed = dropped ? m_writer.exec("COMMIT") : Status(dropped.error());
    if (!committed)
        (void)m_writer.exec("ROLLBACK");
    indexCommitted();
    if (!committed)
        return committed.error();
    return dropped;
}

// Destructive calls are fenced like writes (issue 14): a deposed or late caller's drop must not
// delete a space that has since moved back to this shard.
Status ShardStore::checkFencedForDrop(const std::string& space, std::uint64_t fencedEpoch) const
{
    std::lock_guard ownershipLock(m_ownershipMutex);
    const auto found = m_ownerships.find(space);
    const Ownership held = found == m_ownerships.end() ? Ownership { space, SpaceRole::None, 0 } : found->second;
    if (held.role == SpaceRole::Fenced && held.epoch == fencedEpoch)
        return {};
    return ownershipRefusal(m_id, held, fencedEpoch,
        "shard " + m_id + " holds space " + space + " as " + spaceRoleName(held.role) + " at epoch "
            + std::to_string(held.epoch) + ", not fenced at epoch " + std::to_string(fencedEpoch) + "; its rows stay");
}

// Inside the caller's transaction: deletes up to batchSize rows of the space with their text, takes
// them out of its aggregates and drops its aggregate row once it counts none. Returns the rows deleted.
Result<std::uint64_t> ShardStore::deleteSpaceRows(const std::string& space, std::uint32_t batchSize)
{
    auto select
        = m_writer.prepare("SELECT rowid, id, version, deleted, bytes, chash FROM docs WHERE space = ?1 LIMIT ?2");
    auto remove = m_writer.prepare("DELETE FROM docs WHERE rowid = ?1");
    if (!select || !remove)
        return !select ? select.error() : remove.error();
    select->bind(1, space).bind(2, std::int64_t { batchSize == 0 ? 1000 : batchSize });
    SpaceStats delta;
    auto rows = readDroppedRows(*select, delta);
    if (!rows)
        return rows.error();
    for (const auto& [rowid, live] : *rows) {
        if (live) {
            if (auto status = m_index->remove(rowid); !status)
                return status.error();
        }
        if (auto status = remove->bind(1, rowid).run(); !status)
            return status.error();
    }
    if (auto status = applyDeltas({ { space, delta } }); !status)
        return status.error();
    auto cleanup = m_writer.prepare("DELETE FROM spaces WHERE space = ?1 AND live = 0 AND tombstones = 0");
    if (!cleanup)
        return cleanup.error();
    if (auto status = cleanup->bind(1, space).run(); !status)
        return status.error();
    return static_cast<std::uint64_t>(rows->size());
}

} // namespace shardmap::core
