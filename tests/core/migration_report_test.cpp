// Migration reports: what is in scope, what each row says was asked and happened (through a
// rollback), the summary, and the two file forms: CSV that parses back to the same rows (RFC 4180
// quoting) and JSON with its schema name and version.
#include "core/report/migration_report.h"
#include "tests/support/csv.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace shardmap::core;
using shardmap::testing::parseCsv;

namespace {

MigrationRecord migration(const std::string& id, const std::string& space, MigrationPhase phase, std::int64_t created)
{
    MigrationRecord m;
    m.id = id;
    m.space = space;
    m.source = "s1";
    m.target = "s2";
    m.phase = phase;
    m.createdUnixMs = created;
    m.startedUnixMs = phase == MigrationPhase::Queued ? 0 : created + 100;
    m.finishedUnixMs = isFinal(phase) ? created + 5100 : 0;
    m.progress.docsDone = m.progress.docsTotal = 40;
    m.progress.bytesDone = m.progress.bytesTotal = 4000;
    m.requestedBy = "ann";
    return m;
}

struct Fixture {
    MapSnapshot map;
    std::map<std::string, MigrationHistory> histories;

    Fixture()
    {
        map.revision = 9;
        add(migration("m-1", "acme", MigrationPhase::Done, 1000));
        MigrationRecord failed = migration("m-2", "globex", MigrationPhase::Failed, 2000);
        failed.error = "target unreachable, gave up";
        add(failed);
        MigrationRecord rolled = migration("m-3", "initech", MigrationPhase::Cancelled, 3000);
        rolled.rolledBack = true;
        std::swap(rolled.source, rolled.target);
        rolled.reason = "too slow, \"really\"\nsecond line";
        add(rolled);
        add(migration("m-4", "acme", MigrationPhase::Queued, 4000));
        MigrationHistory done = MigrationHistory::start(map.migrations.at("m-1").value);
        done.writeHoldMs = 12.5;
        done.verification = VerificationFigures { 1, { 40, 2, 7 }, { 40, 2, 7 }, 3, 0, true };
        histories["m-1"] = done;
        MigrationHistory back = MigrationHistory::start(map.migrations.at("m-3").value);
        back.writeHoldMs = 30;
        histories["m-3"] = back;
        OperationRecord op;
        op.id = "op-1";
        op.migrations = { "m-1", "m-2" };
        map.operations["op-1"] = { op, 1 };
    }

    void add(const MigrationRecord& m) { map.migrations[m.id] = { m, 1 }; }
};

} // namespace

TEST(MigrationReport, RowsSayWhatWasAskedAndWhatHappened)
{
    Fixture f;
    auto report = buildReport(f.map, f.histories, { {}, {}, 1, 0, {}, {}, {} }, 10000);
    ASSERT_TRUE(report) << report.error().describe();
    ASSERT_EQ(report->rows.size(), 4u);
    EXPECT_EQ(report->rows[0].outcome, "done");
    EXPECT_EQ(report->rows[1].outcome, "failed");
    EXPECT_EQ(report->rows[2].outcome, "rolled back");
    EXPECT_EQ(report->rows[2].requestedSource, "s1") << "not the swapped record's source";
    EXPECT_EQ(report->rows[2].requestedTarget, "s2");
    EXPECT_EQ(report->rows[3].outcome, "queued");
    EXPECT_EQ(report->rows[0].durationMs, 5000);
    const ReportSummary& s = report->summary;
    EXPECT_EQ(s.byOutcome.at("done"), 1u);
    EXPECT_EQ(s.docsMoved, 40u) << "only done migrations moved their documents";
    EXPECT_EQ(s.longestWriteHoldMs, 30);
    EXPECT_EQ(s.longestHoldMigration, "m-3");
    EXPECT_EQ(s.verifiedEqual, 1u);
    EXPECT_EQ(report->fromUnixMs, 1000);
}

