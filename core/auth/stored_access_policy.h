#pragma once

// The Admin API's policy (core/auth/access_policy.h) kept in the store beside the map, under
// access/policy, so that every shardmapd replica reads the same one and a change of it is a
// commit with its audit record: `shardmapd --access-policy store`, set with
// `shardmapctl access set FILE` (or through the Admin API by an admin).

#include "core/auth/access_policy.h"
#include "core/map/map_editor.h"
#include "core/store/audit_monitor.h"
#include "core/store/metadata_store.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string_view>

namespace shardmap::core {

inline constexpr std::string_view kAccessPolicyKey = "access/policy";

// Reads access/policy now (NotFound saying how to put one there when it is missing, the parse
// error when it does not parse) and again when it changes, looked at no more often than every
// checkEvery. Each look checks the audit (audit must track kAccessPolicyKey): a policy that is
// not the value the newest audit record of access/policy wrote (a direct write to the store
// that bypassed the audit) is refused with FailedPrecondition, logged by the monitor at error
// level and listed by its unauditedKeys(); the last verified policy stays in force.
Result<std::unique_ptr<AccessPolicySource>> loadStoredAccessPolicy(
    MetadataStore& store, AuditChainMonitor& audit, std::chrono::milliseconds checkEvery = std::chrono::seconds(1));

// The store's access/policy as it stands, which a policy set through the Admin API replaces and
// is compared with (loosenedAccess): the defaults (no identity has a role) when there is none or
// it does not parse.
Result<AccessPolicy> currentStoredAccessPolicy(MetadataStore& store);

// The store's access/policy as it stands (as currentStoredAccessPolicy) and the mod revision of
// its record (0: there is none): what a policy change is asked against.
struct StoredAccessPolicy {
    AccessPolicy policy;
    std::uint64_t revision = 0;
};
Result<StoredAccessPolicy> readStoredAccessPolicy(MetadataStore& store);

// FailedPrecondition when the access/policy record is no longer at `basedOn` (the revision a
// change was asked against), saying to ask again.
Status checkPolicyBase(const StoredAccessPolicy& current, std::uint64_t basedOn);

// Checks the policy as shardmapd will read it, then commits it to access/policy with an audit
// record (action "set-access-policy"). Returns the map's revision. With basedOn, only over the
// access/policy record at that revision (checkPolicyBase), so that a change asked against an older
// policy never undoes what was changed since.
Result<std::uint64_t> storeAccessPolicy(MetadataStore& store, const std::string& json, const Actor& actor,
    std::optional<std::uint64_t> basedOn = std::nullopt);

} // namespace shardmap::core
