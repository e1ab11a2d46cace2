// Migration reports from a real fleet (issue 13): real nodes, a real shardmapd, migrations that
// end every way (done after a repair, cancelled, rolled back, failed), then `shardmapctl report`
// in all three formats. The PDF is read back with pdftotext, the CSV parsed back, the JSON
// validated against docs/schemas/migration-report.schema.json; the figures must agree with each
// other and with the store.
#include "core/map/map_editor.h"
#include "core/migration/migration_history.h"
#include "core/migration/migration_requests.h"
#include "ctl_run.h"
#include "tests/support/controller_process.h"
#include "tests/support/csv.h"
#include "tests/support/fleet_test.h"
#include "tests/support/workload.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <set>

using namespace shardmap;
using namespace shardmap::testing;
using nlohmann::json;

namespace {

// A tool's standard output (pdftotext, pdfinfo, python3), and its exit code.
CtlRun runTool(const TempDir& dir, const std::vector<std::string>& argv)
{
    return runProgram(dir, argv);
}

class ReportTest : public FleetTest<::testing::Test> {
protected:
    void SetUp() override
    {
        startFleet(2);
        m_started
            = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
                  .count();
    }

    void setSettings(std::uint32_t rollbackWindowSeconds, std::uint64_t throttle)
    {
        core::MigrationSettings settings;
        settings.rollbackWindowSeconds = rollbackWindowSeconds;
        settings.backfillBatch = 100;
        settings.defaultThrottleDocsPerSecond = throttle;
        core::MigrationRequests requests(*m_store, m_pool);
        ASSERT_TRUE(requests.setSettings(settings, m_actor));
    }

    std::unique_ptr<ControllerProcess> startController(const std::string& id, const std::vector<std::string>& env = {})
    {
        return ControllerProcess::start(
            m_dir.file(id + ".stderr.log"), { "--store", storeUri(), "--id", id, "--lease-ttl-ms", "1000" }, env);
    }

    core::MigrationRecord migration(const std::string& id) { return map().migrations.at(id).value; }
    std::string shardOf(const std::string& space) { return map().space(space)->shard; }
    static std::string other(const std::string& shard) { return shard == "s0" ? "s1" : "s0"; }

    bool waitFor(const std::string& id, const std::function<bool(const core::MigrationRecord&)>& predicate)
    {
        return pollUntil(std::chrono::seconds(60), [&] { return predicate(migration(id)); });
    }

    core::MigrationRecord queue(const std::string& space, const std::string& target, std::uint64_t throttle = 0)
    {
        core::MigrationRequests requests(*m_store, m_pool);
        auto queued = requests.queue(space, target, m_actor, throttle);
        EXPECT_TRUE(queued) << queued.error().describe();
        return queued ? *queued : core::MigrationRecord {};
    }

    CtlRun report(const std::vector<std::string>& args, const std::string& language = "en_US.UTF-8")
    {
        std::vector<std::string> all { "report" };
        all.insert(all.end(), args.begin(), args.end());
        return runCtl(m_dir, storeUri(), all, { "LANG=" + language, "LC_ALL=" + language });
    }

    std::int64_t m_started = 0;
};

// Counts as the PDF prints them: grouped by thousands, "," in English and "." in German.
std::string docsText(std::uint64_t docs, const char* locale)
{
    const std::string digits = std::to_string(docs);
    const char separator = std::string(locale).starts_with("de") ? '.' : ',';
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += separator;
        out += digits[i];
    }
    return out;
}

// One decimal, rounded half up in whole tenths as the report does: printf's "%.1f" would round
// a tie such as 4.25 to even and read "4.2" where the report reads "4.3".
std::string tenthsText(std::int64_t tenths)
{
    return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10);
}

// Sizes as the PDF prints them in English (core/util/units.h's binary units, whole bytes under
// 1 KiB, else one decimal as QLocale writes it).
std::string unspaced(std::string text)
{
    std::erase(text, ' ');
    return text;
}

std::string bytesText(std::uint64_t bytes)
{
    if (bytes < 1024)
        return std::to_string(bytes) + " B";
    const char* units[] = { "KiB", "MiB", "GiB", "TiB" };
    double value = static_cast<double>(bytes) / 1024;
    std::size_t unit = 0;
    while (value >= 1024 && unit + 1 < std::size(units)) {
        value /= 1024;
        ++unit;
    }
    // Qt rounds a tie (58.25 KiB) half up where printf rounds it to even.
    return tenthsText(static_cast<std::int64_t>(std::floor(value * 10 + 0.5))) + " " + units[unit];
}

