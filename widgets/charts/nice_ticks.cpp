// The nice ticks' implementation: the step from the raw span, time steps on the local clock.

#include "widgets/charts/nice_ticks.h"

#include <QDateTime>
#include <algorithm>
#include <array>
#include <cmath>

namespace shardmap::widgets {

namespace {

// The smallest of 1, 2, 2.5, 5 x 10^k that is at least raw.
double niceStep(double raw)
{
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double factor : { 1.0, 2.0, 2.5, 5.0, 10.0 }) {
        if (factor * power >= raw * (1 - 1e-9))
            return factor * power;
    }
    return 10 * power;
}

// Local time: whole hours and days are on the local clock, not on UTC.
qint64 localOffsetMs(qint64 ms)
{
    return static_cast<qint64>(QDateTime::fromMSecsSinceEpoch(ms).offsetFromUtc()) * 1000;
}

} // namespace

NiceScale niceValueScale(double low, double high, int ticks)
{
    if (!(high > low))
        high = low + 1;
    NiceScale scale;
    scale.step = niceStep((high - low) / std::max(1, ticks - 1));
    scale.min = std::floor(low / scale.step + 1e-9) * scale.step;
    scale.max = std::ceil(high / scale.step - 1e-9) * scale.step;
    if (scale.max <= scale.min)
        scale.max = scale.min + scale.step;
    scale.tickCount = static_cast<int>(std::lround((scale.max - scale.min) / scale.step)) + 1;
    return scale;
}

int decimalsFor(double step)
{
    for (int decimals = 0; decimals < 6; ++decimals) {
        const double scaled = step * std::pow(10.0, decimals);
        if (std::abs(scaled - std::round(scaled)) < 1e-6 * std::max(1.0, scaled))
            return decimals;
    }
    return 6;
}

NiceTimeScale niceTimeScale(qint64 fromMs, qint64 toMs, int maxTicks)
{
    constexpr qint64 s = 1000;
    constexpr qint64 min = 60 * s;
    constexpr qint64 h = 60 * min;
    constexpr std::array<qint64, 21> steps { s, 2 * s, 5 * s, 10 * s, 15 * s, 30 * s, min, 2 * min, 5 * min, 10 * min,
        15 * min, 30 * min, h, 2 * h, 3 * h, 4 * h, 6 * h, 12 * h, 24 * h, 48 * h, 7 * 24 * h };
    if (toMs <= fromMs)
        toMs = fromMs + s;
    NiceTimeScale scale;
    for (const qint64 step : steps) {
        scale.stepMs = step;
        const qint64 offset = step >= h ? localOffsetMs(fromMs) : 0;
        scale.fromMs = (fromMs + offset) / step * step - offset;
        scale.toMs = (toMs + offset + step - 1) / step * step - offset;
        scale.tickCount = static_cast<int>((scale.toMs - scale.fromMs) / step) + 1;
        if (scale.tickCount <= maxTicks)
            break;
    }
    return scale;
}

} // namespace shardmap::widgets
