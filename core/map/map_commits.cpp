#include "core/map/map_commits.h"

// applyCommits' implementation: each commit's changes, deletes then puts, decoded into the map's
// records by key prefix, and the touched ids the change set is computed from.

#include "core/map/index_templates.h"
#include "core/map/map_index.h"

#include <string_view>

namespace shardmap::core {

namespace {

template <typename T, typename Decode>
Status put(std::map<std::string, Versioned<T>>& records, std::set<std::string>& touched, const RecordChange& change,
    std::uint64_t revision, Decode decode)
{
    auto value = decode(*change.after);
    if (!value)
        return makeError(value.error().code, value.error().message, change.key);
    touched.insert(value->id);
    std::string id = value->id;
    records.insert_or_assign(std::move(id), Versioned<T> { std::move(*value), revision });
    return {};
}

template <typename T>
void erase(std::map<std::string, Versioned<T>>& records, std::set<std::string>& touched, std::string_view key,
    std::string_view prefix)
{
    std::string id(key.substr(prefix.size()));
    records.erase(id);
    touched.insert(std::move(id));
}

void applyRecordDelete(MapSnapshot& map, TouchedIds& touched, std::string_view key)
{
    if (key.starts_with(keys::kNodes))
        erase(map.nodes, touched.nodes, key, keys::kNodes);
    else if (key.starts_with(keys::kShards))
        erase(map.shards, touched.shards, key, keys::kShards);
    else if (key.starts_with(keys::kSpaces))
        erase(map.spaces, touched.spaces, key, keys::kSpaces);
    else if (key.starts_with(keys::kMigrations))
        erase(map.migrations, touched.migrations, key, keys::kMigrations);
    else if (key.starts_with(keys::kArchivedMigrations))
        erase(map.migrations, touched.migrations, key, keys::kArchivedMigrations);
    else if (key.starts_with(keys::kOperations))
        erase(map.operations, touched.operations, key, keys::kOperations);
    else if (key.starts_with(keys::kTemplates))
        map.templates.erase(std::string(key.substr(keys::kTemplates.size())));
    else if (key == keys::kMigrationSettings) {
        map.settings = {};
        touched.settings = true;
    }
}

Status applyRecordPut(MapSnapshot& map, TouchedIds& touched, const RecordChange& change, std::uint64_t revision)
{
    const std::string_view key = change.key;
    if (key.starts_with(keys::kNodes))
        return put(map.nodes, touched.nodes, change, revision, decodeNode);
    if (key.starts_with(keys::kShards))
        return put(map.shards, touched.shards, change, revision, decodeShard);
    if (key.starts_with(keys::kSpaces))
        return put(map.spaces, touched.spaces, change, revision, decodeSpace);
    if (key.starts_with(keys::kMigrations) || key.starts_with(keys::kArchivedMigrations))
        return put(map.migrations, touched.migrations, change, revision, decodeMigration);
    if (key.starts_with(keys::kOperations))
        return put(map.operations, touched.operations, change, revision, decodeOperation);
    if (key.starts_with(keys::kTemplates)) {
        auto decoded = decodeIndexTemplate(*change.after);
        if (!decoded)
            return makeError(decoded.error().code, decoded.error().message, change.key);
        map.templates.insert_or_assign(std::string(key.substr(keys::kTemplates.size())),
            Versioned<IndexTemplateRecord> { std::move(*decoded), revision });
        return {};
    }
    if (key == keys::kMigrationSettings) {
        auto settings = decodeMigrationSettings(*change.after);
        if (!settings)
            return makeError(settings.error().code, settings.error().message, change.key);
        map.settings = { std::move(*settings), revision };
        touched.settings = true;
    }
    return {};
}

// A commit's deletes first, then its puts: archiving a migration deletes migrations/<id> and
// puts archive/migrations/<id> in one commit, and both are the one record `migrations[id]`.
Status applyCommit(MapSnapshot& map, TouchedIds& touched, const AuditRecord& commit)
{
    for (const RecordChange& change : commit.changes) {
        // A delete of a key that was not there changes nothing (the archived record of the same
        // migration may be).
        if (!change.after && change.before)
            applyRecordDelete(map, touched, change.key);
    }
    for (const RecordChange& change : commit.changes) {
        if (!change.after)
            continue;
        if (auto status = applyRecordPut(map, touched, change, commit.revision); !status)
            return status;
    }
    return {};
}

} // namespace

Result<MapSnapshot> applyCommits(const MapSnapshot& map, std::span<const AuditRecord> commits)
{
    MapSnapshot next = map;
    next.changes.reset();
    TouchedIds touched;
    for (const AuditRecord& commit : commits) {
        if (commit.revision <= next.revision)
            continue;
        if (commit.revision != next.revision + 1)
            return makeError(ErrorCode::FailedPrecondition,
                "commit " + std::to_string(next.revision + 1) + " is missing: the next one given is "
                    + std::to_string(commit.revision));
        if (Status status = applyCommit(next, touched, commit); !status)
            return status.error();
        next.revision = commit.revision;
    }
    if (map.index())
        next.buildIndex();

    auto changes = std::make_shared<MapChanges>(diffTouched(map, next, touched));
    next.changes = std::move(changes);
    return next;
}

} // namespace shardmap::core
