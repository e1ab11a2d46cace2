// ComparisonChart's implementation: one QBarSet per series over the categories, rebuilt on every
// setBars().

#include "widgets/charts/comparison_chart.h"

#include "widgets/charts/nice_ticks.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QHorizontalBarSeries>
#include <QValueAxis>
#include <algorithm>

namespace shardmap::widgets {

ComparisonChart::ComparisonChart(QWidget* parent)
    : QChartView(parent)
{
    setRenderHint(QPainter::Antialiasing);
    chart()->setAnimationOptions(QChart::NoAnimation);
    // Beside the bars: below them it took the height the groups' names need.
    chart()->legend()->setAlignment(Qt::AlignRight);
    setMinimumHeight(200);
}

void ComparisonChart::setBars(
    const QString& title, const QStringList& categories, const QList<Series>& series, const QString& axis)
{
    m_categories = categories;
    // Bars run across and the groups down: a category's name has the width of the chart's left
    // side, where under the bars seven strategy names were cut to "plann..." and "rend...".
    // Qt draws the first category at the bottom: appended in reverse, the first is on top, as
    // in the table beside the chart.
    auto* bars = new QHorizontalBarSeries;
    double high = 0;
    for (const auto& [name, values] : series) {
        auto* set = new QBarSet(name);
        for (auto value = values.rbegin(); value != values.rend(); ++value) {
            set->append(*value);
            high = std::max(high, *value);
        }
        bars->append(set);
    }
    QChart* view = chart();
    view->removeAllSeries();
    // removeAxis hands the axis back; it is ours to delete.
    for (QAbstractAxis* existing : view->axes()) {
        view->removeAxis(existing);
        delete existing;
    }
    view->addSeries(bars);
    auto* groups = new QBarCategoryAxis;
    QStringList topDown = categories;
    std::reverse(topDown.begin(), topDown.end());
    groups->append(topDown);
    view->addAxis(groups, Qt::AlignLeft);
    bars->attachAxis(groups);
    auto* values = new QValueAxis;
    const NiceScale scale = niceValueScale(0, high);
    values->setRange(scale.min, scale.max);
    values->setTickCount(scale.tickCount);
    values->setLabelFormat(QStringLiteral("%.%1f").arg(decimalsFor(scale.step)));
    values->setTitleText(axis);
    view->addAxis(values, Qt::AlignBottom);
    bars->attachAxis(values);
    view->setTitle(title);
    view->legend()->setVisible(series.size() > 1);
}

} // namespace shardmap::widgets
