// Migration event kinds in the report's words, translated.

#include "widgets/report/report_events.h"

#include <utility>

namespace shardmap::widgets {

QString MigrationEventText::kind(const std::string& kind)
{
    const std::pair<const char*, QString> kinds[] = { { "error", tr("error") }, { "retry", tr("retry") },
        { "cutover-aborted", tr("cutover aborted") }, { "repair", tr("repair") }, { "paused", tr("paused") },
        { "resumed", tr("resumed") }, { "cancel-requested", tr("cancel requested") },
        { "rollback-requested", tr("rollback requested") }, { "rolled-back", tr("rolled back") },
        { "failed", tr("failed") }, { "cancelled", tr("cancelled") }, { "done", tr("done") } };
    for (const auto& [name, text] : kinds) {
        if (kind == name)
            return text;
    }
    return QString::fromStdString(kind);
}

} // namespace shardmap::widgets
