// ProgressDelegate's implementation: a style's progress bar with the cell's text, or the text alone.
#include "widgets/migrations/progress_delegate.h"

#include "widgets/migrations/migrations_model.h"

#include <QApplication>
#include <QPainter>
#include <QStyle>
#include <QStyleOptionProgressBar>

namespace shardmap::widgets {

ProgressDelegate::ProgressDelegate(QObject* parent)
    : QStyledItemDelegate(parent)
{
}

void ProgressDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    const QVariant progress = index.data(MigrationsModel::ProgressRole);
    if (!progress.isValid() || progress.toDouble() < 0) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    QStyleOptionProgressBar bar;
    bar.rect = option.rect.adjusted(2, 2, -2, -2);
    bar.state = option.state | QStyle::State_Horizontal;
    bar.direction = option.direction;
    bar.fontMetrics = option.fontMetrics;
    bar.palette = option.palette;
    bar.minimum = 0;
    bar.maximum = 1000;
    bar.progress = qRound(progress.toDouble() * 1000);
    bar.text = index.data(Qt::DisplayRole).toString();
    bar.textVisible = true;
    bar.textAlignment = Qt::AlignCenter;
    QStyle* style = option.widget ? option.widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ProgressBar, &bar, painter, option.widget);
}

} // namespace shardmap::widgets
