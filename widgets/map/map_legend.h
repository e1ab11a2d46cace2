#pragma once

// The key to the shard map's colours, borders and fill bars.

#include <QWidget>

namespace shardmap::widgets {

// The key to the shard map's colours, in one line under its toolbar: tiles from green (idle) to
// red (the busiest space), grey while a space has no figures, a dashed border while it moves or
// a plan moves it, and the lane's fill bar (red past 90 %) with its "after moves" mark.
class MapLegend : public QWidget {
    Q_OBJECT
public:
    explicit MapLegend(QWidget* parent = nullptr);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return sizeHint(); }
    // Where the load gradient is drawn (for tests: its ends are ShardMapView::loadColour(0, 1)).
    QRect gradientRect() const;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    struct Entry {
        QString text;
        int swatchWidth;
    };
    QList<Entry> entries() const;
};

} // namespace shardmap::widgets
