#pragma once

// Figures of a plan's summary that read the same in every scenario (issue 26): the spread of an
// objective over a set of shards, and the copy rate its duration is estimated at with what that
// rate is based on.

#include "core/plan/planner.h"

#include <string>
#include <utility>
#include <vector>

namespace shardmap::core {

// Largest over mean and stddev / mean of shards given as (figure, bytes capacity); each shard's
// share follows its capacity when every shard has one, as the planner's shares do. {0, 0} for no
// shards or nothing in them.
std::pair<double, double> maxAndDeviation(const std::vector<std::pair<double, double>>& shards);

struct CopyRate {
    double docsPerSecond = 0;
    // "throttle", "measured" or "assumed", and the sentence saying on what it is based.
    std::string source;
    std::string basis;
};

// The copy rate of one migration: the throttle when it is lower than what was measured, the
// measured median once options.minMeasuredMigrations were measured, else the assumed rate or the
// measured one when that is lower (conservative until the measure can be trusted).
CopyRate copyRate(const PlannerInput& input, const PlannerOptions& options);

} // namespace shardmap::core
