#pragma once

// Reports of what migrations did (issue 13): which migrations (one, a list, an operation, or a
// time range with filters), each with what was asked and what happened, and a summary, built
// from the migration records and the histories the executor keeps (core/migration/
// migration_history.h). One model, three renderings: JSON (versioned, docs/REPORTS.md), CSV (one
// row per migration, RFC 4180) and, in the console, PDF; the CLI and the console build the same
// report from the same store. Since issue 17 it also says which second person approved the
// changes that made its migrations and operations, and which requests were refused or expired.

#include "core/map/shard_map.h"
#include "core/migration/migration_history.h"
#include "core/store/metadata_store.h"
#include "core/util/result.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shardmap::core {

// Which migrations a report covers. Migration ids or an operation select exactly those; without
// them, the migrations created in [sinceUnixMs, untilUnixMs) (0: open). space, shard (source or
// target, as asked) and state ("queued", "running", "done", "failed", "cancelled") filter any
// selection.
struct ReportScope {
    std::vector<std::string> migrations;
    std::string operation;
    std::int64_t sinceUnixMs = 0;
    std::int64_t untilUnixMs = 0;
    std::string space;
    std::string shard;
    std::string state;
};

// A second person's decision on a change (core/admin/approvals.h) as a report shows it: who asked
// and why, why it needed approval, who decided when and why, and what the change made.
struct ReportApproval {
    std::string id;
    // What the change does, in a sentence ("drain shard s3: 14 spaces, 2.0 GiB").
    std::string summary;
    std::string neededBecause;
    std::string requestedBy;
    std::string reason;
    std::int64_t requestedUnixMs = 0;
    // As approvals/ holds it: pending, applying (approved, being made), applied, failed, refused,
    // expired (pending past its time), or approved (an older shardmapd's, without an outcome).
    std::string state;
    std::string decidedBy;
    std::int64_t decidedUnixMs = 0;
    std::string decisionReason;
    // applied: what the change made ("operation op-... at revision 12"); failed: the error.
    std::string outcome;
    // The record an applied change created ("migration" or "operation" and its id), read from the
    // outcome; empty for changes that create none (settings, steering a migration).
    std::string madeKind;
    std::string madeId;
    // What the change names, where it can be told: for refused and expired requests in scope.
    std::vector<std::string> shards;
    std::vector<std::string> spaces;
    std::vector<std::string> migrations;
};

// One migration: what was asked and what happened.
struct ReportRow {
    MigrationRecord record;
    std::optional<MigrationHistory> history;
    // The direction asked for (from the history; the record swaps it on a rollback).
    std::string requestedSource;
    std::string requestedTarget;
    // "done", "failed", "cancelled", "rolled back", "queued" or "running".
    std::string outcome;
    std::int64_t startedUnixMs = 0;
    std::int64_t endedUnixMs = 0;
    // From the first phase after queued to the end (or now): 0 when it never started.
    std::int64_t durationMs = 0;
    // The duration apart: the copy, from the start to the cutover's commit (to the end, or now,
    // for one that never cut over), and the cleanup phase after it, which is mostly the rollback
    // window: the space already lives on its target, the source is kept for a rollback and then
    // emptied. A 120 ms copy with a ten-minute window is a 120 ms migration for a change board.
    // What a rollback does after its window is in neither.
    std::int64_t copyMs = 0;
    std::int64_t windowMs = 0;
    // -1 when it never cut over.
    double writeHoldMs = -1;
    // Cutovers that aborted over the whole migration (the history's counter; the record's own
    // is reset by the cutover that commits).
    std::uint32_t cutoverAborts = 0;
    // The approval whose change queued it (or queued its operation); none when no second person
    // was needed.
    std::optional<ReportApproval> approval;
};

struct ReportSummary {
    std::map<std::string, std::size_t> byOutcome;
    std::uint64_t docsMoved = 0;
    std::uint64_t bytesMoved = 0;
    std::int64_t totalDurationMs = 0;
    std::int64_t longestDurationMs = 0;
    std::string longestMigration;
    // By copy time: the rollback window is not part of how long a migration took.
    std::int64_t totalCopyMs = 0;
    std::int64_t longestCopyMs = 0;
    std::string longestCopyMigration;
    std::int64_t longestWindowMs = 0;
    double longestWriteHoldMs = -1;
    std::string longestHoldMigration;
    // Cut-over migrations whose last comparison found source and target equal, and those that did not.
    std::size_t verifiedEqual = 0;
    std::size_t verifiedApart = 0;
    std::uint64_t repairedDocs = 0;
    std::uint64_t cutoverAborts = 0;
};

