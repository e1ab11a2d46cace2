// The balancer's policy (issue 33) without a fleet: its rules refuse with the field and why, its
// JSON round-trips and refuses unknown keys, and its window is placed in a named time zone (days,
// a window across midnight, daylight saving time, the next opening in words).
#include "core/balancer/balancer_policy.h"

#include <gtest/gtest.h>

using namespace shardmap::core;
using std::chrono::system_clock;

namespace {

// A UTC moment from its calendar and clock fields.
system_clock::time_point utc(int year, unsigned month, unsigned day, int hour, int minute)
{
    std::tm tm {};
    tm.tm_year = year - 1900;
    tm.tm_mon = static_cast<int>(month) - 1;
    tm.tm_mday = static_cast<int>(day);
    tm.tm_hour = hour;
    tm.tm_min = minute;
    return system_clock::from_time_t(timegm(&tm));
}

BalancingWindow nights(std::string zone)
{
    // 01:00-05:00, Monday to Friday.
    return { { 1, 2, 3, 4, 5 }, 60, 300, std::move(zone) };
}

} // namespace

TEST(BalancerPolicy, EachRuleRefusesWithTheFieldAndWhy)
{
    EXPECT_TRUE(validateBalancerPolicy({}, 4));
    const std::vector<std::pair<std::function<void(BalancerPolicy&)>, std::string>> cases {
        { [](BalancerPolicy& p) { p.splitAboveBytes = 100, p.mergeBelowBytes = 50; }, "half of split_above_bytes" },
        { [](BalancerPolicy& p) { p.splitAboveDocs = 1000, p.mergeBelowDocs = 600; }, "half of split_above_docs" },
        { [](BalancerPolicy& p) { p.bandBytes = 0; }, "band_bytes" },
        { [](BalancerPolicy& p) { p.bandLoad = 1.5; }, "band_load" },
        { [](BalancerPolicy& p) { p.nodeDiskLimit = 1; }, "node_disk_limit" },
        { [](BalancerPolicy& p) {
             p.window = BalancingWindow { { 7 }, 0, 60, "UTC" };
         },
            "window.days" },
        { [](BalancerPolicy& p) {
             p.window = BalancingWindow { {}, 0, 1440, "UTC" };
         },
            "window.start" },
        { [](BalancerPolicy& p) { p.window = nights("Mars/Olympus"); }, "unknown time zone \"Mars/Olympus\"" },
        { [](BalancerPolicy& p) { p.maxConcurrent = 4; }, "must stay below the executor's 4" },
        { [](BalancerPolicy& p) { p.maxConcurrent = 0; }, "max_concurrent must be at least 1" },
        { [](BalancerPolicy& p) { p.budget.workHours = -1; }, "budget.work_hours" },
        { [](BalancerPolicy& p) { p.guardNodeCpu = 2; }, "guard_node_cpu" },
        { [](BalancerPolicy& p) { p.keepDecisionsSeconds = 0; }, "keep_decisions_seconds" },
        { [](BalancerPolicy& p) { p.excludedShards = { "bad shard!" }; }, "excluded_shards" },
    };
    for (const auto& [change, says] : cases) {
        BalancerPolicy policy;
        change(policy);
        auto checked = validateBalancerPolicy(policy, 4);
        ASSERT_FALSE(checked) << says;
        EXPECT_EQ(checked.error().code, ErrorCode::InvalidArgument);
        EXPECT_NE(checked.error().message.find(says), std::string::npos) << checked.error().message;
    }
    BalancerPolicy merged;
    merged.splitAboveBytes = 100;
    merged.mergeBelowBytes = 49;
    EXPECT_TRUE(validateBalancerPolicy(merged, 4));
    EXPECT_TRUE(validateBalancerPolicy(BalancerPolicy {}, 0)) << "an executor without a limit";
}

