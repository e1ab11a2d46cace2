#pragma once

// Round axis ticks for the console's charts: values on 1, 2, 2.5 and 5 steps, times on whole
// minutes, hours and days.

#include <QtGlobal>

namespace shardmap::widgets {

// Axis ranges whose ticks fall on round values: 0, 2.5, 5, 7.5 rather than 1.67, 3.35, 5.02;
// 12:00, 16:00, 20:00 rather than 11:33, 16:21. Both charts (time series and load bars) use them
// with evenly spaced ticks from min to max, which is how Qt Charts draws a tick count.
struct NiceScale {
    double min = 0;
    double max = 1;
    double step = 1;
    int tickCount = 2;
};

// A range covering [low, high] with about `ticks` ticks, its step 1, 2, 2.5 or 5 times a power of ten.
NiceScale niceValueScale(double low, double high, int ticks = 5);
// The decimals that show every multiple of step exactly (2.5 -> 1, 0.25 -> 2, 50 -> 0).
int decimalsFor(double step);

struct NiceTimeScale {
    qint64 fromMs = 0;
    qint64 toMs = 0;
    qint64 stepMs = 1000;
    int tickCount = 2;
};

// A time range covering [fromMs, toMs] with at most `maxTicks` ticks on whole seconds, minutes or
// hours of the local clock (steps 1, 2, 5, 10, 15, 30 s or min; 1, 2, 3, 4, 6, 12 h; 1, 2, 7 d).
NiceTimeScale niceTimeScale(qint64 fromMs, qint64 toMs, int maxTicks = 7);

} // namespace shardmap::widgets