// Durations as the PDF prints them in English.
std::string holdText(double ms)
{
    return tenthsText(std::llround(ms * 10)) + " ms";
}

std::string durationText(std::int64_t ms)
{
    char text[48];
    if (ms <= 0)
        return "\u2014";
    if (ms < 1000)
        std::snprintf(text, sizeof text, "%lld ms", static_cast<long long>(ms));
    else if (ms < 60'000)
        std::snprintf(text, sizeof text, "%s s", tenthsText((ms + 50) / 100).c_str());
    else if (ms < 3'600'000)
        std::snprintf(text, sizeof text, "%lld min %lld s", static_cast<long long>(ms / 60'000),
            static_cast<long long>(ms / 1000 % 60));
    else
        std::snprintf(text, sizeof text, "%lld h %lld min", static_cast<long long>(ms / 3'600'000),
            static_cast<long long>(ms / 60'000 % 60));
    return text;
}

// The first line of text that holds every one of parts, from `from` on; "" if none does.
std::string lineWith(const std::string& text, const std::vector<std::string>& parts, std::size_t from = 0)
{
    for (std::size_t begin = from; begin < text.size();) {
        const std::size_t end = std::min(text.find('\n', begin), text.size());
        const std::string line = text.substr(begin, end - begin);
        if (std::all_of(parts.begin(), parts.end(),
                [&](const std::string& part) { return line.find(part) != std::string::npos; }))
            return line;
        begin = end + 1;
    }
    return {};
}

// What a JSON row says for a CSV column of the same name, as the CSV writes it.
std::string csvTextOf(const json& row, const std::string& column)
{
    const json& approval = row["approval"];
    if (column == "approved_by")
        return approval.is_null() ? "" : approval["decided_by"].get<std::string>();
    if (column == "approval_id")
        return approval.is_null() ? "" : approval["id"].get<std::string>();
    if (column == "verified_equal") {
        const json& history = row["history"];
        if (row["write_hold_ms"].is_null() || history.is_null() || !history.contains("verification"))
            return "";
        return history["verification"]["equal"].get<bool>() ? "true" : "false";
    }
    if (column == "write_hold_ms") {
        if (row["write_hold_ms"].is_null())
            return "";
        char hold[32];
        std::snprintf(hold, sizeof hold, "%.3f", row["write_hold_ms"].get<double>());
        return hold;
    }
    const json& value = row.at(column);
    return value.is_string() ? value.get<std::string>() : value.dump();
}

} // namespace

TEST_F(ReportTest, EveryOutcomeAgreesInPdfCsvJsonAndWithTheStore)
{
    // 1. Done after a repair: the router loses every dual write to the target (as if it timed
    //    out) while writers update a space being copied; verify finds and repairs the difference.
    //    Queued as a one-move operation, so that the report has an operation with its shards.
    setSettings(0, 400);
    auto lossy = startController("c1", { "SHARDMAP_FAILPOINTS=router.target_write=error" });
    ASSERT_TRUE(lossy);
    Workload workload(
        { { "acme", "globex", "initech", "umbrella" }, 1200, 1, 4, 0.1, std::chrono::milliseconds(3), 21 },
        { routerServicePath(lossy->address()) });
    ASSERT_TRUE(workload.prefill()) << workload.lastError();
    const std::string acmeFrom = shardOf("acme");
    core::MigrationRequests requests(*m_store, m_pool);
    auto operation = requests.moveSpaces({ { "acme", other(acmeFrom) } }, m_actor);
    ASSERT_TRUE(operation) << operation.error().describe();
    const std::string repaired = operation->migrations.at(0);
    ASSERT_TRUE(waitFor(repaired, [](const auto& m) { return m.progress.docsDone >= 250; })) << lossy->stderrText();
    workload.start();
    ASSERT_TRUE(waitFor(repaired, [](const auto& m) { return m.progress.docsDone >= 900; })) << lossy->stderrText();
    workload.stop();
    ASSERT_TRUE(waitFor(repaired, [](const auto& m) { return !m.active(); })) << lossy->stderrText();
    ASSERT_EQ(migration(repaired).phase, core::MigrationPhase::Done) << migration(repaired).error;
    ASSERT_GT(migration(repaired).repairedDocs, 0u) << "no dual write was lost behind the backfill";
    ASSERT_TRUE(workload.settle(std::chrono::seconds(20))) << workload.lastError();
    lossy.reset();

    // 2. Failed: its target became read-only after it was queued; the executor's preflight at
    //    start refuses it. 3. Cancelled in the middle of its backfill.
    setSettings(0, 300);
    const std::string umbrellaTo = other(shardOf("umbrella"));
    const auto failed = queue("umbrella", umbrellaTo);
    core::MapEditor editor(*m_store);
    ASSERT_TRUE(editor.setShardState(umbrellaTo, core::ShardState::Readonly, m_actor));
    const auto cancelled = queue("globex", other(shardOf("globex")));
    auto controller = startController("c2");
    ASSERT_TRUE(controller);
    ASSERT_TRUE(waitFor(failed.id, [](const auto& m) { return !m.active(); })) << controller->stderrText();
    ASSERT_EQ(migration(failed.id).phase, core::MigrationPhase::Failed);
    ASSERT_TRUE(waitFor(cancelled.id, [](const auto& m) { return m.progress.docsDone >= 100; }));
    ASSERT_TRUE(requests.cancel(cancelled.id, m_actor));
    ASSERT_TRUE(waitFor(cancelled.id, [](const auto& m) { return !m.active(); })) << controller->stderrText();
    ASSERT_EQ(migration(cancelled.id).phase, core::MigrationPhase::Cancelled);
    ASSERT_TRUE(editor.setShardState(umbrellaTo, core::ShardState::Active, m_actor));

    // 4. Rolled back in its rollback window.
    setSettings(120, 0);
    const std::string initechFrom = shardOf("initech");
    const auto rolled = queue("initech", other(initechFrom));
    ASSERT_TRUE(waitFor(rolled.id, [](const auto& m) { return m.phase == core::MigrationPhase::Cleanup; }));
    ASSERT_TRUE(requests.rollback(rolled.id, m_actor));
    ASSERT_TRUE(waitFor(rolled.id, [](const auto& m) { return !m.active(); })) << controller->stderrText();
    ASSERT_TRUE(migration(rolled.id).rolledBack);

    // The three formats of the same scope.
    const std::string since = std::to_string(m_started);
    const std::string jsonFile = m_dir.file("report.json");
    const std::string csvFile = m_dir.file("report.csv");
    const std::string pdfFile = m_dir.file("report.pdf");
    for (const auto& [format, file] : { std::pair { "json", jsonFile }, { "csv", csvFile }, { "pdf", pdfFile } }) {
        auto written = report({ "--since", since, "--format", format, "-o", file });
        ASSERT_EQ(written.code, 0) << written.err;
        EXPECT_NE(written.out.find("4 migration(s) reported"), std::string::npos) << written.out;
    }

    // JSON: valid by the documented schema.
    auto valid = runTool(m_dir,
        { "/usr/bin/python3", "-c",
            "import json, sys, jsonschema\n"
            "jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))\n",
            SHARDMAP_REPORT_SCHEMA, jsonFile });
    EXPECT_EQ(valid.code, 0) << valid.err;
    const json doc = json::parse(readWholeFile(jsonFile));
    ASSERT_EQ(doc["migrations"].size(), 4u);

    // The store's records and histories, the JSON and the CSV say the same.
    const auto rows = parseCsv(readWholeFile(csvFile));
    ASSERT_EQ(rows.size(), 5u);
    const std::vector<std::string>& header = rows[0];
    const std::map<std::string, std::string> expectedOutcome { { repaired, "done" }, { failed.id, "failed" },
        { cancelled.id, "cancelled" }, { rolled.id, "rolled back" } };
    const auto snapshot = map();
    for (std::size_t i = 0; i < 4; ++i) {
        const json& row = doc["migrations"][i];
        const std::vector<std::string>& csv = rows[i + 1];
        const std::string id = row["migration"];
        SCOPED_TRACE(id);
        const core::MigrationRecord& stored = snapshot.migrations.at(id).value;
        EXPECT_EQ(row["outcome"], expectedOutcome.at(id));
        EXPECT_EQ(row["docs_done"], stored.progress.docsDone);
        EXPECT_EQ(row["bytes_done"], stored.progress.bytesDone);
        EXPECT_EQ(row["repaired_docs"], stored.repairedDocs);
        EXPECT_EQ(row["error"], stored.error);
        auto history = m_store->list(core::keys::migrationHistory(id));
        ASSERT_TRUE(history && history->records.size() == 1);
        const auto recorded = core::decodeMigrationHistory(history->records.begin()->second.value);
        ASSERT_TRUE(recorded);
        if (recorded->writeHoldMs >= 0) {
            EXPECT_DOUBLE_EQ(row["write_hold_ms"].get<double>(), recorded->writeHoldMs);
        } else {
            EXPECT_TRUE(row["write_hold_ms"].is_null());
        }
        // Every CSV column says what the JSON field of its name says.
        ASSERT_EQ(csv.size(), header.size());
        for (std::size_t c = 0; c < header.size(); ++c)
            EXPECT_EQ(csv[c], csvTextOf(row, header[c])) << header[c];
        // The phases, their times, the verification and the events are the stored history's.
        EXPECT_EQ(row["history"], json::parse(core::encode(*recorded)));
        EXPECT_EQ(row["started_unix_ms"], stored.startedUnixMs);
        EXPECT_EQ(row["ended_unix_ms"], stored.finishedUnixMs);
        EXPECT_EQ(row["duration_ms"],
            stored.startedUnixMs ? stored.finishedUnixMs - stored.startedUnixMs : std::int64_t { 0 });
        EXPECT_EQ(row["requested_by"], stored.requestedBy);
        EXPECT_EQ(row["reason"], stored.reason);
    }
    // What was asked, through the rollback's swap.
    const auto& rolledRow = *std::find_if(
        doc["migrations"].begin(), doc["migrations"].end(), [&](const json& r) { return r["migration"] == rolled.id; });
    EXPECT_EQ(rolledRow["requested_source"], initechFrom);
    EXPECT_EQ(doc["summary"]["repaired_docs"], migration(repaired).repairedDocs);
    EXPECT_NE(migration(failed.id).error.find("preflight at start"), std::string::npos) << migration(failed.id).error;

    // PDF: the text carries the same figures, on US Letter for an American locale.
    auto text = runTool(m_dir, { "/usr/bin/pdftotext", "-layout", pdfFile, "-" });
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("Migration report"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("Page 1 of"), std::string::npos);
    for (const json& row : doc["migrations"]) {
        const std::string id = row["migration"];
        SCOPED_TRACE(id);
        // The table row: the first line with the id and its outcome (the events come later).
        std::string line;
        for (std::size_t at = text.out.find(id); at != std::string::npos && line.empty();
             at = text.out.find(id, at + 1)) {
            const std::size_t begin = text.out.rfind('\n', at) + 1;
            const std::string candidate = text.out.substr(begin, text.out.find('\n', at) - begin);
            if (candidate.find(row["outcome"].get<std::string>()) != std::string::npos)
                line = candidate;
        }
        ASSERT_FALSE(line.empty()) << "no table row for " << id << " in\n" << text.out;
        EXPECT_NE(line.find(docsText(row["docs_done"], "en_US")), std::string::npos) << line;
        if (!row["write_hold_ms"].is_null()) {
            EXPECT_NE(line.find(holdText(row["write_hold_ms"].get<double>())), std::string::npos) << line;
        }
    }
    EXPECT_NE(text.out.find(docsText(doc["summary"]["docs_moved"], "en_US")), std::string::npos);
    EXPECT_NE(text.out.find(migration(failed.id).error.substr(0, 40)), std::string::npos) << "the failure's reason";
    // Each table row: its data, its copy and its rollback window apart; the rolled-back one as
    // it was asked.
    for (const json& row : doc["migrations"]) {
        const std::string id = row["migration"];
        const std::string line = lineWith(text.out, { id, row["outcome"] });
        // pdftotext may join a short amount to its unit ("0B" for a "0 B" cell): compare unspaced.
        EXPECT_NE(unspaced(line).find(unspaced(bytesText(row["bytes_done"]))), std::string::npos) << line;
        EXPECT_LE(row["copy_ms"].get<std::int64_t>() + row["window_ms"].get<std::int64_t>(),
            row["duration_ms"].get<std::int64_t>());
        for (const char* part : { "copy_ms", "window_ms" }) {
            if (row[part].get<std::int64_t>() > 0) {
                EXPECT_NE(line.find(durationText(row[part])), std::string::npos) << part << ": " << line;
            }
        }
        const std::string asked
            = row["requested_source"].get<std::string>() + " \u2192 " + row["requested_target"].get<std::string>();
        EXPECT_NE(line.find(asked), std::string::npos) << line;
    }
    const std::string rolledLine = lineWith(text.out, { rolled.id, "rolled back" });
    EXPECT_NE(rolledLine.find(initechFrom + " \u2192 " + other(initechFrom)), std::string::npos) << rolledLine;
    EXPECT_EQ(rolledLine.find(other(initechFrom) + " \u2192 " + initechFrom), std::string::npos) << rolledLine;
    // The summary's figures.
    const json& summary = doc["summary"];
    std::string outcomes;
    for (const auto& [outcome, n] : summary["by_outcome"].items())
        outcomes += (outcomes.empty() ? "" : ", ") + std::to_string(n.get<int>()) + " " + outcome;
    EXPECT_NE(lineWith(text.out, { "Migrations", "4 (" + outcomes + ")" }), "") << outcomes << "\n" << text.out;
    EXPECT_NE(lineWith(text.out, { "Data moved", bytesText(summary["bytes_moved"]) }), "") << text.out;
    EXPECT_NE(lineWith(text.out, { "Copy time", durationText(summary["total_copy_ms"]) }), "") << text.out;
    EXPECT_NE(lineWith(text.out,
                  { "Longest migration",
                      durationText(summary["longest_copy_ms"]) + " to copy and cut over ("
                          + summary["longest_copy_migration"].get<std::string>() + ")" }),
        "")
        << text.out;
    EXPECT_NE(lineWith(text.out,
                  { "Longest write hold",
                      holdText(summary["longest_write_hold_ms"].get<double>()) + " ("
                          + summary["longest_hold_migration"].get<std::string>() + ")" }),
        "")
        << text.out;
    EXPECT_NE(lineWith(text.out,
                  { "Verification",
                      std::to_string(summary["verified_equal"].get<int>()) + " cut over with source and target equal, "
                          + std::to_string(summary["verified_apart"].get<int>()) + " apart" }),
        "")
        << text.out;
    EXPECT_NE(lineWith(text.out, { "Repaired documents", docsText(summary["repaired_docs"], "en_US") }), "");
    // Who asked and why, and what happened on the way: the cancel, the rollback, the repair.
    const std::size_t asked = text.out.find("Who asked and why");
    ASSERT_NE(asked, std::string::npos);
    EXPECT_NE(lineWith(text.out, { m_actor.name, m_actor.reason }, asked), "") << text.out.substr(asked, 800);
    const std::size_t events = text.out.find("Errors and events");
    ASSERT_NE(events, std::string::npos);
    // Each event's row: the migration, its kind as people read it, and its details.
    const std::vector<std::vector<std::string>> expectedEvents { { cancelled.id, "cancel requested" },
        { cancelled.id, "cancelled", "stays on" }, { rolled.id, "rollback requested" },
        { rolled.id, "rolled back", "the space goes back to " + initechFrom }, { repaired, "repair", "repaired" } };
    for (const auto& parts : expectedEvents)
        EXPECT_NE(lineWith(text.out, parts, events), "") << parts[0] << " " << parts[1] << "\n"
                                                         << text.out.substr(events);
    auto info = runTool(m_dir, { "/usr/bin/pdfinfo", pdfFile });
    EXPECT_NE(info.out.find("(letter)"), std::string::npos) << info.out;

    // German and A4 for a German locale.
    const std::string german = m_dir.file("bericht.pdf");
    ASSERT_EQ(report({ "--since", since, "--format", "pdf", "-o", german }, "de_DE.UTF-8").code, 0);
    auto deutsch = runTool(m_dir, { "/usr/bin/pdftotext", "-layout", german, "-" });
    EXPECT_NE(deutsch.out.find("Migrationsbericht"), std::string::npos) << deutsch.out;
    EXPECT_NE(deutsch.out.find("Seite 1 von"), std::string::npos);
    EXPECT_NE(deutsch.out.find(docsText(doc["summary"]["docs_moved"], "de_DE")), std::string::npos);
    // The events' kinds in German too (their details are the executor's, in English).
    const std::size_t ereignisse = deutsch.out.find("Fehler und Ereignisse");
    ASSERT_NE(ereignisse, std::string::npos) << deutsch.out;
    for (const auto& [id, kind] :
        std::vector<std::pair<std::string, std::string>> { { cancelled.id, "Abbruch angefordert" },
            { rolled.id, "Rücknahme angefordert" }, { rolled.id, "zurückgenommen" }, { repaired, "Reparatur" } })
        EXPECT_NE(lineWith(deutsch.out, { id, kind }, ereignisse), "") << kind << "\n"
                                                                       << deutsch.out.substr(ereignisse);
    for (const char* english : { "cancel-requested", "rollback-requested", "rolled-back", "cancel requested" })
        EXPECT_EQ(deutsch.out.find(english, ereignisse), std::string::npos) << english;
    EXPECT_NE(runTool(m_dir, { "/usr/bin/pdfinfo", german }).out.find("(A4)"), std::string::npos);

    // The operation's report: its shards before and after, as measured when it was queued.
    const std::string opPdf = m_dir.file("operation.pdf");
    ASSERT_EQ(report({ "--operation", operation->id, "--format", "pdf", "-o", opPdf }).code, 0);
    auto opText = runTool(m_dir, { "/usr/bin/pdftotext", "-layout", opPdf, "-" });
    EXPECT_NE(opText.out.find(operation->id), std::string::npos) << opText.out;
    EXPECT_NE(opText.out.find("Docs before"), std::string::npos);
    auto opJson = report({ "--operation", operation->id, "--format", "json" });
    const json opDoc = json::parse(opJson.out);
    const json& shards = opDoc["operations"][0]["shards"];
    ASSERT_EQ(shards.size(), 2u);
    const std::uint64_t moved = migration(repaired).progress.docsDone;
    const std::uint64_t movedBytes = migration(repaired).progress.bytesDone;
    const std::size_t table = opText.out.find("Docs before");
    ASSERT_NE(table, std::string::npos) << opText.out;
    for (const json& shard : shards) {
        const std::string id = shard["shard"];
        SCOPED_TRACE(id);
        EXPECT_TRUE(shard["measured"].get<bool>());
        const bool from = id == acmeFrom;
        const auto signedMoved
            = [&](std::uint64_t n) { return from ? -static_cast<std::int64_t>(n) : static_cast<std::int64_t>(n); };
        EXPECT_EQ(
            shard["docs_after"].get<std::int64_t>() - shard["docs_before"].get<std::int64_t>(), signedMoved(moved));
        EXPECT_EQ(shard["bytes_after"].get<std::int64_t>() - shard["bytes_before"].get<std::int64_t>(),
            signedMoved(movedBytes));
        EXPECT_EQ(
            shard["spaces_after"].get<std::int64_t>() - shard["spaces_before"].get<std::int64_t>(), signedMoved(1));
        // The PDF's row of the shard: before and after, docs, data and spaces, in the table's order.
        const std::string line = lineWith(opText.out, { id + " " }, table);
        std::vector<std::string> expected { docsText(shard["docs_before"], "en_US"),
            docsText(shard["docs_after"], "en_US"), bytesText(shard["bytes_before"]), bytesText(shard["bytes_after"]),
            docsText(shard["spaces_before"], "en_US"), docsText(shard["spaces_after"], "en_US") };
        std::size_t at = line.find(id) + id.size();
        for (const std::string& figure : expected) {
            at = line.find(figure, at);
            ASSERT_NE(at, std::string::npos) << figure << " in " << line;
            at += figure.size();
        }
    }
}

TEST_F(ReportTest, RetriesAreCountedInTheHistoryAndShownInJsonAndPdf)
{
    // Every backfill batch after the first fails: the worker retries with a growing backoff.
    setSettings(0, 0);
    auto controller = startController("c1", { "SHARDMAP_FAILPOINTS=migration.backfill.batch=error@2+" });
    ASSERT_TRUE(controller);
    Workload workload(
        { { "acme" }, 400, 1, 4, 0.1, std::chrono::milliseconds(3), 23 }, { routerServicePath(controller->address()) });
    ASSERT_TRUE(workload.prefill()) << workload.lastError();
    const auto queued = queue("acme", other(shardOf("acme")));
    const auto retries = [&] {
        auto recorded = core::readMigrationHistory(*m_store, queued.id);
        std::uint32_t count = 0;
        if (recorded && *recorded)
            for (const auto& event : (*recorded)->events)
                count += event.kind == "retry" ? event.count : 0;
        return count;
    };
    ASSERT_TRUE(pollUntil(std::chrono::seconds(60), [&] { return retries() >= 3; })) << controller->stderrText();
    core::MigrationRequests requests(*m_store, m_pool);
    ASSERT_TRUE(requests.cancel(queued.id, m_actor));
    ASSERT_TRUE(waitFor(queued.id, [](const auto& m) { return !m.active(); })) << controller->stderrText();

    // One event for the repeated error, with its count and the last retry's time.
    const std::string jsonFile = m_dir.file("retries.json");
    ASSERT_EQ(report({ "--migration", queued.id, "--format", "json", "-o", jsonFile }).code, 0);
    const json doc = json::parse(readWholeFile(jsonFile));
    std::vector<json> retried;
    for (const json& event : doc["migrations"][0]["history"]["events"])
        if (event["kind"] == "retry")
            retried.push_back(event);
    ASSERT_EQ(retried.size(), 1u) << doc["migrations"][0]["history"]["events"].dump(2);
    const json& retry = retried.front();
    EXPECT_NE(retry["text"].get<std::string>().find("failpoint migration.backfill.batch injected an error"),
        std::string::npos)
        << retry.dump();
    EXPECT_GE(retry["count"].get<std::uint32_t>(), 3u);
    EXPECT_GT(retry["last_unix_ms"].get<std::int64_t>(), retry["unix_ms"].get<std::int64_t>());
    auto valid = runTool(m_dir,
        { "/usr/bin/python3", "-c",
            "import json, sys, jsonschema\n"
            "jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))\n",
            SHARDMAP_REPORT_SCHEMA, jsonFile });
    EXPECT_EQ(valid.code, 0) << valid.err;

    const std::string pdfFile = m_dir.file("retries.pdf");
    ASSERT_EQ(report({ "--migration", queued.id, "--format", "pdf", "-o", pdfFile }).code, 0);
    auto text = runTool(m_dir, { "/usr/bin/pdftotext", "-layout", pdfFile, "-" });
    ASSERT_EQ(text.code, 0) << text.err;
    // The events table's row: the migration, "retry", the error and how often it was retried.
    const std::size_t row = text.out.find(queued.id + " ", text.out.find("Errors and events"));
    ASSERT_NE(row, std::string::npos) << text.out;
    const std::string line = text.out.substr(row, text.out.find('\n', row) - row);
    EXPECT_NE(line.find("retry"), std::string::npos) << line;
    EXPECT_NE(line.find("failpoint migration.backfill.batch"), std::string::npos) << line;
    EXPECT_NE(line.find("(" + std::to_string(retry["count"].get<std::uint32_t>()) + " times"), std::string::npos)
        << line;
}

// The scope's flags end to end: two migrations that are told apart by time, space, shard and
// state, on three shards.
class ReportScopeTest : public ReportTest {
protected:
    void SetUp() override
    {
        startFleet(3);
        m_started
            = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
                  .count();
    }

    // The ids a report with these flags holds, in its order.
    std::vector<std::string> idsOf(const std::vector<std::string>& flags)
    {
        auto run = report(flags);
        EXPECT_EQ(run.code, 0) << run.err;
        std::vector<std::string> ids;
        const json doc = json::parse(run.out, nullptr, false);
        if (doc.is_discarded())
            return { "unparsable: " + run.out };
        for (const json& row : doc["migrations"])
            ids.push_back(row["migration"]);
        return ids;
    }
};

TEST_F(ReportScopeTest, UntilSpaceShardStateMigrationAndAUtcSinceSelectAsDocumented)
{
    setSettings(0, 0);
    auto controller = startController("c1");
    ASSERT_TRUE(controller);
    Workload workload({ { "acme", "globex" }, 60, 1, 4, 0.1, std::chrono::milliseconds(3), 31 },
        { routerServicePath(controller->address()) });
    ASSERT_TRUE(workload.prefill()) << workload.lastError();
    const std::vector<std::string> shards { "s0", "s1", "s2" };
    const std::string a = shardOf("acme");
    const std::string b = a == "s0" ? "s1" : "s0";
    const auto first = queue("acme", b);
    ASSERT_TRUE(waitFor(first.id, [](const auto& m) { return !m.active(); })) << controller->stderrText();
    // globex moves between a pair of shards that leaves one of acme's out.
    const std::string g = shardOf("globex");
    std::string h;
    for (const std::string& shard : shards)
        if (shard != g && (h.empty() || (g != a && g != b) || (shard != a && shard != b)))
            h = shard;
    const auto second = queue("globex", h);
    ASSERT_TRUE(waitFor(second.id, [](const auto& m) { return !m.active(); })) << controller->stderrText();
    ASSERT_EQ(migration(first.id).phase, core::MigrationPhase::Done);
    ASSERT_EQ(migration(second.id).phase, core::MigrationPhase::Done);
    const std::string onlyFirst = (a != g && a != h) ? a : b;
    ASSERT_TRUE(onlyFirst != g && onlyFirst != h);
    const std::vector<std::string> both { first.id, second.id };
    const std::vector<std::string> justFirst { first.id };

    // A UTC time (whole seconds, so from the second the test started) and unix ms select the same.
    const std::time_t seconds = static_cast<std::time_t>(m_started / 1000);
    std::tm utc {};
    gmtime_r(&seconds, &utc);
    char since[32];
    std::strftime(since, sizeof since, "%Y-%m-%dT%H:%M:%SZ", &utc);
    EXPECT_EQ(idsOf({ "--since", since }), both);
    EXPECT_EQ(idsOf({ "--since", std::to_string(m_started) }), both);
    // --until ends before the second migration was created.
    EXPECT_EQ(idsOf({ "--since", since, "--until", std::to_string(second.createdUnixMs) }), justFirst);
    EXPECT_EQ(idsOf({ "--since", since, "--space", "acme" }), justFirst);
    EXPECT_EQ(idsOf({ "--since", since, "--shard", onlyFirst }), justFirst);
    EXPECT_EQ(idsOf({ "--since", since, "--state", "done" }), both);
    EXPECT_EQ(idsOf({ "--since", since, "--state", "failed" }), std::vector<std::string> {});
    // One migration, named twice: one row.
    EXPECT_EQ(idsOf({ "--migration", second.id, "--migration", second.id }), std::vector<std::string> { second.id });
    const json scope = json::parse(report({ "--migration", second.id, "--migration", second.id }).out)["scope"];
    EXPECT_EQ(scope["migrations"], json::array({ second.id }));
}

TEST_F(ReportTest, BadRequestsAreRefusedWithAClearError)
{
    // The migrations are chosen one way only; --until belongs to --since.
    for (const auto& flags :
        std::vector<std::vector<std::string>> { { "--migration", "m-1", "--operation", "op-1" },
            { "--migration", "m-1", "--since", "1" }, { "--operation", "op-1", "--since", "1" }, { "--until", "5" } }) {
        auto refused = report(flags);
        EXPECT_EQ(refused.code, 2) << flags.front() << " " << flags.back();
        EXPECT_NE(
            refused.err.find(flags[0] == "--until" ? "--until ends the range" : "give one of them"), std::string::npos)
            << refused.err;
    }
    auto pdfToStdout = report({ "--since", "1", "--format", "pdf" });
    EXPECT_EQ(pdfToStdout.code, 2);
    EXPECT_NE(pdfToStdout.err.find("-o FILE"), std::string::npos) << pdfToStdout.err;
    auto badPaper = report({ "--since", "1", "--format", "pdf", "--paper", "a5", "-o", m_dir.file("x.pdf") });
    EXPECT_EQ(badPaper.code, 2);
    auto unknown = report({ "--migration", "m-nope", "--format", "pdf", "-o", m_dir.file("x.pdf") });
    EXPECT_EQ(unknown.code, 3) << unknown.err;
    EXPECT_FALSE(std::filesystem::exists(m_dir.file("x.pdf")));
    auto unwritable = report({ "--since", "1", "--format", "pdf", "-o", m_dir.file("no/such/dir/x.pdf") });
    EXPECT_NE(unwritable.code, 0);
    EXPECT_NE(unwritable.err.find("cannot write"), std::string::npos) << unwritable.err;
}
