#pragma once

// The one thread the console lays out and paints reports on (ReportDocument: QTextDocument is
// reentrant, not thread-safe, and a QObject that should live and die on one thread). Serial and
// never expiring, so every document is built, used and destroyed on the same thread; the UI
// thread only posts work to it (widgets/bridge/background.h).

#include <QThreadPool>

namespace shardmap::widgets {

inline QThreadPool& reportThread()
{
    static QThreadPool pool;
    static const bool configured = [] {
        pool.setMaxThreadCount(1);
        pool.setExpiryTimeout(-1);
        return true;
    }();
    (void)configured;
    return pool;
}

} // namespace shardmap::widgets
