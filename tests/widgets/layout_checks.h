#pragma once

// Whether what a page shows fits it: the columns of its tables and the labels of the navigation,
// measured as drawn (a column narrower than its header or its widest cell, or beyond the view's
// right edge, is clipped).
#include <QAbstractItemView>
#include <QHeaderView>
#include <QListWidget>
#include <QString>
#include <QStringList>

namespace shardmap::testing {

// The columns of view (with its horizontal header) that are cut: "Address: 100 px of 163".
inline QStringList clippedColumns(QAbstractItemView& view, QHeaderView& header)
{
    QStringList clipped;
    const int right = view.viewport()->width();
    for (int section = 0; section < header.count(); ++section) {
        if (header.isSectionHidden(section))
            continue;
        const int needed = std::max(header.sectionSizeHint(section), view.sizeHintForColumn(section));
        const int width = header.sectionSize(section);
        const int end = header.sectionViewportPosition(section) + width;
        if (width < needed || end > right) {
            clipped << QStringLiteral("%1: %2 px of %3, ends at %4 of %5")
                           .arg(header.model()->headerData(section, Qt::Horizontal).toString())
                           .arg(width)
                           .arg(needed)
                           .arg(end)
                           .arg(right);
        }
    }
    return clipped;
}

// The navigation entries whose text does not fit their row.
inline QStringList clippedEntries(QListWidget& list)
{
    QStringList clipped;
    const int margins = 2 * list.style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, &list) + 8;
    for (int row = 0; row < list.count(); ++row) {
        QListWidgetItem* item = list.item(row);
        const int needed = list.iconSize().width() + list.fontMetrics().horizontalAdvance(item->text()) + margins;
        const QRect rect = list.visualItemRect(item);
        const int shown = std::min(rect.right(), list.viewport()->width()) - rect.left();
        if (shown < needed)
            clipped << QStringLiteral("%1: %2 px of %3").arg(item->text()).arg(shown).arg(needed);
    }
    return clipped;
}

} // namespace shardmap::testing
