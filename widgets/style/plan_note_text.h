#pragma once

// The planner's notes (core/plan/plan_note.h) in the console's language: the reason of each move,
// the plan's warnings and the refusals that say when something can run, with numbers as the
// locale writes them and times as local HH:mm.

#include "core/plan/plan_note.h"

#include <QString>

namespace shardmap::widgets {

QString planNoteText(const core::PlanNote& note);
// An error in the console's language when it is made of notes (core::refusalOf()), with its
// context; any other error as core describes it.
QString translatedError(const core::Error& error);

} // namespace shardmap::widgets
