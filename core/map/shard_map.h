#pragma once

// The shard map as of one revision (MapSnapshot), the codec of its records and the diff between two
// revisions.

#include "core/map/map_index.h"
#include "core/map/map_types.h"
#include "core/store/metadata_store.h"
#include "core/util/result.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace shardmap::core {

// A record with the store revision that last changed it, for per-record compare-and-set.
template <typename T> struct Versioned {
    T value;
    std::uint64_t modRevision = 0;
};

// A snapshot's index: moves with the snapshot (std::map keeps its nodes when moved) but is not
// copied (it points into the original's records), so a copy answers by scanning until indexed.
class MapIndexSlot {
public:
    MapIndexSlot() = default;
    MapIndexSlot(const MapIndexSlot&) { }
    MapIndexSlot& operator=(const MapIndexSlot&)
    {
        m_index.reset();
        return *this;
    }
    MapIndexSlot(MapIndexSlot&&) noexcept = default;
    MapIndexSlot& operator=(MapIndexSlot&&) noexcept = default;
    ~MapIndexSlot() = default;

    const MapIndex* get() const { return m_index.get(); }
    void reset(std::unique_ptr<const MapIndex> index) { m_index = std::move(index); }

private:
    std::unique_ptr<const MapIndex> m_index;
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
    // Index templates by their key's tail, "NAME/VERSION" (core/map/index_templates.h reads them;
    // the built-in default is not among them).
    std::map<std::string, Versioned<IndexTemplateRecord>> templates;

    // What changed since the previous snapshot a reader saw (nullptr: not known), set by whoever
    // computed it (the console's connection, off the UI thread).
    std::shared_ptr<const MapChanges> changes;

    static Result<MapSnapshot> decode(const StoreSnapshot& snapshot);
    // The same, consuming the snapshot record by record (less memory at its peak).
    static Result<MapSnapshot> decode(StoreSnapshot&& snapshot);

    // Indexes the complete snapshot: spacesOn() and shardsOn() answer from the index from then on.
    // Changing the records afterwards needs another call.
    void buildIndex();
    // nullptr until buildIndex().
    const MapIndex* index() const { return m_index.get(); }

    const NodeRecord* node(const std::string& id) const;
    const ShardRecord* shard(const std::string& id) const;
    const SpaceRecord* space(const std::string& id) const;
    // Spaces whose owner or migration target is the shard.
    std::vector<const SpaceRecord*> spacesOn(const std::string& shardId) const;
    // Shards whose primary is on the node.
    std::vector<const ShardRecord*> shardsOn(const std::string& nodeId) const;
    // Shards the node holds a replica of (in any state).
    std::vector<const ShardRecord*> copiesOn(const std::string& nodeId) const;

private:
    MapIndexSlot m_index;
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
    // The shard the space is pinned to before and after (empty: none); an isolate sets one.
    std::string fromPin;
    std::string toPin;
};

struct ShardChange {
    std::string shard;
    std::optional<ShardState> before; // nullopt: created
    std::optional<ShardState> after; // nullopt: removed
    // Where its copies are before and after (copiesText; empty when the shard is absent), so that
    // an added, promoted, lost or removed copy shows.
    std::string fromCopies {};
    std::string toCopies {};
};

// A shard's copies in one line: the primary's node, then each replica with its state
// ("n1 primary, n2 in_sync, n3 catching_up").
std::string copiesText(const ShardRecord& shard);

struct NodeChange {
    std::string node;
    bool added = false;
    bool removed = false;
    // Marked lost in these revisions, or a lost node's mark taken back.
    bool lost {};
    bool found {};
    // Its zone before and after, when it changed.
    std::string fromZone {};
    std::string toZone {};
};

struct MapDiff {
    std::uint64_t fromRevision = 0;
    std::uint64_t toRevision = 0;
    std::vector<SpaceMove> spaces;
    std::vector<ShardChange> shards;
    std::vector<NodeChange> nodes;
    std::size_t commits = 0;
    // Index template versions created ("NAME:VERSION"), and removed.
    std::vector<std::string> templatesAdded = {};
    std::vector<std::string> templatesRemoved = {};
};

// Folds the audit records between two revisions into one diff (any order of arguments).
Result<MapDiff> diffRevisions(MetadataStore& store, std::uint64_t a, std::uint64_t b);

} // namespace shardmap::core
