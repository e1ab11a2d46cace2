// ShardCreation's implementation: the node's AlreadyExists is a shard made before (kept), the
// admin.create_shard.drop failpoint stands in for a node that stops answering before the take-back.
#include "core/fleet/shard_creation.h"

#include "core/map/copy_placement.h"
#include "core/util/clock.h"
#include "core/util/failpoint.h"

namespace shardmap::core {

namespace {

Error leftOnNode(Error refused, const NewShard& shard, const std::string& why)
{
    refused.message += "; shard " + shard.id + " remains on node " + shard.node + " (" + why + "): create it on "
        + shard.node + " again once the store accepts the change (the node's shard is taken as created), or stop "
        + "the node and delete shards/" + shard.id + ".db from its data directory";
    refused.details["shard_left_on_node"] = shard.node;
    return refused;
}

// The engine a node says a shard has: empty from a node older than engines (all its shards are
// FTS5); `asked` when the node names one this build does not know.
IndexEngine engineAnswered(const ShardSummary& shard, IndexEngine asked)
{
    if (shard.engine.empty())
        return IndexEngine::Fts5;
    auto engine = parseIndexEngine(shard.engine);
    return engine ? *engine : asked;
}

// What the node reports for a shard it had before this creation; none when it cannot say.
std::optional<ShardSummary> shardOnNode(NodeClient& node, const std::string& shard)
{
    auto shards = node.listShards();
    for (const ShardSummary& summary : shards ? *shards : std::vector<ShardSummary> {}) {
        if (summary.id == shard)
            return summary;
    }
    return std::nullopt;
}

// Ok unless the shard asks for index settings and the node's shard has others (a shard made
// before, or by a node older than index settings, which makes today's index whatever it is asked).
Status sameSettings(const NewShard& shard, const ShardSummary& onNode, const std::string& how)
{
    if (!shard.index)
        return {};
    auto found = indexSettingsOf(onNode);
    if (found && *found == *shard.index)
        return {};
    return makeError(ErrorCode::FailedPrecondition,
        "node " + shard.node + " " + how + " other index settings than shard " + shard.id
            + " asks for: " + (found ? encodeIndexSettings(*found) : found.error().message) + ", not "
            + encodeIndexSettings(*shard.index)
            + (onNode.indexSettingsJson.empty() ? " (the node is older than index settings: upgrade it)" : ""));
}

} // namespace

IndexEngine engineOf(const NewShard& shard, const MapSnapshot& map)
{
    return shard.engine.value_or(map.settings.value.defaultEngine);
}

Result<std::optional<IndexEngine>> parseNewShardEngine(std::string_view name)
{
    if (name.empty())
        return std::optional<IndexEngine>();
    auto engine = parseIndexEngine(name);
    if (!engine)
        return engine.error();
    return std::optional<IndexEngine>(*engine);
}

ShardRecord newShardRecord(const NewShard& shard, IndexEngine engine)
{
    ShardRecord record { shard.id, shard.node, ShardState::Active, shard.capacityDocs, shard.capacityBytes, engine };
    record.templateName = shard.templateName;
    record.templateVersion = shard.templateVersion;
    return record;
}

ShardCreation::ShardCreation(NodeClientPool& nodes)
    : m_nodes(nodes)
{
}

Result<ShardRecord> ShardCreation::onNode(const MapSnapshot& map, const NewShard& shard)
{
    const NodeRecord* node = map.node(shard.node);
    if (!node)
        return makeError(ErrorCode::NotFound, "no node " + shard.node + " in the shard map");
    if (map.shard(shard.id))
        return makeError(ErrorCode::AlreadyExists, "shard " + shard.id + " already exists");
    auto client = m_nodes.get(node->address);
    if (!client)
        return client.error();
    const IndexEngine engine = engineOf(shard, map);
    auto created = (*client)->createShard(shard.id, shard.fields, engine, shard.index);
    if (created) {
        m_made.push_back({ shard, *client });
        if (auto same = sameSettings(shard, *created, "made it with"); !same)
            return same.error();
        return newShardRecord(shard, engineAnswered(*created, engine));
    }
    if (created.error().code == ErrorCode::AlreadyExists) {
        auto existing = shardOnNode(**client, shard.id);
        if (auto same = existing ? sameSettings(shard, *existing, "has it with") : Status {}; !same)
            return same.error();
        return newShardRecord(shard, existing ? engineAnswered(*existing, engine) : engine);
    }
    return makeError(created.error().code,
        "cannot create shard " + shard.id + " on node " + shard.node + ": " + created.error().message);
}

Status ShardCreation::copyOnNode(const MapSnapshot& map, const ShardRecord& shard, const std::string& nodeId,
    const std::vector<std::string>& fields, const std::optional<IndexSettings>& settings)
{
    const NodeRecord* node = map.node(nodeId);
    if (!node)
        return makeError(ErrorCode::NotFound, "no node " + nodeId + " in the shard map");
    auto client = m_nodes.get(node->address);
    if (!client)
        return client.error();
    auto created = (*client)->createShard(shard.id, fields, shard.engine, settings);
    if (created) {
        m_made.push_back({ NewShard(shard.id, nodeId, fields, 0, 0, shard.engine), *client });
        return {};
    }
    if (created.error().code == ErrorCode::AlreadyExists)
        return {};
    return makeError(created.error().code,
        "cannot create a copy of shard " + shard.id + " on node " + nodeId + ": " + created.error().message);
}

Status ShardCreation::copiesLike(const MapSnapshot& map, ShardRecord& shard, const std::string& from,
    const std::vector<std::string>& fields, const std::string& why, const std::optional<IndexSettings>& settings)
{
    const std::uint32_t factor = map.settings.value.replicationFactorOf(shard);
    const ShardRecord* source = map.shard(from);
    if (factor <= 1 || !source)
        return {};
    std::vector<std::string> candidates { source->node };
    for (const ShardCopy& copy : source->replicas) {
        if (copy.state == CopyState::InSync)
            candidates.push_back(copy.node);
    }
    for (const std::string& node : candidates) {
        if (shard.replicas.size() + 1 >= factor)
            break;
        if (!checkCopyPlacement(map, shard, node))
            continue;
        if (auto made = copyOnNode(map, shard, node, fields, settings); !made)
            return made;
        shard.replicas.push_back({ node, CopyState::InSync, 0, 0, nowUnixMs(), why });
    }
    return {};
}

Error ShardCreation::takeBack(Error refused, MetadataStore& store)
{
    if (m_made.empty())
        return refused;
    auto raw = store.snapshot();
    auto map = raw ? MapSnapshot::decode(*raw) : Result<MapSnapshot>(raw.error());
    for (const Made& made : m_made) {
        if (!map) {
            refused
                = leftOnNode(std::move(refused), made.shard, "the map could not be read: " + map.error().describe());
            continue;
        }
        if (const ShardRecord* listed = map->shard(made.shard.id);
            listed && (listed->node == made.shard.node || listed->replicaOn(made.shard.node)))
            continue;
        Status dropped = failpoint("admin.create_shard.drop");
        if (dropped)
            dropped = made.node->dropShard(made.shard.id);
        if (!dropped)
            refused = leftOnNode(std::move(refused), made.shard, "dropping it failed: " + dropped.error().describe());
    }
    m_made.clear();
    return refused;
}

} // namespace shardmap::core
