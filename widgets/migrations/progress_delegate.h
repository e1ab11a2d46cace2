#pragma once

// The migrations table's progress cells, drawn as bars.

#include <QStyledItemDelegate>

namespace shardmap::widgets {

// Draws a progress bar from MigrationsModel::ProgressRole (0..1) with the cell's display text
// on it; cells whose progress is unknown (-1) are drawn as plain text.
class ProgressDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    explicit ProgressDelegate(QObject* parent = nullptr);

    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};

} // namespace shardmap::widgets
