#pragma once

// shardmapd's Admin API: the role and token files it reads, the callers it authenticates, and the
// shardmap.v1.Admin service that makes, or holds for approval, the changes they ask for.

#include "core/admin/approvals.h"
#include "core/admin/change_window.h"
#include "core/admin/fleet_admin.h"
#include "core/auth/access_policy.h"
#include "core/auth/bearer_tokens.h"
#include "core/store/audit_monitor.h"
#include "core/util/log.h"
#include "shardmap/v1/admin.grpc.pb.h"

#include <memory>
#include <string>

namespace shardmap::core {

// Where shardmapd's Admin API reads who may do what: the role file (required to serve the API)
// and the bearer-token file (optional). Both are re-read when they change.
struct AdminAccess {
    std::unique_ptr<AccessPolicySource> policy;
    std::unique_ptr<ReloadingFile<TokenTable>> tokens;

    // policy: a file, or "store" for the store's access/policy record, checked against the audit
    // that audit follows; an empty tokensPath: no bearer tokens. The tokens file must be its
    // owner's alone; when it goes missing or breaks no token is valid until it is fixed. log is
    // told (Error) when a file's newest contents are not taken, and (Info) when they are again.
    static Result<AdminAccess> load(const std::string& policy, const std::string& tokensPath, MetadataStore& store,
        AuditChainMonitor& audit, LogSink log = {});
};

// A caller as the Admin service authenticated it.
struct AdminCaller {
    std::string identity;
    Role role = Role::None;
    // "certificate" or "token".
    std::string authenticatedBy;
};

// The caller of a call to shardmapd: a bearer token in "authorization: Bearer ..." (the identity
// access.tokens gives it), else the client certificate's identity, with the role access.policy
// gives it; UNAUTHENTICATED saying what was missing or wrong.
Result<AdminCaller> authenticateCaller(const grpc::ServerContext& context, AdminAccess& access);

// The caller, when its role is at least `least`; otherwise PERMISSION_DENIED saying who is what and
// that `what` needs `least`.
Result<AdminCaller> authorizeCaller(
    const grpc::ServerContext& context, AdminAccess& access, Role least, const std::string& what);

// The shardmap.v1.Admin gRPC service (proto/shardmap/v1/admin.proto): authenticates every call
// (a bearer token in "authorization: Bearer ...", else the client certificate's identity), looks
// up the caller's role in the policy, refuses what the role may not do (PERMISSION_DENIED saying
// why) and makes the change through core::applyChange with the caller as the audit actor, or
// records it as awaiting approval when it crosses the policy's thresholds.
class AdminService final : public v1::Admin::Service {
public:
    AdminService(MetadataStore& store, NodeClientPool& nodes, AdminAccess& access, LogSink log = {});

    grpc::Status WhoAmI(grpc::ServerContext*, const v1::WhoAmIRequest*, v1::WhoAmIResponse*) override;
    grpc::Status Change(grpc::ServerContext*, const v1::ChangeRequest*, v1::ChangeResponse*) override;
    grpc::Status ListApprovals(
        grpc::ServerContext*, const v1::ListApprovalsRequest*, v1::ListApprovalsResponse*) override;
    grpc::Status Approve(grpc::ServerContext*, const v1::DecideRequest*, v1::ChangeResponse*) override;
    grpc::Status Refuse(grpc::ServerContext*, const v1::DecideRequest*, v1::ApprovalInfo*) override;
    grpc::Status ReadMap(grpc::ServerContext*, const v1::ReadMapRequest*, v1::ReadMapResponse*) override;
    grpc::Status ReadHistory(grpc::ServerContext*, const v1::ReadHistoryRequest*, v1::ReadHistoryResponse*) override;
    grpc::Status ReadLeases(grpc::ServerContext*, const v1::ReadLeasesRequest*, v1::ReadLeasesResponse*) override;
    grpc::Status RemoveApproval(grpc::ServerContext*, const v1::DecideRequest*, v1::ApprovalInfo*) override;

    // The caller of a call, or UNAUTHENTICATED saying what was missing or wrong.
    Result<AdminCaller> authenticate(const grpc::ServerContext& context);

private:
    Result<AdminCaller> authorize(const grpc::ServerContext& context, Role least, const std::string& what);
    // Checks that the caller may decide on the request's approval, then records the decision.
    struct Decided {
        AdminCaller caller;
        v1::ApprovalInfo approval;
    };
    Result<Decided> decide(const grpc::ServerContext& context, const v1::DecideRequest& request, bool approve);
    // Judges the change with what the caller moved and asked for within the policy's windows
    // (core/admin/change_window.h), then refuses it, records it as awaiting approval, or counts
    // and makes it. Conflict when the caller's count changed under it (another of its requests).
    Result<v1::ChangeResponse> changeCounted(
        const AdminCaller& caller, const PreparedChange& prepared, const std::string& reason);
    Result<v1::ChangeResponse> makeCounted(
        const AdminCaller& caller, const PreparedChange& prepared, const Actor& actor, const RecentChanges& recent);
    void log(LogLevel level, const std::string& message) const;

    MetadataStore& m_store;
    FleetAdmin m_admin;
    Approvals m_approvals;
    ChangeWindow m_window;
    AdminAccess& m_access;
    LogSink m_log;
};

} // namespace shardmap::core
