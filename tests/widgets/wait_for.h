#pragma once

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QThread>

namespace shardmap::testing {

// Runs the event loop until the condition holds or the limit passes. A wait for something that
// happens asynchronously (a node's stream, a store watch), not a timing assert: the limits are
// generous and only a hang fails.
template <typename Condition> bool waitFor(Condition condition, int limitMs = 60000)
{
    QElapsedTimer timer;
    timer.start();
    while (!condition()) {
        if (timer.elapsed() > limitMs) {
            return false;
        }
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(5);
    }
    return true;
}

} // namespace shardmap::testing