// A shard an operation touched: as measured when it was queued, and after, that plus what its
// done migrations moved in minus what they moved out.
struct ReportShardLoad {
    std::string shard;
    std::uint64_t docsBefore = 0;
    std::uint64_t bytesBefore = 0;
    std::uint64_t spacesBefore = 0;
    std::uint64_t docsAfter = 0;
    std::uint64_t bytesAfter = 0;
    std::uint64_t spacesAfter = 0;
    // false: its node did not answer when the operation was queued (before is unknown, after is
    // only what moved).
    bool measured = false;
};

struct ReportOperation {
    OperationRecord record;
    std::vector<ReportShardLoad> shards;
    std::optional<ReportApproval> approval;
};

struct MigrationReport {
    // 2: approvals (issue 17); 3: requests not made, every aborted cutover and retry counted;
    // 4: copy time and rollback window apart (issue 26). Fields were only added (docs/REPORTS.md).
    static constexpr int kVersion = 4;
    std::int64_t generatedUnixMs = 0;
    std::uint64_t mapRevision = 0;
    ReportScope scope;
    // The span the rows cover: the first creation to the last end (or now).
    std::int64_t fromUnixMs = 0;
    std::int64_t toUnixMs = 0;
    std::vector<ReportRow> rows;
    std::vector<ReportOperation> operations;
    ReportSummary summary;
    // Refused and expired requests of the report's time (the scope's range, or for chosen
    // migrations and operations their span) or naming a shard, space, migration or operation in
    // scope; narrowed by the scope's space and shard like the rows. Oldest first.
    std::vector<ReportApproval> refusedRequests;
    // The other requests whose change was not made, chosen the same way: still pending, approved
    // but failed to be made, or approved with no outcome recorded (applying, approved).
    std::vector<ReportApproval> unmadeRequests;
};

// The backfill's pace between consecutive progress samples of a history: documents copied over
// [fromUnixMs, toUnixMs) and the rate that makes. Intervals where the count went back (a restarted
// copy) or time did not advance are left out. Reports and the console's migration view draw the
// same figures from this.
struct CopyInterval {
    std::int64_t fromUnixMs = 0;
    std::int64_t toUnixMs = 0;
    std::uint64_t docs = 0;
    double docsPerSecond = 0;
};
std::vector<CopyInterval> copyIntervals(const std::vector<ProgressSample>& samples);

// Builds the report from a map snapshot, the executor's histories by migration id and the
// decided approvals (applied, failed, refused, expired). InvalidArgument for an unknown state
// filter; NotFound for a named migration or operation the map does not have.
Result<MigrationReport> buildReport(const MapSnapshot& map, const std::map<std::string, MigrationHistory>& histories,
    const ReportScope& scope, std::int64_t nowUnixMs, const std::vector<ReportApproval>& approvals = {});
// Reads the map, the histories and the approvals from one snapshot of a store, then buildReport.
// A request still pending after expireAfter counts as expired, as shardmapd shows it (its
// policy's expire_hours; the default policy's when the report does not know it).
Result<MigrationReport> readReport(MetadataStore& store, const ReportScope& scope, std::int64_t nowUnixMs,
    std::chrono::hours expireAfter = std::chrono::hours(24));

// The versioned JSON form (docs/REPORTS.md) and the CSV form (RFC 4180: a header, one row per
// migration, fields quoted where they hold a comma, a quote or a line break, CRLF line ends).
std::string reportJson(const MigrationReport& report);
std::string reportCsv(const MigrationReport& report);
// The CSV's columns, in order.
std::vector<std::string> reportCsvColumns();
// Writes the "csv" or "json" form to path (replacing it); an error names the file and why (a
// directory that does not exist, a full disk).
Status writeReportFile(const MigrationReport& report, const std::string& format, const std::string& path);

} // namespace shardmap::core
