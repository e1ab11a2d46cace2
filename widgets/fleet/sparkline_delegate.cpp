// SparklineDelegate's implementation: the values scaled into the cell as one polyline.

#include "widgets/fleet/sparkline_delegate.h"

#include "widgets/fleet/fleet_model.h"

#include <QApplication>
#include <QPainter>
#include <QPolygonF>
#include <QStyle>
#include <algorithm>

namespace shardmap::widgets {

namespace {

constexpr int kMargin = 3;

// The values as points across rect, the lowest at the bottom, the highest at the top (a flat
// series in the middle).
QPolygonF toPolyline(const QList<qreal>& values, const QRectF& rect)
{
    const auto [minIt, maxIt] = std::minmax_element(values.begin(), values.end());
    const qreal low = *minIt;
    const qreal span = *maxIt - low;
    const qreal step = rect.width() / static_cast<qreal>(values.size() - 1);
    QPolygonF line;
    line.reserve(values.size());
    for (qsizetype i = 0; i < values.size(); ++i) {
        const qreal share = span > 0 ? (values[i] - low) / span : 0.5;
        line << QPointF(rect.left() + step * static_cast<qreal>(i), rect.bottom() - share * rect.height());
    }
    return line;
}

} // namespace

SparklineDelegate::SparklineDelegate(QObject* parent)
    : QStyledItemDelegate(parent)
{
}

void SparklineDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    QStyleOptionViewItem background = option;
    initStyleOption(&background, index);
    background.text.clear();
    const QWidget* widget = option.widget;
    QStyle* style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &background, painter, widget);

    const auto values = index.data(FleetModel::HistoryRole).value<QList<qreal>>();
    const QRectF area = QRectF(option.rect).adjusted(kMargin, kMargin, -kMargin, -kMargin);
    if (values.size() < 2 || area.width() <= 0 || area.height() <= 0) {
        return;
    }
    const bool selected = option.state & QStyle::State_Selected;
    QPen pen(option.palette.color(selected ? QPalette::HighlightedText : QPalette::Highlight));
    pen.setWidthF(1.5);
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(pen);
    painter->drawPolyline(toPolyline(values, area));
    painter->restore();
}

QSize SparklineDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    size.setWidth(std::max(size.width(), 100));
    return size;
}

} // namespace shardmap::widgets
