// The report charts' implementation: time axes, legends, the phases timeline, the backfill rates
// and the shards' bars, painted in points of the report's resolution.

#include "widgets/report/report_charts.h"

#include "widgets/report/report_document.h"
#include "widgets/style/format.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFontMetricsF>
#include <QLocale>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace shardmap::widgets {

namespace {

using core::MigrationPhase;

struct Metrics {
    qreal dpi;
    // The painter's device: fonts are sized for it, so that a device of another resolution
    // (drawn on with a scaled painter) gets the same page.
    qreal deviceDpi;
    qreal pt(qreal points) const { return points * dpi / 72.0; }
};

QFont chartFont(const Metrics& m, qreal points)
{
    QFont font;
    font.setPointSizeF(points * m.dpi / m.deviceDpi);
    font.setStyleStrategy(QFont::PreferNoShaping);
    return font;
}

// A step of about (span / ticks) rounded to 1, 2 or 5 times a power of ten.
double niceStep(double span, int ticks)
{
    if (span <= 0)
        return 1;
    const double raw = span / ticks;
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double factor : { 1.0, 2.0, 5.0, 10.0 }) {
        if (factor * power >= raw)
            return factor * power;
    }
    return 10 * power;
}

std::int64_t timeStepMs(std::int64_t spanMs)
{
    static constexpr std::array<std::int64_t, 19> steps { 1000, 2000, 5000, 10000, 15000, 30000, 60000, 120000, 300000,
        600000, 900000, 1800000, 3600000, 7200000, 10800000, 21600000, 43200000, 86400000, 604800000 };
    for (const std::int64_t step : steps) {
        if (spanMs / step <= 7)
            return step;
    }
    return steps.back();
}

QString timeLabel(std::int64_t unixMs, std::int64_t spanMs)
{
    const QDateTime time = QDateTime::fromMSecsSinceEpoch(unixMs);
    if (spanMs > 86400000)
        return time.toString(QStringLiteral("MM-dd HH:mm"));
    return time.toString(spanMs > 600000 ? QStringLiteral("HH:mm") : QStringLiteral("HH:mm:ss"));
}

// The time axis along the top (or bottom) of plot: ticks, labels and light grid lines.
void drawTimeAxis(
    QPainter& painter, const QRectF& plot, std::int64_t from, std::int64_t to, qreal labelY, const Metrics& m)
{
    const std::int64_t span = std::max<std::int64_t>(to - from, 1);
    const std::int64_t step = timeStepMs(span);
    painter.setFont(chartFont(m, 6));
    const QFontMetricsF fm(painter.font(), painter.device());
    for (std::int64_t t = (from / step + 1) * step; t < to; t += step) {
        const qreal x = plot.left() + plot.width() * static_cast<qreal>(t - from) / static_cast<qreal>(span);
        painter.setPen(QPen(QColor(225, 225, 225), m.pt(0.4)));
        painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        painter.setPen(QColor(90, 90, 90));
        const QString label = timeLabel(t, span);
        painter.drawText(QPointF(x - fm.horizontalAdvance(label) / 2, labelY), label);
    }
}

void drawLegend(QPainter& painter, QPointF at, const std::vector<std::pair<QString, QColor>>& entries, const Metrics& m)
{
    painter.setFont(chartFont(m, 6));
    const QFontMetricsF fm(painter.font(), painter.device());
    for (const auto& [label, colour] : entries) {
        const QRectF swatch(at.x(), at.y() - fm.ascent() + m.pt(1), m.pt(6), m.pt(5));
        painter.fillRect(swatch, colour);
        painter.setPen(QColor(60, 60, 60));
        painter.drawText(QPointF(swatch.right() + m.pt(2), at.y()), label);
        at.rx() += swatch.width() + m.pt(2) + fm.horizontalAdvance(label) + m.pt(8);
    }
}

// Timeline --------------------------------------------------------------------------------------

qreal timelineHeight(const TimelineChart& chart, const Metrics& m)
{
    return m.pt(14) + static_cast<qreal>(chart.rows.size()) * m.pt(9) + m.pt(16);
}

