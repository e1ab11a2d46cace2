#pragma once

// What the controller commits when a copy of a shard misses a write: the copy leaves the in-sync
// set before the write is acknowledged without it (issue 30).

#include "core/map/map_editor.h"
#include "core/store/metadata_store.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace shardmap::core {

// Where one write stands on a shard's in-sync copies (the primary included).
struct CopyTally {
    std::size_t inSync = 0;
    // Copies that applied the write, and whether the primary is one of them.
    std::size_t applied = 0;
    bool primaryApplied = false;
    // Copies that failed it and that the map now says are catching up, and those it could not be
    // told about (the mark did not commit).
    std::size_t marked = 0;
    std::size_t unmarked = 0;

    std::size_t finished() const { return applied + marked + unmarked; }
};

// The copies that must apply a write before it is acknowledged: every in-sync copy under
// WriteQuorum::All (one that failed is excused once the map says it is catching up), a majority of
// the replication factor under Majority with a factor of 3 or more. A factor below 3 has no
// majority short of all of its copies, so Majority is All there.
std::size_t copiesToAcknowledge(WriteQuorum quorum, std::uint32_t factor, std::size_t inSync);
bool majorityApplies(WriteQuorum quorum, std::uint32_t factor);

// Whether the writer may stop waiting for copies: the write is acknowledged or failed whatever the
// copies still out say. Under All that is when every copy finished; under a majority, when the
// primary finished and enough copies applied it (or every copy finished).
bool quorumDecided(WriteQuorum quorum, std::uint32_t factor, const CopyTally& tally);
// Once decided: ok (acknowledge) or why not, naming the shard ("shard s1: applied on 1 of 3
// copies; the majority of its replication factor 3 is 2").
Status quorumOutcome(WriteQuorum quorum, std::uint32_t factor, const CopyTally& tally, const std::string& shard);

// Marks the replica of a shard on a node catching up, with why, as one compare-and-set on the
// shard record and its audit record ("mark-copy-catching-up"). A record changed meanwhile is read
// again and the change retried; a copy already catching up or lost is left as it is (nothing is
// committed, the store's revision is returned). NotFound for an unknown shard, InvalidArgument for
// a node that holds no replica of it (the primary's node included: the primary is never marked).
// A router acknowledges a write without a copy only once this returned a revision. The executor
// passes its lease as fence (a migration's step marking a copy of its shards that failed it).
Result<std::uint64_t> markCopyCatchingUp(MetadataStore& store, const std::string& shard, const std::string& node,
    const std::string& reason, const Actor& actor, const std::optional<LeaseGrant>& fence = std::nullopt);

// A catching-up copy missed a write (writes reach it best effort). One in sync by now is marked
// catching up as above; one still catching up has its shard record put again unchanged, with why
// in the audit record ("note-copy-missed-write"), which moves the record's revision, so that a catch-up that compared
// the copy with the primary before this write cannot mark it in sync: CatchUpPhases::markInSync is a compare-and-set on
// the record as it was before that compare. A copy removed or lost meanwhile needs nothing. A router acknowledges the
// write only once this returned a revision; InvalidArgument when the node now holds the shard's primary (it lacks a
// write the old primary acknowledged).
Result<std::uint64_t> noteCatchingUpCopyMissedWrite(MetadataStore& store, const std::string& shard,
    const std::string& node, const std::string& reason, const Actor& actor);

} // namespace shardmap::core
