#pragma once

#include "widgets/console/main_window.h"
#include "widgets/fleet/fleet_page.h"
#include "widgets/map/map_page.h"
#include "widgets/migrations/migrations_page.h"
#include "widgets/session/connection_spec.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAction>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QTabBar>
#include <QToolBar>
#include <QToolButton>
#include <QWidgetAction>
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

namespace shardmap::testing {

// Shows a console window and connects it to the test's store, with quick reconnects and live
// metrics five times a second.
inline void connectWindow(widgets::MainWindow& window, const std::string& storeUri, int width = 1280, int height = 800)
{
    window.connection()->setReconnectBackoff(100, 500);
    widgets::ConnectionSpec spec;
    spec.storeUri = QString::fromStdString(storeUri);
    spec.metricsIntervalMs = 200;
    window.resize(width, height);
    window.show();
    window.connectTo(spec);
}

// Expects every button of the migrations page that changes something to be disabled with a tooltip
// that contains `why`; returns how many such buttons it found.
inline int expectMigrationActionsDisabled(widgets::MigrationsPage& migrations, const QString& why)
{
    const QStringList actions { QStringLiteral("Pause…"), QStringLiteral("Resume…"), QStringLiteral("Cancel…"),
        QStringLiteral("Roll back…"), QStringLiteral("Set throttle…"), QStringLiteral("Apply…") };
    int checked = 0;
    for (QPushButton* button : migrations.findChildren<QPushButton*>()) {
        const QString text = button->text().remove(QLatin1Char('&'));
        if (!actions.contains(text))
            continue;
        ++checked;
        EXPECT_FALSE(button->isEnabled()) << text.toStdString();
        EXPECT_TRUE(button->toolTip().contains(why)) << text.toStdString();
    }
    return checked;
}

// The context menus a window builds on demand, built for a sweep (owned by the window until the
// sweep ends): a shard row's and a node row's on the fleet page, a shard lane's on the shard map.
struct OnDemandMenus {
    std::vector<std::unique_ptr<QMenu>> menus;

