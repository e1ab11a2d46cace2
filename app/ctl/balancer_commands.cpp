// shardmapctl's balancer commands (issue 33): `balancer status` (the state in one sentence, the
// window, the budget, the approval it waits for, its last decision) and `balancer history` (its
// decisions, newest first) read core/balancer's records; `balancer policy` shows the policy or,
// with --set FILE, sets it from a JSON file; `balancer enable|disable|dry-run` set its mode. Each
// change is core/balancer/balancer_policy.h's setBalancerPolicy: checked, one compare-and-set,
// audited.
#include "app/ctl/command_line.h"
#include "app/ctl/controller.h"
#include "app/ctl/output.h"
#include "core/admin/change_kinds.h"
#include "core/balancer/balancer_policy.h"
#include "core/balancer/balancer_status.h"
#include "core/util/clock.h"
#include "core/util/units.h"

#include <CLI/CLI.hpp>
#include <fstream>
#include <ostream>
#include <sstream>

namespace shardmap::app {

using nlohmann::json;

namespace {

struct BalancerArgs {
    std::string policyFile;
    std::size_t limit = 20;
};

json decisionJson(const core::BalancerDecision& decision)
{
    return json::parse(core::encode(decision));
}

std::string describeDecision(const core::BalancerDecision& d)
{
    std::string line = formatTime(d.atUnixMs) + "  " + core::decisionOutcomeName(d.outcome);
    if (!d.action.empty())
        line += " " + d.action;
    if (!d.operationId.empty())
        line += " " + d.operationId;
    if (!d.approvalId.empty())
        line += " " + d.approvalId;
    line += ": " + d.reason;
    if (d.evaluations > 1)
        line += " (" + std::to_string(d.evaluations) + " evaluations, the last at " + formatTime(d.lastUnixMs) + ")";
    return line;
}

std::string budgetText(std::uint64_t spent, std::uint64_t budget, bool bytes)
{
    const auto text = [bytes](std::uint64_t value) { return bytes ? core::formatBytes(value) : std::to_string(value); };
    return text(spent) + (budget ? " of " + text(budget) : " (no limit)");
}

CommandResult cmdBalancerStatus(const CtlOptions& options)
{
    auto store = openCtlStore(options);
    if (!store)
        return store.error();
    auto status = core::readBalancerStatus(**store, core::nowUnixMs());
    if (!status)
        return status.error();
    const core::BalancerState& state = status->state;
    const core::BalancerBudget& budget = status->policy.budget;
    json out { { "mode", core::balancerModeName(status->policy.mode) }, { "state", status->sentence },
        { "inside_window", status->insideWindow }, { "next_window", status->nextWindow },
        { "spent",
            { { "moves", state.spent.moves }, { "bytes", state.spent.bytes },
                { "work_hours", state.spent.workHours } } },
        { "budget", { { "moves", budget.moves }, { "bytes", budget.bytes }, { "work_hours", budget.workHours } } },
        { "pending_approval", state.pendingApproval }, { "last_evaluation_unix_ms", state.lastEvaluationUnixMs },
        { "last_decision", status->lastDecision ? decisionJson(*status->lastDecision) : json() } };
    const core::BalancerStatus shown = *status;
    return CommandOutput { out,
        [shown](std::ostream& stream) {
            const core::BalancerState& s = shown.state;
            const core::BalancerBudget& b = shown.policy.budget;
            stream << "balancer " << core::balancerModeName(shown.policy.mode) << ": " << shown.sentence << "\n";
            stream << "window: " << (shown.insideWindow ? "open now" : "next opens " + shown.nextWindow) << "\n";
            stream << "spent this window: " << budgetText(s.spent.moves, b.moves, false) << " moves, "
                   << budgetText(s.spent.bytes, b.bytes, true) << "\n";
            if (!s.pendingApproval.empty())
                stream << "waiting for approval " << s.pendingApproval << "\n";
            if (shown.lastDecision)
                stream << "last decision: " << describeDecision(*shown.lastDecision) << "\n";
        } };
}

CommandResult cmdBalancerHistory(const CtlOptions& options, std::size_t limit)
{
    auto store = openCtlStore(options);
    if (!store)
        return store.error();
    auto decisions = core::readBalancerDecisions(**store);
    if (!decisions)
        return decisions.error();
    std::vector<core::BalancerDecision> newest;
    for (auto it = decisions->rbegin(); it != decisions->rend() && newest.size() < limit; ++it)
        newest.push_back(it->value);
    json out = json::array();
    for (const auto& decision : newest)
        out.push_back(decisionJson(decision));
    return CommandOutput { out, [newest](std::ostream& stream) {
                              if (newest.empty())
                                  stream << "no decisions recorded\n";
                              for (const auto& decision : newest)
                                  stream << describeDecision(decision) << "\n";
                          } };
}

CommandResult policyOutput(const core::BalancerPolicy& policy, std::uint64_t revision, const std::string& said)
{
    json out = json::parse(core::encode(policy));
    out["revision"] = revision;
    return CommandOutput { out, [policy, said](std::ostream& stream) {
                              if (!said.empty())
                                  stream << said << "\n";
                              stream << "mode " << core::balancerModeName(policy.mode) << "; "
                                     << json::parse(core::encode(policy)).dump(2) << "\n";
                          } };
}

CommandResult cmdBalancerPolicyShow(const CtlOptions& options)
{
    auto store = openCtlStore(options);
    if (!store)
        return store.error();
    auto policy = core::readBalancerPolicy(**store);
    if (!policy)
        return policy.error();
    return policyOutput(policy->value, policy->modRevision, {});
}

CommandResult setPolicy(const CtlOptions& options, const core::BalancerPolicy& policy, const std::string& said)
{
    if (viaController(options))
        return changeViaController(options, core::balancerPolicyChange(policy));
    auto store = openCtlStore(options);
    if (!store)
        return store.error();
    auto revision = core::setBalancerPolicy(**store, policy, options.actor);
    if (!revision)
        return revision.error();
    return policyOutput(policy, *revision, said);
}

CommandResult cmdBalancerPolicySet(const CtlOptions& options, const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        return core::makeError(core::ErrorCode::NotFound, "cannot read the policy file " + path);
    std::stringstream text;
    text << in.rdbuf();
    auto policy = core::decodeBalancerPolicy(text.str());
    if (!policy)
        return policy.error();
    return setPolicy(options, *policy, "balancer policy set from " + path);
}

CommandResult cmdBalancerMode(const CtlOptions& options, core::BalancerMode mode)
{
    auto store = openCtlStore(options);
    if (!store)
        return store.error();
    auto current = core::readBalancerPolicy(**store);
    if (!current)
        return current.error();
    core::BalancerPolicy policy = current->value;
    policy.mode = mode;
    return setPolicy(options, policy, std::string("balancer ") + core::balancerModeName(mode));
}

} // namespace

void addBalancerCommands(CLI::App& app, const CtlOptions& options, CommandResult& result)
{
    static BalancerArgs args;
    auto run = runInto(result);
    auto* group
        = app.add_subcommand("balancer", "The balancer: its state, decisions, policy and mode")->require_subcommand(1);
    group->add_subcommand("status", "The balancer's state in one sentence, its window, budget and last decision")
        ->callback(run([&] { return cmdBalancerStatus(options); }));
    auto* history = group->add_subcommand("history", "The balancer's decisions, newest first");
    history->add_option("--limit", args.limit, "How many")->check(CLI::Range(1, 10000))->capture_default_str();
    history->callback(run([&] { return cmdBalancerHistory(options, args.limit); }));
    auto* policy = group->add_subcommand("policy", "Show the balancer's policy, or set it with --set FILE");
    policy->add_option("--set", args.policyFile, "A JSON file with the new policy (docs/BALANCER.md)");
    policy->callback([&options, &result] {
        result
            = args.policyFile.empty() ? cmdBalancerPolicyShow(options) : cmdBalancerPolicySet(options, args.policyFile);
    });
    group->add_subcommand("enable", "Let the balancer queue work (mode on)")->callback(run([&] {
        return cmdBalancerMode(options, core::BalancerMode::On);
    }));
    group->add_subcommand("disable", "Stop the balancer (mode off)")->callback(run([&] {
        return cmdBalancerMode(options, core::BalancerMode::Off);
    }));
    group->add_subcommand("dry-run", "Let the balancer decide and record without queuing (mode dry-run)")
        ->callback(run([&] { return cmdBalancerMode(options, core::BalancerMode::DryRun); }));
}

} // namespace shardmap::app
