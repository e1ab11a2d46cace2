#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardmap::core {

enum class ShardState { Active, Draining, Readonly, Retired };

const char* shardStateName(ShardState state);
std::optional<ShardState> parseShardState(std::string_view name);

// A shard-node process at one address.
struct NodeRecord {
    std::string id;
    std::string address;
    std::map<std::string, std::string> labels;

    bool operator==(const NodeRecord&) const = default;
};

// One index on one node. Capacity 0 means "no limit".
struct ShardRecord {
    std::string id;
    std::string node;
    ShardState state = ShardState::Active;
    std::uint64_t capacityDocs = 0;
    std::uint64_t capacityBytes = 0;

    bool operator==(const ShardRecord&) const = default;
};

// The phases of a live migration (ARCHITECTURE §6), in order; the last three are final.
enum class MigrationPhase { Queued, DualWrite, Backfill, Verify, Cutover, Cleanup, Done, Failed, Cancelled };

const char* migrationPhaseName(MigrationPhase phase);
std::optional<MigrationPhase> parseMigrationPhase(std::string_view name);
bool isFinal(MigrationPhase phase);

// Where a space lives: its owner shard and epoch, plus the target while a migration is open.
// The epoch grows with every ownership change; nodes refuse writes carrying another one.
struct SpaceRecord {
    std::string id;
    std::string shard;
    std::uint64_t epoch = 1;
    std::string migrationId;
    std::string target;
    MigrationPhase phase = MigrationPhase::Done;
    // A shard the space must stay on; placement and planning never move it elsewhere.
    std::string pin;
    bool paused = false;

    bool migrating() const { return !migrationId.empty(); }
    bool operator==(const SpaceRecord&) const = default;
};

struct MigrationProgress {
    std::uint64_t docsDone = 0;
    std::uint64_t docsTotal = 0;
    std::uint64_t bytesDone = 0;
    std::uint64_t bytesTotal = 0;
    double docsPerSecond = 0;
    std::int64_t etaSeconds = -1;
    std::string cursor;

    bool operator==(const MigrationProgress&) const = default;
};

struct MigrationRecord {
    std::string id;
    std::string space;
    std::string source;
    std::string target;
    MigrationPhase phase = MigrationPhase::Queued;
    MigrationProgress progress;
    std::uint64_t throttleDocsPerSecond = 0;
    bool paused = false;
    std::string requestedBy;
    std::string reason;
    std::int64_t createdUnixMs = 0;
    std::int64_t updatedUnixMs = 0;
    std::int64_t finishedUnixMs = 0;
    std::int64_t cutoverUnixMs = 0;
    // Verify found source and target apart and backfilled again this many times.
    std::uint32_t repairs = 0;
    std::string error;

    bool operator==(const MigrationRecord&) const = default;
};

// Keys of the records in the metadata store.
namespace keys {
inline constexpr std::string_view kNodes = "nodes/";
inline constexpr std::string_view kShards = "shards/";
inline constexpr std::string_view kSpaces = "spaces/";
inline constexpr std::string_view kMigrations = "migrations/";
inline std::string node(std::string_view id)
{
    return std::string(kNodes) + std::string(id);
}
inline std::string shard(std::string_view id)
{
    return std::string(kShards) + std::string(id);
}
inline std::string space(std::string_view id)
{
    return std::string(kSpaces) + std::string(id);
}
inline std::string migration(std::string_view id)
{
    return std::string(kMigrations) + std::string(id);
}
} // namespace keys

} // namespace shardmap::core