TEST(BalancerPolicy, ItsJsonRoundTripsAndRefusesWhatItDoesNotKnow)
{
    BalancerPolicy policy;
    policy.mode = BalancerMode::DryRun;
    policy.splitAboveBytes = 10ull << 30;
    policy.mergeBelowBytes = 1ull << 30;
    policy.excludedSpaces = { "acme" };
    policy.window = nights("Europe/Berlin");
    policy.budget = { 20, 50ull << 30, 3.5 };
    policy.maxConcurrent = 2;
    auto back = decodeBalancerPolicy(encode(policy));
    ASSERT_TRUE(back) << back.error().describe();
    EXPECT_EQ(*back, policy);
    EXPECT_NE(encode(policy).find("\"start\":\"01:00\""), std::string::npos) << encode(policy);
    auto defaults = decodeBalancerPolicy("{}");
    ASSERT_TRUE(defaults);
    EXPECT_EQ(*defaults, BalancerPolicy {});
    for (const char* bad : { R"({"mode":"sometimes"})", R"({"splitAbove":1})", R"({"window":{"start":"25:00"}})",
             R"([1,2])", R"({"band_bytes":"wide"})" }) {
        auto refused = decodeBalancerPolicy(bad);
        ASSERT_FALSE(refused) << bad;
        EXPECT_EQ(refused.error().code, ErrorCode::InvalidArgument) << bad;
    }
}

TEST(BalancerPolicy, TheWindowIsPlacedInItsTimeZoneAcrossDaysMidnightAndDaylightSavingTime)
{
    EXPECT_TRUE(placeInWindow(std::nullopt, system_clock::now())->inside) << "no window: any time";
    // Monday 7 Dec 2026 00:30 UTC is 01:30 in Berlin (CET, UTC+1): inside.
    EXPECT_TRUE(placeInWindow(nights("Europe/Berlin"), utc(2026, 12, 7, 0, 30))->inside);
    // Monday 04:30 UTC is 05:30 in Berlin: closed until Tuesday 01:00 CET, 00:00 UTC.
    auto later = placeInWindow(nights("Europe/Berlin"), utc(2026, 12, 7, 4, 30));
    ASSERT_TRUE(later);
    EXPECT_FALSE(later->inside);
    EXPECT_EQ(later->nextOpen, utc(2026, 12, 8, 0, 0));
    EXPECT_EQ(later->nextOpenText, "Tue 01:00 Europe/Berlin");
    // Friday 12:00 UTC: the next opening is Monday 01:00, over a weekend the window skips.
    auto weekend = placeInWindow(nights("Europe/Berlin"), utc(2026, 12, 11, 12, 0));
    ASSERT_TRUE(weekend);
    EXPECT_EQ(weekend->nextOpen, utc(2026, 12, 14, 0, 0));
    // In summer Berlin is UTC+2: Monday 6 July 2026 01:00 CEST is 23:00 UTC on Sunday.
    auto summer = placeInWindow(nights("Europe/Berlin"), utc(2026, 7, 5, 12, 0));
    ASSERT_TRUE(summer);
    EXPECT_EQ(summer->nextOpen, utc(2026, 7, 5, 23, 0));
    // 22:00-02:00 every day crosses midnight: 01:00 belongs to the window that opened the day before.
    const BalancingWindow late { {}, 22 * 60, 120, "UTC" };
    EXPECT_TRUE(placeInWindow(late, utc(2026, 12, 7, 1, 0))->inside);
    EXPECT_TRUE(placeInWindow(late, utc(2026, 12, 7, 23, 0))->inside);
    EXPECT_FALSE(placeInWindow(late, utc(2026, 12, 7, 3, 0))->inside);
    // A window that opens on Saturday night only: Sunday 01:00 is inside, Monday 01:00 is not.
    const BalancingWindow saturday { { 6 }, 22 * 60, 120, "UTC" };
    EXPECT_TRUE(placeInWindow(saturday, utc(2026, 12, 13, 1, 0))->inside);
    EXPECT_FALSE(placeInWindow(saturday, utc(2026, 12, 14, 1, 0))->inside);
    EXPECT_FALSE(placeInWindow(nights("Nowhere/City"), system_clock::now()));
}
