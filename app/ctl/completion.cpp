// __complete's implementation: a rule per option or argument saying what values it takes, answered
// from the CLI11 command tree and, for shards, spaces, nodes and migrations, from the store's map.
#include "app/ctl/completion.h"

#include "app/ctl/commands.h"
#include "core/map/map_editor.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>

namespace shardmap::app {

namespace {

// What an option or a positional argument takes, by the command it belongs to and its name.
enum class Values { Nothing, Store, Files, Shards, Spaces, Nodes, Migrations, Operations, Fixed };

struct ValueRule {
    const char* command; // "" for any command
    const char* name;
    Values values;
    std::vector<std::string> fixed = {};
};

const std::vector<ValueRule>& valueRules()
{
    static const std::vector<ValueRule> rules {
        { "", "--store", Values::Store },
        { "store copy", "--from", Values::Store },
        { "store copy", "--to", Values::Store },
        { "report", "--format", Values::Fixed, { "pdf", "csv", "json" } },
        { "report", "--paper", Values::Fixed, { "a4", "letter" } },
        { "report", "--state", Values::Fixed, { "queued", "running", "done", "failed", "cancelled" } },
        { "report", "--operation", Values::Operations },
        { "report", "--migration", Values::Migrations },
        { "migrations list", "--state", Values::Fixed, { "queued", "running", "finished" } },
        { "shard set-state", "id", Values::Shards },
        { "shard set-state", "state", Values::Fixed, { "active", "draining", "readonly", "retired" } },
        { "node remove", "id", Values::Nodes },
        { "operations show", "id", Values::Operations },
        { "migrate", "--to", Values::Shards },
        { "snapshot show", "id", Values::Nothing },
        { "snapshot verify", "id", Values::Nothing },
        { "snapshot delete", "id", Values::Nothing },
        { "", "id", Values::Migrations }, // migrations show, pause, ... abandon, throttle
        { "watch", "ids", Values::Migrations },
        { "", "--shard", Values::Shards },
        { "", "shard", Values::Shards },
        { "", "--into", Values::Shards },
        { "", "from", Values::Shards },
        { "", "--exclude", Values::Shards },
        { "", "--space", Values::Spaces },
        { "", "space", Values::Spaces },
        { "", "--node", Values::Nodes },
        { "", "node", Values::Nodes },
        { "", "--output", Values::Files },
        { "", "file", Values::Files },
        { "", "--file", Values::Files },
        { "", "--token-file", Values::Files },
        { "", "--controller-ca", Values::Files },
        { "", "--controller-cert", Values::Files },
        { "", "--controller-key", Values::Files },
        { "", "--node-tls-ca", Values::Files },
        { "", "--node-tls-cert", Values::Files },
        { "", "--node-tls-key", Values::Files },
    };
    return rules;
}

const ValueRule* ruleFor(const std::string& command, const std::string& name)
{
    for (const ValueRule& rule : valueRules())
        if (rule.name == name && (rule.command == command || std::string(rule.command).empty()))
            return &rule;
    return nullptr;
}

// Where the words typed so far lead: the subcommands entered, an option waiting for its value,
// the positional arguments given, and the store they name.
struct Position {
    std::vector<const CLI::App*> chain;
    std::string command; // "shard set-state"
    std::string pendingOption; // "--format" when the current word is its value
    std::string pendingCommand; // the command that option belongs to
    std::size_t positionals = 0;
    std::string store;
};

const CLI::App* subcommandNamed(const CLI::App& level, const std::string& name)
{
    const auto found = level.get_subcommands([&](const CLI::App* sub) { return sub->get_name() == name; });
    return found.empty() ? nullptr : found.front();
}

// The option among the subcommands entered, innermost first (the top's apply anywhere: fallthrough).
const CLI::Option* optionNamed(const Position& at, const std::string& name)
{
    for (auto level = at.chain.rbegin(); level != at.chain.rend(); ++level)
        if (const CLI::Option* option = (*level)->get_option_no_throw(name))
            return option;
    return nullptr;
}

std::string commandOf(const CLI::Option& option, const Position& at)
{
    for (std::size_t i = at.chain.size(); i-- > 0;)
        if (at.chain[i]->get_option_no_throw(option.get_name()) == &option) {
            std::string command;
            for (std::size_t j = 1; j <= i; ++j)
                command += (command.empty() ? "" : " ") + at.chain[j]->get_name();
            return command;
        }
    return at.command;
}

Position walk(const CLI::App& app, const std::vector<std::string>& words)
{
    Position at;
    at.chain.push_back(&app);
    for (const std::string& word : words) {
        if (!at.pendingOption.empty()) {
            if (at.pendingOption == "--store")
                at.store = word;
            at.pendingOption.clear();
            continue;
        }
        if (word.size() > 1 && word.front() == '-') {
            const auto equals = word.find('=');
            const std::string name = word.substr(0, equals);
            if (name == "--store" && equals != std::string::npos)
                at.store = word.substr(equals + 1);
            const CLI::Option* option = optionNamed(at, name);
            if (option && option->get_items_expected_max() > 0 && equals == std::string::npos) {
                at.pendingOption = option->get_name(); // -o is --output
                at.pendingCommand = commandOf(*option, at);
            }
            continue;
        }
        if (const CLI::App* sub = subcommandNamed(*at.chain.back(), word)) {
            at.chain.push_back(sub);
            at.command += (at.command.empty() ? "" : " ") + word;
            at.positionals = 0;
        } else {
            ++at.positionals;
        }
    }
    return at;
}

// The name of the positional argument the current word fills ("id", "state"), if any.
std::string positionalName(const CLI::App& level, std::size_t index)
{
    std::string name;
    std::size_t seen = 0;
    for (const CLI::Option* option : level.get_options([](const CLI::Option* o) { return o->get_positional(); })) {
        name = option->get_name();
        const int most = option->get_items_expected_max();
        seen += most > 0 ? static_cast<std::size_t>(most) : 1;
        if (index < seen)
            return name;
    }
    return {};
}

// The files and directories the path in current (after prefix, e.g. "sqlite:") may go on to.
std::vector<std::string> pathsAfter(const std::string& prefix, const std::string& current)
{
    const std::filesystem::path typed = current.substr(prefix.size());
    const std::filesystem::path directory = typed.has_parent_path() ? typed.parent_path() : ".";
    std::vector<std::string> out;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
        const std::filesystem::path shown
            = typed.has_parent_path() ? typed.parent_path() / entry.path().filename() : entry.path().filename();
        out.push_back(prefix + shown.string() + (entry.is_directory(error) ? "/" : ""));
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::string> storeValues(const std::string& current)
{
    if (current.starts_with("sqlite:"))
        return pathsAfter("sqlite:", current);
    return { "sqlite:", "etcd://" };
}

std::vector<std::string> idsFromMap(Values values, const Position& at, const CtlOptions& options)
{
    CtlOptions reading = options;
    if (!at.store.empty())
        reading.storeUri = at.store;
    reading.controller.address.clear(); // the store only: quick, and nothing to authenticate
    if (reading.storeUri.empty())
        return {};
    auto map = readMap(reading);
    if (!map)
        return {};
    std::vector<std::string> out;
    const auto keys = [&out](const auto& records) {
        for (const auto& [id, record] : records)
            out.push_back(id);
    };
    switch (values) {
    case Values::Shards: keys(map->shards); break;
    case Values::Spaces: keys(map->spaces); break;
    case Values::Nodes: keys(map->nodes); break;
    case Values::Migrations: keys(map->migrations); break;
    case Values::Operations: keys(map->operations); break;
    default: break;
    }
    return out;
}

std::vector<std::string> valuesFor(
    const ValueRule* rule, const Position& at, const CtlOptions& options, const std::string& current)
{
    if (!rule)
        return {};
    switch (rule->values) {
    case Values::Fixed: return rule->fixed;
    case Values::Store: return storeValues(current);
    case Values::Files: return pathsAfter("", current);
    case Values::Nothing: return {};
    default: return idsFromMap(rule->values, at, options);
    }
}

std::vector<std::string> optionNames(const Position& at)
{
    std::set<std::string> names;
    for (const CLI::App* level : at.chain)
        for (const CLI::Option* option : level->get_options())
            for (const std::string& name : option->get_lnames())
                names.insert("--" + name);
    return { names.begin(), names.end() };
}

std::vector<std::string> candidates(
    const CLI::App& app, const CtlOptions& options, const std::vector<std::string>& words, const std::string& current)
{
    const Position at = walk(app, words);
    if (const auto equals = current.find('='); current.starts_with("--") && equals != std::string::npos) {
        // --store=URI: the option's values, after its name.
        const CLI::Option* option = optionNamed(at, current.substr(0, equals));
        if (!option)
            return {};
        std::vector<std::string> out;
        const std::string value = current.substr(equals + 1);
        for (const std::string& candidate :
            valuesFor(ruleFor(commandOf(*option, at), option->get_name()), at, options, value))
            out.push_back(current.substr(0, equals + 1) + candidate);
        return out;
    }
    if (!at.pendingOption.empty())
        return valuesFor(ruleFor(at.pendingCommand, at.pendingOption), at, options, current);
    if (current.starts_with("-"))
        return optionNames(at);
    const CLI::App& level = *at.chain.back();
    const auto subcommands = level.get_subcommands([](const CLI::App*) { return true; });
    if (!subcommands.empty()) {
        std::vector<std::string> out;
        for (const CLI::App* sub : subcommands)
            out.push_back(sub->get_name());
        return out;
    }
    return valuesFor(ruleFor(at.command, positionalName(level, at.positionals)), at, options, current);
}

} // namespace

int printCompletions(const CLI::App& app, const CtlOptions& options, const std::vector<std::string>& args)
{
    // CURRENT WORDS...: the word completed (maybe empty), then the words before it.
    if (args.empty())
        return 2;
    const std::string& current = args.front();
    const std::vector<std::string> words(args.begin() + 1, args.end());
    for (const std::string& candidate : candidates(app, options, words, current))
        if (candidate.starts_with(current))
            std::cout << candidate << "\n";
    return 0;
}

} // namespace shardmap::app
