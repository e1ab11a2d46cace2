// ShardMapView's implementation: lanes laid out only when painted or asked about, tiles sized and
// coloured, scrolling and zoom, and the drag's refusals drawn on the lanes.
#include "widgets/map/shard_map_view.h"

#include "widgets/map/shard_map_accessible.h"
#include "widgets/style/format.h"

#include <QDragEnterEvent>
#include <QLocale>
#include <QMimeData>
#include <QPainter>
#include <QScrollBar>
#include <QWheelEvent>
#include <algorithm>

namespace shardmap::widgets {

namespace {

constexpr int kNodeHeaderHeight = 22;
constexpr int kLaneHeight = 66;
constexpr int kLaneGap = 4;
constexpr int kHeaderWidth = 190;
constexpr int kMinTileWidth = 26;
constexpr int kAggregateWidth = 96;
constexpr int kTileGap = 2;
constexpr double kMinZoom = 0.25;
constexpr double kMaxZoom = 64.0;

QString amount(qulonglong value, ShardMapModel::SizeBy sizeBy)
{
    if (sizeBy == ShardMapModel::SizeBy::Bytes)
        return formatBytes(value);
    return ShardMapView::tr("%1 docs").arg(QLocale().toString(value));
}

} // namespace

ShardMapView::ShardMapView(QWidget* parent)
    : QAbstractItemView(parent)
{
    installShardMapAccessibility();
    setSelectionMode(ExtendedSelection);
    setDragDropMode(DragDrop);
    setDefaultDropAction(Qt::MoveAction);
    setDragEnabled(true);
    setAcceptDrops(true);
    viewport()->setAcceptDrops(true);
    setMouseTracking(true);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
}

void ShardMapView::setModel(QAbstractItemModel* model)
{
    if (m_model)
        disconnect(m_model, nullptr, this, nullptr);
    QAbstractItemView::setModel(model);
    m_model = qobject_cast<ShardMapModel*>(model);
    if (!m_model)
        return;
    for (auto signal : { &QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved })
        connect(m_model, signal, this, &ShardMapView::invalidateLayout);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &ShardMapView::onDataChanged);
    connect(m_model, &QAbstractItemModel::modelReset, this, &ShardMapView::invalidateLayout);
    invalidateLayout();
}

void ShardMapView::invalidateLayout()
{
    m_layoutDirty = true;
    viewport()->update();
}

void ShardMapView::onDataChanged(const QModelIndex& topLeft, const QModelIndex& bottomRight, const QList<int>& roles)
{
    // Lanes' own figures (fill, projections, every half second for every sampled lane) are
    // painted, not laid out: the geometry stays unless a lane's shard or node changed.
    const bool placement
        = roles.isEmpty() || roles.contains(ShardMapModel::IdRole) || roles.contains(ShardMapModel::NodeRole);
    if (!m_layoutDirty && !topLeft.parent().isValid() && !placement) {
        if (lanesOnScreen(topLeft.row(), bottomRight.row()))
            viewport()->update();
        return;
    }
    // New figures for some of a lane's spaces: that lane's tiles only (a node's sample each
    // second touches its lanes; the other 10,000 keep their tiles).
    const QModelIndex lane = topLeft.parent();
    if (!m_layoutDirty && lane.isValid() && lane == bottomRight.parent()
        && static_cast<std::size_t>(lane.row()) < m_lanes.size()) {
        LaneGeometry& geometry = m_lanes[static_cast<std::size_t>(lane.row())];
        geometry.tilesReady = false;
        geometry.shown.clear();
        geometry.aggregate = {};
        geometry.aggregated.clear();
        // Forty nodes' samples a second touch lanes all over the map; only those on screen
        // are painted again.
        if (lanesOnScreen(lane.row(), lane.row()))
            viewport()->update();
        return;
    }
    invalidateLayout();
}

bool ShardMapView::lanesOnScreen(int first, int last) const
{
    const QRect visible = viewport()->rect().translated(horizontalOffset(), verticalOffset());
    last = std::min(last, static_cast<int>(m_lanes.size()) - 1);
    for (int row = std::max(0, first); row <= last; ++row) {
        const QRect& rect = m_lanes[static_cast<std::size_t>(row)].rect;
        if (rect.top() > visible.bottom())
            return false; // lanes are laid out top to bottom
        if (rect.intersects(visible))
            return true;
    }
    return false;
}

