#pragma once

// How long a lost link waits before it tries again: the first delay, doubled per failure up to
// the cap. One rule for the store's reconnects and the node streams'.

#include <QtGlobal>
#include <algorithm>

namespace shardmap::widgets {

struct ReconnectBackoff {
    int firstMs = 500;
    int maxMs = 15000;

    void set(int first, int max)
    {
        firstMs = std::max(1, first);
        maxMs = std::max(firstMs, max);
    }

    // The wait before the attempt after `failures` failures in a row (1: the first delay).
    int delayMs(int failures) const
    {
        qint64 delay = firstMs;
        for (int i = 1; i < failures && delay < maxMs; ++i) {
            delay *= 2;
        }
        return static_cast<int>(std::min<qint64>(delay, maxMs));
    }
};

} // namespace shardmap::widgets
