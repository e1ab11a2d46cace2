#include "doc_commands.h"

#include "ctl_run.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <unistd.h>

namespace shardmap::testing {

namespace {

struct Token {
    std::string text;
    bool op = false; // && || | ; &
    bool redirect = false; // > file, 2>&1, < file
};

// A redirection whose target is the next word: ">", "2>>", "<".
bool startsRedirect(const std::string& word)
{
    return std::regex_match(word, std::regex(R"(\d*(>>?|<|&>))"));
}

bool digitsOnly(const std::string& word)
{
    return std::all_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// One line of shell split into words and operators, quotes removed, from an unquoted # on dropped.
class Tokenizer final {
public:
    explicit Tokenizer(const std::string& line)
        : m_line(line)
    {
    }

    std::vector<Token> tokens()
    {
        for (m_at = 0; m_at < m_line.size(); ++m_at) {
            const char c = m_line[m_at];
            if (c == '#' && !m_inWord)
                break;
            if (c == ' ' || c == '\t')
                flush();
            else if (c == '\'' || c == '"')
                quoted(c);
            else if (c == '\\' && m_at + 1 < m_line.size())
                append(m_line[++m_at]);
            else if (c == '$' && m_at + 1 < m_line.size() && m_line[m_at + 1] == '(')
                substitution();
            else if (c == '&' && m_word.ends_with(">"))
                append(c);
            else if (c == '|' || c == ';' || c == '&')
                op(c);
            else if (c == '>' || c == '<')
                redirection(c);
            else
                append(c);
        }
        flush();
        return std::move(m_tokens);
    }

private:
    void append(char c)
    {
        m_word += c;
        m_inWord = true;
    }
    void flush()
    {
        if (m_inWord)
            m_tokens.push_back({ m_word, false, m_redirect });
        m_word.clear();
        m_inWord = m_redirect = false;
    }
    // "2>&1", "> file", ">file": a word of its own unless it follows a file descriptor's digits.
    void redirection(char c)
    {
        const bool doubled = m_redirect && (m_word.ends_with(">") || m_word.ends_with("<"));
        if (!doubled && (!digitsOnly(m_word) || m_redirect))
            flush();
        append(c);
        m_redirect = true;
    }
    void quoted(char quote)
    {
        m_inWord = true;
        for (++m_at; m_at < m_line.size() && m_line[m_at] != quote; ++m_at) {
            if (quote == '"' && m_line[m_at] == '\\' && m_at + 1 < m_line.size())
                ++m_at;
            m_word += m_line[m_at];
        }
    }
    void substitution()
    {
        int depth = 0;
        for (; m_at < m_line.size(); ++m_at) {
            append(m_line[m_at]);
            depth += m_line[m_at] == '(' ? 1 : m_line[m_at] == ')' ? -1 : 0;
            if (m_line[m_at] == ')' && depth == 0)
                break;
        }
    }
    void op(char c)
    {
        flush();
        std::string text(1, c);
        if ((c == '&' || c == '|') && m_at + 1 < m_line.size() && m_line[m_at + 1] == c)
            text += m_line[++m_at];
        m_tokens.push_back({ text, true, false });
    }

    const std::string& m_line;
    std::size_t m_at = 0;
    std::string m_word;
    bool m_inWord = false;
    bool m_redirect = false;
    std::vector<Token> m_tokens;
};

// Lines as bash reads them: continuations joined.
std::vector<std::string> logicalLines(const std::string& script)
{
    std::vector<std::string> lines;
    std::istringstream in(script);
    std::string line;
    bool continued = false;
    while (std::getline(in, line)) {
        const bool continues = line.ends_with("\\");
        if (continues)
            line.pop_back();
        if (continued)
            lines.back() += " " + line;
        else
            lines.push_back(line);
        continued = continues;
    }
    return lines;
}

std::string expand(std::string line, const std::map<std::string, std::string>& variables)
{
    for (const auto& [name, value] : variables) {
        const std::regex use("\\$(" + name + "\\b|\\{" + name + "\\})");
        line = std::regex_replace(line, use, std::regex_replace(value, std::regex(R"(\$)"), "$$$$"));
    }
    return line;
}

const std::set<std::string> kKeywords { "if", "then", "else", "elif", "while", "until", "do", "!", "time" };
const std::set<std::string> kClosers { "fi", "done" };
const std::set<std::string> kBuiltins { "cd", "echo", "export", "test", "[", "true", "false", "set", "exit", "kill",
    "wait", "source", ".", "sleep", "unset", "printf", "read", "trap", "jobs" };

bool isAssignment(const std::string& word)
{
    return std::regex_search(word, std::regex("^[A-Za-z_][A-Za-z0-9_]*="));
}

// Adds the simple commands of one line's tokens to out; NAME=VALUE alone sets a variable.
void addCommands(const std::vector<Token>& tokens, const std::string& line,
    std::map<std::string, std::string>& variables, std::vector<DocCommand>& out)
{
    std::vector<std::string> words;
    const auto finish = [&] {
        while (!words.empty() && kKeywords.contains(words.front()))
            words.erase(words.begin());
        if (!words.empty() && !kClosers.contains(words.front()))
            out.push_back({ words, line });
        words.clear();
    };
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const Token& token = tokens[i];
        if (token.op) {
            finish();
        } else if (token.redirect) {
            i += startsRedirect(token.text) ? 1 : 0;
        } else if (words.empty() && isAssignment(token.text)) {
            const auto equals = token.text.find('=');
            variables[token.text.substr(0, equals)] = token.text.substr(equals + 1);
        } else {
            words.push_back(token.text);
        }
    }
    finish();
}

DocHelp parseHelp(const std::string& text)
{
    DocHelp help;
    const std::regex anyOption(R"((?:^|[\s,\[])(--?[A-Za-z][A-Za-z0-9_-]*))");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), anyOption); it != std::sregex_iterator(); ++it)
        help.options.insert((*it)[1]);
    // "  -o,--output TEXT  ..." (CLI11), "  --store <uri>  ..." (Qt), "[--benchmark_filter=<regex>]".
    const std::regex optionLine(R"(^\s*((?:--?[A-Za-z0-9][\w-]*)(?:,\s*--?[A-Za-z0-9][\w-]*)*)( ?[<A-Z=[].*)?$)");
    const std::regex valued(R"(^( ?<|=| [A-Z]{2,}|\[=))");
    std::istringstream in(text);
    std::string line, section;
    while (std::getline(in, line)) {
        if (!line.empty() && line[0] != ' ' && line.ends_with(":")) {
            section = line;
            help.positionals = help.positionals || line == "Positionals:";
            continue;
        }
        std::smatch match;
        if (section == "Subcommands:" && std::regex_search(line, match, std::regex(R"(^\s+([a-z][\w-]*))")))
            help.subcommands.insert(match[1]);
        if (!std::regex_match(line, match, optionLine))
            continue;
        const std::string names = match[1], rest = match[2];
        if (!std::regex_search(rest, valued))
            continue;
        std::istringstream list(names);
        for (std::string name; std::getline(list, name, ',');)
            help.valued.insert(name.substr(name.find('-')));
    }
    return help;
}

