// The report builder's implementation: the sections' HTML as file-local functions (Qt's rich
// text subset: tables with fixed or content-sized columns, ids in unbreakable blocks), then the
// builder that inserts them part by part.

#include "widgets/report/report_builder.h"

#include "widgets/report/report_events.h"
#include "widgets/style/conversions.h"
#include "widgets/style/format.h"

#include <QDateTime>
#include <QTextBlock>
#include <QTextDocument>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace shardmap::widgets {

namespace {

using core::ReportRow;

QString esc(const std::string& text)
{
    return qs(text).toHtmlEscaped();
}

// A block of its own that never wraps: ids, times, durations and figures in a table cell. The
// layout widens the column to it rather than break it (a nowrap span inside a wrapping cell does
// not stop QTextDocument from breaking "shard-6" into "s" and "hard-6"). Lines are given with \n.
QString nobreak(const QString& text)
{
    QString lines = text.toHtmlEscaped();
    lines.replace(QLatin1Char('\n'), QStringLiteral("<br>"));
    return QStringLiteral("<div style=\"white-space: nowrap\">%1</div>").arg(lines);
}

QString nobreak(const std::string& text)
{
    return nobreak(qs(text));
}

// "shard-1 → shard-6" on one line, or the target under the source when both are long: each id
// always whole.
QString fromTo(const std::string& from, const std::string& to)
{
    constexpr std::size_t kOneLine = 20;
    return nobreak(from + (from.size() + to.size() > kOneLine ? " →\n" : " → ") + to);
}

QString dash()
{
    return QStringLiteral("\u2014");
}

QString reportTime(std::int64_t unixMs)
{
    return unixMs ? QDateTime::fromMSecsSinceEpoch(unixMs).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")) : dash();
}

// A count of tenths with one decimal: rounded once, half up, in whole numbers, so that a value
// on a tie (4,250 ms) reads the same here as in any other tool that rounds it half up.
QString tenthsText(std::int64_t tenths, const QLocale& locale)
{
    return locale.toString(static_cast<double>(tenths) / 10, 'f', 1);
}

QString durationText(std::int64_t ms, const QLocale& locale)
{
    return ms <= 0 ? dash() : formatDurationMs(ms, locale);
}

QString holdText(double ms, const QLocale& locale)
{
    return ms < 0 ? dash() : ReportDocument::tr("%1 ms").arg(tenthsText(std::llround(ms * 10), locale));
}

QString bytesText(std::uint64_t bytes, const QLocale& locale)
{
    return formatBytes(bytes, locale);
}

QString count(std::uint64_t n, const QLocale& locale)
{
    return locale.toString(static_cast<qulonglong>(n));
}

QString outcomeText(const std::string& outcome)
{
    if (outcome == "done")
        return ReportDocument::tr("done");
    if (outcome == "failed")
        return ReportDocument::tr("failed");
    if (outcome == "cancelled")
        return ReportDocument::tr("cancelled");
    if (outcome == "rolled back")
        return ReportDocument::tr("rolled back");
    if (outcome == "queued")
        return ReportDocument::tr("queued");
    return ReportDocument::tr("running");
}

QString verifiedText(const ReportRow& row)
{
    if (!row.history || !row.history->verification || row.writeHoldMs < 0)
        return dash();
    return row.history->verification->equal ? ReportDocument::tr("equal") : ReportDocument::tr("apart");
}

QString operationKind(core::OperationKind kind)
{
    return operationKindText(kind);
}

// What the scope selected, as a sentence.
QString scopeText(const core::MigrationReport& report, const ReportFormat& format)
{
    if (!format.scopeText.isEmpty())
        return format.scopeText;
    const core::ReportScope& scope = report.scope;
    QString text;
    if (!scope.operation.empty() && !report.operations.empty()) {
        const core::OperationRecord& op = report.operations.front().record;
        text = ReportDocument::tr("Operation %1: %2 of %3").arg(qs(op.id), operationKind(op.kind), qs(op.subject));
    } else if (!scope.migrations.empty()) {
        text = ReportDocument::tr("%n chosen migration(s)", nullptr, static_cast<int>(scope.migrations.size()));
    } else if (scope.sinceUnixMs && scope.untilUnixMs) {
        text = ReportDocument::tr("Migrations created from %1 to %2")
                   .arg(reportTime(scope.sinceUnixMs), reportTime(scope.untilUnixMs));
    } else if (scope.sinceUnixMs) {
        text = ReportDocument::tr("Migrations created since %1").arg(reportTime(scope.sinceUnixMs));
    } else {
        text = ReportDocument::tr("All migrations");
    }
    QStringList filters;
    if (!scope.space.empty())
        filters << ReportDocument::tr("space %1").arg(qs(scope.space));
    if (!scope.shard.empty())
        filters << ReportDocument::tr("shard %1").arg(qs(scope.shard));
    if (!scope.state.empty())
        filters << ReportDocument::tr("state %1").arg(qs(scope.state));
    if (!filters.isEmpty())
        text += QStringLiteral("; ") + filters.join(QStringLiteral(", "));
    return text;
}

QString row(const QStringList& cells, const std::set<int>& right = {}, bool header = false)
{
    QString html = QStringLiteral("<tr>");
    for (int i = 0; i < cells.size(); ++i) {
        const QString tag = header ? QStringLiteral("th") : QStringLiteral("td");
        html += QStringLiteral("<%1%2>%3</%1>")
                    .arg(tag, right.contains(i) ? QStringLiteral(" align=\"right\"") : QString(), cells[i]);
    }
    return html + QStringLiteral("</tr>");
}

// A header row with column widths in percent (the layout would otherwise squeeze the ids, which
// must not break).
QString headerRow(const QStringList& cells, const std::vector<int>& percent)
{
    QString html = QStringLiteral("<thead><tr>");
    for (int i = 0; i < cells.size(); ++i)
        html += QStringLiteral("<th width=\"%1%\">%2</th>").arg(percent.at(static_cast<std::size_t>(i))).arg(cells[i]);
    return html + QStringLiteral("</tr></thead>");
}

QString tableStart()
{
    return QStringLiteral("<table width=\"100%\" border=\"1\" cellspacing=\"0\" cellpadding=\"2\" "
                          "style=\"border-collapse: collapse; border-color: #b0b0b0;\">");
}

QString summaryHtml(const core::MigrationReport& report, const QLocale& locale)
{
    const core::ReportSummary& s = report.summary;
    QStringList outcomes;
    for (const auto& [outcome, n] : s.byOutcome)
        outcomes << QStringLiteral("%1 %2").arg(count(n, locale), outcomeText(outcome));
    QString html = QStringLiteral("<h2>%1</h2>").arg(ReportDocument::tr("Summary")) + tableStart();
    const auto line = [&](const QString& label, const QString& value) {
        html += QStringLiteral("<tr><th align=\"left\" width=\"30%\">%1</th><td>%2</td></tr>").arg(label, value);
    };
    line(ReportDocument::tr("Migrations"),
        count(report.rows.size(), locale)
            + (outcomes.isEmpty() ? QString() : QStringLiteral(" (") + outcomes.join(QStringLiteral(", ")) + ")"));
    line(ReportDocument::tr("Documents moved"), count(s.docsMoved, locale));
    line(ReportDocument::tr("Data moved"), bytesText(s.bytesMoved, locale));
    // How long migrations took is their copy: after the cutover the space lives on its target
    // and the rollback window only keeps the source for a while.
    line(ReportDocument::tr("Copy time"), durationText(s.totalCopyMs, locale));
    line(ReportDocument::tr("Longest migration"),
        s.longestCopyMigration.empty() ? dash()
                                       : ReportDocument::tr("%1 to copy and cut over (%2)")
                                             .arg(durationText(s.longestCopyMs, locale), esc(s.longestCopyMigration)));
    line(ReportDocument::tr("Rollback window"),
        s.longestWindowMs <= 0 ? dash()
                               : ReportDocument::tr("up to %1 after the cutover, on the target already; not counted "
                                                    "in the copy time")
                                     .arg(durationText(s.longestWindowMs, locale)));
    line(ReportDocument::tr("Longest write hold"),
        s.longestHoldMigration.empty()
            ? dash()
            : ReportDocument::tr("%1 (%2)").arg(holdText(s.longestWriteHoldMs, locale), esc(s.longestHoldMigration)));
    line(ReportDocument::tr("Verification"),
        ReportDocument::tr("%1 cut over with source and target equal, %2 apart")
            .arg(s.verifiedEqual)
            .arg(s.verifiedApart));
    line(ReportDocument::tr("Repaired documents"), count(s.repairedDocs, locale));
    line(ReportDocument::tr("Aborted cutovers"), count(s.cutoverAborts, locale));
    return html + QStringLiteral("</table>");
}

// "Approved by carol (ap-...) at ... — asked by bob: reason"
QString approvalSentence(const core::ReportApproval& a)
{
    return ReportDocument::tr("Approved by %1 (%2) at %3 — asked by %4: %5")
        .arg(esc(a.decidedBy), esc(a.id), reportTime(a.decidedUnixMs), esc(a.requestedBy),
            a.reason.empty() ? dash() : esc(a.reason));
}

QString operationHtml(const core::ReportOperation& op, const QLocale& locale)
{
    const core::OperationRecord& r = op.record;
    QString html = QStringLiteral("<h3>%1</h3><p>")
                       .arg(ReportDocument::tr("%1 of %2").arg(operationKind(r.kind), esc(r.subject))
                           + QStringLiteral(" \u00b7 ") + esc(r.id));
    html += ReportDocument::tr("State: %1. Requested by %2 at %3; reason: %4. %n migration(s).", nullptr,
        static_cast<int>(r.migrations.size()))
                .arg(operationStateText(r.state).toHtmlEscaped(), r.requestedBy.empty() ? dash() : esc(r.requestedBy),
                    reportTime(r.createdUnixMs), r.reason.empty() ? dash() : esc(r.reason));
    if (!r.into.empty())
        html += QStringLiteral(" ") + ReportDocument::tr("Into %1.").arg(esc(r.into));
    if (!r.error.empty())
        html += QStringLiteral(" ") + ReportDocument::tr("Error: %1").arg(esc(r.error));
    html += QStringLiteral("</p>");
    if (op.approval)
        html += QStringLiteral("<p>%1</p>").arg(approvalSentence(*op.approval));
    if (op.shards.empty())
        return html;
    html += tableStart() + QStringLiteral("<thead>")
        + row({ ReportDocument::tr("Shard"), ReportDocument::tr("Docs before"), ReportDocument::tr("Docs after"),
                  ReportDocument::tr("Data before"), ReportDocument::tr("Data after"),
                  ReportDocument::tr("Spaces before"), ReportDocument::tr("Spaces after") },
            {}, true)
        + QStringLiteral("</thead>");
    for (const core::ReportShardLoad& load : op.shards) {
        const QString unknown = ReportDocument::tr("not measured");
        html += row(
            { nobreak(load.shard), load.measured ? count(load.docsBefore, locale) : unknown,
                count(load.docsAfter, locale), load.measured ? bytesText(load.bytesBefore, locale) : unknown,
                bytesText(load.bytesAfter, locale), count(load.spacesBefore, locale), count(load.spacesAfter, locale) },
            { 1, 2, 3, 4, 5, 6 });
    }
    return html + QStringLiteral("</table>");
}

// The migrations table in parts, so that a long report lays out part by part (the header row
// repeats on every page).
constexpr std::size_t kRowsPerTable = 100;

// Start times: the time of day when the report spans one day (its dates are in the title), else
// the date too.
QString startText(std::int64_t unixMs, const core::MigrationReport& report)
{
    if (!unixMs)
        return dash();
    const QDateTime time = QDateTime::fromMSecsSinceEpoch(unixMs);
    const bool oneDay = QDateTime::fromMSecsSinceEpoch(report.fromUnixMs).date()
        == QDateTime::fromMSecsSinceEpoch(report.toUnixMs).date();
    return time.toString(oneDay ? QStringLiteral("HH:mm:ss") : QStringLiteral("yyyy-MM-dd HH:mm"));
}

QString migrationsHtml(const core::MigrationReport& report, std::size_t first, const QLocale& locale)
{
    // No column widths: the columns take what their unbroken ids and figures need.
    QString html = tableStart() + QStringLiteral("<thead>")
        + row({ ReportDocument::tr("Migration, space"), ReportDocument::tr("From → to"), ReportDocument::tr("Outcome"),
                  ReportDocument::tr("Started"), ReportDocument::tr("Copy"), ReportDocument::tr("Window"),
                  ReportDocument::tr("Write hold"), ReportDocument::tr("Docs"), ReportDocument::tr("Data"),
                  ReportDocument::tr("Verified") },
            {}, true)
        + QStringLiteral("</thead>");
    const std::size_t last = std::min(report.rows.size(), first + kRowsPerTable);
    for (std::size_t i = first; i < last; ++i) {
        const ReportRow& r = report.rows[i];
        const core::MigrationRecord& m = r.record;
        // The space under its migration: with the ids whole, eleven columns would not fit a page.
        html += row({ nobreak(qs(m.id) + QLatin1Char('\n') + qs(m.space)), fromTo(r.requestedSource, r.requestedTarget),
                        outcomeText(r.outcome), nobreak(startText(r.startedUnixMs, report)),
                        nobreak(durationText(r.copyMs, locale)), nobreak(durationText(r.windowMs, locale)),
                        nobreak(holdText(r.writeHoldMs, locale)), nobreak(count(m.progress.docsDone, locale)),
                        nobreak(bytesText(m.progress.bytesDone, locale)), verifiedText(r) },
            { 4, 5, 6, 7, 8 });
    }
    return html + QStringLiteral("</table>");
}

// The first six ids, then how many more.
QString idList(const std::vector<std::string>& ids)
{
    QStringList shown;
    for (std::size_t i = 0; i < ids.size() && i < 6; ++i)
        shown << esc(ids[i]);
    QString list = shown.join(QStringLiteral(", "));
    if (ids.size() > 6)
        list += QStringLiteral(" ") + ReportDocument::tr("and %n more", nullptr, static_cast<int>(ids.size() - 6));
    return list;
}

// Who asked and why: migrations grouped by requester, reason, operation and approver.
QString requestsHtml(const core::MigrationReport& report)
{
    using Key = std::tuple<std::string, std::string, std::string, std::string, std::string>;
    std::map<Key, std::vector<std::string>> groups;
    for (const ReportRow& r : report.rows) {
        const bool approved = r.approval.has_value();
        groups[{ r.record.requestedBy, r.record.reason, r.record.operation, approved ? r.approval->decidedBy : "",
                   approved ? r.approval->id : "" }]
            .push_back(r.record.id);
    }
    QString html = QStringLiteral("<h2>%1</h2>").arg(ReportDocument::tr("Who asked and why")) + tableStart()
        + QStringLiteral("<thead>")
        + row({ ReportDocument::tr("Requested by"), ReportDocument::tr("Reason"), ReportDocument::tr("Operation"),
                  ReportDocument::tr("Approved by"), ReportDocument::tr("Migrations") },
            {}, true)
        + QStringLiteral("</thead>");
    for (const auto& [key, ids] : groups) {
        const auto& [by, reason, operation, approver, approval] = key;
        const QString approvedBy = approval.empty()
            ? dash()
            : esc(approver.empty() ? std::string("?") : approver) + nobreak("(" + approval + ")");
        html += row({ by.empty() ? dash() : esc(by), reason.empty() ? dash() : esc(reason),
            operation.empty() ? dash() : esc(operation), approvedBy, idList(ids) });
    }
    return html + QStringLiteral("</table>");
}

// Each approval that made migrations or operations of the report, in the order it was decided.
QString approvalsHtml(const core::MigrationReport& report)
{
    std::map<std::string, std::pair<core::ReportApproval, std::vector<std::string>>> approvals;
    for (const core::ReportOperation& op : report.operations)
        if (op.approval)
            approvals.try_emplace(op.approval->id, *op.approval, std::vector<std::string> {});
    for (const ReportRow& r : report.rows)
        if (r.approval)
            approvals.try_emplace(r.approval->id, *r.approval, std::vector<std::string> {})
                .first->second.second.push_back(r.record.id);
    if (approvals.empty())
        return {};
    std::vector<const std::pair<core::ReportApproval, std::vector<std::string>>*> ordered;
    for (const auto& [id, entry] : approvals)
        ordered.push_back(&entry);
    std::stable_sort(ordered.begin(), ordered.end(),
        [](const auto* a, const auto* b) { return a->first.decidedUnixMs < b->first.decidedUnixMs; });
    QString html = QStringLiteral("<h2>%1</h2>").arg(ReportDocument::tr("Approvals"));
    for (const auto* entry : ordered) {
        const core::ReportApproval& a = entry->first;
        html += QStringLiteral("<p><b>%1.</b> ").arg(approvalSentence(a))
            + ReportDocument::tr("It needed approval because %1. Approver's reason: %2. Made: %3.")
                  .arg(a.neededBecause.empty() ? dash() : esc(a.neededBecause),
                      a.decisionReason.empty() ? dash() : esc(a.decisionReason),
                      a.outcome.empty() ? dash() : esc(a.outcome));
        if (!entry->second.empty())
            html += QStringLiteral(" ") + ReportDocument::tr("Migrations: %1.").arg(idList(entry->second));
        html += QStringLiteral("</p>");
    }
    return html;
}

// Requests a second person refused or nobody decided in time.
QString refusedHtml(const core::MigrationReport& report)
{
    QString html = QStringLiteral("<h2>%1</h2>").arg(ReportDocument::tr("Refused and expired requests")) + tableStart()
        + headerRow({ ReportDocument::tr("Asked at"), ReportDocument::tr("Asked by"), ReportDocument::tr("What"),
                        ReportDocument::tr("State"), ReportDocument::tr("Refused by"), ReportDocument::tr("Why") },
            { 15, 11, 30, 9, 11, 24 });
    for (const core::ReportApproval& a : report.refusedRequests) {
        const bool refused = a.state == "refused";
        const QString why = refused ? (a.decisionReason.empty() ? dash() : esc(a.decisionReason))
                                    : ReportDocument::tr("not decided in time");
        html += row({ reportTime(a.requestedUnixMs), esc(a.requestedBy),
            esc(a.summary) + nobreak(QStringLiteral("(%1)").arg(qs(a.id))),
            refused ? ReportDocument::tr("refused") : ReportDocument::tr("expired"),
            refused && !a.decidedBy.empty() ? esc(a.decidedBy) : dash(), why });
    }
    return html + QStringLiteral("</table>");
}

// Requests whose change was not made, besides refused and expired ones: still waiting, failed, or
// approved without a recorded outcome.
QString unmadeHtml(const core::MigrationReport& report)
{
    QString html = QStringLiteral("<h2>%1</h2>").arg(ReportDocument::tr("Requests not made")) + tableStart()
        + headerRow({ ReportDocument::tr("Asked at"), ReportDocument::tr("Asked by"), ReportDocument::tr("What"),
                        ReportDocument::tr("State"), ReportDocument::tr("Decided by"), ReportDocument::tr("Details") },
            { 15, 11, 30, 11, 11, 22 });
    for (const core::ReportApproval& a : report.unmadeRequests) {
        QString state;
        QString details;
        if (a.state == "pending") {
            state = ReportDocument::tr("pending");
            details = ReportDocument::tr("waiting for a second person");
        } else if (a.state == "failed") {
            state = ReportDocument::tr("failed");
            details = a.outcome.empty() ? dash() : esc(a.outcome);
        } else {
            state = ReportDocument::tr("approved, not made");
            details = ReportDocument::tr("approved at %1; no outcome was recorded").arg(reportTime(a.decidedUnixMs));
        }
        html += row({ reportTime(a.requestedUnixMs), esc(a.requestedBy),
            esc(a.summary) + nobreak(QStringLiteral("(%1)").arg(qs(a.id))), state,
            a.decidedBy.empty() ? dash() : esc(a.decidedBy), details });
    }
    return html + QStringLiteral("</table>");
}

// Errors and what the administrators did along the way, oldest first; a very long list is cut
// (the JSON report has all of it).
constexpr std::size_t kMostEvents = 400;

struct EventLine {
    std::int64_t at;
    std::string migration;
    std::string kind;
    std::string text;
    std::uint32_t count = 1;
    std::int64_t lastAt = 0;
};

// The event's text; for retries of the same error, how often and when the last one was.
QString eventDetails(const EventLine& line)
{
    if (line.count <= 1)
        return esc(line.text);
    return ReportDocument::tr("%1 (%n time(s), the last at %2)", nullptr, static_cast<int>(line.count))
        .arg(esc(line.text), reportTime(line.lastAt));
}

QString eventsHtml(const core::MigrationReport& report)
{
    static const std::set<std::string> kinds { "error", "retry", "cutover-aborted", "repair", "paused", "resumed",
        "cancel-requested", "rollback-requested", "rolled-back", "failed", "cancelled" };
    std::vector<EventLine> lines;
    for (const ReportRow& r : report.rows) {
        bool errorSeen = r.record.error.empty();
        if (r.history) {
            for (const core::MigrationEvent& event : r.history->events) {
                if (!kinds.contains(event.kind))
                    continue;
                lines.push_back({ event.unixMs, r.record.id, event.kind, event.text, event.count, event.lastUnixMs });
                errorSeen = errorSeen || event.text.find(r.record.error) != std::string::npos;
            }
        }
        if (!errorSeen)
            lines.push_back(
                { r.endedUnixMs ? r.endedUnixMs : r.record.updatedUnixMs, r.record.id, "error", r.record.error, 1, 0 });
    }
    QString html = QStringLiteral("<h2>%1</h2>").arg(ReportDocument::tr("Errors and events"));
    if (lines.empty())
        return html
            + QStringLiteral("<p>%1</p>")
                  .arg(ReportDocument::tr("No errors, retries, aborted cutovers or interventions."));
    std::stable_sort(lines.begin(), lines.end(), [](const EventLine& a, const EventLine& b) { return a.at < b.at; });
    html += tableStart()
        + headerRow({ ReportDocument::tr("Time"), ReportDocument::tr("Migration"), ReportDocument::tr("Event"),
                        ReportDocument::tr("Details") },
            { 16, 21, 19, 44 });
    for (std::size_t i = 0; i < lines.size() && i < kMostEvents; ++i)
        html += row({ nobreak(reportTime(lines[i].at)), nobreak(lines[i].migration),
            nobreak(MigrationEventText::kind(lines[i].kind)), eventDetails(lines[i]) });
    html += QStringLiteral("</table>");
    if (lines.size() > kMostEvents)
        html += QStringLiteral("<p>%1</p>")
                    .arg(ReportDocument::tr("%n more event(s) are in the JSON report.", nullptr,
                        static_cast<int>(lines.size() - kMostEvents)));
    return html;
}

} // namespace

