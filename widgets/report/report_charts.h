#pragma once

// The charts of a migration report (widgets/report/report_document.h), drawn with QPainter so
// that they stay vectors in the PDF and sharp in the preview: a Gantt-like timeline of phases,
// the backfill rate over time, and an operation's shards before and after. Each chart is a value
// built from a core::MigrationReport; drawing needs no event loop and runs on any thread (the
// report is laid out off the UI thread).

#include "core/report/migration_report.h"

#include <QColor>
#include <QRectF>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <variant>
#include <vector>

QT_BEGIN_NAMESPACE
class QPainter;
QT_END_NAMESPACE

namespace shardmap::widgets {

// One migration's row of the timeline: its phases (the final one drawn as a mark at the end).
struct TimelineRow {
    QString label;
    std::vector<core::PhaseSpan> phases;
    std::string outcome;
};

struct TimelineChart {
    std::int64_t fromUnixMs = 0;
    std::int64_t toUnixMs = 0;
    std::vector<TimelineRow> rows;
};

// Documents per second over the report's span: the sum over all migrations, and one line per
// migration when there are few.
struct RateSeries {
    QString label;
    std::vector<std::pair<std::int64_t, double>> points;
};

struct RateChart {
    std::int64_t fromUnixMs = 0;
    std::int64_t toUnixMs = 0;
    std::vector<RateSeries> series;
};

// An operation's shards, bytes before and after.
struct ShardBarsChart {
    std::vector<core::ReportShardLoad> shards;
};

using ReportChart = std::variant<TimelineChart, RateChart, ShardBarsChart>;

// The timeline's rows per chart: a larger report gets several charts, two to a page, each over
// the time of its own rows.
inline constexpr std::size_t kTimelineRowsPerChart = 35;
inline constexpr std::size_t kMostShardBars = 60;

std::vector<TimelineChart> timelineCharts(const core::MigrationReport& report);
// Binned into about 120 steps; series of migrations without samples are left out. Empty when no
// migration has two samples.
RateChart rateChart(const core::MigrationReport& report);

// Height for a chart drawn width wide (both in the layout's device pixels); dpi scales the
// fonts and the lines.
qreal chartHeight(const ReportChart& chart, qreal width, qreal dpi);
void drawChart(QPainter& painter, const QRectF& rect, const ReportChart& chart, qreal dpi);

// The colour of a phase in the timeline and its legend, and its translated name there.
QColor phaseColor(core::MigrationPhase phase);
QString phaseLabel(core::MigrationPhase phase);

} // namespace shardmap::widgets
