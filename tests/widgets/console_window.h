#pragma once

#include "widgets/console/main_window.h"
#include "widgets/migrations/migrations_page.h"
#include "widgets/session/connection_spec.h"

#include <QPushButton>
#include <QString>
#include <QStringList>
#include <gtest/gtest.h>
#include <string>

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

} // namespace shardmap::testing