void ShardMapView::setZoom(double zoom)
{
    zoom = std::clamp(zoom, kMinZoom, kMaxZoom);
    if (zoom == m_zoom)
        return;
    m_zoom = zoom;
    invalidateLayout();
    updateScrollBars();
}

void ShardMapView::layoutIfNeeded() const
{
    if (m_layoutDirty)
        doLayout();
}

void ShardMapView::doLayout() const
{
    m_layoutDirty = false;
    m_lanes.clear();
    m_nodes.clear();
    m_laneByShard.clear();
    if (!m_model)
        return;
    m_lanes.reserve(static_cast<std::size_t>(m_model->rowCount()));
    m_laneByShard.reserve(m_model->rowCount());
    const int tilesWidth = static_cast<int>(std::max(200, viewport()->width() - kHeaderWidth - 8) * m_zoom);
    int y = 0;
    QString node;
    for (int row = 0; row < m_model->rowCount(); ++row) {
        const QModelIndex laneIndex = m_model->index(row, 0);
        const QString laneNode = laneIndex.data(ShardMapModel::NodeRole).toString();
        if (laneNode != node || row == 0) {
            node = laneNode;
            m_nodes.push_back({ node, QRect(0, y, kHeaderWidth + tilesWidth + 8, kNodeHeaderHeight) });
            y += kNodeHeaderHeight;
        }
        LaneGeometry lane;
        lane.shard = laneIndex.data(ShardMapModel::IdRole).toString();
        lane.node = laneNode;
        lane.row = row;
        lane.rect = QRect(0, y, kHeaderWidth + tilesWidth + 8, kLaneHeight);
        lane.header = QRect(0, y, kHeaderWidth, kLaneHeight);
        lane.tiles = QRect(kHeaderWidth + 4, y + 4, tilesWidth, kLaneHeight - 8);
        m_laneByShard.insert(lane.shard, static_cast<int>(m_lanes.size()));
        m_lanes.push_back(std::move(lane));
        y += kLaneHeight + kLaneGap;
    }
    m_contentSize = QSize(kHeaderWidth + tilesWidth + 8, y);
    const_cast<ShardMapView*>(this)->updateScrollBars();
}

void ShardMapView::layoutTiles(LaneGeometry& lane) const
{
    const QModelIndex laneIndex = m_model->index(lane.row, 0);
    struct Item {
        QModelIndex index;
        double weight;
    };
    std::vector<Item> items;
    double total = 0;
    for (int child = 0; child < m_model->rowCount(laneIndex); ++child) {
        const QModelIndex index = m_model->index(child, 0, laneIndex);
        // Spaces without figures yet count as one unit, so that a fresh map is still readable.
        const double weight = std::max(1.0, index.data(ShardMapModel::SizeRole).toDouble());
        items.push_back({ index, weight });
        total += weight;
    }
    std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.weight > b.weight; });
    const int width = lane.tiles.width();
    std::size_t shownCount = items.size();
    double shownTotal = total;
    // Small tiles from the end go into the aggregate until every shown tile is readable.
    while (shownCount > 0) {
        const int room = shownCount < items.size() ? width - kAggregateWidth - kTileGap : width;
        const double last = items[shownCount - 1].weight / shownTotal * room;
        if (last >= kMinTileWidth)
            break;
        --shownCount;
        shownTotal -= items[shownCount].weight;
    }
    const int room = shownCount < items.size() ? width - kAggregateWidth - kTileGap : width;
    int x = lane.tiles.left();
    for (std::size_t i = 0; i < shownCount; ++i) {
        const int w = std::max(kMinTileWidth / 2, static_cast<int>(items[i].weight / shownTotal * room) - kTileGap);
        lane.shown.push_back(
            { QPersistentModelIndex(items[i].index), QRect(x, lane.tiles.top(), w, lane.tiles.height()) });
        x += w + kTileGap;
    }
    if (shownCount < items.size()) {
        lane.aggregate
            = QRect(x, lane.tiles.top(), std::max(kAggregateWidth, lane.tiles.right() - x), lane.tiles.height());
        for (std::size_t i = shownCount; i < items.size(); ++i)
            lane.aggregated.push_back(items[i].index.data(ShardMapModel::IdRole).toString());
    }
}

