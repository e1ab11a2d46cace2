// shardmapctl report: what migrations did, as CSV, versioned JSON (docs/REPORTS.md) or PDF, for
// one migration, a list, an operation, or a time range with filters; the console exports the same
// report (core/report, widgets/report for the PDF).
#include "app/ctl/command_line.h"
#include "app/ctl/output.h"
#include "core/report/migration_report.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace shardmap::app {

using core::ErrorCode;

namespace {

std::int64_t nowMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Unix milliseconds, or UTC as 2026-12-01T14:00:00Z (or without the time).
core::Result<std::int64_t> parseTime(const std::string& text)
{
    if (text.empty())
        return std::int64_t { 0 };
    if (std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return static_cast<std::int64_t>(std::stoll(text));
    std::tm tm {};
    std::istringstream in(text);
    in >> std::get_time(&tm, text.size() > 10 ? "%Y-%m-%dT%H:%M:%S" : "%Y-%m-%d");
    if (in.fail())
        return core::makeError(
            ErrorCode::InvalidArgument, "\"" + text + "\" is not a time (unix ms, or UTC like 2026-12-01T14:00:00Z)");
    return static_cast<std::int64_t>(timegm(&tm)) * 1000;
}

} // namespace

#ifdef SHARDMAP_CTL_NO_PDF
core::Status writeReportPdf(const core::MigrationReport&, const std::string&, const std::string&)
{
    return core::makeError(ErrorCode::FailedPrecondition,
        "this shardmapctl was built without Qt (SHARDMAP_CORE_ONLY); PDF reports need the full build");
}
#endif

namespace {

// The format, the paper and the one choice of migrations: what can be wrong before the store is read.
core::Status checkReportArgs(const ReportArgs& args)
{
    if (args.format != "csv" && args.format != "json" && args.format != "pdf")
        return core::makeError(ErrorCode::InvalidArgument, "unknown format \"" + args.format + "\" (pdf, csv or json)");
    if (args.format == "pdf" && args.output.empty())
        return core::makeError(ErrorCode::InvalidArgument, "a PDF report needs a file: -o FILE");
    if (!args.paper.empty() && (args.format != "pdf" || (args.paper != "a4" && args.paper != "letter")))
        return core::makeError(ErrorCode::InvalidArgument, "--paper is a4 or letter, for --format pdf");
    const int choices
        = (args.migrations.empty() ? 0 : 1) + (args.operation.empty() ? 0 : 1) + (args.since.empty() ? 0 : 1);
    if (!args.until.empty() && args.since.empty())
        return core::makeError(ErrorCode::InvalidArgument, "--until ends the range that --since starts; give both");
    if (choices == 0)
        return core::makeError(ErrorCode::InvalidArgument, "say which migrations: --migration, --operation or --since");
    if (choices > 1)
        return core::makeError(ErrorCode::InvalidArgument,
            "--migration, --operation and --since each choose the migrations; give one of them (filter with --space, "
            "--shard and --state)");
    return {};
}

core::Result<core::ReportScope> reportScope(const ReportArgs& args)
{
    core::ReportScope scope;
    // Each migration once, in the order given.
    for (const std::string& id : args.migrations)
        if (std::find(scope.migrations.begin(), scope.migrations.end(), id) == scope.migrations.end())
            scope.migrations.push_back(id);
    scope.operation = args.operation;
    scope.space = args.space;
    scope.shard = args.shard;
    scope.state = args.state;
    auto since = parseTime(args.since);
    auto until = parseTime(args.until);
    if (!since)
        return since.error();
    if (!until)
        return until.error();
    scope.sinceUnixMs = *since;
    scope.untilUnixMs = *until;
    return scope;
}

// The report as a PDF, CSV or JSON file, or CSV or JSON on standard output.
CommandResult writeReport(const core::MigrationReport& report, const ReportArgs& args)
{
    const std::size_t rows = report.rows.size();
    const auto written = [rows, path = args.output]() -> CommandResult {
        return CommandOutput { nlohmann::json { { "file", path }, { "migrations", rows } },
            [rows, path](std::ostream& out) { out << rows << " migration(s) reported in " << path << "\n"; } };
    };
    if (args.format == "pdf") {
        if (auto status = writeReportPdf(report, args.output, args.paper); !status)
            return status.error();
        return written();
    }
    if (args.output.empty()) {
        std::cout << (args.format == "csv" ? core::reportCsv(report) : core::reportJson(report) + "\n");
        return CommandOutput { {}, {}, true, 0 };
    }
    if (auto status = core::writeReportFile(report, args.format, args.output); !status)
        return status.error();
    return written();
}

} // namespace

CommandResult cmdReport(const CtlOptions& options, const ReportArgs& args)
{
    if (auto checked = checkReportArgs(args); !checked)
        return checked.error();
    auto scope = reportScope(args);
    if (!scope)
        return scope.error();
    auto store = openCtlStore(options);
    if (!store)
        return store.error();
    auto report = core::readReport(**store, *scope, nowMs());
    if (!report)
        return report.error();
    return writeReport(*report, args);
}

void addReportCommand(CLI::App& app, const CtlOptions& options, CommandResult& result)
{
    static ReportArgs args;
    auto* report = app.add_subcommand("report", "What migrations did: PDF, CSV or JSON (docs/REPORTS.md)");
    report->add_option("--migration", args.migrations, "A migration (repeatable)");
    report->add_option("--operation", args.operation, "Every migration of an operation");
    report->add_option("--since", args.since, "Migrations created from then (unix ms or 2026-12-01T14:00:00Z)");
    report->add_option("--until", args.until, "... and before then");
    report->add_option("--space", args.space, "Only this space's");
    report->add_option("--shard", args.shard, "Only those from or to this shard");
    report->add_option("--state", args.state, "queued, running, done, failed or cancelled");
    report->add_option("--format", args.format, "pdf, csv or json")->capture_default_str();
    report->add_option("--paper", args.paper, "PDF paper: a4 or letter (default: by the locale)");
    report->add_option("-o,--output", args.output, "Write to FILE instead of standard output");
    report->callback(runInto(result)([&] { return cmdReport(options, args); }));
}

} // namespace shardmap::app
