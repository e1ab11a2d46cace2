// MigrationRequests' implementation: the preflight, queueing one migration, pause, resume,
// throttle, cancel, abandon and rollback, and the migration settings with their ranges.
#include "core/migration/migration_requests.h"

#include "core/map/space_placement.h"
#include "core/migration/fleet_facts.h"
#include "core/migration/migration_history.h"
#include "core/plan/space_holds.h"
#include "core/snapshot/snapshot_repository.h"
#include "core/util/json_input.h"
#include "core/util/units.h"

#include <atomic>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>

namespace shardmap::core {

namespace {

// The executor rewrites a running migration's record at every batch, so an administrator's
// compare-and-set on it can lose a race that says nothing about the request: re-read, re-check
// and try again a few times before reporting the conflict.
constexpr int kCommitAttempts = 5;

std::string percentText(double share)
{
    char text[16];
    std::snprintf(text, sizeof text, "%.0f%%", share * 100);
    return text;
}

std::string timeOrderedId(const char* prefix)
{
    // Random start per process, then consecutive: ids of one process never repeat within a
    // millisecond, and two processes collide only by a 1 in 65536 chance.
    static std::atomic<std::uint32_t> counter { std::random_device {}() };
    const std::uint32_t suffix = counter.fetch_add(1) & 0xffffu;
    char id[48];
    std::snprintf(id, sizeof id, "%s-%013lld-%04x", prefix, static_cast<long long>(nowUnixMs()), suffix);
    return id;
}

Status checkDisk(const SpaceRecord& space, const ShardRecord& target, const PreflightFacts& facts)
{
    if (!facts.targetNodeDiskFree)
        return makeError(ErrorCode::Unavailable,
            "cannot read the free disk of node " + target.node + " (target shard " + target.id
                + "); room that cannot be checked is not room");
    const std::uint64_t needed = facts.spaceBytes > UINT64_MAX / 2 ? UINT64_MAX : facts.spaceBytes * 2;
    if (*facts.targetNodeDiskFree < needed)
        return refusal("node " + target.node + " of shard " + target.id + " has "
            + formatBytes(*facts.targetNodeDiskFree) + " free; space " + space.id + " needs twice its "
            + formatBytes(facts.spaceBytes) + ", " + formatBytes(needed));
    return {};
}

Status checkFill(const SpaceRecord& space, const ShardRecord& target, double maxFill, const char* unit,
    std::uint64_t capacity, std::optional<std::uint64_t> held, std::uint64_t adding)
{
    if (capacity == 0)
        return {};
    const std::string limit = std::to_string(capacity) + " " + unit;
    if (!held)
        return refusal("cannot read the load of shard " + target.id + " (node " + target.node
            + " did not answer) to check its capacity of " + limit);
    const std::uint64_t after = *held + adding;
    if (static_cast<double>(after) > maxFill * static_cast<double>(capacity))
        return refusal("shard " + target.id + " would hold " + std::to_string(after) + " of its " + limit + " ("
            + percentText(static_cast<double>(after) / static_cast<double>(capacity)) + ") with space " + space.id
            + " (" + std::to_string(adding) + " " + unit + "), above the " + percentText(maxFill) + " limit");
    return {};
}

} // namespace

Status checkTargetShard(const MapSnapshot& map, const ShardRecord& target)
{
    if (target.state != ShardState::Active)
        return refusal("shard " + target.id + " is " + shardStateName(target.state)
            + "; only an active shard can receive a space");
    const NodeRecord* node = map.node(target.node);
    if (!node)
        return refusal("shard " + target.id + " is on node " + target.node + ", which is not in the shard map");
    if (node->retired)
        return refusal("shard " + target.id + " is on node " + target.node + ", which is retired");
    return {};
}

Status preflightMap(
    const MapSnapshot& map, const std::string& spaceId, const std::string& targetShard, const std::string& ownMigration)
{
    const SpaceRecord* space = map.space(spaceId);
    if (!space)
        return unknownId("space", spaceId);
    const ShardRecord* target = map.shard(targetShard);
    if (!target)
        return unknownId("shard", targetShard);
    if (space->migrating() && space->migrationId != ownMigration) {
        if (auto held = refuseHeld(map, { space }); !held)
            return held;
    }
    if (space->shard == targetShard)
        return refusal("space " + spaceId + " is already on shard " + targetShard);
    if (!space->pin.empty() && space->pin != targetShard)
        return refusal(
            "space " + spaceId + " is pinned to shard " + space->pin + "; unpin it before moving it to " + targetShard);
    return checkTargetShard(map, *target);
}

Status preflightMigration(const MapSnapshot& map, const std::string& spaceId, const std::string& targetShard,
    const PreflightFacts& facts, const std::string& ownMigration)
{
    if (auto status = preflightMap(map, spaceId, targetShard, ownMigration); !status)
        return status;
    return checkTargetRoom(map, *map.space(spaceId), *map.shard(targetShard), facts);
}

Status checkTargetRoom(
    const MapSnapshot& map, const SpaceRecord& space, const ShardRecord& target, const PreflightFacts& facts)
{
    if (auto status = checkDisk(space, target, facts); !status)
        return status;
    const double maxFill = map.settings.value.maxTargetFill;
    if (auto status
        = checkFill(space, target, maxFill, "docs", target.capacityDocs, facts.targetShardDocs, facts.spaceDocs);
        !status)
        return status;
    return checkFill(space, target, maxFill, "bytes", target.capacityBytes, facts.targetShardBytes, facts.spaceBytes);
}

PreflightFacts gatherPreflightFacts(
    const MapSnapshot& map, NodeClientPool& nodes, const std::string& spaceId, const std::string& targetShard)
{
    const SpaceRecord* space = map.space(spaceId);
    const ShardRecord* target = map.shard(targetShard);
    if (!space || !target)
        return {};
    FleetFacts facts(map, nodes);
    return facts.preflightFacts(facts.spaceSize(*space), *target);
}

std::string newMigrationId()
{
    return timeOrderedId("m");
}

std::string newOperationId()
{
    return timeOrderedId("op");
}

MigrationRequests::MigrationRequests(MetadataStore& store, NodeClientPool& nodes)
    : m_store(store)
    , m_nodes(nodes)
{
}

Result<MigrationRecord> MigrationRequests::queue(
    const std::string& spaceId, const std::string& targetShard, const Actor& actor, std::uint64_t throttle)
{
    auto map = readMapSnapshot(m_store);
    if (!map)
        return map.error();
    // The map's own refusals first: they need no node to answer.
    if (auto status = preflightMap(*map, spaceId, targetShard); !status)
        return status.error();
    const auto facts = gatherPreflightFacts(*map, m_nodes, spaceId, targetShard);
    if (auto status = preflightMigration(*map, spaceId, targetShard, facts); !status)
        return status.error();
    const auto& space = map->spaces.at(spaceId);
    MigrationRecord record;
    record.id = newMigrationId();
    record.space = spaceId;
    record.source = space.value.shard;
    record.target = targetShard;
    record.throttleDocsPerSecond = throttle;
    record.requestedBy = actor.name;
    record.reason = actor.reason;
    record.createdUnixMs = record.updatedUnixMs = nowUnixMs();
    SpaceRecord marked = space.value;
    marked.migrationId = record.id;
    marked.phase = MigrationPhase::Queued;
    CommitRequest request { { { keys::migration(record.id), encode(record), 0 },
                                { keys::space(spaceId), encode(marked), space.modRevision } },
        std::nullopt, std::nullopt, actor.name, "migrate", actor.reason };
    auto committed = m_store.commit(request);
    if (!committed && committed.error().code == ErrorCode::Conflict)
        return makeError(
            ErrorCode::Conflict, "space " + spaceId + " changed while the migration was checked; try again");
    if (!committed)
        return committed.error();
    return record;
}

namespace {

// Changes one migration record (and adds other mutations if needed); returns whether anything
// changed or why the request is refused.
using MigrationChange = std::function<Result<bool>(const MapSnapshot&, MigrationRecord&, std::vector<Mutation>&)>;

Result<MigrationRecord> editMigration(MetadataStore& store, const std::string& migrationId, const Actor& actor,
    const std::string& action, const MigrationChange& change)
{
    for (int attempt = 1;; ++attempt) {
        auto map = readMapSnapshot(store);
        if (!map)
            return map.error();
        const auto found = map->migrations.find(migrationId);
        if (found == map->migrations.end())
            return unknownId("migration", migrationId);
        MigrationRecord record = found->second.value;
        std::vector<Mutation> mutations { { keys::migration(migrationId), std::nullopt, found->second.modRevision } };
        auto changed = change(*map, record, mutations);
        if (!changed)
            return changed.error();
        if (!*changed)
            return record;
        mutations.front().value = encode(record);
        auto committed = store.commit({ mutations, std::nullopt, std::nullopt, actor.name, action, actor.reason });
        if (committed)
            return record;
        if (committed.error().code != ErrorCode::Conflict || attempt == kCommitAttempts)
            return committed.error();
    }
}

Status refuseFinal(const MigrationRecord& record, const std::string& what)
{
    if (!isFinal(record.phase))
        return {};
    return refusal("migration " + record.id + " is " + migrationPhaseName(record.phase) + "; " + what);
}

std::string byWhom(const Actor& actor)
{
    return actor.name + (actor.reason.empty() ? "" : ": " + actor.reason);
}

} // namespace

Result<MigrationRecord> MigrationRequests::pause(const std::string& migrationId, const Actor& actor)
{
    return editMigration(m_store, migrationId, actor, "pause-migration",
        [](const MapSnapshot&, MigrationRecord& record, std::vector<Mutation>&) -> Result<bool> {
            if (auto status = refuseFinal(record, "there is nothing to pause"); !status)
                return status.error();
            if (record.paused)
                return false;
            record.paused = true;
            return true;
        });
}

Result<MigrationRecord> MigrationRequests::resume(const std::string& migrationId, const Actor& actor)
{
    return editMigration(m_store, migrationId, actor, "resume-migration",
        [](const MapSnapshot&, MigrationRecord& record, std::vector<Mutation>&) -> Result<bool> {
            if (auto status = refuseFinal(record, "there is nothing to resume"); !status)
                return status.error();
            if (!record.paused)
                return false;
            record.paused = false;
            return true;
        });
}

Result<MigrationRecord> MigrationRequests::setThrottle(
    const std::string& migrationId, std::uint64_t docsPerSecond, const Actor& actor)
{
    return editMigration(m_store, migrationId, actor, "throttle-migration",
        [docsPerSecond](const MapSnapshot&, MigrationRecord& record, std::vector<Mutation>&) -> Result<bool> {
            if (auto status = refuseFinal(record, "its throttle no longer matters"); !status)
                return status.error();
            if (record.throttleDocsPerSecond == docsPerSecond)
                return false;
            record.throttleDocsPerSecond = docsPerSecond;
            return true;
        });
}

Result<MigrationRecord> MigrationRequests::cancel(const std::string& migrationId, const Actor& actor)
{
    return editMigration(m_store, migrationId, actor, "cancel-migration",
        [&actor](const MapSnapshot& map, MigrationRecord& record, std::vector<Mutation>& mutations) -> Result<bool> {
            if (auto status = refuseFinal(record, "there is nothing to cancel"); !status)
                return status.error();
            switch (record.phase) {
            case MigrationPhase::Cutover:
                return refusal("migration " + record.id + " is cutting over; once it is in cleanup use rollback");
            case MigrationPhase::Cleanup:
                return refusal("migration " + record.id + " is past cutover (space " + record.space + " is on "
                    + record.target + "); after cutover use rollback");
            case MigrationPhase::Queued:
                // A restore's first step installs its staging shard before it leaves Queued: the
                // executor's stop removes it, so a queued restore is cancelled by request too.
                if (!record.isRestore())
                    break;
                [[fallthrough]];
            default:
                if (record.cancelRequested)
                    return false;
                // The executor stops dual writes and removes the target's copy at its next step.
                record.cancelRequested = true;
                return true;
            }
            // Queued: nothing was copied and no node knows of it; done in this commit.
            const auto now = nowUnixMs();
            record.phase = MigrationPhase::Cancelled;
            record.finishedUnixMs = record.updatedUnixMs = now;
            record.status = "cancelled by " + byWhom(actor);
            const auto space = map.spaces.find(record.space);
            if (space != map.spaces.end() && space->second.value.migrationId == record.id) {
                SpaceRecord cleared = space->second.value;
                cleared.migrationId.clear();
                cleared.target.clear();
                cleared.phase = MigrationPhase::Done;
                mutations.push_back({ keys::space(record.space), encode(cleared), space->second.modRevision });
            }
            return true;
        });
}

namespace {

Status refuseAbandon(const MigrationRecord& record)
{
    if (auto status = refuseFinal(record, "there is nothing to abandon"); !status)
        return status;
    // It moves no space and leaves nothing to abandon: its copy's node not answering only delays it.
    if (record.isCatchUp())
        return refusal(record.id + " is the catch-up of the copy of " + record.source + " on " + record.copyNode
            + ", which moves no space; remove that copy from the shard instead");
    if (record.phase == MigrationPhase::Cutover)
        return refusal("migration " + record.id
            + " is cutting over; it commits or aborts within cutover_timeout_ms, abandon it after that");
    return {};
}

// Where the copy the executor would have removed is: the old source's after cutover, else the
// target's partial one.
std::string leftCopy(const MigrationRecord& record)
{
    return record.phase == MigrationPhase::Cleanup ? record.source : record.target;
}

} // namespace

Result<std::string> MigrationRequests::abandonCost(const std::string& migrationId)
{
    auto map = readMapSnapshot(m_store);
    if (!map)
        return map.error();
    const auto found = map->migrations.find(migrationId);
    if (found == map->migrations.end())
        return unknownId("migration", migrationId);
    const MigrationRecord& m = found->second.value;
    if (auto status = refuseAbandon(m); !status)
        return status.error();
    const ShardRecord* left = map->shard(leftCopy(m));
    const std::string where
        = "shard " + leftCopy(m) + (left ? " (node " + left->node + ")" : " (no longer in the map)");
    const bool after = m.phase == MigrationPhase::Cleanup;
    return "Abandoning migration " + m.id + " of space " + m.space + " (phase " + migrationPhaseName(m.phase)
        + ") ends it now without the controller: space " + m.space + " stays on " + (after ? m.target : m.source)
        + " and the migration ends " + (after ? "done" : "cancelled") + ". The copy of the space on " + where
        + " is not removed: if that node comes back, those rows stay on it (fenced or orphaned) until the shard is "
          "dropped or the space is moved there again. Use this only for a node lost for good.";
}

Result<MigrationRecord> MigrationRequests::abandon(const std::string& migrationId, const Actor& actor)
{
    // The history gets the ending too, in the same commit.
    auto historyRecords = m_store.list(keys::migrationHistory(migrationId));
    if (!historyRecords)
        return historyRecords.error();
    std::optional<Versioned<MigrationHistory>> history;
    for (const auto& [key, stored] : historyRecords->records) {
        if (key != keys::migrationHistory(migrationId))
            continue;
        if (auto decoded = decodeMigrationHistory(stored.value))
            history = Versioned<MigrationHistory> { std::move(*decoded), stored.modRevision };
    }
    return editMigration(m_store, migrationId, actor, "abandon-migration",
        [&](const MapSnapshot& map, MigrationRecord& record, std::vector<Mutation>& mutations) -> Result<bool> {
            if (auto status = refuseAbandon(record); !status)
                return status.error();
            const bool after = record.phase == MigrationPhase::Cleanup;
            const std::string left = leftCopy(record);
            const auto now = nowUnixMs();
            record.phase = after ? MigrationPhase::Done : MigrationPhase::Cancelled;
            record.abandoned = true;
            record.aborting = false;
            record.cancelRequested = false;
            record.rollbackRequested = false;
            record.finishedUnixMs = record.updatedUnixMs = now;
            record.status = "abandoned by " + byWhom(actor) + "; the copy on " + left + " was left on its node";
            const auto space = map.spaces.find(record.space);
            if (space != map.spaces.end() && space->second.value.migrationId == record.id) {
                SpaceRecord cleared = space->second.value;
                if (!cleared.target.empty())
                    cleared.epoch += 1; // routers that still dual-write are refused and re-read
                cleared.migrationId.clear();
                cleared.target.clear();
                cleared.phase = MigrationPhase::Done;
                mutations.push_back({ keys::space(record.space), encode(cleared), space->second.modRevision });
            }
            if (history) {
                MigrationHistory ended = history->value;
                if (!ended.phases.empty() && ended.phases.back().endedUnixMs == 0)
                    ended.phases.back().endedUnixMs = now;
                ended.phases.push_back({ record.phase, now, now });
                ended.addEvent(now, "abandoned", record.status);
                mutations.push_back({ keys::migrationHistory(record.id), encode(ended), history->modRevision });
            }
            return true;
        });
}

Result<MigrationRecord> MigrationRequests::rollback(const std::string& migrationId, const Actor& actor)
{
    return editMigration(m_store, migrationId, actor, "rollback-migration",
        [](const MapSnapshot& map, MigrationRecord& record, std::vector<Mutation>&) -> Result<bool> {
            if (record.phase == MigrationPhase::Done)
                return refusal("migration " + record.id
                    + " is done and its rollback window has closed; queue a "
                      "migration back instead");
            if (auto status = refuseFinal(record, "there is nothing to roll back"); !status)
                return status.error();
            if (record.phase == MigrationPhase::Cutover)
                return refusal("migration " + record.id + " is cutting over; roll it back once it is in cleanup");
            if (record.phase != MigrationPhase::Cleanup)
                return refusal("migration " + record.id + " has not cut over yet (phase "
                    + migrationPhaseName(record.phase) + "); cancel it instead");
            if (record.rollbackRequested)
                return false;
            const SpaceRecord* space = map.space(record.space);
            const bool windowOpen = space && space->migrationId == record.id && space->shard == record.target
                && space->target == record.source;
            if (!windowOpen)
                return refusal("the rollback window of migration " + record.id + " has closed (the copy on "
                    + record.source + " is being deleted); queue a migration back instead");
            record.rollbackRequested = true;
            return true;
        });
}

Result<MigrationSettings> MigrationRequests::settings()
{
    auto map = readMapSnapshot(m_store);
    if (!map)
        return map.error();
    return map->settings.value;
}

namespace {

struct SettingRange {
    const char* key;
    std::uint64_t least;
    std::uint64_t most;
};

// Every count of the settings, with the range a person could mean: the windows and timeouts are
// turned into milliseconds, the counts are 32-bit.
constexpr SettingRange kSettingRanges[] = {
    { "max_concurrent", 0, 10'000 },
    { "max_per_node", 0, 10'000 },
    { "max_per_shard", 0, 10'000 },
    { "default_throttle_docs_per_second", 0, 1'000'000'000 },
    { "backfill_batch", 1, 5'000 },
    { "rollback_window_seconds", 0, 30 * 86'400 },
    { "cutover_timeout_ms", 50, 600'000 },
    { "cleanup_rows_per_second", 0, 1'000'000'000 },
    { "max_repairs", 0, 1'000 },
    { "start_retry_seconds", 0, 30 * 86'400 },
    { "failover_after_ms", 0, 86'400'000 },
    { "lose_node_after_ms", 0, 30ULL * 86'400'000 },
    { "max_re_replications", 0, 10'000 },
    { "snapshot_interval_seconds", 0, 365 * 86'400 },
    { "snapshot_keep", 0, 100'000 },
    { "snapshot_max_age_seconds", 0, 10ULL * 365 * 86'400 },
    { "snapshot_pause_ms", 0, 10'000 },
};

Error badSetting(const std::string& key, const std::string& wanted, const nlohmann::json& value)
{
    // The value itself when it is a number, else its kind: a caller's string may be megabytes.
    const std::string given = value.is_number() ? value.dump() : std::string("a ") + value.type_name();
    return makeError(ErrorCode::InvalidArgument, "the settings' " + key + " must be " + wanted + ", not " + given);
}

// default_engine: a name parseIndexEngine knows (a long string is not echoed back).
Status checkDefaultEngine(const nlohmann::json& settings)
{
    const auto engine = settings.find("default_engine");
    if (engine == settings.end())
        return {};
    if (!engine->is_string() || engine->get_ref<const std::string&>().size() > 64)
        return badSetting("default_engine", "the name of an index engine", *engine);
    if (auto parsed = parseIndexEngine(engine->get<std::string>()); !parsed)
        return makeError(ErrorCode::InvalidArgument, "the settings' default_engine: " + parsed.error().message);
    return {};
}

// snapshot_repository: empty (none) or an absolute path (core/snapshot/snapshot_repository.h).
Status checkSnapshotRepository(const nlohmann::json& settings)
{
    const auto repository = settings.find("snapshot_repository");
    if (repository == settings.end())
        return {};
    if (!repository->is_string())
        return badSetting("snapshot_repository", "a directory's absolute path", *repository);
    const auto& path = repository->get_ref<const std::string&>();
    if (auto valid = checkRepositoryPath(path); !path.empty() && !valid)
        return makeError(ErrorCode::InvalidArgument, "the settings' snapshot_repository: " + valid.error().message);
    return {};
}

Status checkSettingRanges(const nlohmann::json& settings)
{
    if (!settings.is_object())
        return makeError(ErrorCode::InvalidArgument, "the settings are not a JSON object");
    for (const SettingRange& range : kSettingRanges) {
        const auto found = settings.find(range.key);
        if (found == settings.end())
            continue;
        if (!found->is_number_unsigned() || found->get<std::uint64_t>() < range.least
            || found->get<std::uint64_t>() > range.most)
            return badSetting(range.key,
                "a whole number from " + std::to_string(range.least) + " to " + std::to_string(range.most), *found);
    }
    if (const auto fill = settings.find("max_target_fill"); fill != settings.end()) {
        if (!fill->is_number() || !(fill->get<double>() > 0 && fill->get<double>() <= 1))
            return badSetting("max_target_fill", "above 0 and at most 1", *fill);
    }
    if (auto engine = checkDefaultEngine(settings); !engine)
        return engine;
    return checkSnapshotRepository(settings);
}

Status validateSettings(const MigrationSettings& settings)
{
    return checkSettingRanges(nlohmann::json::parse(encode(settings)));
}

} // namespace

Result<std::uint64_t> MigrationRequests::setSettings(const MigrationSettings& settings, const Actor& actor)
{
    if (auto status = validateSettings(settings); !status)
        return status.error();
    auto map = readMapSnapshot(m_store);
    if (!map)
        return map.error();
    if (map->settings.value == settings && map->settings.modRevision != 0)
        return map->revision;
    // modRevision 0: no settings stored yet, and nobody may store them first unseen.
    CommitRequest request { { { std::string(keys::kMigrationSettings), encode(settings), map->settings.modRevision } },
        std::nullopt, std::nullopt, actor.name, "set-migration-settings", actor.reason };
    auto committed = m_store.commit(request);
    if (!committed && committed.error().code == ErrorCode::Conflict)
        return makeError(ErrorCode::Conflict, "the migration settings changed meanwhile; read them again and retry");
    return committed;
}

Result<MigrationSettings> readMigrationSettings(const std::string& json)
{
    auto parsed = readJsonInput(json, "the settings");
    if (!parsed)
        return parsed.error();
    if (auto status = checkSettingRanges(*parsed); !status)
        return status.error();
    auto settings = decodeMigrationSettings(json);
    if (!settings)
        return makeError(ErrorCode::InvalidArgument, "the settings: " + settings.error().message);
    return settings;
}

} // namespace shardmap::core
