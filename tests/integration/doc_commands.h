#pragma once

// What a page's command block asks to run, split as bash splits it but not run, and the cheap
// checks for the blocks that cannot run here (issue 27, point 12): every program they name
// exists, and every subcommand and option they give it is one it has.

#include "tests/support/doc_blocks.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace shardmap::testing {

// One simple command: the program and its arguments, with the assignments before it, its
// redirections and quotes gone.
struct DocCommand {
    std::vector<std::string> words;
    std::string line; // as the page writes it, for messages
};

// What bash runs of a block: the "$ " lines of a console transcript without the prompt, else
// every line.
std::string docScript(const DocBlock& block);

// The simple commands of a block's script: `\` continuations joined, comments dropped, $NAME
// expanded where a line before set NAME=..., split at && || | ; & and shell keywords.
std::vector<DocCommand> docCommands(const DocBlock& block);

// What a program's --help says it takes.
struct DocHelp {
    bool ok = false; // --help exited 0
    std::set<std::string> options; // "--store", "-o"
    std::set<std::string> valued; // the options followed by a value
    std::set<std::string> subcommands;
    bool positionals = false;
};

// The programs of this build and the tree they come from, and the checks of a command against
// them. Each --help is run once.
class DocCommandChecker final {
public:
    struct Setup {
        std::string sourceDir;
        std::string buildDir;
        std::map<std::string, std::string> programs; // name -> file: the servers, the CLIs, bench/
        std::string ninja; // the build's ninja, "" for another generator
    };
    explicit DocCommandChecker(Setup setup);

    // What is wrong with a command of a block that is not run; empty when nothing is.
    std::vector<std::string> problems(const DocCommand& command);

private:
    const DocHelp& help(const std::vector<std::string>& path);
    void checkOptions(const DocCommand& command, const std::string& program, std::vector<std::string>& out);
    void checkBuildTool(const DocCommand& command, std::vector<std::string>& out);
    bool hasTarget(const std::string& target);
    std::string resolve(const std::string& program, std::vector<std::string>& out) const;

    Setup m_setup;
    std::map<std::vector<std::string>, DocHelp> m_help;
    std::set<std::string> m_targets;
};

} // namespace shardmap::testing
