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

QString formatRollbackWindow(std::int64_t untilUnixMs, std::int64_t nowUnixMs)
{
    if (untilUnixMs <= 0 || nowUnixMs >= untilUnixMs)
        return {};
    const QString clock
        = QLocale().toString(QDateTime::fromMSecsSinceEpoch(untilUnixMs).time(), QStringLiteral("HH:mm"));
    return QCoreApplication::translate("shardmap::widgets::Format", "done, rollback possible until %1 (%2 left)")
        .arg(clock, formatDuration((untilUnixMs - nowUnixMs + 999) / 1000));
}

} // namespace shardmap::widgets
