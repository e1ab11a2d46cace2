#pragma once

// Who may do what through shardmapd's Admin API (docs/ACCESS.md): identities (core/auth/
// peer_identity.h: what a client certificate or a bearer token names, typed) mapped to roles, the
// people several identities belong to, the limits of the operator role and the thresholds above
// which a change needs a second person's approval. Read from a JSON file that shardmapd re-reads
// when it changes, so a mapping is changed without a restart:
//
//   {
//     "version": 1,
//     "roles": { "alice": "admin", "bob": "operator", "token:bob.ci": "operator",
//                "spiffe://example.org/grafana": "viewer" },
//     "people": { "bob": ["bob", "token:bob.ci"] },
//     "default_role": "none",
//     "operator_limits": { "max_spaces": 100, "max_bytes": 107374182400, "window_minutes": 60 },
//     "approval": { "max_spaces": 10, "max_bytes": 10737418240, "retire_node": true,
//                   "raise_limits": true, "expire_hours": 24, "window_minutes": 60,
//                   "max_pending_per_identity": 20 }
//   }

#include "core/auth/peer_identity.h"
#include "core/auth/reloading_file.h"
#include "core/util/result.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardmap::core {

// Ordered: a role may do everything the roles below it may.
enum class Role { None = 0, Viewer = 1, Operator = 2, Admin = 3 };
const char* roleName(Role role);
std::optional<Role> parseRole(std::string_view name);

// How much an operator may move: one request, together with what the same identity moved (and
// asked for) within the window before it; more needs an admin. 0 in maxSpaces or maxBytes: no
// limit on that measure. A window of 0: per request only.
struct OperatorLimits {
    std::uint64_t maxSpaces = 100;
    std::uint64_t maxBytes = 100ull << 30;
    std::chrono::minutes window { 60 };

    bool operator==(const OperatorLimits&) const = default;
};

// Above these, a change is recorded as awaiting approval and made only when a different operator
// or admin approves it. 0 in maxSpaces or maxBytes: that measure never asks for approval.
struct ApprovalThresholds {
    std::uint64_t maxSpaces = 10;
    std::uint64_t maxBytes = 10ull << 30;
    // Retiring a node (retire-node, or a plan of that kind).
    bool retireNode = true;
    // Executor settings that raise a limit (concurrency, throttle, target fill, repairs, batch).
    bool raiseLimits = true;
    // A request not decided within this long expires.
    std::chrono::hours expireAfter { 24 };
    // maxSpaces and maxBytes measure a request together with what the same identity moved (and
    // asked for) within this window before it, so that splitting a change does not pass them.
    std::chrono::minutes window { 60 };
    // Requests one identity may have pending at once; 0: no cap.
    std::uint64_t maxPendingPerIdentity = 20;
    // A restore that replaces live documents with a snapshot's (issue 32): an admin's, and with
    // this a second admin's too.
    bool restore = true;

    bool operator==(const ApprovalThresholds&) const = default;
};

// Whether a change that measures value is over one of the limits above (an operator's maxSpaces,
// an approval's maxBytes ...), where 0 is no limit. The least role, the reason given for it and
// the need for approval all ask this, so that they cannot disagree.
bool overLimit(std::uint64_t value, std::uint64_t limit);

struct AccessPolicy {
    // Keyed by IdentityPattern::text(): "alice" (a CN or a token's name), "cn:alice",
    // "token:ci-bot", "dns:...", "spiffe://...".
    std::map<std::string, Role> roles;
    // The role of an authenticated identity the map does not list.
    Role defaultRole = Role::None;
    // The person each listed identity (IdentityPattern::text()) belongs to: a person's
    // certificates and tokens count as one person where approval needs a second one.
    std::map<std::string, std::string> people;
    OperatorLimits operatorLimits;
    ApprovalThresholds approval;

    // An entry naming the identity's kind wins over a bare name that also matches it.
    Role roleOf(const PeerIdentity& identity) const;
    // The role of an identity's written form (PeerIdentity::text); None for one that does not parse.
    Role roleOf(const std::string& identity) const;
    // The person `people` puts the identity under; nullopt when none lists it.
    std::optional<std::string> personOf(const PeerIdentity& identity) const;
    // Whether two identities' written forms are one person: the same identity, or both listed
    // under one person.
    bool samePerson(const std::string& identity, const std::string& other) const;

    // InvalidArgument naming `source` and what is wrong (an unknown key, a role that does not
    // exist, a negative limit).
    static Result<AccessPolicy> parse(const std::string& json, const std::string& source);

    bool operator==(const AccessPolicy&) const = default;
};

// What `after` allows that `before` did not, one entry each ("bob operator -> admin",
// "approval.retire_node on -> off"): an identity's role or the default role raised (each
// identity either names, as roleOf gives it), an operator limit raised, an approval threshold
// raised or turned off (0: never asks), retire_node or raise_limits approval turned off,
// expire_hours raised (a request stays open longer). Empty when after only keeps or tightens:
// such a policy change needs no second person.
std::vector<std::string> loosenedAccess(const AccessPolicy& before, const AccessPolicy& after);

// Everything that differs between the two, loosened or tightened, one line each in the form
// loosenedAccess uses ("dave admin -> operator", "approval.expire_hours 24 -> 12"): what an
// approver is shown.
std::vector<std::string> accessPolicyChanges(const AccessPolicy& before, const AccessPolicy& after);

using AccessPolicyFile = ReloadingFile<AccessPolicy>;
// The policy file, re-read when it changes; a change that does not parse keeps the last good
// policy, and is told to log (Error) once.
Result<std::unique_ptr<AccessPolicyFile>> loadAccessPolicy(const std::filesystem::path& path, LogSink log = {});

// Where shardmapd reads the policy: a file, or the store's access/policy record (so that every
// replica reads the same one; core/auth/stored_access_policy.h). Both are read again when they
// change; a change that does not parse keeps the last good policy.
class AccessPolicySource {
public:
    virtual ~AccessPolicySource() = default;
    virtual std::shared_ptr<const AccessPolicy> current() = 0;
    // Why the newest policy was not taken; empty when it was.
    virtual std::string lastError() = 0;
    // "FILE" or "the store's access/policy", for messages.
    virtual std::string describe() const = 0;
};
std::unique_ptr<AccessPolicySource> accessPolicySource(std::unique_ptr<AccessPolicyFile> file);

} // namespace shardmap::core
