// Approvals' implementation: each step a compare-and-set of approvals/<id> with its audit record,
// and the claim suffix that makes exactly one of two racing approvers the one who makes the change.
#include "core/admin/approvals.h"

#include "core/admin/admin_pages.h"
#include "core/migration/migration_requests.h"
#include "core/util/clock.h"
#include "core/util/json_input.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <google/protobuf/util/json_util.h>
#include <random>

namespace shardmap::core {

namespace {

std::string approvalKey(const std::string& id)
{
    return std::string(kApprovalsPrefix) + id;
}

// 16 random hex digits: one claim to make an approved change.
std::string newClaimSuffix()
{
    static thread_local std::mt19937_64 random { std::random_device {}() };
    static constexpr char kHex[] = "0123456789abcdef";
    std::uint64_t bits = random();
    std::string suffix(16, '0');
    for (char& c : suffix) {
        c = kHex[bits & 0xf];
        bits >>= 4;
    }
    return suffix;
}

bool expired(const v1::ApprovalInfo& approval, std::chrono::hours expireAfter)
{
    return approval.state() == "pending"
        && nowUnixMs() - approval.requested_unix_ms()
        > std::chrono::duration_cast<std::chrono::milliseconds>(expireAfter).count();
}

} // namespace

// As migration ids are made.
std::string newApprovalId()
{
    std::string id = newMigrationId();
    return "ap-" + id.substr(2);
}

std::string encodeApproval(const v1::ApprovalInfo& approval)
{
    google::protobuf::util::JsonPrintOptions options;
    options.preserve_proto_field_names = true;
    std::string json;
    (void)google::protobuf::util::MessageToJsonString(approval, &json, options);
    return json;
}

Result<v1::ApprovalInfo> decodeApproval(const std::string& json)
{
    if (auto status = checkJsonInput(json, "an approval record"); !status)
        return makeError(ErrorCode::Internal, status.error().message);
    v1::ApprovalInfo approval;
    google::protobuf::util::JsonParseOptions options;
    options.ignore_unknown_fields = true;
    if (auto status = google::protobuf::util::JsonStringToMessage(json, &approval, options); !status.ok())
        return makeError(ErrorCode::Internal, "an approval record does not parse: " + std::string(status.message()));
    return approval;
}

Status mayDecide(
    const v1::ApprovalInfo& approval, const std::string& identity, Role role, Role required, const AccessPolicy& policy)
{
    if (identity == approval.requested_by())
        return makeError(ErrorCode::PermissionDenied,
            identity + " requested " + approval.id() + "; a different operator or admin must approve or refuse it");
    if (policy.samePerson(identity, approval.requested_by()))
        return makeError(ErrorCode::PermissionDenied,
            identity + " and " + approval.requested_by() + ", who requested " + approval.id() + ", are one person ("
                + policy.personOf(*parseIdentity(identity)).value_or(identity)
                + " in the policy's people); a different person must approve or refuse it");
    if (role < Role::Operator)
        return makeError(ErrorCode::PermissionDenied,
            identity + " is a " + roleName(role) + "; only an operator or an admin may decide on " + approval.id());
    if (role < required)
        return makeError(ErrorCode::PermissionDenied,
            identity + " is an operator; " + approval.id() + " (" + approval.summary()
                + ") needs an admin's approval; only an admin may approve or refuse it");
    return {};
}

Status mayRemove(const v1::ApprovalInfo& approval, const std::string& identity, Role role)
{
    if (role < Role::Admin && identity != approval.requested_by())
        return makeError(ErrorCode::PermissionDenied,
            identity + " is "
                + (role == Role::Operator      ? "an operator"
                        : role == Role::Viewer ? "a viewer"
                                               : "not given a role")
                + "; only an admin or its requester (" + approval.requested_by() + ") may remove " + approval.id());
    return {};
}

Approvals::Approvals(MetadataStore& store, std::chrono::milliseconds claimTimeout)
    : m_store(store)
    , m_claimTimeout(claimTimeout)
{
}

Result<std::pair<v1::ApprovalInfo, std::uint64_t>> Approvals::read(const std::string& id)
{
    const bool wellFormed = id.starts_with("ap-") && id.size() <= 64 && std::all_of(id.begin(), id.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-';
    });
    if (!wellFormed)
        return makeError(ErrorCode::InvalidArgument, "'" + id + "' is not an approval id (ap-...)");
    auto records = m_store.list(approvalKey(id));
    if (!records)
        return records.error();
    const auto found = records->records.find(approvalKey(id));
    if (found == records->records.end())
        return makeError(ErrorCode::NotFound, "no approval " + id);
    auto approval = decodeApproval(found->second.value);
    if (!approval)
        return approval.error();
    return std::pair { std::move(*approval), found->second.modRevision };
}

