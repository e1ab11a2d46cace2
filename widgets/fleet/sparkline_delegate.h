#pragma once

// The fleet tree's sparkline cells: a row's recent values as a small line.

#include <QStyledItemDelegate>

namespace shardmap::widgets {

// Paints FleetModel::HistoryRole (a QList<qreal>, oldest first) as a small line scaled to the
// cell, over the usual background and selection. Draws nothing but the background when there
// are fewer than two values.
class SparklineDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    explicit SparklineDelegate(QObject* parent = nullptr);

    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};

} // namespace shardmap::widgets
