#include "widgets/charts/comparison_chart.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QValueAxis>

namespace shardmap::widgets {

ComparisonChart::ComparisonChart(QWidget* parent)
    : QChartView(parent)
{
    setRenderHint(QPainter::Antialiasing);
    chart()->setAnimationOptions(QChart::NoAnimation);
    chart()->legend()->setAlignment(Qt::AlignBottom);
    setMinimumHeight(200);
}

void ComparisonChart::setBars(
    const QString& title, const QStringList& categories, const QList<Series>& series, const QString& axis)
{
    m_categories = categories;
    auto* bars = new QBarSeries;
    for (const auto& [name, values] : series) {
        auto* set = new QBarSet(name);
        for (double value : values)
            set->append(value);
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
    auto* x = new QBarCategoryAxis;
    x->append(categories);
    view->addAxis(x, Qt::AlignBottom);
    bars->attachAxis(x);
    auto* y = new QValueAxis;
    y->setLabelFormat(QStringLiteral("%.3g"));
    y->setTitleText(axis);
    y->setMin(0);
    view->addAxis(y, Qt::AlignLeft);
    bars->attachAxis(y);
    view->setTitle(title);
    view->legend()->setVisible(series.size() > 1);
}

} // namespace shardmap::widgets