const ShardMapView::LaneGeometry& ShardMapView::laidOut(std::size_t lane) const
{
    LaneGeometry& geometry = m_lanes[lane];
    if (!geometry.tilesReady) {
        layoutTiles(geometry);
        geometry.tilesReady = true;
    }
    return geometry;
}

int ShardMapView::laidOutLanes() const
{
    layoutIfNeeded();
    return static_cast<int>(
        std::count_if(m_lanes.begin(), m_lanes.end(), [](const LaneGeometry& lane) { return lane.tilesReady; }));
}

int ShardMapView::laneIndexOf(const QString& shardId) const
{
    layoutIfNeeded();
    return m_laneByShard.value(shardId, -1);
}

void ShardMapView::updateScrollBars()
{
    horizontalScrollBar()->setPageStep(viewport()->width());
    horizontalScrollBar()->setRange(0, std::max(0, m_contentSize.width() - viewport()->width()));
    verticalScrollBar()->setPageStep(viewport()->height());
    verticalScrollBar()->setSingleStep(kLaneHeight / 2);
    verticalScrollBar()->setRange(0, std::max(0, m_contentSize.height() - viewport()->height()));
}

QPoint ShardMapView::toContent(const QPoint& viewportPoint) const
{
    return viewportPoint + QPoint(horizontalOffset(), verticalOffset());
}

QRect ShardMapView::toViewport(const QRect& contentRect) const
{
    return contentRect.translated(-horizontalOffset(), -verticalOffset());
}

const ShardMapView::LaneGeometry* ShardMapView::laneAtPoint(const QPoint& viewportPoint) const
{
    layoutIfNeeded();
    const QPoint point = toContent(viewportPoint);
    // Lanes are laid out top to bottom: the last one starting at or above the point.
    const auto after = std::upper_bound(
        m_lanes.begin(), m_lanes.end(), point.y(), [](int y, const LaneGeometry& lane) { return y < lane.rect.top(); });
    if (after == m_lanes.begin())
        return nullptr;
    const std::size_t lane = static_cast<std::size_t>(after - m_lanes.begin()) - 1;
    return m_lanes[lane].rect.contains(point) ? &laidOut(lane) : nullptr;
}

QRect ShardMapView::laneRect(const QString& shardId) const
{
    const int lane = laneIndexOf(shardId);
    return lane < 0 ? QRect() : toViewport(m_lanes[static_cast<std::size_t>(lane)].rect);
}

QStringList ShardMapView::aggregatedSpaces(const QString& shardId) const
{
    const int lane = laneIndexOf(shardId);
    return lane < 0 ? QStringList() : laidOut(static_cast<std::size_t>(lane)).aggregated;
}

QRect ShardMapView::visualRect(const QModelIndex& index) const
{
    if (!index.isValid() || !m_model)
        return {};
    const int found = laneIndexOf(m_model->laneOf(index).data(ShardMapModel::IdRole).toString());
    if (found < 0)
        return {};
    if (!index.parent().isValid())
        return toViewport(m_lanes[static_cast<std::size_t>(found)].rect);
    const LaneGeometry& lane = laidOut(static_cast<std::size_t>(found));
    for (const Tile& tile : lane.shown) {
        if (tile.index == index)
            return toViewport(tile.rect);
    }
    return toViewport(lane.aggregate);
}

void ShardMapView::scrollTo(const QModelIndex& index, ScrollHint)
{
    const QRect rect = visualRect(index);
    if (!rect.isValid())
        return;
    const QRect area = viewport()->rect();
    if (rect.left() < 0 || rect.right() > area.right())
        horizontalScrollBar()->setValue(
            horizontalOffset() + rect.left() - std::max(0, (area.width() - rect.width()) / 2));
    if (rect.top() < 0 || rect.bottom() > area.bottom())
        verticalScrollBar()->setValue(verticalOffset() + rect.top() - std::max(0, (area.height() - rect.height()) / 2));
    viewport()->update();
}

