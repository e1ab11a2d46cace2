#pragma once

// How shardmapctl shows migrations and operations: JSON in the store's own field names, and the
// short texts of tables (progress, rate, ETA, status).

#include "core/map/map_types.h"

#include <nlohmann/json.hpp>
#include <string>

namespace shardmap::app {

// The record in the store's field names, plus requested_source and requested_target: the direction
// asked for, which a rollback does not swap.
nlohmann::json migrationJson(const core::MigrationRecord& migration);
nlohmann::json operationJson(const core::OperationRecord& operation);
nlohmann::json settingsJson(const core::MigrationSettings& settings);

// Share of the documents copied, 0..1; a finished migration is complete, one past backfill too.
double progressShare(const core::MigrationRecord& migration);
// "[#######-------------]  35%"
std::string progressBar(double share, int width = 20);
std::string percentText(double share);
// "1h02m", "3m05s", "42s"; "-" when unknown.
std::string etaText(std::int64_t seconds);
// The ETA of the copy, "-" once it is done: past the backfill the executor's says 0 s through the
// verify, the cutover and the rollback window.
std::string copyEtaText(const core::MigrationRecord& migration);
// The phase, or for a migration in its rollback window what the console says too (issue 26):
// "done, rollback possible until 17:45 UTC".
std::string phaseText(
    const core::MigrationRecord& migration, const core::MigrationSettings& settings, std::int64_t nowUnixMs);
// What a person should know besides the phase: the error, requests waiting for the executor,
// pause, the executor's status line.
std::string migrationStatus(const core::MigrationRecord& migration);
// "from -> to" as the migration was asked to move (a rolled-back one too: its status says that it
// was rolled back).
std::string directionText(const core::MigrationRecord& migration);

} // namespace shardmap::app
