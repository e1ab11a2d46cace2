#pragma once

// The kinds of change the Admin API makes, one entry per case of proto AdminChange's oneof: what
// a new kind of change must say (its name, the texts it stores and their bounds, what is read to
// measure it, which role may make it, how it is made) is written in its entry and nowhere else.
// admin_changes.h and admin_limits.h dispatch through it.

#include "core/admin/admin_changes.h"
#include "core/balancer/balancer_policy.h"
#include "core/migration/restore_requests.h"
#include "core/migration/shard_restore.h"

namespace shardmap::core {

struct ChangeKind {
    v1::AdminChange::ChangeCase oneof = v1::AdminChange::CHANGE_NOT_SET;
    // Its name in the audit and the approvals list; nameOf, when set, says it from the change
    // ("pause-migration", "unpin-space").
    const char* name = "";
    std::string (*nameOf)(const v1::AdminChange& change) = nullptr;
    // The texts it keeps, each within its bound (core/admin/admin_limits.h): InvalidArgument
    // naming the first that is over.
    Status (*checkText)(const v1::AdminChange& change) = nullptr;
    // What it needs and moves, read from the map and the nodes: its size and summary. summary,
    // when set, is all a change of the kind needs (it reads nothing and moves nothing).
    Result<PreparedChange> (*prepare)(FleetAdmin& admin, PreparedChange prepared) = nullptr;
    std::string (*summary)(const v1::AdminChange& change) = nullptr;
    // The least role that may make it (requiredRole). Whether it moves spaces is not the kind's
    // word but what prepare measured (movesSpaces in admin_changes.h).
    Role (*role)(const PreparedChange& prepared, const OperatorLimits& limits) = nullptr;
    // Makes it through the facade.
    Result<v1::ChangeResponse> (*apply)(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor) = nullptr;
};

// The Admin API changes of a restore (issue 32), as shardmapctl and the console send them; the
// change kinds read them back the same way.
v1::AdminChange restoreSpaceChange(const SpaceRestoreRequest& request);
v1::AdminChange restoreShardChange(const ShardRestoreRequest& request);
// The Admin API change that sets the balancer's policy (issue 33).
v1::AdminChange balancerPolicyChange(const BalancerPolicy& policy);

// The entry of the change's kind; nullptr for a change that names none (CHANGE_NOT_SET).
const ChangeKind* findChangeKind(const v1::AdminChange& change);

} // namespace shardmap::core
