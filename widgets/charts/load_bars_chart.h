#pragma once

// A plan's shard loads before and after as bars, on Qt Charts.

#include "core/plan/planner.h"

#include <QChartView>
#include <vector>

QT_BEGIN_NAMESPACE
class QBarSeries;
QT_END_NAMESPACE

namespace shardmap::widgets {

// Bars of every shard's load before and after a plan, side by side (Qt Charts, kept behind this
// one class like TimeSeriesChart). Fleets with many shards show the shards the plan changes
// most, and the title says how many of how many are shown.
class LoadBarsChart : public QChartView {
    Q_OBJECT
public:
    enum class Measure { Bytes, Docs };

    explicit LoadBarsChart(QWidget* parent = nullptr);

    void setOutcomes(const std::vector<core::ShardOutcome>& shards, Measure measure = Measure::Bytes);
    // No bars and no title: nothing planned (or the plan failed).
    void clear();
    // The shards drawn, in order (for tests), and the before/after values of one of them.
    QStringList shownShards() const { return m_shown; }
    std::pair<double, double> values(const QString& shard) const;

    static constexpr int kMostBars = 30;

private:
    void addAxes(QBarSeries* series, double top, const QString& unit);

    QStringList m_shown;
    QList<double> m_before;
    QList<double> m_after;
};

} // namespace shardmap::widgets
