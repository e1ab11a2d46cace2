#pragma once

#include "core/map/map_types.h"
#include "core/store/metadata_store.h"
#include "core/util/result.h"

#include <map>
#include <string>
#include <vector>

namespace shardmap::core {

// A record with the store revision that last changed it, for per-record compare-and-set.
template <typename T> struct Versioned {
    T value;
    std::uint64_t modRevision = 0;
};

// The shard map as of one revision, decoded from a store snapshot: nodes, shards, spaces and
// migrations by id.
struct MapSnapshot {
    std::uint64_t revision = 0;
    std::map<std::string, Versioned<NodeRecord>> nodes;
    std::map<std::string, Versioned<ShardRecord>> shards;
    std::map<std::string, Versioned<SpaceRecord>> spaces;
    std::map<std::string, Versioned<MigrationRecord>> migrations;
    std::map<std::string, Versioned<OperationRecord>> operations;
    // The defaults (modRevision 0) until someone stores settings.
    Versioned<MigrationSettings> settings;

    static Result<MapSnapshot> decode(const StoreSnapshot& snapshot);

    const NodeRecord* node(const std::string& id) const;
    const ShardRecord* shard(const std::string& id) const;
    const SpaceRecord* space(const std::string& id) const;
    // Spaces whose owner or migration target is the shard.
    std::vector<const SpaceRecord*> spacesOn(const std::string& shardId) const;
    std::vector<const ShardRecord*> shardsOn(const std::string& nodeId) const;
};

// JSON encoding of the records as the store keeps them.
std::string encode(const NodeRecord& record);
std::string encode(const ShardRecord& record);
std::string encode(const SpaceRecord& record);
std::string encode(const MigrationRecord& record);
std::string encode(const MigrationSettings& settings);
std::string encode(const OperationRecord& record);
Result<NodeRecord> decodeNode(const std::string& json);
Result<ShardRecord> decodeShard(const std::string& json);
Result<SpaceRecord> decodeSpace(const std::string& json);
Result<MigrationRecord> decodeMigration(const std::string& json);
Result<MigrationSettings> decodeMigrationSettings(const std::string& json);
Result<OperationRecord> decodeOperation(const std::string& json);

// What changed between two revisions of the map.
struct SpaceMove {
    std::string space;
    std::string fromShard; // empty: the space was created
    std::string toShard; // empty: the space was removed
    std::uint64_t fromEpoch = 0;
    std::uint64_t toEpoch = 0;
};

struct ShardChange {
    std::string shard;
    std::optional<ShardState> before; // nullopt: created
    std::optional<ShardState> after; // nullopt: removed
};

struct NodeChange {
    std::string node;
    bool added = false;
    bool removed = false;
};

struct MapDiff {
    std::uint64_t fromRevision = 0;
    std::uint64_t toRevision = 0;
    std::vector<SpaceMove> spaces;
    std::vector<ShardChange> shards;
    std::vector<NodeChange> nodes;
    std::size_t commits = 0;
};

// Folds the audit records between two revisions into one diff (any order of arguments).
Result<MapDiff> diffRevisions(MetadataStore& store, std::uint64_t a, std::uint64_t b);

} // namespace shardmap::core
