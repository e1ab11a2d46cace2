#pragma once

// Sizes and durations for people, one rule each, for the console, shardmapctl, the reports and
// core's own messages ("1.5 GiB", "1 min 30 s").

#include <cstdint>
#include <optional>
#include <string>

namespace shardmap::core {

// One figure in one unit, printed as "<value> <unit>" with `decimals` decimals. The parts let the
// console print the number in the user's locale ("1,5 GiB") while the rule stays here.
struct UnitAmount {
    double value = 0;
    int decimals = 0;
    const char* unit = "";
};

// The binary unit a size is told in: the largest of B, KiB, MiB, GiB and TiB that keeps it at 1
// or more (what a chart's axis is labelled in, too).
struct ByteUnit {
    double bytes = 1; // in one unit
    const char* name = "B";
};
ByteUnit byteUnitFor(double bytes);
// A size in that unit: whole bytes under 1 KiB, else one decimal.
UnitAmount byteAmount(std::uint64_t bytes);
// "512 B", "1.5 GiB".
std::string formatBytes(std::uint64_t bytes);

// A duration as two whole units, the larger first ("1 min 30 s", "2 h 5 min", "3 d 4 h"), or
// seconds alone under a minute ("45 s"). Days start at two days; negative durations read as 0 s.
struct DurationParts {
    UnitAmount major;
    std::optional<UnitAmount> minor;
};
DurationParts durationParts(std::int64_t seconds);
// The same with the precision a report gives short spans: "850 ms" under a second, tenths of a
// second under a minute ("4.3 s", rounded half up), else as durationParts(ms / 1000).
DurationParts durationPartsMs(std::int64_t ms);
// "45 s", "1 min 30 s", "2 h 5 min", "3 d 4 h".
std::string formatDuration(std::int64_t seconds);
// "850 ms", "4.3 s", "1 min 30 s".
std::string formatDurationMs(std::int64_t ms);
// The smallest change of a duration that formatDuration(seconds) shows, in seconds: 1 under an
// hour, 60 under two days, 3600 above. What a countdown waits for before its text changes.
std::int64_t durationStepSeconds(std::int64_t seconds);

} // namespace shardmap::core
