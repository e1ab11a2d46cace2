#pragma once

// The node health thresholds: kept in the console's settings and edited in a dialog.

#include "core/fleet/health.h"

#include <QDialog>

class QDoubleSpinBox;
class QSettings;
class QSpinBox;

namespace shardmap::widgets {

// The health thresholds in the console's settings (group "health"); missing or invalid keys
// read as the defaults.
core::HealthThresholds loadHealthThresholds(QSettings& settings);
void saveHealthThresholds(QSettings& settings, const core::HealthThresholds& thresholds);

// Edits health thresholds: disk, CPU and memory limits, with "Restore Defaults". A red
// threshold is never below its amber one.
class HealthSettingsDialog : public QDialog {
    Q_OBJECT
public:
    explicit HealthSettingsDialog(const core::HealthThresholds& thresholds, QWidget* parent = nullptr);

    core::HealthThresholds thresholds() const;
    void setThresholds(const core::HealthThresholds& thresholds);

private:
    QDoubleSpinBox* percentBox();
    void keepOrdered(QDoubleSpinBox* amber, QDoubleSpinBox* red);

    QDoubleSpinBox* m_diskWarning = nullptr;
    QDoubleSpinBox* m_diskCritical = nullptr;
    QDoubleSpinBox* m_cpuWarning = nullptr;
    QSpinBox* m_cpuWindowMinutes = nullptr;
    QDoubleSpinBox* m_memoryLimitGiB = nullptr;
    QDoubleSpinBox* m_memoryWarning = nullptr;
    QDoubleSpinBox* m_memoryCritical = nullptr;
};

} // namespace shardmap::widgets
