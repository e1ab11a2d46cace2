// The health settings' implementation: percentages read with their defaults, and a dialog that
// keeps every red threshold at or above its amber one.

#include "widgets/fleet/health_settings.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>
#include <cmath>

namespace shardmap::widgets {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr std::int64_t kMinuteMs = 60 * 1000;

// A percentage from the settings, or the default if it is missing or not in 0..100.
double readPercent(const QSettings& settings, const QString& key, double fallback)
{
    bool ok = false;
    const double value = settings.value(key).toDouble(&ok);
    return ok && value >= 0 && value <= 100 ? value : fallback;
}

} // namespace

core::HealthThresholds loadHealthThresholds(QSettings& settings)
{
    const core::HealthThresholds defaults;
    core::HealthThresholds out;
    settings.beginGroup(QStringLiteral("health"));
    out.diskUsedWarningPercent
        = readPercent(settings, QStringLiteral("diskWarningPercent"), defaults.diskUsedWarningPercent);
    out.diskUsedCriticalPercent
        = readPercent(settings, QStringLiteral("diskCriticalPercent"), defaults.diskUsedCriticalPercent);
    out.cpuWarningPercent = readPercent(settings, QStringLiteral("cpuWarningPercent"), defaults.cpuWarningPercent);
    out.memoryWarningPercent
        = readPercent(settings, QStringLiteral("memoryWarningPercent"), defaults.memoryWarningPercent);
    out.memoryCriticalPercent
        = readPercent(settings, QStringLiteral("memoryCriticalPercent"), defaults.memoryCriticalPercent);
    bool ok = false;
    const qlonglong windowMs = settings.value(QStringLiteral("cpuWindowMs")).toLongLong(&ok);
    out.cpuWindowMs = ok && windowMs > 0 ? windowMs : defaults.cpuWindowMs;
    const qulonglong limit = settings.value(QStringLiteral("memoryLimitBytes")).toULongLong(&ok);
    out.memoryLimitBytes = ok ? limit : defaults.memoryLimitBytes;
    settings.endGroup();
    return out;
}

void saveHealthThresholds(QSettings& settings, const core::HealthThresholds& thresholds)
{
    settings.beginGroup(QStringLiteral("health"));
    settings.setValue(QStringLiteral("diskWarningPercent"), thresholds.diskUsedWarningPercent);
    settings.setValue(QStringLiteral("diskCriticalPercent"), thresholds.diskUsedCriticalPercent);
    settings.setValue(QStringLiteral("cpuWarningPercent"), thresholds.cpuWarningPercent);
    settings.setValue(QStringLiteral("cpuWindowMs"), static_cast<qlonglong>(thresholds.cpuWindowMs));
    settings.setValue(QStringLiteral("memoryLimitBytes"), static_cast<qulonglong>(thresholds.memoryLimitBytes));
    settings.setValue(QStringLiteral("memoryWarningPercent"), thresholds.memoryWarningPercent);
    settings.setValue(QStringLiteral("memoryCriticalPercent"), thresholds.memoryCriticalPercent);
    settings.endGroup();
}

HealthSettingsDialog::HealthSettingsDialog(const core::HealthThresholds& thresholds, QWidget* parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Health Thresholds"));
    m_diskWarning = percentBox();
    m_diskCritical = percentBox();
    m_cpuWarning = percentBox();
    m_cpuWindowMinutes = new QSpinBox(this);
    m_cpuWindowMinutes->setRange(1, 60);
    m_cpuWindowMinutes->setSuffix(tr(" min"));
    m_memoryLimitGiB = new QDoubleSpinBox(this);
    m_memoryLimitGiB->setRange(0, 4096);
    m_memoryLimitGiB->setDecimals(1);
    m_memoryLimitGiB->setSuffix(tr(" GiB"));
    m_memoryLimitGiB->setSpecialValueText(tr("No limit"));
    m_memoryWarning = percentBox();
    m_memoryCritical = percentBox();
    keepOrdered(m_diskWarning, m_diskCritical);
    keepOrdered(m_memoryWarning, m_memoryCritical);

    auto* form = new QFormLayout;
    form->addRow(tr("Disk used, amber at:"), m_diskWarning);
    form->addRow(tr("Disk used, red at:"), m_diskCritical);
    form->addRow(tr("CPU average, amber at:"), m_cpuWarning);
    form->addRow(tr("CPU averaged over:"), m_cpuWindowMinutes);
    form->addRow(tr("Node memory limit:"), m_memoryLimitGiB);
    form->addRow(tr("Memory (RSS) of the limit, amber at:"), m_memoryWarning);
    form->addRow(tr("Memory (RSS) of the limit, red at:"), m_memoryCritical);

    auto* buttons = new QDialogButtonBox(
        QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, this,
        [this] { setThresholds(core::HealthThresholds {}); });

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);
    setThresholds(thresholds);
}

QDoubleSpinBox* HealthSettingsDialog::percentBox()
{
    auto* box = new QDoubleSpinBox(this);
    box->setRange(0, 100);
    box->setDecimals(1);
    box->setSuffix(tr(" %"));
    return box;
}

void HealthSettingsDialog::keepOrdered(QDoubleSpinBox* amber, QDoubleSpinBox* red)
{
    connect(amber, &QDoubleSpinBox::valueChanged, red, [red](double value) {
        if (red->value() < value) {
            red->setValue(value);
        }
    });
    connect(red, &QDoubleSpinBox::valueChanged, amber, [amber](double value) {
        if (amber->value() > value) {
            amber->setValue(value);
        }
    });
}

core::HealthThresholds HealthSettingsDialog::thresholds() const
{
    core::HealthThresholds out;
    out.diskUsedWarningPercent = m_diskWarning->value();
    out.diskUsedCriticalPercent = m_diskCritical->value();
    out.cpuWarningPercent = m_cpuWarning->value();
    out.cpuWindowMs = m_cpuWindowMinutes->value() * kMinuteMs;
    out.memoryLimitBytes = static_cast<std::uint64_t>(std::llround(m_memoryLimitGiB->value() * kGiB));
    out.memoryWarningPercent = m_memoryWarning->value();
    out.memoryCriticalPercent = m_memoryCritical->value();
    return out;
}

void HealthSettingsDialog::setThresholds(const core::HealthThresholds& thresholds)
{
    // Red, amber, red again: the boxes keep amber <= red, so one order alone could drag a value
    // along; this one ends with both where asked whatever the old values were.
    m_diskCritical->setValue(thresholds.diskUsedCriticalPercent);
    m_diskWarning->setValue(thresholds.diskUsedWarningPercent);
    m_diskCritical->setValue(thresholds.diskUsedCriticalPercent);
    m_cpuWarning->setValue(thresholds.cpuWarningPercent);
    m_cpuWindowMinutes->setValue(static_cast<int>(thresholds.cpuWindowMs / kMinuteMs));
    m_memoryLimitGiB->setValue(static_cast<double>(thresholds.memoryLimitBytes) / kGiB);
    m_memoryCritical->setValue(thresholds.memoryCriticalPercent);
    m_memoryWarning->setValue(thresholds.memoryWarningPercent);
    m_memoryCritical->setValue(thresholds.memoryCriticalPercent);
}

} // namespace shardmap::widgets
