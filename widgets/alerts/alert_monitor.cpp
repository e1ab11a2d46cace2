// AlertMonitor's implementation: thresholds read and written key by key, the leases and the
// snapshot records read on the pool every few seconds, and the rules evaluated on the UI thread over the connection's
// state.

#include "widgets/alerts/alert_monitor.h"

#include "core/snapshot/snapshot_requests.h"
#include "core/store/lease_names.h"
#include "widgets/fleet/health_settings.h"
#include "widgets/style/conversions.h"

#include <QDateTime>
#include <QSettings>
#include <algorithm>

namespace shardmap::widgets {

namespace {

struct Leases {
    std::optional<core::LeaseGrant> executor;
    std::vector<core::LeaseGrant> replicas;
    // The snapshot records (issue 32's snapshot-too-old), read with the leases; not read: nullopt.
    std::optional<std::vector<core::SnapshotRecord>> snapshots;
};

} // namespace

core::AlertThresholds loadAlertThresholds(QSettings& settings)
{
    const core::AlertThresholds defaults;
    core::AlertThresholds out;
    out.health = loadHealthThresholds(settings);
    settings.beginGroup(QStringLiteral("alerts"));
    const auto seconds = [&](const char* key, std::int64_t fallback, bool zeroAllowed) {
        bool ok = false;
        const qlonglong value = settings.value(QLatin1String(key)).toLongLong(&ok);
        return ok && (value > 0 || (zeroAllowed && value == 0)) ? value : fallback;
    };
    out.migrationStallSeconds = seconds("stallSeconds", defaults.migrationStallSeconds, false);
    out.etaWindowSeconds = seconds("etaWindowSeconds", defaults.etaWindowSeconds, false);
    out.etaGrowthMinSeconds = seconds("etaGrowthMinSeconds", defaults.etaGrowthMinSeconds, true);
    out.failedLookbackSeconds = seconds("failedLookbackSeconds", defaults.failedLookbackSeconds, true);
    bool ok = false;
    const double growth = settings.value(QStringLiteral("etaGrowthPercent")).toDouble(&ok);
    out.etaGrowthPercent = ok && growth >= 0 ? growth : defaults.etaGrowthPercent;
    const double fill = settings.value(QStringLiteral("shardFillWarningPercent")).toDouble(&ok);
    out.shardFillWarningPercent = ok && fill > 0 ? fill : defaults.shardFillWarningPercent;
    settings.endGroup();
    return out;
}

void saveAlertThresholds(QSettings& settings, const core::AlertThresholds& thresholds)
{
    saveHealthThresholds(settings, thresholds.health);
    settings.beginGroup(QStringLiteral("alerts"));
    settings.setValue(QStringLiteral("stallSeconds"), static_cast<qlonglong>(thresholds.migrationStallSeconds));
    settings.setValue(QStringLiteral("etaWindowSeconds"), static_cast<qlonglong>(thresholds.etaWindowSeconds));
    settings.setValue(QStringLiteral("etaGrowthMinSeconds"), static_cast<qlonglong>(thresholds.etaGrowthMinSeconds));
    settings.setValue(QStringLiteral("etaGrowthPercent"), thresholds.etaGrowthPercent);
    settings.setValue(
        QStringLiteral("failedLookbackSeconds"), static_cast<qlonglong>(thresholds.failedLookbackSeconds));
    settings.setValue(QStringLiteral("shardFillWarningPercent"), thresholds.shardFillWarningPercent);
    settings.endGroup();
}

AlertMonitor::AlertMonitor(FleetConnection* connection, QObject* parent)
    : QObject(parent)
    , m_connection(connection)
{
    QSettings settings;
    m_evaluator.setThresholds(loadAlertThresholds(settings));
    connect(connection, &FleetConnection::nodeSample, this, [this](const QString& nodeId, const SamplePtr& sample) {
        NodeState& node = m_nodes[nodeId];
        node.vitals.add(core::NodeVitals::of(*sample), m_evaluator.thresholds().health.cpuWindowMs);
        node.latest = sample;
    });
    connect(connection, &FleetConnection::stateChanged, this, [this](FleetConnection::State state, const QString&) {
        if (state == FleetConnection::State::Disconnected) {
            reset();
            return;
        }
        // Connecting or reconnecting after a failure carries the store's error; connected clears it.
        const QString error = m_connection->lastError();
        if (state == FleetConnection::State::Connected || error.isEmpty())
            m_storeError.reset();
        else
            m_storeError = core::makeError(m_connection->lastErrorCode(), error.toStdString());
    });
    connect(connection, &FleetConnection::mapChanged, this, [this](const MapPtr& map) {
        if (!map)
            return;
        for (auto it = m_nodes.begin(); it != m_nodes.end();)
            it = map->node(it.key().toStdString()) ? std::next(it) : m_nodes.erase(it);
        if (!m_leasesKnown)
            refreshLeases();
    });
    m_evaluateTimer.setInterval(kEvaluateMs);
    connect(&m_evaluateTimer, &QTimer::timeout, this, &AlertMonitor::evaluateNow);
    m_evaluateTimer.start();
    m_leaseTimer.setInterval(kLeasesMs);
    connect(&m_leaseTimer, &QTimer::timeout, this, &AlertMonitor::refreshLeases);
    m_leaseTimer.start();
}

void AlertMonitor::setThresholds(const core::AlertThresholds& thresholds)
{
    m_evaluator.setThresholds(thresholds);
    evaluateNow();
}

void AlertMonitor::reset()
{
    m_generation.invalidate();
    m_nodes.clear();
    m_storeError.reset();
    m_leasesKnown = false;
    m_leasesRunning = false;
    m_executor.reset();
    m_replicas.clear();
    m_snapshots.reset();
    m_evaluator = core::AlertEvaluator(m_evaluator.thresholds());
    // What fired stays in the history; nothing fires while disconnected.
    if (m_log.update({}, nowMs()).any()) {
        m_firing.clear();
        emit alertsChanged();
    }
    emit leasesChanged();
}

void AlertMonitor::refreshLeases()
{
    auto store = m_connection->store();
    if (!store || m_leasesRunning)
        return;
    m_leasesRunning = true;
    const auto generation = m_generation.current();
    runInBackground(
        m_connection->pool(), this,
        [store]() -> core::Result<Leases> {
            auto executor = store->liveLeases(std::string(core::kExecutorLease));
            if (!executor)
                return executor.error();
            auto replicas = store->liveLeases(std::string(core::kReplicaLeasePrefix));
            if (!replicas)
                return replicas.error();
            Leases out;
            for (const core::LeaseGrant& lease : *executor) {
                if (lease.name == core::kExecutorLease)
                    out.executor = lease;
            }
            out.replicas = std::move(*replicas);
            if (auto snapshots = core::SnapshotRequests(*store).list()) {
                out.snapshots.emplace();
                for (auto& record : *snapshots)
                    out.snapshots->push_back(std::move(record.value));
            }
            return out;
        },
        [this, generation](core::Result<Leases> leases) {
            if (!m_generation.isCurrent(generation))
                return;
            m_leasesRunning = false;
            m_leasesKnown = static_cast<bool>(leases);
            if (leases) {
                m_executor = leases->executor;
                m_replicas = std::move(leases->replicas);
                m_snapshots = std::move(leases->snapshots);
            }
            emit leasesChanged();
        });
}

void AlertMonitor::evaluateNow()
{
    const MapPtr map = m_connection->map();
    if (!map && !m_storeError)
        return; // not connected yet: nothing to say
    core::FleetObservation observation;
    observation.nowUnixMs = nowMs();
    observation.storeError = m_storeError;
    observation.map = map.get();
    observation.executorKnown = m_leasesKnown;
    observation.executor = m_executor;
    observation.snapshots = m_snapshots ? &*m_snapshots : nullptr;
    if (map) {
        for (const auto& [id, node] : map->nodes) {
            const QString nodeId = QString::fromStdString(id);
            const auto link = m_connection->nodeLink(nodeId);
            const auto state = m_nodes.constFind(nodeId);
            const bool sampled = state != m_nodes.constEnd();
            // A node that never answered is unreachable once its first attempt failed.
            std::optional<bool> reachable;
            if (link.reachable)
                reachable = true;
            else if (!link.error.isEmpty())
                reachable = false;
            observation.nodes.push_back({ id, node.value.retired, reachable, link.error.toStdString(),
                sampled ? &state->vitals : nullptr, sampled && state->latest ? state->latest.get() : nullptr });
        }
    }
    m_firing = m_evaluator.evaluate(observation);
    const auto changes = m_log.update(m_firing, observation.nowUnixMs);
    if (changes.any())
        emit alertsChanged();
    if (!changes.fired.empty())
        emit alertsFired(changes.fired);
}

bool AlertMonitor::acknowledge(const QString& key)
{
    if (!m_log.acknowledge(key.toStdString(), FleetConnection::localActorName().toStdString(), nowMs()))
        return false;
    emit alertsChanged();
    return true;
}

} // namespace shardmap::widgets
