// The unit rules' implementation: the unit is chosen here, printed in the C locale; the console
// prints the same parts in the user's locale (widgets/style/format.h).

#include "core/util/units.h"

#include <algorithm>
#include <cstdio>
#include <iterator>

namespace shardmap::core {

namespace {

constexpr std::int64_t kMinute = 60;
constexpr std::int64_t kHour = 3600;
constexpr std::int64_t kDay = 86400;
// Below this, a duration is told in hours and minutes ("47 h 59 min"), at and above it in days.
constexpr std::int64_t kDaysFrom = 2 * kDay;

UnitAmount whole(std::int64_t value, const char* unit)
{
    return UnitAmount { static_cast<double>(value), 0, unit };
}

std::string amountText(const UnitAmount& amount)
{
    char text[48];
    std::snprintf(text, sizeof text, "%.*f %s", amount.decimals, amount.value, amount.unit);
    return text;
}

std::string partsText(const DurationParts& parts)
{
    std::string text = amountText(parts.major);
    if (parts.minor)
        text += " " + amountText(*parts.minor);
    return text;
}

} // namespace

ByteUnit byteUnitFor(double bytes)
{
    static const char* const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    double scale = 1;
    std::size_t unit = 0;
    while (bytes / scale >= 1024 && unit + 1 < std::size(units)) {
        scale *= 1024;
        ++unit;
    }
    return { scale, units[unit] };
}

UnitAmount byteAmount(std::uint64_t bytes)
{
    const ByteUnit unit = byteUnitFor(static_cast<double>(bytes));
    if (unit.bytes == 1)
        return { static_cast<double>(bytes), 0, unit.name };
    return { static_cast<double>(bytes) / unit.bytes, 1, unit.name };
}

std::string formatBytes(std::uint64_t bytes)
{
    return amountText(byteAmount(bytes));
}

DurationParts durationParts(std::int64_t seconds)
{
    const std::int64_t s = std::max<std::int64_t>(seconds, 0);
    if (s < kMinute)
        return { whole(s, "s"), std::nullopt };
    if (s < kHour)
        return { whole(s / kMinute, "min"), whole(s % kMinute, "s") };
    if (s < kDaysFrom)
        return { whole(s / kHour, "h"), whole(s % kHour / kMinute, "min") };
    return { whole(s / kDay, "d"), whole(s % kDay / kHour, "h") };
}

DurationParts durationPartsMs(std::int64_t ms)
{
    const std::int64_t m = std::max<std::int64_t>(ms, 0);
    if (m < 1000)
        return { whole(m, "ms"), std::nullopt };
    if (m < kMinute * 1000)
        return { UnitAmount { static_cast<double>((m + 50) / 100) / 10, 1, "s" }, std::nullopt };
    return durationParts(m / 1000);
}

std::string formatDuration(std::int64_t seconds)
{
    return partsText(durationParts(seconds));
}

std::string formatDurationMs(std::int64_t ms)
{
    return partsText(durationPartsMs(ms));
}

std::int64_t durationStepSeconds(std::int64_t seconds)
{
    if (seconds < kHour)
        return 1;
    return seconds < kDaysFrom ? kMinute : kHour;
}

} // namespace shardmap::core