QString reportHeaderText(const core::MigrationReport& report, const ReportFormat& format)
{
    return ReportDocument::tr("Shardmap migration report") + QStringLiteral(" \u00b7 ") + scopeText(report, format);
}

QString reportFooterText(const core::MigrationReport& report)
{
    return ReportDocument::tr("Generated %1 from map revision %2")
        .arg(reportTime(report.generatedUnixMs))
        .arg(report.mapRevision);
}

ReportBuilder::ReportBuilder(QTextDocument& document, ReportChartHandler& charts, const ReportFormat& format)
    : m_document(document)
    , m_charts(charts)
    , m_format(format)
    , m_cursor(&document)
{
}

void ReportBuilder::build(const core::MigrationReport& report)
{
    const QLocale& locale = m_format.locale;
    addTitle(report);
    part(summaryHtml(report, locale));
    addOperations(report);
    if (!report.rows.empty()) {
        addTimeline(report);
        addMigrations(report);
    }
    // Also without migrations: a window in which nothing was made may still have refusals.
    if (!report.refusedRequests.empty())
        part(refusedHtml(report));
    if (!report.unmadeRequests.empty())
        part(unmadeHtml(report));
}

// Each part in blocks of its own (inserted HTML would otherwise join the paragraph before).
void ReportBuilder::part(const QString& html)
{
    if (!m_document.isEmpty())
        m_cursor.insertBlock(QTextBlockFormat(), QTextCharFormat());
    const int first = m_cursor.blockNumber();
    m_cursor.insertHtml(html);
    // HTML inserted into a block keeps that block's format: the heading a part starts with is
    // marked as one here, for keepHeadingsWithTheirContent.
    for (const int level : { 1, 2, 3 }) {
        if (html.startsWith(QStringLiteral("<h%1>").arg(level))) {
            QTextCursor at(m_document.findBlockByNumber(first));
            QTextBlockFormat heading = at.blockFormat();
            heading.setHeadingLevel(level);
            at.setBlockFormat(heading);
        }
    }
}

