#pragma once

// Stream and watch handles are destroyed on the pool: their destructors wait for the callbacks
// in flight, which the UI thread must never do.

#include <QThreadPool>
#include <memory>
#include <utility>

namespace shardmap::widgets {

// Takes handle (a unique_ptr or shared_ptr; may be null) and lets a pool thread destroy it.
template <typename Handle> void disposeOnPool(QThreadPool& pool, Handle handle)
{
    if (!handle) {
        return;
    }
    auto shared = std::shared_ptr<typename Handle::element_type>(std::move(handle));
    pool.start([shared]() mutable { shared.reset(); });
}

} // namespace shardmap::widgets