nlohmann::json presetsOf(const std::string& sourceDir)
{
    std::ifstream file(sourceDir + "/CMakePresets.json");
    return nlohmann::json::parse(file, nullptr, false);
}

bool hasPreset(const std::string& sourceDir, const std::string& kind, const std::string& name)
{
    const auto presets = presetsOf(sourceDir);
    if (!presets.is_object() || !presets.contains(kind))
        return false;
    return std::any_of(presets[kind].begin(), presets[kind].end(), [&](const auto& p) { return p["name"] == name; });
}

bool inCache(const std::string& buildDir, const std::string& variable)
{
    const std::string cache = readWholeFile(buildDir + "/CMakeCache.txt");
    return cache.find("\n" + variable + ":") != std::string::npos;
}

} // namespace

std::string docScript(const DocBlock& block)
{
    if (block.language != "console")
        return block.text;
    std::string script;
    std::istringstream in(block.text);
    for (std::string line; std::getline(in, line);) {
        if (line.starts_with("$ "))
            script += line.substr(2) + "\n";
    }
    return script;
}

std::vector<DocCommand> docCommands(const DocBlock& block)
{
    std::vector<DocCommand> commands;
    std::map<std::string, std::string> variables;
    for (const auto& line : logicalLines(docScript(block))) {
        const auto tokens = Tokenizer(expand(line, variables)).tokens();
        addCommands(tokens, line, variables, commands);
    }
    return commands;
}

DocCommandChecker::DocCommandChecker(Setup setup)
    : m_setup(std::move(setup))
{
}

std::vector<std::string> DocCommandChecker::problems(const DocCommand& command)
{
    std::vector<std::string> out;
    const std::string& program = command.words.front();
    if (kBuiltins.contains(program))
        return out;
    const std::string file = resolve(program, out);
    if (!file.empty())
        checkOptions(command, file, out);
    const std::string name = std::filesystem::path(program).filename();
    if (name == "cmake" || name == "ctest" || name == "ninja")
        checkBuildTool(command, out);
    return out;
}

// The built program to ask for --help, "" for one found elsewhere or missing (said in out).
std::string DocCommandChecker::resolve(const std::string& program, std::vector<std::string>& out) const
{
    const std::filesystem::path path(program);
    const std::string name = path.filename();
    const bool bench = path.parent_path().filename() == "bench";
    const bool isPath = program.find('/') != std::string::npos;
    if (!isPath || bench) {
        if (const auto built = m_setup.programs.find(name); built != m_setup.programs.end())
            return built->second;
    }
    // One this configuration leaves out (SHARDMAP_BUILD_BENCH, SHARDMAP_CORE_ONLY) still has its source.
    if (bench) {
        if (!std::filesystem::exists(m_setup.sourceDir + "/bench/" + name + ".cpp"))
            out.push_back(program + ": bench/ has no program " + name
                + " (tests/integration/CMakeLists.txt lists the bench programs the test knows)");
        return {};
    }
    if (isPath) {
        const std::string inTree = m_setup.sourceDir + "/" + program;
        if (::access(inTree.c_str(), X_OK) != 0)
            out.push_back(program + ": no such executable in the source tree");
        return {};
    }
    if (name == "shardmap" && !std::filesystem::exists(m_setup.sourceDir + "/app/console"))
        out.push_back("shardmap: the tree has no console");
    if (name == "shardmap")
        return {}; // a build without the console (SHARDMAP_CORE_ONLY)
    for (const char* dir : { "/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin" }) {
        if (::access((std::string(dir) + "/" + name).c_str(), X_OK) == 0)
            return {};
    }
    out.push_back(program + ": not a program of this build, nor on the PATH");
    return {};
}

