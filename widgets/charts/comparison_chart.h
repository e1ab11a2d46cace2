#pragma once

// Grouped bars for comparisons that are not over time (strategies side by side), on Qt Charts.

#include <QChartView>
#include <QList>
#include <QPair>
#include <QStringList>

namespace shardmap::widgets {

// Grouped bars: one group per category (a strategy), one bar per series (before/after, adding/
// removing), for comparisons that are not over time. Part of the charts layer that keeps Qt
// Charts in one place.
class ComparisonChart : public QChartView {
    Q_OBJECT
public:
    using Series = QPair<QString, QList<double>>;

    explicit ComparisonChart(QWidget* parent = nullptr);

    void setBars(const QString& title, const QStringList& categories, const QList<Series>& series, const QString& axis);
    QStringList categories() const { return m_categories; }

private:
    QStringList m_categories;
};

} // namespace shardmap::widgets
