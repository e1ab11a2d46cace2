#pragma once

// What the views of the map ask of a snapshot fast: its spaces by shard and shards by node, and what
// changed from the snapshot before.

#include "core/map/map_types.h"

#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace shardmap::core {

struct MapSnapshot;

// One snapshot's spaces by shard and shards by node, built in one pass (the console builds it on
// its pool, next to decoding), so that "which spaces are on shard s" costs the answer instead of a
// scan of every space: at 10,000 shards and a million spaces, scanning per shard was hours of UI
// time. It points into the snapshot's records and is valid while that snapshot lives unchanged.
class MapIndex {
public:
    explicit MapIndex(const MapSnapshot& map);

    // Spaces whose owner or migration target is the shard, in id order.
    const std::vector<const SpaceRecord*>& spacesOn(const std::string& shardId) const;
    // How many spaces the shard owns (migration targets not counted).
    std::size_t ownedCount(const std::string& shardId) const;
    // The node's shards in id order (those whose primary it holds).
    const std::vector<const ShardRecord*>& shardsOn(const std::string& nodeId) const;
    // The shards the node holds a replica of, in id order.
    const std::vector<const ShardRecord*>& copiesOn(const std::string& nodeId) const;
    // Spaces with a migration open, in id order.
    const std::vector<const SpaceRecord*>& migrating() const { return m_migrating; }

private:
    struct Shard {
        std::vector<const SpaceRecord*> spaces;
        std::size_t owned = 0;
    };

    std::unordered_map<std::string, Shard> m_shards;
    std::unordered_map<std::string, std::vector<const ShardRecord*>> m_nodes;
    std::unordered_map<std::string, std::vector<const ShardRecord*>> m_copies;
    std::vector<const SpaceRecord*> m_migrating;
};

// Ids of records of one kind that appeared, went or changed, each list in id order.
struct KeyChanges {
    std::vector<std::string> added;
    std::vector<std::string> removed;
    std::vector<std::string> changed;

    bool empty() const { return added.empty() && removed.empty() && changed.empty(); }
};

// What changed from one snapshot to the next, by id, so that a view applies only that: a space
// that moved is "changed", and the shards it left and entered are in spaceShards. Computed next
// to decoding, off the UI thread; a view applies it only when fromRevision is the map it shows.
struct MapChanges {
    std::uint64_t fromRevision = 0;
    std::uint64_t toRevision = 0;
    KeyChanges nodes;
    KeyChanges shards;
    KeyChanges spaces;
    KeyChanges migrations;
    KeyChanges operations;
    bool settingsChanged = false;
    // Shards whose spacesOn() list or ownedCount() may differ: every owner and migration target
    // of a space before and after the change, in id order.
    std::vector<std::string> spaceShards;

    bool empty() const;
};

MapChanges diffMaps(const MapSnapshot& before, const MapSnapshot& after);

// The ids of each kind of record that some commits touched (put or deleted).
struct TouchedIds {
    std::set<std::string> nodes;
    std::set<std::string> shards;
    std::set<std::string> spaces;
    std::set<std::string> migrations;
    std::set<std::string> operations;
    bool settings = false;
};

// diffMaps over the touched ids only, for two snapshots that differ in nothing else (the one
// before some commits and the one after): the cost of the commits, not of the map.
MapChanges diffTouched(const MapSnapshot& before, const MapSnapshot& after, const TouchedIds& touched);

} // namespace shardmap::core
