// shardmapctl: the shard map's operations from a shell. Sets up the global options, lets each
// command group add its CLI11 subcommands, and prints what the command ran returned as a table or,
// with --json, as JSON.
#include "app/common/node_tls_flags.h"
#include "app/ctl/commands.h"
#include "app/ctl/completion.h"
#include "app/ctl/controller.h"
#include "app/ctl/output.h"
#include "app/ctl/usage.h"
#include "core/util/login_name.h"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <string_view>

using namespace shardmap::app;

namespace {

std::string envOr(const char* name, std::string fallback)
{
    const char* value = std::getenv(name);
    return value && *value ? value : fallback;
}

int report(const CommandResult& result, bool json)
{
    if (!result) {
        const auto& error = result.error();
        if (json)
            std::cout << nlohmann::json {
                { "error", { { "code", shardmap::core::errorCodeName(error.code) }, { "message", error.describe() } } }
            }.dump(2) << "\n";
        std::cerr << "shardmapctl: " << error.describe() << "\n";
        return exitCodeFor(error.code);
    }
    if (result->printed)
        return result->exitCode;
    if (json)
        std::cout << result->json.dump(2) << "\n";
    else if (result->human)
        result->human(std::cout);
    return result->exitCode;
}

// --store, --json, --actor, --reason, --timeout-ms, the node TLS files and --controller: every
// command's options, also after the subcommand.
void addGlobalOptions(CLI::App& app, CtlOptions& options)
{
    app.fallthrough();
    options.storeUri = envOr("SHARDMAP_STORE", "");
    options.actor.name = shardmap::core::loginName();
    if (options.actor.name.empty())
        options.actor.name = "shardmapctl";
    app.add_option("--store", options.storeUri,
        "Store URI: sqlite:PATH or etcd://HOST:PORT[,HOST:PORT...]/PREFIX[?user=U&password_file=F&ca=F&cert=F&key=F] "
        "(default: $SHARDMAP_STORE)");
    app.add_flag("--json", options.json, "Print JSON for scripts");
    app.add_option(
        "--actor", options.actor.name, "Who is acting, for the audit log (default: $USER, else the login name)");
    app.add_option("--reason", options.actor.reason, "Why, for the audit log");
    // Set as the option is parsed: the command callbacks run inside app.parse().
    app.add_option_function<int>(
           "--timeout-ms", [&options](const int& ms) { options.timeout = std::chrono::milliseconds(ms); },
           "Deadline of each call to a node")
        ->check(CLI::Range(100, 600000));
    addNodeTlsFlags(app, options.nodeClient);
    addControllerFlags(app, options);
}

// Every command group, in the order the help lists them.
void addCommands(CLI::App& app, const CtlOptions& options, CommandResult& result)
{
    addFleetCommands(app, options, result);
    addHealthCommand(app, options, result);
    addMigrationCommands(app, options, result);
    addPlanCommands(app, options, result);
    addTemplateCommands(app, options, result);
    addSnapshotCommands(app, options, result);
    addRestoreCommands(app, options, result);
    addBalancerCommands(app, options, result);
    addSimulateCommand(app, options, result);
    addReportCommand(app, options, result);
    addAccessCommands(app, options, result);
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app {
        "shardmapctl: inspect and change the Shardmap shard map.\n"
        "Exit codes: 0 ok, 2 invalid input, 3 not found, 4 conflict/exists, 5 refused (precondition), "
        "6 unavailable, 7 permission denied or not authenticated, 10 awaiting approval (--controller), 12 snapshot "
        "failed or corrupt, 1 other."
    };
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("shardmapctl ") + SHARDMAP_VERSION);
    CtlOptions options;
    addGlobalOptions(app, options);
    CommandResult result = shardmap::core::makeError(shardmap::core::ErrorCode::Internal, "no command ran");
    addCommands(app, options, result);

    if (argc > 1 && std::string_view(argv[1]) == kCompleteCommand)
        return printCompletions(app, options, std::vector<std::string>(argv + 2, argv + argc));
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
        return reportUsageError(app, error, options.json || jsonRequested(argc, argv));
    }
    return report(result, options.json);
}