Result<std::uint64_t> Approvals::write(const v1::ApprovalInfo& approval, std::uint64_t expectModRevision,
    const Actor& actor, const std::string& action, std::vector<Mutation> alongside)
{
    CommitRequest request;
    request.mutations = std::move(alongside);
    request.mutations.push_back({ approvalKey(approval.id()), encodeApproval(approval), expectModRevision });
    request.actor = actor.name;
    request.action = action;
    request.reason
        = actor.reason.empty() ? approval.id() + ": " + approval.summary() : approval.id() + ": " + actor.reason;
    auto committed = m_store.commit(request);
    if (!committed && committed.error().code == ErrorCode::Conflict)
        return makeError(ErrorCode::Conflict, approval.id() + " was decided by someone else meanwhile; look again");
    return committed;
}

Result<v1::ApprovalInfo> Approvals::request(
    const PreparedChange& change, const std::string& because, const Actor& requester)
{
    return request(change, because, requester, newApprovalId(), {});
}

Result<v1::ApprovalInfo> Approvals::request(const PreparedChange& change, const std::string& because,
    const Actor& requester, const std::string& id, std::vector<Mutation> alongside)
{
    v1::ApprovalInfo approval;
    approval.set_id(id);
    *approval.mutable_change() = change.change;
    approval.set_summary(change.summary);
    approval.set_needs_approval_because(because);
    for (const std::string& line : change.size.policyChanges)
        approval.add_changes(line);
    approval.set_requested_by(requester.name);
    approval.set_reason(requester.reason);
    approval.set_requested_unix_ms(nowUnixMs());
    approval.set_state("pending");
    if (auto written = write(approval, 0, requester, "request-approval", std::move(alongside)); !written)
        return written.error();
    return approval;
}

Result<std::vector<v1::ApprovalInfo>> Approvals::list(bool pendingOnly, std::chrono::hours expireAfter)
{
    auto records = m_store.list(std::string(kApprovalsPrefix));
    if (!records)
        return records.error();
    std::vector<v1::ApprovalInfo> approvals;
    for (const auto& [key, record] : records->records) {
        auto approval = decodeApproval(record.value);
        if (!approval)
            return makeError(approval.error().code, approval.error().message, key);
        if (expired(*approval, expireAfter))
            approval->set_state("expired");
        if (!pendingOnly || approval->state() == "pending")
            approvals.push_back(std::move(*approval));
    }
    std::sort(approvals.begin(), approvals.end(),
        [](const auto& a, const auto& b) { return a.requested_unix_ms() > b.requested_unix_ms(); });
    return approvals;
}

Result<ApprovalPage> Approvals::listPage(
    bool pendingOnly, std::chrono::hours expireAfter, const std::string& after, std::size_t most)
{
    auto records = m_store.list(std::string(kApprovalsPrefix));
    if (!records)
        return records.error();
    ApprovalPage page;
    std::size_t used = 0;
    // Ids grow with time: newest first is the keys backwards.
    auto end = after.empty() ? records->records.end() : records->records.lower_bound(approvalKey(after));
    for (auto record = std::make_reverse_iterator(end); record != records->records.rend(); ++record) {
        auto approval = decodeApproval(record->second.value);
        if (!approval)
            return makeError(approval.error().code, approval.error().message, record->first);
        if (expired(*approval, expireAfter))
            approval->set_state("expired");
        if (pendingOnly && approval->state() != "pending")
            continue;
        cutToItemLimit(*approval);
        const std::size_t size = approval->ByteSizeLong();
        if (!page.approvals.empty() && (used + size > kPageBudgetBytes || page.approvals.size() >= most)) {
            page.nextToken = page.approvals.back().id();
            break;
        }
        used += size;
        page.approvals.push_back(std::move(*approval));
    }
    return page;
}

