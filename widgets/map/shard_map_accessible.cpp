// The shard map's accessible interfaces: the view, and one item per lane or tile by its model index.
#include "widgets/map/shard_map_accessible.h"

#include "widgets/map/shard_map_model.h"
#include "widgets/map/shard_map_view.h"

#include <QAccessible>
#include <QAccessibleWidget>
#include <QHash>
#include <QItemSelectionModel>
#include <QPersistentModelIndex>
#include <QPointer>
#include <QWindow>

namespace shardmap::widgets {

namespace {

class ViewAccessible;

// A lane or a tile of the view, by its model index.
class ItemAccessible final : public QAccessibleInterface {
public:
    ItemAccessible(ShardMapView* view, const QModelIndex& index)
        : m_view(view)
        , m_index(index)
    {
    }

    bool isValid() const override { return m_view && m_index.isValid(); }
    QObject* object() const override { return nullptr; }
    QWindow* window() const override { return m_view ? m_view->window()->windowHandle() : nullptr; }
    QAccessibleInterface* focusChild() const override { return nullptr; }
    QAccessibleInterface* childAt(int x, int y) const override;
    QAccessibleInterface* parent() const override;
    QAccessibleInterface* child(int index) const override;
    int childCount() const override { return isLane() ? m_view->model()->rowCount(m_index) : 0; }
    int indexOfChild(const QAccessibleInterface* child) const override;
    QString text(QAccessible::Text t) const override
    {
        if (!isValid())
            return {};
        switch (t) {
        case QAccessible::Name: return m_index.data(Qt::ToolTipRole).toString();
        case QAccessible::Description: {
            if (!isLane())
                return {};
            const double fill = m_index.data(ShardMapModel::FillRole).toDouble();
            return fill < 0 ? QString() : ShardMapView::tr("%1% of its capacity").arg(qRound(fill * 100));
        }
        default: return {};
        }
    }
    void setText(QAccessible::Text, const QString&) override { }
    QRect rect() const override
    {
        if (!isValid())
            return {};
        const QRect local
            = isLane() ? m_view->laneRect(m_index.data(ShardMapModel::IdRole).toString()) : m_view->visualRect(m_index);
        return QRect(m_view->viewport()->mapToGlobal(local.topLeft()), local.size());
    }
    QAccessible::Role role() const override { return isLane() ? QAccessible::TreeItem : QAccessible::ListItem; }
    QAccessible::State state() const override
    {
        QAccessible::State state;
        if (!isValid()) {
            state.invalid = true;
            return state;
        }
        state.selectable = !isLane();
        state.focusable = true;
        if (m_view->selectionModel()) {
            state.selected = m_view->selectionModel()->isSelected(m_index);
            state.focused = m_view->selectionModel()->currentIndex() == QModelIndex(m_index);
        }
        state.expandable = isLane();
        state.expanded = isLane();
        return state;
    }

private:
    bool isLane() const { return !m_index.parent().isValid(); }

    QPointer<ShardMapView> m_view;
    QPersistentModelIndex m_index;
};

// The item interfaces are registered once per index and reused, as Qt expects of children.
QAccessibleInterface* itemFor(ShardMapView* view, const QModelIndex& index)
{
    static QHash<QPersistentModelIndex, QAccessible::Id> ids;
    if (!index.isValid())
        return nullptr;
    const QPersistentModelIndex key(index);
    if (const auto found = ids.constFind(key); found != ids.constEnd()) {
        if (QAccessibleInterface* known = QAccessible::accessibleInterface(*found); known && known->isValid())
            return known;
    }
    auto* created = new ItemAccessible(view, index);
    ids.insert(key, QAccessible::registerAccessibleInterface(created));
    return created;
}

QAccessibleInterface* ItemAccessible::parent() const
{
    if (!isValid())
        return nullptr;
    return isLane() ? QAccessible::queryAccessibleInterface(m_view.data()) : itemFor(m_view, m_index.parent());
}

QAccessibleInterface* ItemAccessible::child(int index) const
{
    if (!isValid() || !isLane())
        return nullptr;
    return itemFor(m_view, m_view->model()->index(index, 0, m_index));
}

int ItemAccessible::indexOfChild(const QAccessibleInterface* child) const
{
    for (int i = 0; i < childCount(); ++i) {
        if (this->child(i) == child)
            return i;
    }
    return -1;
}

QAccessibleInterface* ItemAccessible::childAt(int x, int y) const
{
    if (!isValid() || !isLane())
        return nullptr;
    const QModelIndex at = m_view->indexAt(m_view->viewport()->mapFromGlobal(QPoint(x, y)));
    return at.isValid() && at.parent() == QModelIndex(m_index) ? itemFor(m_view, at) : nullptr;
}

// The view: a tree whose top-level items are the lanes.
class ViewAccessible final : public QAccessibleWidget {
public:
    explicit ViewAccessible(ShardMapView* view)
        : QAccessibleWidget(view, QAccessible::Tree)
    {
    }

    ShardMapView* view() const { return static_cast<ShardMapView*>(widget()); }
    int childCount() const override { return view()->model() ? view()->model()->rowCount() : 0; }
    QAccessibleInterface* child(int index) const override
    {
        return view()->model() ? itemFor(view(), view()->model()->index(index, 0)) : nullptr;
    }
    int indexOfChild(const QAccessibleInterface* child) const override
    {
        for (int i = 0; i < childCount(); ++i) {
            if (this->child(i) == child)
                return i;
        }
        return -1;
    }
    QAccessibleInterface* childAt(int x, int y) const override
    {
        const QModelIndex at = view()->indexAt(view()->viewport()->mapFromGlobal(QPoint(x, y)));
        if (!at.isValid())
            return nullptr;
        return itemFor(view(), at.parent().isValid() ? at.parent() : at);
    }
    QAccessibleInterface* focusChild() const override
    {
        const QModelIndex current = view()->selectionModel() ? view()->selectionModel()->currentIndex() : QModelIndex();
        return current.isValid() ? itemFor(view(), current) : nullptr;
    }
    QString text(QAccessible::Text t) const override
    {
        if (t == QAccessible::Name && view()->accessibleName().isEmpty())
            return ShardMapView::tr("Shard map: %n shard(s)", nullptr, childCount());
        return QAccessibleWidget::text(t);
    }
};

QAccessibleInterface* factory(const QString& className, QObject* object)
{
    if (className == QLatin1String(ShardMapView::staticMetaObject.className()) && object && object->isWidgetType())
        return new ViewAccessible(static_cast<ShardMapView*>(object));
    return nullptr;
}

} // namespace

void installShardMapAccessibility()
{
    static const bool installed = [] {
        QAccessible::installFactory(factory);
        return true;
    }();
    (void)installed;
}

} // namespace shardmap::widgets
