// The console's formats' implementation: core's units printed in the user's locale, dates and
// clock times in the locale's short format, and the map's states and kinds translated.

#include "widgets/style/format.h"

#include "core/util/units.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QLocale>

namespace shardmap::widgets {

namespace {

QString unitAmountText(const core::UnitAmount& amount, const QLocale& locale)
{
    return locale.toString(amount.value, 'f', amount.decimals) + QLatin1Char(' ') + QLatin1String(amount.unit);
}

QString durationPartsText(const core::DurationParts& parts, const QLocale& locale)
{
    QString text = unitAmountText(parts.major, locale);
    if (parts.minor)
        text += QLatin1Char(' ') + unitAmountText(*parts.minor, locale);
    return text;
}

} // namespace

QString formatBytes(std::uint64_t bytes, const QLocale& locale)
{
    return unitAmountText(core::byteAmount(bytes), locale);
}

QString formatDuration(std::int64_t seconds)
{
    return durationPartsText(core::durationParts(seconds), QLocale());
}

QString formatDurationMs(std::int64_t ms, const QLocale& locale)
{
    return durationPartsText(core::durationPartsMs(ms), locale);
}

QString formatDateTime(std::int64_t unixMs, const QLocale& locale)
{
    QString format = locale.dateTimeFormat(QLocale::ShortFormat);
    // Short formats stop at the minutes; a migration's events are seconds apart.
    if (const qsizetype minutes = format.lastIndexOf(QLatin1String("mm"));
        minutes >= 0 && !format.contains(QLatin1String("ss")))
        format.insert(minutes + 2, QLatin1String(":ss"));
    return locale.toString(QDateTime::fromMSecsSinceEpoch(unixMs), format);
}

QString formatClock(std::int64_t unixMs)
{
    return QLocale().toString(QDateTime::fromMSecsSinceEpoch(unixMs).time(), QStringLiteral("HH:mm"));
}

QString formatRollbackWindow(std::int64_t untilUnixMs, std::int64_t nowUnixMs)
{
    if (untilUnixMs <= 0 || nowUnixMs >= untilUnixMs)
        return {};
    return QCoreApplication::translate("shardmap::widgets::Format", "done, rollback possible until %1 (%2 left)")
        .arg(formatClock(untilUnixMs), formatDuration((untilUnixMs - nowUnixMs + 999) / 1000));
}

std::int64_t rollbackWindowTextChangesInMs(std::int64_t untilUnixMs, std::int64_t nowUnixMs)
{
    if (untilUnixMs <= 0 || nowUnixMs >= untilUnixMs)
        return -1;
    // The text shows the seconds left rounded up, truncated to the smallest unit formatDuration()
    // shows for them: it changes when they drop below that.
    const std::int64_t left = untilUnixMs - nowUnixMs;
    const std::int64_t seconds = (left + 999) / 1000;
    const std::int64_t step = core::durationStepSeconds(seconds);
    const std::int64_t nextSeconds = seconds / step * step - 1;
    return left - nextSeconds * 1000;
}

QString formatCount(std::uint64_t count, const QLocale& locale)
{
    return locale.toString(static_cast<qulonglong>(count));
}

QString shardStateText(core::ShardState state)
{
    switch (state) {
    case core::ShardState::Active: return QCoreApplication::translate("shardmap::widgets::Format", "active");
    case core::ShardState::Draining: return QCoreApplication::translate("shardmap::widgets::Format", "draining");
    case core::ShardState::Readonly: return QCoreApplication::translate("shardmap::widgets::Format", "readonly");
    case core::ShardState::Retired: return QCoreApplication::translate("shardmap::widgets::Format", "retired");
    }
    return QString::fromLatin1(core::shardStateName(state));
}

QString migrationPhaseText(core::MigrationPhase phase)
{
    switch (phase) {
    case core::MigrationPhase::Queued: return QCoreApplication::translate("shardmap::widgets::Format", "queued");
    case core::MigrationPhase::DualWrite: return QCoreApplication::translate("shardmap::widgets::Format", "dual_write");
    case core::MigrationPhase::Backfill: return QCoreApplication::translate("shardmap::widgets::Format", "backfill");
    case core::MigrationPhase::Verify: return QCoreApplication::translate("shardmap::widgets::Format", "verify");
    case core::MigrationPhase::Cutover: return QCoreApplication::translate("shardmap::widgets::Format", "cutover");
    case core::MigrationPhase::Cleanup: return QCoreApplication::translate("shardmap::widgets::Format", "cleanup");
    case core::MigrationPhase::Done: return QCoreApplication::translate("shardmap::widgets::Format", "done");
    case core::MigrationPhase::Failed: return QCoreApplication::translate("shardmap::widgets::Format", "failed");
    case core::MigrationPhase::Cancelled: return QCoreApplication::translate("shardmap::widgets::Format", "cancelled");
    }
    return QString::fromLatin1(core::migrationPhaseName(phase));
}

QString operationStateText(core::OperationState state)
{
    switch (state) {
    case core::OperationState::Queuing: return QCoreApplication::translate("shardmap::widgets::Format", "queuing");
    case core::OperationState::Running: return QCoreApplication::translate("shardmap::widgets::Format", "running");
    case core::OperationState::Done: return QCoreApplication::translate("shardmap::widgets::Format", "done");
    case core::OperationState::Failed: return QCoreApplication::translate("shardmap::widgets::Format", "failed");
    }
    return QString::fromLatin1(core::operationStateName(state));
}

QString operationKindText(core::OperationKind kind)
{
    switch (kind) {
    case core::OperationKind::Drain: return QCoreApplication::translate("shardmap::widgets::Format", "drain");
    case core::OperationKind::RetireNode:
        return QCoreApplication::translate("shardmap::widgets::Format", "retire-node");
    case core::OperationKind::Split: return QCoreApplication::translate("shardmap::widgets::Format", "split");
    case core::OperationKind::Merge: return QCoreApplication::translate("shardmap::widgets::Format", "merge");
    case core::OperationKind::Isolate: return QCoreApplication::translate("shardmap::widgets::Format", "isolate");
    case core::OperationKind::Reindex: return QCoreApplication::translate("shardmap::widgets::Format", "reindex");
    case core::OperationKind::Move: return QCoreApplication::translate("shardmap::widgets::Format", "move");
    }
    return QString::fromLatin1(core::operationKindName(kind));
}

} // namespace shardmap::widgets
