#include "core/fleet/health.h"
#include "tests/core/test_helpers.h"

#include <gtest/gtest.h>

using namespace shardmap::core;
using shardmap::testing::kGiB;

namespace {

NodeVitals vitals(std::int64_t unixMs, double cpu = 10, std::uint64_t rss = kGiB, std::uint64_t diskTotal = 100 * kGiB,
    std::uint64_t diskFree = 50 * kGiB)
{
    return { unixMs, cpu, rss, diskTotal, diskFree };
}

HealthAssessment evaluate(const NodeSampleWindow& window, std::optional<bool> reachable = true)
{
    NodeHealthInput input;
    input.reachable = reachable;
    input.samples = &window;
    return evaluateNode(input, HealthThresholds {});
}

// One sample a second for `seconds` seconds (inclusive of both ends); cpuAt gives each one's CPU.
template <typename Fn> NodeSampleWindow filledWindow(int seconds, Fn cpuAt)
{
    NodeSampleWindow window;
    for (int s = 0; s <= seconds; ++s) {
        window.add(vitals(1'000'000 + s * 1000LL, cpuAt(s)), HealthThresholds {}.cpuWindowMs);
    }
    return window;
}

} // namespace

TEST(HealthNode, HealthyNodeIsOk)
{
    NodeSampleWindow window;
    window.add(vitals(1000), 300'000);
    const auto health = evaluate(window);
    EXPECT_EQ(health.level, HealthLevel::Ok);
    EXPECT_TRUE(health.reasons.empty());
}

TEST(HealthNode, DiskUsedAmberAndRed)
{
    NodeSampleWindow window;
    window.add(vitals(1000, 10, kGiB, 100 * kGiB, 14 * kGiB), 300'000);
    auto health = evaluate(window);
    ASSERT_EQ(health.level, HealthLevel::Warning);
    ASSERT_EQ(health.reasons.size(), 1u);
    EXPECT_EQ(health.reasons[0].metric, HealthMetric::DiskUsed);
    EXPECT_DOUBLE_EQ(health.reasons[0].value, 86);
    EXPECT_DOUBLE_EQ(health.reasons[0].threshold, 80);

    window.add(vitals(2000, 10, kGiB, 100 * kGiB, 5 * kGiB), 300'000);
    health = evaluate(window);
    EXPECT_EQ(health.level, HealthLevel::Critical);
    EXPECT_DOUBLE_EQ(health.reasons.at(0).threshold, 90);
}

TEST(HealthNode, MemoryAgainstConfiguredLimit)
{
    NodeSampleWindow window;
    window.add(vitals(1000, 10, 3'500'000'000ULL), 300'000);
    auto health = evaluate(window);
    ASSERT_EQ(health.level, HealthLevel::Warning);
    EXPECT_EQ(health.reasons.at(0).metric, HealthMetric::Memory);

    HealthThresholds larger;
    larger.memoryLimitBytes = 8 * kGiB;
    NodeHealthInput input { true, {}, false, &window };
    EXPECT_EQ(evaluateNode(input, larger).level, HealthLevel::Ok);

    window.add(vitals(2000, 10, 4 * kGiB), 300'000);
    EXPECT_EQ(evaluate(window).level, HealthLevel::Critical);
}

TEST(HealthNode, UnreachableIsRedWithTheLinkError)
{
    NodeSampleWindow empty;
    NodeHealthInput input { false, "connection refused", false, &empty };
    const auto health = evaluateNode(input, HealthThresholds {});
    ASSERT_EQ(health.level, HealthLevel::Critical);
    EXPECT_EQ(health.reasons.at(0).metric, HealthMetric::Unreachable);
    EXPECT_EQ(health.reasons.at(0).detail, "connection refused");

    // Still connecting for the first time: no verdict yet.
    input.reachable = std::nullopt;
    EXPECT_EQ(evaluateNode(input, HealthThresholds {}).level, HealthLevel::Ok);
    // Retired nodes are expected to be gone.
    input.reachable = false;
    input.retired = true;
    EXPECT_EQ(evaluateNode(input, HealthThresholds {}).level, HealthLevel::Info);
}

TEST(HealthNode, CpuBurstOfOneMinuteStaysOk)
{
    // 100 % for the last minute of a five-minute window at 10 % otherwise: average 28 %.
    const auto window = filledWindow(300, [](int s) { return s >= 240 ? 100.0 : 10.0; });
    const auto health = evaluate(window);
    EXPECT_EQ(health.level, HealthLevel::Ok);
}

TEST(HealthNode, CpuAverageOverFiveMinutesIsAmber)
{
    const auto window = filledWindow(300, [](int s) { return s % 2 ? 95.0 : 80.0; });
    const auto health = evaluate(window);
    ASSERT_EQ(health.level, HealthLevel::Warning);
    EXPECT_EQ(health.reasons.at(0).metric, HealthMetric::CpuAverage);
    EXPECT_NEAR(health.reasons.at(0).value, 87.5, 0.1);
    EXPECT_DOUBLE_EQ(health.reasons.at(0).threshold, 85);
}

TEST(HealthNode, CpuNeedsAFullWindow)
{
    // One minute of 100 % right after connecting is no five-minute average.
    const auto window = filledWindow(60, [](int) { return 100.0; });
    EXPECT_FALSE(window.cpuAverage(300'000).has_value());
    EXPECT_EQ(evaluate(window).level, HealthLevel::Ok);
}

TEST(HealthNode, WindowIsBounded)
{
    const auto window = filledWindow(3600, [](int) { return 50.0; });
    // Five minutes of samples at 1 Hz plus the boundary sample.
    EXPECT_EQ(window.size(), 301u);
    NodeSampleWindow dense;
    for (int i = 0; i < 10'000; ++i) {
        dense.add(vitals(i), 300'000);
    }
    EXPECT_EQ(dense.size(), NodeSampleWindow::kMaxSamples);
}

TEST(HealthNode, ClockGoingBackRestartsTheWindow)
{
    auto window = filledWindow(300, [](int) { return 99.0; });
    window.add(vitals(5000, 99), 300'000);
    EXPECT_EQ(window.size(), 1u);
    EXPECT_FALSE(window.cpuAverage(300'000).has_value());
}

TEST(HealthNode, ReasonsWorstFirst)
{
    NodeSampleWindow window;
    window.add(vitals(1000, 10, 4 * kGiB, 100 * kGiB, 15 * kGiB), 300'000);
    const auto health = evaluate(window);
    ASSERT_EQ(health.reasons.size(), 2u);
    EXPECT_EQ(health.level, HealthLevel::Critical);
    EXPECT_EQ(health.reasons[0].metric, HealthMetric::Memory);
    EXPECT_EQ(health.reasons[1].metric, HealthMetric::DiskUsed);
}

TEST(HealthShard, UnhealthyIsRedDrainingIsInfo)
{
    EXPECT_EQ(evaluateShard({ ShardState::Active, true, true, true }).level, HealthLevel::Ok);
    const auto unhealthy = evaluateShard({ ShardState::Active, true, true, false });
    EXPECT_EQ(unhealthy.level, HealthLevel::Critical);
    EXPECT_EQ(unhealthy.reasons.at(0).metric, HealthMetric::ShardUnhealthy);

    const auto draining = evaluateShard({ ShardState::Draining, true, true, true });
    EXPECT_EQ(draining.level, HealthLevel::Info);
    EXPECT_EQ(draining.reasons.at(0).state, ShardState::Draining);
    EXPECT_EQ(evaluateShard({ ShardState::Readonly, true, true, true }).level, HealthLevel::Info);
}

TEST(HealthShard, MissingFromTheNodesSampleIsAmber)
{
    EXPECT_EQ(evaluateShard({ ShardState::Active, true, false, true }).level, HealthLevel::Warning);
    // No sample of the node yet: nothing known.
    EXPECT_EQ(evaluateShard({ ShardState::Active, false, false, true }).level, HealthLevel::Ok);
    // A retired shard is expected to be gone from its node.
    EXPECT_EQ(evaluateShard({ ShardState::Retired, true, false, true }).level, HealthLevel::Info);
}

// Ten-second history samples and one-second live samples count by the time they cover: a
// quiet four and a half minutes of history and a busy half minute of live samples are not
// "mostly busy" because the live samples are more numerous.
TEST(HealthNode, CpuAverageIsWeightedByTime)
{
    NodeSampleWindow window;
    const std::int64_t start = 1'000'000;
    for (int s = 0; s <= 270; s += 10) {
        window.add(vitals(start + s * 1000LL, 20), 300'000);
    }
    for (int s = 271; s <= 300; ++s) {
        window.add(vitals(start + s * 1000LL, 100), 300'000);
    }
    const auto average = window.cpuAverage(300'000);
    ASSERT_TRUE(average.has_value());
    EXPECT_NEAR(*average, 20 * 270.0 / 300 + 100 * 30.0 / 300, 0.01); // 28 %, not 68 %
}

// History fetched after the live stream started fills the window from before its first sample.
TEST(HealthNode, SeededHistoryCoversTheWindowAtOnce)
{
    NodeSampleWindow window;
    const std::int64_t now = 10'000'000;
    window.add(vitals(now - 1000, 95), 300'000);
    window.add(vitals(now, 95), 300'000);
    EXPECT_FALSE(window.cpuAverage(300'000).has_value());

    std::vector<NodeVitals> history;
    for (std::int64_t t = now - 400'000; t < now; t += 10'000) {
        history.push_back(vitals(t, 90));
    }
    window.seed(history, 300'000);
    const auto average = window.cpuAverage(300'000);
    ASSERT_TRUE(average.has_value());
    EXPECT_GT(*average, 85);
    EXPECT_EQ(window.latest().unixMs, now); // the live samples stay the newest
    const HealthAssessment health = evaluateNode({ true, {}, false, &window }, HealthThresholds {});
    EXPECT_EQ(health.level, HealthLevel::Warning);
}
