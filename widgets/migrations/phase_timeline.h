#pragma once

// A migration's phases drawn as a timeline, one bar per phase span.

#include "core/migration/migration_history.h"

#include <QString>
#include <QWidget>
#include <cstdint>
#include <vector>

namespace shardmap::widgets {

// One migration's phases as a Gantt-like chart: a row per phase span, its bar from start to end
// on a shared time axis (a phase that lasts runs to now), with its start, end and duration
// written beside it; a final phase (done, failed, cancelled) is a mark at its time. Colours and
// names are the report timeline's (phaseColor, phaseLabel).
class PhaseTimeline : public QWidget {
    Q_OBJECT
public:
    struct Row {
        core::MigrationPhase phase = core::MigrationPhase::Queued;
        QString label;
        std::int64_t startedUnixMs = 0;
        // 0 while the phase lasts.
        std::int64_t endedUnixMs = 0;
        // "12:00:03 – 12:00:41 (38 s)", or the time of a final phase.
        QString timeText;
    };

    explicit PhaseTimeline(QWidget* parent = nullptr);

    // nowUnixMs: where a phase that lasts ends on the chart.
    void setPhases(const std::vector<core::PhaseSpan>& phases, std::int64_t nowUnixMs);
    const std::vector<Row>& rows() const { return m_rows; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    int rowHeight() const;
    int labelWidth() const;
    int textWidth() const;

    std::vector<Row> m_rows;
    std::int64_t m_fromUnixMs = 0;
    std::int64_t m_toUnixMs = 0;
};

} // namespace shardmap::widgets
