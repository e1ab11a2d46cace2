#include "core/map/map_index.h"
#include "core/map/shard_map.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <random>
#include <set>

using namespace shardmap::core;

namespace {

std::string shardName(std::size_t i)
{
    return "s" + std::to_string(i);
}

// Nodes n0..n3, shards s0..s(shards-1) over them, spaces spread at random; some migrating.
MapSnapshot randomMap(std::mt19937& random, std::size_t shards, std::size_t spaces)
{
    MapSnapshot map;
    map.revision = 7;
    for (std::size_t n = 0; n < 4; ++n) {
        const std::string id = "n" + std::to_string(n);
        map.nodes[id] = { NodeRecord { id, "127.0.0.1:" + std::to_string(7400 + n), {}, false }, 1 };
    }
    std::uniform_int_distribution<std::size_t> node(0, 3);
    for (std::size_t s = 0; s < shards; ++s)
        map.shards[shardName(s)]
            = { ShardRecord { shardName(s), "n" + std::to_string(node(random)), ShardState::Active, 0, 0 }, 2 };
    std::uniform_int_distribution<std::size_t> shard(0, shards - 1);
    std::uniform_int_distribution<int> percent(0, 99);
    for (std::size_t i = 0; i < spaces; ++i) {
        SpaceRecord space;
        space.id = "space-" + std::to_string(i);
        space.shard = shardName(shard(random));
        space.epoch = 1;
        if (percent(random) < 10) {
            space.migrationId = "m-" + std::to_string(i);
            space.target = shardName(shard(random)); // sometimes the owner itself
            space.phase = MigrationPhase::Backfill;
        }
        map.spaces[space.id] = { space, 3 };
    }
    return map;
}

std::vector<std::string> idsOf(const std::vector<const SpaceRecord*>& spaces)
{
    std::vector<std::string> ids;
    for (const SpaceRecord* space : spaces)
        ids.push_back(space->id);
    return ids;
}

std::vector<std::string> shardIdsOf(const std::vector<const ShardRecord*>& shards)
{
    std::vector<std::string> ids;
    for (const ShardRecord* shard : shards)
        ids.push_back(shard->id);
    return ids;
}

// The brute-force answers the index replaces.
std::vector<std::string> scanSpacesOn(const MapSnapshot& map, const std::string& shard)
{
    std::vector<std::string> ids;
    for (const auto& [id, space] : map.spaces) {
        if (space.value.shard == shard || space.value.target == shard)
            ids.push_back(id);
    }
    return ids;
}

std::size_t scanOwned(const MapSnapshot& map, const std::string& shard)
{
    return static_cast<std::size_t>(std::count_if(
        map.spaces.begin(), map.spaces.end(), [&](const auto& entry) { return entry.second.value.shard == shard; }));
}

TEST(MapIndexTest, AnswersAsAScanOfEverySpaceOnRandomMaps)
{
    std::mt19937 random(16);
    for (int round = 0; round < 5; ++round) {
        MapSnapshot map = randomMap(random, 30, 2000);
        map.buildIndex();
        ASSERT_NE(map.index(), nullptr);
        std::size_t migrating = 0;
        for (const auto& [id, space] : map.spaces)
            migrating += space.value.migrating() ? 1 : 0;
        EXPECT_EQ(map.index()->migrating().size(), migrating);
        for (std::size_t s = 0; s <= 30; ++s) { // s30 is in no record
            const std::string shard = shardName(s);
            EXPECT_EQ(idsOf(map.spacesOn(shard)), scanSpacesOn(map, shard)) << shard;
            EXPECT_EQ(map.index()->ownedCount(shard), scanOwned(map, shard)) << shard;
        }
        for (std::size_t n = 0; n <= 4; ++n) {
            const std::string node = "n" + std::to_string(n);
            std::vector<std::string> scanned;
            for (const auto& [id, shard] : map.shards) {
                if (shard.value.node == node)
                    scanned.push_back(id);
            }
            EXPECT_EQ(shardIdsOf(map.shardsOn(node)), scanned) << node;
        }
        EXPECT_TRUE(map.spacesOn("").empty());
    }
}

TEST(MapIndexTest, AMigratingSpaceIsOnItsOwnerAndItsTargetOnce)
{
    MapSnapshot map;
    map.spaces["a"] = { SpaceRecord { "a", "s1", 4, "m1", "s2", MigrationPhase::Backfill, "", false }, 1 };
    map.spaces["b"] = { SpaceRecord { "b", "s1", 1, "m2", "s1", MigrationPhase::Queued, "", false }, 1 };
    map.buildIndex();
    EXPECT_EQ(idsOf(map.spacesOn("s1")), (std::vector<std::string> { "a", "b" }));
    EXPECT_EQ(idsOf(map.spacesOn("s2")), (std::vector<std::string> { "a" }));
    EXPECT_EQ(map.index()->ownedCount("s1"), 2U);
    EXPECT_EQ(map.index()->ownedCount("s2"), 0U);
}

TEST(MapIndexTest, ACopyIsNotIndexedAndStillAnswersFromItsOwnRecords)
{
    std::mt19937 random(3);
    MapSnapshot map = randomMap(random, 5, 200);
    map.buildIndex();
    MapSnapshot copy = map;
    EXPECT_EQ(copy.index(), nullptr);
    copy.spaces.erase(copy.spaces.begin());
    for (std::size_t s = 0; s < 5; ++s)
        EXPECT_EQ(idsOf(copy.spacesOn(shardName(s))), scanSpacesOn(copy, shardName(s)));
    // A moved snapshot keeps its index, and the index still points at live records.
    MapSnapshot moved = std::move(map);
    ASSERT_NE(moved.index(), nullptr);
    for (std::size_t s = 0; s < 5; ++s)
        EXPECT_EQ(idsOf(moved.spacesOn(shardName(s))), scanSpacesOn(moved, shardName(s)));
}

TEST(MapChangesTest, NamesMovedAddedAndRemovedSpacesAndTheShardsTheyTouch)
{
    MapSnapshot before;
    before.revision = 10;
    before.shards["s1"] = { ShardRecord { "s1", "n1", ShardState::Active, 0, 0 }, 1 };
    before.shards["s2"] = { ShardRecord { "s2", "n1", ShardState::Active, 0, 0 }, 1 };
    before.spaces["a"] = { SpaceRecord { "a", "s1", 1, "", "", MigrationPhase::Done, "", false }, 2 };
    before.spaces["b"] = { SpaceRecord { "b", "s1", 1, "", "", MigrationPhase::Done, "", false }, 2 };
    before.spaces["c"] = { SpaceRecord { "c", "s2", 1, "", "", MigrationPhase::Done, "", false }, 2 };
    MapSnapshot after = before;
    after.revision = 12;
    after.spaces["a"] = { SpaceRecord { "a", "s2", 2, "", "", MigrationPhase::Done, "", false }, 11 }; // moved
    after.spaces.erase("b");
    after.spaces["d"] = { SpaceRecord { "d", "s3", 1, "", "", MigrationPhase::Done, "", false }, 12 };
    after.shards["s3"] = { ShardRecord { "s3", "n2", ShardState::Active, 0, 0 }, 12 };
    after.shards["s2"].value.state = ShardState::Draining;
    after.settings.modRevision = 12;

    const MapChanges changes = diffMaps(before, after);
    EXPECT_EQ(changes.fromRevision, 10U);
    EXPECT_EQ(changes.toRevision, 12U);
    EXPECT_EQ(changes.spaces.added, (std::vector<std::string> { "d" }));
    EXPECT_EQ(changes.spaces.removed, (std::vector<std::string> { "b" }));
    EXPECT_EQ(changes.spaces.changed, (std::vector<std::string> { "a" }));
    EXPECT_EQ(changes.spaceShards, (std::vector<std::string> { "s1", "s2", "s3" }));
    EXPECT_EQ(changes.shards.added, (std::vector<std::string> { "s3" }));
    EXPECT_EQ(changes.shards.changed, (std::vector<std::string> { "s2" }));
    EXPECT_TRUE(changes.shards.removed.empty());
    EXPECT_TRUE(changes.nodes.empty());
    EXPECT_TRUE(changes.settingsChanged);
    EXPECT_FALSE(changes.empty());
    EXPECT_TRUE(diffMaps(after, after).empty());
}

TEST(MapChangesTest, ApplyingTheChangesToTheOldIndexGivesTheNewOneOnRandomMaps)
{
    std::mt19937 random(99);
    for (int round = 0; round < 5; ++round) {
        MapSnapshot before = randomMap(random, 20, 1000);
        MapSnapshot after = before;
        after.revision = before.revision + 1;
        std::uniform_int_distribution<std::size_t> space(0, 1499);
        std::uniform_int_distribution<std::size_t> shard(0, 19);
        std::set<std::string> expectChanged;
        for (int k = 0; k < 50; ++k) {
            const std::string id = "space-" + std::to_string(space(random));
            if (k % 3 == 0) {
                after.spaces.erase(id);
            } else {
                SpaceRecord record { id, shardName(shard(random)), 9, "", "", MigrationPhase::Done, "", false };
                after.spaces[id] = { record, 8 };
            }
        }
        before.buildIndex();
        after.buildIndex();
        const MapChanges changes = diffMaps(before, after);

        // Brute force: every id whose record differs, and every shard whose list differs.
        std::set<std::string> ids;
        for (const auto& [id, entry] : before.spaces)
            ids.insert(id);
        for (const auto& [id, entry] : after.spaces)
            ids.insert(id);
        std::vector<std::string> added, removed, changed;
        for (const std::string& id : ids) {
            const SpaceRecord* was = before.space(id);
            const SpaceRecord* is = after.space(id);
            if (!was)
                added.push_back(id);
            else if (!is)
                removed.push_back(id);
            else if (!(*was == *is) || before.spaces.at(id).modRevision != after.spaces.at(id).modRevision)
                changed.push_back(id);
        }
        EXPECT_EQ(changes.spaces.added, added);
        EXPECT_EQ(changes.spaces.removed, removed);
        EXPECT_EQ(changes.spaces.changed, changed);
        for (std::size_t s = 0; s < 20; ++s) {
            const std::string id = shardName(s);
            const bool listed = std::binary_search(changes.spaceShards.begin(), changes.spaceShards.end(), id);
            if (idsOf(before.spacesOn(id)) != idsOf(after.spacesOn(id))) {
                EXPECT_TRUE(listed) << id << " changed but is not named";
            }
        }
        EXPECT_TRUE(std::is_sorted(changes.spaceShards.begin(), changes.spaceShards.end()));
    }
}

} // namespace
