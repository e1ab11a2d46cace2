#pragma once

// One migration's records as the executor reads and commits them: the migration, its history,
// its space, the fleet's shards and nodes and the migration settings, every commit fenced.

#include "core/map/shard_map.h"
#include "core/metrics/prometheus.h"
#include "core/migration/migration_history.h"
#include "core/migration/phase_step.h"
#include "core/store/metadata_store.h"
#include "core/util/log.h"
#include "core/util/result.h"

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shardmap::core {

// How the executor's parts know they may act: check() fails once the lease is lost or about to
// expire unrenewed (ExecutorOptions::leaseMargin); fence() gives the grant a commit is fenced
// with, checked and read under one lock (issue 14).
struct LeaseGuard {
    std::function<Status()> check;
    std::function<Result<LeaseGrant>()> fence;
};

// What one step reads: the migration, its space, and the fleet's shards and nodes.
struct MigrationContext {
    Versioned<MigrationRecord> migration;
    // The migration record as last read or committed: what the history's next change is
    // measured against.
    MigrationRecord committed;
    // Nullopt until the first executor commit of this migration writes it.
    std::optional<Versioned<MigrationHistory>> history;
    // Figures of the last comparison and when the cutover fenced the source, folded into the
    // history at the next commit.
    std::optional<VerificationFigures> verification;
    std::optional<std::chrono::steady_clock::time_point> fencedAt;
    // The error of a failed step that is retried after a backoff, recorded as a retry event at
    // the next commit.
    std::optional<std::string> retry;
    // More records the next commit writes with the migration's (a catch-up's shard record,
    // compare-and-set on its revision); cleared by the commit, whether it succeeded or not.
    std::vector<Mutation> alsoCommit;
    std::optional<Versioned<SpaceRecord>> space;
    std::map<std::string, ShardRecord> shards;
    std::map<std::string, NodeRecord> nodes;
    MigrationSettings settings;

    MigrationRecord& m() { return migration.value; }
    SpaceRecord& sp() { return space->value; }
    bool ownsSpace() const { return space && space->value.migrationId == migration.value.id; }
};

// The record under key decoded, with its revision; nullopt when there is none.
template <typename T>
Result<std::optional<Versioned<T>>> readVersioned(
    MetadataStore& store, const std::string& key, Result<T> (*decode)(const std::string&))
{
    auto listed = store.list(key);
    if (!listed)
        return listed.error();
    const auto found = listed->records.find(key);
    if (found == listed->records.end())
        return std::optional<Versioned<T>> {};
    auto value = decode(found->second.value);
    if (!value)
        return value.error();
    return std::optional<Versioned<T>> { Versioned<T> { std::move(*value), found->second.modRevision } };
}

// Reads a migration's context and commits its changes with a compare-and-set on what was read,
// fenced with the lease, the history's change folded into the same commit (a report sees every
// phase, retry and comparison). Used by the phase steps and by the scheduler (a retry's note).
class MigrationRecords {
public:
    struct Options {
        // Audit actor of the commits.
        std::string actor;
        LogSink log;
        // Store commit latency (null: none).
        MetricsRegistry* metrics = nullptr;
    };

    MigrationRecords(MetadataStore& store, LeaseGuard lease, Options options);

    Result<MigrationContext> load(const std::string& id);
    // Commits the space and/or migration records of ctx as changed, CAS on what was read.
    Result<std::uint64_t> commit(
        MigrationContext& ctx, bool space, const std::string& action, const std::string& reason);
    // The one way a step changes phase: the migration's phase and status (its end time when
    // final) and, withSpace, the space's phase, committed together (CAS on what was read).
    Result<std::uint64_t> transition(MigrationContext& ctx, MigrationPhase phase, std::string status,
        const std::string& action, const std::string& reason = {}, bool withSpace = true);
    // Updates only the migration record, re-reading and re-applying change on a conflict with
    // an administrator's request (pause, throttle), so progress never overwrites them.
    Status updateMigration(MigrationContext& ctx, const std::function<void(MigrationRecord&)>& change);
    // A paused migration's step: its status says "paused" (committed once) and the next step
    // comes after poll.
    Result<PhaseStep> waitWhilePaused(MigrationContext& ctx, std::chrono::milliseconds poll);
    // Says in the record of an active migration that its step failed with error and is retried
    // after wait (for the console and `shardmapctl watch`), and in its history.
    void noteRetry(const std::string& id, const std::string& error, std::chrono::milliseconds wait);

private:
    std::optional<MigrationHistory> historyChange(const MigrationContext& ctx) const;
    void log(LogLevel level, const std::string& message) const;

    MetadataStore& m_store;
    LeaseGuard m_lease;
    Options m_options;
};

} // namespace shardmap::core
