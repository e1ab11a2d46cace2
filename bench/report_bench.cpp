// Migration reports (issue 13): what a report of 100, 1,000 and 5,000 migrations costs to build
// (core), lay out (QTextDocument and the charts), write as PDF and paint as a preview page, and
// whether the console's UI thread stays free while the preview lays out 1,000 of them on the
// report thread (the longest gap between 5 ms timer ticks on the UI thread, against the layout
// time). Offscreen; results in docs/BENCHMARKS.md.
//
//   report_bench [--runs N] [--sizes 100,1000,5000] [--ui-size 1000]
#include "core/report/migration_report.h"
#include "tests/support/synthetic_report.h"
#include "widgets/report/report_document.h"
#include "widgets/report/report_preview_dialog.h"

#include <QApplication>
#include <QBuffer>
#include <QElapsedTimer>
#include <QTimer>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace shardmap;

namespace {

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

template <typename Fn> double millis(Fn fn)
{
    const auto start = std::chrono::steady_clock::now();
    fn();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

widgets::ReportFormat a4()
{
    widgets::ReportFormat format;
    format.pageSize = QPageSize(QPageSize::A4);
    format.locale = QLocale(QLocale::English, QLocale::UnitedStates);
    return format;
}

void measureSize(std::size_t size, int runs)
{
    std::vector<double> build, json, csv, layout, pdf, page;
    int pages = 0;
    qint64 pdfBytes = 0;
    for (int run = 0; run < runs; ++run) {
        core::MigrationReport report;
        build.push_back(millis([&] { report = testing::syntheticReport(size); }));
        json.push_back(millis([&] { (void)core::reportJson(report); }));
        csv.push_back(millis([&] { (void)core::reportCsv(report); }));
        std::unique_ptr<widgets::ReportDocument> document;
        layout.push_back(millis([&] {
            document = std::make_unique<widgets::ReportDocument>(report, a4());
            pages = document->pageCount();
        }));
        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        pdf.push_back(millis([&] { (void)document->writePdf(buffer); }));
        pdfBytes = buffer.size();
        page.push_back(millis([&] { (void)document->pageImage(pages / 2, 800); }));
    }
    std::printf("| %zu | %.1f | %.1f | %.1f | %.0f | %.0f | %.1f | %d | %.0f |\n", size, median(build), median(json),
        median(csv), median(layout), median(pdf), median(page), pages, static_cast<double>(pdfBytes) / 1024);
}

// Opens the preview as the console does and watches the UI thread's event loop meanwhile.
void measureUi(std::size_t size)
{
    auto report = std::make_shared<const core::MigrationReport>(testing::syntheticReport(size));
    QElapsedTimer clock;
    clock.start();
    qint64 last = 0;
    qint64 longest = 0;
    int ticks = 0;
    QTimer ticker;
    ticker.setInterval(5);
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        const qint64 now = clock.elapsed();
        longest = std::max(longest, now - last);
        last = now;
        ++ticks;
    });
    ticker.start();
    widgets::ReportPreviewDialog preview(report, a4());
    preview.show();
    bool shown = false;
    QObject::connect(&preview, &widgets::ReportPreviewDialog::pageShown, [&] { shown = true; });
    const qint64 opened = clock.elapsed();
    while (!shown)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    const qint64 firstPage = clock.elapsed() - opened;
    std::printf("| %zu | %lld | %d | %lld | %lld | %.3f |\n", size, static_cast<long long>(firstPage),
        preview.pageCount(), static_cast<long long>(longest), static_cast<long long>(opened),
        firstPage ? static_cast<double>(longest) / static_cast<double>(firstPage) : 0.0);
}

std::vector<std::size_t> parseSizes(const std::string& text)
{
    std::vector<std::size_t> sizes;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t comma = text.find(',', at);
        sizes.push_back(std::stoul(text.substr(at, comma - at)));
        at = comma == std::string::npos ? text.size() : comma + 1;
    }
    return sizes;
}

} // namespace

int main(int argc, char** argv)
{
    // Answered before anything runs, as every program of the tree answers it.
    if (argc > 1 && std::string(argv[1]) == "--help") {
        std::printf("report_bench [--runs N] [--sizes 100,1000,5000] [--ui-size 1000]\n");
        return 0;
    }
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    int runs = 3;
    std::vector<std::size_t> sizes { 100, 1000, 5000 };
    std::size_t uiSize = 1000;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--runs")
            runs = std::max(1, std::atoi(argv[i + 1]));
        else if (flag == "--sizes")
            sizes = parseSizes(argv[i + 1]);
        else if (flag == "--ui-size")
            uiSize = std::stoul(argv[i + 1]);
    }
    std::printf("Median of %d runs, ms (PDF in KiB).\n\n", runs);
    std::printf("| migrations | build (core) | JSON | CSV | layout | PDF | one page 800 px | pages | PDF KiB |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|\n");
    for (const std::size_t size : sizes)
        measureSize(size, runs);
    std::printf("\nPreview on the report thread, UI thread ticking every 5 ms:\n\n");
    std::printf("| migrations | open to first page, ms | pages | longest UI-thread gap, ms | dialog constructor, ms | "
                "gap / first page |\n");
    std::printf("|---|---|---|---|---|---|\n");
    measureUi(uiSize);
    return 0;
}
