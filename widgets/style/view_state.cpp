// The view state's implementation: restored from QSettings at once, saved half a second after a
// change by a timer the widget owns.

#include "widgets/style/view_state.h"

#include <QHeaderView>
#include <QSettings>
#include <QSplitter>
#include <QTimer>

namespace shardmap::widgets {

namespace {

QString settingsKey(const QString& key)
{
    return QStringLiteral("viewState/") + key;
}

// A single-shot timer owned by the widget that saves its state when it fires.
template <typename Widget> QTimer* saver(Widget* widget, const QString& key)
{
    auto* timer = new QTimer(widget);
    timer->setSingleShot(true);
    timer->setInterval(500);
    QObject::connect(timer, &QTimer::timeout, widget,
        [widget, key] { QSettings().setValue(settingsKey(key), widget->saveState()); });
    return timer;
}

} // namespace

void rememberState(QHeaderView* header, const QString& key)
{
    const QByteArray saved = QSettings().value(settingsKey(key)).toByteArray();
    if (!saved.isEmpty())
        header->restoreState(saved);
    QTimer* timer = saver(header, key);
    const auto later = [timer] { timer->start(); };
    QObject::connect(header, &QHeaderView::sectionResized, timer, later);
    QObject::connect(header, &QHeaderView::sectionMoved, timer, later);
    QObject::connect(header, &QHeaderView::sortIndicatorChanged, timer, later);
}

void rememberState(QSplitter* splitter, const QString& key)
{
    const QByteArray saved = QSettings().value(settingsKey(key)).toByteArray();
    if (!saved.isEmpty())
        splitter->restoreState(saved);
    QTimer* timer = saver(splitter, key);
    QObject::connect(splitter, &QSplitter::splitterMoved, timer, [timer] { timer->start(); });
}

} // namespace shardmap::widgets
