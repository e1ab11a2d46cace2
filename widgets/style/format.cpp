#include "widgets/style/format.h"

#include <QCoreApplication>
#include <QLocale>

namespace shardmap::widgets {

QString formatBytes(std::uint64_t bytes)
{
    return QLocale().formattedDataSize(static_cast<qint64>(bytes), 1, QLocale::DataSizeIecFormat);
}

QString formatDuration(std::int64_t seconds)
{
    const auto tr = [](const char* text, int n) { return QCoreApplication::translate("Format", text, nullptr, n); };
    if (seconds < 0)
        seconds = 0;
    if (seconds < 120)
        return tr("%n s", static_cast<int>(seconds));
    if (seconds < 2 * 3600)
        return tr("%n min", static_cast<int>(seconds / 60));
    if (seconds < 2 * 86400)
        return tr("%n h", static_cast<int>(seconds / 3600)) + QLatin1Char(' ')
            + tr("%n min", static_cast<int>(seconds % 3600 / 60));
    return tr("%n d", static_cast<int>(seconds / 86400)) + QLatin1Char(' ')
        + tr("%n h", static_cast<int>(seconds % 86400 / 3600));
}

} // namespace shardmap::widgets
