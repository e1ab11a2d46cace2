// TimeSeriesChart's implementation: series kept here, decimated per pixel column and pushed to
// Qt Charts on a coalescing timer; axes on nice ticks and a byte unit from core/util/units.h.

#include "widgets/charts/time_series_chart.h"

#include "core/util/units.h"
#include "widgets/charts/nice_ticks.h"

#include <QChart>
#include <QChartView>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QFileInfo>
#include <QFontMetrics>
#include <QGraphicsLayout>
#include <QLineSeries>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QPixmap>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace shardmap::widgets {

namespace {

// About 15 repaints a second at most, however fast data arrives.
constexpr int kRepaintIntervalMs = 66;
constexpr qint64 kMinute = 60 * 1000;

core::SeriesPoint toPoint(const std::pair<qint64, double>& point)
{
    return { static_cast<std::int64_t>(point.first), point.second };
}

QString timeFormatFor(qint64 spanMs)
{
    if (spanMs <= 15 * kMinute)
        return QStringLiteral("HH:mm:ss");
    if (spanMs <= 36 * 60 * kMinute)
        return QStringLiteral("HH:mm");
    return QStringLiteral("dd.MM. HH:mm");
}

} // namespace

TimeSeriesChart::TimeSeriesChart(QWidget* parent)
    : QWidget(parent)
    , m_chart(new QChart)
    , m_axisX(new QDateTimeAxis)
    , m_axisY(new QValueAxis)
{
    m_chart->setAnimationOptions(QChart::NoAnimation);
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_chart->setMargins(QMargins(4, 4, 4, 4));
    m_axisX->setTickCount(6);
    m_axisY->setTickCount(5);
    m_chart->addAxis(m_axisX, Qt::AlignBottom);
    m_chart->addAxis(m_axisY, Qt::AlignLeft);

    // No OpenGL series: they crash on the offscreen platform and grab() would not capture them;
    // decimation keeps the point count small enough for the raster path.
    m_view = new QChartView(m_chart, this);
    m_view->setRenderHint(QPainter::Antialiasing);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);

    m_repaintTimer.setSingleShot(true);
    m_repaintTimer.setInterval(kRepaintIntervalMs);
    connect(&m_repaintTimer, &QTimer::timeout, this, &TimeSeriesChart::pushToPlot);
    connect(m_chart, &QChart::plotAreaChanged, this, &TimeSeriesChart::scheduleRepaint);
    m_slideTimer.setInterval(1000);
    connect(&m_slideTimer, &QTimer::timeout, this, [this] {
        if (isVisible())
            scheduleRepaint();
    });
    m_slideTimer.start();
    setUnit(Unit::Count);
}

TimeSeriesChart::~TimeSeriesChart() = default;

void TimeSeriesChart::setSeries(const QString& key, const QString& label, const Points& points)
{
    auto it = m_series.find(key);
    if (it == m_series.end()) {
        it = m_series.insert(key, Series {});
        it->line = new QLineSeries(this);
        m_chart->addSeries(it->line);
        it->line->attachAxis(m_axisX);
        it->line->attachAxis(m_axisY);
        m_order.append(key);
    }
    it->label = label;
    it->line->setName(label);
    it->points.clear();
    it->points.reserve(points.size());
    std::transform(points.begin(), points.end(), std::back_inserter(it->points), toPoint);
    scheduleRepaint();
}

void TimeSeriesChart::appendPoints(const QString& key, const Points& points)
{
    if (!m_series.contains(key))
        setSeries(key, key, {});
    Series& series = m_series[key];
    for (const auto& point : points) {
        // Live points that overlap what history delivered are not drawn twice.
        if (!series.points.empty() && point.first <= series.points.back().x)
            continue;
        series.points.push_back(toPoint(point));
    }
    scheduleRepaint();
}

void TimeSeriesChart::removeSeries(const QString& key)
{
    auto it = m_series.find(key);
    if (it == m_series.end())
        return;
    m_chart->removeSeries(it->line);
    delete it->line;
    m_series.erase(it);
    m_order.removeAll(key);
    scheduleRepaint();
}

void TimeSeriesChart::clear()
{
    const QStringList keys = m_order;
    for (const QString& key : keys)
        removeSeries(key);
}

QStringList TimeSeriesChart::seriesKeys() const
{
    return m_order;
}

void TimeSeriesChart::setTimeRange(qint64 fromMs, qint64 toMs)
{
    m_fixedFrom = fromMs;
    m_fixedTo = std::max(toMs, fromMs + 1);
    m_windowMs = 0;
    m_slideTimer.stop();
    scheduleRepaint();
}

