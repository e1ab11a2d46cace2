#pragma once

// The alerts page: the alert log with acknowledge and "Show cleared", and the dialog for the
// migration and shard alerts' thresholds.

#include "core/fleet/alerts.h"

#include <QDialog>
#include <QWidget>

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;

namespace shardmap::widgets {

class AlertMonitor;
class AlertsModel;

// Edits the migration and shard thresholds of the alerts (the node thresholds are the health
// thresholds, edited in their own dialog), with "Restore Defaults".
class AlertThresholdsDialog : public QDialog {
    Q_OBJECT
public:
    explicit AlertThresholdsDialog(const core::AlertThresholds& thresholds, QWidget* parent = nullptr);
    core::AlertThresholds thresholds() const;
    void setThresholds(const core::AlertThresholds& thresholds);

private:
    core::AlertThresholds m_base;
    QSpinBox* m_stallSeconds = nullptr;
    QSpinBox* m_etaWindowSeconds = nullptr;
    QDoubleSpinBox* m_etaGrowthPercent = nullptr;
    QSpinBox* m_etaGrowthMinSeconds = nullptr;
    QDoubleSpinBox* m_failedLookbackHours = nullptr;
    QDoubleSpinBox* m_shardFillPercent = nullptr;
};

// The alerts panel: what fires now and what fired before (with "Show cleared"), acknowledge,
// thresholds. Activating a row asks to show its subject (a node, shard or migration).
class AlertsPage : public QWidget {
    Q_OBJECT
public:
    explicit AlertsPage(AlertMonitor* monitor, QWidget* parent = nullptr);

    AlertsModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QPushButton* acknowledgeButton() const { return m_acknowledge; }
    void setShowCleared(bool show);
    // The summary line ("2 alerts firing, 1 not acknowledged").
    QString summaryText() const;

public slots:
    // Acknowledges the selected alerts that fire; returns how many.
    int acknowledgeSelected();
    void editThresholds();

signals:
    void subjectRequested(int kind, const QString& subject);
    void healthThresholdsRequested();

private:
    void setUpTable();
    QPushButton* thresholdsButton();
    void connectActions();
    void updateSummary();
    void updateActions();

    AlertMonitor* m_monitor;
    AlertsModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    QLabel* m_summary;
    QCheckBox* m_showCleared;
    QPushButton* m_acknowledge;
};

} // namespace shardmap::widgets
