#pragma once

// Changes awaiting a second person's approval (issue 17), kept in the store beside the map under
// approvals/<id> (JSON: the proto ApprovalInfo with its field names), each step one
// compare-and-set with its audit record ("request-approval", "approve", "refuse", then the change's
// own record). A change is made only after a different operator or admin approved it:
//
//   pending -> applying -> applied | failed        (approve; the change is made in between)
//   pending -> refused                             (refuse)
//   pending -> expired                             (not decided within the policy's time; shown
//                                                   as expired, and refused if decided late)
//
// Approving claims the change: "applying" names the claimant (applying_by, one per attempt) and
// when, in the same compare-and-set, so of two approvers racing exactly one makes the change. Only
// that claimant records the outcome. A claim whose outcome never came (shardmapd stopped in
// between) may be taken over by approving again once it is older than the claim timeout; the
// first claimant's late outcome is then not recorded. So is an "approved" record an older
// shardmapd left without an outcome.

#include "core/admin/admin_changes.h"
#include "core/store/metadata_store.h"
#include "shardmap/v1/admin.pb.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace shardmap::core {

inline constexpr std::string_view kApprovalsPrefix = "approvals/";

// May `identity` (with `role`) decide on this approval? Not the requester, nor another identity
// of the requester's person (policy.people); an operator or an admin; and one whose own role may
// make the change, to approve or to refuse it. PermissionDenied saying which rule refused.
Status mayDecide(const v1::ApprovalInfo& approval, const std::string& identity, Role role, Role required,
    const AccessPolicy& policy);

// May `identity` (with `role`) remove this request? An admin any, its requester their own
// (Approvals::remove refuses a decided one). PermissionDenied saying who may.
Status mayRemove(const v1::ApprovalInfo& approval, const std::string& identity, Role role);

// A new approval id: "ap-" + 13-digit unix milliseconds + 4 hex digits.
std::string newApprovalId();

// One page of approvals, newest first.
struct ApprovalPage {
    std::vector<v1::ApprovalInfo> approvals;
    // The last id of this page when more may follow; empty on the last page.
    std::string nextToken;
};

// How long a claim to make an approved change holds before approving again may take it over:
// longer than making any change takes (a plan queued, a shard created on its node).
inline constexpr std::chrono::milliseconds kApplyClaimTimeout = std::chrono::minutes(2);

class Approvals {
public:
    explicit Approvals(MetadataStore& store, std::chrono::milliseconds claimTimeout = kApplyClaimTimeout);

    // Records the prepared change as pending, with why it needs approval.
    Result<v1::ApprovalInfo> request(const PreparedChange& change, const std::string& because, const Actor& requester);
    // As request(), under the given id and committed together with `alongside` (the requester's
    // count of changes, core/admin/change_window.h): Conflict when one of those changed meanwhile.
    Result<v1::ApprovalInfo> request(const PreparedChange& change, const std::string& because, const Actor& requester,
        const std::string& id, std::vector<Mutation> alongside);
    // Newest first. Pending ones older than expireAfter are shown as expired.
    Result<std::vector<v1::ApprovalInfo>> list(bool pendingOnly, std::chrono::hours expireAfter);
    Result<v1::ApprovalInfo> get(const std::string& id, std::chrono::hours expireAfter);
    // list() a page at a time: the approvals with an id before `after` (a page token; empty: from
    // the newest), at most `most` and the page budget of core/admin/admin_pages.h.
    Result<ApprovalPage> listPage(
        bool pendingOnly, std::chrono::hours expireAfter, const std::string& after, std::size_t most);
    // Deletes an undecided request (pending or expired) with its audit record ("remove-approval");
    // FailedPrecondition once it is decided, Conflict when someone decided it meanwhile.
    Result<v1::ApprovalInfo> remove(const std::string& id, const Actor& remover, std::chrono::hours expireAfter);

    // Moves a pending approval to applying, claimed by decider (or takes over a claim older than
    // the claim timeout), or to refused. The caller that got "applying" back makes the change and
    // then calls finish() with that record. FailedPrecondition when it is decided already, being
    // made under a live claim, or expired; Conflict when someone else decided it meanwhile.
    Result<v1::ApprovalInfo> decide(
        const std::string& id, bool approve, const Actor& decider, std::chrono::hours expireAfter);
    // Records what making the claimed change did: applied with its outcome, or failed with the
    // error. Only from "applying" under the same claim (FailedPrecondition otherwise, recording
    // nothing): a claimant whose claim was taken over does not overwrite the outcome.
    Result<v1::ApprovalInfo> finish(const v1::ApprovalInfo& claimed, bool applied, const std::string& outcome);

private:
    Result<std::pair<v1::ApprovalInfo, std::uint64_t>> read(const std::string& id);
    Result<std::uint64_t> write(const v1::ApprovalInfo& approval, std::uint64_t expectModRevision, const Actor& actor,
        const std::string& action, std::vector<Mutation> alongside = {});

    MetadataStore& m_store;
    const std::chrono::milliseconds m_claimTimeout;
};

std::string encodeApproval(const v1::ApprovalInfo& approval);
Result<v1::ApprovalInfo> decodeApproval(const std::string& json);

} // namespace shardmap::core
