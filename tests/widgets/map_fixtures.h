#pragma once

// A small shard map and node samples for the map page's tests: nodes n0 (shard s0) and n1
// (shards s1, s2), spaces a and b on s0 and c on s1, with their figures.
#include "widgets/map/shard_map_model.h"

#include <QMimeData>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace shardmap::widgets {

// Nodes n0 (shard s0) and n1 (shards s1, s2); spaces a, b on s0, c on s1.
inline std::shared_ptr<core::MapSnapshot> makeMap(std::uint64_t revision = 1)
{
    auto map = std::make_shared<core::MapSnapshot>();
    map->revision = revision;
    map->settings.value.maxTargetFill = 1.0;
    map->settings.value.defaultThrottleDocsPerSecond = 100;
    map->nodes["n0"] = { core::NodeRecord { "n0", "127.0.0.1:1", {}, false }, 1 };
    map->nodes["n1"] = { core::NodeRecord { "n1", "127.0.0.1:2", {}, false }, 1 };
    map->shards["s0"] = { core::ShardRecord { "s0", "n0", core::ShardState::Active, 0, 0 }, 1 };
    map->shards["s1"] = { core::ShardRecord { "s1", "n1", core::ShardState::Active, 0, 0 }, 1 };
    map->shards["s2"] = { core::ShardRecord { "s2", "n1", core::ShardState::Active, 0, 0 }, 1 };
    for (const auto& [space, shard] : { std::pair { "a", "s0" }, { "b", "s0" }, { "c", "s1" } }) {
        core::SpaceRecord record;
        record.id = space;
        record.shard = shard;
        map->spaces[space] = { record, 1 };
    }
    return map;
}

inline SamplePtr makeSample(
    const std::string& node, const std::map<std::string, std::vector<core::SpaceMetricsValue>>& shards)
{
    auto sample = std::make_shared<core::NodeMetricsValue>();
    sample->nodeId = node;
    for (const auto& [shard, spaces] : shards) {
        core::ShardMetricsValue figures;
        figures.shard = shard;
        for (const auto& space : spaces) {
            figures.liveDocs += space.liveDocs;
            figures.bytesEstimate += space.bytesEstimate;
        }
        figures.spaceMetrics = spaces;
        sample->shards.push_back(figures);
    }
    return sample;
}

inline void feed(ShardMapModel& model)
{
    model.applySample(
        QStringLiteral("n0"), makeSample("n0", { { "s0", { { "a", 100, 1000, 5, 0 }, { "b", 50, 500, 1, 0 } } } }));
    model.applySample(QStringLiteral("n1"), makeSample("n1", { { "s1", { { "c", 10, 100, 0, 0 } } }, { "s2", {} } }));
    model.flushProjections();
}

inline QString laneOf(const ShardMapModel& model, const QString& space)
{
    return model.spaceIndex(space).parent().data(ShardMapModel::IdRole).toString();
}

inline qulonglong projectedDocs(const ShardMapModel& model, const QString& shard)
{
    return model.laneIndex(shard).data(ShardMapModel::ProjectedDocsRole).toULongLong();
}

inline std::unique_ptr<QMimeData> dragOf(ShardMapModel& model, const QStringList& spaces)
{
    QModelIndexList indexes;
    for (const QString& space : spaces)
        indexes.push_back(model.spaceIndex(space));
    return std::unique_ptr<QMimeData>(model.mimeData(indexes));
}

} // namespace shardmap::widgets
