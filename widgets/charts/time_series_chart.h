#pragma once

// The console's line chart of time series (the only direct user of Qt Charts' line series).

#include "core/metrics/decimate.h"

#include <QHash>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <QWidget>
#include <utility>
#include <vector>

QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
class QDateTimeAxis;
class QLineSeries;
class QValueAxis;
QT_END_NAMESPACE

namespace shardmap::widgets {

// The console's only use of Qt Charts (deprecated from Qt 6.10; keep it behind this class): a
// line chart of time series, x in ms since the epoch, one line per key.
//
// Callers hand over whole series or appended points at any rate; the chart keeps them and pushes
// them to Qt Charts on a coalescing timer (at most about 15 times a second), decimated to min/max
// per pixel column of the plot and with replace() — QXYSeries::append() on a shown chart is
// quadratic. Animations are off.
class TimeSeriesChart : public QWidget {
    Q_OBJECT
public:
    using Points = std::vector<std::pair<qint64, double>>;

    // How values are labelled. Bytes are scaled to a readable unit (KiB, MiB ...) on the axis.
    enum class Unit { Count, Bytes, Percent, PerSecond, Milliseconds };
    Q_ENUM(Unit)

    explicit TimeSeriesChart(QWidget* parent = nullptr);
    ~TimeSeriesChart() override;

    // Replaces a series' points (sorted by time) or creates the series; label is its legend entry.
    void setSeries(const QString& key, const QString& label, const Points& points);
    // Extends a series with newer points (live data); creates it with key as label if unknown.
    void appendPoints(const QString& key, const Points& points);
    void removeSeries(const QString& key);
    void clear();
    QStringList seriesKeys() const;
    // The series' legend entry ("" for an unknown key).
    QString seriesLabel(const QString& key) const;

    // A fixed x range, or a window of spanMs that ends at the current time at every repaint.
    // Points older than a sliding window are dropped from memory.
    void setTimeRange(qint64 fromMs, qint64 toMs);
    void setSlidingWindow(qint64 spanMs);
    qint64 timeFrom() const;
    qint64 timeTo() const;

    // The y axis: what is plotted ("Resident memory") and its unit.
    void setUnit(Unit unit);
    void setValueTitle(const QString& title);
    Unit unit() const { return m_unit; }
    // The y axis' title as drawn: the value title and unit, or only the unit when the whole
    // title would not fit along the plot (the chart's title then says it).
    QString valueAxisTitle() const;

    // Saves what the chart shows: PNG (a screenshot of the widget) or PDF (vector), chosen by
    // the suffix of path. False with a translated reason in *error when it cannot.
    bool exportTo(const QString& path, QString* error);

    // Pushes pending changes to the plot now instead of at the next timer tick.
    void flushNow();
    // Points of the series as stored, and as drawn (in the QXYSeries, after decimation).
    int storedPointCount(const QString& key) const;
    int pointCount(const QString& key) const;
    // The points as drawn, in the axis' unit (divided by the scale named in the axis title).
    Points drawnPoints(const QString& key) const;
    // Pixel columns of the plot area that the series are decimated to.
    int plotPixelWidth() const;

signals:
    // After changes were pushed to the plot.
    void repainted();

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    struct Series {
        QString label;
        std::vector<core::SeriesPoint> points;
        QLineSeries* line = nullptr;
    };

    void scheduleRepaint();
    void pushToPlot();
    void trimToWindow(Series& series) const;
    void updateRange(qint64& from, qint64& to) const;
    // Divides values for display (bytes to MiB ...) and names the unit for the axis title.
    std::pair<double, QString> scaleFor(double maxValue) const;
    QString unitSuffix() const;
    void updateValueTitle(const QString& suffix);
    void relayout();

    QChart* m_chart = nullptr;
    QChartView* m_view = nullptr;
    QDateTimeAxis* m_axisX = nullptr;
    QValueAxis* m_axisY = nullptr;
    QHash<QString, Series> m_series;
    QStringList m_order;
    QTimer m_repaintTimer;
    // Moves a sliding window on when no data arrives (a quiet or unreachable node).
    QTimer m_slideTimer;
    qint64 m_fixedFrom = 0;
    qint64 m_fixedTo = 0;
    qint64 m_windowMs = 5 * 60 * 1000;
    Unit m_unit = Unit::Count;
    QString m_valueTitle;
};

} // namespace shardmap::widgets
