#include "widgets/style/format.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QLocale>
#include <algorithm>
#include <limits>

namespace shardmap::widgets {

QString formatBytes(std::uint64_t bytes, const QLocale& locale)
{
    return locale.formattedDataSize(static_cast<qint64>(bytes), 1, QLocale::DataSizeIecFormat);
}

QString formatDuration(std::int64_t seconds)
{
    const int s = static_cast<int>(std::clamp<std::int64_t>(seconds, 0, std::numeric_limits<int>::max()));
    if (s < 120)
        return QCoreApplication::translate("shardmap::widgets::Format", "%n s", nullptr, s);
    if (s < 2 * 3600)
        return QCoreApplication::translate("shardmap::widgets::Format", "%n min", nullptr, s / 60);
    if (s < 2 * 86400)
        return QCoreApplication::translate("shardmap::widgets::Format", "%n h %1 min", nullptr, s / 3600)
            .arg(s % 3600 / 60);
    return QCoreApplication::translate("shardmap::widgets::Format", "%n d %1 h", nullptr, s / 86400)
        .arg(s % 86400 / 3600);
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
    // The text shows the seconds left rounded up: under two minutes it changes when they drop by
    // one, above when they drop below the whole minute shown (formatDuration()).
    const std::int64_t left = untilUnixMs - nowUnixMs;
    const std::int64_t seconds = (left + 999) / 1000;
    const std::int64_t nextSeconds = seconds < 120 ? seconds - 1 : seconds / 60 * 60 - 1;
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
    case core::OperationKind::Move: return QCoreApplication::translate("shardmap::widgets::Format", "move");
    }
    return QString::fromLatin1(core::operationKindName(kind));
}

} // namespace shardmap::widgets
