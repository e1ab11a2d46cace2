#pragma once

// The changes of shardmapd's Admin API (proto shardmap.v1.AdminChange) as core sees them: what a
// change moves, measured from the map and the nodes and never taken from the caller's word; which
// role may make it; whether it needs a second person's approval; and making it through the one
// facade, FleetAdmin. The Admin service, approvals and shardmapctl all call these, so a rule
// (an operator may move at most N spaces, retiring a node needs approval) lives here once.

#include "core/admin/fleet_admin.h"
#include "core/auth/access_policy.h"
#include "shardmap/v1/admin.pb.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shardmap::core {

// What a change moves or raises.
struct ChangeSize {
    std::uint64_t spaces = 0;
    std::uint64_t bytes = 0;
    bool retiresNode = false;
    // A restore that replaces a space's live documents (issue 32).
    bool replacesData = false;
    // Settings the change raises ("max_concurrent 4 -> 8").
    std::vector<std::string> raisedLimits;
    // What a new access policy allows that the current one did not ("bob operator -> admin",
    // core/auth/access_policy.h loosenedAccess): always needs a second person.
    std::vector<std::string> loosenedAccess;
    // Everything a new access policy changes, loosened or not (accessPolicyChanges): what the
    // approver is shown.
    std::vector<std::string> policyChanges;
    // What a plan does besides its moves that only an admin may do on its own, each a sentence
    // saying why ("it creates shard s9 on node n0 and moves no space into it; ..."): shards
    // created, set draining or pinned to beyond what its moves need.
    std::vector<std::string> adminEffects;
};

// A change ready to be judged and made: an operation (drain, split ...) is planned first and
// becomes the plan it queues, so that what is approved is what was measured.
struct PreparedChange {
    v1::AdminChange change;
    ChangeSize size;
    // A sentence: "drain shard s3: 14 spaces, 2.0 GiB".
    std::string summary;
};

// Whether the change moves spaces, as measured (ChangeSize spaces or bytes): only such changes
// are held to an operator's limits and the approval thresholds, counted with what their requester
// moved before them, and explained by what they move.
bool movesSpaces(const PreparedChange& prepared);

// What a change of the executor's settings raises ("max_concurrent 4 -> 8"). 0 means "no limit"
// for the concurrency limits, the default throttle and the cleanup rate, so going to 0 is the
// largest raise.
std::vector<std::string> raisedLimits(const MigrationSettings& before, const MigrationSettings& after);

// Reads what the change needs to be measured (the map; for moves the planner's view of the
// fleet, with each space's bytes from its node). InvalidArgument for an empty or malformed change;
// Unavailable when a space the change moves has no bytes in the sampled metrics and its node
// cannot measure it (an unmeasured space would pass every byte limit).
// A policy change is bound to the access/policy revision it is asked against (set in the change
// it returns); FailedPrecondition when the change names a revision the policy has moved on from.
Result<PreparedChange> prepareChange(FleetAdmin& admin, const v1::AdminChange& change);

// The least role that may make the change: operators queue and steer migrations and run
// operations within their limits; admins change nodes, shards, pins and settings, abandon
// migrations, retire nodes and run what exceeds an operator's limits. A plan needs the role of
// everything it does (ChangeSize::adminEffects), whatever its kind says.
Role requiredRole(const PreparedChange& change, const OperatorLimits& limits);
// Why the least role is needed, for a refusal ("moves 140 spaces; an operator may move 100").
std::string whyRole(const PreparedChange& change, const OperatorLimits& limits);

// Why the change needs a second person's approval; empty when it does not. A policy change that
// loosens access needs one whatever the thresholds say (they are what it could turn off).
std::string approvalNeed(const PreparedChange& change, const ApprovalThresholds& thresholds);

// Makes the change through the facade, with actor as the audit record's actor.
Result<v1::ChangeResponse> applyChange(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor);

// What a made change produced, as approvals record it: "operation op-... at revision 12",
// "migration m-... at revision 9", or "revision 7" for a change without a record of its own.
std::string describeOutcome(const v1::ChangeResponse& response);

// A short name of the change's kind, as the audit and the approvals list say it ("queue-migration").
std::string changeKind(const v1::AdminChange& change);

} // namespace shardmap::core