void drawTimeline(QPainter& painter, const QRectF& rect, const TimelineChart& chart, const Metrics& m)
{
    const qreal labelWidth = rect.width() * 0.22;
    const qreal rowHeight = m.pt(9);
    const QRectF plot(rect.left() + labelWidth, rect.top() + m.pt(14), rect.width() - labelWidth - m.pt(4),
        static_cast<qreal>(chart.rows.size()) * rowHeight);
    const std::int64_t span = std::max<std::int64_t>(chart.toUnixMs - chart.fromUnixMs, 1);
    const auto xOf = [&](std::int64_t t) {
        const auto clamped = std::clamp(t, chart.fromUnixMs, chart.toUnixMs);
        return plot.left() + plot.width() * static_cast<qreal>(clamped - chart.fromUnixMs) / static_cast<qreal>(span);
    };
    drawTimeAxis(painter, plot, chart.fromUnixMs, chart.toUnixMs, rect.top() + m.pt(9), m);
    painter.setPen(QPen(QColor(150, 150, 150), m.pt(0.5)));
    painter.drawRect(plot);
    painter.setFont(chartFont(m, 6));
    const QFontMetricsF fm(painter.font(), painter.device());
    for (std::size_t i = 0; i < chart.rows.size(); ++i) {
        const TimelineRow& row = chart.rows[i];
        const qreal top = plot.top() + static_cast<qreal>(i) * rowHeight;
        painter.setPen(QColor(40, 40, 40));
        painter.drawText(QPointF(rect.left(), top + rowHeight * 0.5 + fm.ascent() * 0.4),
            fm.elidedText(row.label, Qt::ElideMiddle, labelWidth - m.pt(4)));
        for (const core::PhaseSpan& phase : row.phases) {
            const qreal x1 = xOf(phase.startedUnixMs);
            if (core::isFinal(phase.phase)) {
                // The end: a mark in the outcome's colour.
                QPainterPath mark;
                const qreal r = rowHeight * 0.32;
                const qreal cy = top + rowHeight / 2;
                mark.moveTo(x1, cy - r);
                mark.lineTo(x1 + r, cy);
                mark.lineTo(x1, cy + r);
                mark.lineTo(x1 - r, cy);
                mark.closeSubpath();
                painter.fillPath(mark, phaseColor(phase.phase));
                continue;
            }
            const qreal x2 = xOf(phase.endedUnixMs ? phase.endedUnixMs : chart.toUnixMs);
            painter.fillRect(QRectF(x1, top + rowHeight * 0.2, std::max(x2 - x1, m.pt(0.6)), rowHeight * 0.6),
                phaseColor(phase.phase));
        }
    }
    std::vector<std::pair<QString, QColor>> legend;
    for (const MigrationPhase phase : { MigrationPhase::Queued, MigrationPhase::DualWrite, MigrationPhase::Backfill,
             MigrationPhase::Verify, MigrationPhase::Cutover, MigrationPhase::Cleanup, MigrationPhase::Done,
             MigrationPhase::Failed, MigrationPhase::Cancelled })
        legend.emplace_back(phaseLabel(phase), phaseColor(phase));
    drawLegend(painter, QPointF(plot.left(), plot.bottom() + m.pt(11)), legend, m);
}

// Rates -----------------------------------------------------------------------------------------

qreal rateHeight(qreal width, const Metrics& m)
{
    return std::min(width * 0.38, m.pt(190));
}

// The rate axis' top and its step: a nice step, the top a whole number of them above the fastest.
std::pair<double, double> rateScale(const RateChart& chart)
{
    double top = 0;
    for (const RateSeries& series : chart.series) {
        for (const auto& point : series.points)
            top = std::max(top, point.second);
    }
    const double step = niceStep(top, 4);
    return { std::max(step, std::ceil(top / step) * step), step };
}

