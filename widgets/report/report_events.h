#pragma once

// The kinds of a migration's events (core/migration/migration_history.h: "rollback-requested",
// "retry" ...) as people read them, in the application's language: one list for the console's
// migration detail view and the PDF report, so both say the same.

#include <QCoreApplication>
#include <QString>
#include <string>

namespace shardmap::widgets {

class MigrationEventText {
    Q_DECLARE_TR_FUNCTIONS(shardmap::widgets::MigrationEventText)
public:
    // "rollback requested" for "rollback-requested"; a kind it does not know as it is.
    static QString kind(const std::string& kind);
};

} // namespace shardmap::widgets
