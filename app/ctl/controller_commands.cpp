// shardmapctl through shardmapd's Admin API: the --controller flags, the Admin change each changing
// command sends and what it made, and the whoami, approvals and access commands.
#include "app/ctl/command_line.h"
#include "app/ctl/controller.h"
#include "app/ctl/output.h"
#include "core/admin/approvals.h"
#include "core/auth/access_policy.h"
#include "core/auth/bearer_tokens.h"
#include "core/auth/stored_access_policy.h"
#include "core/map/shard_map.h"
#include "core/util/units.h"

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <sstream>

namespace shardmap::app {

using core::ErrorCode;
using nlohmann::json;

void addControllerFlags(CLI::App& app, CtlOptions& options)
{
    app.add_option("--controller", options.controller.address,
           "HOST:PORT of shardmapd's Admin API: read and change through it, as the identity it authenticates "
           "(default: $SHARDMAP_CONTROLLER)")
        ->envname("SHARDMAP_CONTROLLER");
    app.add_option("--controller-ca", options.controller.caFile,
           "PEM CA of shardmapd's certificate: talk TLS to it (default: $SHARDMAP_CONTROLLER_CA)")
        ->envname("SHARDMAP_CONTROLLER_CA");
    app.add_option("--controller-cert", options.controller.certFile,
           "PEM client certificate: who you are to shardmapd (default: $SHARDMAP_CONTROLLER_CERT)")
        ->envname("SHARDMAP_CONTROLLER_CERT");
    app.add_option("--controller-key", options.controller.keyFile,
           "PEM private key of --controller-cert (default: $SHARDMAP_CONTROLLER_KEY)")
        ->envname("SHARDMAP_CONTROLLER_KEY");
    app.add_option("--token-file", options.tokenFile,
           "File holding a bearer token for the Admin API, instead of a certificate (default: $SHARDMAP_TOKEN_FILE)")
        ->envname("SHARDMAP_TOKEN_FILE");
}

namespace {

core::Result<std::string> readToken(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        return core::makeError(ErrorCode::InvalidArgument, "cannot read the token file " + path);
    std::string token;
    std::getline(in, token);
    while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back())))
        token.pop_back();
    if (token.empty())
        return core::makeError(ErrorCode::InvalidArgument, "the token file " + path + " is empty");
    return token;
}

core::Result<std::shared_ptr<core::AdminClient>> connectController(const CtlOptions& options)
{
    core::AdminClientOptions client = options.controller;
    client.timeout = options.timeout;
    if (!options.tokenFile.empty()) {
        auto token = readToken(options.tokenFile);
        if (!token)
            return token.error();
        client.token = *token;
    }
    auto connected = core::AdminClient::connect(client);
    if (!connected)
        return connected.error();
    return std::shared_ptr<core::AdminClient>(std::move(*connected));
}

json approvalJson(const v1::ApprovalInfo& approval)
{
    return json::parse(core::encodeApproval(approval));
}

// The whole of what the change changes (a policy change's every role, limit and threshold), so
// that the approver sees what else approving it sets.
void printChanges(std::ostream& out, const v1::ApprovalInfo& approval)
{
    if (approval.changes().empty())
        return;
    out << "  changes:\n";
    for (const std::string& line : approval.changes())
        out << "    " << line << "\n";
}

void printApproval(std::ostream& out, const v1::ApprovalInfo& approval)
{
    out << approval.id() << "  " << approval.state() << "  " << approval.summary() << "\n"
        << "  requested by " << approval.requested_by() << " at " << formatTime(approval.requested_unix_ms())
        << (approval.reason().empty() ? std::string() : ": " + approval.reason()) << "\n"
        << "  needs approval because " << approval.needs_approval_because() << "\n";
    printChanges(out, approval);
    if (!approval.decided_by().empty())
        out << "  " << (approval.state() == "refused" || approval.state() == "removed" ? approval.state() : "approved")
            << " by " << approval.decided_by() << " at " << formatTime(approval.decided_unix_ms())
            << (approval.decision_reason().empty() ? std::string() : ": " + approval.decision_reason()) << "\n";
    if (!approval.outcome().empty())
        out << "  outcome: " << approval.outcome() << "\n";
}

