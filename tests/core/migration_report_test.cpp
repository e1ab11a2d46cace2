// Migration reports: what is in scope, what each row says was asked and happened (through a
// rollback), the summary, and the two file forms: CSV that parses back to the same rows (RFC 4180
// quoting) and JSON with its schema name and version; the approvals (issue 17) that made
// migrations and operations and the refused and expired requests, read from a real SQLite store.
#include "core/admin/admin_changes.h"
#include "core/admin/approvals.h"
#include "core/plan/plan.h"
#include "core/report/migration_report.h"
#include "core/store/sqlite_store.h"
#include "tests/support/csv.h"
#include "tests/support/process.h"
#include "tests/support/test_dir.h"

#include <chrono>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <set>

using namespace shardmap::core;
namespace v1 = shardmap::v1;
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
    auto twice = buildReport(f.map, f.histories, { { "m-2", "m-1", "m-2" }, "op-1", 0, 0, {}, {}, {} }, 10000);
    ASSERT_TRUE(twice);
    EXPECT_EQ(twice->rows.size(), 2u) << "a migration named twice, or also by its operation, is one row";
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
    EXPECT_EQ(document["version"], MigrationReport::kVersion);
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

TEST(MigrationReport, AbortedCutoversCountAfterTheCutoverThatCommitted)
{
    Fixture f;
    // m-1 is done: its record's count of aborts in a row was reset by the cutover that committed.
    ASSERT_EQ(f.map.migrations.at("m-1").value.cutoverAborts, 0u);
    f.histories["m-1"].cutoverAborts = 2;
    auto report = buildReport(f.map, f.histories, { { "m-1" }, {}, 0, 0, {}, {}, {} }, 10000);
    ASSERT_TRUE(report);
    EXPECT_EQ(report->rows.at(0).cutoverAborts, 2u);
    EXPECT_EQ(report->summary.cutoverAborts, 2u);
    const auto document = nlohmann::json::parse(reportJson(*report));
    EXPECT_EQ(document["migrations"][0]["cutover_aborts"], 2);
    EXPECT_EQ(document["summary"]["cutover_aborts"], 2);
    const auto csv = parseCsv(reportCsv(*report));
    const auto& header = csv.at(0);
    const auto column
        = static_cast<std::size_t>(std::find(header.begin(), header.end(), "cutover_aborts") - header.begin());
    EXPECT_EQ(csv.at(1).at(column), "2");
}

