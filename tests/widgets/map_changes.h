#pragma once

// Maps that change the way the console's connection delivers them: indexed, with the changes
// from the previous snapshot, for tests of the pages' incremental map updates.
#include "core/map/map_index.h"
#include "core/map/shard_map.h"

#include <memory>
#include <random>
#include <string>

namespace shardmap::testing {

// Nodes n0..n2, shards k0..k(shards-1) spread over them, spaces spread at random.
inline std::shared_ptr<core::MapSnapshot> randomMap(std::mt19937& random, int shards, int spaces)
{
    auto map = std::make_shared<core::MapSnapshot>();
    map->revision = 1;
    for (int n = 0; n < 3; ++n) {
        const std::string id = "n" + std::to_string(n);
        map->nodes[id] = { core::NodeRecord { id, "127.0.0.1:" + std::to_string(7400 + n), {}, false }, 1 };
    }
    for (int s = 0; s < shards; ++s) {
        const std::string id = "k" + std::to_string(s);
        map->shards[id] = { core::ShardRecord { id, "n" + std::to_string(s % 3), core::ShardState::Active, 0, 0 }, 1 };
    }
    std::uniform_int_distribution<int> shard(0, shards - 1);
    for (int i = 0; i < spaces; ++i) {
        core::SpaceRecord space;
        space.id = "sp" + std::to_string(i);
        space.shard = "k" + std::to_string(shard(random));
        map->spaces[space.id] = { space, 1 };
    }
    map->buildIndex();
    return map;
}

// The next revision of map: spaces moved, added and removed, a shard added, one removed (its
// spaces move first) and one draining; indexed, with its changes from map, as the connection
// delivers it.
inline std::shared_ptr<core::MapSnapshot> nextMap(std::mt19937& random, const core::MapSnapshot& map)
{
    auto next = std::make_shared<core::MapSnapshot>(map);
    next->revision = map.revision + 1;
    std::vector<std::string> shards;
    for (const auto& [id, shard] : next->shards)
        shards.push_back(id);
    std::uniform_int_distribution<std::size_t> pick(0, shards.size() - 1);
    std::uniform_int_distribution<int> percent(0, 99);
    const std::string added = "k" + std::to_string(100 + next->revision);
    next->shards[added]
        = { core::ShardRecord { added, "n" + std::to_string(next->revision % 3), core::ShardState::Active, 0, 0 },
              next->revision };
    const std::string removed = shards[pick(random)];
    next->shards.erase(removed);
    shards.erase(std::find(shards.begin(), shards.end(), removed));
    shards.push_back(added);
    std::uniform_int_distribution<std::size_t> target(0, shards.size() - 1);
    next->shards[shards[target(random)]].value.state = core::ShardState::Draining;
    for (auto it = next->spaces.begin(); it != next->spaces.end();) {
        core::SpaceRecord& space = it->second.value;
        const int roll = percent(random);
        if (roll < 3) {
            it = next->spaces.erase(it);
            continue;
        }
        if (space.shard == removed || roll < 10) {
            space.shard = shards[target(random)];
            ++space.epoch;
            it->second.modRevision = next->revision;
        }
        ++it;
    }
    for (int i = 0; i < 5; ++i) {
        core::SpaceRecord space;
        space.id = "new" + std::to_string(next->revision) + "-" + std::to_string(i);
        space.shard = shards[target(random)];
        next->spaces[space.id] = { space, next->revision };
    }
    next->buildIndex();
    next->changes = std::make_shared<const core::MapChanges>(core::diffMaps(map, *next));
    return next;
}

} // namespace shardmap::testing
