#pragma once

// Alerts: what needs an administrator's attention now, as rules over what the console or
// `shardmapctl health` observed of the fleet (the store, the executor lease, every node's
// vitals and figures, the migrations and their histories). The rules live here, once; the
// console evaluates them on every change it sees, the CLI once per run, with the same
// thresholds. An AlertLog turns successive evaluations into a history (fired, cleared,
// acknowledged) for the console's alerts panel.

#include "core/fleet/health.h"
#include "core/map/shard_map.h"
#include "core/migration/migration_history.h"
#include "core/snapshot/snapshot_records.h"
#include "core/store/audit_chain.h"
#include "core/store/metadata_store.h"

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardmap::core {

// The thresholds of the rules. Disk, CPU and memory are the health thresholds (one setting for
// both); the rest are the migrations' and shards'.
struct AlertThresholds {
    HealthThresholds health;
    // A migration past queued, not paused, whose progress (phase, documents copied, repairs)
    // has not changed for this long has stalled.
    std::int64_t migrationStallSeconds = 300;
    // A backfill's expected time left is compared with what it was this long ago (the rate of
    // each moment measured over the same span before it) ...
    std::int64_t etaWindowSeconds = 300;
    // ... and fires when it grew by more than this share and at least etaGrowthMinSeconds.
    double etaGrowthPercent = 50;
    std::int64_t etaGrowthMinSeconds = 120;
    // Failed migrations that ended less than this long ago fire (0: none do).
    std::int64_t failedLookbackSeconds = 24 * 3600;
    // A shard filled to this share of a capacity (docs or bytes) warns; over 100 % is critical.
    double shardFillWarningPercent = 90;

    bool operator==(const AlertThresholds&) const = default;
};

enum class AlertKind {
    StoreUnreachable,
    // The store answers but refuses this caller's user the read: its roles need fixing, the
    // store is fine.
    StoreAccessDenied,
    NoExecutor,
    NodeUnreachable,
    DiskFull,
    CpuHigh,
    MemoryHigh,
    ShardOverCapacity,
    MigrationFailed,
    MigrationStalled,
    EtaGrowing,
    // The audit's hash chain does not verify, or a live record is not what the audit wrote
    // (core/store/audit_chain.h).
    AuditChainBroken,
    // A shard with fewer in-sync copies than its replication factor, at least one (yellow).
    ShardUnderReplicated,
    // A shard with no in-sync copy serving (red): its documents cannot be written or searched.
    ShardWithoutCopy,
    // A shard's primary moved to a replica (a failover, or an administrator's promote) within the
    // failed lookback, and the old primary is not back in sync yet.
    ShardFailedOver,
    // The snapshot schedule is set and the newest usable snapshot is older than twice its
    // interval, or there is none a while after the first attempt (issue 32, docs/BACKUPS.md).
    SnapshotTooOld,
};
// "store-unreachable", "store-access-denied", "no-executor", "node-unreachable", "disk-full", "cpu-high",
// "memory-high", "shard-over-capacity", "migration-failed", "migration-stalled", "eta-growing",
// "audit-chain-broken", "shard-under-replicated", "shard-without-copy", "shard-failed-over",
// "snapshot-too-old".
const char* alertKindName(AlertKind kind);
std::optional<AlertKind> parseAlertKind(std::string_view name);

enum class AlertSeverity { Warning, Critical };
const char* alertSeverityName(AlertSeverity severity);

// One firing rule, as facts (the console words them in its language) and an English summary
// (the CLI prints it). subject is the node, shard or migration (empty for fleet-wide ones);
// value and threshold are the figure compared and its limit where the rule has them (percent,
// seconds); detail is an error text or an id that explains it.
struct Alert {
    AlertKind kind = AlertKind::StoreUnreachable;
    AlertSeverity severity = AlertSeverity::Warning;
    std::string subject;
    double value = 0;
    double threshold = 0;
    std::string detail;
    std::string summary;

    // kind:subject; one alert per key at a time.
    std::string key() const;
    bool operator==(const Alert&) const = default;
};

// What was seen of one node.
struct NodeObservation {
    std::string id;
    bool retired = false;
    // Whether a call or stream reached it; nullopt while the first attempt runs.
    std::optional<bool> reachable;
    std::string error;
    // Its recent vitals (may be null or empty: no sample yet) and the latest sample's shards.
    const NodeSampleWindow* vitals = nullptr;
    const NodeMetricsValue* latest = nullptr;
};

struct FleetObservation {
    std::int64_t nowUnixMs = 0;
    // Set when the store could not be read; map may then be the last one read, or null.
    std::optional<Error> storeError;
    const MapSnapshot* map = nullptr;
    // The executor lease as the store has it now (nullopt: nobody holds it). Ignored while
    // executorKnown is false (not read, e.g. the store is unreachable).
    bool executorKnown = false;
    std::optional<LeaseGrant> executor;
    std::vector<NodeObservation> nodes;
    // Histories of migrations (by id) where the caller read them; without one, a migration's
    // progress is judged from what this evaluator saw of it on earlier calls.
    std::map<std::string, const MigrationHistory*> histories;
    // The first break of the audit, where the caller verified it.
    std::optional<AuditChainBreak> auditBreak;
    // The map's snapshot records (snapshots/), where the caller read them (null: not read).
    const std::vector<SnapshotRecord>* snapshots = nullptr;
};

// Evaluates the rules. Keeps, per open migration, when its progress last changed and the
// progress it saw, so that a caller that evaluates often (the console) needs no histories; a
// caller that evaluates once (the CLI) passes them.
class AlertEvaluator {
public:
    explicit AlertEvaluator(AlertThresholds thresholds = {});

    void setThresholds(const AlertThresholds& thresholds) { m_thresholds = thresholds; }
    const AlertThresholds& thresholds() const { return m_thresholds; }

    // The alerts firing now, critical first, then by kind and subject.
    std::vector<Alert> evaluate(const FleetObservation& observation);

private:
    struct Track {
        MigrationPhase phase = MigrationPhase::Queued;
        std::uint64_t docsDone = 0;
        std::uint32_t repairs = 0;
        std::int64_t changedUnixMs = 0;
        std::vector<ProgressSample> samples;
    };

    void evaluateMigrations(const FleetObservation& observation, std::vector<Alert>& out);
    const Track& follow(const std::string& id, const MigrationRecord& migration, std::int64_t now);

    AlertThresholds m_thresholds;
    std::map<std::string, Track> m_tracks;
};

// When a migration last made progress: the later of what the history says (the start of its
// current phase, the last sample that copied more than the one before) and fallbackUnixMs.
std::int64_t lastProgressUnixMs(
    const MigrationRecord& migration, const MigrationHistory* history, std::int64_t fallbackUnixMs);

// A backfill's expected seconds left at time t, with the copy rate measured over the windowMs
// before t from samples (oldest first); nullopt when the samples do not cover the window or
// nothing was copied in it.
std::optional<double> etaSecondsAt(
    const std::vector<ProgressSample>& samples, std::uint64_t docsTotal, std::int64_t t, std::int64_t windowMs);

// A fired alert's life: when it fired, when it cleared (0: still firing), whether and by whom it
// was acknowledged.
struct AlertEntry {
    Alert alert;
    std::int64_t firedUnixMs = 0;
    std::int64_t clearedUnixMs = 0;
    bool acknowledged = false;
    std::string acknowledgedBy;
    std::int64_t acknowledgedUnixMs = 0;

    bool active() const { return clearedUnixMs == 0; }
};

// The history of alerts across evaluations, newest last, bounded (the oldest cleared entries
// go first). An alert whose severity rises fires again (and needs a new acknowledgement).
class AlertLog {
public:
    static constexpr std::size_t kMostEntries = 1000;

    struct Changes {
        std::vector<Alert> fired;
        std::vector<Alert> cleared;
        bool any() const { return !fired.empty() || !cleared.empty(); }
    };

    // Folds the alerts firing now into the log.
    Changes update(const std::vector<Alert>& firing, std::int64_t nowUnixMs);
    // Acknowledges the active alert with this key; false if none is active.
    bool acknowledge(const std::string& key, const std::string& who, std::int64_t nowUnixMs);

    const std::deque<AlertEntry>& entries() const { return m_entries; }
    std::size_t activeCount() const;
    std::size_t unacknowledgedCount() const;

private:
    std::deque<AlertEntry> m_entries;
    std::map<std::string, std::size_t> m_activeIndex; // key → position in m_entries (rebuilt)
    void reindex();
};

} // namespace shardmap::core