void drawRateGrid(QPainter& painter, const QRectF& plot, double top, double step, const Metrics& m)
{
    const QLocale locale;
    painter.setFont(chartFont(m, 6));
    const QFontMetricsF fm(painter.font(), painter.device());
    for (double y = 0; y <= top + step / 2; y += step) {
        const qreal py = plot.bottom() - plot.height() * y / top;
        painter.setPen(QPen(QColor(225, 225, 225), m.pt(0.4)));
        painter.drawLine(QPointF(plot.left(), py), QPointF(plot.right(), py));
        painter.setPen(QColor(90, 90, 90));
        const QString label = locale.toString(y, 'f', step < 1 ? 1 : 0);
        painter.drawText(QPointF(plot.left() - m.pt(3) - fm.horizontalAdvance(label), py + fm.ascent() / 3), label);
    }
    painter.setPen(QPen(QColor(150, 150, 150), m.pt(0.5)));
    painter.drawRect(plot);
}

// One line per series, clipped to the plot; returns the legend's entries.
std::vector<std::pair<QString, QColor>> drawRateLines(
    QPainter& painter, const QRectF& plot, const RateChart& chart, double top, const Metrics& m)
{
    static const std::array<QColor, 7> colours { QColor(31, 78, 140), QColor(214, 120, 30), QColor(60, 150, 80),
        QColor(170, 60, 60), QColor(120, 80, 160), QColor(40, 150, 160), QColor(150, 120, 60) };
    const std::int64_t span = std::max<std::int64_t>(chart.toUnixMs - chart.fromUnixMs, 1);
    std::vector<std::pair<QString, QColor>> legend;
    painter.save();
    painter.setClipRect(plot);
    painter.setRenderHint(QPainter::Antialiasing);
    for (std::size_t s = 0; s < chart.series.size(); ++s) {
        const RateSeries& series = chart.series[s];
        const QColor colour = colours[s % colours.size()];
        QPainterPath path;
        for (std::size_t i = 0; i < series.points.size(); ++i) {
            const auto& [t, rate] = series.points[i];
            const QPointF p(
                plot.left() + plot.width() * static_cast<qreal>(t - chart.fromUnixMs) / static_cast<qreal>(span),
                plot.bottom() - plot.height() * rate / top);
            i == 0 ? path.moveTo(p) : path.lineTo(p);
        }
        painter.setPen(QPen(colour, m.pt(s == 0 ? 1.2 : 0.7)));
        painter.drawPath(path);
        legend.emplace_back(series.label, colour);
    }
    painter.restore();
    return legend;
}

void drawRates(QPainter& painter, const QRectF& rect, const RateChart& chart, const Metrics& m)
{
    const auto [top, step] = rateScale(chart);
    const QRectF plot(rect.left() + m.pt(40), rect.top() + m.pt(16), rect.width() - m.pt(46), rect.height() - m.pt(30));
    drawTimeAxis(painter, plot, chart.fromUnixMs, chart.toUnixMs, plot.bottom() + m.pt(9), m);
    drawRateGrid(painter, plot, top, step, m);
    painter.setPen(QColor(60, 60, 60));
    painter.drawText(QPointF(plot.left(), rect.top() + m.pt(8)), ReportDocument::tr("documents/s"));
    const auto legend = drawRateLines(painter, plot, chart, top, m);
    drawLegend(painter, QPointF(plot.left() + m.pt(60), rect.top() + m.pt(8)), legend, m);
}

// Shards before and after -----------------------------------------------------------------------

qreal shardBarsHeight(const ShardBarsChart& chart, const Metrics& m)
{
    const std::size_t shards = std::min(chart.shards.size(), kMostShardBars);
    return m.pt(14) + static_cast<qreal>(shards) * m.pt(14) + m.pt(4);
}

