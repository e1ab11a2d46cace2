// Sizes and durations for people (core/util/units.h): the one rule the console, shardmapctl and the
// reports print, at its unit boundaries.

#include "core/util/units.h"

#include <gtest/gtest.h>

using namespace shardmap::core;

TEST(UnitsTest, BytesAreWholeUnderAKibibyteAndBinaryWithOneDecimalAbove)
{
    EXPECT_EQ(formatBytes(0), "0 B");
    EXPECT_EQ(formatBytes(1023), "1023 B");
    EXPECT_EQ(formatBytes(1024), "1.0 KiB");
    EXPECT_EQ(formatBytes(1536), "1.5 KiB");
    EXPECT_EQ(formatBytes(35861709), "34.2 MiB");
    EXPECT_EQ(formatBytes(3ULL << 30), "3.0 GiB");
    EXPECT_EQ(formatBytes(5ULL << 40), "5.0 TiB");
    EXPECT_EQ(formatBytes(2048ULL << 40), "2048.0 TiB") << "TiB is the largest unit";
}

TEST(UnitsTest, AByteAmountCarriesTheNumberTheConsolePrintsInItsLocale)
{
    const UnitAmount amount = byteAmount(1536);
    EXPECT_DOUBLE_EQ(amount.value, 1.5);
    EXPECT_EQ(amount.decimals, 1);
    EXPECT_STREQ(amount.unit, "KiB");
    EXPECT_EQ(byteAmount(512).decimals, 0);
}

TEST(UnitsTest, DurationsAreTwoWholeUnitsPastAMinute)
{
    EXPECT_EQ(formatDuration(0), "0 s");
    EXPECT_EQ(formatDuration(45), "45 s");
    EXPECT_EQ(formatDuration(60), "1 min 0 s");
    EXPECT_EQ(formatDuration(90), "1 min 30 s");
    EXPECT_EQ(formatDuration(3599), "59 min 59 s");
    EXPECT_EQ(formatDuration(3600), "1 h 0 min");
    EXPECT_EQ(formatDuration(2 * 3600 + 5 * 60 + 59), "2 h 5 min");
    EXPECT_EQ(formatDuration(2 * 86400 - 1), "47 h 59 min");
    EXPECT_EQ(formatDuration(3 * 86400 + 4 * 3600 + 59 * 60), "3 d 4 h");
    EXPECT_EQ(formatDuration(-5), "0 s") << "a clock that went back reads as no time";
}

TEST(UnitsTest, AReportsDurationsAreFinerUnderAMinute)
{
    EXPECT_EQ(formatDurationMs(850), "850 ms");
    EXPECT_EQ(formatDurationMs(4250), "4.3 s") << "tenths, rounded half up";
    EXPECT_EQ(formatDurationMs(59'940), "59.9 s");
    EXPECT_EQ(formatDurationMs(600'000), "10 min 0 s");
    EXPECT_EQ(formatDurationMs(90'999), "1 min 30 s");
}

TEST(UnitsTest, TheStepIsTheSmallestUnitTheTextShows)
{
    for (const std::int64_t seconds : { 0, 59, 61, 3599, 3600, 2 * 86400 - 1, 2 * 86400, 9 * 86400 }) {
        const std::int64_t step = durationStepSeconds(seconds);
        const std::int64_t shown = seconds / step * step;
        EXPECT_EQ(formatDuration(shown), formatDuration(shown + step - 1)) << seconds;
        EXPECT_NE(formatDuration(shown), formatDuration(shown + step)) << seconds;
        if (shown > 0) {
            EXPECT_NE(formatDuration(shown), formatDuration(shown - 1)) << seconds;
        }
    }
}