CommandOutput changeOutput(const v1::ChangeResponse& response)
{
    CommandOutput output;
    if (response.has_awaiting_approval()) {
        const v1::ApprovalInfo approval = response.awaiting_approval();
        output.json = { { "awaiting_approval", approvalJson(approval) } };
        output.exitCode = kExitAwaitingApproval;
        output.human = [approval](std::ostream& out) {
            out << "awaiting approval as " << approval.id() << ": " << approval.summary() << "\n"
                << "  it " << approval.needs_approval_because().substr(3) << "\n";
            printChanges(out, approval);
            out << "  a different operator or admin makes it with: shardmapctl approvals approve " << approval.id()
                << "\n";
        };
        return output;
    }
    json record = nullptr;
    if (!response.record_json().empty())
        record = json::parse(response.record_json(), nullptr, false);
    output.json
        = { { "revision", response.revision() }, { "record_kind", response.record_kind() }, { "record", record } };
    if (!response.warnings().empty())
        output.json["warnings"] = std::vector<std::string>(response.warnings().begin(), response.warnings().end());
    output.human = [response, record](std::ostream& out) {
        std::string what = response.record_kind().empty() ? std::string("change") : response.record_kind();
        if (record.is_object() && record.contains("id"))
            what += " " + record["id"].get<std::string>();
        if (record.is_object() && record.contains("phase"))
            what += " (" + record["phase"].get<std::string>() + ")";
        out << what << " done at revision " << response.revision() << "\n";
        for (const std::string& warning : response.warnings())
            out << "warning: " << warning << "\n";
    };
    return output;
}

} // namespace

core::Result<std::unique_ptr<core::MetadataStore>> openControllerStore(const CtlOptions& options)
{
    auto client = connectController(options);
    if (!client)
        return client.error();
    return core::makeAdminApiStore(std::move(*client));
}

CommandResult changeViaController(const CtlOptions& options, const v1::AdminChange& change)
{
    auto client = connectController(options);
    if (!client)
        return client.error();
    auto response = (*client)->change(change, options.actor.reason);
    if (!response)
        return response.error();
    return changeOutput(*response);
}

namespace changes {

v1::AdminChange addNode(const std::string& id, const std::string& address,
    const std::map<std::string, std::string>& labels, const std::string& zone)
{
    v1::AdminChange change;
    auto* node = change.mutable_add_node();
    node->set_id(id);
    node->set_address(address);
    node->mutable_labels()->insert(labels.begin(), labels.end());
    node->set_zone(zone);
    return change;
}

v1::AdminChange changeReplica(const std::string& shard, const std::string& node, v1::ChangeReplica::Action action)
{
    v1::AdminChange change;
    change.mutable_change_replica()->set_shard(shard);
    change.mutable_change_replica()->set_node(node);
    change.mutable_change_replica()->set_action(action);
    return change;
}

v1::AdminChange loseNode(const std::string& node)
{
    v1::AdminChange change;
    change.mutable_lose_node()->set_node(node);
    return change;
}

v1::AdminChange setNodeZone(const std::string& node, const std::string& zone)
{
    v1::AdminChange change;
    change.mutable_set_node_zone()->set_node(node);
    change.mutable_set_node_zone()->set_zone(zone);
    return change;
}

v1::AdminChange setReplication(const std::string& shard, std::uint32_t factor, std::optional<bool> allowSameZone)
{
    v1::AdminChange change;
    change.mutable_set_replication()->set_shard(shard);
    change.mutable_set_replication()->set_factor(factor);
    if (allowSameZone)
        change.mutable_set_replication()->set_allow_same_zone(*allowSameZone);
    return change;
}

v1::AdminChange removeNode(const std::string& id)
{
    v1::AdminChange change;
    change.mutable_remove_node()->set_id(id);
    return change;
}

v1::AdminChange createShard(const ShardCreateArgs& args)
{
    v1::AdminChange change;
    auto* shard = change.mutable_create_shard();
    shard->set_id(args.id);
    shard->set_node(args.node);
    for (const std::string& field : args.fields)
        shard->add_fields(field);
    shard->set_capacity_docs(args.capacityDocs);
    shard->set_capacity_bytes(args.capacityBytes);
    shard->set_engine(args.engine);
    return change;
}

v1::AdminChange setShardState(const std::string& shard, const std::string& state)
{
    v1::AdminChange change;
    change.mutable_set_shard_state()->set_shard(shard);
    change.mutable_set_shard_state()->set_state(state);
    return change;
}

v1::AdminChange pinSpace(const std::string& space, const std::string& shard)
{
    v1::AdminChange change;
    change.mutable_pin_space()->set_space(space);
    change.mutable_pin_space()->set_shard(shard);
    return change;
}

v1::AdminChange reassignSpace(const std::string& space, const std::string& shard)
{
    v1::AdminChange change;
    change.mutable_reassign_space()->set_space(space);
    change.mutable_reassign_space()->set_shard(shard);
    return change;
}

v1::AdminChange queueMigration(const std::string& space, const std::string& target, std::uint64_t throttle)
{
    v1::AdminChange change;
    change.mutable_queue_migration()->set_space(space);
    change.mutable_queue_migration()->set_target_shard(target);
    change.mutable_queue_migration()->set_throttle(throttle);
    return change;
}

v1::AdminChange steerMigration(const std::string& id, v1::SteerMigration::Action action)
{
    v1::AdminChange change;
    change.mutable_steer_migration()->set_migration(id);
    change.mutable_steer_migration()->set_action(action);
    return change;
}

v1::AdminChange setThrottle(const std::string& id, std::uint64_t docsPerSecond)
{
    v1::AdminChange change;
    change.mutable_set_throttle()->set_migration(id);
    change.mutable_set_throttle()->set_docs_per_second(docsPerSecond);
    return change;
}

v1::AdminChange startOperation(const OperationArgs& args)
{
    v1::AdminChange change;
    auto* operation = change.mutable_start_operation();
    operation->set_kind(core::operationKindName(args.kind));
    operation->set_subject(args.subject);
    operation->set_into(args.into);
    operation->set_node(args.node);
    return change;
}

v1::AdminChange applyPlan(const std::string& planJson)
{
    v1::AdminChange change;
    change.mutable_apply_plan()->set_plan_json(planJson);
    return change;
}

v1::AdminChange setSettings(const core::MigrationSettings& settings)
{
    v1::AdminChange change;
    change.mutable_set_settings()->set_settings_json(core::encode(settings));
    return change;
}

} // namespace changes

