#include "core/metrics/decimate.h"

#include <cmath>
#include <gtest/gtest.h>
#include <vector>

using namespace shardmap::core;

namespace {

std::vector<SeriesPoint> sine(std::size_t count)
{
    std::vector<SeriesPoint> points;
    for (std::size_t i = 0; i < count; ++i)
        points.push_back({ static_cast<std::int64_t>(i) * 10, std::sin(static_cast<double>(i) / 50.0) });
    return points;
}

} // namespace

TEST(Decimate, SmallInputComesBackUnchanged)
{
    const auto points = sine(20);
    EXPECT_EQ(decimateMinMax(points, 10), points);
    EXPECT_TRUE(decimateMinMax({}, 10).empty());
}

TEST(Decimate, AtMostTwoPointsPerBucketPlusEnds)
{
    const auto points = sine(20000);
    const auto out = decimateMinMax(points, 300);
    EXPECT_LE(out.size(), 2u * 300u + 2u);
    EXPECT_GE(out.size(), 300u);
    EXPECT_EQ(out.front(), points.front());
    EXPECT_EQ(out.back(), points.back());
}

TEST(Decimate, KeepsOrderAndOnlyInputPoints)
{
    const auto points = sine(5000);
    const auto out = decimateMinMax(points, 100);
    for (std::size_t i = 1; i < out.size(); ++i)
        EXPECT_LT(out[i - 1].x, out[i].x) << "at " << i;
    for (const auto& point : out)
        EXPECT_EQ(points[static_cast<std::size_t>(point.x / 10)], point);
}

TEST(Decimate, KeepsSpikesOfEveryBucket)
{
    std::vector<SeriesPoint> points;
    for (std::int64_t i = 0; i < 10000; ++i)
        points.push_back({ i, 1.0 });
    points[4321].y = 1000.0;
    points[7777].y = -1000.0;
    const auto out = decimateMinMax(points, 50);
    EXPECT_LE(out.size(), 102u);
    EXPECT_NE(std::find(out.begin(), out.end(), points[4321]), out.end());
    EXPECT_NE(std::find(out.begin(), out.end(), points[7777]), out.end());
}

TEST(Decimate, BucketsFollowTheGivenRange)
{
    // All points in the right half of the range: they share half of the buckets.
    std::vector<SeriesPoint> points;
    for (std::int64_t i = 0; i < 10000; ++i)
        points.push_back({ 5000 + i / 2, static_cast<double>(i % 7) });
    const auto out = decimateMinMax(points, 100, 0, 10000);
    EXPECT_LE(out.size(), 2u * 50u + 2u);
    EXPECT_EQ(out.front(), points.front());
    EXPECT_EQ(out.back(), points.back());
}

TEST(Decimate, ClipKeepsOneNeighbourOutside)
{
    const auto points = sine(100); // x = 0, 10, ..., 990
    const auto clipped = clipToRange(points, 205, 500);
    ASSERT_FALSE(clipped.empty());
    EXPECT_EQ(clipped.front().x, 200);
    EXPECT_EQ(clipped.back().x, 510);
    EXPECT_EQ(clipped.size(), 32u);
    EXPECT_EQ(clipToRange(points, 0, 990), points);
    EXPECT_EQ(clipToRange(points, 2000, 3000).size(), 1u);
}
