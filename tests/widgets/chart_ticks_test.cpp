// Chart axes on round values and times, and axis titles that are not cut (issue 26, point 11).
#include "widgets/charts/load_bars_chart.h"
#include "widgets/charts/nice_ticks.h"
#include "widgets/charts/time_series_chart.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QSignalSpy>
#include <QTest>
#include <QValueAxis>
#include <cmath>
#include <gtest/gtest.h>

namespace shardmap::widgets {
namespace {

// Whether value is a whole multiple of 1, 2, 2.5 or 5 times a power of ten below it.
bool isRoundStep(double step)
{
    const double power = std::pow(10.0, std::floor(std::log10(step)));
    const double factor = step / power;
    for (const double nice : { 1.0, 2.0, 2.5, 5.0, 10.0 }) {
        if (std::abs(factor - nice) < 1e-9)
            return true;
    }
    return false;
}

void expectRoundTicks(const QValueAxis& axis)
{
    ASSERT_GE(axis.tickCount(), 2);
    const double step = (axis.max() - axis.min()) / (axis.tickCount() - 1);
    EXPECT_TRUE(isRoundStep(step)) << step;
    EXPECT_NEAR(std::remainder(axis.min(), step), 0, 1e-9) << axis.min() << " is a tick";
}

TEST(NiceTicks, ValuesFallOnRoundNumbers)
{
    const NiceScale scale = niceValueScale(0, 6.7);
    EXPECT_DOUBLE_EQ(scale.min, 0);
    EXPECT_DOUBLE_EQ(scale.max, 8);
    EXPECT_DOUBLE_EQ(scale.step, 2);
    EXPECT_EQ(scale.tickCount, 5);
    for (const double high : { 0.37, 1.0, 5.02, 73.0, 1234.5, 98765.0 }) {
        const NiceScale any = niceValueScale(0, high);
        EXPECT_TRUE(isRoundStep(any.step)) << high;
        EXPECT_GE(any.max, high);
        EXPECT_LE(any.tickCount, 6) << high;
    }
    EXPECT_EQ(decimalsFor(2.5), 1);
    EXPECT_EQ(decimalsFor(0.25), 2);
    EXPECT_EQ(decimalsFor(50), 0);
}

TEST(NiceTicks, TimesFallOnWholeMinutesAndHoursOfTheLocalClock)
{
    const qint64 from = QDateTime(QDate(2026, 12, 2), QTime(11, 33, 17)).toMSecsSinceEpoch();
    const qint64 day = 24 * 3600 * 1000LL;
    const NiceTimeScale scale = niceTimeScale(from, from + day);
    EXPECT_LE(scale.tickCount, 7);
    EXPECT_LE(scale.fromMs, from);
    EXPECT_GE(scale.toMs, from + day);
    for (int tick = 0; tick < scale.tickCount; ++tick) {
        const QTime time = QDateTime::fromMSecsSinceEpoch(scale.fromMs + tick * scale.stepMs).time();
        EXPECT_EQ(time.minute(), 0) << time.toString().toStdString();
        EXPECT_EQ(time.second(), 0);
    }
    const NiceTimeScale minutes = niceTimeScale(from, from + 5 * 60 * 1000);
    EXPECT_EQ(QDateTime::fromMSecsSinceEpoch(minutes.fromMs).time().second(), 0);
    EXPECT_LE(minutes.tickCount, 7);
}

TEST(NiceTicks, TheChartsUseThemAndTheirValueTitlesAreNotCut)
{
    TimeSeriesChart chart;
    chart.setUnit(TimeSeriesChart::Unit::PerSecond);
    chart.setValueTitle(QStringLiteral("Fleet writes and searches"));
    chart.resize(500, 160);
    chart.show();
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    chart.setSlidingWindow(24 * 3600 * 1000LL);
    chart.setSeries(QStringLiteral("writes"), QStringLiteral("Writes/s"),
        { { now - 3600 * 1000, 1.3 }, { now - 1800 * 1000, 6.7 }, { now, 3.1 } });
    QApplication::processEvents();
    chart.flushNow();
    QChart* plot = chart.findChild<QChartView*>()->chart();
    auto* values = qobject_cast<QValueAxis*>(plot->axes(Qt::Vertical).value(0));
    auto* times = qobject_cast<QDateTimeAxis*>(plot->axes(Qt::Horizontal).value(0));
    ASSERT_TRUE(values && times);
    expectRoundTicks(*values);
    const qint64 step
        = (times->max().toMSecsSinceEpoch() - times->min().toMSecsSinceEpoch()) / (times->tickCount() - 1);
    for (int tick = 0; tick < times->tickCount(); ++tick)
        EXPECT_EQ(times->min().addMSecs(tick * step).time().minute(), 0);
    // 160 px is too short for the whole title along the axis: the axis names the unit, the
    // chart's title says what is plotted.
    const QFontMetrics metrics(values->titleFont());
    EXPECT_LE(metrics.horizontalAdvance(chart.valueAxisTitle()), static_cast<int>(plot->plotArea().height()))
        << chart.valueAxisTitle().toStdString();
    EXPECT_EQ(plot->title(), QStringLiteral("Fleet writes and searches (per second)"));
    // Trying the titles moves the plot area; that must not schedule the chart again and again.
    QSignalSpy repaints(&chart, &TimeSeriesChart::repainted);
    QTest::qWait(1000);
    EXPECT_LE(repaints.count(), 1);

    chart.resize(500, 600);
    QApplication::processEvents();
    chart.flushNow();
    EXPECT_EQ(chart.valueAxisTitle(), QStringLiteral("Fleet writes and searches (per second)")) << "room: on the axis";

    LoadBarsChart bars;
    core::ShardOutcome shard;
    shard.shard = "s0";
    shard.before.bytes = 1.67 * 1024 * 1024;
    shard.after.bytes = 5.02 * 1024 * 1024;
    bars.setOutcomes({ shard });
    expectRoundTicks(*qobject_cast<QValueAxis*>(bars.chart()->axes(Qt::Vertical).value(0)));
}

} // namespace
} // namespace shardmap::widgets
