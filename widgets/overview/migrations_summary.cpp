// The migrations tile's figures: records counted as copying, queued or in their rollback window,
// and their progress and time left in words.

#include "widgets/overview/migrations_summary.h"

#include "core/map/space_placement.h"
#include "widgets/style/format.h"

#include <QLocale>
#include <QStringList>
#include <algorithm>

namespace shardmap::widgets {

namespace {

// Counted by what a person asks of the tile: is anything still copying, and what can still be
// rolled back until when.
struct Counts {
    int copying = 0;
    int queued = 0;
    std::uint64_t done = 0;
    std::uint64_t total = 0;
    std::int64_t eta = -1;
    int inWindow = 0;
    std::int64_t windowFrom = 0;
    std::int64_t windowTo = 0;
    int removingCopy = 0;
};

void count(Counts& counts, const core::MigrationRecord& record, std::int64_t until, std::int64_t now)
{
    if (record.phase == core::MigrationPhase::Cleanup) {
        if (until > now && !record.rollbackRequested) {
            ++counts.inWindow;
            counts.windowFrom = counts.windowFrom ? std::min(counts.windowFrom, until) : until;
            counts.windowTo = std::max(counts.windowTo, until);
        } else {
            ++counts.removingCopy;
        }
        return;
    }
    ++counts.copying;
    counts.queued += record.phase == core::MigrationPhase::Queued ? 1 : 0;
    counts.done += record.progress.docsDone;
    counts.total += std::max(record.progress.docsTotal, record.progress.docsDone);
    // Past the backfill the ETA says 0 s: it is the copy's.
    if (!record.backfilled && record.phase < core::MigrationPhase::Verify)
        counts.eta = std::max(counts.eta, record.progress.etaSeconds);
}

QString windowText(const Counts& counts)
{
    const QString until = counts.windowFrom == counts.windowTo
        ? formatClock(counts.windowTo)
        : MigrationsSummary::tr("%1–%2").arg(formatClock(counts.windowFrom), formatClock(counts.windowTo));
    return MigrationsSummary::tr("%n done (rollback possible until %1)", nullptr, counts.inWindow).arg(until);
}

QString detailText(const Counts& counts)
{
    QStringList parts;
    if (counts.copying > 0) {
        parts << (counts.total
                ? MigrationsSummary::tr("%1 % copied")
                      .arg(QLocale().toString(
                          100.0 * static_cast<double>(counts.done) / static_cast<double>(counts.total), 'f', 0))
                : MigrationsSummary::tr("starting"));
        parts << MigrationsSummary::tr("%n queued", nullptr, counts.queued);
        if (counts.eta >= 0)
            parts << MigrationsSummary::tr("about %1 left").arg(formatDuration(counts.eta));
    }
    if (counts.removingCopy > 0)
        parts << MigrationsSummary::tr("%n removing the old copy", nullptr, counts.removingCopy);
    return parts.join(QStringLiteral(", "));
}

} // namespace

MigrationsSummary summarizeMigrations(const core::MapSnapshot& map, std::int64_t nowUnixMs)
{
    Counts counts;
    MigrationsSummary summary;
    for (const auto& [id, migration] : map.migrations) {
        const core::MigrationRecord& record = migration.value;
        if (!record.active())
            continue;
        ++summary.open;
        count(counts, record, core::rollbackWindowEnd(record, map.settings.value), nowUnixMs);
    }
    QStringList value;
    if (counts.copying > 0)
        value << MigrationsSummary::tr("%n active", nullptr, counts.copying);
    if (counts.inWindow > 0)
        value << windowText(counts);
    if (value.isEmpty())
        value << (counts.removingCopy > 0 ? MigrationsSummary::tr("%n done", nullptr, counts.removingCopy)
                                          : MigrationsSummary::tr("none running"));
    summary.value = value.join(QStringLiteral(", "));
    summary.detail = detailText(counts);
    return summary;
}

} // namespace shardmap::widgets
