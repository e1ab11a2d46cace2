// The report document's rendering: the pages' layout, their furniture (header, footer, page
// numbers), painting a page, and the PDF and printer output; the text comes from ReportBuilder.

#include "widgets/report/report_document.h"

#include "widgets/report/report_builder.h"
#include "widgets/report/report_pagination.h"

#include <QAbstractTextDocumentLayout>
#include <QFile>
#include <QPainter>
#include <QPdfWriter>
#include <QTextDocument>

namespace shardmap::widgets {

namespace {

const QMarginsF kMarginsMm { 15, 15, 15, 15 };
// Header and footer bands inside the margins, in points.
constexpr qreal kBandPoints = 20;

qreal pointsToPixels(qreal points)
{
    return points * ReportDocument::kResolution / 72.0;
}

} // namespace

QPageSize::PageSizeId defaultPageSize(const QLocale& locale)
{
    switch (locale.territory()) {
    case QLocale::UnitedStates:
    case QLocale::Canada:
    case QLocale::Mexico:
    case QLocale::Chile:
    case QLocale::Colombia:
    case QLocale::Venezuela:
    case QLocale::Philippines:
    case QLocale::Guatemala:
    case QLocale::CostaRica:
    case QLocale::PuertoRico: return QPageSize::Letter;
    default: return QPageSize::A4;
    }
}

ReportDocument::ReportDocument(const core::MigrationReport& report, const ReportFormat& format)
    : m_format(format)
    , m_layout(format.pageSize, QPageLayout::Portrait, kMarginsMm, QPageLayout::Millimeter)
    , m_metrics(1, 1, QImage::Format_RGB32)
    , m_document(std::make_unique<QTextDocument>())
    , m_charts(std::make_unique<ReportChartHandler>())
{
    const int dotsPerMetre = qRound(kResolution / 0.0254);
    m_metrics.setDotsPerMeterX(dotsPerMetre);
    m_metrics.setDotsPerMeterY(dotsPerMetre);
    build(report);
}

ReportDocument::~ReportDocument() = default;

void ReportDocument::build(const core::MigrationReport& report)
{
    setUpDocument();
    m_header = reportHeaderText(report, m_format);
    m_footer = reportFooterText(report);
    ReportBuilder(*m_document, *m_charts, m_format).build(report);
    keepHeadingsWithTheirContent(*m_document);
}

// The page's content area at kResolution, the report's fonts and styles, and its charts' width.
void ReportDocument::setUpDocument()
{
    const QRect paint = m_layout.paintRectPixels(kResolution);
    const QSizeF content(paint.width(), paint.height() - 2 * pointsToPixels(kBandPoints));
    QTextDocument& doc = *m_document;
    doc.setUseDesignMetrics(true);
    doc.documentLayout()->setPaintDevice(&m_metrics);
    doc.setDocumentMargin(0);
    doc.setPageSize(content);
    QFont font;
    font.setPointSizeF(7.5);
    // No ligatures: ids like "m-...-95ff" must copy and search as typed.
    font.setStyleStrategy(QFont::PreferNoShaping);
    doc.setDefaultFont(font);
    // Lines break between words only: a word wider than its cell widens the column instead of
    // being cut anywhere ("don" / "e").
    QTextOption wrap = doc.defaultTextOption();
    wrap.setWrapMode(QTextOption::WordWrap);
    doc.setDefaultTextOption(wrap);
    doc.setDefaultStyleSheet(QStringLiteral("h1 { font-size: 16pt; } h2 { font-size: 11pt; } h3 { font-size: 9pt; } "
                                            "th { background-color: #e8e8e8; } td, th { font-size: 7pt; }"));
    m_charts->width = content.width() * 0.98;
    doc.documentLayout()->registerHandler(ReportChartHandler::kType, m_charts.get());
}

int ReportDocument::pageCount() const
{
    return m_document->pageCount();
}

QSize ReportDocument::pagePixels() const
{
    return m_layout.fullRectPixels(kResolution).size();
}

void ReportDocument::paintPage(QPainter& painter, int page) const
{
    const QRect paint = m_layout.paintRectPixels(kResolution);
    const qreal band = pointsToPixels(kBandPoints);
    const QSizeF content = m_document->pageSize();
    painter.save();
    QFont small;
    small.setPointSizeF(6.5 * kResolution / painter.device()->logicalDpiY());
    small.setStyleStrategy(QFont::PreferNoShaping);
    painter.setFont(small);
    painter.setPen(QColor(110, 110, 110));
    const QRectF header(paint.left(), paint.top(), paint.width(), band * 0.7);
    painter.drawText(header, Qt::AlignLeft | Qt::AlignTop,
        painter.fontMetrics().elidedText(m_header, Qt::ElideRight, paint.width()));
    const QRectF footer(paint.left(), paint.bottom() - band * 0.7, paint.width(), band * 0.7);
    painter.drawText(footer, Qt::AlignLeft | Qt::AlignBottom, m_footer);
    painter.drawText(footer, Qt::AlignRight | Qt::AlignBottom, tr("Page %1 of %2").arg(page + 1).arg(pageCount()));
    painter.setPen(QPen(QColor(200, 200, 200), 1));
    painter.drawLine(QPointF(paint.left(), header.bottom()), QPointF(paint.right(), header.bottom()));
    painter.drawLine(QPointF(paint.left(), footer.top()), QPointF(paint.right(), footer.top()));

    painter.translate(paint.left(), paint.top() + band - page * content.height());
    const QRectF clip(0, page * content.height(), content.width(), content.height());
    painter.setClipRect(clip);
    QAbstractTextDocumentLayout::PaintContext context;
    context.clip = clip;
    context.palette.setColor(QPalette::Text, Qt::black);
    m_document->documentLayout()->draw(&painter, context);
    painter.restore();
}

QImage ReportDocument::pageImage(int page, int width) const
{
    const QSize full = pagePixels();
    QImage image(width, qRound(static_cast<qreal>(width) * full.height() / full.width()), QImage::Format_RGB32);
    const int dotsPerMetre = qRound(kResolution / 0.0254);
    image.setDotsPerMeterX(dotsPerMetre);
    image.setDotsPerMeterY(dotsPerMetre);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
    painter.scale(static_cast<qreal>(width) / full.width(), static_cast<qreal>(width) / full.width());
    paintPage(painter, page);
    return image;
}

core::Status ReportDocument::print(QPagedPaintDevice& device) const
{
    device.setPageLayout(QPageLayout(m_layout.pageSize(), QPageLayout::Portrait, QMarginsF()));
    QPainter painter;
    if (!painter.begin(&device))
        return core::makeError(core::ErrorCode::Unavailable, "the report could not be started on the printer or file");
    const qreal scale = static_cast<qreal>(device.logicalDpiX()) / kResolution;
    painter.scale(scale, scale);
    for (int page = 0; page < pageCount(); ++page) {
        if (page > 0 && !device.newPage())
            return core::makeError(core::ErrorCode::Unavailable, "the printer or file took no more pages");
        paintPage(painter, page);
    }
    if (!painter.end())
        return core::makeError(core::ErrorCode::Unavailable, "the report could not be finished");
    return {};
}

core::Status ReportDocument::writePdf(QIODevice& out) const
{
    QPdfWriter writer(&out);
    writer.setResolution(kResolution);
    writer.setCreator(QStringLiteral("Shardmap"));
    writer.setTitle(m_header);
    return print(writer);
}

core::Status ReportDocument::writePdf(const QString& path) const
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return core::makeError(core::ErrorCode::InvalidArgument,
            "cannot write " + path.toStdString() + ": " + file.errorString().toStdString());
    if (auto status = writePdf(file); !status)
        return status;
    if (!file.flush() || file.error() != QFileDevice::NoError) {
        const std::string reason = file.errorString().toStdString();
        file.close();
        file.remove();
        return core::makeError(core::ErrorCode::Internal, "writing " + path.toStdString() + " failed: " + reason);
    }
    return {};
}

QString ReportDocument::plainText() const
{
    return m_document->toPlainText();
}

} // namespace shardmap::widgets
