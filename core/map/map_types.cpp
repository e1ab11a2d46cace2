#include "core/map/map_types.h"

#include <algorithm>
#include <cstdio>

// The names of the map's enums as the store and the CLI spell them, both ways.

#include <array>
#include <utility>

namespace shardmap::core {

namespace {

constexpr std::array<std::pair<ShardState, const char*>, 4> kShardStates { {
    { ShardState::Active, "active" },
    { ShardState::Draining, "draining" },
    { ShardState::Readonly, "readonly" },
    { ShardState::Retired, "retired" },
} };

constexpr std::array<std::pair<CopyState, const char*>, 3> kCopyStates { {
    { CopyState::InSync, "in_sync" },
    { CopyState::CatchingUp, "catching_up" },
    { CopyState::Lost, "lost" },
} };

constexpr std::array<std::pair<WriteQuorum, const char*>, 2> kWriteQuorums { {
    { WriteQuorum::All, "all" },
    { WriteQuorum::Majority, "majority" },
} };

constexpr std::array<std::pair<MigrationPhase, const char*>, 9> kPhases { {
    { MigrationPhase::Queued, "queued" },
    { MigrationPhase::DualWrite, "dual_write" },
    { MigrationPhase::Backfill, "backfill" },
    { MigrationPhase::Verify, "verify" },
    { MigrationPhase::Cutover, "cutover" },
    { MigrationPhase::Cleanup, "cleanup" },
    { MigrationPhase::Done, "done" },
    { MigrationPhase::Failed, "failed" },
    { MigrationPhase::Cancelled, "cancelled" },
} };

constexpr std::array<std::pair<OperationState, const char*>, 4> kOperationStates { {
    { OperationState::Queuing, "queuing" },
    { OperationState::Running, "running" },
    { OperationState::Done, "done" },
    { OperationState::Failed, "failed" },
} };

constexpr std::array<std::pair<OperationKind, const char*>, 7> kOperationKinds { {
    { OperationKind::Drain, "drain" },
    { OperationKind::RetireNode, "retire-node" },
    { OperationKind::Split, "split" },
    { OperationKind::Merge, "merge" },
    { OperationKind::Isolate, "isolate" },
    { OperationKind::Reindex, "reindex" },
    { OperationKind::Move, "move" },
} };

template <typename Enum, std::size_t N>
const char* nameIn(const std::array<std::pair<Enum, const char*>, N>& table, Enum value)
{
    for (const auto& [candidate, name] : table) {
        if (candidate == value)
            return name;
    }
    return "unknown";
}

template <typename Enum, std::size_t N>
std::optional<Enum> parseIn(const std::array<std::pair<Enum, const char*>, N>& table, std::string_view text)
{
    for (const auto& [value, name] : table) {
        if (text == name)
            return value;
    }
    return std::nullopt;
}

} // namespace

const char* shardStateName(ShardState state)
{
    return nameIn(kShardStates, state);
}
std::optional<ShardState> parseShardState(std::string_view name)
{
    return parseIn(kShardStates, name);
}
const char* migrationPhaseName(MigrationPhase phase)
{
    return nameIn(kPhases, phase);
}
std::optional<MigrationPhase> parseMigrationPhase(std::string_view name)
{
    return parseIn(kPhases, name);
}

const char* operationKindName(OperationKind kind)
{
    return nameIn(kOperationKinds, kind);
}
std::optional<OperationKind> parseOperationKind(std::string_view name)
{
    return parseIn(kOperationKinds, name);
}

const char* operationStateName(OperationState state)
{
    return nameIn(kOperationStates, state);
}
std::optional<OperationState> parseOperationState(std::string_view name)
{
    return parseIn(kOperationStates, name);
}

const char* copyStateName(CopyState state)
{
    return nameIn(kCopyStates, state);
}
std::optional<CopyState> parseCopyState(std::string_view name)
{
    return parseIn(kCopyStates, name);
}

const char* writeQuorumName(WriteQuorum quorum)
{
    return nameIn(kWriteQuorums, quorum);
}
std::optional<WriteQuorum> parseWriteQuorum(std::string_view name)
{
    return parseIn(kWriteQuorums, name);
}

const ShardCopy* ShardRecord::replicaOn(std::string_view nodeId) const
{
    for (const ShardCopy& copy : replicas) {
        if (copy.node == nodeId)
            return &copy;
    }
    return nullptr;
}

std::vector<std::string> ShardRecord::inSyncNodes() const
{
    std::vector<std::string> nodes { node };
    for (const ShardCopy& copy : replicas) {
        if (copy.state == CopyState::InSync)
            nodes.push_back(copy.node);
    }
    return nodes;
}

bool isFinal(MigrationPhase phase)
{
    return phase == MigrationPhase::Done || phase == MigrationPhase::Failed || phase == MigrationPhase::Cancelled;
}

std::string keys::indexTemplate(std::string_view name, std::uint32_t version)
{
    char digits[16];
    std::snprintf(digits, sizeof digits, "%010u", version);
    return std::string(kTemplates) + std::string(name) + "/" + digits;
}

std::vector<std::string> reindexShardsOf(const std::string& list)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < list.size()) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        out.push_back(list.substr(start, comma - start));
        start = comma + 1;
    }
    return out;
}

} // namespace shardmap::core
