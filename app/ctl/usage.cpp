// usage's implementation: a CLI11 parse error turned into one sentence naming the deepest
// subcommand parsed, with exit code 2.
#include "app/ctl/usage.h"

#include "core/util/result.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string_view>
#include <vector>

namespace shardmap::app {

namespace {

// The root and the subcommands parsed under it, outermost first.
std::vector<const CLI::App*> parsedChain(const CLI::App& app)
{
    std::vector<const CLI::App*> chain { &app };
    while (!chain.back()->get_subcommands().empty())
        chain.push_back(chain.back()->get_subcommands().front());
    return chain;
}

// "shardmapctl migrations show": the command as typed, whatever the binary's path.
std::string commandName(const std::vector<const CLI::App*>& chain)
{
    std::string name = "shardmapctl";
    for (std::size_t i = 1; i < chain.size(); ++i)
        name += " " + chain[i]->get_name();
    return name;
}

std::string subcommandList(const CLI::App& level)
{
    std::string list;
    for (const CLI::App* sub : level.get_subcommands([](const CLI::App*) { return true; }))
        list += (list.empty() ? "" : ", ") + sub->get_name();
    return list;
}

bool isOption(std::string_view word)
{
    return word.size() > 1 && word.front() == '-';
}

// What a value of the option must look like, from the type CLI11 gives it.
std::string kindOfValue(const CLI::App& level, const std::string& name)
{
    const CLI::Option* option = level.get_option_no_throw(name);
    const std::string type = option ? option->get_type_name() : std::string();
    if (type.starts_with("INT") || type.starts_with("UINT"))
        return "a whole number";
    if (type.starts_with("FLOAT") || type.starts_with("NUMBER"))
        return "a number";
    return "a valid value";
}

// The level needed a subcommand: the word typed instead (named), an unknown option, or nothing.
std::string missingSubcommand(const CLI::App& level, const std::string& command, const std::vector<std::string>& left)
{
    for (const std::string& word : left)
        if (!isOption(word))
            return "'" + word + "' is not a subcommand of " + command
                + (level.get_parent() ? " (it has: " + subcommandList(level) + ")" : "");
    for (const std::string& word : left)
        return "unknown option '" + word + "' for " + command;
    return command + " needs a subcommand"
        + (level.get_parent() ? ": " + subcommandList(level) : " (the list is in its --help)");
}

std::string extras(const std::string& command, const std::vector<std::string>& left)
{
    if (left.empty())
        return "unexpected arguments for " + command;
    const std::string& word = left.front();
    return isOption(word) ? "unknown option '" + word + "' for " + command
                          : "unexpected argument '" + word + "' for " + command;
}

// CLI11's "0.000000" and "0.010000" in ranges, as people write them: "0" and "0.01".
std::string trimZeros(const std::string& text)
{
    const std::string fraction = std::regex_replace(text, std::regex("(\\.[0-9]*[1-9])0+([^0-9]|$)"), "$1$2");
    return std::regex_replace(fraction, std::regex("([0-9])\\.0+([^0-9]|$)"), "$1$2");
}

// What went wrong, in the words of the command: prefix is "map diff: " (empty at the top).
std::string sentenceFor(const CLI::App& level, const std::string& command, const std::string& prefix,
    const CLI::ParseError& error, const std::vector<std::string>& left)
{
    const std::string message = error.what();
    std::smatch match;
    if (dynamic_cast<const CLI::RequiredError*>(&error) && level.get_require_subcommand_min() > 0
        && level.get_subcommands().empty())
        return missingSubcommand(level, command, left);
    if (dynamic_cast<const CLI::ExtrasError*>(&error))
        return extras(command, left);
    if (dynamic_cast<const CLI::ConversionError*>(&error)
        && std::regex_match(message, match, std::regex("Could not convert: (.+) = (.*)")))
        return prefix + match[1].str() + " must be " + kindOfValue(level, match[1].str()) + ", not '" + match[2].str()
            + "'";
    if (dynamic_cast<const CLI::ArgumentMismatch*>(&error)) {
        if (message.ends_with(" missing"))
            return prefix + message.substr(0, message.find(':')) + " needs a value";
        if (std::regex_match(message, match, std::regex("(.+): At Most ([0-9]+) required but received ([0-9]+)")))
            return prefix + match[1].str() + " takes at most " + match[2].str() + " value(s), not " + match[3].str();
    }
    if (dynamic_cast<const CLI::ValidationError*>(&error)
        && std::regex_match(message, match, std::regex("(.+): Value (.*)")))
        return prefix + match[1].str() + ": value " + trimZeros(match[2].str());
    return prefix + message;
}

} // namespace

std::string usageErrorSentence(const CLI::App& app, const CLI::ParseError& error)
{
    const auto chain = parsedChain(app);
    const std::string command = commandName(chain);
    const std::string prefix = chain.size() > 1 ? command.substr(command.find(' ') + 1) + ": " : std::string();
    return sentenceFor(*chain.back(), command, prefix, error, app.remaining(true)) + "; see " + command + " --help";
}

int reportUsageError(const CLI::App& app, const CLI::ParseError& error, bool json)
{
    if (error.get_exit_code() == 0)
        return app.exit(error);
    const std::string sentence = usageErrorSentence(app, error);
    if (json)
        std::cout << nlohmann::json {
            { "error", { { "code", core::errorCodeName(core::ErrorCode::InvalidArgument) }, { "message", sentence } } }
        }.dump(2) << "\n";
    std::cerr << "shardmapctl: " << sentence << "\n";
    return 2;
}

bool jsonRequested(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--")
            return false;
        if (arg == "--json")
            return true;
    }
    return false;
}

} // namespace shardmap::app
