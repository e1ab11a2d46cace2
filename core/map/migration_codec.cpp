#include "core/map/shard_map.h"

// The migration and operation records to and from their JSON (the other records: shard_map.cpp).

#include "core/map/record_json.h"

#include <nlohmann/json.hpp>

namespace shardmap::core {

using nlohmann::json;
using record_json::decodeWith;
using record_json::optionalField;

std::string encode(const MigrationRecord& record)
{
    const auto& p = record.progress;
    json out { { "id", record.id }, { "space", record.space }, { "source", record.source }, { "target", record.target },
        { "phase", migrationPhaseName(record.phase) },
        { "progress",
            { { "docs_done", p.docsDone }, { "docs_total", p.docsTotal }, { "bytes_done", p.bytesDone },
                { "bytes_total", p.bytesTotal }, { "docs_per_second", p.docsPerSecond },
                { "eta_seconds", p.etaSeconds }, { "cursor", p.cursor } } },
        { "throttle_docs_per_second", record.throttleDocsPerSecond }, { "paused", record.paused },
        { "requested_by", record.requestedBy }, { "reason", record.reason }, { "operation", record.operation },
        { "created_unix_ms", record.createdUnixMs }, { "started_unix_ms", record.startedUnixMs },
        { "updated_unix_ms", record.updatedUnixMs }, { "finished_unix_ms", record.finishedUnixMs },
        { "cutover_unix_ms", record.cutoverUnixMs }, { "not_before_unix_ms", record.notBeforeUnixMs },
        { "start_blocked_unix_ms", record.startBlockedUnixMs }, { "abandoned", record.abandoned },
        { "backfilled", record.backfilled }, { "repairs", record.repairs }, { "repaired_docs", record.repairedDocs },
        { "cutover_aborts", record.cutoverAborts }, { "cancel_requested", record.cancelRequested },
        { "rollback_requested", record.rollbackRequested }, { "rolled_back", record.rolledBack },
        { "aborting", record.aborting }, { "abort_phase", migrationPhaseName(record.abortPhase) },
        { "status", record.status }, { "error", record.error } };
    // Only a catch-up has them: a migration's record reads as it did before catch-ups.
    if (record.isCatchUp()) {
        out["copy_node"] = record.copyNode;
        out["copy_primary"] = record.copyPrimary;
    }
    if (record.isRestore())
        out["restore"] = { { "snapshot", record.restoreSnapshot }, { "shard", record.restoreShard },
            { "space", record.restoreSpace }, { "node", record.restoreNode }, { "replaces", record.restoreReplaces } };
    return out.dump();
}

std::string encode(const OperationRecord& record)
{
    json shards = json::array();
    for (const OperationShardLoad& load : record.shardsBefore)
        shards.push_back({ { "shard", load.shard }, { "docs", load.docs }, { "bytes", load.bytes },
            { "spaces", load.spaces }, { "measured", load.measured } });
    return json {
        { "id", record.id }, { "kind", operationKindName(record.kind) }, { "subject", record.subject },
        { "into", record.into }, { "migrations", record.migrations }, { "state", operationStateName(record.state) },
        { "requested_by", record.requestedBy }, { "reason", record.reason },
        { "created_unix_ms", record.createdUnixMs }, { "finished_unix_ms", record.finishedUnixMs },
        { "updated_unix_ms", record.updatedUnixMs }, { "planned_moves", record.plannedMoves },
        { "error", record.error }, { "shards_before", shards }
    }.dump();
}

namespace {

// A restore's fields (issue 32); a migration's record has none.
void readRestore(const json& restore, MigrationRecord& record)
{
    record.restoreSnapshot = optionalField<std::string>(restore, "snapshot", "");
    record.restoreShard = optionalField<std::string>(restore, "shard", "");
    record.restoreSpace = optionalField<std::string>(restore, "space", "");
    record.restoreNode = optionalField<std::string>(restore, "node", "");
    record.restoreReplaces = optionalField<bool>(restore, "replaces", false);
}

} // namespace

Result<MigrationRecord> decodeMigration(const std::string& text)
{
    return decodeWith<MigrationRecord>(text, "migration", [](const json& doc) {
        MigrationRecord record;
        record.id = doc.at("id").get<std::string>();
        record.space = doc.at("space").get<std::string>();
        record.source = doc.at("source").get<std::string>();
        record.target = doc.at("target").get<std::string>();
        record.phase = parseMigrationPhase(doc.at("phase").get<std::string>()).value_or(MigrationPhase::Failed);
        const json progress = optionalField<json>(doc, "progress", json::object());
        auto& p = record.progress;
        p.docsDone = optionalField<std::uint64_t>(progress, "docs_done", 0);
        p.docsTotal = optionalField<std::uint64_t>(progress, "docs_total", 0);
        p.bytesDone = optionalField<std::uint64_t>(progress, "bytes_done", 0);
        p.bytesTotal = optionalField<std::uint64_t>(progress, "bytes_total", 0);
        p.docsPerSecond = optionalField<double>(progress, "docs_per_second", 0);
        p.etaSeconds = optionalField<std::int64_t>(progress, "eta_seconds", -1);
        p.cursor = optionalField<std::string>(progress, "cursor", "");
        record.throttleDocsPerSecond = optionalField<std::uint64_t>(doc, "throttle_docs_per_second", 0);
        record.paused = optionalField<bool>(doc, "paused", false);
        record.requestedBy = optionalField<std::string>(doc, "requested_by", "");
        record.reason = optionalField<std::string>(doc, "reason", "");
        record.createdUnixMs = optionalField<std::int64_t>(doc, "created_unix_ms", 0);
        record.updatedUnixMs = optionalField<std::int64_t>(doc, "updated_unix_ms", 0);
        record.finishedUnixMs = optionalField<std::int64_t>(doc, "finished_unix_ms", 0);
        record.cutoverUnixMs = optionalField<std::int64_t>(doc, "cutover_unix_ms", 0);
        record.operation = optionalField<std::string>(doc, "operation", "");
        record.startedUnixMs = optionalField<std::int64_t>(doc, "started_unix_ms", 0);
        record.notBeforeUnixMs = optionalField<std::int64_t>(doc, "not_before_unix_ms", 0);
        record.startBlockedUnixMs = optionalField<std::int64_t>(doc, "start_blocked_unix_ms", 0);
        record.abandoned = optionalField<bool>(doc, "abandoned", false);
        record.backfilled = optionalField<bool>(doc, "backfilled", false);
        record.repairs = optionalField<std::uint32_t>(doc, "repairs", 0);
        record.repairedDocs = optionalField<std::uint64_t>(doc, "repaired_docs", 0);
        record.cutoverAborts = optionalField<std::uint32_t>(doc, "cutover_aborts", 0);
        record.cancelRequested = optionalField<bool>(doc, "cancel_requested", false);
        record.rollbackRequested = optionalField<bool>(doc, "rollback_requested", false);
        record.rolledBack = optionalField<bool>(doc, "rolled_back", false);
        record.aborting = optionalField<bool>(doc, "aborting", false);
        record.abortPhase = parseMigrationPhase(optionalField<std::string>(doc, "abort_phase", "cancelled"))
                                .value_or(MigrationPhase::Cancelled);
        record.status = optionalField<std::string>(doc, "status", "");
        record.error = optionalField<std::string>(doc, "error", "");
        record.copyNode = optionalField<std::string>(doc, "copy_node", "");
        record.copyPrimary = optionalField<std::string>(doc, "copy_primary", "");
        readRestore(optionalField<json>(doc, "restore", json::object()), record);
        return record;
    });
}

Result<OperationRecord> decodeOperation(const std::string& text)
{
    return decodeWith<OperationRecord>(text, "operation", [](const json& doc) {
        OperationRecord record;
        record.id = doc.at("id").get<std::string>();
        const auto kind = parseOperationKind(doc.at("kind").get<std::string>());
        if (!kind)
            throw json::other_error::create(501, "unknown operation kind " + doc.at("kind").dump(), &doc);
        record.kind = *kind;
        record.subject = optionalField<std::string>(doc, "subject", "");
        record.into = optionalField<std::string>(doc, "into", "");
        record.migrations = optionalField<std::vector<std::string>>(doc, "migrations", {});
        const auto state = parseOperationState(optionalField<std::string>(doc, "state", "running"));
        if (!state)
            throw json::other_error::create(501, "unknown operation state " + doc.at("state").dump(), &doc);
        record.state = *state;
        record.requestedBy = optionalField<std::string>(doc, "requested_by", "");
        record.reason = optionalField<std::string>(doc, "reason", "");
        record.createdUnixMs = optionalField<std::int64_t>(doc, "created_unix_ms", 0);
        record.finishedUnixMs = optionalField<std::int64_t>(doc, "finished_unix_ms", 0);
        record.updatedUnixMs = optionalField<std::int64_t>(doc, "updated_unix_ms", 0);
        record.plannedMoves = optionalField<std::uint64_t>(doc, "planned_moves", 0);
        record.error = optionalField<std::string>(doc, "error", "");
        if (const auto shards = doc.find("shards_before"); shards != doc.end()) {
            for (const json& load : *shards)
                record.shardsBefore.push_back({ load.at("shard").get<std::string>(),
                    optionalField<std::uint64_t>(load, "docs", 0), optionalField<std::uint64_t>(load, "bytes", 0),
                    optionalField<std::uint64_t>(load, "spaces", 0), optionalField<bool>(load, "measured", false) });
        }
        return record;
    });
}

} // namespace shardmap::core
