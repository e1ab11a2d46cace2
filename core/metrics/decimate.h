#pragma once

// Time series cut down to what a plot can draw: min/max decimation and clipping to a range.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace shardmap::core {

// One point of a time series: x in ms since the epoch, y the value.
struct SeriesPoint {
    std::int64_t x = 0;
    double y = 0;

    bool operator==(const SeriesPoint&) const = default;
};

// Min/max decimation for drawing a line into a few pixel columns: [from, to] is split into
// `buckets` equal x intervals and each bucket keeps only its lowest and highest point, in their
// original order, so that spikes survive while a column never gets more than two points. The
// first and the last point are always kept (the line reaches both ends). Points must be sorted
// by x; points outside [from, to] count to the first or the last bucket. Input that already fits
// (at most two points per bucket) comes back unchanged.
std::vector<SeriesPoint> decimateMinMax(
    const std::vector<SeriesPoint>& points, std::size_t buckets, std::int64_t from, std::int64_t to);

// The same over the x range of the points themselves.
std::vector<SeriesPoint> decimateMinMax(const std::vector<SeriesPoint>& points, std::size_t buckets);

// The points with from <= x <= to, plus the nearest point on either side of the range, so that a
// line drawn from them still crosses the edges of the plot. Points must be sorted by x.
std::vector<SeriesPoint> clipToRange(const std::vector<SeriesPoint>& points, std::int64_t from, std::int64_t to);

} // namespace shardmap::core