namespace {

CommandResult needsController(const CtlOptions& options, const char* command)
{
    if (viaController(options))
        return CommandOutput {};
    return core::makeError(ErrorCode::InvalidArgument,
        std::string(command) + " asks shardmapd's Admin API: pass --controller HOST:PORT (or set SHARDMAP_CONTROLLER)");
}

CommandResult whoAmI(const CtlOptions& options)
{
    if (auto need = needsController(options, "whoami"); !need)
        return need;
    auto client = connectController(options);
    if (!client)
        return client.error();
    auto who = (*client)->whoAmI();
    if (!who)
        return who.error();
    const std::string role = core::roleName(static_cast<core::Role>(who->role()));
    CommandOutput output;
    output.json
        = { { "identity", who->identity() }, { "role", role }, { "authenticated_by", who->authenticated_by() } };
    output.human = [who = *who, role](std::ostream& out) {
        out << who.identity() << " (" << role << ", by " << who.authenticated_by() << ")\n";
    };
    return output;
}

CommandResult listApprovals(const CtlOptions& options, bool pendingOnly)
{
    if (auto need = needsController(options, "approvals list"); !need)
        return need;
    auto client = connectController(options);
    if (!client)
        return client.error();
    auto approvals = (*client)->listApprovals(pendingOnly);
    if (!approvals)
        return approvals.error();
    CommandOutput output;
    output.json = json::array();
    for (const auto& approval : *approvals)
        output.json.push_back(approvalJson(approval));
    output.human = [approvals = *approvals](std::ostream& out) {
        if (approvals.empty())
            out << "no approvals\n";
        for (const auto& approval : approvals)
            printApproval(out, approval);
    };
    return output;
}

CommandResult decide(const CtlOptions& options, const std::string& id, bool approve)
{
    if (auto need = needsController(options, approve ? "approvals approve" : "approvals refuse"); !need)
        return need;
    auto client = connectController(options);
    if (!client)
        return client.error();
    if (approve) {
        auto made = (*client)->approve(id, options.actor.reason);
        if (!made)
            return made.error();
        return changeOutput(*made);
    }
    auto refused = (*client)->refuse(id, options.actor.reason);
    if (!refused)
        return refused.error();
    CommandOutput output;
    output.json = approvalJson(*refused);
    output.human = [refused = *refused](std::ostream& out) { printApproval(out, refused); };
    return output;
}

CommandResult removeApproval(const CtlOptions& options, const std::string& id)
{
    if (auto need = needsController(options, "approvals remove"); !need)
        return need;
    auto client = connectController(options);
    if (!client)
        return client.error();
    auto removed = (*client)->removeApproval(id, options.actor.reason);
    if (!removed)
        return removed.error();
    CommandOutput output;
    output.json = approvalJson(*removed);
    output.human = [removed = *removed](std::ostream& out) { printApproval(out, removed); };
    return output;
}

CommandResult newTokenCommand(const std::string& identity)
{
    auto made = core::newToken(identity);
    if (!made)
        return made.error();
    CommandOutput output;
    output.json = { { "identity", identity }, { "token", made->token }, { "token_file_line", made->line } };
    output.human = [made = *made](std::ostream& out) {
        out << "token (give it to its holder; it is not stored anywhere):\n  " << made.token << "\n"
            << "line for shardmapd's --tokens file:\n  " << made.line << "\n";
    };
    return output;
}

CommandResult hashTokenCommand(const std::string& identity)
{
    std::string token;
    std::getline(std::cin, token);
    while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back())))
        token.pop_back();
    if (token.empty())
        return core::makeError(ErrorCode::InvalidArgument, "no token on standard input");
    const std::string line = core::tokenFileLine(identity, token);
    CommandOutput output;
    output.json = { { "identity", identity }, { "token_file_line", line } };
    output.human = [line](std::ostream& out) { out << line << "\n"; };
    return output;
}