bool ShardMapView::scrollToSpace(const QString& spaceId)
{
    if (!m_model)
        return false;
    const QModelIndex index = m_model->spaceIndex(spaceId);
    if (!index.isValid())
        return false;
    const QString shard = m_model->laneOf(index).data(ShardMapModel::IdRole).toString();
    while (aggregatedSpaces(shard).contains(spaceId) && m_zoom < kMaxZoom)
        setZoom(m_zoom * 2);
    m_highlight = spaceId;
    setCurrentIndex(index);
    if (selectionModel())
        selectionModel()->select(index, QItemSelectionModel::ClearAndSelect);
    scrollTo(index);
    viewport()->update();
    return true;
}

QModelIndex ShardMapView::indexAt(const QPoint& point) const
{
    const LaneGeometry* lane = laneAtPoint(point);
    if (!lane)
        return {};
    const QPoint content = toContent(point);
    for (const Tile& tile : lane->shown) {
        if (tile.rect.contains(content))
            return tile.index;
    }
    return m_model->index(lane->row, 0);
}

QModelIndex ShardMapView::moveCursor(CursorAction cursorAction, Qt::KeyboardModifiers)
{
    layoutIfNeeded();
    const QModelIndex current = currentIndex();
    const int found = current.isValid() && current.parent().isValid()
        ? laneIndexOf(m_model->laneOf(current).data(ShardMapModel::IdRole).toString())
        : -1;
    if (found >= 0) {
        const auto l = static_cast<std::size_t>(found);
        const auto& shown = laidOut(l).shown;
        for (std::size_t t = 0; t < shown.size(); ++t) {
            if (shown[t].index != current)
                continue;
            switch (cursorAction) {
            case MoveRight:
            case MoveNext: return t + 1 < shown.size() ? QModelIndex(shown[t + 1].index) : current;
            case MoveLeft:
            case MovePrevious: return t > 0 ? QModelIndex(shown[t - 1].index) : current;
            case MoveDown:
                for (std::size_t next = l + 1; next < m_lanes.size(); ++next) {
                    if (!laidOut(next).shown.empty())
                        return m_lanes[next].shown.front().index;
                }
                return current;
            case MoveUp:
                for (std::size_t prev = l; prev-- > 0;) {
                    if (!laidOut(prev).shown.empty())
                        return m_lanes[prev].shown.front().index;
                }
                return current;
            default: return current;
            }
        }
    }
    for (std::size_t l = 0; l < m_lanes.size(); ++l) {
        if (!laidOut(l).shown.empty())
            return m_lanes[l].shown.front().index;
    }
    return {};
}

int ShardMapView::horizontalOffset() const
{
    return horizontalScrollBar()->value();
}

int ShardMapView::verticalOffset() const
{
    return verticalScrollBar()->value();
}

bool ShardMapView::isIndexHidden(const QModelIndex&) const
{
    return false;
}

void ShardMapView::setSelection(const QRect& rect, QItemSelectionModel::SelectionFlags command)
{
    layoutIfNeeded();
    const QRect content = rect.normalized().translated(horizontalOffset(), verticalOffset());
    QItemSelection selection;
    for (std::size_t l = 0; l < m_lanes.size(); ++l) {
        if (!m_lanes[l].rect.intersects(content))
            continue;
        const LaneGeometry& lane = laidOut(l);
        for (const Tile& tile : lane.shown) {
            if (tile.rect.intersects(content))
                selection.select(tile.index, tile.index);
        }
        if (lane.aggregate.isValid() && lane.aggregate.intersects(content)) {
            for (const QString& id : lane.aggregated) {
                const QModelIndex index = m_model->spaceIndex(id);
                selection.select(index, index);
            }
        }
    }
    selectionModel()->select(selection, command);
}

QRegion ShardMapView::visualRegionForSelection(const QItemSelection& selection) const
{
    QRegion region;
    for (const QModelIndex& index : selection.indexes())
        region += visualRect(index);
    return region;
}

void ShardMapView::resizeEvent(QResizeEvent* event)
{
    QAbstractItemView::resizeEvent(event);
    invalidateLayout();
    updateScrollBars();
}

void ShardMapView::wheelEvent(QWheelEvent* event)
{
    if (!(event->modifiers() & Qt::ControlModifier)) {
        QAbstractItemView::wheelEvent(event);
        return;
    }
    const int steps = event->angleDelta().y() / 120;
    if (steps != 0)
        setZoom(m_zoom * (steps > 0 ? 1.25 : 0.8));
    event->accept();
}

