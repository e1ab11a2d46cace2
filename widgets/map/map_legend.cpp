// MapLegend's implementation: the load gradient and each mark painted with its words, in one line.
#include "widgets/map/map_legend.h"

#include "widgets/map/shard_map_view.h"

#include <QLinearGradient>
#include <QPainter>
#include <algorithm>

namespace shardmap::widgets {

namespace {

constexpr int kSwatchHeight = 12;
constexpr int kGradientWidth = 90;
constexpr int kSwatchWidth = 18;
constexpr int kGap = 6;
constexpr int kEntryGap = 18;

} // namespace

MapLegend::MapLegend(QWidget* parent)
    : QWidget(parent)
{
    setAccessibleName(tr("Legend"));
    setAccessibleDescription(tr("Tiles: green idle to red busiest; grey no figures yet; dashed border moving or "
                                "planned. Lane bar: fill, red past 90%, mark after moves."));
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

QList<MapLegend::Entry> MapLegend::entries() const
{
    return { { tr("Load: idle → busiest space"), kGradientWidth }, { tr("No figures yet"), kSwatchWidth },
        { tr("Moving or planned"), kSwatchWidth }, { tr("Shard fill (red past 90%), | after moves"), kSwatchWidth } };
}

QSize MapLegend::sizeHint() const
{
    int width = 0;
    for (const Entry& entry : entries())
        width += entry.swatchWidth + kGap + fontMetrics().horizontalAdvance(entry.text) + kEntryGap;
    return { width, std::max(kSwatchHeight, fontMetrics().height()) + 4 };
}

QRect MapLegend::gradientRect() const
{
    return { 2, (height() - kSwatchHeight) / 2, kGradientWidth, kSwatchHeight };
}

void MapLegend::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    int x = 2;
    const int top = (height() - kSwatchHeight) / 2;
    const QList<Entry> all = entries();
    for (qsizetype i = 0; i < all.size(); ++i) {
        const QRect swatch(x, top, all[i].swatchWidth, kSwatchHeight);
        switch (i) {
        case 0: {
            QLinearGradient gradient(swatch.topLeft(), swatch.topRight());
            for (double stop : { 0.0, 0.5, 1.0 })
                gradient.setColorAt(stop, ShardMapView::loadColour(stop));
            painter.fillRect(swatch, gradient);
            break;
        }
        case 1: painter.fillRect(swatch, palette().color(QPalette::Midlight)); break;
        case 2:
            painter.setPen(QPen(QColor(60, 60, 60), 1, Qt::DashLine));
            painter.drawRect(swatch.adjusted(0, 0, -1, -1));
            break;
        default:
            painter.fillRect(swatch.adjusted(0, 0, -swatch.width() / 2, 0), QColor(70, 140, 210));
            painter.setPen(QPen(palette().color(QPalette::Text), 2));
            painter.drawLine(swatch.center().x() + 3, swatch.top(), swatch.center().x() + 3, swatch.bottom());
        }
        x = swatch.right() + kGap;
        painter.setPen(palette().color(QPalette::Text));
        const int textWidth = fontMetrics().horizontalAdvance(all[i].text);
        painter.drawText(QRect(x, 0, textWidth, height()), Qt::AlignVCenter | Qt::AlignLeft, all[i].text);
        x += textWidth + kEntryGap;
    }
}

} // namespace shardmap::widgets
