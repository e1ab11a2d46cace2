#pragma once

#include "core/map/map_types.h"

#include <QLocale>
#include <QString>
#include <cstdint>

namespace shardmap::widgets {

// The console's one way to show sizes: binary units (KiB, MiB, GiB) in the user's locale, one
// decimal ("1.5 GiB").
QString formatBytes(std::uint64_t bytes, const QLocale& locale = QLocale());
// A duration for people: "45 s", "6 min", "2 h 5 min", "3 d 4 h".
QString formatDuration(std::int64_t seconds);
// A moment in the locale's short date and time format, with seconds: "3/14/24 5:45:02 PM",
// "14.03.24 17:45:02" (issue 26, point 12: no fixed ISO dates in a German console).
QString formatDateTime(std::int64_t unixMs, const QLocale& locale = QLocale());
// "17:45": the local clock time of a Unix time in ms, as the console says when something can run
// (core's messages say "17:45 UTC").
QString formatClock(std::int64_t unixMs);
// A migration in its rollback window, the same everywhere (issue 26): "done, rollback possible
// until 17:45 (9 min left)" in local time; empty once the window has closed or without one.
QString formatRollbackWindow(std::int64_t untilUnixMs, std::int64_t nowUnixMs);
// In how many ms formatRollbackWindow(untilUnixMs, now) reads differently (its countdown steps
// by the second under two minutes, by the minute above); -1 once the window has closed. What a
// view showing the countdown waits for before it repaints.
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
