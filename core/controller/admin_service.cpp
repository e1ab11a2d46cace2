#include "core/controller/admin_service.h"

// AdminService's implementation: who calls (token or certificate) and with what role, the change
// limits and approvals a change may wait for, and the read calls over the store.

#include "core/admin/admin_limits.h"
#include "core/admin/admin_pages.h"
#include "core/auth/peer_identity.h"
#include "core/auth/stored_access_policy.h"
#include "core/migration/fleet_facts.h"
#include "core/node/status_mapping.h"
#include "core/util/units.h"

#include <grpcpp/server_context.h>

namespace shardmap::core {

namespace {

// The files' messages, named by the flag that gave each file.
LogSink prefixed(const LogSink& log, const std::string& prefix)
{
    if (!log)
        return {};
    return [log, prefix](LogLevel level, const std::string& message) { log(level, prefix + message); };
}

} // namespace

Result<AdminAccess> AdminAccess::load(const std::string& policy, const std::string& tokensPath, MetadataStore& store,
    AuditChainMonitor& audit, LogSink log)
{
    AdminAccess access;
    if (policy == "store") {
        auto stored = loadStoredAccessPolicy(store, audit);
        if (!stored)
            return makeError(stored.error().code, "--access-policy store: " + stored.error().message);
        access.policy = std::move(*stored);
    } else {
        auto file = loadAccessPolicy(policy, prefixed(log, "--access-policy: "));
        if (!file)
            return makeError(file.error().code, "--access-policy: " + file.error().message);
        access.policy = accessPolicySource(std::move(*file));
    }
    if (!tokensPath.empty()) {
        // A token taken out of the file must not stay valid because the edit broke the file.
        ReloadOptions options;
        options.ownerOnly = true;
        options.keepLastGood = false;
        options.log = prefixed(log, "--tokens: ");
        auto tokens = ReloadingFile<TokenTable>::load(tokensPath, &TokenTable::parse, std::move(options));
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
    , m_window(store, m_approvals)
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
        const auto tokens = access.tokens->current();
        if (!tokens)
            return makeError(ErrorCode::Unauthenticated,
                "shardmapd's --tokens file is missing or broken, so it takes no bearer token now (its log says why)");
        auto name = tokens->identityOf(value.substr(kBearer.size()));
        if (!name)
            return makeError(ErrorCode::Unauthenticated, "the bearer token is not one this controller knows");
        const PeerIdentity identity { IdentityKind::Token, std::move(*name) };
        return AdminCaller { identity.text(), access.policy->current()->roleOf(identity), "token" };
    }
    const auto identity = peerCertificateIdentity(context);
    if (!identity)
        return makeError(ErrorCode::Unauthenticated,
            "no client certificate and no bearer token: shardmapd needs one (--controller-cert/--controller-key "
            "or --token-file)");
    return AdminCaller { identity->text(), access.policy->current()->roleOf(*identity), "certificate" };
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

namespace {

// Marks a Conflict on the caller's count of changes (another of its requests came between): the
// request is judged again with that one counted. Other conflicts are the change's own.
constexpr const char* kCountChanged = "count_changed";

Error countChanged(Error error)
{
    error.details[kCountChanged] = "1";
    return error;
}

ChangeSize recentWithin(const RecentChanges& recent, std::chrono::minutes window)
{
    if (window.count() == 0)
        return {};
    return recent.countedSince(nowUnixMs() - std::chrono::duration_cast<std::chrono::milliseconds>(window).count());
}

// The change as the limits measure it: together with what its requester moved before it.
PreparedChange countedWith(const PreparedChange& prepared, const ChangeSize& recent)
{
    PreparedChange counted = prepared;
    if (movesSpaces(prepared)) {
        counted.size.spaces += recent.spaces;
        counted.size.bytes += recent.bytes;
    }
    return counted;
}

// " (with the 3 spaces, 1.0 GiB bob moved or asked for in the last 60 minutes)", or nothing.
std::string recentNote(
    const Requester& requester, const PreparedChange& prepared, const ChangeSize& recent, std::chrono::minutes window)
{
    if (!movesSpaces(prepared) || (recent.spaces == 0 && recent.bytes == 0))
        return {};
    return " (with the " + std::to_string(recent.spaces) + (recent.spaces == 1 ? " space, " : " spaces, ")
        + formatBytes(recent.bytes) + " " + requester.name + " moved or asked for in the last "
        + std::to_string(window.count()) + " minutes)";
}

Error pendingCapReached(const Requester& requester, std::uint64_t pending)
{
    return makeError(ErrorCode::ResourceExhausted,
        requester.name + " has " + std::to_string(pending) + (pending == 1 ? " request" : " requests")
            + " awaiting approval, as many as approval.max_pending_per_identity allows; wait for a decision or "
              "remove one (shardmapctl approvals remove ID)");
}

} // namespace

grpc::Status AdminService::Change(
    grpc::ServerContext* context, const v1::ChangeRequest* request, v1::ChangeResponse* response)
{
    auto caller = authorize(*context, Role::Operator, "changing the fleet");
    if (!caller)
        return statusOf(caller.error());
    if (auto status = checkChangeRequestText(*request); !status) {
        log(LogLevel::Info, "refused a change by " + caller->identity + ": " + status.error().message);
        return statusOf(status.error());
    }
    auto prepared = prepareChange(m_admin, request->change());
    if (!prepared)
        return statusOf(prepared.error());
    constexpr int kAttempts = 5;
    for (int attempt = 1;; ++attempt) {
        auto made = changeCounted(*caller, *prepared, request->reason());
        if (made) {
            *response = std::move(*made);
            return grpc::Status::OK;
        }
        if (!made.error().details.contains(kCountChanged))
            return statusOf(made.error());
        if (attempt == kAttempts)
            return statusOf(makeError(ErrorCode::Conflict,
                "requests of " + caller->identity + " kept coming at the same time; nothing was made, try again"));
    }
}

Result<v1::ChangeResponse> AdminService::changeCounted(
    const AdminCaller& caller, const PreparedChange& prepared, const std::string& reason)
{
    const auto policy = m_access.policy->current();
    const Requester requester = requesterOf(*policy, caller.identity);
    auto recent = m_window.read(requester, policy->approval.expireAfter);
    if (!recent)
        return recent.error();
    const ChangeSize forLimits = recentWithin(*recent, policy->operatorLimits.window);
    const PreparedChange limited = countedWith(prepared, forLimits);
    const Role least = requiredRole(limited, policy->operatorLimits);
    if (caller.role < least) {
        const std::string why = whyRole(limited, policy->operatorLimits)
            + recentNote(requester, prepared, forLimits, policy->operatorLimits.window);
        log(LogLevel::Info,
            "refused " + changeKind(prepared.change) + " by " + caller.identity + " (" + roleName(caller.role)
                + "): " + why);
        return makeError(ErrorCode::PermissionDenied,
            caller.identity + " is " + (caller.role == Role::Operator ? "an operator" : "a viewer") + "; " + why);
    }
    const Actor actor { caller.identity, reason };
    const ChangeSize forApproval = recentWithin(*recent, policy->approval.window);
    std::string because = approvalNeed(countedWith(prepared, forApproval), policy->approval);
    if (because.empty())
        return makeCounted(caller, prepared, actor, *recent);
    because += recentNote(requester, prepared, forApproval, policy->approval.window);
    const std::uint64_t cap = policy->approval.maxPendingPerIdentity;
    if (cap != 0 && recent->pending() >= cap)
        return pendingCapReached(requester, recent->pending());
    const std::string id = newApprovalId();
    const auto keep = std::max(policy->operatorLimits.window, policy->approval.window);
    auto approval = m_approvals.request(
        prepared, because, actor, id, { m_window.add(*recent, ChangeWindow::entryFor(prepared.size, id), keep) });
    if (!approval && approval.error().code == ErrorCode::Conflict)
        return countChanged(approval.error());
    if (!approval)
        return approval.error();
    log(LogLevel::Info,
        caller.identity + " asked for " + approval->summary() + ": awaiting approval as " + approval->id() + " ("
            + because + ")");
    v1::ChangeResponse response;
    *response.mutable_awaiting_approval() = std::move(*approval);
    return response;
}

Result<v1::ChangeResponse> AdminService::makeCounted(
    const AdminCaller& caller, const PreparedChange& prepared, const Actor& actor, const RecentChanges& recent)
{
    if (!movesSpaces(prepared))
        return applyChange(m_admin, prepared.change, actor);
    const auto policy = m_access.policy->current();
    const auto keep = std::max(policy->operatorLimits.window, policy->approval.window);
    CountedCommits counted(m_store, m_window.add(recent, ChangeWindow::entryFor(prepared.size), keep));
    FleetAdmin admin(counted, m_admin.nodes());
    auto made = applyChange(admin, prepared.change, actor);
    if (!made && counted.countChanged()) {
        log(LogLevel::Info, caller.identity + "'s count of changes moved under " + changeKind(prepared.change));
        return countChanged(made.error());
    }
    return made;
}

grpc::Status AdminService::ListApprovals(
    grpc::ServerContext* context, const v1::ListApprovalsRequest* request, v1::ListApprovalsResponse* response)
{
    auto caller = authorize(*context, Role::Viewer, "reading approvals");
    if (!caller)
        return statusOf(caller.error());
    auto page = m_approvals.listPage(request->pending_only(), m_access.policy->current()->approval.expireAfter,
        request->page_token(), pageSize(request->page_size(), 100, 1000));
    if (!page)
        return statusOf(page.error());
    for (auto& approval : page->approvals)
        *response->add_approvals() = std::move(approval);
    response->set_next_page_token(page->nextToken);
    return grpc::Status::OK;
}

Result<AdminService::Decided> AdminService::decide(
    const grpc::ServerContext& context, const v1::DecideRequest& request, bool approve)
{
    auto caller = authorize(context, Role::Operator, approve ? "approving a change" : "refusing a change");
    if (!caller)
        return caller.error();
    if (auto status = checkDecideRequestText(request); !status)
        return status.error();
    const auto policy = m_access.policy->current();
    auto pending = m_approvals.get(request.id(), policy->approval.expireAfter);
    if (!pending)
        return pending.error();
    if (approve && pending->change().has_set_access_policy()
        && !pending->change().set_access_policy().has_policy_revision())
        return makeError(ErrorCode::FailedPrecondition,
            request.id()
                + " was asked before policy changes recorded the policy they change; making it could undo "
                  "what changed since: ask again against the current policy");
    // A decider's own role must allow the change, measured now as it was when asked: only who
    // could approve it may refuse it. One that cannot be measured now is an admin's to refuse.
    auto prepared = prepareChange(m_admin, pending->change());
    if (!prepared && approve)
        return prepared.error();
    const Role required = prepared ? requiredRole(*prepared, policy->operatorLimits) : Role::Admin;
    if (auto status = mayDecide(*pending, caller->identity, caller->role, required, *policy); !status)
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
    if (auto status = readMapPage(m_store, *request, *response); !status)
        return statusOf(status.error());
    return grpc::Status::OK;
}

grpc::Status AdminService::ReadHistory(
    grpc::ServerContext* context, const v1::ReadHistoryRequest* request, v1::ReadHistoryResponse* response)
{
    auto caller = authorize(*context, Role::Viewer, "reading the audit history");
    if (!caller)
        return statusOf(caller.error());
    if (auto status = readHistoryPage(m_store, *request, *response); !status)
        return statusOf(status.error());
    return grpc::Status::OK;
}

grpc::Status AdminService::ReadLeases(
    grpc::ServerContext* context, const v1::ReadLeasesRequest* request, v1::ReadLeasesResponse* response)
{
    auto caller = authorize(*context, Role::Viewer, "reading the leases");
    if (!caller)
        return statusOf(caller.error());
    if (auto status = readLeasesPage(m_store, *request, *response); !status)
        return statusOf(status.error());
    return grpc::Status::OK;
}

grpc::Status AdminService::RemoveApproval(
    grpc::ServerContext* context, const v1::DecideRequest* request, v1::ApprovalInfo* response)
{
    auto caller = authorize(*context, Role::Operator, "removing a request for approval");
    if (!caller)
        return statusOf(caller.error());
    if (auto status = checkDecideRequestText(*request); !status)
        return statusOf(status.error());
    const auto expireAfter = m_access.policy->current()->approval.expireAfter;
    auto approval = m_approvals.get(request->id(), expireAfter);
    if (!approval)
        return statusOf(approval.error());
    if (auto status = mayRemove(*approval, caller->identity, caller->role); !status)
        return statusOf(status.error());
    auto removed = m_approvals.remove(request->id(), { caller->identity, request->reason() }, expireAfter);
    if (!removed)
        return statusOf(removed.error());
    log(LogLevel::Info,
        caller->identity + " removed " + removed->id() + " (" + removed->summary() + "), asked by "
            + removed->requested_by());
    *response = std::move(*removed);
    return grpc::Status::OK;
}

} // namespace shardmap::core
