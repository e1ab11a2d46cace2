// The plan figures' implementation: max/mean and deviation by capacity share, and the copy rate
// chosen from the throttle, the measured median and the assumed rate.
#include "core/plan/plan_figures.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace shardmap::core {

std::pair<double, double> maxAndDeviation(const std::vector<std::pair<double, double>>& shards)
{
    const bool byCapacity = std::all_of(shards.begin(), shards.end(), [](const auto& s) { return s.second > 0; });
    double total = 0;
    double capacity = 0;
    for (const auto& [value, cap] : shards) {
        total += value;
        capacity += cap;
    }
    if (total <= 0 || shards.empty())
        return { 0, 0 };
    const double count = static_cast<double>(shards.size());
    double largest = 0;
    double squares = 0;
    for (const auto& [value, cap] : shards) {
        const double share = byCapacity ? cap / (capacity / count) : 1.0;
        const double ratio = value / share / (total / count);
        largest = std::max(largest, ratio);
        squares += (ratio - 1) * (ratio - 1);
    }
    return { largest, std::sqrt(squares / count) };
}

namespace {

std::string rounded(double value)
{
    return std::to_string(static_cast<std::uint64_t>(std::llround(value)));
}

std::string enoughMeasured(const PlannerOptions& options)
{
    return std::to_string(options.minMeasuredMigrations) + " migrations that copied at least "
        + std::to_string(kMinMeasuredMigrationDocs) + " docs";
}

} // namespace

CopyRate copyRate(const PlannerInput& input, const PlannerOptions& options)
{
    const auto throttle = static_cast<double>(input.settings.defaultThrottleDocsPerSecond);
    const double measured = input.measuredDocsPerSecond;
    if (throttle > 0 && (measured <= 0 || throttle <= measured))
        return { throttle, "throttle", "the executor's throttle of " + rounded(throttle) + " docs/s" };
    if (measured > 0 && input.measuredMigrations >= options.minMeasuredMigrations)
        return { measured, "measured",
            "measured: the median of " + std::to_string(input.measuredMigrations) + " migrations that copied at least "
                + std::to_string(kMinMeasuredMigrationDocs) + " docs" };
    const double assumed = options.assumedDocsPerSecond;
    const bool slower = measured > 0 && measured < assumed;
    return { slower ? measured : assumed, "assumed",
        (slower ? "the lower of the assumed " : "assumed ") + rounded(assumed) + " docs/s"
            + (slower ? " and the " + rounded(measured) + " docs/s measured so far," : "") + " until "
            + enoughMeasured(options) + " are measured (" + std::to_string(input.measuredMigrations) + " so far)" };
}

} // namespace shardmap::core
