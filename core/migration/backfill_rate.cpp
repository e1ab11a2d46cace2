// measuredBackfillRate's implementation: the median rate of the latest unthrottled copies.
#include "core/migration/backfill_rate.h"

#include <algorithm>
#include <vector>

namespace shardmap::core {

std::optional<MeasuredBackfillRate> measuredBackfillRate(const MapSnapshot& map, std::size_t recent)
{
    struct Sample {
        std::int64_t at;
        double rate;
    };
    std::vector<Sample> samples;
    for (const auto& [id, versioned] : map.migrations) {
        const MigrationRecord& migration = versioned.value;
        const bool copied = migration.backfilled || migration.phase == MigrationPhase::Backfill;
        if (!copied || migration.throttleDocsPerSecond != 0 || migration.progress.docsPerSecond <= 0)
            continue;
        samples.push_back({ migration.finishedUnixMs ? migration.finishedUnixMs : migration.updatedUnixMs,
            migration.progress.docsPerSecond });
    }
    if (samples.empty() || recent == 0)
        return std::nullopt;
    std::sort(samples.begin(), samples.end(), [](const Sample& a, const Sample& b) { return a.at > b.at; });
    samples.resize(std::min(samples.size(), recent));
    std::vector<double> rates;
    for (const Sample& sample : samples)
        rates.push_back(sample.rate);
    std::sort(rates.begin(), rates.end());
    const std::size_t n = rates.size();
    const double median = n % 2 ? rates[n / 2] : (rates[n / 2 - 1] + rates[n / 2]) / 2;
    return MeasuredBackfillRate { median, n };
}

} // namespace shardmap::core