TEST(MigrationReport, TheCopyAndTheRollbackWindowAreApartAndTheLongestMigrationIsItsCopy)
{
    Fixture f;
    // The case: a 120 ms copy, then a ten-minute rollback window before the cleanup ended.
    MigrationRecord quick = migration("m-5", "hooli", MigrationPhase::Done, 6000);
    quick.finishedUnixMs = quick.startedUnixMs + 120 + 600'000;
    f.add(quick);
    MigrationHistory h = MigrationHistory::start(quick);
    h.phases.front().endedUnixMs = quick.startedUnixMs;
    std::int64_t t = quick.startedUnixMs;
    for (const auto& [phase, length] : std::vector<std::pair<MigrationPhase, std::int64_t>> {
             { MigrationPhase::DualWrite, 10 }, { MigrationPhase::Backfill, 80 }, { MigrationPhase::Verify, 20 },
             { MigrationPhase::Cutover, 10 }, { MigrationPhase::Cleanup, 600'000 } }) {
        h.phases.push_back({ phase, t, t + length });
        t += length;
    }
    h.phases.push_back({ MigrationPhase::Done, t, t });
    f.histories["m-5"] = h;
    // m-1 (5 s, no cleanup in its history) took longer to copy.
    auto report = buildReport(f.map, f.histories, { { "m-1", "m-5" }, {}, 0, 0, {}, {}, {} }, 700'000);
    ASSERT_TRUE(report) << report.error().describe();
    const ReportRow& row = report->rows.at(1);
    EXPECT_EQ(row.durationMs, 600'120);
    EXPECT_EQ(row.copyMs, 120);
    EXPECT_EQ(row.windowMs, 600'000);
    EXPECT_EQ(report->rows.at(0).copyMs, 5000) << "without a cleanup it is all copy";

    // The history's cleanup ended a millisecond after the record's end (two clock reads): the
    // parts still add up to the whole (a report test saw 3,462 ms of parts in 3,461).
    f.histories["m-5"].phases[f.histories["m-5"].phases.size() - 2].endedUnixMs += 1;
    auto skewed = buildReport(f.map, f.histories, { { "m-5" }, {}, 0, 0, {}, {}, {} }, 700'000);
    ASSERT_TRUE(skewed);
    const ReportRow& late = skewed->rows.at(0);
    EXPECT_EQ(late.copyMs + late.windowMs, late.durationMs);
    EXPECT_EQ(report->rows.at(0).windowMs, 0);
    const ReportSummary& s = report->summary;
    EXPECT_EQ(s.longestCopyMigration, "m-1");
    EXPECT_EQ(s.longestCopyMs, 5000);
    EXPECT_EQ(s.totalCopyMs, 5120);
    EXPECT_EQ(s.longestWindowMs, 600'000);
    const auto document = nlohmann::json::parse(reportJson(*report));
    EXPECT_EQ(document["migrations"][1]["copy_ms"], 120);
    EXPECT_EQ(document["migrations"][1]["window_ms"], 600'000);
    EXPECT_EQ(document["summary"]["longest_copy_migration"], "m-1");
    const auto csv = parseCsv(reportCsv(*report));
    EXPECT_EQ(csv.at(2).at(csv.at(0).size() - 2), "120");
    EXPECT_EQ(csv.at(2).back(), "600000");
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

namespace {

std::int64_t wallClockMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// A store holding what shardmapd's Admin API leaves behind (issue 17): a drain approved by a
// second person (op-7 and its migrations m-10, m-11), a migration queued through an approval
// (m-12), one made without (m-13), a move that was refused and a request nobody decided.
class ApprovedReport : public ::testing::Test {
protected:
    // The documented schema accepts the JSON file (python3-jsonschema, as the docs' readers would).
    void expectValidAgainstTheSchema(const std::string& file)
    {
        auto python = shardmap::testing::ChildProcess::spawn({ "/usr/bin/python3", "-c",
                                                                 "import json, sys, jsonschema\n"
                                                                 "jsonschema.validate(json.load(open(sys.argv[2])), "
                                                                 "json.load(open(sys.argv[1])))\n",
                                                                 SHARDMAP_REPORT_SCHEMA, file },
            m_dir.file("python.err"));
        ASSERT_TRUE(python);
        EXPECT_EQ(python->wait(std::chrono::seconds(60)), 0)
            << shardmap::testing::readWholeFile(m_dir.file("python.err"));
    }

    void SetUp() override
    {
        auto store = SqliteStore::open(m_dir.file("map.db"), true);
        ASSERT_TRUE(store) << store.error().describe();
        m_store = std::move(*store);
        m_base = wallClockMs() - 60'000;
        OperationRecord drain;
        drain.id = "op-7";
        drain.subject = "s1";
        drain.migrations = { "m-10", "m-11" };
        drain.requestedBy = "bob";
        drain.createdUnixMs = m_base;
        std::vector<MigrationRecord> migrations { migration("m-10", "acme", MigrationPhase::Done, m_base),
            migration("m-11", "globex", MigrationPhase::Done, m_base + 10),
            migration("m-12", "hooli", MigrationPhase::Done, m_base + 20),
            migration("m-13", "initech", MigrationPhase::Done, m_base + 30) };
        migrations[0].operation = migrations[1].operation = "op-7";
        CommitRequest records;
        records.mutations.push_back({ keys::operation(drain.id), encode(drain), 0 });
        for (const MigrationRecord& m : migrations)
            records.mutations.push_back({ keys::migration(m.id), encode(m), 0 });
        records.actor = "bob";
        records.action = "test-fixture";
        ASSERT_TRUE(m_store->commit(records));

        Approvals approvals(*m_store);
        // The Admin API plans a drain before it is judged: the approval holds the plan.
        Plan plan;
        plan.kind = "drain";
        plan.subject = "s1";
        plan.addMove({ "acme", "s1", "s2" });
        plan.addMove({ "globex", "s1", "s2" });
        v1::AdminChange drainChange;
        drainChange.mutable_apply_plan()->set_plan_json(plan.encode());
        m_drain = approveAndFinish(approvals, drainChange, "drain shard s1: 14 spaces", { "bob", "retire the rack" },
            { "carol", "looked at the plan" }, made("operation", encode(drain)));
        v1::AdminChange queue;
        queue.mutable_queue_migration()->set_space("hooli");
        queue.mutable_queue_migration()->set_target_shard("s2");
        m_queued = approveAndFinish(approvals, queue, "move hooli to s2: 3.0 GiB", { "dave", "" }, { "erin", "" },
            made("migration", encode(migrations[2])));

        v1::AdminChange move;
        auto* moved = move.mutable_move_spaces()->add_moves();
        moved->set_space("acme");
        moved->set_target_shard("s3");
        auto refused = approvals.request({ move, {}, "move acme to s3" }, "it moves 12 GiB", { "bob", "balance" });
        ASSERT_TRUE(refused);
        ASSERT_TRUE(approvals.decide(refused->id(), false, { "alice", "not during the sale" }, std::chrono::hours(1)));
        m_refused = refused->id();
        v1::AdminChange retire;
        retire.mutable_set_shard_state()->set_shard("s9");
        retire.mutable_set_shard_state()->set_state("retired");
        auto forgotten = approvals.request({ retire, {}, "retire shard s9" }, "it retires a node", { "dave", "" });
        ASSERT_TRUE(forgotten);
        m_expired = forgotten->id();
    }

    // What the Admin API answers when it made the change.
    static v1::ChangeResponse made(const std::string& kind, const std::string& record)
    {
        v1::ChangeResponse response;
        response.set_revision(5);
        response.set_record_kind(kind);
        response.set_record_json(record);
        return response;
    }

    std::string approveAndFinish(Approvals& approvals, const v1::AdminChange& change, const std::string& summary,
        const Actor& requester, const Actor& decider, const v1::ChangeResponse& outcome)
    {
        auto asked = approvals.request({ change, {}, summary }, "it moves more than 10 spaces", requester);
        EXPECT_TRUE(asked) << asked.error().describe();
        auto approved = approvals.decide(asked->id(), true, decider, std::chrono::hours(1));
        EXPECT_TRUE(approved) << approved.error().describe();
        EXPECT_TRUE(approvals.finish(*approved, true, describeOutcome(outcome)));
        return asked->id();
    }

    // Read two hours on: the undecided request has expired (after one hour), nothing else changed.
    Result<MigrationReport> read(const ReportScope& scope)
    {
        return readReport(*m_store, scope, wallClockMs() + 2 * 3'600'000, std::chrono::hours(1));
    }

    shardmap::testing::TempDir m_dir;
    std::unique_ptr<MetadataStore> m_store;
    std::int64_t m_base = 0;
    std::string m_drain, m_queued, m_refused, m_expired;
};

const ReportRow& rowOf(const MigrationReport& report, const std::string& id)
{
    return *std::find_if(
        report.rows.begin(), report.rows.end(), [&](const ReportRow& row) { return row.record.id == id; });
}

} // namespace

TEST_F(ApprovedReport, MigrationsAndOperationsNameTheApprovalThatMadeThem)
{
    auto report = read({ {}, {}, 1, 0, {}, {}, {} });
    ASSERT_TRUE(report) << report.error().describe();
    ASSERT_EQ(report->rows.size(), 4u);
    ASSERT_EQ(report->operations.size(), 1u);
    ASSERT_TRUE(report->operations[0].approval);
    const ReportApproval& drain = *report->operations[0].approval;
    EXPECT_EQ(drain.id, m_drain);
    EXPECT_EQ(drain.requestedBy, "bob");
    EXPECT_EQ(drain.reason, "retire the rack");
    EXPECT_EQ(drain.decidedBy, "carol");
    EXPECT_EQ(drain.decisionReason, "looked at the plan");
    EXPECT_EQ(drain.neededBecause, "it moves more than 10 spaces");
    EXPECT_GE(drain.decidedUnixMs, drain.requestedUnixMs);
    EXPECT_EQ(drain.shards, (std::vector<std::string> { "s1", "s2" })) << "read from the plan";
    EXPECT_EQ(drain.spaces, (std::vector<std::string> { "acme", "globex" }));
    for (const char* id : { "m-10", "m-11" }) {
        ASSERT_TRUE(rowOf(*report, id).approval) << id << " inherits its operation's approval";
        EXPECT_EQ(rowOf(*report, id).approval->id, m_drain);
    }
    ASSERT_TRUE(rowOf(*report, "m-12").approval);
    EXPECT_EQ(rowOf(*report, "m-12").approval->decidedBy, "erin");
    EXPECT_FALSE(rowOf(*report, "m-13").approval) << "no second person was needed";

    const auto csv = parseCsv(reportCsv(*report));
    const std::vector<std::string> columns = reportCsvColumns();
    ASSERT_GE(columns.size(), 4u);
    // Appended (version 2's approvals, then version 4's copy and window): old consumers keep their columns.
    EXPECT_EQ(columns[columns.size() - 4], "approved_by");
    EXPECT_EQ(columns[columns.size() - 3], "approval_id");
    EXPECT_EQ(columns[columns.size() - 2], "copy_ms");
    EXPECT_EQ(columns.back(), "window_ms");
    ASSERT_EQ(csv.size(), 5u);
    EXPECT_EQ(csv[1][columns.size() - 4], "carol");
    EXPECT_EQ(csv[1][columns.size() - 3], m_drain);
    EXPECT_EQ(csv[3][columns.size() - 3], m_queued);
    EXPECT_EQ(csv[4][columns.size() - 3], "") << "no second person was needed";

    const auto document = nlohmann::json::parse(reportJson(*report));
    EXPECT_EQ(document["version"], MigrationReport::kVersion);
    EXPECT_EQ(document["operations"][0]["approval"]["decided_by"], "carol");
    EXPECT_EQ(document["operations"][0]["approval"]["outcome"], "operation op-7 at revision 5");
    EXPECT_EQ(document["migrations"][2]["approval"]["requested_by"], "dave");
    EXPECT_TRUE(document["migrations"][3]["approval"].is_null());
}

TEST_F(ApprovedReport, RefusedAndExpiredRequestsOfItsTimeAndScopeAreListed)
{
    auto all = read({ {}, {}, m_base, 0, {}, {}, {} });
    ASSERT_TRUE(all) << all.error().describe();
    ASSERT_EQ(all->refusedRequests.size(), 2u) << "applied ones are not refused";
    const ReportApproval& refused = all->refusedRequests[0];
    EXPECT_EQ(refused.id, m_refused);
    EXPECT_EQ(refused.state, "refused");
    EXPECT_EQ(refused.summary, "move acme to s3");
    EXPECT_EQ(refused.requestedBy, "bob");
    EXPECT_EQ(refused.decidedBy, "alice");
    EXPECT_EQ(refused.decisionReason, "not during the sale");
    EXPECT_EQ(all->refusedRequests[1].id, m_expired);
    EXPECT_EQ(all->refusedRequests[1].state, "expired") << "pending past its time";

    auto before = read({ {}, {}, 1, m_base, {}, {}, {} });
    ASSERT_TRUE(before);
    EXPECT_TRUE(before->refusedRequests.empty()) << "asked after the range";
    auto acme = read({ {}, {}, m_base, 0, "acme", {}, {} });
    ASSERT_TRUE(acme);
    ASSERT_EQ(acme->refusedRequests.size(), 1u) << "the space filter narrows them";
    EXPECT_EQ(acme->refusedRequests[0].id, m_refused);
    auto s9 = read({ {}, {}, m_base, 0, {}, "s9", {} });
    ASSERT_TRUE(s9);
    ASSERT_EQ(s9->refusedRequests.size(), 1u);
    EXPECT_EQ(s9->refusedRequests[0].id, m_expired);
    auto drain = read({ {}, "op-7", 0, 0, {}, {}, {} });
    ASSERT_TRUE(drain);
    EXPECT_FALSE(drain->refusedRequests.empty()) << "the refused move names acme, which the drain moved";

    const auto document = nlohmann::json::parse(reportJson(*all));
    ASSERT_EQ(document["refused_requests"].size(), 2u);
    EXPECT_EQ(document["refused_requests"][0]["decided_by"], "alice");
    EXPECT_EQ(document["refused_requests"][0]["decision_reason"], "not during the sale");
    EXPECT_EQ(document["refused_requests"][1]["state"], "expired");
}

TEST_F(ApprovedReport, PendingFailedAndApprovedButUnmadeRequestsAreListedToo)
{
    Approvals approvals(*m_store);
    // Approved, but making the change failed.
    v1::AdminChange create;
    create.mutable_create_shard()->set_id("s5");
    auto asked = approvals.request({ create, {}, "create shard s5" }, "it adds a shard", { "dave", "more room" });
    ASSERT_TRUE(asked);
    auto approved = approvals.decide(asked->id(), true, { "erin", "fine" }, std::chrono::hours(24));
    ASSERT_TRUE(approved) << approved.error().describe();
    ASSERT_TRUE(approvals.finish(*approved, false, "node n5 did not answer"));
    const std::string failed = asked->id();
    // Approved, and nothing recorded as made (its shardmapd stopped in between).
    v1::AdminChange move;
    auto* moved = move.mutable_move_spaces()->add_moves();
    moved->set_space("globex");
    moved->set_target_shard("s4");
    auto claimed = approvals.request({ move, {}, "move globex to s4" }, "it moves 12 GiB", { "bob", "balance" });
    ASSERT_TRUE(claimed);
    ASSERT_TRUE(approvals.decide(claimed->id(), true, { "carol", "ok" }, std::chrono::hours(24)));
    const std::string unmade = claimed->id();

    // Read now, with a day to decide: the undecided request is still pending.
    auto report = readReport(*m_store, { {}, {}, m_base, 0, {}, {}, {} }, wallClockMs(), std::chrono::hours(24));
    ASSERT_TRUE(report) << report.error().describe();
    std::map<std::string, std::string> states;
    for (const ReportApproval& a : report->unmadeRequests)
        states[a.id] = a.state;
    EXPECT_EQ(states,
        (std::map<std::string, std::string> {
            { m_expired, "pending" }, { failed, "failed" }, { unmade, "applying" } }));
    ASSERT_EQ(report->refusedRequests.size(), 1u) << "the refused one only";
    EXPECT_EQ(report->refusedRequests[0].id, m_refused);
    const auto failedRow = std::find_if(report->unmadeRequests.begin(), report->unmadeRequests.end(),
        [&](const ReportApproval& a) { return a.id == failed; });
    EXPECT_EQ(failedRow->outcome, "node n5 did not answer");
    EXPECT_EQ(failedRow->decidedBy, "erin");
    // Narrowed like the refused ones: only what names globex.
    auto globex = readReport(*m_store, { {}, {}, m_base, 0, "globex", {}, {} }, wallClockMs(), std::chrono::hours(24));
    ASSERT_TRUE(globex);
    ASSERT_EQ(globex->unmadeRequests.size(), 1u);
    EXPECT_EQ(globex->unmadeRequests[0].id, unmade);

    const auto document = nlohmann::json::parse(reportJson(*report));
    EXPECT_EQ(document["version"], MigrationReport::kVersion);
    ASSERT_EQ(document["requests_not_made"].size(), 3u);
    std::set<std::string> jsonStates;
    for (const auto& request : document["requests_not_made"])
        jsonStates.insert(request["state"].get<std::string>());
    EXPECT_EQ(jsonStates, (std::set<std::string> { "pending", "failed", "applying" }));
    EXPECT_EQ(document["refused_requests"].size(), 1u);
    const std::string file = m_dir.file("unmade.json");
    ASSERT_TRUE(writeReportFile(*report, "json", file));
    expectValidAgainstTheSchema(file);
}

TEST_F(ApprovedReport, JsonValidatesAgainstTheSchema)
{
    auto report = read({ {}, {}, 1, 0, {}, {}, {} });
    ASSERT_TRUE(report);
    const std::string file = m_dir.file("report.json");
    ASSERT_TRUE(writeReportFile(*report, "json", file));
    expectValidAgainstTheSchema(file);
}