bool ShardMapView::viewportEvent(QEvent* event)
{
    if (event->type() == QEvent::MouseButtonDblClick) {
        // A double click on a "+N small spaces" tile zooms in until they are readable.
        const auto* mouse = static_cast<QMouseEvent*>(event);
        const LaneGeometry* lane = laneAtPoint(mouse->position().toPoint());
        if (lane && lane->aggregate.contains(toContent(mouse->position().toPoint()))) {
            setZoom(m_zoom * 2);
            return true;
        }
    }
    return QAbstractItemView::viewportEvent(event);
}

// Drag and drop -------------------------------------------------------------------------------

void ShardMapView::dragEnterEvent(QDragEnterEvent* event)
{
    if (!m_model || ShardMapModel::spacesOf(event->mimeData()).isEmpty()) {
        event->ignore();
        return;
    }
    m_refusals.clear();
    for (int row = 0; row < m_model->rowCount(); ++row) {
        const QModelIndex lane = m_model->index(row, 0);
        m_refusals.insert(lane.data(ShardMapModel::IdRole).toString(), m_model->dropRefusal(event->mimeData(), lane));
    }
    m_dragActive = true;
    emit dragEntered();
    // Accepted as a whole so that moves follow; each move then says whether its lane takes them.
    event->setDropAction(Qt::MoveAction);
    event->accept();
    viewport()->update();
}

bool ShardMapView::acceptDrag(QDropEvent* event)
{
    const LaneGeometry* lane = laneAtPoint(event->position().toPoint());
    m_hoverLane = lane ? lane->shard : QString();
    if (!lane || !m_refusals.value(lane->shard).isEmpty()) {
        event->ignore();
        return false;
    }
    event->setDropAction(Qt::MoveAction);
    event->accept();
    return true;
}

void ShardMapView::dragMoveEvent(QDragMoveEvent* event)
{
    if (!m_dragActive) {
        event->ignore();
        return;
    }
    acceptDrag(event);
    viewport()->update();
}

void ShardMapView::dragLeaveEvent(QDragLeaveEvent* event)
{
    endDrag();
    event->accept();
}

void ShardMapView::dropEvent(QDropEvent* event)
{
    const LaneGeometry* lane = laneAtPoint(event->position().toPoint());
    const QModelIndex target = lane ? m_model->index(lane->row, 0) : QModelIndex();
    endDrag();
    if (!m_model) {
        event->ignore();
        return;
    }
    // The model decides, once, as it takes the drop (the map may have changed since the drag
    // entered).
    const QString refusal = m_model->takeDrop(event->mimeData(), target);
    if (!refusal.isEmpty()) {
        event->ignore();
        if (!ShardMapModel::spacesOf(event->mimeData()).isEmpty())
            emit dropRefused(refusal);
        return;
    }
    event->setDropAction(Qt::MoveAction);
    event->accept();
}

void ShardMapView::endDrag()
{
    m_dragActive = false;
    m_refusals.clear();
    m_hoverLane.clear();
    viewport()->update();
}

// Painting ------------------------------------------------------------------------------------

