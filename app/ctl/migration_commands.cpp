// shardmapctl commands that queue, inspect and steer live migrations.
#include "app/ctl/admin.h"
#include "app/ctl/commands.h"
#include "app/ctl/controller.h"
#include "app/ctl/migration_view.h"
#include "app/ctl/output.h"
#include "core/map/space_placement.h"
#include "core/migration/fleet_facts.h"
#include "core/migration/migration_history.h"
#include "core/report/migration_report.h"
#include "core/util/units.h"

#include <algorithm>
#include <ostream>

namespace shardmap::app {

using core::ErrorCode;
using core::MigrationRecord;
using nlohmann::json;

namespace {

// The finished migrations `migrations list` shows without --all.
constexpr std::size_t kRecentFinished = 20;

std::string docsText(const core::MigrationProgress& progress)
{
    return std::to_string(progress.docsDone) + "/" + std::to_string(progress.docsTotal);
}

bool inState(const MigrationRecord& migration, const std::string& state)
{
    if (state == "queued")
        return migration.phase == core::MigrationPhase::Queued;
    if (state == "running")
        return migration.active() && migration.phase != core::MigrationPhase::Queued;
    return !migration.active();
}

std::vector<MigrationRecord> selectMigrations(const core::MapSnapshot& map, const MigrationFilter& filter)
{
    std::vector<MigrationRecord> active;
    std::vector<MigrationRecord> finished;
    // Ids start with their creation time, so map order is creation order.
    for (const auto& [id, versioned] : map.migrations) {
        const auto& migration = versioned.value;
        if (!filter.space.empty() && migration.space != filter.space)
            continue;
        if (!filter.shard.empty() && migration.source != filter.shard && migration.target != filter.shard)
            continue;
        if (!filter.state.empty() && !inState(migration, filter.state))
            continue;
        (migration.active() ? active : finished).push_back(migration);
    }
    if (!filter.all && filter.state.empty() && finished.size() > kRecentFinished)
        finished.erase(finished.begin(), finished.end() - static_cast<std::ptrdiff_t>(kRecentFinished));
    finished.insert(finished.end(), active.begin(), active.end());
    std::sort(finished.begin(), finished.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    return finished;
}

std::string timeOrDash(std::int64_t unixMs)
{
    return unixMs > 0 ? formatTime(unixMs) : "-";
}

std::string yesNo(bool value)
{
    return value ? "yes" : "no";
}

// "cleanup: done, rollback possible until 17:45 UTC (9m00s left)" in its rollback window.
std::string phaseWithWindow(const MigrationRecord& m, const core::MigrationSettings& settings)
{
    const std::int64_t now = core::nowUnixMs();
    const std::string phase = core::migrationPhaseName(m.phase);
    const std::string text = phaseText(m, settings, now);
    if (text == phase)
        return phase;
    const std::int64_t left = (core::rollbackWindowEnd(m, settings) - now + 999) / 1000;
    return phase + ": " + text + " (" + etaText(left) + " left)";
}

std::string rolledBackText(const MigrationRecord& m)
{
    if (!m.rolledBack)
        return "no";
    return "yes: after its cutover to " + core::askedTarget(m) + " the space went back to " + core::askedSource(m);
}

// Every field of the record, as label and text.
std::vector<std::pair<std::string, std::string>> describe(
    const MigrationRecord& m, const core::MigrationSettings& settings)
{
    const auto& p = m.progress;
    const std::string throttle
        = m.throttleDocsPerSecond ? std::to_string(m.throttleDocsPerSecond) + " docs/s" : "the settings' default";
    if (m.isCatchUp()) {
        // A catch-up moves no space: what it copies is the shard, from its primary to the copy.
        core::MigrationRecord fieldsOnly = m;
        fieldsOnly.copyNode.clear();
        auto fields = describe(fieldsOnly, settings);
        fields[1] = { "space", m.space.empty() ? "- (all of " + m.source + ")" : m.space + " (of " + m.source + ")" };
        fields[2] = { "from", m.source + " on " + m.copyPrimary };
        fields[3] = { "to", "its copy on " + m.copyNode };
        fields.insert(fields.begin() + 1, { "kind", "catch-up" });
        return fields;
    }
    // Source and target as asked: a rollback swaps the record's, not what was asked.
    return { { "migration", m.id }, { "space", m.space }, { "source", core::askedSource(m) },
        { "target", core::askedTarget(m) }, { "phase", phaseWithWindow(m, settings) },
        { "progress", progressBar(progressShare(m)) }, { "docs", docsText(p) },
        { "bytes", core::formatBytes(p.bytesDone) + " / " + core::formatBytes(p.bytesTotal) },
        { "rate", fixed(p.docsPerSecond) + " docs/s" }, { "eta", copyEtaText(m) },
        { "cursor", p.cursor.empty() ? "-" : p.cursor }, { "throttle", throttle }, { "paused", yesNo(m.paused) },
        { "requested by", m.requestedBy }, { "reason", m.reason },
        { "operation", m.operation.empty() ? "-" : m.operation }, { "created", timeOrDash(m.createdUnixMs) },
        { "started", timeOrDash(m.startedUnixMs) }, { "updated", timeOrDash(m.updatedUnixMs) },
        { "cutover", timeOrDash(m.cutoverUnixMs) }, { "finished", timeOrDash(m.finishedUnixMs) },
        { "not before", timeOrDash(m.notBeforeUnixMs) }, { "backfilled", yesNo(m.backfilled) },
        { "repairs", std::to_string(m.repairs) + " (" + std::to_string(m.repairedDocs) + " docs)" },
        { "cancel requested", yesNo(m.cancelRequested) }, { "rollback requested", yesNo(m.rollbackRequested) },
        { "rolled back", rolledBackText(m) },
        { "aborting", m.aborting ? std::string("yes, to ") + core::migrationPhaseName(m.abortPhase) : "no" },
        { "status", m.status.empty() ? "-" : m.status }, { "error", m.error.empty() ? "-" : m.error } };
}

json changesJson(const std::vector<core::MigrationChange>& changes)
{
    json out = json::array();
    for (const auto& change : changes)
        out.push_back({ { "revision", change.revision }, { "unix_ms", change.unixMs }, { "actor", change.actor },
            { "action", change.action }, { "reason", change.reason }, { "changes", change.fields } });
    return out;
}

void printHistory(std::ostream& out, const std::vector<core::MigrationChange>& history)
{
    Table table({ "REV", "TIME", "ACTOR", "ACTION", "CHANGES", "REASON" });
    for (const auto& entry : history) {
        std::string changes;
        for (const auto& field : entry.fields)
            changes += (changes.empty() ? "" : ", ") + field;
        table.addRow({ std::to_string(entry.revision), formatTime(entry.unixMs), entry.actor, entry.action, changes,
            entry.reason });
    }
    table.print(out);
}

CommandOutput migrationOutput(const MigrationRecord& migration, std::string what)
{
    return { json { { "migration", migrationJson(migration) }, { "result", what } },
        [what](std::ostream& out) { out << what << "\n"; } };
}

} // namespace

CommandResult cmdMigrate(
    const CtlOptions& options, const std::string& space, const std::string& target, std::uint64_t throttle)
{
    return withAdmin(options, [&](core::FleetAdmin& admin) -> CommandResult {
        core::MigrationRequests& requests = admin.migrations();
        auto queued = requests.queue(space, target, options.actor, throttle);
        if (!queued)
            return queued.error();
        return migrationOutput(*queued,
            "queued " + queued->id + ": space " + space + " " + directionText(*queued)
                + "; the controller runs it (follow it with `shardmapctl watch " + queued->id + "`)");
    });
}

CommandResult cmdMigrationList(const CtlOptions& options, const MigrationFilter& filter)
{
    if (!filter.state.empty() && filter.state != "queued" && filter.state != "running" && filter.state != "finished")
        return core::makeError(
            ErrorCode::InvalidArgument, "unknown state '" + filter.state + "'; use queued, running or finished");
    auto map = readMap(options);
    if (!map)
        return map.error();
    const auto selected = selectMigrations(*map, filter);
    const std::int64_t now = core::nowUnixMs();
    json list = json::array();
    Table table({ "MIGRATION", "SPACE", "FROM -> TO", "PHASE", "PROGRESS", "DOCS", "DOCS/S", "ETA", "CREATED", "BY",
        "STATUS" });
    for (const auto& m : selected) {
        list.push_back(migrationJson(m));
        table.addRow({ m.id, m.space.empty() ? "-" : m.space, directionText(m), phaseText(m, map->settings.value, now),
            percentText(progressShare(m)), docsText(m.progress), fixed(m.progress.docsPerSecond), copyEtaText(m),
            formatTime(m.createdUnixMs), m.requestedBy, migrationStatus(m) });
    }
    return CommandOutput { json { { "revision", map->revision }, { "migrations", list } }, [table](std::ostream& out) {
                              if (table.empty())
                                  out << "no migrations\n";
                              else
                                  table.print(out);
                          } };
}

namespace {

// Phases with their times and durations, the write hold, the compared figures, the events.
std::vector<std::string> timelineLines(const core::MigrationHistory& history)
{
    std::vector<std::string> lines;
    for (const auto& span : history.phases) {
        std::string line = std::string(core::migrationPhaseName(span.phase)) + "  " + formatTime(span.startedUnixMs);
        if (span.endedUnixMs > span.startedUnixMs)
            line += " .. " + formatTime(span.endedUnixMs) + " ("
                + fixed(static_cast<double>(span.endedUnixMs - span.startedUnixMs) / 1000.0, 1) + " s)";
        lines.push_back(line);
    }
    if (history.writeHoldMs >= 0)
        lines.push_back("cutover write hold " + fixed(history.writeHoldMs, 1) + " ms");
    if (history.verification) {
        const auto& v = *history.verification;
        lines.push_back("compared " + std::to_string(v.rounds) + " time(s): source " + std::to_string(v.source.liveDocs)
            + " docs, " + std::to_string(v.source.tombstones) + " tombstones, checksum "
            + std::to_string(v.source.checksum) + "; target " + std::to_string(v.target.liveDocs) + " docs, "
            + std::to_string(v.target.tombstones) + " tombstones, checksum " + std::to_string(v.target.checksum)
            + (v.equal ? " (equal)" : " (apart)") + "; " + std::to_string(v.repairedDocs) + " repaired");
    }
    for (const auto& event : history.events) {
        std::string line = formatTime(event.unixMs) + "  " + event.kind + (event.text.empty() ? "" : ": " + event.text);
        if (event.count > 1)
            line += " (" + std::to_string(event.count) + " times, the last at " + formatTime(event.lastUnixMs) + ")";
        lines.push_back(line);
    }
    return lines;
}

using LabelledFields = std::vector<std::pair<std::string, std::string>>;

// Who approved it, when a second person had to (issue 17), as its report says: into the JSON, and
// a line after migration, space, source and target.
void addApproval(core::MetadataStore& store, const std::string& id, json& out, LabelledFields& fields)
{
    core::ReportScope scope;
    scope.migrations = { id };
    auto report = core::readReport(store, scope, core::nowUnixMs(), std::chrono::hours(24));
    if (!report || report->rows.empty() || !report->rows.front().approval)
        return;
    const core::ReportApproval& approval = *report->rows.front().approval;
    out["approval"]
        = { { "id", approval.id }, { "requested_by", approval.requestedBy }, { "decided_by", approval.decidedBy },
              { "decided_unix_ms", approval.decidedUnixMs }, { "needs_approval_because", approval.neededBecause } };
    fields.insert(fields.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(4, fields.size())),
        { "approved",
            approval.decidedBy + " (" + approval.id + ") at " + formatTime(approval.decidedUnixMs) + "; asked by "
                + approval.requestedBy });
}

std::function<void(std::ostream&)> migrationShowPrinter(
    LabelledFields fields, std::vector<core::MigrationChange> history, std::vector<std::string> timeline)
{
    return [fields = std::move(fields), history = std::move(history), timeline = std::move(timeline)](
               std::ostream& stream) {
        std::size_t width = 0;
        for (const auto& [label, value] : fields)
            width = std::max(width, label.size());
        for (const auto& [label, value] : fields)
            stream << label << std::string(width - label.size() + 2, ' ') << value << "\n";
        if (!timeline.empty()) {
            stream << "\ntimeline:\n";
            for (const auto& line : timeline)
                stream << "  " << line << "\n";
        }
        stream << "\nhistory:\n";
        printHistory(stream, history);
    };
}

} // namespace

CommandResult cmdMigrationShow(const CtlOptions& options, const std::string& id)
{
    auto store = openCtlStore(options);
    if (!store)
        return store.error();
    auto map = core::MapEditor(**store).snapshot();
    if (!map)
        return map.error();
    const auto found = map->migrations.find(id);
    if (found == map->migrations.end())
        return core::makeError(ErrorCode::NotFound, "no migration " + id + " in the shard map");
    auto changes = core::migrationChanges(**store, id);
    if (!changes)
        return changes.error();
    auto fields = describe(found->second.value, map->settings.value);
    json out { { "revision", map->revision }, { "migration", migrationJson(found->second.value) },
        { "history", changesJson(*changes) } };
    auto recorded = core::readMigrationHistory(**store, id);
    if (!recorded)
        return recorded.error();
    std::vector<std::string> timeline;
    if (*recorded) {
        out["timeline"] = json::parse(core::encode(**recorded));
        timeline = timelineLines(**recorded);
    }
    addApproval(**store, id, out, fields);
    return CommandOutput { out, migrationShowPrinter(std::move(fields), *changes, std::move(timeline)) };
}

CommandResult cmdMigrationAction(const CtlOptions& options, MigrationAction action, const std::string& id)
{
    return withAdmin(options, [&](core::FleetAdmin& admin) -> CommandResult {
        core::MigrationRequests& requests = admin.migrations();
        switch (action) {
        case MigrationAction::Pause: {
            auto done = requests.pause(id, options.actor);
            return done ? CommandResult(migrationOutput(*done, "migration " + id + " paused")) : done.error();
        }
        case MigrationAction::Resume: {
            auto done = requests.resume(id, options.actor);
            return done ? CommandResult(migrationOutput(*done, "migration " + id + " resumed")) : done.error();
        }
        case MigrationAction::Cancel: {
            auto done = requests.cancel(id, options.actor);
            if (!done)
                return done.error();
            return migrationOutput(*done,
                done->phase == core::MigrationPhase::Cancelled
                    ? "migration " + id + " cancelled; space " + done->space + " stays on " + done->source
                    : "cancel of " + id + " requested; the controller removes the copy on " + done->target);
        }
        case MigrationAction::Rollback: {
            auto done = requests.rollback(id, options.actor);
            if (!done)
                return done.error();
            return migrationOutput(*done,
                "rollback of " + id + " requested; the controller moves space " + done->space + " back to "
                    + done->source);
        }
        }
        return core::makeError(ErrorCode::Internal, "unknown migration action");
    });
}

CommandResult cmdMigrationAbandon(const CtlOptions& options, const std::string& id, bool yes)
{
    return withAdmin(options, [&](core::FleetAdmin& admin) -> CommandResult {
        core::MigrationRequests& requests = admin.migrations();
        auto cost = requests.abandonCost(id);
        if (!cost)
            return cost.error();
        if (!yes)
            return core::makeError(ErrorCode::InvalidArgument, *cost + "\nRepeat with --yes to abandon it.");
        auto done = requests.abandon(id, options.actor);
        if (!done)
            return done.error();
        return migrationOutput(*done, "migration " + id + " abandoned: " + done->status);
    });
}

CommandResult cmdMigrationThrottle(const CtlOptions& options, const std::string& id, std::uint64_t docsPerSecond)
{
    return withAdmin(options, [&](core::FleetAdmin& admin) -> CommandResult {
        core::MigrationRequests& requests = admin.migrations();
        auto done = requests.setThrottle(id, docsPerSecond, options.actor);
        if (!done)
            return done.error();
        return migrationOutput(*done,
            docsPerSecond ? "migration " + id + " throttled to " + std::to_string(docsPerSecond) + " docs/s"
                          : "migration " + id + " uses the default throttle");
    });
}

namespace {

bool changesNothing(const SettingsChange& c)
{
    return !c.maxConcurrent && !c.maxPerNode && !c.maxPerShard && !c.defaultThrottle && !c.backfillBatch
        && !c.rollbackWindowSeconds && !c.cutoverTimeoutMs && !c.cleanupRowsPerSecond && !c.maxTargetFill
        && !c.maxRepairs && !c.startRetrySeconds && !c.defaultEngine && !c.replicationFactor && !c.writeQuorum
        && !c.failoverAfterMs && !c.loseNodeAfterMs && !c.maxReReplications && !c.snapshotRepository
        && !c.snapshotIntervalSeconds && !c.snapshotKeep && !c.snapshotMaxAgeSeconds && !c.snapshotPauseMs;
}

core::Result<core::MigrationSettings> applied(core::MigrationSettings s, const SettingsChange& c)
{
    if (c.defaultEngine) {
        auto engine = core::parseIndexEngine(*c.defaultEngine);
        if (!engine)
            return engine.error();
        s.defaultEngine = *engine;
    }
    if (c.writeQuorum) {
        const auto quorum = core::parseWriteQuorum(*c.writeQuorum);
        if (!quorum)
            return core::makeError(
                ErrorCode::InvalidArgument, "unknown write quorum '" + *c.writeQuorum + "' (all, majority)");
        s.writeQuorum = *quorum;
    }
    s.replicationFactor = c.replicationFactor.value_or(s.replicationFactor);
    s.maxConcurrent = c.maxConcurrent.value_or(s.maxConcurrent);
    s.maxPerNode = c.maxPerNode.value_or(s.maxPerNode);
    s.maxPerShard = c.maxPerShard.value_or(s.maxPerShard);
    s.defaultThrottleDocsPerSecond = c.defaultThrottle.value_or(s.defaultThrottleDocsPerSecond);
    s.backfillBatch = c.backfillBatch.value_or(s.backfillBatch);
    s.rollbackWindowSeconds = c.rollbackWindowSeconds.value_or(s.rollbackWindowSeconds);
    s.cutoverTimeoutMs = c.cutoverTimeoutMs.value_or(s.cutoverTimeoutMs);
    s.cleanupRowsPerSecond = c.cleanupRowsPerSecond.value_or(s.cleanupRowsPerSecond);
    s.maxTargetFill = c.maxTargetFill.value_or(s.maxTargetFill);
    s.maxRepairs = c.maxRepairs.value_or(s.maxRepairs);
    s.startRetrySeconds = c.startRetrySeconds.value_or(s.startRetrySeconds);
    s.failoverAfterMs = c.failoverAfterMs.value_or(s.failoverAfterMs);
    s.loseNodeAfterMs = c.loseNodeAfterMs.value_or(s.loseNodeAfterMs);
    s.maxReReplications = c.maxReReplications.value_or(s.maxReReplications);
    s.snapshotRepository = c.snapshotRepository.value_or(s.snapshotRepository);
    s.snapshotIntervalSeconds = c.snapshotIntervalSeconds.value_or(s.snapshotIntervalSeconds);
    s.snapshotKeep = c.snapshotKeep.value_or(s.snapshotKeep);
    s.snapshotMaxAgeSeconds = c.snapshotMaxAgeSeconds.value_or(s.snapshotMaxAgeSeconds);
    s.snapshotPauseMs = c.snapshotPauseMs.value_or(s.snapshotPauseMs);
    return s;
}

// Labelled as the flags that change them.
Table settingsTable(const core::MigrationSettings& s)
{
    auto limit = [](std::uint64_t value, const char* unit) {
        return value ? std::to_string(value) + unit : std::string("no limit");
    };
    Table table({ "SETTING", "VALUE" });
    table.addRow({ "max-concurrent", limit(s.maxConcurrent, "") });
    table.addRow({ "max-per-node", limit(s.maxPerNode, "") });
    table.addRow({ "max-per-shard", limit(s.maxPerShard, "") });
    table.addRow({ "default-throttle", limit(s.defaultThrottleDocsPerSecond, " docs/s") });
    table.addRow({ "batch", std::to_string(s.backfillBatch) + " docs" });
    table.addRow({ "rollback-window", std::to_string(s.rollbackWindowSeconds) + " s" });
    table.addRow({ "cutover-timeout-ms", std::to_string(s.cutoverTimeoutMs) + " ms" });
    table.addRow({ "cleanup-rate", limit(s.cleanupRowsPerSecond, " rows/s") });
    table.addRow({ "max-target-fill", fixed(s.maxTargetFill, 2) });
    table.addRow({ "max-repairs", std::to_string(s.maxRepairs) });
    table.addRow({ "start-retry-seconds", std::to_string(s.startRetrySeconds) });
    table.addRow({ "default-engine", core::indexEngineName(s.defaultEngine) });
    table.addRow({ "replication-factor", std::to_string(s.replicationFactor) });
    table.addRow({ "write-quorum", core::writeQuorumName(s.writeQuorum) });
    const auto never = [](std::uint64_t ms) { return ms ? std::to_string(ms) + " ms" : std::string("never"); };
    table.addRow({ "failover-after-ms", never(s.failoverAfterMs) });
    table.addRow({ "lose-node-after-ms", never(s.loseNodeAfterMs) });
    table.addRow({ "max-re-replications", limit(s.maxReReplications, "") });
    table.addRow({ "snapshot-repository", s.snapshotRepository.empty() ? "(none)" : s.snapshotRepository });
    table.addRow({ "snapshot-interval",
        s.snapshotIntervalSeconds ? std::to_string(s.snapshotIntervalSeconds) + " s" : std::string("on demand only") });
    table.addRow({ "snapshot-keep", limit(s.snapshotKeep, "") });
    table.addRow({ "snapshot-max-age", limit(s.snapshotMaxAgeSeconds, " s") });
    table.addRow({ "snapshot-pause-ms", std::to_string(s.snapshotPauseMs) + " ms" });
    return table;
}

} // namespace

CommandResult cmdMigrationSettings(const CtlOptions& options, const SettingsChange& change)
{
    return withAdmin(options, [&](core::FleetAdmin& admin) -> CommandResult {
        core::MigrationRequests& requests = admin.migrations();
        auto current = requests.settings();
        if (!current)
            return current.error();
        if (changesNothing(change)) {
            const Table table = settingsTable(*current);
            return CommandOutput { json { { "settings", settingsJson(*current) } },
                [table](std::ostream& out) { table.print(out); } };
        }
        const auto wanted = applied(*current, change);
        if (!wanted)
            return wanted.error();
        if (viaController(options))
            return changeViaController(options, changes::setSettings(*wanted));
        // FleetAdmin's: the replication factor and write quorum are checked against the fleet.
        auto revision = admin.setSettings(*wanted, options.actor);
        if (!revision)
            return revision.error();
        const Table table = settingsTable(*wanted);
        return CommandOutput { json { { "revision", *revision }, { "settings", settingsJson(*wanted) } },
            [table, rev = *revision](std::ostream& out) {
                table.print(out);
                out << "migration settings saved (map revision " << rev << ")\n";
            } };
    });
}

} // namespace shardmap::app
