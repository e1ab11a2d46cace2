#include "core/map/index_templates.h"
#include "core/map/shard_map.h"

// The diff between two revisions of the map (the audit records between them folded per key), and
// how a shard's copies read in it.

#include <algorithm>
#include <map>
#include <optional>
#include <string>

namespace shardmap::core {

namespace {

std::string recordIdOf(std::string_view key, std::string_view prefix)
{
    return std::string(key.substr(prefix.size()));
}

} // namespace

std::string copiesText(const ShardRecord& shard)
{
    std::string out = shard.node + " primary";
    for (const ShardCopy& copy : shard.replicas)
        out += ", " + copy.node + " " + copyStateName(copy.state);
    return out;
}

namespace {

struct KeyFold {
    std::optional<std::string> before;
    std::optional<std::string> after;
};

void addSpace(MapDiff& diff, const std::string& key, const KeyFold& fold)
{
    const auto before = fold.before ? decodeSpace(*fold.before) : Result<SpaceRecord>(Error {});
    const auto after = fold.after ? decodeSpace(*fold.after) : Result<SpaceRecord>(Error {});
    SpaceMove move { recordIdOf(key, keys::kSpaces), before ? before->shard : "", after ? after->shard : "",
        before ? before->epoch : 0, after ? after->epoch : 0, before ? before->pin : "", after ? after->pin : "" };
    if (move.fromShard != move.toShard || move.fromEpoch != move.toEpoch || move.fromPin != move.toPin)
        diff.spaces.push_back(std::move(move));
}

void addShard(MapDiff& diff, const std::string& key, const KeyFold& fold)
{
    const auto before = fold.before ? decodeShard(*fold.before) : Result<ShardRecord>(Error {});
    const auto after = fold.after ? decodeShard(*fold.after) : Result<ShardRecord>(Error {});
    ShardChange change { recordIdOf(key, keys::kShards), std::nullopt, std::nullopt, {}, {} };
    if (before) {
        change.before = before->state;
        change.fromCopies = copiesText(*before);
    }
    if (after) {
        change.after = after->state;
        change.toCopies = copiesText(*after);
    }
    if (change.before != change.after || change.fromCopies != change.toCopies)
        diff.shards.push_back(std::move(change));
}

void addNode(MapDiff& diff, const std::string& key, const KeyFold& fold)
{
    const auto before = fold.before ? decodeNode(*fold.before) : Result<NodeRecord>(Error {});
    const auto after = fold.after ? decodeNode(*fold.after) : Result<NodeRecord>(Error {});
    NodeChange change { recordIdOf(key, keys::kNodes), !fold.before, !fold.after };
    if (before && after) {
        change.lost = !before->lost && after->lost;
        change.found = before->lost && !after->lost;
        if (before->zone != after->zone) {
            change.fromZone = before->zone;
            change.toZone = after->zone;
        }
    }
    if (change.added != change.removed || change.lost || change.found || change.fromZone != change.toZone)
        diff.nodes.push_back(std::move(change));
}

void addTemplate(MapDiff& diff, const KeyFold& fold)
{
    const auto record = decodeIndexTemplate(fold.after ? *fold.after : *fold.before);
    if (!record)
        return;
    (fold.after ? diff.templatesAdded : diff.templatesRemoved).push_back(templateLabel(record->name, record->version));
}

} // namespace

Result<MapDiff> diffRevisions(MetadataStore& store, std::uint64_t a, std::uint64_t b)
{
    const std::uint64_t from = std::min(a, b);
    const std::uint64_t to = std::max(a, b);
    auto current = store.currentRevision();
    if (!current)
        return current.error();
    if (to > *current)
        return makeError(ErrorCode::NotFound,
            "revision " + std::to_string(to) + " does not exist yet; the map is at " + std::to_string(*current));
    auto records = store.history(from, to, 0);
    if (!records)
        return records.error();
    std::map<std::string, KeyFold> folds;
    for (const auto& record : *records) {
        for (const auto& change : record.changes) {
            auto [entry, inserted] = folds.try_emplace(change.key, KeyFold { change.before, change.after });
            if (!inserted)
                entry->second.after = change.after;
        }
    }
    MapDiff diff { from, to, {}, {}, {}, records->size() };
    for (const auto& [key, fold] : folds) {
        if (key.starts_with(keys::kSpaces))
            addSpace(diff, key, fold);
        else if (key.starts_with(keys::kShards))
            addShard(diff, key, fold);
        else if (key.starts_with(keys::kNodes))
            addNode(diff, key, fold);
        else if (key.starts_with(keys::kTemplates) && !fold.before != !fold.after)
            addTemplate(diff, fold);
    }
    return diff;
}

} // namespace shardmap::core
