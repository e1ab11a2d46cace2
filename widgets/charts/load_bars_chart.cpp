// LoadBarsChart's implementation: the shards the plan changes most, scaled to one byte unit
// (core/util/units.h) on a nice value axis.

#include "widgets/charts/load_bars_chart.h"

#include "core/util/units.h"
#include "widgets/charts/nice_ticks.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace shardmap::widgets {

namespace {

double measured(const core::LoadFigures& load, LoadBarsChart::Measure measure)
{
    return measure == LoadBarsChart::Measure::Bytes ? load.bytes : load.docs;
}

// Bytes in the unit that keeps the axis readable, and its name.
std::pair<double, QString> scaleFor(double largest, LoadBarsChart::Measure measure)
{
    if (measure == LoadBarsChart::Measure::Docs)
        return { 1.0, LoadBarsChart::tr("docs") };
    const core::ByteUnit unit = core::byteUnitFor(largest);
    return { unit.bytes, QString::fromLatin1(unit.name) };
}

} // namespace

LoadBarsChart::LoadBarsChart(QWidget* parent)
    : QChartView(parent)
{
    setRenderHint(QPainter::Antialiasing);
    chart()->setAnimationOptions(QChart::NoAnimation);
    chart()->legend()->setAlignment(Qt::AlignBottom);
    setMinimumHeight(220);
}

namespace {

// At most kMostBars shards, those the plan changes most (ties by id), in id order.
std::vector<const core::ShardOutcome*> barShards(
    const std::vector<core::ShardOutcome>& shards, LoadBarsChart::Measure measure)
{
    std::vector<const core::ShardOutcome*> chosen;
    for (const auto& shard : shards)
        chosen.push_back(&shard);
    constexpr int kMost = LoadBarsChart::kMostBars;
    if (chosen.size() > static_cast<std::size_t>(kMost)) {
        std::partial_sort(chosen.begin(), chosen.begin() + kMost, chosen.end(), [&](const auto* a, const auto* b) {
            const double da = std::abs(measured(a->after, measure) - measured(a->before, measure));
            const double db = std::abs(measured(b->after, measure) - measured(b->before, measure));
            return da != db ? da > db : a->shard < b->shard;
        });
        chosen.resize(static_cast<std::size_t>(kMost));
    }
    std::sort(chosen.begin(), chosen.end(), [](const auto* a, const auto* b) { return a->shard < b->shard; });
    return chosen;
}

} // namespace

void LoadBarsChart::setOutcomes(const std::vector<core::ShardOutcome>& shards, Measure measure)
{
    clear();
    double largest = 0;
    for (const auto* shard : barShards(shards, measure)) {
        m_shown.push_back(QString::fromStdString(shard->shard));
        m_before.push_back(measured(shard->before, measure));
        m_after.push_back(measured(shard->after, measure));
        largest = std::max({ largest, m_before.back(), m_after.back() });
    }
    const auto [scale, unit] = scaleFor(largest, measure);
    auto* before = new QBarSet(tr("Before"));
    auto* after = new QBarSet(tr("After"));
    for (int i = 0; i < m_shown.size(); ++i) {
        before->append(m_before[i] / scale);
        after->append(m_after[i] / scale);
    }
    auto* series = new QBarSeries;
    series->append(before);
    series->append(after);
    chart()->addSeries(series);
    addAxes(series, largest / scale, unit);
    const QString what = measure == Measure::Bytes ? tr("Bytes") : tr("Docs");
    chart()->setTitle(shards.size() > static_cast<std::size_t>(kMostBars)
            ? tr("%1 per shard, before and after: the %2 of %3 shards the plan changes most")
                  .arg(what)
                  .arg(m_shown.size())
                  .arg(shards.size())
            : tr("%1 per shard, before and after").arg(what));
}

// The shards along the bottom, the values on a nice scale up to `top` (in `unit`) on the left.
void LoadBarsChart::addAxes(QBarSeries* series, double top, const QString& unit)
{
    QChart* view = chart();
    auto* categories = new QBarCategoryAxis;
    categories->append(m_shown);
    categories->setLabelsAngle(m_shown.size() > 12 ? -60 : 0);
    view->addAxis(categories, Qt::AlignBottom);
    series->attachAxis(categories);
    auto* values = new QValueAxis;
    const NiceScale scaled = niceValueScale(0, top);
    values->setRange(scaled.min, scaled.max);
    values->setTickCount(scaled.tickCount);
    values->setLabelFormat(QStringLiteral("%.%1f").arg(decimalsFor(scaled.step)));
    values->setTitleText(unit);
    view->addAxis(values, Qt::AlignLeft);
    series->attachAxis(values);
}

void LoadBarsChart::clear()
{
    m_shown.clear();
    m_before.clear();
    m_after.clear();
    QChart* view = chart();
    view->removeAllSeries();
    // removeAxis hands the axis back; it is ours to delete.
    for (QAbstractAxis* axis : view->axes()) {
        view->removeAxis(axis);
        delete axis;
    }
    view->setTitle({});
}

std::pair<double, double> LoadBarsChart::values(const QString& shard) const
{
    const auto index = m_shown.indexOf(shard);
    if (index < 0)
        return { -1, -1 };
    return { m_before[index], m_after[index] };
}

} // namespace shardmap::widgets
