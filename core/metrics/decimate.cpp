#include "core/metrics/decimate.h"

// The decimation's implementation: each point's bucket, the lowest and highest point each bucket
// keeps, and the clip to a plot's x range.

#include <algorithm>

namespace shardmap::core {

namespace {

std::size_t bucketOf(std::int64_t x, std::int64_t from, std::int64_t to, std::size_t buckets)
{
    if (x <= from || to <= from)
        return 0;
    if (x >= to)
        return buckets - 1;
    // In double: (x - from) * buckets may not fit 64 bits for wide ranges.
    const double share = static_cast<double>(x - from) / static_cast<double>(to - from);
    return std::min(buckets - 1, static_cast<std::size_t>(share * static_cast<double>(buckets)));
}

// Appends the kept points of points[begin, end) (one bucket) in their original order.
void keepExtremes(
    const std::vector<SeriesPoint>& points, std::size_t begin, std::size_t end, std::vector<SeriesPoint>& out)
{
    std::size_t low = begin;
    std::size_t high = begin;
    for (std::size_t i = begin + 1; i < end; ++i) {
        if (points[i].y < points[low].y)
            low = i;
        if (points[i].y > points[high].y)
            high = i;
    }
    // The first and last point of the whole series are kept whatever their value.
    std::size_t kept[4] = { low, high, low, high };
    std::size_t count = 2;
    if (begin == 0)
        kept[count++] = 0;
    if (end == points.size())
        kept[count++] = points.size() - 1;
    // At most four indexes: an insertion sort (std::sort here trips GCC 12's -Warray-bounds at -O3).
    for (std::size_t i = 1; i < count; ++i) {
        for (std::size_t j = i; j > 0 && kept[j - 1] > kept[j]; --j)
            std::swap(kept[j - 1], kept[j]);
    }
    for (std::size_t i = 0; i < count; ++i) {
        if (i == 0 || kept[i] != kept[i - 1])
            out.push_back(points[kept[i]]);
    }
}

} // namespace

std::vector<SeriesPoint> decimateMinMax(
    const std::vector<SeriesPoint>& points, std::size_t buckets, std::int64_t from, std::int64_t to)
{
    if (buckets == 0)
        buckets = 1;
    if (points.size() <= 2 * buckets)
        return points;
    std::vector<SeriesPoint> out;
    out.reserve(2 * buckets + 2);
    std::size_t begin = 0;
    while (begin < points.size()) {
        const std::size_t bucket = bucketOf(points[begin].x, from, to, buckets);
        std::size_t end = begin + 1;
        while (end < points.size() && bucketOf(points[end].x, from, to, buckets) == bucket)
            ++end;
        keepExtremes(points, begin, end, out);
        begin = end;
    }
    return out;
}

std::vector<SeriesPoint> decimateMinMax(const std::vector<SeriesPoint>& points, std::size_t buckets)
{
    if (points.empty())
        return points;
    return decimateMinMax(points, buckets, points.front().x, points.back().x);
}

std::vector<SeriesPoint> clipToRange(const std::vector<SeriesPoint>& points, std::int64_t from, std::int64_t to)
{
    const auto byX = [](const SeriesPoint& point, std::int64_t x) { return point.x < x; };
    auto first = std::lower_bound(points.begin(), points.end(), from, byX);
    auto last = std::upper_bound(
        first, points.end(), to, [](std::int64_t x, const SeriesPoint& point) { return x < point.x; });
    if (first != points.begin())
        --first;
    if (last != points.end())
        ++last;
    return { first, last };
}

} // namespace shardmap::core
