#pragma once

// The one way the console does work off the UI thread (STYLE "Work off the UI thread"):
// run a function on a pool thread, hand its value back to an object on the UI thread, and drop
// it if that object is gone or has since asked for something newer.

#include <QCoreApplication>
#include <QObject>
#include <QPointer>
#include <QThreadPool>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>

namespace shardmap::widgets {

// Runs fn on the UI thread (the application object's thread) if context still exists then.
// Safe to call from any thread, including gRPC callback threads: nothing is dereferenced here.
template <typename Fn> void postTo(QObject* context, Fn fn)
{
    QPointer<QObject> guard(context);
    QMetaObject::invokeMethod(
        QCoreApplication::instance(),
        [guard, fn = std::move(fn)]() mutable {
            if (guard) {
                fn();
            }
        },
        Qt::QueuedConnection);
}

// Runs work() on a pool thread and done(result) on the UI thread, unless context was destroyed
// meanwhile. work must only touch values it owns (captured copies, shared_ptr to thread-safe
// core objects), never a QObject of the UI thread.
template <typename Work, typename Done> void runInBackground(QThreadPool& pool, QObject* context, Work work, Done done)
{
    QPointer<QObject> guard(context);
    auto shared = std::make_shared<std::pair<Work, Done>>(std::move(work), std::move(done));
    pool.start([guard, shared]() {
        using Value = decltype(shared->first());
        auto value = std::make_shared<Value>(shared->first());
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [guard, shared, value]() {
                if (guard) {
                    shared->second(std::move(*value));
                }
            },
            Qt::QueuedConnection);
    });
}

// Generation ids for requests whose answers may arrive after the question changed: take a
// ticket when asking, check it when the answer arrives, and drop the answer if it is stale.
class Generation {
public:
    std::uint64_t next() { return ++m_current; }
    bool isCurrent(std::uint64_t ticket) const { return ticket == m_current; }
    std::uint64_t current() const { return m_current; }
    // Makes every outstanding ticket stale (the view closed, the connection changed).
    void invalidate() { ++m_current; }

private:
    std::uint64_t m_current = 0;
};

// A read for a view: work() on a pool thread returns a core Result; on the UI thread, only if
// context still exists and no newer read of generation was asked for since, show(value) or
// failed(error). generation must belong to context (it is used only while context lives).
template <typename Work, typename Show, typename Failed>
void readInBackground(QThreadPool& pool, QObject* context, Generation& generation, Work work, Show show, Failed failed)
{
    const auto ticket = generation.next();
    runInBackground(pool, context, std::move(work),
        [&generation, ticket, show = std::move(show), failed = std::move(failed)](const auto& result) {
            if (!generation.isCurrent(ticket))
                return;
            if (!result) {
                failed(result.error());
                return;
            }
            show(*result);
        });
}

} // namespace shardmap::widgets
