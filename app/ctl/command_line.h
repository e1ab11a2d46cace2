#pragma once

// How a command group wires its subcommands' callbacks: what a command returns is kept for main
// to report, and a changing command is made here or sent to shardmapd with --controller.

#include "app/ctl/commands.h"
#include "app/ctl/controller.h"

namespace shardmap::app {

// run(command): a callback that runs command and keeps its result in `result`.
inline auto runInto(CommandResult& result)
{
    return [&result](auto command) { return [&result, command] { result = command(); }; };
}

// change(local, remote): a callback that runs local(), or with --controller sends the Admin change
// remote() returns to shardmapd's Admin API.
inline auto changeWith(const CtlOptions& options, CommandResult& result)
{
    return [&options, &result](auto local, auto remote) {
        return [&options, &result, local, remote] {
            result = viaController(options) ? changeViaController(options, remote()) : local();
        };
    };
}

} // namespace shardmap::app
