#pragma once

// Changes awaiting a second person's approval (issue 17), kept in the store beside the map under
// approvals/<id> (JSON: the proto ApprovalInfo with its field names), each step one
// compare-and-set with its audit record ("request-approval", "approve", "refuse", then the change's
// own record). A change is made only after a different operator or admin approved it:
//
//   pending -> approved -> applied | failed        (approve; the change is made in between)
//   pending -> refused                             (refuse)
//   pending -> expired                             (not decided within the policy's time; shown
//                                                   as expired, and refused if decided late)
//
// An approval that was approved but whose change was never made (shardmapd stopped in between)
// stays "approved" with no outcome: the list shows it, and approving it again makes the change.

#include "core/admin/admin_changes.h"
#include "core/store/metadata_store.h"
#include "shardmap/v1/admin.pb.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace shardmap::core {

inline constexpr std::string_view kApprovalsPrefix = "approvals/";

// May `identity` (with `role`) decide on this approval? Not the requester; an operator or an
// admin; and one whose own role may make the change. PermissionDenied saying which rule refused.
Status mayDecide(const v1::ApprovalInfo& approval, const std::string& identity, Role role, Role required);

class Approvals {
public:
    explicit Approvals(MetadataStore& store);

    // Records the prepared change as pending, with why it needs approval.
    Result<v1::ApprovalInfo> request(const PreparedChange& change, const std::string& because, const Actor& requester);
    // Newest first. Pending ones older than expireAfter are shown as expired.
    Result<std::vector<v1::ApprovalInfo>> list(bool pendingOnly, std::chrono::hours expireAfter);
    Result<v1::ApprovalInfo> get(const std::string& id, std::chrono::hours expireAfter);

    // Moves a pending approval to approved (or an approved one whose change was never made stays
    // approved) or to refused, by decider. FailedPrecondition when it is decided already or expired.
    Result<v1::ApprovalInfo> decide(
        const std::string& id, bool approve, const Actor& decider, std::chrono::hours expireAfter);
    // Records what making the approved change did: applied with its outcome, or failed with the error.
    Result<v1::ApprovalInfo> finish(const v1::ApprovalInfo& approval, bool applied, const std::string& outcome);

private:
    Result<std::pair<v1::ApprovalInfo, std::uint64_t>> read(const std::string& id);
    Result<std::uint64_t> write(const v1::ApprovalInfo& approval, std::uint64_t expectModRevision, const Actor& actor,
        const std::string& action);

    MetadataStore& m_store;
};

std::string encodeApproval(const v1::ApprovalInfo& approval);
Result<v1::ApprovalInfo> decodeApproval(const std::string& json);

} // namespace shardmap::core
