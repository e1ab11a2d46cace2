#pragma once

// The planner's notes (core/plan/plan_note.h) in the console's language: the reason of each move
// and the plan's warnings, with numbers and ids as the locale writes them.

#include "core/plan/plan_note.h"

#include <QString>

namespace shardmap::widgets {

QString planNoteText(const core::PlanNote& note);

} // namespace shardmap::widgets
