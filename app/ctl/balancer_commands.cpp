// shardmapctl's balancer commands (issue 33, first step): `balancer policy` shows the policy or,
// with --set FILE, sets it from a JSON file; `balancer enable|disable|dry-run` set its mode. Each
// change is core/balancer/balancer_policy.h's setBalancerPolicy: checked, one compare-and-set,
// audited. Nothing evaluates the policy yet (docs/BALANCER.md).
#include "app/ctl/command_line.h"
#include "app/ctl/output.h"
#include "core/balancer/balancer_policy.h"

#include <CLI/CLI.hpp>
#include <fstream>
#include <ostream>
#include <sstream>

namespace shardmap::app {

using nlohmann::json;

namespace {

struct BalancerArgs {
    std::string policyFile;
};

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
        = app.add_subcommand("balancer", "The balancer's policy and mode (it does not act yet)")->require_subcommand(1);
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
