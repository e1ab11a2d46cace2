// PhaseTimeline's implementation: the rows measured and painted on one time axis, with their times.
#include "widgets/migrations/phase_timeline.h"

#include "widgets/report/report_charts.h"
#include "widgets/style/format.h"

#include <QDateTime>
#include <QLocale>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>

namespace shardmap::widgets {
namespace {

QString clockText(std::int64_t unixMs)
{
    return QLocale().toString(QDateTime::fromMSecsSinceEpoch(unixMs).time(), QStringLiteral("HH:mm:ss"));
}

// Phases of a small space last milliseconds: "0 s" would hide them.
QString spanText(std::int64_t ms)
{
    if (ms < 1000)
        return PhaseTimeline::tr("%1 ms").arg(std::max<std::int64_t>(ms, 0));
    return formatDuration((ms + 500) / 1000);
}

} // namespace

PhaseTimeline::PhaseTimeline(QWidget* parent)
    : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setAccessibleName(tr("Phases"));
}

void PhaseTimeline::setPhases(const std::vector<core::PhaseSpan>& phases, std::int64_t nowUnixMs)
{
    m_rows.clear();
    m_fromUnixMs = phases.empty() ? nowUnixMs : phases.front().startedUnixMs;
    m_toUnixMs = m_fromUnixMs;
    QStringList described;
    for (const core::PhaseSpan& span : phases) {
        Row row { span.phase, phaseLabel(span.phase), span.startedUnixMs, span.endedUnixMs, {} };
        const std::int64_t end = span.endedUnixMs ? span.endedUnixMs : nowUnixMs;
        if (core::isFinal(span.phase))
            row.timeText = clockText(span.startedUnixMs);
        else if (span.endedUnixMs)
            row.timeText = tr("%1 – %2 (%3)")
                               .arg(clockText(span.startedUnixMs), clockText(end), spanText(end - span.startedUnixMs));
        else
            row.timeText
                = tr("since %1 (%2 so far)").arg(clockText(span.startedUnixMs), spanText(end - span.startedUnixMs));
        m_fromUnixMs = std::min(m_fromUnixMs, span.startedUnixMs);
        m_toUnixMs = std::max({ m_toUnixMs, span.startedUnixMs, end });
        described << tr("%1: %2").arg(row.label, row.timeText);
        m_rows.push_back(std::move(row));
    }
    setAccessibleDescription(described.join(QStringLiteral("; ")));
    updateGeometry();
    update();
}

int PhaseTimeline::rowHeight() const
{
    return fontMetrics().height() + 8;
}

int PhaseTimeline::labelWidth() const
{
    int width = 0;
    for (const Row& row : m_rows)
        width = std::max(width, fontMetrics().horizontalAdvance(row.label));
    return width + 12;
}

int PhaseTimeline::textWidth() const
{
    int width = 0;
    for (const Row& row : m_rows)
        width = std::max(width, fontMetrics().horizontalAdvance(row.timeText));
    return width + 12;
}

QSize PhaseTimeline::sizeHint() const
{
    return { labelWidth() + textWidth() + 320, rowHeight() * std::max<int>(1, static_cast<int>(m_rows.size())) + 4 };
}

QSize PhaseTimeline::minimumSizeHint() const
{
    return { labelWidth() + textWidth() + 80, sizeHint().height() };
}

void PhaseTimeline::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const int height = rowHeight();
    if (m_rows.empty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter, tr("No phases recorded yet."));
        return;
    }
    const int left = labelWidth();
    const int barWidth = std::max(20, width() - left - textWidth());
    const std::int64_t span = std::max<std::int64_t>(m_toUnixMs - m_fromUnixMs, 1);
    const auto xOf = [&](std::int64_t t) {
        return left
            + static_cast<qreal>(barWidth) * static_cast<qreal>(std::clamp(t, m_fromUnixMs, m_toUnixMs) - m_fromUnixMs)
            / static_cast<qreal>(span);
    };
    const QColor text = palette().color(QPalette::WindowText);
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        const Row& row = m_rows[i];
        const int top = static_cast<int>(i) * height + 2;
        const QRectF band(0, top, width(), height);
        if (i % 2 == 1)
            painter.fillRect(band, palette().color(QPalette::AlternateBase));
        painter.setPen(text);
        painter.drawText(QRectF(4, top, left - 8, height), Qt::AlignVCenter | Qt::AlignLeft, row.label);
        const qreal x1 = xOf(row.startedUnixMs);
        if (core::isFinal(row.phase)) {
            const qreal r = height * 0.3;
            const qreal cy = top + height / 2.0;
            QPainterPath mark;
            mark.moveTo(x1, cy - r);
            mark.lineTo(x1 + r, cy);
            mark.lineTo(x1, cy + r);
            mark.lineTo(x1 - r, cy);
            mark.closeSubpath();
            painter.fillPath(mark, phaseColor(row.phase));
        } else {
            const qreal x2 = std::max(xOf(row.endedUnixMs ? row.endedUnixMs : m_toUnixMs), x1 + 2);
            painter.fillRect(QRectF(x1, top + height * 0.2, x2 - x1, height * 0.6), phaseColor(row.phase));
        }
        painter.setPen(text);
        painter.drawText(
            QRectF(left + barWidth + 8, top, textWidth(), height), Qt::AlignVCenter | Qt::AlignLeft, row.timeText);
    }
}

} // namespace shardmap::widgets
