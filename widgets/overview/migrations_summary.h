#pragma once

// The overview's migrations tile as a value a test drives without a window (issue 26): the
// migrations that copy or wait, their combined progress and the longest time left, apart from
// the moves that are done and can still be rolled back, and those removing their old copy.

#include "core/map/shard_map.h"

#include <QCoreApplication>
#include <QString>
#include <cstdint>

namespace shardmap::widgets {

struct MigrationsSummary {
    Q_DECLARE_TR_FUNCTIONS(shardmap::widgets::MigrationsSummary)
public:
    // "2 active, 1 done (rollback possible until 14:32)", "none running".
    QString value;
    // "40 % copied, 1 queued, about 3 min left", "2 removing their old copy".
    QString detail;
    // Migrations the executor still has work for (their cleanup included).
    int open = 0;
};

MigrationsSummary summarizeMigrations(const core::MapSnapshot& map, std::int64_t nowUnixMs);

} // namespace shardmap::widgets
