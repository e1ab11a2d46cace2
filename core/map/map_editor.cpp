#include "core/map/map_editor.h"

// MapEditor's implementation: each administrative change checked against a fresh snapshot (ids,
// addresses, state transitions, what still lives there) and committed on the records it read.

#include "core/map/copy_placement.h"
#include "core/util/validation.h"

namespace shardmap::core {

namespace {

Error notFound(const std::string& what, const std::string& id)
{
    return makeError(ErrorCode::NotFound, "no " + what + " " + id + " in the shard map");
}

std::string listIds(const std::vector<const SpaceRecord*>& spaces, std::size_t most = 5)
{
    std::string out;
    for (std::size_t i = 0; i < spaces.size() && i < most; ++i)
        out += (i ? ", " : "") + spaces[i]->id;
    if (spaces.size() > most)
        out += " and " + std::to_string(spaces.size() - most) + " more";
    return out;
}

bool transitionAllowed(ShardState from, ShardState to)
{
    return from != ShardState::Retired || to == ShardState::Retired;
}

} // namespace

Status validateNodeAddress(std::string_view address)
{
    const auto colon = address.rfind(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == address.size())
        return makeError(ErrorCode::InvalidArgument, "address '" + std::string(address) + "' is not HOST:PORT");
    const auto port = address.substr(colon + 1);
    if (port.find_first_not_of("0123456789") != std::string_view::npos || port.size() > 5
        || std::stoi(std::string(port)) > 65535)
        return makeError(ErrorCode::InvalidArgument, "address '" + std::string(address) + "' has no valid port");
    return {};
}

MapEditor::MapEditor(MetadataStore& store, FenceSource fence)
    : m_store(store)
    , m_fence(std::move(fence))
{
}

Result<MapSnapshot> MapEditor::snapshot()
{
    auto raw = m_store.snapshot();
    if (!raw)
        return raw.error();
    return MapSnapshot::decode(*raw);
}

Result<std::uint64_t> MapEditor::commitOne(Mutation mutation, const Actor& actor, const std::string& action)
{
    CommitRequest request { { std::move(mutation) }, std::nullopt, std::nullopt, actor.name, action, actor.reason };
    return m_store.commit(request);
}

Result<std::uint64_t> MapEditor::addNode(const NodeRecord& node, const Actor& actor)
{
    if (auto status = validateShardId(node.id); !status)
        return makeError(ErrorCode::InvalidArgument, "node id: " + status.error().message);
    if (auto status = validateNodeAddress(node.address); !status)
        return status.error();
    if (auto status = validateZone(node.zone); !status)
        return status.error();
    auto map = snapshot();
    if (!map)
        return map.error();
    if (map->node(node.id))
        return makeError(ErrorCode::AlreadyExists, "node " + node.id + " already exists");
    for (const auto& [id, other] : map->nodes) {
        if (other.value.address == node.address)
            return makeError(ErrorCode::AlreadyExists, "node " + id + " already has address " + node.address);
    }
    auto committed = commitOne({ keys::node(node.id), encode(node), 0 }, actor, "add-node");
    if (!committed && committed.error().code == ErrorCode::Conflict)
        return makeError(ErrorCode::AlreadyExists, "node " + node.id + " was just added by someone else");
    return committed;
}

Result<std::uint64_t> MapEditor::removeNode(const std::string& nodeId, const Actor& actor)
{
    auto map = snapshot();
    if (!map)
        return map.error();
    const auto found = map->nodes.find(nodeId);
    if (found == map->nodes.end())
        return notFound("node", nodeId);
    const auto shards = map->shardsOn(nodeId);
    if (!shards.empty())
        return makeError(ErrorCode::FailedPrecondition,
            "node " + nodeId + " still has " + std::to_string(shards.size()) + " shard(s), e.g. " + shards.front()->id
                + "; drain and remove them first");
    if (const auto copies = map->copiesOn(nodeId); !copies.empty())
        return makeError(ErrorCode::FailedPrecondition,
            "node " + nodeId + " still holds " + std::to_string(copies.size()) + " replica(s), e.g. of shard "
                + copies.front()->id + "; remove them first");
    return commitOne({ keys::node(nodeId), std::nullopt, found->second.modRevision }, actor, "remove-node");
}

Result<std::uint64_t> MapEditor::addShard(const ShardRecord& shard, const Actor& actor)
{
    if (auto status = validateShardId(shard.id); !status)
        return status.error();
    auto map = snapshot();
    if (!map)
        return map.error();
    if (map->shard(shard.id))
        return makeError(ErrorCode::AlreadyExists, "shard " + shard.id + " already exists");
    const auto node = map->nodes.find(shard.node);
    if (node == map->nodes.end())
        return notFound("node", shard.node);
    CommitRequest request { { { keys::shard(shard.id), encode(shard), 0 },
                                // The node must not disappear in the same instant.
                                { keys::node(shard.node), encode(node->second.value), node->second.modRevision } },
        std::nullopt, std::nullopt, actor.name, "add-shard", actor.reason };
    auto committed = m_store.commit(request);
    if (!committed && committed.error().code == ErrorCode::Conflict)
        return makeError(
            ErrorCode::Conflict, "shard " + shard.id + " or node " + shard.node + " changed meanwhile; try again");
    return committed;
}

Result<std::uint64_t> MapEditor::setShardState(const std::string& shardId, ShardState state, const Actor& actor)
{
    auto map = snapshot();
    if (!map)
        return map.error();
    const auto found = map->shards.find(shardId);
    if (found == map->shards.end())
        return notFound("shard", shardId);
    ShardRecord shard = found->second.value;
    if (!transitionAllowed(shard.state, state))
        return makeError(ErrorCode::FailedPrecondition,
            "shard " + shardId + " is retired; a retired shard cannot become " + shardStateName(state));
    const auto spaces = map->spacesOn(shardId);
    if (state == ShardState::Retired && !spaces.empty())
        return makeError(ErrorCode::FailedPrecondition,
            "shard " + shardId + " still holds " + std::to_string(spaces.size()) + " space(s) (" + listIds(spaces)
                + "); drain it before retiring");
    if (shard.state == state)
        return map->revision;
    shard.state = state;
    return commitOne({ keys::shard(shardId), encode(shard), found->second.modRevision }, actor,
        std::string("set-shard-state ") + shardStateName(state));
}

Result<std::uint64_t> MapEditor::removeShard(const std::string& shardId, const Actor& actor)
{
    auto map = snapshot();
    if (!map)
        return map.error();
    const auto found = map->shards.find(shardId);
    if (found == map->shards.end())
        return notFound("shard", shardId);
    if (found->second.value.state != ShardState::Retired)
        return makeError(ErrorCode::FailedPrecondition,
            "shard " + shardId + " is " + shardStateName(found->second.value.state)
                + "; retire it before removing it from the map");
    return commitOne({ keys::shard(shardId), std::nullopt, found->second.modRevision }, actor, "remove-shard");
}

Result<MapEditor::SpaceEdit> MapEditor::editSpace(
    const std::string& spaceId, const Actor& actor, const std::string& action, const SpaceChange& change)
{
    auto map = snapshot();
    if (!map)
        return map.error();
    const auto space = map->spaces.find(spaceId);
    if (space == map->spaces.end())
        return notFound("space", spaceId);
    SpaceRecord record = space->second.value;
    auto changed = change(*map, record);
    if (!changed)
        return changed.error();
    if (!*changed)
        return SpaceEdit { record, map->revision };
    auto committed = commitOne({ keys::space(spaceId), encode(record), space->second.modRevision }, actor, action);
    if (!committed)
        return committed.error();
    return SpaceEdit { record, *committed };
}

Result<std::uint64_t> MapEditor::pinSpace(const std::string& spaceId, const std::string& shardId, const Actor& actor)
{
    auto edit
        = editSpace(spaceId, actor, "pin-space", [&](const MapSnapshot& map, SpaceRecord& record) -> Result<bool> {
              const ShardRecord* shard = map.shard(shardId);
              if (!shard)
                  return notFound("shard", shardId);
              if (shard->state == ShardState::Retired)
                  return makeError(ErrorCode::FailedPrecondition,
                      "shard " + shardId + " is retired; a space cannot be pinned to it");
              record.pin = shardId;
              return true;
          });
    if (!edit)
        return edit.error();
    return edit->revision;
}

Result<std::uint64_t> MapEditor::unpinSpace(const std::string& spaceId, const Actor& actor)
{
    auto edit = editSpace(spaceId, actor, "unpin-space", [](const MapSnapshot&, SpaceRecord& record) -> Result<bool> {
        const bool pinned = !record.pin.empty();
        record.pin.clear();
        return pinned;
    });
    if (!edit)
        return edit.error();
    return edit->revision;
}

Result<SpaceRecord> MapEditor::reassignSpace(const std::string& spaceId, const std::string& shardId, const Actor& actor)
{
    auto edit
        = editSpace(spaceId, actor, "reassign-space", [&](const MapSnapshot& map, SpaceRecord& record) -> Result<bool> {
              const ShardRecord* shard = map.shard(shardId);
              if (!shard)
                  return notFound("shard", shardId);
              if (shard->state != ShardState::Active)
                  return makeError(ErrorCode::FailedPrecondition,
                      "shard " + shardId + " is " + shardStateName(shard->state)
                          + "; only an active shard can take a space");
              if (record.migrating())
                  return makeError(ErrorCode::FailedPrecondition,
                      "space " + spaceId + " is migrating (" + record.migrationId + "); finish or cancel it first");
              if (record.epoch >= kMaxEpoch)
                  return makeError(ErrorCode::FailedPrecondition,
                      "space " + spaceId + " is at epoch " + std::to_string(record.epoch)
                          + ", the largest (2^62); its record was written by hand");
              record.shard = shardId;
              record.epoch += 1;
              return true;
          });
    if (!edit)
        return edit.error();
    return edit->record;
}

} // namespace shardmap::core