TEST(MigrationReport, ScopesSelectAndFilter)
{
    Fixture f;
    auto op = buildReport(f.map, f.histories, { {}, "op-1", 0, 0, {}, {}, {} }, 10000);
    ASSERT_TRUE(op);
    EXPECT_EQ(op->rows.size(), 2u);
    EXPECT_EQ(op->operations.size(), 1u);
    auto range = buildReport(f.map, f.histories, { {}, {}, 2000, 4000, {}, {}, {} }, 10000);
    ASSERT_TRUE(range);
    ASSERT_EQ(range->rows.size(), 2u);
    EXPECT_EQ(range->rows[0].record.id, "m-2");
    auto space = buildReport(f.map, f.histories, { {}, {}, 1, 0, "acme", {}, "queued" }, 10000);
    ASSERT_TRUE(space);
    ASSERT_EQ(space->rows.size(), 1u);
    EXPECT_EQ(space->rows[0].record.id, "m-4");
    auto cancelled = buildReport(f.map, f.histories, { {}, {}, 1, 0, {}, {}, "cancelled" }, 10000);
    ASSERT_TRUE(cancelled);
    EXPECT_EQ(cancelled->rows.size(), 1u) << "a rollback ends cancelled";
    EXPECT_EQ(
        buildReport(f.map, f.histories, { { "m-9" }, {}, 0, 0, {}, {}, {} }, 0).error().code, ErrorCode::NotFound);
    EXPECT_EQ(buildReport(f.map, f.histories, { {}, "op-9", 0, 0, {}, {}, {} }, 0).error().code, ErrorCode::NotFound);
    EXPECT_EQ(buildReport(f.map, f.histories, { {}, {}, 1, 0, {}, {}, "sleeping" }, 0).error().code,
        ErrorCode::InvalidArgument);
}

TEST(MigrationReport, CsvParsesBackToTheSameRows)
{
    Fixture f;
    auto report = buildReport(f.map, f.histories, { {}, {}, 1, 0, {}, {}, {} }, 10000);
    ASSERT_TRUE(report);
    const auto rows = parseCsv(reportCsv(*report));
    ASSERT_EQ(rows.size(), 5u);
    EXPECT_EQ(rows[0], reportCsvColumns());
    const auto column = [&](const std::string& name) {
        const auto& header = rows[0];
        return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
    };
    EXPECT_EQ(rows[3][column("reason")], "too slow, \"really\"\nsecond line");
    EXPECT_EQ(rows[3][column("requested_source")], "s1");
    EXPECT_EQ(rows[2][column("error")], "target unreachable, gave up");
    EXPECT_EQ(rows[1][column("write_hold_ms")], "12.500");
    EXPECT_EQ(rows[1][column("verified_equal")], "true");
    EXPECT_EQ(rows[4][column("write_hold_ms")], "") << "never cut over";
    for (const auto& row : rows)
        EXPECT_EQ(row.size(), reportCsvColumns().size());
}

TEST(MigrationReport, JsonHasItsSchemaAndAgreesWithTheCsv)
{
    Fixture f;
    auto report = buildReport(f.map, f.histories, { {}, {}, 1, 0, {}, {}, {} }, 10000);
    ASSERT_TRUE(report);
    const auto document = nlohmann::json::parse(reportJson(*report));
    EXPECT_EQ(document["schema"], "shardmap.migration-report");
    EXPECT_EQ(document["version"], 1);
    EXPECT_EQ(document["summary"]["migrations"], 4);
    EXPECT_EQ(document["summary"]["by_outcome"]["rolled back"], 1);
    ASSERT_EQ(document["migrations"].size(), 4u);
    const auto csv = parseCsv(reportCsv(*report));
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(document["migrations"][i]["migration"], csv[i + 1][0]);
        EXPECT_EQ(std::to_string(document["migrations"][i]["duration_ms"].get<std::int64_t>()), csv[i + 1][12]);
    }
    EXPECT_TRUE(document["migrations"][3]["write_hold_ms"].is_null());
    EXPECT_EQ(document["migrations"][0]["history"]["write_hold_ms"], 12.5);
}

TEST(MigrationReport, CopyIntervalsAreTheRateBetweenSamplesAndSkipARestartedCopy)
{
    const std::vector<ProgressSample> samples { { 1000, 0, 0 }, { 3000, 400, 4000 }, { 3000, 450, 4500 },
        { 5000, 100, 1000 }, { 9000, 900, 9000 } };
    const std::vector<CopyInterval> intervals = copyIntervals(samples);
    ASSERT_EQ(intervals.size(), 2u);
    EXPECT_EQ(intervals[0].fromUnixMs, 1000);
    EXPECT_EQ(intervals[0].toUnixMs, 3000);
    EXPECT_EQ(intervals[0].docs, 400u);
    EXPECT_DOUBLE_EQ(intervals[0].docsPerSecond, 200.0);
    EXPECT_EQ(intervals[1].fromUnixMs, 5000);
    EXPECT_DOUBLE_EQ(intervals[1].docsPerSecond, 200.0);
    EXPECT_TRUE(copyIntervals({ { 1000, 5, 5 } }).empty());
}
