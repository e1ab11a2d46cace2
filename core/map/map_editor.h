#pragma once

// The administrative edits of the shard map (nodes, shards, a space's pin and owner), each one
// audited compare-and-set commit.

#include "core/map/shard_map.h"
#include "core/store/metadata_store.h"

#include <functional>
#include <map>
#include <string>

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
    explicit MapEditor(MetadataStore& store);

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

    MetadataStore& m_store;
};

// Checks a node or shard id (1-64 chars of [A-Za-z0-9._-]) and a HOST:PORT address.
Status validateNodeAddress(std::string_view address);

} // namespace shardmap::core