void drawShardBars(QPainter& painter, const QRectF& rect, const ShardBarsChart& chart, const Metrics& m)
{
    const QLocale locale;
    const std::size_t shards = std::min(chart.shards.size(), kMostShardBars);
    std::uint64_t most = 1;
    for (std::size_t i = 0; i < shards; ++i)
        most = std::max({ most, chart.shards[i].bytesBefore, chart.shards[i].bytesAfter });
    const qreal labelWidth = rect.width() * 0.16;
    const qreal valueWidth = m.pt(60);
    const qreal barSpace = rect.width() - labelWidth - valueWidth;
    const QColor before(170, 170, 170);
    const QColor after(31, 78, 140);
    drawLegend(painter, QPointF(rect.left() + labelWidth, rect.top() + m.pt(8)),
        { { ReportDocument::tr("before (measured when queued)"), before },
            { ReportDocument::tr("after (before plus what moved)"), after } },
        m);
    painter.setFont(chartFont(m, 6));
    const QFontMetricsF fm(painter.font(), painter.device());
    for (std::size_t i = 0; i < shards; ++i) {
        const core::ReportShardLoad& load = chart.shards[i];
        const qreal top = rect.top() + m.pt(14) + static_cast<qreal>(i) * m.pt(14);
        painter.setPen(QColor(40, 40, 40));
        painter.drawText(QPointF(rect.left(), top + m.pt(7) + fm.ascent() / 3),
            fm.elidedText(QString::fromStdString(load.shard), Qt::ElideMiddle, labelWidth - m.pt(4)));
        const auto bar = [&](std::uint64_t bytes, qreal y, const QColor& colour, const QString& text) {
            const qreal w = barSpace * static_cast<qreal>(bytes) / static_cast<qreal>(most);
            painter.fillRect(QRectF(rect.left() + labelWidth, y, std::max(w, m.pt(0.5)), m.pt(5.5)), colour);
            painter.setPen(QColor(60, 60, 60));
            painter.drawText(QPointF(rect.left() + labelWidth + w + m.pt(3), y + m.pt(4.8)), text);
        };
        bar(load.bytesBefore, top + m.pt(1), before,
            load.measured ? formatBytes(load.bytesBefore, locale) : ReportDocument::tr("not measured"));
        bar(load.bytesAfter, top + m.pt(7), after, formatBytes(load.bytesAfter, locale));
    }
}

} // namespace

QString phaseLabel(MigrationPhase phase)
{
    switch (phase) {
    case MigrationPhase::Queued: return ReportDocument::tr("queued");
    case MigrationPhase::DualWrite: return ReportDocument::tr("dual write");
    case MigrationPhase::Backfill: return ReportDocument::tr("backfill");
    case MigrationPhase::Verify: return ReportDocument::tr("verify");
    case MigrationPhase::Cutover: return ReportDocument::tr("cutover");
    case MigrationPhase::Cleanup: return ReportDocument::tr("cleanup");
    case MigrationPhase::Done: return ReportDocument::tr("done");
    case MigrationPhase::Failed: return ReportDocument::tr("failed");
    case MigrationPhase::Cancelled: return ReportDocument::tr("cancelled");
    }
    return {};
}

QColor phaseColor(MigrationPhase phase)
{
    switch (phase) {
    case MigrationPhase::Queued: return { 210, 210, 210 };
    case MigrationPhase::DualWrite: return { 140, 180, 225 };
    case MigrationPhase::Backfill: return { 31, 78, 140 };
    case MigrationPhase::Verify: return { 120, 80, 160 };
    case MigrationPhase::Cutover: return { 214, 120, 30 };
    case MigrationPhase::Cleanup: return { 150, 200, 150 };
    case MigrationPhase::Done: return { 40, 140, 60 };
    case MigrationPhase::Failed: return { 200, 40, 40 };
    case MigrationPhase::Cancelled: return { 110, 110, 110 };
    }
    return Qt::black;
}

std::vector<TimelineChart> timelineCharts(const core::MigrationReport& report)
{
    std::vector<TimelineChart> charts;
    for (std::size_t i = 0; i < report.rows.size(); ++i) {
        if (i % kTimelineRowsPerChart == 0)
            charts.push_back({ std::numeric_limits<std::int64_t>::max(), 0, {} });
        const core::ReportRow& row = report.rows[i];
        TimelineRow timeline;
        timeline.label = QString::fromStdString(row.record.space + "  " + row.record.id);
        timeline.outcome = row.outcome;
        if (row.history) {
            timeline.phases = row.history->phases;
        } else {
            // Cancelled while queued (no history): queued from creation to the end.
            timeline.phases.push_back({ MigrationPhase::Queued, row.record.createdUnixMs, row.endedUnixMs });
            if (row.endedUnixMs)
                timeline.phases.push_back({ row.record.phase, row.endedUnixMs, row.endedUnixMs });
        }
        // Each chart spans its own rows' time, so that a long report's migrations stay readable.
        TimelineChart& chart = charts.back();
        for (const core::PhaseSpan& phase : timeline.phases) {
            chart.fromUnixMs = std::min(chart.fromUnixMs, phase.startedUnixMs);
            chart.toUnixMs = std::max({ chart.toUnixMs, phase.startedUnixMs, phase.endedUnixMs });
        }
        if (!isFinal(row.record.phase))
            chart.toUnixMs = std::max(chart.toUnixMs, report.toUnixMs);
        charts.back().rows.push_back(std::move(timeline));
    }
    for (TimelineChart& chart : charts) {
        // A little room at both ends for the end marks.
        const std::int64_t pad = std::max<std::int64_t>((chart.toUnixMs - chart.fromUnixMs) / 50, 500);
        chart.fromUnixMs -= pad;
        chart.toUnixMs += pad;
    }
    return charts;
}

