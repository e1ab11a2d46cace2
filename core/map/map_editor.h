#pragma once

// The administrative edits of the shard map (nodes, shards, a space's pin and owner), each one
// audited compare-and-set commit.

#include "core/map/shard_map.h"
#include "core/store/metadata_store.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shardmap::core {

// Who asks for a change and why; written into the change's audit record.
struct Actor {
    std::string name;
    std::string reason;
};

// The administrative changes of the shard map, each validated against a fresh snapshot and
// committed as one compare-and-set on the records it read, with its audit record. A change
// that lost a race fails with ErrorCode::Conflict; nothing is half-applied.
class MapEditor {
public:
    // The lease grant a leader's commits are fenced with (MigrationExecutor::fence); an error
    // refuses the change before anything is committed.
    using FenceSource = std::function<Result<LeaseGrant>()>;
    // fence: the changes of copies (addReplica ... loseNode) are committed only while that lease
    // is held, as the executor's own commits are (the failover watch's; see
    // core/migration/failover_watch.h). None: unfenced, as an administrator's changes are.
    explicit MapEditor(MetadataStore& store, FenceSource fence = {});

    Result<std::uint64_t> addNode(const NodeRecord& node, const Actor& actor);
    // Refused while the node still has shards (they must be retired and removed first).
    Result<std::uint64_t> removeNode(const std::string& nodeId, const Actor& actor);
    Result<std::uint64_t> addShard(const ShardRecord& shard, const Actor& actor);
    // Transitions: active, draining and readonly into each other; retired only when no space
    // lives on (or migrates to) the shard; nothing leaves retired.
    Result<std::uint64_t> setShardState(const std::string& shardId, ShardState state, const Actor& actor);
    Result<std::uint64_t> removeShard(const std::string& shardId, const Actor& actor);
    // A pin keeps placement and planning from putting the space anywhere else.
    Result<std::uint64_t> pinSpace(const std::string& spaceId, const std::string& shardId, const Actor& actor);
    Result<std::uint64_t> unpinSpace(const std::string& spaceId, const Actor& actor);
    // Hands a space to another shard by hand: owner and epoch + 1 in one compare-and-set. The
    // documents do not move (that is a migration); the nodes learn the new epoch on the next
    // write (routers push the map's ownership) or from the controller.
    Result<SpaceRecord> reassignSpace(const std::string& spaceId, const std::string& shardId, const Actor& actor);

    // A node's failure domain (core/map/copy_placement.h validateZone; empty: none). Copies placed
    // already stay where they are.
    Result<std::uint64_t> setNodeZone(const std::string& nodeId, const std::string& zone, const Actor& actor);

    // The copies of a shard (issue 30; map_editor_copies.cpp). The node steps (creating the copy
    // on its node, dropping it, telling nodes a new epoch) are FleetAdmin's.
    //
    // What a change of copies committed: the shard as it is now, the spaces whose epoch it raised
    // (as they are now) and the map's revision.
    struct CopyChange {
        ShardRecord shard;
        std::vector<SpaceRecord> spaces;
        std::uint64_t revision = 0;
    };
    // Lists a copy on the node if checkCopyPlacement allows it: in sync at once when the shard
    // holds no space (there is nothing to copy), catching up otherwise (the executor's catch-up
    // brings it in sync). The node record is part of the compare-and-set: a node lost or retired
    // meanwhile refuses the change.
    Result<CopyChange> addReplica(const std::string& shardId, const std::string& nodeId, const Actor& actor);
    // Takes a replica off the map. Refused for the primary (promote another copy first) and for
    // the last in-sync copy that serves (a primary on a lost node does not).
    Result<CopyChange> removeReplica(const std::string& shardId, const std::string& nodeId, const Actor& actor);
    // Makes an in-sync replica the primary; the old primary becomes a catching-up replica, and
    // every space on the shard gets epoch + 1 in the same compare-and-set, so the old primary's
    // writes at the old epoch are refused once its node learns the new one.
    Result<CopyChange> promote(const std::string& shardId, const std::string& nodeId, const Actor& actor);
    // What marking a node lost committed: every shard it changed (its copies there lost; where its
    // primary was there and an in-sync replica existed, that replica promoted with the spaces'
    // epochs + 1) and the shards left with no in-sync copy (red: the primary stays, on a lost node).
    struct NodeLoss {
        std::uint64_t revision = 0;
        std::vector<CopyChange> promoted;
        std::vector<std::string> withoutCopy;
    };
    // Marks a node lost, all in one compare-and-set. Idempotent: a node lost already changes nothing.
    Result<NodeLoss> loseNode(const std::string& nodeId, const Actor& actor);
    // A shard's replication factor (0: the fleet's) and, when given, whether its copies may share
    // a zone; checked by checkShardReplicationFactor.
    Result<std::uint64_t> setReplication(
        const std::string& shardId, std::uint32_t factor, std::optional<bool> allowSameZone, const Actor& actor);

    // The next version of an index template (version 1 for a new name; map_editor_templates.cpp)
    // with these settings, checked by validateIndexSettings. Refused for the built-in default's
    // name and when the settings equal the newest version's. One create-only commit
    // ("create-template"): of two administrators creating the same version, one gets Conflict.
    Result<IndexTemplateRecord> createTemplate(
        const std::string& name, const IndexSettings& settings, const std::string& description, const Actor& actor);

    Result<MapSnapshot> snapshot();

private:
    struct SpaceEdit {
        SpaceRecord record;
        std::uint64_t revision = 0;
    };
    // Changes one space record in place; returns whether anything changed (nothing is committed
    // when not) or the reason the change is refused.
    using SpaceChange = std::function<Result<bool>(const MapSnapshot&, SpaceRecord&)>;
    // Reads the space, applies change, commits it with a compare-and-set on the record read.
    Result<SpaceEdit> editSpace(
        const std::string& spaceId, const Actor& actor, const std::string& action, const SpaceChange& change);
    Result<std::uint64_t> commitOne(Mutation mutation, const Actor& actor, const std::string& action);
    // Commits a shard record changed in place with the spaces whose epoch rose.
    Result<CopyChange> commitCopies(const MapSnapshot& map, const ShardRecord& shard, std::vector<SpaceRecord> spaces,
        std::vector<Mutation> more, const Actor& actor, const std::string& action);
    // Commits a change of copies, with the fence when the editor has one.
    Result<std::uint64_t> commitFenced(CommitRequest request);

    MetadataStore& m_store;
    FenceSource m_fence;
};

// Checks a node or shard id (1-64 chars of [A-Za-z0-9._-]) and a HOST:PORT address.
Status validateNodeAddress(std::string_view address);

} // namespace shardmap::core
