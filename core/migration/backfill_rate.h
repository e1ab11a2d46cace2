#pragma once

// The backfill rate this fleet reaches without a throttle, measured by its own recent migrations.

#include "core/map/shard_map.h"

#include <cstddef>
#include <optional>

namespace shardmap::core {

// The backfill rate this fleet reaches without a throttle, measured by its own recent
// migrations: the median of the rates (MigrationProgress::docsPerSecond) of the last `recent`
// migrations that copied documents with no throttle of their own, finished or copying now. What
// an unthrottled move's expected duration is computed from (the console's confirmation).
struct MeasuredBackfillRate {
    double docsPerSecond = 0;
    std::size_t migrations = 0;
};

std::optional<MeasuredBackfillRate> measuredBackfillRate(const MapSnapshot& map, std::size_t recent = 10);

} // namespace shardmap::core