Result<v1::ApprovalInfo> Approvals::remove(const std::string& id, const Actor& remover, std::chrono::hours expireAfter)
{
    auto found = read(id);
    if (!found)
        return found.error();
    auto& [approval, modRevision] = *found;
    if (expired(approval, expireAfter))
        approval.set_state("expired");
    if (approval.state() != "pending" && approval.state() != "expired")
        return makeError(ErrorCode::FailedPrecondition,
            id + " is " + approval.state() + "; only a request not decided yet can be removed");
    CommitRequest request;
    request.mutations.push_back({ approvalKey(id), std::nullopt, modRevision });
    request.actor = remover.name;
    request.action = "remove-approval";
    request.reason = id + ": " + (remover.reason.empty() ? approval.summary() : remover.reason);
    auto committed = m_store.commit(request);
    if (!committed && committed.error().code == ErrorCode::Conflict)
        return makeError(ErrorCode::Conflict, id + " was decided by someone else meanwhile; look again");
    if (!committed)
        return committed.error();
    approval.set_state("removed");
    approval.set_decided_by(remover.name);
    approval.set_decision_reason(remover.reason);
    return std::move(approval);
}

Result<v1::ApprovalInfo> Approvals::get(const std::string& id, std::chrono::hours expireAfter)
{
    auto found = read(id);
    if (!found)
        return found.error();
    if (expired(found->first, expireAfter))
        found->first.set_state("expired");
    return std::move(found->first);
}

Result<v1::ApprovalInfo> Approvals::decide(
    const std::string& id, bool approve, const Actor& decider, std::chrono::hours expireAfter)
{
    auto found = read(id);
    if (!found)
        return found.error();
    auto& [approval, modRevision] = *found;
    if (expired(approval, expireAfter))
        return makeError(ErrorCode::FailedPrecondition,
            id + " expired: it was requested more than " + std::to_string(expireAfter.count())
                + " h ago; request the change again");
    // Claimed but never finished (shardmapd stopped in between, or an older shardmapd's
    // "approved" without an outcome): approving it again makes it, once the claim is stale.
    const bool unfinished
        = (approval.state() == "applying" || approval.state() == "approved") && approval.outcome().empty();
    const std::int64_t claimAge = nowUnixMs() - approval.applying_unix_ms();
    if (approve && unfinished && approval.state() == "applying" && claimAge <= m_claimTimeout.count())
        return makeError(ErrorCode::FailedPrecondition,
            id + " is being made by " + approval.decided_by() + " (approved " + std::to_string(claimAge / 1000)
                + " s ago); approve it again only if it still has no outcome after "
                + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(m_claimTimeout).count()) + " s");
    if (approval.state() != "pending" && !(approve && unfinished))
        return makeError(ErrorCode::FailedPrecondition,
            id + " is " + approval.state() + " already"
                + (approval.decided_by().empty() ? std::string() : " (by " + approval.decided_by() + ")"));
    const std::int64_t now = nowUnixMs();
    approval.set_state(approve ? "applying" : "refused");
    approval.set_decided_by(decider.name);
    approval.set_decided_unix_ms(now);
    approval.set_decision_reason(decider.reason);
    if (approve) {
        approval.set_applying_by(decider.name + "#" + newClaimSuffix());
        approval.set_applying_unix_ms(now);
    }
    if (auto written = write(approval, modRevision, decider, approve ? "approve" : "refuse"); !written)
        return written.error();
    return approval;
}

Result<v1::ApprovalInfo> Approvals::finish(const v1::ApprovalInfo& claimed, bool applied, const std::string& outcome)
{
    auto found = read(claimed.id());
    if (!found)
        return found.error();
    auto& [approval, modRevision] = *found;
    if (approval.state() != "applying" || claimed.applying_by().empty()
        || approval.applying_by() != claimed.applying_by())
        return makeError(ErrorCode::FailedPrecondition,
            claimed.id() + " is no longer claimed by " + claimed.applying_by() + " (it is " + approval.state()
                + (approval.applying_by().empty() ? std::string() : ", claimed by " + approval.applying_by())
                + "); its outcome is not recorded");
    approval.set_state(applied ? "applied" : "failed");
    approval.set_outcome(outcome);
    const Actor actor { approval.decided_by(), applied ? "made: " + outcome : "failed: " + outcome };
    if (auto written = write(approval, modRevision, actor, applied ? "approval-applied" : "approval-failed"); !written)
        return written.error();
    return approval;
}

} // namespace shardmap::core