void ReportBuilder::chart(ReportChart value)
{
    QTextCharFormat object;
    object.setObjectType(ReportChartHandler::kType);
    object.setProperty(ReportChartHandler::kIndex, static_cast<int>(m_charts.charts.size()));
    m_charts.charts.push_back(std::move(value));
    m_cursor.insertBlock(QTextBlockFormat(), QTextCharFormat());
    m_cursor.insertText(QString(QChar::ObjectReplacementCharacter), object);
}

void ReportBuilder::addTitle(const core::MigrationReport& report)
{
    part(QStringLiteral("<h1>%1</h1><p><b>%2</b></p><p>%3</p>")
             .arg(ReportDocument::tr("Migration report"), scopeText(report, m_format).toHtmlEscaped(),
                 report.rows.empty() ? ReportDocument::tr("No migrations in this scope.")
                                     : ReportDocument::tr("From %1 to %2 (times in %3).")
                                           .arg(reportTime(report.fromUnixMs), reportTime(report.toUnixMs),
                                               QDateTime::currentDateTime().timeZoneAbbreviation())));
}

void ReportBuilder::addOperations(const core::MigrationReport& report)
{
    if (report.operations.empty())
        return;
    part(QStringLiteral("<h2>%1</h2>").arg(ReportDocument::tr("Operations")));
    for (const core::ReportOperation& op : report.operations) {
        part(operationHtml(op, m_format.locale));
        if (!op.shards.empty())
            chart(ShardBarsChart { op.shards });
    }
}

void ReportBuilder::addTimeline(const core::MigrationReport& report)
{
    part(QStringLiteral("<h2>%1</h2>").arg(ReportDocument::tr("Timeline")));
    for (TimelineChart& timeline : timelineCharts(report))
        chart(std::move(timeline));
    if (RateChart rates = rateChart(report); !rates.series.empty()) {
        part(QStringLiteral("<h2>%1</h2>").arg(ReportDocument::tr("Backfill rate")));
        chart(std::move(rates));
    }
}

void ReportBuilder::addMigrations(const core::MigrationReport& report)
{
    part(QStringLiteral("<h2>%1</h2>").arg(ReportDocument::tr("Migrations")));
    for (std::size_t first = 0; first < report.rows.size(); first += kRowsPerTable)
        part(migrationsHtml(report, first, m_format.locale));
    addRequests(report);
}

void ReportBuilder::addRequests(const core::MigrationReport& report)
{
    part(requestsHtml(report));
    if (const QString approvals = approvalsHtml(report); !approvals.isEmpty())
        part(approvals);
    part(eventsHtml(report));
}

} // namespace shardmap::widgets
