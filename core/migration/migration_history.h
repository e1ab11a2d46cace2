#pragma once

// What happened to one migration, kept for reports (issue 13): when each phase started and
// ended, the backfill's progress over time, the cutover's write hold, the verification figures,
// and the errors, retries, aborted cutovers and repairs on the way, with the direction that was
// asked for (a rollback swaps the migration record's source and target; this does not).
//
// One record per migration under history/migrations/<id>, written by the executor in the same
// commit as the migration record whenever something a report needs changed, so it survives
// restarts, is copied by `store copy` like every record, and stays when the migration record is
// finished. Its size is bounded: progress samples are thinned (every other one dropped) when
// they reach kMostSamples, events keep the first and the last kMostEvents / 2.

#include "core/map/map_types.h"
#include "core/store/metadata_store.h"
#include "core/util/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardmap::core {

struct PhaseSpan {
    MigrationPhase phase = MigrationPhase::Queued;
    std::int64_t startedUnixMs = 0;
    // 0 while the phase lasts.
    std::int64_t endedUnixMs = 0;

    bool operator==(const PhaseSpan&) const = default;
};

// kind: "error", "retry", "cutover-aborted", "repair", "paused", "resumed", "cancel-requested",
// "rollback-requested", "rolled-back", "failed", "cancelled", "done". A retry (a step that failed
// and is tried again after a backoff) has its error as text; retries of the same error one after
// the other are one event with their count and the last one's time.
struct MigrationEvent {
    std::int64_t unixMs = 0;
    std::string kind;
    std::string text;
    std::uint32_t count = 1;
    // The last of count occurrences (retries; 0 for other events).
    std::int64_t lastUnixMs = 0;

    bool operator==(const MigrationEvent&) const = default;
};

struct ProgressSample {
    std::int64_t unixMs = 0;
    std::uint64_t docsDone = 0;
    std::uint64_t bytesDone = 0;

    bool operator==(const ProgressSample&) const = default;
};

// One side's aggregates as the cutover compared them.
struct SideFigures {
    std::uint64_t liveDocs = 0;
    std::uint64_t tombstones = 0;
    std::uint64_t checksum = 0;

    bool operator==(const SideFigures&) const = default;
};

struct VerificationFigures {
    std::int64_t unixMs = 0;
    SideFigures source;
    SideFigures target;
    // Comparisons made (verify rounds and cutover comparisons), and documents repaired.
    std::uint32_t rounds = 0;
    std::uint64_t repairedDocs = 0;
    bool equal = false;

    bool operator==(const VerificationFigures&) const = default;
};

struct MigrationHistory {
    static constexpr std::size_t kMostSamples = 240;
    static constexpr std::size_t kMostEvents = 200;
    // Samples closer together than this are not kept (the record is written at most this often
    // for progress alone).
    static constexpr std::int64_t kSampleEveryMs = 2000;

    std::string migration;
    std::string space;
    // The direction that was asked for, kept through a rollback.
    std::string requestedSource;
    std::string requestedTarget;
    std::vector<PhaseSpan> phases;
    std::vector<MigrationEvent> events;
    std::vector<ProgressSample> samples;
    std::optional<VerificationFigures> verification;
    // Writes held by the committed cutover (fence to the commit that names the new owner), ms;
    // -1 before it.
    double writeHoldMs = -1;
    // The administrator's requests as last recorded: they are set by other committers between
    // the executor's commits, so they are compared with what the history saw, not with the
    // executor's previous record.
    bool seenPaused = false;
    bool seenCancelRequested = false;
    bool seenRollbackRequested = false;
    // Cutovers that aborted over the whole migration. The record's cutoverAborts counts those
    // in a row and a cutover that commits resets it; this is never reset.
    std::uint32_t cutoverAborts = 0;

    bool operator==(const MigrationHistory&) const = default;

    // Folds a change of the migration record into the history: a phase that ended and one that
    // started, new errors, aborted cutovers, repairs, pause/resume, cancel and rollback requests,
    // a progress sample when one is due. Returns whether anything changed (then it must be
    // written).
    bool observe(const MigrationRecord& before, const MigrationRecord& after, std::int64_t nowUnixMs);
    // The history a new migration starts with (its first phase, queued, from its creation).
    static MigrationHistory start(const MigrationRecord& migration);

    void addEvent(std::int64_t unixMs, std::string kind, std::string text);
    // A failed step that the executor tries again: a retry event, or one more of the previous
    // retry when it failed with the same error and nothing but that error was recorded since.
    void addRetry(std::int64_t unixMs, const std::string& error);
    void addSample(const ProgressSample& sample);
};

// The direction a migration was asked to move its space: a rollback swaps the record's source and
// target (rolledBack), this swaps them back. Everything that shows a migration to people says
// this direction, and that it was rolled back, rather than the record's working one.
inline const std::string& askedSource(const MigrationRecord& migration)
{
    return migration.rolledBack ? migration.target : migration.source;
}
inline const std::string& askedTarget(const MigrationRecord& migration)
{
    return migration.rolledBack ? migration.source : migration.target;
}

// What a record is, for people and scripts: a migration of a space between shards, or a
// catch-up of a shard's copy on another node (issue 30), which moves no space.
inline const char* migrationKindName(const MigrationRecord& migration)
{
    return migration.isCatchUp() ? "catch-up" : "migration";
}
// A catch-up's way: "s0: n0 -> n1" (the shard, its primary's node, the copy's node).
inline std::string catchUpRoute(const MigrationRecord& migration)
{
    return migration.source + ": " + migration.copyPrimary + " -> " + migration.copyNode;
}

std::string encode(const MigrationHistory& history);
Result<MigrationHistory> decodeMigrationHistory(const std::string& json);

// The executor's history of one migration as stored under keys::migrationHistory; nullopt for
// a migration it never started. A record that does not decode is an error.
Result<std::optional<MigrationHistory>> readMigrationHistory(MetadataStore& store, const std::string& migrationId);

// One commit that changed a migration's record, from the store's audit history.
struct MigrationChange {
    std::uint64_t revision = 0;
    std::int64_t unixMs = 0;
    std::string actor;
    std::string action;
    std::string reason;
    // The record's top-level fields that changed: `phase "backfill" -> "verify"` for a plain
    // value, the field's name for others (progress); "created" or "removed" for the whole record.
    std::vector<std::string> fields;

    bool operator==(const MigrationChange&) const = default;
};

// Every commit that changed the migration's record, oldest first, read from the audit history
// from the record's creation on (from the store's first revision if the record is gone).
Result<std::vector<MigrationChange>> migrationChanges(MetadataStore& store, const std::string& migrationId);
// The fields that differ between two stored encodings of a migration record (nullopt: absent).
std::vector<std::string> changedFields(
    const std::optional<std::string>& before, const std::optional<std::string>& after);

namespace keys {
inline constexpr std::string_view kMigrationHistory = "history/migrations/";
inline std::string migrationHistory(std::string_view id)
{
    return std::string(kMigrationHistory) + std::string(id);
}
} // namespace keys

} // namespace shardmap::core