void TimeSeriesChart::setSlidingWindow(qint64 spanMs)
{
    m_windowMs = std::max<qint64>(spanMs, 1000);
    m_slideTimer.start();
    scheduleRepaint();
}

qint64 TimeSeriesChart::timeFrom() const
{
    qint64 from = 0;
    qint64 to = 0;
    updateRange(from, to);
    return from;
}

qint64 TimeSeriesChart::timeTo() const
{
    qint64 from = 0;
    qint64 to = 0;
    updateRange(from, to);
    return to;
}

void TimeSeriesChart::setUnit(Unit unit)
{
    m_unit = unit;
    scheduleRepaint();
}

void TimeSeriesChart::setValueTitle(const QString& title)
{
    m_valueTitle = title;
    scheduleRepaint();
}

void TimeSeriesChart::flushNow()
{
    pushToPlot();
}

QString TimeSeriesChart::seriesLabel(const QString& key) const
{
    auto it = m_series.find(key);
    return it == m_series.end() ? QString() : it->line->name();
}

int TimeSeriesChart::storedPointCount(const QString& key) const
{
    auto it = m_series.find(key);
    return it == m_series.end() ? 0 : static_cast<int>(it->points.size());
}

int TimeSeriesChart::pointCount(const QString& key) const
{
    auto it = m_series.find(key);
    return it == m_series.end() ? 0 : static_cast<int>(it->line->count());
}

TimeSeriesChart::Points TimeSeriesChart::drawnPoints(const QString& key) const
{
    Points points;
    auto it = m_series.find(key);
    if (it == m_series.end())
        return points;
    const QList<QPointF> drawn = it->line->points();
    points.reserve(static_cast<std::size_t>(drawn.size()));
    for (const QPointF& point : drawn)
        points.emplace_back(static_cast<qint64>(std::llround(point.x())), point.y());
    return points;
}

int TimeSeriesChart::plotPixelWidth() const
{
    const int plot = static_cast<int>(m_chart->plotArea().width());
    // Before the first layout the plot area is empty: the widget's width is a close upper bound.
    return plot > 0 ? plot : std::max(100, width());
}

void TimeSeriesChart::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    scheduleRepaint();
}

void TimeSeriesChart::scheduleRepaint()
{
    if (!m_repaintTimer.isActive())
        m_repaintTimer.start();
}

void TimeSeriesChart::updateRange(qint64& from, qint64& to) const
{
    if (m_windowMs > 0) {
        to = QDateTime::currentMSecsSinceEpoch();
        from = to - m_windowMs;
    } else {
        from = m_fixedFrom;
        to = m_fixedTo;
    }
}

void TimeSeriesChart::trimToWindow(Series& series) const
{
    if (m_windowMs <= 0)
        return;
    const qint64 from = QDateTime::currentMSecsSinceEpoch() - m_windowMs;
    auto firstInside = std::lower_bound(series.points.begin(), series.points.end(), from,
        [](const core::SeriesPoint& point, qint64 x) { return point.x < x; });
    // One point before the window stays so that the line reaches the left edge.
    if (firstInside - series.points.begin() > 1)
        series.points.erase(series.points.begin(), firstInside - 1);
}

void TimeSeriesChart::pushToPlot()
{
    m_repaintTimer.stop();
    qint64 from = 0;
    qint64 to = 0;
    updateRange(from, to);
    const auto columns = static_cast<std::size_t>(std::max(1, plotPixelWidth()));

    std::vector<std::vector<core::SeriesPoint>> shown;
    shown.reserve(static_cast<std::size_t>(m_order.size()));
    double low = 0;
    double high = 0;
    for (const QString& key : std::as_const(m_order)) {
        Series& series = m_series[key];
        trimToWindow(series);
        shown.push_back(core::decimateMinMax(core::clipToRange(series.points, from, to), columns, from, to));
        for (const auto& point : shown.back()) {
            low = std::min(low, point.y);
            high = std::max(high, point.y);
        }
    }

    const auto [divisor, suffix] = scaleFor(std::max(std::abs(low), std::abs(high)));
    for (qsizetype i = 0; i < m_order.size(); ++i) {
        QList<QPointF> points;
        points.reserve(static_cast<qsizetype>(shown[static_cast<std::size_t>(i)].size()));
        for (const auto& point : shown[static_cast<std::size_t>(i)])
            points.append(QPointF(static_cast<double>(point.x), point.y / divisor));
        m_series[m_order[i]].line->replace(points);
    }

    // Ticks on round times and values: the axes reach out to the next round ones.
    const NiceTimeScale time = niceTimeScale(from, to);
    m_axisX->setFormat(timeFormatFor(to - from));
    m_axisX->setTickCount(time.tickCount);
    m_axisX->setRange(QDateTime::fromMSecsSinceEpoch(time.fromMs), QDateTime::fromMSecsSinceEpoch(time.toMs));
    const NiceScale values = niceValueScale(low / divisor, high / divisor);
    m_axisY->setTickCount(values.tickCount);
    m_axisY->setRange(values.min, values.max);
    m_axisY->setLabelFormat(QStringLiteral("%.%1f").arg(decimalsFor(values.step)));
    updateValueTitle(suffix);
    emit repainted();
}

