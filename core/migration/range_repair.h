#pragma once

// A migration's repair of its target from its source, range by range, when their aggregates
// differ.

#include "core/client/node_client.h"
#include "core/migration/space_copy.h"
#include "core/util/result.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace shardmap::core {

// A verify's compare of a space on two shards (a migration's source and target, a shard's primary
// and a catching-up copy), and how long it waits between two of its rounds.
inline constexpr std::chrono::milliseconds kVerifyPause { 50 };
inline constexpr int kVerifyRounds = 5;

// The same rows: live documents, tombstones (a lost delete would let an older write back in), and
// the checksum over every row's content (an equal version with another body differs).
inline bool sameContent(const SpaceStats& a, const SpaceStats& b)
{
    return a.liveDocs == b.liveDocs && a.tombstones == b.tombstones && a.checksum == b.checksum;
}

inline std::string describeStats(const SpaceStats& stats)
{
    return std::to_string(stats.liveDocs) + " docs, " + std::to_string(stats.tombstones) + " tombstones, checksum "
        + std::to_string(stats.checksum);
}

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
