// The alert rules on hand-made observations: each rule fires at its threshold and not below, and
// clears; the log's history and acknowledgements. Real conditions (a killed node, a stalled
// migration, a full disk) fire them end to end in tests/integration/health_command_test.cpp.
#include "core/fleet/alerts.h"
#include "core/migration/backfill_rate.h"
#include "tests/core/test_helpers.h"

#include <gtest/gtest.h>

using namespace shardmap::core;
using shardmap::testing::kGiB;

namespace {

constexpr std::int64_t kNow = 1'800'000'000'000;

std::vector<AlertKind> kinds(const std::vector<Alert>& alerts)
{
    std::vector<AlertKind> out;
    for (const Alert& alert : alerts)
        out.push_back(alert.kind);
    return out;
}

const Alert* find(const std::vector<Alert>& alerts, AlertKind kind, const std::string& subject = {})
{
    for (const Alert& alert : alerts) {
        if (alert.kind == kind && (subject.empty() || alert.subject == subject))
            return &alert;
    }
    return nullptr;
}

MapSnapshot mapWith(std::vector<MigrationRecord> migrations = {})
{
    MapSnapshot map;
    map.nodes["n1"] = { { "n1", "127.0.0.1:1", {}, false }, 1 };
    map.shards["s1"] = { { "s1", "n1", ShardState::Active, 1000, 0 }, 1 };
    map.shards["s2"] = { { "s2", "n1", ShardState::Active, 0, 0 }, 1 };
    for (auto& migration : migrations)
        map.migrations[migration.id] = { migration, 1 };
    return map;
}

MigrationRecord migration(const std::string& id, MigrationPhase phase, std::int64_t updated)
{
    MigrationRecord record;
    record.id = id;
    record.space = "acme";
    record.source = "s1";
    record.target = "s2";
    record.phase = phase;
    record.createdUnixMs = updated - 1000;
    record.startedUnixMs = updated - 1000;
    record.updatedUnixMs = updated;
    return record;
}

NodeSampleWindow window(double cpu, std::uint64_t rss, std::uint64_t diskFree, int seconds = 400)
{
    NodeSampleWindow out;
    for (int s = 0; s <= seconds; ++s)
        out.add({ kNow - (seconds - s) * 1000LL, cpu, rss, 100 * kGiB, diskFree }, 600'000);
    return out;
}

FleetObservation observe(const MapSnapshot& map, std::int64_t now = kNow)
{
    FleetObservation observation;
    observation.nowUnixMs = now;
    observation.map = &map;
    observation.executorKnown = true;
    observation.executor = LeaseGrant { "executor", "a#1", 1, now + 10'000 };
    return observation;
}

} // namespace

TEST(Alerts, AQuietFleetHasNone)
{
    const MapSnapshot map = mapWith();
    const NodeSampleWindow vitals = window(20, kGiB, 60 * kGiB);
    NodeMetricsValue latest;
    latest.shards.push_back({ "s1", true, 100, 0, 0, 1, 0, 0, 0, 0, 0, {} });
    auto observation = observe(map);
    observation.nodes.push_back({ "n1", false, true, {}, &vitals, &latest });
    AlertEvaluator evaluator;
    EXPECT_TRUE(evaluator.evaluate(observation).empty());
}

// A store that refuses the user is not down: the alert says what to fix instead.
TEST(Alerts, AStoreThatRefusesTheUserIsNotUnreachable)
{
    const MapSnapshot map = mapWith();
    auto observation = observe(map);
    observation.storeError = makeError(ErrorCode::PermissionDenied, "etcd user 'nobody' may not read", "etcd e1");
    AlertEvaluator evaluator;
    auto alerts = evaluator.evaluate(observation);
    ASSERT_EQ(kinds(alerts), std::vector<AlertKind> { AlertKind::StoreAccessDenied });
    EXPECT_EQ(alerts[0].detail, "etcd e1: etcd user 'nobody' may not read");
    EXPECT_NE(alerts[0].summary.find("refuses this user"), std::string::npos) << alerts[0].summary;

    observation.storeError->code = ErrorCode::Unauthenticated;
    EXPECT_EQ(kinds(evaluator.evaluate(observation)), std::vector<AlertKind> { AlertKind::StoreAccessDenied });
}

TEST(Alerts, StoreUnreachableAndNoExecutorAreFleetWide)
{
    const MapSnapshot map = mapWith({ migration("m1", MigrationPhase::Queued, kNow) });
    auto observation = observe(map);
    observation.storeError = makeError(ErrorCode::Unavailable, "connection refused");
    observation.executorKnown = false;
    AlertEvaluator evaluator;
    auto alerts = evaluator.evaluate(observation);
    ASSERT_EQ(kinds(alerts), std::vector<AlertKind> { AlertKind::StoreUnreachable });
    EXPECT_EQ(alerts[0].severity, AlertSeverity::Critical);
    EXPECT_NE(alerts[0].summary.find("connection refused"), std::string::npos);

    observation.storeError.reset();
    observation.executorKnown = true;
    observation.executor.reset();
    alerts = evaluator.evaluate(observation);
    ASSERT_EQ(kinds(alerts), std::vector<AlertKind> { AlertKind::NoExecutor });
    EXPECT_EQ(alerts[0].severity, AlertSeverity::Critical) << "an open migration waits";
    EXPECT_NE(alerts[0].summary.find("1 open migration"), std::string::npos) << alerts[0].summary;

    const MapSnapshot idle = mapWith();
    auto quiet = observe(idle);
    quiet.executor.reset();
    alerts = evaluator.evaluate(quiet);
    ASSERT_EQ(kinds(alerts), std::vector<AlertKind> { AlertKind::NoExecutor });
    EXPECT_EQ(alerts[0].severity, AlertSeverity::Warning) << "nothing waits yet";
}

TEST(Alerts, NodeRulesFireAtTheirThresholds)
{
    const MapSnapshot map = mapWith();
    AlertThresholds thresholds;
    thresholds.health.memoryLimitBytes = 10 * kGiB;
    AlertEvaluator evaluator(thresholds);

    // 85 % disk used: warning; 92 %: critical.
    auto disk85 = window(10, kGiB, 15 * kGiB);
    auto observation = observe(map);
    observation.nodes.push_back({ "n1", false, true, {}, &disk85, nullptr });
    auto alerts = evaluator.evaluate(observation);
    ASSERT_NE(find(alerts, AlertKind::DiskFull, "n1"), nullptr);
    EXPECT_EQ(find(alerts, AlertKind::DiskFull)->severity, AlertSeverity::Warning);
    EXPECT_DOUBLE_EQ(find(alerts, AlertKind::DiskFull)->threshold, 80);
    auto disk92 = window(10, kGiB, 8 * kGiB);
    observation.nodes[0].vitals = &disk92;
    alerts = evaluator.evaluate(observation);
    EXPECT_EQ(find(alerts, AlertKind::DiskFull)->severity, AlertSeverity::Critical);
    auto disk79 = window(10, kGiB, 21 * kGiB);
    observation.nodes[0].vitals = &disk79;
    EXPECT_EQ(find(evaluator.evaluate(observation), AlertKind::DiskFull), nullptr);

    // CPU sustained over the window fires; the same CPU over less than the window does not.
    auto busy = window(90, kGiB, 60 * kGiB);
    observation.nodes[0].vitals = &busy;
    ASSERT_NE(find(evaluator.evaluate(observation), AlertKind::CpuHigh, "n1"), nullptr);
    auto brief = window(90, kGiB, 60 * kGiB, 100);
    observation.nodes[0].vitals = &brief;
    EXPECT_EQ(find(evaluator.evaluate(observation), AlertKind::CpuHigh), nullptr) << "100 s is not 5 min";

    // Memory: 85 % of the limit on average warns, 96 % is critical.
    auto rss = window(10, static_cast<std::uint64_t>(8.5 * static_cast<double>(kGiB)), 60 * kGiB);
    observation.nodes[0].vitals = &rss;
    alerts = evaluator.evaluate(observation);
    ASSERT_NE(find(alerts, AlertKind::MemoryHigh), nullptr);
    EXPECT_EQ(find(alerts, AlertKind::MemoryHigh)->severity, AlertSeverity::Warning);
    auto rssHigh = window(10, static_cast<std::uint64_t>(9.6 * static_cast<double>(kGiB)), 60 * kGiB);
    observation.nodes[0].vitals = &rssHigh;
    EXPECT_EQ(find(evaluator.evaluate(observation), AlertKind::MemoryHigh)->severity, AlertSeverity::Critical);

    // Unreachable hides the stale figures; a retired node never fires.
    observation.nodes[0].reachable = false;
    observation.nodes[0].error = "connection refused";
    alerts = evaluator.evaluate(observation);
    // Its two shards are kept as one copy each: the node's alert stands for them, not one alert
    // more per shard (issue 30's shard-without-copy is for a lost copy or a shard meant to have
    // replicas, below).
    ASSERT_EQ(kinds(alerts), std::vector<AlertKind> { AlertKind::NodeUnreachable });
    EXPECT_NE(alerts[0].summary.find("connection refused"), std::string::npos);
    observation.nodes[0].retired = true;
    EXPECT_TRUE(evaluator.evaluate(observation).empty());
}

// Issue 30: a shard meant to have two copies warns when one stops serving and is critical when
// none does; a shard kept as one copy is critical only when that copy is lost (its node's
// unreachable alert stands for it while the node is merely down).
TEST(Alerts, CopiesWarnWhenUnderReplicatedAndAreCriticalWithoutAnyInSync)
{
    MapSnapshot map = mapWith();
    map.nodes["n2"] = { { "n2", "127.0.0.1:2", {}, false }, 1 };
    map.shards["s1"].value.replicationFactor = 2;
    map.shards["s1"].value.replicas = { { "n2", CopyState::InSync, 0, 0, kNow, "" } };
    AlertEvaluator evaluator(AlertThresholds {});
    auto observation = observe(map);
    observation.nodes.push_back({ "n1", false, true, {}, nullptr, nullptr });
    observation.nodes.push_back({ "n2", false, true, {}, nullptr, nullptr });
    EXPECT_EQ(find(evaluator.evaluate(observation), AlertKind::ShardUnderReplicated), nullptr);

    observation.nodes[1].reachable = false;
    auto alerts = evaluator.evaluate(observation);
    ASSERT_NE(find(alerts, AlertKind::ShardUnderReplicated, "s1"), nullptr);
    EXPECT_EQ(find(alerts, AlertKind::ShardUnderReplicated, "s1")->severity, AlertSeverity::Warning);
    EXPECT_EQ(find(alerts, AlertKind::ShardWithoutCopy), nullptr);

    observation.nodes[0].reachable = false;
    alerts = evaluator.evaluate(observation);
    ASSERT_NE(find(alerts, AlertKind::ShardWithoutCopy, "s1"), nullptr);
    EXPECT_EQ(find(alerts, AlertKind::ShardWithoutCopy, "s1")->severity, AlertSeverity::Critical);
    EXPECT_EQ(find(alerts, AlertKind::ShardWithoutCopy, "s2"), nullptr) << "one copy on a node that is down";

    map.nodes["n1"].value.lost = true;
    alerts = evaluator.evaluate(observation);
    EXPECT_NE(find(alerts, AlertKind::ShardWithoutCopy, "s2"), nullptr) << "its only copy is lost";
}

// Issue 30: a primary that moved to a replica (the failover watch's promote, a node lost, an
// administrator's promote) warns while the old primary is not back in sync, within the lookback.
TEST(Alerts, AFailoverWarnsUntilTheOldPrimaryIsBackInSync)
{
    MapSnapshot map = mapWith();
    map.nodes["n2"] = { { "n2", "127.0.0.1:2", {}, false }, 1 };
    map.shards["s1"].value.node = "n2";
    map.shards["s1"].value.replicas
        = { { "n1", CopyState::CatchingUp, 0, 0, kNow - 60'000, "demoted by promote: failover: node n1 unreachable" } };
    map.shards["s2"].value.replicas = { { "n2", CopyState::CatchingUp, 0, 0, kNow - 60'000, "added" } };
    AlertThresholds thresholds;
    thresholds.failedLookbackSeconds = 3600;
    AlertEvaluator evaluator(thresholds);
    auto alerts = evaluator.evaluate(observe(map));
    const Alert* failover = find(alerts, AlertKind::ShardFailedOver, "s1");
    ASSERT_NE(failover, nullptr);
    EXPECT_EQ(failover->severity, AlertSeverity::Warning);
    EXPECT_EQ(failover->detail, "n1");
    EXPECT_EQ(failover->summary,
        "shard s1's primary moved from n1 to n2 60 s ago (demoted by promote: failover: node n1 unreachable); the old "
        "primary is catching_up");
    EXPECT_EQ(find(alerts, AlertKind::ShardFailedOver, "s2"), nullptr) << "a replica added is no failover";

    map.shards["s1"].value.replicas.front().state = CopyState::Lost;
    map.shards["s1"].value.replicas.front().reason = "node lost: its primary failed over";
    EXPECT_NE(find(evaluator.evaluate(observe(map)), AlertKind::ShardFailedOver, "s1"), nullptr);
    EXPECT_EQ(find(evaluator.evaluate(observe(map, kNow + 3600'000)), AlertKind::ShardFailedOver), nullptr)
        << "past the lookback";
    map.shards["s1"].value.replicas.front().state = CopyState::InSync;
    EXPECT_EQ(find(evaluator.evaluate(observe(map)), AlertKind::ShardFailedOver), nullptr) << "back in sync";
}

TEST(Alerts, ShardOverCapacityWarnsNearAndIsCriticalOver)
{
    const MapSnapshot map = mapWith();
    AlertEvaluator evaluator;
    NodeMetricsValue latest;
    latest.shards.push_back({ "s1", true, 950, 0, 0, 1, 0, 0, 0, 0, 0, {} });
    latest.shards.push_back({ "s2", true, 5'000'000, 0, 0, 1, 0, 0, 0, 0, 0, {} }); // no capacity
    auto observation = observe(map);
    observation.nodes.push_back({ "n1", false, true, {}, nullptr, &latest });
    auto alerts = evaluator.evaluate(observation);
    ASSERT_EQ(kinds(alerts), std::vector<AlertKind> { AlertKind::ShardOverCapacity });
    EXPECT_EQ(alerts[0].subject, "s1");
    EXPECT_EQ(alerts[0].severity, AlertSeverity::Warning);
    latest.shards[0].liveDocs = 1001;
    alerts = evaluator.evaluate(observation);
    EXPECT_EQ(alerts.at(0).severity, AlertSeverity::Critical);
    EXPECT_NE(alerts[0].summary.find("1001 of 1000"), std::string::npos) << alerts[0].summary;
    latest.shards[0].liveDocs = 899;
    EXPECT_TRUE(evaluator.evaluate(observation).empty());
}

TEST(Alerts, FailedMigrationFiresForTheLookbackOnly)
{
    auto failed = migration("m1", MigrationPhase::Failed, kNow - 3600'000);
    failed.finishedUnixMs = kNow - 3600'000;
    failed.error = "target s2 is full";
    const MapSnapshot map = mapWith({ failed });
    AlertEvaluator evaluator;
    auto alerts = evaluator.evaluate(observe(map));
    ASSERT_EQ(kinds(alerts), std::vector<AlertKind> { AlertKind::MigrationFailed });
    EXPECT_NE(alerts[0].summary.find("target s2 is full"), std::string::npos);
    EXPECT_TRUE(evaluator.evaluate(observe(map, kNow + 24 * 3600'000LL)).empty()) << "a day later";
}

TEST(Alerts, StallIsJudgedFromWhatTheEvaluatorSawOrFromTheHistory)
{
    AlertThresholds thresholds;
    thresholds.migrationStallSeconds = 60;
    AlertEvaluator evaluator(thresholds);
    auto running = migration("m1", MigrationPhase::Backfill, kNow);
    running.progress = { 100, 1000, 0, 0, 0, -1, {} };
    MapSnapshot map = mapWith({ running });
    EXPECT_TRUE(evaluator.evaluate(observe(map)).empty());
    // 59 s later without a change: not yet; 61 s: stalled.
    EXPECT_TRUE(evaluator.evaluate(observe(map, kNow + 59'000)).empty());
    auto alerts = evaluator.evaluate(observe(map, kNow + 61'000));
    ASSERT_EQ(kinds(alerts), std::vector<AlertKind> { AlertKind::MigrationStalled });
    EXPECT_EQ(alerts[0].subject, "m1");
    // Progress clears it.
    map.migrations["m1"].value.progress.docsDone = 200;
    EXPECT_TRUE(evaluator.evaluate(observe(map, kNow + 62'000)).empty());
    // Paused: never stalled.
    map.migrations["m1"].value.paused = true;
    EXPECT_TRUE(evaluator.evaluate(observe(map, kNow + 600'000)).empty());

    // A one-shot caller (a fresh evaluator) passes the history: its last copying sample counts.
    AlertEvaluator once(thresholds);
    MapSnapshot old = mapWith({ running });
    old.migrations["m1"].value.updatedUnixMs = kNow - 3600'000;
    old.migrations["m1"].value.startedUnixMs = kNow - 3600'000;
    MigrationHistory history;
    history.phases = { { MigrationPhase::Backfill, kNow - 3600'000, 0 } };
    history.samples = { { kNow - 3600'000, 0, 0 }, { kNow - 30'000, 100, 0 } };
    auto observation = observe(old);
    observation.histories["m1"] = &history;
    EXPECT_TRUE(once.evaluate(observation).empty()) << "copied 30 s ago";
    history.samples.back().unixMs = kNow - 90'000;
    AlertEvaluator again(thresholds);
    EXPECT_EQ(kinds(again.evaluate(observation)), std::vector<AlertKind> { AlertKind::MigrationStalled });
}

// A replica's catch-up (issue 30) stalls like a migration, worded as what it is, and also while it
// waits in the queue (its node down): its copy stays out of sync all that time.
TEST(Alerts, ACatchUpStallsInTheQueueAndSaysItIsACatchUp)
{
    AlertThresholds thresholds;
    thresholds.migrationStallSeconds = 60;
    AlertEvaluator evaluator(thresholds);
    auto catchUp = migration("c1", MigrationPhase::Queued, kNow);
    catchUp.source = catchUp.target = "s0";
    catchUp.copyNode = "n2";
    catchUp.copyPrimary = "n0";
    auto queuedMove = migration("m1", MigrationPhase::Queued, kNow);
    MapSnapshot map = mapWith({ catchUp, queuedMove });
    EXPECT_TRUE(evaluator.evaluate(observe(map)).empty());
    const auto alerts = evaluator.evaluate(observe(map, kNow + 61'000));
    ASSERT_EQ(kinds(alerts), std::vector<AlertKind> { AlertKind::MigrationStalled }) << "the queued move waits";
    EXPECT_EQ(alerts[0].subject, "c1");
    EXPECT_EQ(alerts[0].summary.rfind("catch-up c1 of shard s0's copy on n2 (from the primary on n0) made no progress "
                                      "in queued for ",
                  0),
        0u)
        << alerts[0].summary;
}

TEST(Alerts, CleanupIsNotStalledWhileTheRollbackWindowIsOpen)
{
    AlertThresholds thresholds;
    thresholds.migrationStallSeconds = 60;
    AlertEvaluator evaluator(thresholds);
    auto cleanup = migration("m1", MigrationPhase::Cleanup, kNow);
    cleanup.cutoverUnixMs = kNow;
    MapSnapshot map = mapWith({ cleanup });
    map.settings.value.rollbackWindowSeconds = 600;
    EXPECT_TRUE(evaluator.evaluate(observe(map)).empty());
    EXPECT_TRUE(evaluator.evaluate(observe(map, kNow + 630'000)).empty()) << "window ended 30 s ago";
    EXPECT_EQ(kinds(evaluator.evaluate(observe(map, kNow + 670'000))),
        std::vector<AlertKind> { AlertKind::MigrationStalled });
}

TEST(Alerts, EtaGrowingFiresWhenTheBackfillSlowsDown)
{
    AlertThresholds thresholds;
    thresholds.etaWindowSeconds = 60;
    thresholds.etaGrowthMinSeconds = 30;
    thresholds.migrationStallSeconds = 3600;
    AlertEvaluator evaluator(thresholds);
    auto running = migration("m1", MigrationPhase::Backfill, kNow);
    running.progress.docsTotal = 100'000;
    MapSnapshot map = mapWith({ running });
    // 100 docs/s for two minutes, then 10 docs/s for one: the expected time left grows tenfold.
    std::uint64_t docs = 0;
    std::int64_t t = kNow;
    std::vector<Alert> alerts;
    for (int second = 0; second <= 180; ++second, t += 1000) {
        map.migrations["m1"].value.progress.docsDone = docs;
        alerts = evaluator.evaluate(observe(map, t));
        if (second == 119) {
            EXPECT_TRUE(alerts.empty()) << "steady so far";
        }
        docs += second < 120 ? 100 : 10;
    }
    ASSERT_EQ(kinds(alerts), std::vector<AlertKind> { AlertKind::EtaGrowing });
    EXPECT_GT(alerts[0].value, alerts[0].threshold * 5) << alerts[0].summary;

    // The same figures from a history, for a one-shot caller.
    EXPECT_NEAR(*etaSecondsAt({ { 0, 0, 0 }, { 60'000, 6000, 0 } }, 12'000, 60'000, 60'000), 60, 1e-9);
    EXPECT_FALSE(etaSecondsAt({ { 0, 0, 0 }, { 60'000, 6000, 0 } }, 12'000, 60'000, 120'000)) << "not covered";
    EXPECT_FALSE(etaSecondsAt({ { 0, 500, 0 }, { 60'000, 500, 0 } }, 12'000, 60'000, 60'000)) << "no copy";
}

TEST(AlertLog, KeepsHistoryClearsAndAcknowledges)
{
    AlertLog log;
    Alert disk { AlertKind::DiskFull, AlertSeverity::Warning, "n1", 85, 80, {}, "disk" };
    Alert node { AlertKind::NodeUnreachable, AlertSeverity::Critical, "n2", 0, 0, {}, "down" };
    auto changes = log.update({ disk, node }, 1000);
    EXPECT_EQ(changes.fired.size(), 2u);
    EXPECT_EQ(log.activeCount(), 2u);
    EXPECT_EQ(log.unacknowledgedCount(), 2u);
    EXPECT_TRUE(log.acknowledge(node.key(), "ada", 1500));
    EXPECT_FALSE(log.acknowledge("disk-full:n9", "ada", 1500));
    EXPECT_EQ(log.unacknowledgedCount(), 1u);

    // Same alerts again: nothing new fires.
    EXPECT_FALSE(log.update({ disk, node }, 2000).any());
    // The node comes back: it clears and stays in the history, acknowledged.
    changes = log.update({ disk }, 3000);
    ASSERT_EQ(changes.cleared.size(), 1u);
    EXPECT_EQ(changes.cleared[0].kind, AlertKind::NodeUnreachable);
    ASSERT_EQ(log.entries().size(), 2u);
    EXPECT_EQ(log.entries()[1].clearedUnixMs, 3000);
    EXPECT_TRUE(log.entries()[1].acknowledged);
    EXPECT_EQ(log.entries()[1].acknowledgedBy, "ada");

    // The disk warning escalates: it fires again, needing a new acknowledgement.
    EXPECT_TRUE(log.acknowledge(disk.key(), "ada", 3100));
    disk.severity = AlertSeverity::Critical;
    changes = log.update({ disk }, 4000);
    ASSERT_EQ(changes.fired.size(), 1u);
    EXPECT_EQ(log.activeCount(), 1u);
    EXPECT_EQ(log.unacknowledgedCount(), 1u);
    EXPECT_EQ(log.entries().size(), 3u);
    // Falling back to a warning is the same alert: no new firing.
    disk.severity = AlertSeverity::Warning;
    EXPECT_FALSE(log.update({ disk }, 5000).any());
}

TEST(AlertLog, StaysBoundedKeepingActiveEntries)
{
    AlertLog log;
    Alert stuck { AlertKind::NoExecutor, AlertSeverity::Warning, {}, 0, 0, {}, "none" };
    for (std::size_t i = 0; i < AlertLog::kMostEntries + 50; ++i) {
        Alert flapping { AlertKind::NodeUnreachable, AlertSeverity::Critical, "n1", 0, 0, {}, "down" };
        log.update({ stuck, flapping }, static_cast<std::int64_t>(2 * i));
        log.update({ stuck }, static_cast<std::int64_t>(2 * i + 1));
    }
    EXPECT_LE(log.entries().size(), AlertLog::kMostEntries);
    EXPECT_EQ(log.activeCount(), 1u);
    EXPECT_EQ(log.entries().front().alert.kind, AlertKind::NoExecutor) << "the active entry is never dropped";
}

TEST(Alerts, KindNamesRoundTrip)
{
    for (AlertKind kind :
        { AlertKind::StoreUnreachable, AlertKind::StoreAccessDenied, AlertKind::NoExecutor, AlertKind::NodeUnreachable,
            AlertKind::DiskFull, AlertKind::CpuHigh, AlertKind::MemoryHigh, AlertKind::ShardOverCapacity,
            AlertKind::MigrationFailed, AlertKind::MigrationStalled, AlertKind::EtaGrowing }) {
        EXPECT_EQ(parseAlertKind(alertKindName(kind)), kind);
    }
    EXPECT_FALSE(parseAlertKind("disk"));
}

TEST(MeasuredBackfillRate, IsTheMedianOfRecentUnthrottledCopies)
{
    MapSnapshot map;
    EXPECT_FALSE(measuredBackfillRate(map)) << "nothing measured yet";
    const auto add = [&](const std::string& id, double rate, std::int64_t finished, std::uint64_t throttle = 0,
                         bool backfilled = true) {
        MigrationRecord record;
        record.id = id;
        record.phase = MigrationPhase::Done;
        record.backfilled = backfilled;
        record.throttleDocsPerSecond = throttle;
        record.progress.docsPerSecond = rate;
        record.finishedUnixMs = finished;
        map.migrations[id] = { record, 1 };
    };
    add("old", 10, 1000);
    add("a", 900, 5000);
    add("b", 1100, 6000);
    add("c", 1000, 7000);
    add("throttled", 50, 8000, 50);
    add("never-copied", 5, 9000, 0, false);
    auto rate = measuredBackfillRate(map, 3);
    ASSERT_TRUE(rate);
    EXPECT_DOUBLE_EQ(rate->docsPerSecond, 1000) << "median of a, b, c; the old, throttled and uncopied are left out";
    EXPECT_EQ(rate->migrations, 3u);
    rate = measuredBackfillRate(map, 4);
    ASSERT_TRUE(rate);
    EXPECT_DOUBLE_EQ(rate->docsPerSecond, 950) << "median of 10, 900, 1000, 1100";
}

// Issue 32: with a schedule, a usable snapshot older than twice its interval warns, and so does
// none at all once the first was asked for that long ago; without a schedule nothing does.
TEST(Alerts, ASnapshotOlderThanTheScheduleAllowsWarns)
{
    MapSnapshot map = mapWith();
    map.settings.value.snapshotIntervalSeconds = 3600;
    SnapshotRecord good;
    good.id = "snap-a";
    good.state = SnapshotState::Verified;
    good.createdUnixMs = kNow - 3 * 3600'000;
    good.finishedUnixMs = kNow - 2 * 3600'000 - 60'000;
    SnapshotRecord failed = good;
    failed.id = "snap-b";
    failed.state = SnapshotState::Failed;
    failed.finishedUnixMs = kNow - 60'000;
    std::vector<SnapshotRecord> snapshots { good, failed };
    auto observation = observe(map);
    observation.snapshots = &snapshots;
    AlertEvaluator evaluator;
    auto alerts = evaluator.evaluate(observation);
    ASSERT_EQ(kinds(alerts), std::vector<AlertKind> { AlertKind::SnapshotTooOld });
    EXPECT_EQ(alerts[0].threshold, 3600);
    EXPECT_NE(alerts[0].summary.find("the newest usable snapshot finished"), std::string::npos) << alerts[0].summary;

    snapshots[0].finishedUnixMs = kNow - 3600'000;
    EXPECT_TRUE(evaluator.evaluate(observation).empty()) << "within twice the interval";
    snapshots[0].state = SnapshotState::Corrupt;
    alerts = evaluator.evaluate(observation);
    ASSERT_EQ(kinds(alerts), std::vector<AlertKind> { AlertKind::SnapshotTooOld });
    EXPECT_NE(alerts[0].summary.find("no usable snapshot"), std::string::npos) << alerts[0].summary;
    map.settings.value.snapshotIntervalSeconds = 0;
    EXPECT_TRUE(evaluator.evaluate(observation).empty()) << "no schedule, no alert";
}