const DocHelp& DocCommandChecker::help(const std::vector<std::string>& path)
{
    if (const auto known = m_help.find(path); known != m_help.end())
        return known->second;
    static TempDir dir;
    std::vector<std::string> argv = path;
    argv.push_back("--help");
    const auto run = runProgram(dir, argv, { "QT_QPA_PLATFORM=offscreen", "LC_ALL=C.UTF-8", "LANGUAGE=" }, "help");
    DocHelp parsed = parseHelp(run.out + run.err);
    parsed.ok = run.code == 0;
    return m_help[path] = parsed;
}

// The subcommands named must exist (each `PROGRAM SUB... --help` exits 0) and every option must be
// one that the program or a subcommand on the way has.
void DocCommandChecker::checkOptions(const DocCommand& command, const std::string& file, std::vector<std::string>& out)
{
    std::vector<std::string> path { file };
    std::vector<const DocHelp*> levels { &help(path) };
    std::string said = std::filesystem::path(command.words.front()).filename();
    if (!levels.back()->ok)
        out.push_back(said + " --help fails");
    bool descending = true;
    for (std::size_t i = 1; i < command.words.size(); ++i) {
        const std::string& word = command.words[i];
        if (word.starts_with("-") && word.size() > 1) {
            const std::string name = word.substr(0, word.find('='));
            const auto has = [&](auto set) {
                return std::any_of(
                    levels.begin(), levels.end(), [&](const DocHelp* h) { return (h->*set).contains(name); });
            };
            if (!has(&DocHelp::options))
                out.push_back(said + " has no option " + name + " (in: " + command.line + ")");
            i += word.find('=') == std::string::npos && has(&DocHelp::valued) ? 1 : 0;
        } else if (descending && levels.back()->subcommands.contains(word)) {
            path.push_back(word);
            said += " " + word;
            levels.push_back(&help(path));
            if (!levels.back()->ok)
                out.push_back(said + " --help fails");
        } else {
            if (descending && !levels.back()->subcommands.empty() && !levels.back()->positionals)
                out.push_back("'" + word + "' is not a subcommand of " + said + " (in: " + command.line + ")");
            descending = false;
        }
    }
}

bool DocCommandChecker::hasTarget(const std::string& target)
{
    if (m_setup.ninja.empty())
        return true;
    if (m_targets.empty()) {
        static TempDir dir;
        const auto run
            = runProgram(dir, { m_setup.ninja, "-C", m_setup.buildDir, "-t", "targets", "all" }, {}, "ninja");
        std::istringstream in(run.out);
        for (std::string line; std::getline(in, line);)
            m_targets.insert(line.substr(0, line.find(':')));
    }
    return m_targets.contains(target);
}

// cmake and ctest: presets the tree defines, -D variables the build knows, targets it has; ninja:
// targets.
void DocCommandChecker::checkBuildTool(const DocCommand& command, std::vector<std::string>& out)
{
    const auto& words = command.words;
    const std::string tool = std::filesystem::path(words.front()).filename();
    const bool build = std::find(words.begin(), words.end(), "--build") != words.end();
    bool targets = false;
    for (std::size_t i = 1; i < words.size(); ++i) {
        const std::string& word = words[i];
        const std::string next = i + 1 < words.size() ? words[i + 1] : "";
        if (word == "--preset") {
            const std::string kind = tool == "ctest" ? "testPresets" : build ? "buildPresets" : "configurePresets";
            if (!hasPreset(m_setup.sourceDir, kind, next))
                out.push_back("CMakePresets.json has no " + kind + " entry " + next);
            ++i;
        } else if (word.starts_with("-D") && tool == "cmake") {
            const std::string definition = word == "-D" ? next : word.substr(2);
            const std::string variable = definition.substr(0, definition.find('='));
            if (!variable.starts_with("CMAKE_") && !inCache(m_setup.buildDir, variable))
                out.push_back("the build has no cache variable " + variable);
            i += word == "-D" ? 1 : 0;
        } else if (word == "--target") {
            targets = true;
        } else if (tool == "ninja" && (word == "-C" || word == "-j")) {
            ++i;
        } else if (word.starts_with("-")) {
            targets = false;
        } else if ((targets || tool == "ninja") && !hasTarget(word)) {
            out.push_back("the build has no target " + word + " (in: " + command.line + ")");
        }
    }
}

} // namespace shardmap::testing