RateChart rateChart(const core::MigrationReport& report)
{
    RateChart chart { report.fromUnixMs, std::max(report.toUnixMs, report.fromUnixMs + 1), {} };
    constexpr int kBins = 120;
    const double binMs = static_cast<double>(chart.toUnixMs - chart.fromUnixMs) / kBins;
    std::vector<double> docs(kBins, 0.0);
    std::vector<RateSeries> own;
    std::size_t withSamples = 0;
    for (const core::ReportRow& row : report.rows) {
        if (!row.history || row.history->samples.size() < 2)
            continue;
        ++withSamples;
        RateSeries series { QString::fromStdString(row.record.space), {} };
        for (const core::CopyInterval& interval : core::copyIntervals(row.history->samples)) {
            const double moved = static_cast<double>(interval.docs);
            const double dt = static_cast<double>(interval.toUnixMs - interval.fromUnixMs);
            series.points.emplace_back(interval.fromUnixMs, interval.docsPerSecond);
            series.points.emplace_back(interval.toUnixMs, interval.docsPerSecond);
            // Spread over the bins the interval overlaps, in proportion.
            for (int bin = std::max(0, static_cast<int>((interval.fromUnixMs - chart.fromUnixMs) / binMs)); bin < kBins;
                 ++bin) {
                const double start = chart.fromUnixMs + bin * binMs;
                const double end = start + binMs;
                if (start >= interval.toUnixMs)
                    break;
                const double overlap
                    = std::min<double>(end, interval.toUnixMs) - std::max<double>(start, interval.fromUnixMs);
                if (overlap > 0)
                    docs[bin] += moved * overlap / dt;
            }
        }
        own.push_back(std::move(series));
    }
    if (withSamples == 0)
        return chart;
    RateSeries total { ReportDocument::tr("all migrations"), {} };
    for (int bin = 0; bin < kBins; ++bin)
        total.points.emplace_back(
            chart.fromUnixMs + static_cast<std::int64_t>((bin + 0.5) * binMs), docs[bin] * 1000 / binMs);
    chart.series.push_back(std::move(total));
    if (own.size() <= 6) {
        for (auto& series : own)
            chart.series.push_back(std::move(series));
    }
    return chart;
}

qreal chartHeight(const ReportChart& chart, qreal width, qreal dpi)
{
    const Metrics m { dpi, dpi };
    if (const auto* timeline = std::get_if<TimelineChart>(&chart))
        return timelineHeight(*timeline, m);
    if (std::holds_alternative<RateChart>(chart))
        return rateHeight(width, m);
    return shardBarsHeight(std::get<ShardBarsChart>(chart), m);
}

void drawChart(QPainter& painter, const QRectF& rect, const ReportChart& chart, qreal dpi)
{
    const Metrics m { dpi, painter.device() ? static_cast<qreal>(painter.device()->logicalDpiY()) : dpi };
    painter.save();
    if (const auto* timeline = std::get_if<TimelineChart>(&chart))
        drawTimeline(painter, rect, *timeline, m);
    else if (const auto* rates = std::get_if<RateChart>(&chart))
        drawRates(painter, rect, *rates, m);
    else
        drawShardBars(painter, rect, std::get<ShardBarsChart>(chart), m);
    painter.restore();
}

} // namespace shardmap::widgets
