#pragma once

// Copying a shard map with its history from one store to another.

#include "core/store/metadata_store.h"
#include "core/util/result.h"

#include <cstdint>
#include <functional>

namespace shardmap::core {

struct StoreCopyProgress {
    std::uint64_t copied = 0;
    std::uint64_t total = 0;
};

struct CopyResult {
    // Commits replayed (the source's history) and records the copy holds at the end.
    std::uint64_t commits = 0;
    std::uint64_t records = 0;
    // The source revision copied; the destination's revisions count the same commits.
    std::uint64_t sourceRevision = 0;
};

// Copies a whole shard map with its history from one store to another (for example from the
// embedded SQLite file to etcd when a team outgrows one machine): every audit record of the
// source, oldest first, is committed to the destination with the same changes, actor and action;
// the reason keeps the original one and says which revision and time it was copied from.
// Leases are not copied (their holders re-acquire them).
//
// The destination must be empty (revision 0): FailedPrecondition otherwise, nothing written.
// The copy stops at the source's revision when it started; writes made to the source meanwhile
// are not copied (stop the controllers first). At the end the destination's records are compared
// with the source's at that revision, and a difference is an Internal error naming the keys.
// A source whose history was pruned (it does not start at revision 1) is refused, and so is one
// whose audit chain does not verify (core/store/audit_chain.h): the copy's records get hashes of
// their own, chained from the anchor, so the copy verifies and a broken source would look whole.
Result<CopyResult> copyStore(
    MetadataStore& from, MetadataStore& to, const std::function<void(const StoreCopyProgress&)>& progress = {});

} // namespace shardmap::core