void ShardMapView::paintEvent(QPaintEvent*)
{
    layoutIfNeeded();
    // Tiles are coloured by their load against the busiest space of the whole map, not of the
    // lanes laid out so far.
    m_maxLoad = m_model ? m_model->maxSpaceLoad() : 0;
    QPainter painter(viewport());
    painter.fillRect(viewport()->rect(), palette().base());
    painter.translate(-horizontalOffset(), -verticalOffset());
    const QRect visible = viewport()->rect().translated(horizontalOffset(), verticalOffset());
    for (const NodeHeader& header : m_nodes) {
        if (!header.rect.intersects(visible))
            continue;
        QFont bold = font();
        bold.setBold(true);
        painter.setFont(bold);
        painter.setPen(palette().color(QPalette::Text));
        painter.drawText(
            header.rect.adjusted(4, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, tr("Node %1").arg(header.node));
    }
    painter.setFont(font());
    for (std::size_t lane = 0; lane < m_lanes.size(); ++lane) {
        if (m_lanes[lane].rect.intersects(visible))
            paintLane(painter, laidOut(lane));
    }
}

void ShardMapView::paintLane(QPainter& painter, const LaneGeometry& lane) const
{
    const QModelIndex laneIndex = m_model->index(lane.row, 0);
    QColor background = palette().color(QPalette::AlternateBase);
    const bool refused = m_dragActive && !m_refusals.value(lane.shard).isEmpty();
    if (m_dragActive)
        background = refused ? QColor(220, 80, 80, 60) : QColor(80, 180, 90, lane.shard == m_hoverLane ? 120 : 60);
    painter.fillRect(lane.rect, background);
    painter.setPen(palette().color(QPalette::Text));
    QFont bold = font();
    bold.setBold(true);
    painter.setFont(bold);
    painter.drawText(lane.header.adjusted(6, 4, -4, 0), Qt::AlignTop | Qt::AlignLeft, laneTitle(laneIndex));
    painter.setFont(font());
    paintCopyHealth(painter, laneIndex, lane.header);
    paintFill(painter, laneIndex, lane.header.adjusted(6, 24, -6, -6));
    for (const Tile& tile : lane.shown)
        paintTile(painter, tile.index, tile.rect);
    if (lane.aggregate.isValid()) {
        painter.fillRect(lane.aggregate, palette().color(QPalette::Mid));
        painter.setPen(palette().color(QPalette::Text));
        painter.drawText(lane.aggregate, Qt::AlignCenter | Qt::TextWordWrap,
            tr("+%n small spaces", nullptr, static_cast<int>(lane.aggregated.size())));
    }
    if (refused) {
        // The reason on the lane itself, where the pointer is.
        painter.fillRect(lane.tiles, QColor(255, 255, 255, 170));
        painter.setPen(QColor(160, 20, 20));
        painter.drawText(lane.tiles, Qt::AlignCenter | Qt::TextWordWrap, m_refusals.value(lane.shard));
    }
}

// A dot in the lane's corner in the colour of its copies' health (issue 30); none for a shard kept
// as one copy.
void ShardMapView::paintCopyHealth(QPainter& painter, const QModelIndex& lane, const QRect& header) const
{
    const int health = lane.data(ShardMapModel::CopyHealthRole).toInt();
    if (health < 0)
        return;
    const QColor colours[] = { QColor(60, 160, 80), QColor(220, 170, 30), QColor(210, 50, 40) };
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setPen(Qt::NoPen);
    painter.setBrush(colours[std::clamp(health, 0, 2)]);
    painter.drawEllipse(QRect(header.right() - 14, header.top() + 6, 9, 9));
    painter.setBrush(Qt::NoBrush);
    painter.setRenderHint(QPainter::Antialiasing, false);
}

QString ShardMapView::laneTitle(const QModelIndex& lane) const
{
    const QString shard = lane.data(ShardMapModel::IdRole).toString();
    if (lane.data(ShardMapModel::StateRole).toString() == QLatin1String("active"))
        return shard;
    return tr("%1 (%2)").arg(shard, lane.data(ShardMapModel::StateTextRole).toString());
}

void ShardMapView::paintFill(QPainter& painter, const QModelIndex& lane, const QRect& rect) const
{
    const double now = lane.data(ShardMapModel::FillRole).toDouble();
    const double projected = lane.data(ShardMapModel::ProjectedFillRole).toDouble();
    const QRect bar(rect.left(), rect.top(), rect.width(), 10);
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawRect(bar);
    if (now >= 0) {
        painter.fillRect(QRect(bar.left(), bar.top(), static_cast<int>(std::min(1.0, now) * bar.width()), bar.height()),
            now > 0.9 ? QColor(210, 70, 60) : QColor(70, 140, 210));
        const int px = bar.left() + static_cast<int>(std::min(1.0, projected) * bar.width());
        painter.setPen(QPen(palette().color(QPalette::Text), 2));
        painter.drawLine(px, bar.top() - 2, px, bar.bottom() + 2);
    }
    painter.setPen(palette().color(QPalette::Text));
    painter.drawText(QRect(rect.left(), bar.bottom() + 2, rect.width(), rect.bottom() - bar.bottom()),
        Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, fillText(lane));
}

QString ShardMapView::fillText(const QModelIndex& lane) const
{
    const auto sizeBy = m_model->sizeBy();
    const double now = lane.data(ShardMapModel::FillRole).toDouble();
    const double projected = lane.data(ShardMapModel::ProjectedFillRole).toDouble();
    const qulonglong current = lane.data(ShardMapModel::SizeRole).toULongLong();
    const qulonglong after = (sizeBy == ShardMapModel::SizeBy::Docs ? lane.data(ShardMapModel::ProjectedDocsRole)
                                                                    : lane.data(ShardMapModel::ProjectedBytesRole))
                                 .toULongLong();
    // "after moves" only when some queued or planned move changes the lane.
    if (current == after)
        return now >= 0 ? tr("%1% full").arg(qRound(now * 100)) : amount(current, sizeBy);
    return now >= 0 ? tr("%1% now, %2% after moves").arg(qRound(now * 100)).arg(qRound(projected * 100))
                    : tr("%1 now, %2 after moves").arg(amount(current, sizeBy), amount(after, sizeBy));
}

QColor ShardMapView::loadColour(double share)
{
    // Green (idle) through yellow to red (the busiest space).
    return QColor::fromHsvF(static_cast<float>(0.33 * (1 - std::clamp(share, 0.0, 1.0))), 0.45f, 0.9f);
}

void ShardMapView::paintTile(QPainter& painter, const QModelIndex& index, const QRect& rect) const
{
    QColor colour = palette().color(QPalette::Midlight);
    if (index.data(ShardMapModel::FiguresKnownRole).toBool()) {
        colour = loadColour(m_maxLoad > 0 ? index.data(ShardMapModel::LoadRole).toDouble() / m_maxLoad : 0);
    }
    painter.fillRect(rect, colour);
    const QString id = index.data(ShardMapModel::IdRole).toString();
    const QString migrating = index.data(ShardMapModel::MigratingToRole).toString();
    const QString planned = index.data(ShardMapModel::PlannedToRole).toString();
    QPen border(QColor(60, 60, 60), 1);
    if (!planned.isEmpty() || !migrating.isEmpty())
        border.setStyle(Qt::DashLine);
    if (selectionModel() && selectionModel()->isSelected(index))
        border = QPen(palette().color(QPalette::Highlight), 3);
    if (id == m_highlight)
        border = QPen(QColor(240, 190, 0), 4);
    painter.setPen(border);
    painter.drawRect(rect.adjusted(0, 0, -1, -1));
    painter.setPen(QColor(20, 20, 20));
    QString label = id;
    if (!migrating.isEmpty())
        label = tr("%1 → %2").arg(id, migrating);
    else if (!planned.isEmpty())
        label = tr("%1 ⇢ %2 (plan)").arg(id, planned);
    const QRect text = rect.adjusted(3, 2, -2, -2);
    const int lines = std::max(1, text.height() / std::max(1, painter.fontMetrics().lineSpacing()));
    painter.drawText(
        text, Qt::AlignLeft | Qt::AlignTop, tileLabelLines(painter.fontMetrics(), label, text.width(), lines));
}

QString ShardMapView::tileLabelLines(const QFontMetrics& metrics, const QString& label, int width, int maxLines)
{
    // Whole words per line, a word too long for the tile elided, the last line elided when the
    // words do not fit: never broken mid-word.
    QStringList lines;
    QString current;
    const QStringList words = label.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    for (int i = 0; i < words.size(); ++i) {
        const QString candidate = current.isEmpty() ? words[i] : current + QLatin1Char(' ') + words[i];
        if (metrics.horizontalAdvance(candidate) <= width || current.isEmpty()) {
            current = candidate;
            continue;
        }
        lines << current;
        current = words[i];
        if (lines.size() == maxLines) {
            current.clear();
            lines.back() = metrics.elidedText(
                lines.back() + QLatin1Char(' ') + words.mid(i).join(QLatin1Char(' ')), Qt::ElideRight, width);
            break;
        }
    }
    if (!current.isEmpty())
        lines << current;
    for (QString& line : lines)
        line = metrics.elidedText(line, Qt::ElideRight, width);
    return lines.join(QLatin1Char('\n'));
}

QString ShardMapView::laneAt(const QPoint& viewportPoint) const
{
    const LaneGeometry* lane = laneAtPoint(viewportPoint);
    return lane ? lane->shard : QString();
}

} // namespace shardmap::widgets