void TimeSeriesChart::updateValueTitle(const QString& suffix)
{
    // The title runs along the plot's height: when the whole title does not fit there, the axis
    // names only the unit and the chart's title (across the top) says what is plotted.
    // The unit stays on the axis only where it fits below that title; otherwise the title alone
    // says it.
    const QString full = suffix.isEmpty() ? m_valueTitle : tr("%1 (%2)").arg(m_valueTitle, suffix);
    const QFontMetrics metrics(m_axisY->titleFont());
    const auto fitsAlongAxis = [&](const QString& text) {
        return metrics.horizontalAdvance(text) <= static_cast<int>(m_chart->plotArea().height());
    };
    if (m_chart->title().isEmpty() && m_axisY->titleText() == full && fitsAlongAxis(full))
        return;
    // Trying the titles moves the plot area: its signal would schedule this again, for ever.
    const QSignalBlocker quiet(m_chart);
    m_axisY->setTitleText(QString());
    m_chart->setTitle(QString());
    relayout();
    if (fitsAlongAxis(full)) {
        m_axisY->setTitleText(full);
        return;
    }
    m_chart->setTitle(full);
    relayout();
    if (!suffix.isEmpty() && fitsAlongAxis(suffix))
        m_axisY->setTitleText(suffix);
}

void TimeSeriesChart::relayout()
{
    // The plot area follows the titles only when the chart's layout runs: run it now so that the
    // next fit is judged on the height the plot will have.
    if (QGraphicsLayout* layout = m_chart->layout())
        layout->activate();
}

QString TimeSeriesChart::valueAxisTitle() const
{
    return m_axisY->titleText();
}

std::pair<double, QString> TimeSeriesChart::scaleFor(double maxValue) const
{
    switch (m_unit) {
    case Unit::Bytes: {
        const core::ByteUnit unit = core::byteUnitFor(maxValue);
        return { unit.bytes, QString::fromLatin1(unit.name) };
    }
    case Unit::Count:
        if (maxValue >= 1e9)
            return { 1e9, tr("billions") };
        if (maxValue >= 1e6)
            return { 1e6, tr("millions") };
        if (maxValue >= 1e4)
            return { 1e3, tr("thousands") };
        return { 1, QString() };
    case Unit::Percent: return { 1, tr("%") };
    case Unit::PerSecond: return { 1, tr("per second") };
    case Unit::Milliseconds: return { 1, tr("ms") };
    }
    return { 1, QString() };
}

bool TimeSeriesChart::exportTo(const QString& path, QString* error)
{
    const auto fail = [&](const QString& reason) {
        if (error)
            *error = reason;
        return false;
    };
    // A widget that was never shown has not laid out its view yet.
    layout()->activate();
    pushToPlot();
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("png")) {
        if (!m_view->grab().save(path, "PNG"))
            return fail(tr("Could not write the image %1.").arg(path));
        return true;
    }
    if (suffix != QLatin1String("pdf"))
        return fail(tr("Cannot export to %1: choose a file name ending in .png or .pdf.").arg(path));

    QPdfWriter writer(path);
    writer.setCreator(QStringLiteral("Shardmap"));
    writer.setTitle(m_valueTitle);
    writer.setPageSize(QPageSize(QSizeF(m_view->size()), QPageSize::Point));
    writer.setPageMargins(QMarginsF(0, 0, 0, 0));
    QPainter painter;
    if (!painter.begin(&writer))
        return fail(tr("Could not write the PDF file %1.").arg(path));
    // QGraphicsView::render draws the scene's items with the painter: vectors, not a bitmap.
    m_view->render(&painter, QRectF(painter.viewport()), m_view->viewport()->rect());
    if (!painter.end())
        return fail(tr("Could not write the PDF file %1.").arg(path));
    return true;
}

} // namespace shardmap::widgets