CommandResult checkPolicyCommand(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        return core::makeError(ErrorCode::InvalidArgument, "cannot read " + path);
    std::stringstream text;
    text << in.rdbuf();
    auto policy = core::AccessPolicy::parse(text.str(), path);
    if (!policy)
        return policy.error();
    CommandOutput output;
    json roles = json::object();
    for (const auto& [identity, role] : policy->roles)
        roles[identity] = core::roleName(role);
    json people = json::object();
    for (const auto& [identity, person] : policy->people)
        people[person].push_back(identity);
    output.json = { { "roles", roles }, { "default_role", core::roleName(policy->defaultRole) }, { "people", people },
        { "operator_limits",
            { { "max_spaces", policy->operatorLimits.maxSpaces }, { "max_bytes", policy->operatorLimits.maxBytes } } },
        { "approval",
            { { "max_spaces", policy->approval.maxSpaces }, { "max_bytes", policy->approval.maxBytes },
                { "retire_node", policy->approval.retireNode }, { "raise_limits", policy->approval.raiseLimits },
                { "restore", policy->approval.restore }, { "expire_hours", policy->approval.expireAfter.count() } } } };
    output.human = [policy = *policy, path](std::ostream& out) {
        out << path << ": " << policy.roles.size() << " identities, others: " << core::roleName(policy.defaultRole)
            << "\n";
        for (const auto& [identity, role] : policy.roles)
            out << "  " << identity << "  " << core::roleName(role) << "\n";
        for (const auto& [identity, person] : policy.people)
            out << "  " << identity << " is " << person << "\n";
        out << "operators move at most " << policy.operatorLimits.maxSpaces << " spaces / "
            << core::formatBytes(policy.operatorLimits.maxBytes) << " at once\n"
            << "approval above " << policy.approval.maxSpaces << " spaces / "
            << core::formatBytes(policy.approval.maxBytes) << (policy.approval.retireNode ? ", to retire a node" : "")
            << (policy.approval.raiseLimits ? ", to raise a limit" : "")
            << (policy.approval.restore ? ", to replace documents by a restore" : "") << "; requests expire after "
            << policy.approval.expireAfter.count() << " h\n";
    };
    return output;
}

core::Result<std::string> readFileText(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    if (!in)
        return core::makeError(ErrorCode::InvalidArgument, "cannot read " + path);
    return text.str();
}

