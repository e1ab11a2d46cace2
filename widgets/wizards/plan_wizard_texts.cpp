// The plan wizard's words for each scenario: its title, what it does, and what its subject field
// names (PlanWizard's context, so that translations stay where they were).
#include "widgets/wizards/plan_wizard_texts.h"

#include "widgets/wizards/plan_wizard.h"

namespace shardmap::widgets {

QString scenarioTitle(core::Scenario scenario)
{
    switch (scenario) {
    case core::Scenario::Rebalance: return PlanWizard::tr("Rebalance the fleet");
    case core::Scenario::AddShards: return PlanWizard::tr("Fill new shards");
    case core::Scenario::Drain: return PlanWizard::tr("Drain a shard");
    case core::Scenario::RetireNode: return PlanWizard::tr("Retire a node");
    case core::Scenario::Split: return PlanWizard::tr("Split a shard");
    case core::Scenario::Merge: return PlanWizard::tr("Merge two shards");
    case core::Scenario::Isolate: return PlanWizard::tr("Give a space its own shard");
    case core::Scenario::Reindex: return PlanWizard::tr("Change index settings");
    }
    return {};
}

QString scenarioHelp(core::Scenario scenario)
{
    switch (scenario) {
    case core::Scenario::Rebalance:
        return PlanWizard::tr("Moves spaces from shards above their share of bytes, docs and load to shards below it, "
                              "until every shard is within the band.");
    case core::Scenario::AddShards:
        return PlanWizard::tr("Fills shards up to their share, moving only from the fullest. Name existing empty "
                              "shards by id, new ones as ID@NODE: they are created when the plan is queued.");
    case core::Scenario::Drain:
        return PlanWizard::tr("Moves every space off the shard, spread over the others; the shard becomes draining.");
    case core::Scenario::RetireNode:
        return PlanWizard::tr("Moves every space off the node's shards to shards on other nodes; when they are "
                              "done the node and its shards are retired.");
    case core::Scenario::Split:
        return PlanWizard::tr("Creates a shard and moves about half of the shard's bytes there, the halves as "
                              "even as the spaces allow.");
    case core::Scenario::Merge:
        return PlanWizard::tr("Moves every space of the first shard into the second; the first is retired when "
                              "they are done.");
    case core::Scenario::Isolate: return PlanWizard::tr("Moves one space to a new shard of its own and pins it there.");
    case core::Scenario::Reindex:
        return PlanWizard::tr("Builds a new shard with another index template for each shard chosen and moves its "
                              "spaces there live; the old shards are retired when they are done.");
    }
    return {};
}

// What the subject field names in each scenario that has one.
QString subjectLabel(core::Scenario scenario)
{
    switch (scenario) {
    case core::Scenario::Drain: return PlanWizard::tr("S&hard to drain:");
    case core::Scenario::RetireNode: return PlanWizard::tr("N&ode to retire:");
    case core::Scenario::Split: return PlanWizard::tr("S&hard to split:");
    case core::Scenario::Merge: return PlanWizard::tr("S&hard to empty:");
    default: return {};
    }
}

} // namespace shardmap::widgets
