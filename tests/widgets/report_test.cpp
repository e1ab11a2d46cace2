// The report renderer (widgets/report): pages and their furniture, paper by locale, the charts'
// data, German, PDF that pdftotext reads back, errors for files that cannot be written, and the
// preview painting the same pages (offscreen).
#include "tests/support/pdf_text.h"
#include "tests/support/synthetic_report.h"
#include "tests/support/test_dir.h"
#include "tests/widgets/wait_for.h"
#include "widgets/report/report_charts.h"
#include "widgets/report/report_document.h"
#include "widgets/report/report_preview_dialog.h"
#include "widgets/report/report_translations.h"
#include "widgets/style/i18n.h"

#include <QApplication>
#include <QPrinter>
#include <QSignalSpy>
#include <algorithm>
#include <gtest/gtest.h>
#include <set>

namespace shardmap::widgets {
namespace {

using testing::TempDir;
using testing::waitFor;

std::string pdfText(const TempDir& dir, const std::string& pdf)
{
    return testing::pdfText(pdf, dir.file("pdftotext.err"));
}

ReportFormat format(QPageSize::PageSizeId paper = QPageSize::A4)
{
    ReportFormat f;
    f.pageSize = QPageSize(paper);
    f.locale = QLocale(QLocale::English, QLocale::UnitedStates);
    return f;
}

bool hasInk(const QImage& image)
{
    for (int y = 0; y < image.height(); y += 3) {
        for (int x = 0; x < image.width(); x += 3) {
            if (image.pixel(x, y) != qRgb(255, 255, 255))
                return true;
        }
    }
    return false;
}

TEST(ReportDocument, PaperFollowsTheLocaleUnlessChosen)
{
    EXPECT_EQ(defaultPageSize(QLocale(QLocale::English, QLocale::UnitedStates)), QPageSize::Letter);
    EXPECT_EQ(defaultPageSize(QLocale(QLocale::French, QLocale::Canada)), QPageSize::Letter);
    EXPECT_EQ(defaultPageSize(QLocale(QLocale::German, QLocale::Germany)), QPageSize::A4);
    EXPECT_EQ(defaultPageSize(QLocale(QLocale::English, QLocale::UnitedKingdom)), QPageSize::A4);
    const auto report = testing::syntheticReport(3);
    const ReportDocument a4(report, format(QPageSize::A4));
    const ReportDocument letter(report, format(QPageSize::Letter));
    // At 150 dpi: A4 is 210 x 297 mm, Letter 8.5 x 11 in.
    EXPECT_NEAR(a4.pagePixels().width(), 1240, 2);
    EXPECT_NEAR(a4.pagePixels().height(), 1754, 2);
    EXPECT_EQ(letter.pagePixels(), QSize(1275, 1650));
}

TEST(ReportDocument, ALongReportIsPagedWithEveryPartAndPaintsItsPages)
{
    const auto report = testing::syntheticReport(300);
    const ReportDocument document(report, format());
    EXPECT_GT(document.pageCount(), 5);
    const QString text = document.plainText();
    for (const char* part : { "Migration report", "Summary", "Operations", "Timeline", "Backfill rate", "Migrations",
             "Who asked and why", "Errors and events" })
        EXPECT_TRUE(text.contains(QString::fromLatin1(part))) << part;
    EXPECT_TRUE(text.contains(QString::fromStdString(report.rows.front().record.id)));
    EXPECT_TRUE(text.contains(QString::fromStdString(report.rows.back().record.id)));
    EXPECT_TRUE(text.contains(QStringLiteral("Docs before"))) << "the operation's shards before and after";
    EXPECT_TRUE(hasInk(document.pageImage(0, 400)));
    EXPECT_TRUE(hasInk(document.pageImage(document.pageCount() - 1, 400)));
    EXPECT_FALSE(hasInk(document.pageImage(document.pageCount(), 400).copy(0, 200, 400, 200)))
        << "nothing is drawn past the last page's content";
}

TEST(ReportCharts, TheTimelineSplitsAndTheRateAddsUpToWhatWasCopied)
{
    const auto report = testing::syntheticReport(90);
    const auto timelines = timelineCharts(report);
    ASSERT_EQ(timelines.size(), 3u) << "35 rows per chart";
    EXPECT_EQ(timelines[2].rows.size(), 20u);
    // Each chart over its own rows' time: the last chart starts after the first one ends.
    EXPECT_GT(timelines[2].fromUnixMs, timelines[0].toUnixMs);
    for (const auto& chart : timelines) {
        for (const auto& row : chart.rows) {
            for (const auto& phase : row.phases) {
                EXPECT_GE(phase.startedUnixMs, chart.fromUnixMs);
                EXPECT_LE(phase.endedUnixMs, chart.toUnixMs);
            }
        }
    }
    const RateChart rates = rateChart(report);
    ASSERT_FALSE(rates.series.empty());
    EXPECT_EQ(rates.series.size(), 1u) << "one line per migration only when there are few";
    // The total series integrates to the documents copied between samples.
    const double binMs = static_cast<double>(rates.toUnixMs - rates.fromUnixMs) / 120;
    double integrated = 0;
    for (const auto& point : rates.series.front().points)
        integrated += point.second * binMs / 1000;
    double copied = 0;
    for (const auto& row : report.rows)
        copied += static_cast<double>(row.history->samples.back().docsDone - row.history->samples.front().docsDone);
    EXPECT_NEAR(integrated, copied, copied * 1e-6);
}

TEST(ReportDocument, PdfReadsBackAndAnUnwritableFileIsAClearError)
{
    TempDir dir;
    const auto report = testing::syntheticReport(25);
    const ReportDocument document(report, format());
    const std::string pdf = dir.file("report.pdf");
    auto written = document.writePdf(QString::fromStdString(pdf));
    ASSERT_TRUE(written) << written.error().describe();
    const std::string text = pdfText(dir, pdf);
    for (const auto& row : report.rows)
        EXPECT_NE(text.find(row.record.id), std::string::npos) << row.record.id;
    EXPECT_NE(text.find("Page 1 of " + std::to_string(document.pageCount())), std::string::npos);
    auto refused = document.writePdf(QString::fromStdString(dir.file("missing/dir/report.pdf")));
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("cannot write"), std::string::npos) << refused.error().message;
}

// The synthetic report with ids as long as real fleets name them and a ten-minute rollback
// window after each cutover.
core::MigrationReport longIdsReport(std::size_t n)
{
    auto report = testing::syntheticReport(n, 1'796'000'000'000, 600'000);
    for (std::size_t i = 0; i < report.rows.size(); ++i) {
        core::ReportRow& row = report.rows[i];
        row.record.space = "tenant-analytics-europe-" + std::to_string(i);
        row.requestedSource = "shard-europe-west-" + std::to_string(i % 7);
        row.requestedTarget = "shard-europe-west-" + std::to_string(10 + i % 5);
    }
    return report;
}

std::vector<std::vector<std::string>> pagesOf(const std::string& text)
{
    std::vector<std::vector<std::string>> pages(1);
    std::size_t begin = 0;
    while (begin < text.size()) {
        std::size_t end = text.find('\n', begin);
        if (end == std::string::npos)
            end = text.size();
        std::string line = text.substr(begin, end - begin);
        for (std::size_t feed; (feed = line.find('\f')) != std::string::npos;) {
            pages.back().push_back(line.substr(0, feed));
            pages.emplace_back();
            line.erase(0, feed + 1);
        }
        pages.back().push_back(line);
        begin = end + 1;
    }
    return pages;
}

std::string trimmed(const std::string& line)
{
    const std::size_t first = line.find_first_not_of(' ');
    return first == std::string::npos ? std::string() : line.substr(first, line.find_last_not_of(' ') - first + 1);
}

TEST(ReportDocument, IdsAndDurationsStayWholeHeadingsStayWithTheirTablesAndTheWindowIsNotTheCopy)
{
    TempDir dir;
    const std::set<std::string> headings { "Summary", "Operations", "Timeline", "Backfill rate", "Migrations",
        "Who asked and why", "Errors and events" };
    // Reports of several lengths, so that the layout puts some heading near a page's foot.
    for (const std::size_t n : { 6u, 14u, 22u, 30u, 38u, 46u, 54u }) {
        SCOPED_TRACE("migrations: " + std::to_string(n));
        const auto report = longIdsReport(n);
        const ReportDocument document(report, format());
        const std::string pdf = dir.file("long-" + std::to_string(n) + ".pdf");
        ASSERT_TRUE(document.writePdf(QString::fromStdString(pdf)));
        const auto pages = pagesOf(pdfText(dir, pdf));
        ASSERT_GE(pages.size(), 2u);
        std::vector<std::string> lines;
        for (const auto& page : pages)
            lines.insert(lines.end(), page.begin(), page.end());

        // Each migration's row: the id and the source whole on its first line, the space and the
        // target whole under them, the rollback window in one piece ("10 min 0 s", not "10 min 0"
        // and "s").
        const auto whole = [](const std::string& line, const std::string& id) {
            const std::size_t at = line.find(id);
            return at != std::string::npos && (at + id.size() == line.size() || line[at + id.size()] == ' ');
        };
        for (const core::ReportRow& row : report.rows) {
            SCOPED_TRACE(row.record.id);
            const auto line = std::find_if(lines.begin(), lines.end(), [&](const std::string& text) {
                return whole(text, row.record.id) && text.find(row.requestedSource + " →") != std::string::npos;
            });
            ASSERT_NE(line, lines.end()) << "the id and the source, each whole, on the row's first line";
            // The row's second line, on the next page when the page ends between them (past the
            // footer, the header and the table's repeated header).
            const auto next = std::find_if(
                line + 1, lines.end(), [&](const std::string& text) { return whole(text, row.record.space); });
            ASSERT_NE(next, lines.end()) << "the space whole on a line";
            EXPECT_LT(next - line, 16);
            const std::string& below = *next;
            EXPECT_TRUE(whole(below, row.requestedTarget)) << below;
            // Columns line up within a page; pdftotext places a row split by a page apart.
            if (next == line + 1) {
                EXPECT_EQ(below.find(row.record.space), line->find(row.record.id)) << "in the id's column:\n" << below;
                EXPECT_EQ(below.find(row.requestedTarget), line->find(row.requestedSource)) << *line << "\n" << below;
            }
            if (row.windowMs > 0) {
                EXPECT_NE(line->find("10 min 0 s"), std::string::npos) << *line;
            }
            if (row.outcome == "done") {
                EXPECT_NE(line->find(" equal"), std::string::npos) << "the last column fits the page: " << *line;
            }
        }
        // A heading is followed by its content on its own page, never by the page's footer. A
        // block moved to the next page is also painted, clipped away, into the foot of the page
        // before (QTextDocument draws every block its rectangle touches), and pdftotext reads
        // clipped text too: a heading at a foot that also opens the next page is that shadow.
        const auto firstLines = [](const std::vector<std::string>& page) {
            std::vector<std::string> first;
            for (const std::string& line : page) {
                if (!trimmed(line).empty() && first.size() < 2)
                    first.push_back(trimmed(line));
            }
            return first;
        };
        for (std::size_t p = 0; p < pages.size(); ++p) {
            const auto& page = pages[p];
            for (std::size_t i = 0; i < page.size(); ++i) {
                if (!headings.contains(trimmed(page[i])))
                    continue;
                std::size_t next = i + 1;
                while (next < page.size() && trimmed(page[next]).empty())
                    ++next;
                ASSERT_LT(next, page.size()) << page[i];
                if (page[next].find("Generated ") == std::string::npos)
                    continue;
                const auto opening = p + 1 < pages.size() ? firstLines(pages[p + 1]) : std::vector<std::string> {};
                EXPECT_TRUE(opening.size() == 2 && opening[1] == trimmed(page[i]))
                    << "heading \"" << trimmed(page[i]) << "\" alone at the foot of page " << p + 1;
            }
        }
        // The summary's longest migration is its copy; the window is said apart.
        const auto summaryLine = [&](const std::string& label) {
            const auto found = std::find_if(lines.begin(), lines.end(),
                [&](const std::string& text) { return trimmed(text).starts_with(label + " "); });
            return found == lines.end() ? std::string() : *found;
        };
        const std::string longest = summaryLine("Longest migration");
        EXPECT_NE(longest.find(" to copy and cut over (m-"), std::string::npos) << longest;
        EXPECT_EQ(longest.find("min"), std::string::npos) << "the rollback window is not counted: " << longest;
        EXPECT_NE(summaryLine("Rollback window").find("up to 10 min 0 s after the cutover"), std::string::npos)
            << summaryLine("Rollback window");
    }
}

// The synthetic drain approved by carol at bob's request, and a refused move.
core::MigrationReport approvedReport()
{
    auto report = testing::syntheticReport(25);
    core::ReportApproval drain;
    drain.id = "ap-1796000000500-0a1b";
    drain.summary = "drain shard s3: 13 spaces";
    drain.neededBecause = "it moves 13 spaces; more than 10 need a second person";
    drain.requestedBy = "bob";
    drain.reason = "retire rack 3";
    drain.requestedUnixMs = 1'796'000'000'000 - 600'000;
    drain.state = "applied";
    drain.decidedBy = "carol";
    drain.decidedUnixMs = 1'796'000'000'000 - 60'000;
    drain.decisionReason = "checked the plan";
    drain.outcome = "operation op-drain at revision 40";
    report.operations.at(0).approval = drain;
    for (core::ReportRow& row : report.rows)
        if (row.record.operation == "op-drain")
            row.approval = drain;
    core::ReportApproval refused = drain;
    refused.id = "ap-1796000003000-77c2";
    refused.summary = "move tenant-4 to s9";
    refused.state = "refused";
    refused.decidedBy = "alice";
    refused.decisionReason = "not during the sale";
    refused.outcome.clear();
    report.refusedRequests.push_back(refused);
    // Requests not made: one waiting, one that failed, one approved with no outcome.
    core::ReportApproval pending = refused;
    pending.id = "ap-1796000004000-88d3";
    pending.summary = "retire shard s7";
    pending.state = "pending";
    pending.decidedBy.clear();
    pending.decisionReason.clear();
    core::ReportApproval failed = pending;
    failed.id = "ap-1796000005000-99e4";
    failed.summary = "create shard s5";
    failed.state = "failed";
    failed.decidedBy = "erin";
    failed.outcome = "node n5 did not answer";
    core::ReportApproval unmade = failed;
    unmade.id = "ap-1796000006000-aaf5";
    unmade.summary = "move globex to s4";
    unmade.state = "applying";
    unmade.decidedBy = "frank";
    unmade.outcome.clear();
    report.unmadeRequests = { pending, failed, unmade };
    return report;
}

TEST(ReportDocument, SaysWhoApprovedAndWhatWasRefused)
{
    TempDir dir;
    const auto report = approvedReport();
    const ReportDocument document(report, format());
    const std::string pdf = dir.file("approved.pdf");
    ASSERT_TRUE(document.writePdf(QString::fromStdString(pdf)));
    const std::string text = pdfText(dir, pdf);
    for (const char* expected :
        { "Approved by carol", "ap-1796000000500-0a1b", "asked by bob", "Approvals", "checked the plan",
            "Refused and expired requests", "move tenant-4 to s9", "alice", "not during the sale" })
        EXPECT_NE(text.find(expected), std::string::npos) << expected;
    // Each request not made on its row, with its state and what became of it.
    const std::size_t unmade = text.find("Requests not made");
    ASSERT_NE(unmade, std::string::npos) << text;
    // A row's first line: from the time to the details, wrapped cells go on below.
    const auto rowWith = [&](const std::string& summary) {
        const std::size_t at = text.find(summary, unmade);
        if (at == std::string::npos)
            return std::string();
        const std::size_t begin = text.rfind('\n', at) + 1;
        return text.substr(begin, text.find('\n', at) - begin);
    };
    const std::string pendingRow = rowWith("retire shard s7");
    EXPECT_NE(pendingRow.find("pending"), std::string::npos) << pendingRow;
    EXPECT_NE(pendingRow.find("waiting for a second person"), std::string::npos) << pendingRow;
    const std::string failedRow = rowWith("create shard s5");
    EXPECT_NE(failedRow.find("failed"), std::string::npos) << failedRow;
    EXPECT_NE(failedRow.find("erin"), std::string::npos) << failedRow;
    EXPECT_NE(failedRow.find("node n5 did not answer"), std::string::npos) << failedRow;
    const std::string unmadeRow = rowWith("move globex to s4");
    EXPECT_NE(unmadeRow.find("approved, not"), std::string::npos) << unmadeRow;
    EXPECT_NE(unmadeRow.find("frank"), std::string::npos) << unmadeRow;
    for (const char* id : { "ap-1796000004000-88d3", "ap-1796000005000-99e4", "ap-1796000006000-" })
        EXPECT_NE(text.find(id, unmade), std::string::npos) << id;
    EXPECT_NE(text.find("no outcome was", unmade), std::string::npos) << text.substr(unmade);

    core::MigrationReport quiet = report;
    quiet.rows.clear();
    quiet.operations.clear();
    const QString none = ReportDocument(quiet, format()).plainText();
    EXPECT_TRUE(none.contains(QStringLiteral("Refused and expired requests"))) << "also without migrations";
    EXPECT_TRUE(none.contains(QStringLiteral("Requests not made"))) << "also without migrations";
    EXPECT_FALSE(ReportDocument(testing::syntheticReport(3), format())
                     .plainText()
                     .contains(QStringLiteral("Refused and expired requests")));
}

TEST(ReportDocument, GermanWhenTheLanguageIsGerman)
{
    ASSERT_EQ(installTranslations(*QCoreApplication::instance(), QStringLiteral("de")), QStringLiteral("de"));
    ReportFormat german = format();
    german.locale = QLocale(QLocale::German, QLocale::Germany);
    const ReportDocument document(testing::syntheticReport(12), german);
    const ReportDocument approved(approvedReport(), german);
    installTranslations(*QCoreApplication::instance(), QStringLiteral("en"));
    const QString text = document.plainText();
    const QString approvals = approved.plainText();
    EXPECT_TRUE(approvals.contains(QStringLiteral("Genehmigt von carol"))) << approvals.toStdString();
    EXPECT_TRUE(approvals.contains(QStringLiteral("Abgelehnte und abgelaufene Anfragen")));
    EXPECT_TRUE(approvals.contains(QStringLiteral("Nicht ausgeführte Anfragen"))) << approvals.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("Migrationsbericht"))) << text.left(400).toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("Zusammenfassung")));
    EXPECT_TRUE(text.contains(QStringLiteral("zurückgerollt")));
    // An operation's state and kind too (issue 26, point 12).
    EXPECT_TRUE(text.contains(QStringLiteral("Zustand: fertig."))) << text.toStdString();
    EXPECT_FALSE(text.contains(QStringLiteral("Zustand: done"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("Leeren von s3"))) << text.toStdString();
    // The events' kinds are translated as the console's migration view shows them.
    const QString events = text.mid(text.indexOf(QStringLiteral("Fehler und Ereignisse")));
    EXPECT_TRUE(events.contains(QStringLiteral("zurückgenommen"))) << events.left(600).toStdString();
    EXPECT_FALSE(events.contains(QStringLiteral("rolled-back"))) << events.left(600).toStdString();
}

