#include "core/map/map_index.h"

// MapIndex's implementation, and the diffs between two snapshots: over every record, or over only
// the ids some commits touched.

#include "core/map/shard_map.h"

#include <algorithm>
#include <set>

namespace shardmap::core {

MapIndex::MapIndex(const MapSnapshot& map)
{
    for (const auto& [id, shard] : map.shards) {
        m_nodes[shard.value.node].push_back(&shard.value);
        for (const ShardCopy& copy : shard.value.replicas)
            m_copies[copy.node].push_back(&shard.value);
    }
    // std::map walks spaces in id order, so every list comes out sorted.
    for (const auto& [id, space] : map.spaces) {
        const SpaceRecord& record = space.value;
        Shard& owner = m_shards[record.shard];
        owner.spaces.push_back(&record);
        ++owner.owned;
        if (!record.target.empty() && record.target != record.shard)
            m_shards[record.target].spaces.push_back(&record);
        if (record.migrating())
            m_migrating.push_back(&record);
    }
}

const std::vector<const SpaceRecord*>& MapIndex::spacesOn(const std::string& shardId) const
{
    static const std::vector<const SpaceRecord*> none;
    const auto found = m_shards.find(shardId);
    return found == m_shards.end() ? none : found->second.spaces;
}

std::size_t MapIndex::ownedCount(const std::string& shardId) const
{
    const auto found = m_shards.find(shardId);
    return found == m_shards.end() ? 0 : found->second.owned;
}

const std::vector<const ShardRecord*>& MapIndex::shardsOn(const std::string& nodeId) const
{
    static const std::vector<const ShardRecord*> none;
    const auto found = m_nodes.find(nodeId);
    return found == m_nodes.end() ? none : found->second;
}

const std::vector<const ShardRecord*>& MapIndex::copiesOn(const std::string& nodeId) const
{
    static const std::vector<const ShardRecord*> none;
    const auto found = m_copies.find(nodeId);
    return found == m_copies.end() ? none : found->second;
}

bool MapChanges::empty() const
{
    return nodes.empty() && shards.empty() && spaces.empty() && migrations.empty() && operations.empty()
        && !settingsChanged;
}

namespace {

// Both maps are in key order: one merge walk. onChanged sees the two records of a changed key.
template <typename Records, typename OnChanged>
KeyChanges diffRecords(const Records& before, const Records& after, OnChanged onChanged)
{
    KeyChanges changes;
    auto a = before.begin();
    auto b = after.begin();
    while (a != before.end() || b != after.end()) {
        if (b == after.end() || (a != before.end() && a->first < b->first)) {
            changes.removed.push_back(a->first);
            onChanged(&a->second.value, static_cast<decltype(&a->second.value)>(nullptr));
            ++a;
        } else if (a == before.end() || b->first < a->first) {
            changes.added.push_back(b->first);
            onChanged(static_cast<decltype(&b->second.value)>(nullptr), &b->second.value);
            ++b;
        } else {
            if (a->second.modRevision != b->second.modRevision || !(a->second.value == b->second.value)) {
                changes.changed.push_back(a->first);
                onChanged(&a->second.value, &b->second.value);
            }
            ++a;
            ++b;
        }
    }
    return changes;
}

void addShardsOf(std::set<std::string>& shards, const SpaceRecord* space)
{
    if (!space)
        return;
    shards.insert(space->shard);
    if (!space->target.empty())
        shards.insert(space->target);
}

// diffRecords' comparison over the touched ids only.
template <typename T, typename OnChanged>
KeyChanges compareTouched(const std::map<std::string, Versioned<T>>& before,
    const std::map<std::string, Versioned<T>>& after, const std::set<std::string>& touched, OnChanged onChanged)
{
    KeyChanges changes;
    for (const std::string& id : touched) {
        const auto was = before.find(id);
        const auto is = after.find(id);
        const T* wasValue = was == before.end() ? nullptr : &was->second.value;
        const T* isValue = is == after.end() ? nullptr : &is->second.value;
        if (!wasValue && !isValue)
            continue;
        if (!wasValue)
            changes.added.push_back(id);
        else if (!isValue)
            changes.removed.push_back(id);
        else if (was->second.modRevision != is->second.modRevision || !(*wasValue == *isValue))
            changes.changed.push_back(id);
        else
            continue;
        onChanged(wasValue, isValue);
    }
    return changes;
}

} // namespace

MapChanges diffTouched(const MapSnapshot& before, const MapSnapshot& after, const TouchedIds& touched)
{
    MapChanges changes;
    changes.fromRevision = before.revision;
    changes.toRevision = after.revision;
    const auto ignore = [](const auto*, const auto*) {};
    changes.nodes = compareTouched(before.nodes, after.nodes, touched.nodes, ignore);
    changes.shards = compareTouched(before.shards, after.shards, touched.shards, ignore);
    std::set<std::string> spaceShards;
    changes.spaces = compareTouched(
        before.spaces, after.spaces, touched.spaces, [&](const SpaceRecord* was, const SpaceRecord* is) {
            addShardsOf(spaceShards, was);
            addShardsOf(spaceShards, is);
        });
    changes.spaceShards.assign(spaceShards.begin(), spaceShards.end());
    changes.migrations = compareTouched(before.migrations, after.migrations, touched.migrations, ignore);
    changes.operations = compareTouched(before.operations, after.operations, touched.operations, ignore);
    changes.settingsChanged = touched.settings
        && (before.settings.modRevision != after.settings.modRevision
            || !(before.settings.value == after.settings.value));
    return changes;
}

MapChanges diffMaps(const MapSnapshot& before, const MapSnapshot& after)
{
    MapChanges changes;
    changes.fromRevision = before.revision;
    changes.toRevision = after.revision;
    const auto ignore = [](const auto*, const auto*) {};
    changes.nodes = diffRecords(before.nodes, after.nodes, ignore);
    changes.shards = diffRecords(before.shards, after.shards, ignore);
    std::set<std::string> touched;
    changes.spaces = diffRecords(before.spaces, after.spaces, [&](const SpaceRecord* was, const SpaceRecord* is) {
        addShardsOf(touched, was);
        addShardsOf(touched, is);
    });
    changes.spaceShards.assign(touched.begin(), touched.end());
    changes.migrations = diffRecords(before.migrations, after.migrations, ignore);
    changes.operations = diffRecords(before.operations, after.operations, ignore);
    changes.settingsChanged
        = before.settings.modRevision != after.settings.modRevision || !(before.settings.value == after.settings.value);
    return changes;
}

} // namespace shardmap::core
