#pragma once

// The plan wizard's words for each scenario (plan_wizard_texts.cpp).

#include "core/plan/scenario.h"

#include <QString>

namespace shardmap::widgets {

QString scenarioTitle(core::Scenario scenario);
QString scenarioHelp(core::Scenario scenario);
// What the subject field names in each scenario that has one; empty otherwise.
QString subjectLabel(core::Scenario scenario);

} // namespace shardmap::widgets
