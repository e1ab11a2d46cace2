#pragma once

// The shard map's view: lanes of tiles laid out, painted, zoomed, and dragged and dropped on.

#include "widgets/map/shard_map_model.h"

#include <QAbstractItemView>
#include <QFontMetrics>
#include <QHash>
#include <QPersistentModelIndex>
#include <vector>

namespace shardmap::widgets {

// Paints a ShardMapModel as lanes (one per shard, under a header per node) with a fill bar
// (now, and projected after queued and planned moves) and the shard's spaces as tiles whose
// width follows their docs or bytes and whose colour follows their load. Spaces too small to
// read at the current zoom are aggregated into one "+N small spaces" tile; Ctrl+wheel zooms.
// While spaces are dragged over it, every lane says whether it takes them: tinted green, or
// red with the refusal drawn on the lane. A drop goes to the model (ShardMapModel::takeDrop),
// which checks it once, so the view never decides what may move.
class ShardMapView : public QAbstractItemView {
    Q_OBJECT
public:
    // The shard whose lane is under a point of the viewport (empty: none).
    QString laneAt(const QPoint& viewportPoint) const;
    explicit ShardMapView(QWidget* parent = nullptr);

    void setModel(QAbstractItemModel* model) override;
    ShardMapModel* mapModel() const { return m_model; }

    // Scrolls to the space's tile (zooming in when it is aggregated), selects and highlights it.
    bool scrollToSpace(const QString& spaceId);
    QString highlightedSpace() const { return m_highlight; }

    double zoom() const { return m_zoom; }
    void setZoom(double zoom);

    // During a drag over the view: the refusal of each lane (empty: it takes the spaces).
    bool dragActive() const { return m_dragActive; }
    QString laneRefusal(const QString& shardId) const { return m_refusals.value(shardId); }
    // Where a lane or tile is drawn, in viewport coordinates (for tests and tooltips).
    QRect laneRect(const QString& shardId) const;
    // A tile's label in lines of whole words that fit width, at most maxLines, elided where it
    // does not fit (never broken mid-word).
    static QString tileLabelLines(const QFontMetrics& metrics, const QString& label, int width, int maxLines);
    // The spaces shown in a lane's "+N small spaces" tile (empty: none aggregated).
    QStringList aggregatedSpaces(const QString& shardId) const;
    // How many lanes have their tiles laid out now (for tests and benches: only the lanes
    // painted or asked about should).
    int laidOutLanes() const;
    // What the lane's header says: its shard, and its state unless active, translated ("s2 (wird
    // geleert)").
    QString laneTitle(const QModelIndex& lane) const;
    // What the lane's fill line says: "10 docs", or "10 docs now, 110 docs after moves" when
    // queued or planned moves change it.
    QString fillText(const QModelIndex& lane) const;
    // A tile's colour at a share of the busiest space's load (0..1): what the legend explains.
    static QColor loadColour(double share);

signals:
    // Spaces are dragged over the view (a new action: the page drops an old outcome message).
    void dragEntered();
    // A drop the target lane does not take, and why.
    void dropRefused(const QString& why);

public:
    QRect visualRect(const QModelIndex& index) const override;
    void scrollTo(const QModelIndex& index, ScrollHint hint = EnsureVisible) override;
    QModelIndex indexAt(const QPoint& point) const override;

protected:
    QModelIndex moveCursor(CursorAction cursorAction, Qt::KeyboardModifiers modifiers) override;
    int horizontalOffset() const override;
    int verticalOffset() const override;
    bool isIndexHidden(const QModelIndex& index) const override;
    void setSelection(const QRect& rect, QItemSelectionModel::SelectionFlags command) override;
    QRegion visualRegionForSelection(const QItemSelection& selection) const override;

    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dragMoveEvent(QDragMoveEvent* event) override;
    void dragLeaveEvent(QDragLeaveEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    bool viewportEvent(QEvent* event) override;

private:
    struct Tile {
        QPersistentModelIndex index;
        QRect rect;
    };
    struct LaneGeometry {
        QString shard;
        QString node;
        int row = 0;
        QRect rect; // whole lane, content coordinates
        QRect header;
        QRect tiles;
        // The tiles are laid out when first needed (painted, hit, asked for): a million spaces
        // on 10,000 lanes cost seconds to lay out, a screenful of lanes a few ms.
        bool tilesReady = false;
        std::vector<Tile> shown;
        QRect aggregate;
        QStringList aggregated;
    };
    struct NodeHeader {
        QString node;
        QRect rect;
    };

    void layoutIfNeeded() const;
    void doLayout() const;
    void layoutTiles(LaneGeometry& lane) const;
    // The lane with its tiles laid out.
    const LaneGeometry& laidOut(std::size_t lane) const;
    // The lane of a shard (-1: none).
    int laneIndexOf(const QString& shardId) const;
    void invalidateLayout();
    void onDataChanged(const QModelIndex& topLeft, const QModelIndex& bottomRight, const QList<int>& roles);
    // Whether any lane of rows first..last is (partly) in the viewport.
    bool lanesOnScreen(int first, int last) const;
    const LaneGeometry* laneAtPoint(const QPoint& viewportPoint) const;
    QPoint toContent(const QPoint& viewportPoint) const;
    QRect toViewport(const QRect& contentRect) const;
    void paintLane(QPainter& painter, const LaneGeometry& lane) const;
    void paintTile(QPainter& painter, const QModelIndex& index, const QRect& rect) const;
    void paintFill(QPainter& painter, const QModelIndex& lane, const QRect& rect) const;
    void paintCopyHealth(QPainter& painter, const QModelIndex& lane, const QRect& header) const;
    void updateScrollBars();
    bool acceptDrag(QDropEvent* event);
    void endDrag();

    ShardMapModel* m_model = nullptr;
    double m_zoom = 1.0;
    QString m_highlight;
    bool m_dragActive = false;
    QHash<QString, QString> m_refusals;
    QString m_hoverLane;
    mutable bool m_layoutDirty = true;
    mutable std::vector<LaneGeometry> m_lanes;
    mutable std::vector<NodeHeader> m_nodes;
    mutable QHash<QString, int> m_laneByShard;
    mutable QSize m_contentSize;
    mutable double m_maxLoad = 0;
};

} // namespace shardmap::widgets
