#pragma once

// How the console writes figures, times and names: one function per kind, in the user's locale.

#include "core/map/map_types.h"

#include <QLocale>
#include <QString>
#include <cstdint>

namespace shardmap::widgets {

// Sizes and durations by core's rules (core/util/units.h), their numbers in the user's locale:
// "1.5 GiB", "1,5 GiB"; "45 s", "1 min 30 s", "2 h 5 min", "3 d 4 h".
QString formatBytes(std::uint64_t bytes, const QLocale& locale = QLocale());
QString formatDuration(std::int64_t seconds);
// With a report's precision for short spans: "850 ms", "4,3 s", then as formatDuration().
QString formatDurationMs(std::int64_t ms, const QLocale& locale = QLocale());
// A moment in the locale's short date and time format, with seconds: "3/14/24 5:45:02 PM",
// "14.03.24 17:45:02" (issue 26, point 12: no fixed ISO dates in a German console).
QString formatDateTime(std::int64_t unixMs, const QLocale& locale = QLocale());
// "17:45": the local clock time of a Unix time in ms, as the console says when something can run
// (core's messages say "17:45 UTC").
QString formatClock(std::int64_t unixMs);
// A migration in its rollback window, the same everywhere (issue 26): "done, rollback possible
// until 17:45 (9 min 12 s left)" in local time; empty once the window has closed or without one.
QString formatRollbackWindow(std::int64_t untilUnixMs, std::int64_t nowUnixMs);
// In how many ms formatRollbackWindow(untilUnixMs, now) reads differently (its countdown steps
// as formatDuration() does: by the second under an hour, by the minute above); -1 once the
// window has closed. What a view showing the countdown waits for before it repaints.
std::int64_t rollbackWindowTextChangesInMs(std::int64_t untilUnixMs, std::int64_t nowUnixMs);

// A count in the user's locale ("433,410", "433.410").
QString formatCount(std::uint64_t count, const QLocale& locale = QLocale());
// A shard's state and a migration's phase as the console names them, translated ("aktiv",
// "Aufräumen"); the English text is core's name.
QString shardStateText(core::ShardState state);
QString migrationPhaseText(core::MigrationPhase phase);
// An operation's state and kind, the same way ("läuft", "Leeren").
QString operationStateText(core::OperationState state);
QString operationKindText(core::OperationKind kind);

} // namespace shardmap::widgets
