#pragma once

// The report's text as a QTextDocument (ReportDocument pages, paints and prints it): one function
// per section's HTML, and the charts between them as objects the ReportChartHandler draws.

#include "core/report/migration_report.h"
#include "widgets/report/report_charts.h"
#include "widgets/report/report_document.h"

#include <QLocale>
#include <QObject>
#include <QString>
#include <QTextCursor>
#include <QTextFormat>
#include <QTextObjectInterface>
#include <vector>

QT_BEGIN_NAMESPACE
class QTextDocument;
QT_END_NAMESPACE

namespace shardmap::widgets {

// Draws the report's charts where the text holds an object character of its type (vector
// graphics in the PDF, at any zoom in the preview).
class ReportChartHandler : public QObject, public QTextObjectInterface {
    Q_OBJECT
    Q_INTERFACES(QTextObjectInterface)
public:
    static constexpr int kType = QTextFormat::UserObject + 1;
    static constexpr int kIndex = QTextFormat::UserProperty + 1;

    std::vector<ReportChart> charts;
    qreal width = 0;

    QSizeF intrinsicSize(QTextDocument*, int, const QTextFormat& format) override
    {
        const auto& chart = charts.at(static_cast<std::size_t>(format.intProperty(kIndex)));
        return { width, chartHeight(chart, width, ReportDocument::kResolution) };
    }

    void drawObject(QPainter* painter, const QRectF& rect, QTextDocument*, int, const QTextFormat& format) override
    {
        drawChart(*painter, rect, charts.at(static_cast<std::size_t>(format.intProperty(kIndex))),
            ReportDocument::kResolution);
    }
};

// The page furniture's text: "Shardmap migration report · <scope>" above, "Generated ... from
// map revision N" below.
QString reportHeaderText(const core::MigrationReport& report, const ReportFormat& format);
QString reportFooterText(const core::MigrationReport& report);

// Writes a report's sections into a document set up for its pages, in the order the report reads:
// title, summary, operations with their shards' charts, timeline, backfill rate, migrations, who
// asked and why, approvals, errors and events, refused and unmade requests.
class ReportBuilder {
public:
    ReportBuilder(QTextDocument& document, ReportChartHandler& charts, const ReportFormat& format);
    void build(const core::MigrationReport& report);

private:
    void part(const QString& html);
    void chart(ReportChart value);
    void addTitle(const core::MigrationReport& report);
    void addOperations(const core::MigrationReport& report);
    void addTimeline(const core::MigrationReport& report);
    void addMigrations(const core::MigrationReport& report);
    void addRequests(const core::MigrationReport& report);

    QTextDocument& m_document;
    ReportChartHandler& m_charts;
    const ReportFormat& m_format;
    QTextCursor m_cursor;
};

} // namespace shardmap::widgets
