#include "core/controller/admin_service.h"

#include "core/auth/peer_identity.h"
#include "core/auth/stored_access_policy.h"
#include "core/node/status_mapping.h"

#include <grpcpp/server_context.h>

namespace shardmap::core {

Result<AdminAccess> AdminAccess::load(const std::string& policy, const std::string& tokensPath, MetadataStore& store)
{
    AdminAccess access;
    if (policy == "store") {
        auto stored = loadStoredAccessPolicy(store);
        if (!stored)
            return makeError(stored.error().code, "--access-policy store: " + stored.error().message);
        access.policy = std::move(*stored);
    } else {
        auto file = loadAccessPolicy(policy);
        if (!file)
            return makeError(file.error().code, "--access-policy: " + file.error().message);
        access.policy = accessPolicySource(std::move(*file));
    }
    if (!tokensPath.empty()) {
        auto tokens = ReloadingFile<TokenTable>::load(tokensPath, &TokenTable::parse);
        if (!tokens)
            return makeError(tokens.error().code, "--tokens: " + tokens.error().message);
        access.tokens = std::move(*tokens);
    }
    return access;
}

AdminService::AdminService(MetadataStore& store, NodeClientPool& nodes, AdminAccess& access, LogSink log)
    : m_store(store)
    , m_admin(store, nodes)
    , m_approvals(store)
    , m_access(access)
    , m_log(std::move(log))
{
}

void AdminService::log(LogLevel level, const std::string& message) const
{
    if (m_log)
        m_log(level, message);
}

namespace {

grpc::Status statusOf(const Error& error)
{
    return toGrpcStatus(error);
}

constexpr std::string_view kBearer = "Bearer ";

} // namespace

Result<AdminCaller> authenticateCaller(const grpc::ServerContext& context, AdminAccess& access)
{
    const auto& metadata = context.client_metadata();
    if (const auto header = metadata.find("authorization"); header != metadata.end()) {
        const std::string_view value(header->second.data(), header->second.size());
        if (!value.starts_with(kBearer))
            return makeError(ErrorCode::Unauthenticated, "the authorization header must be 'Bearer TOKEN'");
        if (!access.tokens)
            return makeError(ErrorCode::Unauthenticated, "this controller takes no bearer tokens (no --tokens file)");
        auto identity = access.tokens->current()->identityOf(value.substr(kBearer.size()));
        if (!identity)
            return makeError(ErrorCode::Unauthenticated, "the bearer token is not one this controller knows");
        return AdminCaller { *identity, access.policy->current()->roleOf(*identity), "token" };
    }
    std::string identity = peerCertificateIdentity(context);
    if (identity.empty())
        return makeError(ErrorCode::Unauthenticated,
            "no client certificate and no bearer token: shardmapd needs one (--controller-cert/--controller-key "
            "or --token-file)");
    const Role role = access.policy->current()->roleOf(identity);
    return AdminCaller { std::move(identity), role, "certificate" };
}

Result<AdminCaller> authorizeCaller(
    const grpc::ServerContext& context, AdminAccess& access, Role least, const std::string& what)
{
    auto caller = authenticateCaller(context, access);
    if (!caller)
        return caller.error();
    if (caller->role < least)
        return makeError(ErrorCode::PermissionDenied,
            caller->identity + " is "
                + (caller->role == Role::None ? std::string("not given a role")
                                              : std::string("a ") + roleName(caller->role))
                + "; " + what + " needs the " + roleName(least) + " role");
    return caller;
}

Result<AdminCaller> AdminService::authenticate(const grpc::ServerContext& context)
{
    return authenticateCaller(context, m_access);
}

Result<AdminCaller> AdminService::authorize(const grpc::ServerContext& context, Role least, const std::string& what)
{
    return authorizeCaller(context, m_access, least, what);
}

grpc::Status AdminService::WhoAmI(grpc::ServerContext* context, const v1::WhoAmIRequest*, v1::WhoAmIResponse* response)
{
    auto caller = authenticate(*context);
    if (!caller)
        return statusOf(caller.error());
    response->set_identity(caller->identity);
    response->set_role(static_cast<v1::Role>(caller->role));
    response->set_authenticated_by(caller->authenticatedBy);
    return grpc::Status::OK;
}

grpc::Status AdminService::Change(
    grpc::ServerContext* context, const v1::ChangeRequest* request, v1::ChangeResponse* response)
{
    auto caller = authorize(*context, Role::Operator, "changing the fleet");
    if (!caller)
        return statusOf(caller.error());
    auto prepared = prepareChange(m_admin, request->change());
    if (!prepared)
        return statusOf(prepared.error());
    const auto policy = m_access.policy->current();
    const Role least = requiredRole(*prepared, policy->operatorLimits);
    if (caller->role < least) {
        log(LogLevel::Info,
            "refused " + changeKind(request->change()) + " by " + caller->identity + " (" + roleName(caller->role)
                + "): " + whyRole(*prepared, policy->operatorLimits));
        return statusOf(makeError(ErrorCode::PermissionDenied,
            caller->identity + " is " + (caller->role == Role::Operator ? "an operator" : "a viewer") + "; "
                + whyRole(*prepared, policy->operatorLimits)));
    }
    const Actor actor { caller->identity, request->reason() };
    if (const std::string because = approvalNeed(*prepared, policy->approval); !because.empty()) {
        auto approval = m_approvals.request(*prepared, because, actor);
        if (!approval)
            return statusOf(approval.error());
        log(LogLevel::Info,
            caller->identity + " asked for " + approval->summary() + ": awaiting approval as " + approval->id() + " ("
                + because + ")");
        *response->mutable_awaiting_approval() = std::move(*approval);
        return grpc::Status::OK;
    }
    auto made = applyChange(m_admin, prepared->change, actor);
    if (!made)
        return statusOf(made.error());
    *response = std::move(*made);
    return grpc::Status::OK;
}

grpc::Status AdminService::ListApprovals(
    grpc::ServerContext* context, const v1::ListApprovalsRequest* request, v1::ListApprovalsResponse* response)
{
    auto caller = authorize(*context, Role::Viewer, "reading approvals");
    if (!caller)
        return statusOf(caller.error());
    auto approvals = m_approvals.list(request->pending_only(), m_access.policy->current()->approval.expireAfter);
    if (!approvals)
        return statusOf(approvals.error());
    for (auto& approval : *approvals)
        *response->add_approvals() = std::move(approval);
    return grpc::Status::OK;
}

Result<AdminService::Decided> AdminService::decide(
    const grpc::ServerContext& context, const v1::DecideRequest& request, bool approve)
{
    auto caller = authorize(context, Role::Operator, approve ? "approving a change" : "refusing a change");
    if (!caller)
        return caller.error();
    const auto policy = m_access.policy->current();
    auto pending = m_approvals.get(request.id(), policy->approval.expireAfter);
    if (!pending)
        return pending.error();
    // An approver's own role must allow the change, measured now as it was when asked.
    Role required = Role::Operator;
    if (approve) {
        auto prepared = prepareChange(m_admin, pending->change());
        if (!prepared)
            return prepared.error();
        required = requiredRole(*prepared, policy->operatorLimits);
    }
    if (auto status = mayDecide(*pending, caller->identity, caller->role, required); !status)
        return status.error();
    auto decided = m_approvals.decide(
        request.id(), approve, { caller->identity, request.reason() }, policy->approval.expireAfter);
    if (!decided)
        return decided.error();
    return Decided { std::move(*caller), std::move(*decided) };
}

grpc::Status AdminService::Approve(
    grpc::ServerContext* context, const v1::DecideRequest* request, v1::ChangeResponse* response)
{
    auto decided = decide(*context, *request, true);
    if (!decided)
        return statusOf(decided.error());
    const v1::ApprovalInfo& approved = decided->approval;
    // Made with the requester as the actor, the approver named beside it.
    const Actor actor { approved.requested_by(),
        (approved.reason().empty() ? std::string() : approved.reason() + " ") + "(approved by "
            + decided->caller.identity + " as " + approved.id() + ")" };
    auto made = applyChange(m_admin, approved.change(), actor);
    const std::string outcome = made ? describeOutcome(*made) : std::string();
    auto finished = m_approvals.finish(approved, static_cast<bool>(made), made ? outcome : made.error().describe());
    if (!finished)
        log(LogLevel::Warn, approved.id() + ": could not record its outcome: " + finished.error().describe());
    log(LogLevel::Info,
        decided->caller.identity + " approved " + approved.id() + " (" + approved.summary()
            + "): " + (made ? outcome : "failed: " + made.error().describe()));
    if (!made)
        return statusOf(made.error());
    *response = std::move(*made);
    return grpc::Status::OK;
}

grpc::Status AdminService::Refuse(
    grpc::ServerContext* context, const v1::DecideRequest* request, v1::ApprovalInfo* response)
{
    auto decided = decide(*context, *request, false);
    if (!decided)
        return statusOf(decided.error());
    log(LogLevel::Info,
        decided->caller.identity + " refused " + decided->approval.id() + " (" + decided->approval.summary() + ")");
    *response = std::move(decided->approval);
    return grpc::Status::OK;
}

grpc::Status AdminService::ReadMap(
    grpc::ServerContext* context, const v1::ReadMapRequest* request, v1::ReadMapResponse* response)
{
    auto caller = authorize(*context, Role::Viewer, "reading the map");
    if (!caller)
        return statusOf(caller.error());
    auto snapshot = request->prefix().empty() ? m_store.snapshot() : m_store.list(request->prefix());
    if (!snapshot)
        return statusOf(snapshot.error());
    response->set_revision(snapshot->revision);
    for (const auto& [key, record] : snapshot->records) {
        v1::StoreRecord* out = response->add_records();
        out->set_key(key);
        out->set_value(record.value);
        out->set_create_revision(record.createRevision);
        out->set_mod_revision(record.modRevision);
    }
    return grpc::Status::OK;
}

grpc::Status AdminService::ReadHistory(
    grpc::ServerContext* context, const v1::ReadHistoryRequest* request, v1::ReadHistoryResponse* response)
{
    auto caller = authorize(*context, Role::Viewer, "reading the audit history");
    if (!caller)
        return statusOf(caller.error());
    auto records = m_store.history(request->from_revision(), 0, request->limit() == 0 ? 1000 : request->limit());
    if (!records)
        return statusOf(records.error());
    for (const AuditRecord& record : *records) {
        v1::AuditEntry* out = response->add_records();
        out->set_revision(record.revision);
        out->set_unix_ms(record.unixMs);
        out->set_actor(record.actor);
        out->set_action(record.action);
        out->set_reason(record.reason);
        for (const RecordChange& change : record.changes) {
            v1::AuditChange* changed = out->add_changes();
            changed->set_key(change.key);
            if (change.before)
                changed->set_before(*change.before);
            if (change.after)
                changed->set_after(*change.after);
        }
    }
    return grpc::Status::OK;
}

grpc::Status AdminService::ReadLeases(
    grpc::ServerContext* context, const v1::ReadLeasesRequest* request, v1::ReadLeasesResponse* response)
{
    auto caller = authorize(*context, Role::Viewer, "reading the leases");
    if (!caller)
        return statusOf(caller.error());
    auto leases = m_store.liveLeases(request->prefix());
    if (!leases)
        return statusOf(leases.error());
    for (const LeaseGrant& lease : *leases) {
        v1::Lease* out = response->add_leases();
        out->set_name(lease.name);
        out->set_holder(lease.holder);
        out->set_token(lease.token);
        out->set_expires_unix_ms(lease.expiresUnixMs);
    }
    return grpc::Status::OK;
}

} // namespace shardmap::core
