#pragma once

// The one way a shardmapctl command changes the fleet: a core::FleetAdmin on the store named by
// the options, with node clients that have the options' call deadline, alive for the body's call.
// Commands that only read use readMap (commands.h).

#include "app/ctl/commands.h"
#include "core/admin/fleet_admin.h"

#include <type_traits>

namespace shardmap::app {

template <typename F> auto withAdmin(const CtlOptions& options, F body) -> std::invoke_result_t<F, core::FleetAdmin&>
{
    auto store = openCtlStore(options);
    if (!store)
        return store.error();
    core::NodeClientPool pool(nodeClientOptions(options));
    core::FleetAdmin admin(**store, pool);
    return body(admin);
}

// The planner's view of the fleet (store and nodes), as the plan and simulate commands read it.
inline core::Result<core::PlannerInput> readPlannerInput(const CtlOptions& options)
{
    return withAdmin(options, [](core::FleetAdmin& admin) { return admin.migrations().plannerInput(); });
}

} // namespace shardmap::app
