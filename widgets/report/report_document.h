#pragma once

// A migration report (core/report) laid out on pages, for the PDF the console and shardmapctl
// write, the console's print preview and printing: title, scope and time range, summary, the
// operations with their shards before and after, a timeline of phases, the backfill rate, one
// table row per migration, who asked and why, who approved (issue 17), errors and events, and
// refused and expired requests, and requests not made (pending, failed, approved without an
// outcome). Paged with page numbers, A4 or
// Letter (by locale unless chosen), in the application's language (installTranslations).
//
// Qt's own printing (QTextDocument for the text and tables, QPainter for the charts), no event
// loop: build and use a ReportDocument on a worker thread, one thread at a time (QTextDocument is
// reentrant, not thread-safe). Every paint device it draws on has its layout's resolution, so
// the PDF, the preview and a printer show the same pages.

#include "core/report/migration_report.h"
#include "core/util/result.h"

#include <QCoreApplication>
#include <QImage>
#include <QLocale>
#include <QPageLayout>
#include <QPageSize>
#include <QString>
#include <memory>

QT_BEGIN_NAMESPACE
class QIODevice;
class QPainter;
class QPagedPaintDevice;
class QTextDocument;
QT_END_NAMESPACE

namespace shardmap::widgets {

class ReportChartHandler;

struct ReportFormat {
    QPageSize pageSize { QPageSize::A4 };
    QLocale locale;
    // How the migrations were chosen, when the scope alone does not say it well (the console's
    // "current filter"); empty: described from the report's scope.
    QString scopeText;
};

// Letter where it is the custom (the US, Canada, Mexico, ...), A4 elsewhere.
QPageSize::PageSizeId defaultPageSize(const QLocale& locale);

class ReportDocument {
    Q_DECLARE_TR_FUNCTIONS(shardmap::widgets::ReportDocument)
public:
    // Dots per inch of the layout and of every device a page is painted on.
    static constexpr int kResolution = 150;

    ReportDocument(const core::MigrationReport& report, const ReportFormat& format);
    ~ReportDocument();
    ReportDocument(const ReportDocument&) = delete;
    ReportDocument& operator=(const ReportDocument&) = delete;

    int pageCount() const;
    const QPageLayout& pageLayout() const { return m_layout; }
    // The page in pixels at kResolution.
    QSize pagePixels() const;
    // Paints one page (0-based) with the painter's origin at the page's top left, in pixels at
    // kResolution: the device must have that resolution (a QImage with that many dots per metre,
    // a QPdfWriter or QPrinter set to it).
    void paintPage(QPainter& painter, int page) const;
    // The page as an image width pixels wide (for previews).
    QImage pageImage(int page, int width) const;
    // Every page as PDF; an error when the device or file cannot be written.
    core::Status writePdf(QIODevice& out) const;
    core::Status writePdf(const QString& path) const;
    // Paints every page on a printer (or any paged device set to kResolution) from the first on.
    core::Status print(QPagedPaintDevice& device) const;

    // The document's text without the page furniture (for tests and accessibility).
    QString plainText() const;

private:
    void build(const core::MigrationReport& report);
    void setUpDocument();

    ReportFormat m_format;
    QPageLayout m_layout;
    QString m_header;
    QString m_footer;
    QImage m_metrics;
    std::unique_ptr<QTextDocument> m_document;
    std::unique_ptr<ReportChartHandler> m_charts;
};

} // namespace shardmap::widgets
