#pragma once

// The console's one question before a change of the fleet: what is about to happen, and why (the
// reason recorded in the audit log). OK stays disabled until a reason is typed.

#include <QString>

class QWidget;

namespace shardmap::widgets {

// Asks modally; true and the trimmed reason when the user confirmed, false when cancelled.
bool askChangeReason(QWidget* parent, const QString& title, const QString& question, QString* reason);

} // namespace shardmap::widgets
