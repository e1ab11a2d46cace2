// SnapshotRequests' implementation: the snapshot records' audited compare-and-set commits.
#include "core/snapshot/snapshot_requests.h"

#include "core/util/clock.h"

#include <algorithm>

namespace shardmap::core {

SnapshotRequests::SnapshotRequests(MetadataStore& store)
    : m_store(store)
{
}

std::vector<Versioned<SnapshotRecord>> snapshotsOf(const StoreSnapshot& listed)
{
    std::vector<Versioned<SnapshotRecord>> out;
    for (const auto& [key, stored] : listed.records) {
        if (auto record = decodeSnapshot(stored.value))
            out.push_back({ std::move(*record), stored.modRevision });
    }
    // Ids sort by their second; two made within one second sort by when they were made.
    std::stable_sort(out.begin(), out.end(),
        [](const auto& a, const auto& b) { return a.value.createdUnixMs < b.value.createdUnixMs; });
    return out;
}

Result<std::vector<Versioned<SnapshotRecord>>> SnapshotRequests::list()
{
    auto listed = m_store.list(std::string(keys::kSnapshots));
    if (!listed)
        return listed.error();
    return snapshotsOf(*listed);
}

Result<Versioned<SnapshotRecord>> SnapshotRequests::find(const std::string& id)
{
    if (auto valid = validateSnapshotId(id); !valid)
        return valid.error();
    auto all = list();
    if (!all)
        return all.error();
    for (auto& record : *all) {
        if (record.value.id == id)
            return record;
    }
    return makeError(ErrorCode::NotFound, "no snapshot " + id);
}

Result<SnapshotRecord> SnapshotRequests::create(const Actor& actor)
{
    auto settings = m_store.list(std::string(keys::kMigrationSettings));
    if (!settings)
        return settings.error();
    MigrationSettings fleet;
    if (const auto found = settings->records.find(std::string(keys::kMigrationSettings));
        found != settings->records.end()) {
        auto decoded = decodeMigrationSettings(found->second.value);
        if (!decoded)
            return decoded.error();
        fleet = *decoded;
    }
    if (fleet.snapshotRepository.empty())
        return makeError(ErrorCode::FailedPrecondition,
            "no snapshot repository is set; name one with shardmapctl migrations settings --snapshot-repository DIR");
    auto all = list();
    if (!all)
        return all.error();
    for (const auto& other : *all) {
        if (other.value.state == SnapshotState::Requested || other.value.state == SnapshotState::Running)
            return makeError(ErrorCode::FailedPrecondition,
                "snapshot " + other.value.id + " is " + snapshotStateName(other.value.state) + " already");
    }
    SnapshotRecord record;
    record.createdUnixMs = nowUnixMs();
    record.id = newSnapshotId(record.createdUnixMs);
    record.requestedBy = actor.name;
    record.reason = actor.reason;
    CommitRequest request { { { keys::snapshot(record.id), encode(record), 0 } }, std::nullopt, std::nullopt,
        actor.name, "create-snapshot", actor.reason };
    if (auto committed = m_store.commit(request); !committed)
        return committed.error();
    return record;
}

Result<SnapshotRecord> SnapshotRequests::edit(
    const std::string& id, const Actor& actor, const std::string& action, const Edit& change)
{
    auto found = find(id);
    if (!found)
        return found.error();
    SnapshotRecord record = found->value;
    if (auto changed = change(record); !changed)
        return changed.error();
    CommitRequest request { { { keys::snapshot(id), encode(record), found->modRevision } }, std::nullopt, std::nullopt,
        actor.name, action, actor.reason };
    if (auto committed = m_store.commit(request); !committed)
        return committed.error();
    return record;
}

Result<SnapshotRecord> SnapshotRequests::requestVerify(const std::string& id, const Actor& actor)
{
    return edit(id, actor, "verify-snapshot", [&](SnapshotRecord& record) -> Status {
        if (!usable(record.state) && record.state != SnapshotState::Corrupt)
            return makeError(ErrorCode::FailedPrecondition,
                "snapshot " + id + " is " + snapshotStateName(record.state) + "; only a finished one can be verified");
        record.verifyRequested = true;
        return {};
    });
}

Result<SnapshotRecord> SnapshotRequests::requestDelete(const std::string& id, const Actor& actor)
{
    return edit(id, actor, "delete-snapshot", [&](SnapshotRecord& record) -> Status {
        if (record.state == SnapshotState::Running)
            return makeError(ErrorCode::FailedPrecondition, "snapshot " + id + " is running; delete it once it ended");
        record.deleteRequested = true;
        return {};
    });
}

} // namespace shardmap::core
