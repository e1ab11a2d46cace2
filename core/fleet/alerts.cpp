// The alert rules' implementation: store, executor, node, shard and migration rules, each migration
// followed across evaluations so that a stall or a growing ETA is seen.
#include "core/fleet/alerts.h"

#include "core/util/units.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <set>
#include <utility>

namespace shardmap::core {

namespace {

struct KindName {
    AlertKind kind;
    const char* name;
};

constexpr std::array<KindName, 16> kKindNames { {
    { AlertKind::StoreUnreachable, "store-unreachable" },
    { AlertKind::StoreAccessDenied, "store-access-denied" },
    { AlertKind::NoExecutor, "no-executor" },
    { AlertKind::NodeUnreachable, "node-unreachable" },
    { AlertKind::DiskFull, "disk-full" },
    { AlertKind::CpuHigh, "cpu-high" },
    { AlertKind::MemoryHigh, "memory-high" },
    { AlertKind::ShardOverCapacity, "shard-over-capacity" },
    { AlertKind::MigrationFailed, "migration-failed" },
    { AlertKind::MigrationStalled, "migration-stalled" },
    { AlertKind::EtaGrowing, "eta-growing" },
    { AlertKind::AuditChainBroken, "audit-chain-broken" },
    { AlertKind::ShardUnderReplicated, "shard-under-replicated" },
    { AlertKind::ShardWithoutCopy, "shard-without-copy" },
    { AlertKind::ShardFailedOver, "shard-failed-over" },
    { AlertKind::SnapshotTooOld, "snapshot-too-old" },
} };

std::string fixed(double value, int decimals)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

// "45 s", "6 min", "2.5 h": the rough spans of alert texts.
std::string span(double seconds)
{
    if (seconds < 120)
        return fixed(seconds, 0) + " s";
    if (seconds < 2 * 3600)
        return fixed(seconds / 60, 0) + " min";
    return fixed(seconds / 3600, 1) + " h";
}

Alert alert(AlertKind kind, AlertSeverity severity, std::string subject, std::string summary, double value = 0,
    double threshold = 0, std::string detail = {})
{
    return { kind, severity, std::move(subject), value, threshold, std::move(detail), std::move(summary) };
}

AlertSeverity severityOf(double value, double critical)
{
    return value >= critical ? AlertSeverity::Critical : AlertSeverity::Warning;
}

std::string levelWord(AlertSeverity severity)
{
    return severity == AlertSeverity::Critical ? "critical" : "warning";
}

// The docs copied at time t, interpolated between the samples around it (nullopt outside them).
std::optional<double> docsAt(const std::vector<ProgressSample>& samples, std::int64_t t)
{
    if (samples.empty() || t < samples.front().unixMs || t > samples.back().unixMs)
        return std::nullopt;
    const auto after = std::lower_bound(samples.begin(), samples.end(), t,
        [](const ProgressSample& sample, std::int64_t at) { return sample.unixMs < at; });
    if (after->unixMs == t || after == samples.begin())
        return static_cast<double>(after->docsDone);
    const auto before = std::prev(after);
    const double share = static_cast<double>(t - before->unixMs) / static_cast<double>(after->unixMs - before->unixMs);
    return static_cast<double>(before->docsDone)
        + share * (static_cast<double>(after->docsDone) - static_cast<double>(before->docsDone));
}

void evaluateNodes(const FleetObservation& observation, const AlertThresholds& thresholds, std::vector<Alert>& out)
{
    const HealthThresholds& health = thresholds.health;
    for (const NodeObservation& node : observation.nodes) {
        if (node.retired)
            continue;
        if (node.reachable && !*node.reachable) {
            out.push_back(alert(AlertKind::NodeUnreachable, AlertSeverity::Critical, node.id,
                "node " + node.id + " cannot be reached" + (node.error.empty() ? "" : ": " + node.error), 0, 0,
                node.error));
            continue; // its last figures are stale
        }
        if (!node.vitals || node.vitals->empty())
            continue;
        const NodeVitals& latest = node.vitals->latest();
        if (const auto disk = diskUsedPercent(latest); disk && *disk >= health.diskUsedWarningPercent) {
            const auto severity = severityOf(*disk, health.diskUsedCriticalPercent);
            const double limit
                = severity == AlertSeverity::Critical ? health.diskUsedCriticalPercent : health.diskUsedWarningPercent;
            out.push_back(alert(AlertKind::DiskFull, severity, node.id,
                "node " + node.id + ": disk " + fixed(*disk, 1) + " % used, " + formatBytes(latest.diskFreeBytes)
                    + " free (" + levelWord(severity) + " at " + fixed(limit, 0) + " %)",
                *disk, limit));
        }
        if (const auto cpu = node.vitals->cpuAverage(health.cpuWindowMs); cpu && *cpu >= health.cpuWarningPercent) {
            out.push_back(alert(AlertKind::CpuHigh, AlertSeverity::Warning, node.id,
                "node " + node.id + ": CPU " + fixed(*cpu, 0) + " % on average over "
                    + span(static_cast<double>(health.cpuWindowMs) / 1000) + " (warning at "
                    + fixed(health.cpuWarningPercent, 0) + " %)",
                *cpu, health.cpuWarningPercent));
        }
        if (health.memoryLimitBytes > 0) {
            if (const auto rss = node.vitals->rssAverage(health.cpuWindowMs)) {
                const double percent = 100.0 * *rss / static_cast<double>(health.memoryLimitBytes);
                if (percent >= health.memoryWarningPercent) {
                    const auto severity = severityOf(percent, health.memoryCriticalPercent);
                    const double limit = severity == AlertSeverity::Critical ? health.memoryCriticalPercent
                                                                             : health.memoryWarningPercent;
                    out.push_back(alert(AlertKind::MemoryHigh, severity, node.id,
                        "node " + node.id + ": memory " + formatBytes(static_cast<std::uint64_t>(*rss)) + ", "
                            + fixed(percent, 0) + " % of " + formatBytes(health.memoryLimitBytes) + " on average over "
                            + span(static_cast<double>(health.cpuWindowMs) / 1000) + " (" + levelWord(severity) + " at "
                            + fixed(limit, 0) + " %)",
                        percent, limit));
                }
            }
        }
    }
}

// Green, yellow and red shards (evaluateCopies): a node that did not answer serves no copy.
void evaluateShardCopies(const FleetObservation& observation, std::vector<Alert>& out)
{
    std::set<std::string> unreachable;
    for (const NodeObservation& node : observation.nodes) {
        // A retired node is expected to have no link; its shards are judged by the map alone.
        if (!node.retired && node.reachable && !*node.reachable)
            unreachable.insert(node.id);
    }
    for (const auto& [id, versioned] : observation.map->shards) {
        const ShardRecord& shard = versioned.value;
        if (shard.state == ShardState::Retired)
            continue;
        const ShardCopiesHealth copies = evaluateCopies(*observation.map, shard, unreachable);
        // A shard kept as one copy whose node does not answer is that node's alert
        // (node-unreachable), raised once for the node and not once more for each of its shards
        // (hundreds on a node): it is red here when its only copy is lost, or when it was meant to
        // have others.
        const NodeRecord* primary = observation.map->node(shard.node);
        if (copies.health == CopyHealth::Red && copies.wanted <= 1 && shard.replicas.empty() && primary
            && !primary->lost)
            continue;
        const std::string counts = std::to_string(copies.inSync) + " of " + std::to_string(copies.wanted);
        if (copies.health == CopyHealth::Red)
            out.push_back(alert(AlertKind::ShardWithoutCopy, AlertSeverity::Critical, id,
                "shard " + id + " has no in-sync copy serving (its primary's node " + shard.node
                    + " is lost or unreachable and no replica is in sync): its spaces cannot be written or searched",
                0, copies.wanted, shard.node));
        else if (copies.health == CopyHealth::Yellow)
            out.push_back(alert(AlertKind::ShardUnderReplicated, AlertSeverity::Warning, id,
                "shard " + id + " is under-replicated: " + counts + " copies in sync",
                static_cast<double>(copies.inSync), copies.wanted));
    }
}

// A primary that moved to a replica within the lookback (a failover by the executor's watch or a
// node lost, or an administrator's promote), while the old primary is not back in sync: the copy it
// left behind says when and why (kDemotedByPromote, kLostPrimaryFailedOver).
void evaluateFailovers(const FleetObservation& observation, const AlertThresholds& thresholds, std::vector<Alert>& out)
{
    const std::int64_t since = observation.nowUnixMs - thresholds.failedLookbackSeconds * 1000;
    for (const auto& [id, versioned] : observation.map->shards) {
        const ShardRecord& shard = versioned.value;
        for (const ShardCopy& copy : shard.replicas) {
            const bool demoted
                = copy.reason.starts_with(kDemotedByPromote) || copy.reason.starts_with(kLostPrimaryFailedOver);
            if (!demoted || copy.state == CopyState::InSync || thresholds.failedLookbackSeconds <= 0
                || copy.sinceUnixMs < since)
                continue;
            out.push_back(alert(AlertKind::ShardFailedOver, AlertSeverity::Warning, id,
                "shard " + id + "'s primary moved from " + copy.node + " to " + shard.node + " "
                    + span(static_cast<double>(observation.nowUnixMs - copy.sinceUnixMs) / 1000) + " ago ("
                    + copy.reason + "); the old primary is " + copyStateName(copy.state),
                static_cast<double>(copy.sinceUnixMs), 0, copy.node));
            break;
        }
    }
}

// With a snapshot schedule, the newest usable snapshot older than twice the interval, or none
// usable once the first snapshot was asked for that long ago (a new schedule gets its time).
void evaluateSnapshots(const FleetObservation& observation, std::vector<Alert>& out)
{
    if (!observation.map || !observation.snapshots)
        return;
    const auto interval = static_cast<std::int64_t>(observation.map->settings.value.snapshotIntervalSeconds);
    if (interval == 0 || observation.snapshots->empty())
        return;
    std::int64_t newest = 0;
    std::int64_t first = observation.nowUnixMs;
    for (const SnapshotRecord& record : *observation.snapshots) {
        first = std::min(first, record.createdUnixMs);
        if (usable(record.state))
            newest = std::max(newest, record.finishedUnixMs);
    }
    const std::int64_t allowedMs = 2 * interval * 1000;
    const std::int64_t since = newest != 0 ? newest : first;
    if (observation.nowUnixMs - since <= allowedMs)
        return;
    const double ageSeconds = static_cast<double>(observation.nowUnixMs - since) / 1000;
    out.push_back(alert(AlertKind::SnapshotTooOld, AlertSeverity::Warning, {},
        newest != 0 ? "the newest usable snapshot finished " + span(ageSeconds) + " ago; the schedule takes one every "
                + span(static_cast<double>(interval))
                    : "no usable snapshot in " + span(ageSeconds) + "; the schedule takes one every "
                + span(static_cast<double>(interval)),
        newest != 0 ? ageSeconds : 0, static_cast<double>(interval)));
}

void evaluateShards(const FleetObservation& observation, const AlertThresholds& thresholds, std::vector<Alert>& out)
{
    if (!observation.map)
        return;
    evaluateShardCopies(observation, out);
    evaluateFailovers(observation, thresholds, out);
    for (const NodeObservation& node : observation.nodes) {
        if (!node.latest || (node.reachable && !*node.reachable))
            continue;
        for (const ShardMetricsValue& figures : node.latest->shards) {
            const ShardRecord* shard = observation.map->shard(figures.shard);
            if (!shard || shard->node != node.id || shard->state == ShardState::Retired)
                continue;
            // The fuller of the two measures that have a capacity.
            double percent = -1;
            std::string measure;
            std::uint64_t value = 0;
            std::uint64_t capacity = 0;
            const auto consider = [&](std::uint64_t have, std::uint64_t limit, const char* name) {
                if (limit == 0)
                    return;
                const double fill = 100.0 * static_cast<double>(have) / static_cast<double>(limit);
                if (fill > percent) {
                    percent = fill;
                    measure = name;
                    value = have;
                    capacity = limit;
                }
            };
            consider(figures.liveDocs, shard->capacityDocs, "documents");
            consider(figures.bytesEstimate, shard->capacityBytes, "bytes");
            if (percent < thresholds.shardFillWarningPercent)
                continue;
            const auto severity = percent > 100 ? AlertSeverity::Critical : AlertSeverity::Warning;
            out.push_back(alert(AlertKind::ShardOverCapacity, severity, shard->id,
                "shard " + shard->id + " on " + node.id + ": " + fixed(percent, 0) + " % of its " + measure
                    + " capacity (" + std::to_string(value) + " of " + std::to_string(capacity) + ")",
                percent, severity == AlertSeverity::Critical ? 100 : thresholds.shardFillWarningPercent, measure));
        }
    }
}

std::string describeMove(const MigrationRecord& migration, const MigrationHistory* history)
{
    if (migration.isCatchUp())
        return "catch-up " + migration.id + " of shard " + migration.source + "'s copy on " + migration.copyNode
            + " (from the primary on " + migration.copyPrimary + ")";
    const std::string& from
        = history && !history->requestedSource.empty() ? history->requestedSource : migration.source;
    const std::string& to = history && !history->requestedTarget.empty() ? history->requestedTarget : migration.target;
    return "migration " + migration.id + " (space " + migration.space + ", " + from + " → " + to + ")";
}

bool progressing(MigrationPhase phase)
{
    return phase == MigrationPhase::DualWrite || phase == MigrationPhase::Backfill || phase == MigrationPhase::Verify
        || phase == MigrationPhase::Cutover || phase == MigrationPhase::Cleanup;
}

int severityRank(AlertSeverity severity)
{
    return severity == AlertSeverity::Critical ? 0 : 1;
}

} // namespace

const char* alertKindName(AlertKind kind)
{
    for (const auto& entry : kKindNames) {
        if (entry.kind == kind)
            return entry.name;
    }
    return "unknown";
}

std::optional<AlertKind> parseAlertKind(std::string_view name)
{
    for (const auto& entry : kKindNames) {
        if (name == entry.name)
            return entry.kind;
    }
    return std::nullopt;
}

const char* alertSeverityName(AlertSeverity severity)
{
    return severity == AlertSeverity::Critical ? "critical" : "warning";
}

std::string Alert::key() const
{
    return std::string(alertKindName(kind)) + ":" + subject;
}

std::int64_t lastProgressUnixMs(
    const MigrationRecord& migration, const MigrationHistory* history, std::int64_t fallbackUnixMs)
{
    std::int64_t last = std::max(fallbackUnixMs, migration.startedUnixMs);
    if (!history)
        return last;
    for (auto span = history->phases.rbegin(); span != history->phases.rend(); ++span) {
        if (span->phase == migration.phase && span->endedUnixMs == 0) {
            last = std::max(last, span->startedUnixMs);
            break;
        }
    }
    for (std::size_t i = history->samples.size(); i-- > 1;) {
        if (history->samples[i].docsDone > history->samples[i - 1].docsDone) {
            last = std::max(last, history->samples[i].unixMs);
            break;
        }
    }
    for (auto event = history->events.rbegin(); event != history->events.rend(); ++event) {
        if (event->kind == "repair" || event->kind == "resumed") {
            last = std::max(last, event->unixMs);
            break;
        }
    }
    return last;
}

std::optional<double> etaSecondsAt(
    const std::vector<ProgressSample>& samples, std::uint64_t docsTotal, std::int64_t t, std::int64_t windowMs)
{
    if (windowMs <= 0)
        return std::nullopt;
    const auto now = docsAt(samples, t);
    const auto before = docsAt(samples, t - windowMs);
    if (!now || !before || *now <= *before)
        return std::nullopt;
    const double perSecond = (*now - *before) * 1000.0 / static_cast<double>(windowMs);
    const double left = std::max(0.0, static_cast<double>(docsTotal) - *now);
    return left / perSecond;
}

AlertEvaluator::AlertEvaluator(AlertThresholds thresholds)
    : m_thresholds(std::move(thresholds))
{
}

std::vector<Alert> AlertEvaluator::evaluate(const FleetObservation& observation)
{
    std::vector<Alert> out;
    if (observation.storeError) {
        const std::string why = observation.storeError->describe();
        if (refusesCaller(observation.storeError->code))
            out.push_back(alert(AlertKind::StoreAccessDenied, AlertSeverity::Critical, {},
                "the store refuses this user the read: " + why, 0, 0, why));
        else
            out.push_back(alert(AlertKind::StoreUnreachable, AlertSeverity::Critical, {},
                "the store cannot be read: " + why, 0, 0, why));
    }
    if (const auto& broken = observation.auditBreak)
        out.push_back(alert(AlertKind::AuditChainBroken, AlertSeverity::Critical, {},
            "the audit is broken at revision " + std::to_string(broken->revision) + ": " + broken->message,
            static_cast<double>(broken->revision), 0, broken->message));
    if (observation.map && observation.executorKnown && !observation.executor) {
        std::size_t waiting = 0;
        for (const auto& [id, migration] : observation.map->migrations)
            waiting += migration.value.active() ? 1 : 0;
        out.push_back(alert(AlertKind::NoExecutor, waiting > 0 ? AlertSeverity::Critical : AlertSeverity::Warning, {},
            waiting > 0 ? "no shardmapd holds the executor lease: " + std::to_string(waiting)
                    + " open migration(s) wait until one does"
                        : "no shardmapd holds the executor lease: migrations queued now would wait",
            static_cast<double>(waiting)));
    }
    evaluateNodes(observation, m_thresholds, out);
    evaluateShards(observation, m_thresholds, out);
    evaluateMigrations(observation, out);
    evaluateSnapshots(observation, out);
    std::stable_sort(out.begin(), out.end(), [](const Alert& a, const Alert& b) {
        if (a.severity != b.severity)
            return severityRank(a.severity) < severityRank(b.severity);
        if (a.kind != b.kind)
            return a.kind < b.kind;
        return a.subject < b.subject;
    });
    return out;
}

namespace {

// A migration that failed within the lookback: a warning that says why.
std::optional<Alert> recentFailureAlert(const std::string& id, const MigrationRecord& migration,
    const MigrationHistory* history, std::int64_t now, const AlertThresholds& thresholds)
{
    const std::int64_t ended = migration.finishedUnixMs ? migration.finishedUnixMs : migration.updatedUnixMs;
    if (thresholds.failedLookbackSeconds <= 0 || now - ended > thresholds.failedLookbackSeconds * 1000)
        return std::nullopt;
    return alert(AlertKind::MigrationFailed, AlertSeverity::Warning, id,
        describeMove(migration, history) + " failed"
            + (migration.error.empty() ? std::string() : ": " + migration.error),
        static_cast<double>(now - ended) / 1000, static_cast<double>(thresholds.failedLookbackSeconds),
        migration.error);
}

// A migration that should progress and has not for the stall threshold (a cleanup only once its
// rollback window is over).
std::optional<Alert> stalledAlert(const std::string& id, const MigrationRecord& migration,
    const MigrationHistory* history, std::int64_t seenChangedUnixMs, const MapSnapshot& map, std::int64_t now,
    const AlertThresholds& thresholds)
{
    std::int64_t last = lastProgressUnixMs(migration, history, seenChangedUnixMs);
    if (migration.phase == MigrationPhase::Cleanup) {
        // Cleanup waits out the rollback window first: no progress is expected until then.
        const std::int64_t windowEnds
            = migration.cutoverUnixMs + static_cast<std::int64_t>(map.settings.value.rollbackWindowSeconds) * 1000;
        last = std::max(last, windowEnds);
    }
    const double idleSeconds = static_cast<double>(now - last) / 1000;
    if (thresholds.migrationStallSeconds <= 0 || idleSeconds < static_cast<double>(thresholds.migrationStallSeconds))
        return std::nullopt;
    return alert(AlertKind::MigrationStalled, AlertSeverity::Warning, id,
        describeMove(migration, history) + " made no progress in " + migrationPhaseName(migration.phase) + " for "
            + span(idleSeconds) + " (stalled after " + span(static_cast<double>(thresholds.migrationStallSeconds)) + ")"
            + (migration.error.empty() ? std::string() : "; last error: " + migration.error),
        idleSeconds, static_cast<double>(thresholds.migrationStallSeconds), migration.error);
}

// A backfill whose expected time left grew over the last window by more than the thresholds allow.
std::optional<Alert> etaGrowthAlert(const std::string& id, const MigrationRecord& migration,
    const MigrationHistory* history, const std::vector<ProgressSample>& seenSamples, std::int64_t now,
    const AlertThresholds& thresholds)
{
    if (migration.phase != MigrationPhase::Backfill || migration.progress.docsTotal == 0)
        return std::nullopt;
    // The history's samples where the caller read it, else what this evaluator saw.
    const std::vector<ProgressSample>& samples = history && !history->samples.empty() ? history->samples : seenSamples;
    const std::int64_t window = thresholds.etaWindowSeconds * 1000;
    const std::int64_t newest = samples.empty() ? now : std::min(now, samples.back().unixMs);
    const auto etaNow = etaSecondsAt(samples, migration.progress.docsTotal, newest, window);
    const auto etaThen = etaSecondsAt(samples, migration.progress.docsTotal, newest - window, window);
    if (!etaNow || !etaThen)
        return std::nullopt;
    const double growth = *etaNow - *etaThen;
    if (growth < static_cast<double>(thresholds.etaGrowthMinSeconds)
        || *etaNow <= *etaThen * (1 + thresholds.etaGrowthPercent / 100))
        return std::nullopt;
    return alert(AlertKind::EtaGrowing, AlertSeverity::Warning, id,
        describeMove(migration, history) + ": expected time left grew from " + span(*etaThen) + " to " + span(*etaNow)
            + " in " + span(static_cast<double>(thresholds.etaWindowSeconds)),
        *etaNow, *etaThen);
}

} // namespace

// What this evaluator saw of an open migration: a change of phase, copied documents or repairs is
// progress; a backfill's copied documents are sampled for its ETA.
const AlertEvaluator::Track& AlertEvaluator::follow(
    const std::string& id, const MigrationRecord& migration, std::int64_t now)
{
    auto [track, inserted] = m_tracks.try_emplace(id);
    Track& seen = track->second;
    if (inserted || seen.phase != migration.phase || seen.docsDone != migration.progress.docsDone
        || seen.repairs != migration.repairs) {
        seen.changedUnixMs = inserted ? std::max(migration.updatedUnixMs, migration.startedUnixMs) : now;
        seen.phase = migration.phase;
        seen.docsDone = migration.progress.docsDone;
        seen.repairs = migration.repairs;
    }
    if (migration.phase == MigrationPhase::Backfill
        && (seen.samples.empty() || seen.samples.back().docsDone != migration.progress.docsDone)) {
        seen.samples.push_back({ now, migration.progress.docsDone, migration.progress.bytesDone });
    }
    if (migration.phase != MigrationPhase::Backfill)
        seen.samples.clear();
    // Keep two windows of samples (and one before them).
    const std::int64_t keepFrom = now - 2 * m_thresholds.etaWindowSeconds * 1000;
    while (seen.samples.size() > 2 && seen.samples[1].unixMs <= keepFrom)
        seen.samples.erase(seen.samples.begin());
    return seen;
}

void AlertEvaluator::evaluateMigrations(const FleetObservation& observation, std::vector<Alert>& out)
{
    if (!observation.map)
        return;
    const std::int64_t now = observation.nowUnixMs;
    std::set<std::string> open;
    for (const auto& [id, versioned] : observation.map->migrations) {
        const MigrationRecord& migration = versioned.value;
        const auto found = observation.histories.find(id);
        const MigrationHistory* history = found == observation.histories.end() ? nullptr : found->second;
        if (migration.phase == MigrationPhase::Failed) {
            if (auto failed = recentFailureAlert(id, migration, history, now, m_thresholds))
                out.push_back(std::move(*failed));
            continue;
        }
        if (!migration.active())
            continue;
        open.insert(id);
        const Track& seen = follow(id, migration, now);
        // A catch-up waiting in the queue leaves its copy out of sync (its node down, no slot):
        // that stalls it too, where a queued move only waits for its turn.
        const bool waitingCopy = migration.isCatchUp() && migration.phase == MigrationPhase::Queued;
        if (migration.paused || (!progressing(migration.phase) && !waitingCopy))
            continue;
        if (auto stalled
            = stalledAlert(id, migration, history, seen.changedUnixMs, *observation.map, now, m_thresholds)) {
            out.push_back(std::move(*stalled));
            continue;
        }
        if (auto growing = etaGrowthAlert(id, migration, history, seen.samples, now, m_thresholds))
            out.push_back(std::move(*growing));
    }
    for (auto track = m_tracks.begin(); track != m_tracks.end();) {
        track = open.contains(track->first) ? std::next(track) : m_tracks.erase(track);
    }
}

AlertLog::Changes AlertLog::update(const std::vector<Alert>& firing, std::int64_t nowUnixMs)
{
    Changes changes;
    std::set<std::string> keys;
    for (const Alert& now : firing) {
        const std::string key = now.key();
        if (!keys.insert(key).second)
            continue; // one alert per key
        const auto active = m_activeIndex.find(key);
        if (active != m_activeIndex.end()) {
            AlertEntry& entry = m_entries[active->second];
            const bool rose = severityRank(now.severity) < severityRank(entry.alert.severity);
            if (!rose) {
                entry.alert = now; // same alert, fresher figures
                continue;
            }
            entry.clearedUnixMs = nowUnixMs; // escalated: the warning ends, the critical fires
        }
        m_entries.push_back({ now, nowUnixMs, 0, false, {}, 0 });
        changes.fired.push_back(now);
        m_activeIndex[key] = m_entries.size() - 1;
    }
    for (AlertEntry& entry : m_entries) {
        if (entry.active() && !keys.contains(entry.alert.key())) {
            entry.clearedUnixMs = nowUnixMs;
            changes.cleared.push_back(entry.alert);
        }
    }
    // Bounded: the oldest cleared entries go first; active ones always stay.
    while (m_entries.size() > kMostEntries) {
        const auto oldest
            = std::find_if(m_entries.begin(), m_entries.end(), [](const AlertEntry& entry) { return !entry.active(); });
        if (oldest == m_entries.end())
            break;
        m_entries.erase(oldest);
    }
    reindex();
    return changes;
}

bool AlertLog::acknowledge(const std::string& key, const std::string& who, std::int64_t nowUnixMs)
{
    const auto active = m_activeIndex.find(key);
    if (active == m_activeIndex.end())
        return false;
    AlertEntry& entry = m_entries[active->second];
    entry.acknowledged = true;
    entry.acknowledgedBy = who;
    entry.acknowledgedUnixMs = nowUnixMs;
    return true;
}

std::size_t AlertLog::activeCount() const
{
    return m_activeIndex.size();
}

std::size_t AlertLog::unacknowledgedCount() const
{
    std::size_t count = 0;
    for (const auto& [key, index] : m_activeIndex)
        count += m_entries[index].acknowledged ? 0 : 1;
    return count;
}

void AlertLog::reindex()
{
    m_activeIndex.clear();
    for (std::size_t i = 0; i < m_entries.size(); ++i) {
        if (m_entries[i].active())
            m_activeIndex[m_entries[i].alert.key()] = i;
    }
}

} // namespace shardmap::core
