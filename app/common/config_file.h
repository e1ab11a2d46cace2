#pragma once

// --config FILE for the servers (shardmap-node, shardmapd): every long flag can be set in the
// file as `name = value` (TOML: strings quoted or not, numbers, true/false; `#` comments), the
// command line overriding it. The packages install /etc/shardmap/node.conf and shardmapd.conf and
// the systemd units pass them. An unknown key or a bad value is an error naming the file and the
// line, and the program exits 2 (as for any other invalid input); so is a `[section]` line.

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>

namespace shardmap::app {

class ConfigFile {
public:
    void addTo(CLI::App& app)
    {
        m_app = &app;
        m_option = app.set_config("--config", "", "Read flags from this TOML file (name = value per line)");
        app.config_formatter(std::make_shared<LineTracking>(m_lines, m_section));
        app.allow_config_extras(CLI::config_extras_mode::error);
    }

    // Says what went wrong, with FILE:LINE when it concerns a key of the file; the exit code:
    // 0 for --help/--version, 2 otherwise.
    int report(const CLI::ParseError& error, int argc, char** argv, std::ostream& err) const
    {
        if (error.get_exit_code() == 0)
            return m_app->exit(error);
        const std::string message = error.what();
        const std::string file = m_option && m_option->count() > 0 ? m_option->as<std::string>() : std::string();
        if (m_section->line > 0) {
            err << programName() << ": " << file << ":" << m_section->line << ": '" << m_section->text
                << "' starts a section; the file has none: write every key at the top as name = value\n";
            return 2;
        }
        for (const auto& [key, line] : *m_lines) {
            const bool unknown = message == "INI was not able to parse " + key;
            const bool badValue = message.starts_with("--" + key + ":") && !onCommandLine(key, argc, argv);
            if (unknown || badValue) {
                err << programName() << ": " << file << ":" << line << ": "
                    << (unknown ? "unknown key '" + key + "'" : "bad value: " + message) << "\n";
                return 2;
            }
        }
        err << programName() << ": " << message << "\n";
        if (error.get_name() == "ExtrasError" || error.get_name() == "ArgumentMismatch")
            err << "Run with --help for more information.\n";
        return 2;
    }

private:
    // The first `[section]` line of the file: the flags are top-level keys only, and CLI11 would
    // otherwise report the section's keys as "INI was not able to parse section.++".
    struct Section {
        int line = 0;
        std::string text;
    };

    // TOML as CLI11 reads it, remembering the line of each key and refusing sections.
    class LineTracking final : public CLI::ConfigBase {
    public:
        LineTracking(std::shared_ptr<std::map<std::string, int>> lines, std::shared_ptr<Section> section)
            : m_lines(std::move(lines))
            , m_section(std::move(section))
        {
        }
        std::vector<CLI::ConfigItem> from_config(std::istream& input) const override
        {
            std::stringstream text;
            text << input.rdbuf();
            std::istringstream lines(text.str());
            std::string line;
            for (int number = 1; std::getline(lines, line); ++number) {
                const auto start = line.find_first_not_of(" \t");
                const auto equals = line.find('=');
                if (start != std::string::npos && line[start] == '[') {
                    *m_section = { number, line.substr(start, line.find_last_not_of(" \t") + 1 - start) };
                    throw CLI::ConfigError("a section in the config file");
                }
                if (start == std::string::npos || line[start] == '#' || equals == std::string::npos)
                    continue;
                auto key = line.substr(start, equals - start);
                key.erase(key.find_last_not_of(" \t") + 1);
                m_lines->emplace(key, number);
            }
            std::istringstream again(text.str());
            return CLI::ConfigBase::from_config(again);
        }

    private:
        std::shared_ptr<std::map<std::string, int>> m_lines;
        std::shared_ptr<Section> m_section;
    };

    std::string programName() const { return std::filesystem::path(m_app->get_name()).filename().string(); }

    static bool onCommandLine(const std::string& key, int argc, char** argv)
    {
        for (int i = 1; i < argc; ++i) {
            const std::string arg = argv[i];
            if (arg == "--" + key || arg.starts_with("--" + key + "="))
                return true;
        }
        return false;
    }

    CLI::App* m_app = nullptr;
    CLI::Option* m_option = nullptr;
    std::shared_ptr<std::map<std::string, int>> m_lines = std::make_shared<std::map<std::string, int>>();
    std::shared_ptr<Section> m_section = std::make_shared<Section>();
};

} // namespace shardmap::app
