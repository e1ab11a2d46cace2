#pragma once

#include "core/client/node_client.h"
#include "core/util/result.h"

#include <functional>
#include <memory>
#include <string>

namespace shardmap::core {

// A migration's verify repairing its target from its source when their aggregates differ: both
// are read in id order, range by range, and every row of the source that the target lacks, holds
// at an older version, or holds at the same version with other content (a tombstone included) is
// written again (WriteMode::Repair). The source is authoritative. A row only the target has
// cannot come from the source: that is an error (targetOnly), not something to repair.
struct RangeRepair {
    std::shared_ptr<NodeClient> source;
    std::string sourceShard;
    std::shared_ptr<NodeClient> target;
    std::string targetShard;
    std::string space;
    // The epoch the repair writes carry (the target's, while dual writing).
    std::uint64_t epoch = 0;
    std::uint32_t batch = 1000;
    // Checked before every range: the repair stops when it fails (the lease is lost).
    std::function<Status()> checkLease;

    // Documents written again; targetOnly is set when the error is a row only the target has.
    Result<std::uint64_t> run(bool& targetOnly) const;
};

} // namespace shardmap::core
