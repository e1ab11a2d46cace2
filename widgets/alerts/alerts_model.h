#pragma once

// The alert log as a table model, one row per alert, newest first.

#include "core/fleet/alerts.h"

#include <QAbstractTableModel>
#include <vector>

namespace shardmap::widgets {

class AlertMonitor;

// The alert log as a table, newest first: severity, alert, subject, what (worded in the
// console's language), fired, cleared, acknowledged by. Follows the monitor's alertsChanged.
class AlertsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Severity, Kind, Subject, What, Fired, Cleared, Acknowledged, ColumnCount };
    enum Role {
        // "kind:subject" of the entry's alert.
        KeyRole = Qt::UserRole,
        // Whether the entry still fires (bool), and whether it was acknowledged.
        ActiveRole,
        AcknowledgedRole,
        // int(core::AlertKind), int(core::AlertSeverity), the subject id.
        KindRole,
        SeverityRole,
        SubjectRole,
    };

    explicit AlertsModel(AlertMonitor* monitor, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // An alert in words, translated.
    static QString describe(const core::Alert& alert);
    // The snapshot-too-old alert in words (describe's case of it).
    static QString describeSnapshotAge(const core::Alert& alert);
    static QString kindName(core::AlertKind kind);

private:
    void reload();

    AlertMonitor* m_monitor;
    std::vector<core::AlertEntry> m_entries; // newest first
};

} // namespace shardmap::widgets
