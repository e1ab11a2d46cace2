#include "core/admin/change_kind_steps.h"

// The change kind of the balancer (issue 33): set-balancer-policy, the policy checked and set by
// core/balancer/balancer_policy.h's setBalancerPolicy (one compare-and-set, audited). An admin's:
// the policy decides what moves without anyone asking.

#include "core/admin/admin_limits.h"
#include "core/balancer/balancer_policy.h"

#include <iterator>

namespace shardmap::core {

namespace {

using namespace change_steps;

Status checkBalancerText(const v1::AdminChange& change)
{
    return checkTextBounds("change.set_balancer_policy.",
        { { "policy_json", change.set_balancer_policy().policy_json(), kMaxPolicyJsonBytes } });
}

// What the policy says, read from the change: a malformed one is refused before anyone is asked.
Result<PreparedChange> prepareBalancer(FleetAdmin&, PreparedChange prepared)
{
    auto policy = decodeBalancerPolicy(prepared.change.set_balancer_policy().policy_json());
    if (!policy)
        return malformedChange(policy.error().message);
    prepared.summary = std::string("set the balancer's policy: mode ") + balancerModeName(policy->mode);
    return prepared;
}

Result<v1::ChangeResponse> applyBalancer(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor)
{
    auto policy = decodeBalancerPolicy(change.set_balancer_policy().policy_json());
    if (!policy)
        return malformedChange(policy.error().message);
    return revisionResponse(setBalancerPolicy(admin.store(), *policy, actor), "balancer-policy", encode(*policy));
}

const ChangeKind kBalancerKinds[] = {
    { .oneof = v1::AdminChange::kSetBalancerPolicy,
        .name = "set-balancer-policy",
        .checkText = checkBalancerText,
        .prepare = prepareBalancer,
        .role = adminRole,
        .apply = applyBalancer },
};

} // namespace

std::span<const ChangeKind> balancerChangeKinds()
{
    return { std::begin(kBalancerKinds), std::end(kBalancerKinds) };
}

v1::AdminChange balancerPolicyChange(const BalancerPolicy& policy)
{
    v1::AdminChange change;
    change.mutable_set_balancer_policy()->set_policy_json(encode(policy));
    return change;
}

} // namespace shardmap::core