    OnDemandMenus(widgets::MainWindow& window, const QString& node, const QString& shard)
    {
        menus.emplace_back(window.fleetPage()->rowMenu(node, shard, &window));
        menus.emplace_back(window.fleetPage()->rowMenu(node, {}, &window));
        menus.emplace_back(window.mapPage()->laneMenu(shard, &window));
    }
};

// What a window may offer on any connection because it changes only what this console shows or
// keeps: connecting, navigating and finding, exporting, local settings, alerts (acknowledged and
// thresholds kept by this console), plan mode and its draft (saved to a file), the what-if
// simulator, reloading what is shown. Texts without '&'.
inline const QSet<QString>& localOnlyActions()
{
    static const QSet<QString> texts {
        // The File, View, Plan, Settings and Help menus' local entries.
        QStringLiteral("Connect…"),
        QStringLiteral("Recent connections"),
        QStringLiteral("Disconnect"),
        QStringLiteral("New window"),
        QStringLiteral("Export chart…"),
        QStringLiteral("Quit"),
        QStringLiteral("Find space…"),
        QStringLiteral("Fleet"),
        QStringLiteral("Shard detail"),
        QStringLiteral("Shard map"),
        QStringLiteral("Migrations"),
        QStringLiteral("Audit"),
        QStringLiteral("What-if simulator"),
        QStringLiteral("Health thresholds…"),
        QStringLiteral("Preferences…"),
        QStringLiteral("About Shardmap"),
        // The navigation's shortcuts (Ctrl+1 ...), named after their pages.
        QStringLiteral("Overview"),
        QStringLiteral("What-if"),
        QStringLiteral("Alerts"),
        QStringLiteral("Approvals"),
        // Fleet page: filters and health thresholds.
        QStringLiteral("Only problems"),
        QStringLiteral("Thresholds…"),
        // Alerts page: the console's own alert thresholds, in one menu.
        QStringLiteral("Thresholds"),
        QStringLiteral("Migration and shard alerts…"),
        QStringLiteral("Node health…"),
        // Shard detail page: time range, comparison, export.
        QStringLiteral("5 min"),
        QStringLiteral("1 h"),
        QStringLiteral("24 h"),
        QStringLiteral("Compare with…"),
        QStringLiteral("Export…"),
        // Shard map page: plan mode and its draft.
        QStringLiteral("Plan mode"),
        QStringLiteral("Undo"),
        QStringLiteral("Redo"),
        QStringLiteral("Save plan…"),
        QStringLiteral("Open plan…"),
        QStringLiteral("Discard plan"),
        // Migrations page: details and reports.
        QStringLiteral("Details…"),
        QStringLiteral("Export report…"),
        // Audit page, approvals page: reading more or again.
        QStringLiteral("Load older"),
        QStringLiteral("Refresh"),
        // What-if page: a simulation changes nothing.
        QStringLiteral("Simulate"),
        // Alerts page.
        QStringLiteral("Show cleared"),
        QStringLiteral("Acknowledge"),
    };
    return texts;
}

// Sweeps every QAction and QAbstractButton of the window, the on-demand context menus included:
// each one that is not local-only (localOnlyActions; entries of a local-only menu, Qt's own
// buttons) must be disabled with a tooltip that contains `why`. Returns the texts it checked.
inline QStringList expectNoEnabledChange(widgets::MainWindow& window, const QString& why)
{
    const OnDemandMenus onDemand(window, QStringLiteral("n0"), QStringLiteral("s0"));
    const auto plain = [](QString text) { return text.remove(QLatin1Char('&')); };
    // Menus whose entries are local too: the recent connections, the shard detail's comparison.
    QSet<const QMenu*> localMenus;
    for (const QMenu* menu : window.findChildren<QMenu*>()) {
        if (localOnlyActions().contains(plain(menu->title())))
            localMenus.insert(menu);
    }
    for (const QToolButton* button : window.findChildren<QToolButton*>()) {
        if (button->menu() && localOnlyActions().contains(plain(button->text())))
            localMenus.insert(button->menu());
    }
    QStringList checked;
    const auto check = [&](const QObject* object, const QString& text, bool enabled, const QString& toolTip) {
        // Qt's own buttons: named qt_/_q_, or a tab bar's scroll arrows.
        if (object->objectName().startsWith(QStringLiteral("qt_"))
            || object->objectName().startsWith(QStringLiteral("_q_")) || qobject_cast<const QTabBar*>(object->parent()))
            return;
        if (localOnlyActions().contains(text) || text.startsWith(QStringLiteral("Undo "))
            || text.startsWith(QStringLiteral("Redo ")))
            return;
        checked.push_back(text);
        const std::string what = "\"" + text.toStdString() + "\" (" + object->metaObject()->className() + " "
            + object->objectName().toStdString() + " in "
            + (object->parent() ? object->parent()->metaObject()->className() : "nothing") + ")";
        EXPECT_FALSE(enabled) << what << " changes the fleet and is enabled";
        EXPECT_TRUE(toolTip.contains(why)) << what << ": " << toolTip.toStdString();
    };
    for (const QAction* action : window.findChildren<QAction*>()) {
        if (action->isSeparator() || localMenus.contains(qobject_cast<const QMenu*>(action->parent())))
            continue;
        // A menu's own action opens it: its entries are swept. A widget in a tool bar is swept as a
        // widget; a tool bar's own action shows or hides it.
        if (action->menu() || qobject_cast<const QWidgetAction*>(action))
            continue;
        if (const auto* bar = qobject_cast<const QToolBar*>(action->parent()); bar && bar->toggleViewAction() == action)
            continue;
        check(action, plain(action->text()), action->isEnabled(), action->toolTip());
    }
    for (const QAbstractButton* button : window.findChildren<QAbstractButton*>()) {
        // A line edit's clear button is part of the editor, a table's corner button selects all.
        if (qobject_cast<const QLineEdit*>(button->parent())
            || qobject_cast<const QAbstractItemView*>(button->parent()))
            continue;
        check(button, plain(button->text()), button->isEnabled(), button->toolTip());
    }
    return checked;
}

} // namespace shardmap::testing
