#pragma once

// `shardmapctl __complete CURRENT WORDS...`: what bash may complete CURRENT to after WORDS, one
// candidate a line, for packaging/completion/shardmapctl. One process answers from the command
// tree itself (subcommands, options, the values an option or argument takes) and, when a store is
// set (--store or $SHARDMAP_STORE), from the map: its nodes, shards, spaces and migrations. Not a
// subcommand, so neither --help nor the man page lists it.

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace shardmap::app {

struct CtlOptions;

inline constexpr const char* kCompleteCommand = "__complete";

// args: what followed __complete (CURRENT, then WORDS). Prints the candidates on standard output; returns the exit
// code.
int printCompletions(const CLI::App& app, const CtlOptions& options, const std::vector<std::string>& args);

} // namespace shardmap::app
