#pragma once

// The one way a shardmapctl command reaches MigrationRequests: the store named by the options and
// node clients with the options' call deadline, alive for the body's call.

#include "app/ctl/commands.h"
#include "core/migration/migration_requests.h"

#include <optional>

namespace shardmap::app {

template <typename F> CommandResult withRequests(const CtlOptions& options, F body)
{
    auto store = openCtlStore(options);
    if (!store)
        return store.error();
    core::NodeClientPool pool(nodeClientOptions(options));
    core::MigrationRequests requests(**store, pool);
    return body(requests, **store);
}

// The planner's view of the fleet (store and nodes), as the plan and simulate commands read it.
inline core::Result<core::PlannerInput> readPlannerInput(const CtlOptions& options)
{
    std::optional<core::Result<core::PlannerInput>> input;
    auto done = withRequests(options, [&](core::MigrationRequests& requests, core::MetadataStore&) -> CommandResult {
        input = requests.plannerInput();
        return CommandOutput {};
    });
    if (!done)
        return done.error();
    return std::move(*input);
}

} // namespace shardmap::app
