#pragma once

// A migration's repair of its target from its source, range by range, when their aggregates
// differ.

#include "core/client/node_client.h"
#include "core/migration/space_copy.h"
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
// The ends' epoch is the one the repair writes carry (the target's, while dual writing).
struct RangeRepair : SpaceCopyEnds {
    // Checked before every range: the repair stops when it fails (the lease is lost).
    std::function<Status()> checkLease;

    // Documents written again; targetOnly is set when the error is a row only the target has.
    Result<std::uint64_t> run(bool& targetOnly) const;
};

} // namespace shardmap::core
