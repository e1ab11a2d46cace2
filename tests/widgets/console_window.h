#pragma once

#include "widgets/console/main_window.h"
#include "widgets/session/connection_spec.h"

#include <QString>
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

} // namespace shardmap::testing