TEST(ReportPreviewDialog, ShowsPagesOffTheUiThreadAndPrintsTheSamePages)
{
    TempDir dir;
    auto report = std::make_shared<const core::MigrationReport>(testing::syntheticReport(120));
    ReportPreviewDialog preview(report, format());
    QSignalSpy laidOut(&preview, &ReportPreviewDialog::laidOut);
    QSignalSpy shown(&preview, &ReportPreviewDialog::pageShown);
    preview.show();
    ASSERT_TRUE(waitFor([&] { return shown.count() > 0; })) << preview.statusText().toStdString();
    const int pages = preview.pageCount();
    EXPECT_GT(pages, 2);
    EXPECT_FALSE(preview.shownPage().isNull());
    preview.showPage(pages - 1);
    ASSERT_TRUE(waitFor([&] { return shown.count() > 1 && shown.last().at(0).toInt() == pages - 1; }));
    EXPECT_EQ(preview.currentPage(), pages - 1);

    auto printer = std::make_shared<QPrinter>(QPrinter::HighResolution);
    printer->setOutputFormat(QPrinter::PdfFormat);
    const std::string printed = dir.file("printed.pdf");
    printer->setOutputFileName(QString::fromStdString(printed));
    QSignalSpy done(&preview, &ReportPreviewDialog::printed);
    preview.printTo(printer);
    ASSERT_TRUE(waitFor([&] { return done.count() > 0; }));
    EXPECT_TRUE(done.at(0).at(0).toBool()) << done.at(0).at(1).toString().toStdString();
    const std::string text = pdfText(dir, printed);
    EXPECT_NE(text.find(report->rows.back().record.id), std::string::npos);
    EXPECT_NE(text.find("Page " + std::to_string(pages) + " of " + std::to_string(pages)), std::string::npos);
}

} // namespace
} // namespace shardmap::widgets
