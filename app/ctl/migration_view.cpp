// migration_view's implementation: the store's JSON plus the asked-for direction, and the short
// progress, rate and ETA texts of the migration tables.
#include "app/ctl/migration_view.h"

#include "app/ctl/output.h"
#include "core/map/shard_map.h"
#include "core/map/space_placement.h"
#include "core/migration/migration_history.h"

namespace shardmap::app {

nlohmann::json migrationJson(const core::MigrationRecord& migration)
{
    // The store's fields as they are (source and target swapped by a rollback), plus the
    // direction that was asked for: added, so that scripts reading source/target keep working.
    nlohmann::json out = nlohmann::json::parse(core::encode(migration));
    out["requested_source"] = core::askedSource(migration);
    out["requested_target"] = core::askedTarget(migration);
    out["kind"] = core::migrationKindName(migration);
    return out;
}

nlohmann::json operationJson(const core::OperationRecord& operation)
{
    return nlohmann::json::parse(core::encode(operation));
}

nlohmann::json settingsJson(const core::MigrationSettings& settings)
{
    return nlohmann::json::parse(core::encode(settings));
}

double progressShare(const core::MigrationRecord& migration)
{
    using core::MigrationPhase;
    const auto& progress = migration.progress;
    if (migration.phase == MigrationPhase::Done)
        return 1.0;
    if (migration.active() && (migration.backfilled || migration.phase >= MigrationPhase::Verify))
        return 1.0;
    // Running, or failed and cancelled ones: how far the copy got.
    if (progress.docsTotal == 0)
        return 0.0;
    const double share = static_cast<double>(progress.docsDone) / static_cast<double>(progress.docsTotal);
    return share > 1.0 ? 1.0 : share;
}

std::string progressBar(double share, int width)
{
    const int filled = static_cast<int>(share * width + 0.5);
    std::string bar = "[";
    for (int i = 0; i < width; ++i)
        bar += i < filled ? '#' : '-';
    return bar + "] " + std::string(share < 0.995 ? (share < 0.095 ? "  " : " ") : "") + percentText(share);
}

std::string percentText(double share)
{
    return std::to_string(static_cast<int>(share * 100 + 0.5)) + "%";
}

std::string etaText(std::int64_t seconds)
{
    if (seconds < 0)
        return "-";
    auto twoDigits = [](std::int64_t value) { return (value < 10 ? "0" : "") + std::to_string(value); };
    if (seconds >= 3600)
        return std::to_string(seconds / 3600) + "h" + twoDigits(seconds % 3600 / 60) + "m";
    if (seconds >= 60)
        return std::to_string(seconds / 60) + "m" + twoDigits(seconds % 60) + "s";
    return std::to_string(seconds) + "s";
}

std::string copyEtaText(const core::MigrationRecord& migration)
{
    const bool copying = migration.active() && !migration.backfilled && migration.phase < core::MigrationPhase::Verify;
    return etaText(copying ? migration.progress.etaSeconds : -1);
}

std::string phaseText(
    const core::MigrationRecord& migration, const core::MigrationSettings& settings, std::int64_t nowUnixMs)
{
    const std::int64_t until = core::rollbackWindowEnd(migration, settings);
    if (until <= nowUnixMs || migration.rollbackRequested)
        return core::migrationPhaseName(migration.phase);
    return "done, rollback possible until " + core::utcClock(until);
}

std::string migrationStatus(const core::MigrationRecord& migration)
{
    std::string out;
    auto add = [&out](const std::string& part) {
        if (!part.empty())
            out += (out.empty() ? "" : "; ") + part;
    };
    if (migration.active()) {
        if (migration.paused)
            add("paused");
        if (migration.cancelRequested)
            add("cancel requested");
        if (migration.rollbackRequested)
            add("rollback requested");
        if (migration.aborting)
            add("aborting");
    }
    if (migration.rolledBack)
        add("rolled back");
    add(migration.error.empty() ? migration.status : "error: " + migration.error);
    return out;
}

std::string directionText(const core::MigrationRecord& migration)
{
    if (migration.isCatchUp())
        return "catch-up of " + core::catchUpRoute(migration);
    return core::askedSource(migration) + " -> " + core::askedTarget(migration);
}

} // namespace shardmap::app
