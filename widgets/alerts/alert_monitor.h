#pragma once

// The console's alerts: the alert thresholds in its settings, and the monitor that evaluates core's
// alert rules over what the connection sees and keeps the alert log.

#include "core/fleet/alerts.h"
#include "widgets/session/fleet_connection.h"

#include <QHash>
#include <QObject>
#include <QString>
#include <QTimer>
#include <optional>
#include <vector>

class QSettings;

namespace shardmap::widgets {

// The thresholds of the console's alerts in its settings: the health thresholds (group
// "health", shared with the fleet page's colours) and the migrations' and shards' (group
// "alerts"); missing or invalid keys read as the defaults.
core::AlertThresholds loadAlertThresholds(QSettings& settings);
void saveAlertThresholds(QSettings& settings, const core::AlertThresholds& thresholds);

// Evaluates the alert rules (core::AlertEvaluator) over what the connection sees: the map, every
// node's samples and link, the store's state, and the executor and replica leases, which it reads
// on the connection's pool every few seconds. Keeps the log (history, clears, acknowledgements)
// and says when alerts fire, so the window can notify. Evaluation runs on the UI thread once a
// second; it is proportional to nodes + shards + open migrations, with no store or node call.
class AlertMonitor : public QObject {
    Q_OBJECT
public:
    static constexpr int kEvaluateMs = 1000;
    static constexpr int kLeasesMs = 3000;

    explicit AlertMonitor(FleetConnection* connection, QObject* parent = nullptr);

    void setThresholds(const core::AlertThresholds& thresholds);
    const core::AlertThresholds& thresholds() const { return m_evaluator.thresholds(); }

    const core::AlertLog& log() const { return m_log; }
    const std::vector<core::Alert>& firing() const { return m_firing; }
    // Acknowledges the active alert with this key as the console's user; false if none is active.
    bool acknowledge(const QString& key);

    // The executor lease and the replicas alive, as last read (leasesKnown false until then or
    // while the store cannot be read).
    bool leasesKnown() const { return m_leasesKnown; }
    const std::optional<core::LeaseGrant>& executor() const { return m_executor; }
    const std::vector<core::LeaseGrant>& replicas() const { return m_replicas; }

    // Evaluates now (tests; the timer does it every kEvaluateMs).
    void evaluateNow();
    // Reads the leases now; leasesChanged follows.
    void refreshLeases();

signals:
    // After every evaluation that changed the log (fired, cleared, acknowledged).
    void alertsChanged();
    // Alerts that started firing (or rose to critical) in the last evaluation.
    void alertsFired(const std::vector<shardmap::core::Alert>& alerts);
    void leasesChanged();

private:
    struct NodeState {
        core::NodeSampleWindow vitals;
        SamplePtr latest;
    };

    void reset();

    FleetConnection* m_connection;
    core::AlertEvaluator m_evaluator;
    core::AlertLog m_log;
    std::vector<core::Alert> m_firing;
    QHash<QString, NodeState> m_nodes;
    std::optional<core::Error> m_storeError;
    bool m_leasesKnown = false;
    bool m_leasesRunning = false;
    std::optional<core::LeaseGrant> m_executor;
    std::vector<core::LeaseGrant> m_replicas;
    std::optional<std::vector<core::SnapshotRecord>> m_snapshots;
    Generation m_generation;
    QTimer m_evaluateTimer;
    QTimer m_leaseTimer;
};

} // namespace shardmap::widgets
