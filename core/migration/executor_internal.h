#pragma once

// Shared by the two halves of the migration executor: migration_executor.cpp (the scheduler:
// threads, lease, backoff, slots; reading and committing) and migration_phases.cpp (the phase
// steps). Not for other code.

#include "core/migration/fleet_facts.h"
#include "core/migration/migration_executor.h"

#include <chrono>
#include <optional>
#include <string>

namespace shardmap::core {

namespace executor_detail {

// The executor's Prometheus families, one definition each (made at construction, so that they
// exist from the first scrape).
inline MetricHistogram& cutoverHoldMetric(MetricsRegistry& metrics)
{
    return metrics.histogram("shardmapd_cutover_write_hold_seconds",
        "How long a committed cutover held the space's writes (fence to new owner)");
}
inline MetricHistogram& storeCommitMetric(MetricsRegistry& metrics)
{
    return metrics.histogram("shardmapd_store_commit_duration_seconds", "Time of the executor's fenced store commits");
}
inline MetricCounter& backfillDocsMetric(MetricsRegistry& metrics)
{
    return metrics.counter("shardmapd_backfill_docs_total", "Documents the executor's backfills copied to targets");
}

constexpr std::chrono::milliseconds kVerifyPause { 50 };
constexpr int kVerifyRounds = 5;
// Rows one DropSpace call deletes at most (a bounded call: a deadline, the lease rechecked between).
constexpr std::uint64_t kDropRowsPerCall = 50000;

// The same rows: live documents, tombstones (a lost delete would let an older write back in), and
// the checksum over every row's content (an equal version with another body differs).
inline bool sameContent(const SpaceStats& a, const SpaceStats& b)
{
    return a.liveDocs == b.liveDocs && a.tombstones == b.tombstones && a.checksum == b.checksum;
}

inline std::string describeStats(const SpaceStats& stats)
{
    return std::to_string(stats.liveDocs) + " docs, " + std::to_string(stats.tombstones) + " tombstones, checksum "
        + std::to_string(stats.checksum);
}

inline VerificationFigures comparison(const SpaceStats& source, const SpaceStats& target, std::uint32_t rounds)
{
    return { nowUnixMs(), { source.liveDocs, source.tombstones, source.checksum },
        { target.liveDocs, target.tombstones, target.checksum }, rounds, 0, sameContent(source, target) };
}

// Started migrations count against the concurrency limits; queued ones wait for room, and a
// migration in cleanup only deletes at its own pace.
inline bool holdsSlot(const MigrationRecord& m)
{
    return m.aborting || (m.phase != MigrationPhase::Queued && m.phase != MigrationPhase::Cleanup && !isFinal(m.phase));
}

inline bool beforeCutover(MigrationPhase phase)
{
    return phase == MigrationPhase::Queued || phase == MigrationPhase::DualWrite || phase == MigrationPhase::Backfill
        || phase == MigrationPhase::Verify;
}

template <typename T>
Result<std::optional<Versioned<T>>> readOne(
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

inline bool isLeaseError(const Error& error)
{
    return error.details.contains("not_leading") || error.message.find("lease") != std::string::npos;
}

} // namespace executor_detail

// What one step reads: the migration, its space, and the fleet's shards and nodes.
struct MigrationExecutor::Context {
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
    std::optional<Versioned<SpaceRecord>> space;
    std::map<std::string, ShardRecord> shards;
    std::map<std::string, NodeRecord> nodes;
    MigrationSettings settings;

    MigrationRecord& m() { return migration.value; }
    SpaceRecord& sp() { return space->value; }
    bool ownsSpace() const { return space && space->value.migrationId == migration.value.id; }
};

} // namespace shardmap::core
