#include "core/map/copy_faults.h"

// Marking a copy that missed a write as catching up (a compare-and-set on its shard record with
// its audit record), and the write quorum rule the router acknowledges by.

#include "core/map/shard_map.h"
#include "core/util/clock.h"

#include <algorithm>

namespace shardmap::core {

namespace {

// Conflicts come from other routers marking other copies of the same shard after the same fault;
// each round re-reads the record, so a handful of rounds settles them.
constexpr int kMaxRounds = 8;

struct ReadShard {
    ShardRecord record;
    std::uint64_t modRevision = 0;
    // The store's revision the record was read at.
    std::uint64_t revision = 0;
};

Result<ReadShard> readShard(MetadataStore& store, const std::string& shard)
{
    const std::string key = keys::shard(shard);
    auto listed = store.list(key);
    if (!listed)
        return listed.error();
    const auto found = listed->records.find(key);
    if (found == listed->records.end())
        return makeError(ErrorCode::NotFound, "no shard " + shard + " in the shard map");
    auto decoded = decodeShard(found->second.value);
    if (!decoded)
        return decoded.error();
    return ReadShard { std::move(*decoded), found->second.modRevision, listed->revision };
}

} // namespace

bool majorityApplies(WriteQuorum quorum, std::uint32_t factor)
{
    return quorum == WriteQuorum::Majority && factor >= 3;
}

std::size_t copiesToAcknowledge(WriteQuorum quorum, std::uint32_t factor, std::size_t inSync)
{
    return majorityApplies(quorum, factor) ? factor / 2 + 1 : inSync;
}

bool quorumDecided(WriteQuorum quorum, std::uint32_t factor, const CopyTally& tally)
{
    if (tally.finished() >= tally.inSync)
        return true;
    return majorityApplies(quorum, factor) && tally.primaryApplied
        && tally.applied >= copiesToAcknowledge(quorum, factor, tally.inSync);
}

Status quorumOutcome(WriteQuorum quorum, std::uint32_t factor, const CopyTally& tally, const std::string& shard)
{
    if (!tally.primaryApplied)
        return makeError(ErrorCode::Unavailable, "the primary did not apply the write", "shard " + shard);
    if (majorityApplies(quorum, factor)) {
        const std::size_t needed = copiesToAcknowledge(quorum, factor, tally.inSync);
        if (tally.applied >= needed)
            return {};
        return makeError(ErrorCode::Unavailable,
            "applied on " + std::to_string(tally.applied) + " of " + std::to_string(tally.inSync)
                + " in-sync copies; the majority of its replication factor " + std::to_string(factor) + " is "
                + std::to_string(needed),
            "shard " + shard);
    }
    if (tally.unmarked == 0 && tally.applied + tally.marked >= tally.inSync)
        return {};
    return makeError(ErrorCode::Unavailable,
        std::to_string(tally.unmarked)
            + " in-sync copy(ies) failed the write and could not be marked catching up in the shard map; the write "
              "is not acknowledged (write quorum all)",
        "shard " + shard);
}

namespace {

// One compare-and-set on the shard record that takes the copy on node out of the in-sync set, or,
// with touchCatchingUp, puts the record of a copy already catching up again as it is (its reason,
// which names what left it catching up, kept): both stores move a record's revision on every put,
// which is what noteCatchingUpCopyMissedWrite needs, and the audit record says why.
Result<std::uint64_t> markCopy(MetadataStore& store, const std::string& shard, const std::string& node,
    const std::string& reason, const Actor& actor, const std::optional<LeaseGrant>& fence, bool touchCatchingUp)
{
    for (int round = 0;; ++round) {
        auto read = readShard(store, shard);
        if (!read)
            return read.error();
        ShardRecord record = std::move(read->record);
        if (record.node == node)
            return makeError(ErrorCode::InvalidArgument,
                "node " + node + " holds the primary of shard " + shard + ", not a replica; a primary is not marked");
        auto copy = std::find_if(
            record.replicas.begin(), record.replicas.end(), [&](const ShardCopy& c) { return c.node == node; });
        if (copy == record.replicas.end()) {
            if (touchCatchingUp)
                return read->revision; // removed meanwhile: nothing left to keep in sync
            return makeError(ErrorCode::InvalidArgument, "shard " + shard + " has no replica on node " + node);
        }
        const bool catchingUp = copy->state == CopyState::CatchingUp;
        if (copy->state != CopyState::InSync && !(catchingUp && touchCatchingUp))
            return read->revision; // idempotent: another router, or an earlier round, marked it
        if (!catchingUp) {
            copy->reason = reason;
            copy->state = CopyState::CatchingUp;
            copy->sinceUnixMs = nowUnixMs();
            copy->docsDone = 0;
            copy->docsTotal = 0;
        }
        const char* action = catchingUp ? "note-copy-missed-write" : "mark-copy-catching-up";
        CommitRequest request { { Mutation { keys::shard(shard), encode(record), read->modRevision } }, std::nullopt,
            fence, actor.name, action, actor.reason.empty() ? reason : actor.reason + ": " + reason };
        auto committed = store.commit(request);
        if (committed || committed.error().code != ErrorCode::Conflict)
            return committed;
        if (round + 1 >= kMaxRounds)
            return makeError(ErrorCode::Conflict,
                "shard " + shard + " kept changing while its copy on " + node + " was being marked catching up");
    }
}

} // namespace

Result<std::uint64_t> markCopyCatchingUp(MetadataStore& store, const std::string& shard, const std::string& node,
    const std::string& reason, const Actor& actor, const std::optional<LeaseGrant>& fence)
{
    return markCopy(store, shard, node, reason, actor, fence, false);
}

Result<std::uint64_t> noteCatchingUpCopyMissedWrite(MetadataStore& store, const std::string& shard,
    const std::string& node, const std::string& reason, const Actor& actor)
{
    return markCopy(store, shard, node, reason, actor, std::nullopt, true);
}

} // namespace shardmap::core