// Puts a policy in the store's access/policy, for replicas started with --access-policy store:
// through the Admin API (admins only) or, to bootstrap, straight into the store.
CommandResult setPolicyCommand(const CtlOptions& options, const std::string& path)
{
    auto text = readFileText(path);
    if (!text)
        return text.error();
    if (viaController(options)) {
        v1::AdminChange change;
        change.mutable_set_access_policy()->set_policy_json(*text);
        return changeViaController(options, change);
    }
    auto store = openCtlStore(options);
    if (!store)
        return store.error();
    auto revision = core::storeAccessPolicy(**store, *text, options.actor);
    if (!revision)
        return core::makeError(revision.error().code, path + ": " + revision.error().message);
    CommandOutput output;
    output.json = { { "revision", *revision } };
    output.human = [rev = *revision](std::ostream& out) {
        out << "access policy stored in " << core::kAccessPolicyKey << " (map revision " << rev << ")\n";
    };
    return output;
}

CommandResult showPolicyCommand(const CtlOptions& options)
{
    auto store = openCtlStore(options);
    if (!store)
        return store.error();
    auto records = (*store)->list(std::string(core::kAccessPolicyKey));
    if (!records)
        return records.error();
    const auto found = records->records.find(std::string(core::kAccessPolicyKey));
    if (found == records->records.end())
        return core::makeError(ErrorCode::NotFound,
            "the store has no " + std::string(core::kAccessPolicyKey) + "; put one with: shardmapctl access set FILE");
    CommandOutput output;
    output.json = json::parse(found->second.value, nullptr, false);
    output.human = [text = found->second.value](std::ostream& out) { out << text << "\n"; };
    return output;
}

} // namespace

void addAccessCommands(CLI::App& app, const CtlOptions& options, CommandResult& result)
{
    auto run = runInto(result);
    app.add_subcommand("whoami", "Who shardmapd's Admin API takes you for, and your role")->callback(run([&options] {
        return whoAmI(options);
    }));

    auto* approvals
        = app.add_subcommand("approvals", "Changes awaiting a second person's approval")->require_subcommand(1);
    static bool pendingOnly = false;
    static std::string id;
    auto* list = approvals->add_subcommand("list", "Pending and decided approvals, newest first");
    list->add_flag("--pending", pendingOnly, "Only those awaiting a decision");
    list->callback(run([&options] { return listApprovals(options, pendingOnly); }));
    auto* approve = approvals->add_subcommand("approve", "Approve a change someone else asked for: it is made now");
    approve->add_option("id", id, "Approval id (ap-...)")->required();
    approve->callback(run([&options] { return decide(options, id, true); }));
    auto* refuse = approvals->add_subcommand("refuse", "Refuse a change someone else asked for");
    refuse->add_option("id", id, "Approval id (ap-...)")->required();
    refuse->callback(run([&options] { return decide(options, id, false); }));
    auto* remove = approvals->add_subcommand(
        "remove", "Remove a request not decided yet (an admin any, its requester their own); the change is not made");
    remove->add_option("id", id, "Approval id (ap-...)")->required();
    remove->callback(run([&options] { return removeApproval(options, id); }));

    auto* access = app.add_subcommand("access", "Bearer tokens and role files of the Admin API")->require_subcommand(1);
    static std::string identity, file;
    auto* newTokenCmd = access->add_subcommand("new-token", "Make a random token and its line for --tokens");
    newTokenCmd->add_option("identity", identity, "Who the token stands for (as the role file names it)")->required();
    newTokenCmd->callback(run([] { return newTokenCommand(identity); }));
    auto* hash = access->add_subcommand("hash-token", "The --tokens line for a token read from standard input");
    hash->add_option("identity", identity, "Who the token stands for")->required();
    hash->callback(run([] { return hashTokenCommand(identity); }));
    auto* set = access->add_subcommand(
        "set", "Put a role file in the store's access/policy (for shardmapd --access-policy store)");
    set->add_option("file", file, "The policy JSON file")->required();
    set->callback(run([&options] { return setPolicyCommand(options, file); }));
    access->add_subcommand("show", "The store's access/policy")->callback(run([&options] {
        return showPolicyCommand(options);
    }));
    auto* check = access->add_subcommand("check", "Check a role file as shardmapd reads it");
    check->add_option("file", file, "The --access-policy JSON file")->required();
    check->callback(run([] { return checkPolicyCommand(file); }));
}

} // namespace shardmap::app
