#pragma once

// Usage errors (an unknown subcommand or option, a missing or bad argument) said as shardmapctl
// says any other invalid input: one sentence naming what was wrong and the command it was given
// to, JSON under --json, exit code 2 as --help and the man page promise.

#include <string>

namespace CLI {
class App;
class ParseError;
} // namespace CLI

namespace shardmap::app {

// The sentence for a parse error of app (the root), naming the deepest subcommand reached.
std::string usageErrorSentence(const CLI::App& app, const CLI::ParseError& error);

// Prints --help and --version as CLI11 does (exit 0); anything else as the sentence on standard
// error (and {"error": ...} on standard output when json) with exit code 2.
int reportUsageError(const CLI::App& app, const CLI::ParseError& error, bool json);

// Whether --json was given before any "--", for errors raised before the flag itself is stored.
bool jsonRequested(int argc, char** argv);

} // namespace shardmap::app
