// shardmapctl's index template commands (issue 31): template list|show|create|diff, with --json.
// A template is created from a JSON file of index settings or from another template with edits;
// MapEditor::createTemplate checks and commits it (core/map/index_templates.h says how templates
// are named, found and compared).
#include "app/ctl/admin.h"
#include "app/ctl/command_line.h"
#include "app/ctl/output.h"
#include "core/fleet/field_usage.h"
#include "core/map/index_templates.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <fstream>
#include <ostream>
#include <sstream>

namespace shardmap::app {

using core::ErrorCode;
using nlohmann::json;

namespace {

std::string fieldsText(const core::IndexSettings& settings)
{
    std::string out;
    for (const core::IndexField& field : settings.fields) {
        std::ostringstream weight;
        weight << field.weight;
        out += (out.empty() ? "" : ", ") + field.name
            + (field.indexed ? (field.weight == 1.0 ? "" : "^" + weight.str()) : " (stored)");
    }
    return out;
}

std::string prefixList(const std::vector<std::uint32_t>& prefixes)
{
    std::string out;
    for (std::uint32_t length : prefixes)
        out += (out.empty() ? "" : " ") + std::to_string(length);
    return out.empty() ? "-" : out;
}

json templateJson(const core::IndexTemplateRecord& record, const std::vector<std::string>& shards)
{
    return { { "name", record.name }, { "version", record.version },
        { "settings", json::parse(core::encodeIndexSettings(record.settings)) }, { "description", record.description },
        { "created_by", record.createdBy }, { "created_unix_ms", record.createdUnixMs }, { "shards", shards } };
}

// --weight FIELD=W: the field and its weight.
core::Result<std::pair<std::string, double>> parseWeight(const std::string& text)
{
    const auto equals = text.find('=');
    if (equals == std::string::npos)
        return core::makeError(ErrorCode::InvalidArgument, "--field takes NAME or NAME=WEIGHT, not '" + text + "'");
    try {
        std::size_t used = 0;
        const double weight = std::stod(text.substr(equals + 1), &used);
        if (used == text.size() - equals - 1)
            return std::pair { text.substr(0, equals), weight };
    } catch (const std::exception&) {
    }
    return core::makeError(ErrorCode::InvalidArgument, "the weight in '" + text + "' is not a number");
}

core::Result<std::vector<std::uint32_t>> parsePrefixes(const std::string& text)
{
    std::vector<std::uint32_t> out;
    if (text == "none")
        return out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        try {
            std::size_t used = 0;
            const unsigned long length = std::stoul(item, &used);
            if (used == item.size()) {
                out.push_back(static_cast<std::uint32_t>(length));
                continue;
            }
        } catch (const std::exception&) {
        }
        return core::makeError(
            ErrorCode::InvalidArgument, "--prefixes takes lengths like 2,3 or none, not '" + text + "'");
    }
    return out;
}

// The template a NAME or NAME:VERSION names in the map.
core::Result<core::IndexTemplateRecord> namedTemplate(const core::MapSnapshot& map, const std::string& text)
{
    auto ref = core::parseTemplateRef(text);
    if (!ref)
        return ref.error();
    return core::findTemplate(map, *ref);
}

core::Result<core::IndexSettings> startingSettings(const core::MapSnapshot& map, const TemplateEdits& edits)
{
    if (!edits.file.empty()) {
        std::ifstream in(edits.file);
        if (!in)
            return core::makeError(ErrorCode::NotFound, "cannot read " + edits.file);
        std::stringstream text;
        text << in.rdbuf();
        return core::decodeIndexSettings(text.str());
    }
    auto found = namedTemplate(map, edits.like.empty() ? std::string(core::kDefaultTemplateName) : edits.like);
    if (!found)
        return found.error();
    return found->settings;
}

core::IndexField* fieldNamed(core::IndexSettings& settings, const std::string& name)
{
    auto found = std::find_if(
        settings.fields.begin(), settings.fields.end(), [&](const core::IndexField& f) { return f.name == name; });
    return found == settings.fields.end() ? nullptr : &*found;
}

// The edits in the order an administrator reads them: fields removed, added or reweighted, stored
// only, then the tokenizer and the prefixes.
core::Status applyEdits(core::IndexSettings& settings, const TemplateEdits& edits)
{
    for (const std::string& name : edits.removeFields) {
        if (!settings.field(name))
            return core::makeError(
                ErrorCode::InvalidArgument, "--remove-field " + name + ": there is no field " + name);
        std::erase_if(settings.fields, [&](const core::IndexField& f) { return f.name == name; });
    }
    for (const std::string& text : edits.fields) {
        auto weighted = text.find('=') == std::string::npos
            ? core::Result<std::pair<std::string, double>>({ text, 1.0 })
            : parseWeight(text);
        if (!weighted)
            return weighted.error();
        core::IndexField* existing = fieldNamed(settings, weighted->first);
        if (existing)
            *existing = { weighted->first, true, weighted->second };
        else
            settings.fields.push_back({ weighted->first, true, weighted->second });
    }
    for (const std::string& name : edits.storedFields) {
        core::IndexField* existing = fieldNamed(settings, name);
        if (existing)
            *existing = { name, false, 1.0 };
        else
            settings.fields.push_back({ name, false, 1.0 });
    }
    return {};
}

core::Status applyTokenizerEdits(core::IndexSettings& settings, const TemplateEdits& edits)
{
    if (!edits.tokenizer.empty()) {
        auto tokenizer = core::parseTokenizer(edits.tokenizer);
        if (!tokenizer)
            return tokenizer.error();
        settings.tokenizer = *tokenizer;
        if (*tokenizer == core::Tokenizer::Trigram) {
            // What unicode61's options were do not carry over to trigram.
            settings.tokenChars.clear();
            settings.removeDiacritics = 2;
            if (edits.prefixes.empty())
                settings.prefixes.clear();
        }
    }
    if (edits.removeDiacritics)
        settings.removeDiacritics = *edits.removeDiacritics;
    if (edits.tokenChars)
        settings.tokenChars = *edits.tokenChars;
    if (edits.caseSensitive)
        settings.caseSensitive = true;
    if (!edits.prefixes.empty()) {
        auto prefixes = parsePrefixes(edits.prefixes);
        if (!prefixes)
            return prefixes.error();
        settings.prefixes = *prefixes;
    }
    return {};
}

// The settings a create asks for: the file's or the template's, with the edits applied.
core::Result<core::IndexSettings> editedSettings(const core::MapSnapshot& map, const TemplateEdits& edits)
{
    auto settings = startingSettings(map, edits);
    if (!settings)
        return settings.error();
    if (auto edited = applyEdits(*settings, edits); !edited)
        return edited.error();
    if (auto edited = applyTokenizerEdits(*settings, edits); !edited)
        return edited.error();
    return settings;
}

} // namespace

CommandResult cmdTemplateList(const CtlOptions& options)
{
    auto map = readMap(options);
    if (!map)
        return map.error();
    json out = json::array();
    Table table({ "TEMPLATE", "TOKENIZER", "FIELDS", "PREFIXES", "SHARDS", "CREATED BY" });
    for (const core::IndexTemplateRecord& record : core::templatesOf(*map)) {
        const auto shards = core::shardsBuiltWith(*map, record.name, record.version);
        out.push_back(templateJson(record, shards));
        table.addRow({ core::templateLabel(record.name, record.version), core::tokenizerName(record.settings.tokenizer),
            fieldsText(record.settings), prefixList(record.settings.prefixes), std::to_string(shards.size()),
            record.createdBy.empty() ? "(built in)" : record.createdBy });
    }
    return CommandOutput { json { { "revision", map->revision }, { "templates", out } },
        [table](std::ostream& stream) { table.print(stream); } };
}

CommandResult cmdTemplateShow(const CtlOptions& options, const std::string& name)
{
    auto map = readMap(options);
    if (!map)
        return map.error();
    auto found = namedTemplate(*map, name);
    if (!found)
        return found.error();
    const auto shards = core::shardsBuiltWith(*map, found->name, found->version);
    Table fields({ "FIELD", "INDEXED", "WEIGHT" });
    for (const core::IndexField& field : found->settings.fields) {
        std::ostringstream weight;
        weight << field.weight;
        fields.addRow({ field.name, field.indexed ? "yes" : "stored only", field.indexed ? weight.str() : "-" });
    }
    const core::IndexSettings& s = found->settings;
    std::string tokenizer = core::tokenizerName(s.tokenizer);
    tokenizer += s.tokenizer == core::Tokenizer::Trigram ? (s.caseSensitive ? ", case sensitive" : ", case folded")
                                                         : ", remove_diacritics " + std::to_string(s.removeDiacritics)
            + (s.tokenChars.empty() ? "" : ", token characters \"" + s.tokenChars + "\"");
    const std::string header = "template " + core::templateLabel(found->name, found->version)
        + (found->description.empty() ? "" : ": " + found->description);
    std::string shardList;
    for (const auto& shard : shards)
        shardList += (shardList.empty() ? "" : ", ") + shard;
    return CommandOutput { templateJson(*found, shards), [=](std::ostream& out) {
                              out << header << "\n";
                              fields.print(out);
                              out << "tokenizer: " << tokenizer << "\nprefix indexes: " << prefixList(s.prefixes)
                                  << "\nshards built with it: " << (shardList.empty() ? "none" : shardList) << "\n";
                          } };
}

namespace {

// With --controller: the settings made from the map as shardmapd serves it, sent as create-template
// (an admin's change; the roles and the approval policy are shardmapd's).
CommandResult templateCreateViaController(
    const CtlOptions& options, const std::string& name, const TemplateEdits& edits)
{
    auto map = readMap(options);
    if (!map)
        return map.error();
    auto settings = editedSettings(*map, edits);
    if (!settings)
        return settings.error();
    if (auto valid = core::validateIndexSettings(*settings); !valid)
        return valid.error();
    v1::AdminChange change;
    change.mutable_create_template()->set_name(name);
    change.mutable_create_template()->set_settings_json(core::encodeIndexSettings(*settings));
    change.mutable_create_template()->set_description(edits.description);
    return changeViaController(options, change);
}

} // namespace

CommandResult cmdTemplateCreate(const CtlOptions& options, const std::string& name, const TemplateEdits& edits)
{
    if (!edits.file.empty() && !edits.like.empty())
        return core::makeError(ErrorCode::InvalidArgument, "give --file or --like, not both");
    if (viaController(options))
        return templateCreateViaController(options, name, edits);
    return withAdmin(options, [&](core::FleetAdmin& admin) -> CommandResult {
        auto map = admin.map().snapshot();
        if (!map)
            return map.error();
        auto settings = editedSettings(*map, edits);
        if (!settings)
            return settings.error();
        auto created = admin.map().createTemplate(name, *settings, edits.description, options.actor);
        if (!created)
            return created.error();
        const std::string what = "index template " + core::templateLabel(created->name, created->version) + " created";
        json out = templateJson(*created, {});
        out["result"] = what;
        std::vector<std::string> changes;
        if (created->version > 1) {
            auto previous = core::findTemplate(*map, { name, created->version - 1 });
            if (previous)
                changes = core::diffIndexSettings(previous->settings, created->settings);
        }
        out["changes"] = changes;
        return CommandOutput { out, [what, changes](std::ostream& stream) {
                                  stream << what << "\n";
                                  for (const auto& line : changes)
                                      stream << "  " << line << "\n";
                              } };
    });
}

CommandResult cmdTemplateDiff(const CtlOptions& options, const std::string& from, const std::string& to)
{
    auto map = readMap(options);
    if (!map)
        return map.error();
    auto fromRef = core::parseTemplateRef(from);
    if (!fromRef)
        return fromRef.error();
    auto toRef = core::parseTemplateRef(to);
    if (!toRef)
        return toRef.error();
    auto a = core::findTemplate(*map, *fromRef);
    if (!a)
        return a.error();
    auto b = core::findTemplate(*map, *toRef);
    if (!b)
        return b.error();
    const auto lines = core::diffIndexSettings(a->settings, b->settings);
    // A dropped field: which spaces of the shards built with the first template hold documents in it.
    std::vector<std::string> inUse;
    if (const auto removed = core::removedFields(a->settings, b->settings); !removed.empty()) {
        core::NodeClientPool pool(nodeClientOptions(options));
        inUse = core::describeRemovedFieldsInUse(core::findRemovedFieldsInUse(pool, *map, a->name, removed));
    }
    const std::string header
        = core::templateLabel(a->name, a->version) + " -> " + core::templateLabel(b->name, b->version);
    return CommandOutput { json { { "from", core::templateLabel(a->name, a->version) },
                               { "to", core::templateLabel(b->name, b->version) }, { "changes", lines },
                               { "removed_fields_in_use", inUse } },
        [header, lines, inUse](std::ostream& out) {
            out << header << ": "
                << (lines.empty() ? "the same index settings" : std::to_string(lines.size()) + " change(s)") << "\n";
            for (const auto& line : lines)
                out << "  " << line << "\n";
            for (const auto& line : inUse)
                out << "  " << line << "\n";
        } };
}

void addTemplateCommands(CLI::App& app, const CtlOptions& options, CommandResult& result)
{
    auto run = runInto(result);
    static std::string name, other;
    static TemplateEdits edits;
    auto* group
        = app.add_subcommand("template", "Index templates: what shards' indexes are built with")->require_subcommand(1);
    group->add_subcommand("list", "Every template version with its tokenizer, fields and shards")->callback(run([&] {
        return cmdTemplateList(options);
    }));
    auto* show = group->add_subcommand("show", "One template's fields, tokenizer, prefixes and shards");
    show->add_option("template", name, "NAME or NAME:VERSION (default: the newest)")->required();
    show->callback(run([&] { return cmdTemplateShow(options, name); }));
    auto* diff = group->add_subcommand("diff", "How one template's settings differ from another's");
    diff->add_option("from", name, "NAME or NAME:VERSION")->required();
    diff->add_option("to", other, "NAME or NAME:VERSION")->required();
    diff->callback(run([&] { return cmdTemplateDiff(options, name, other); }));
    auto* create = group->add_subcommand(
        "create", "The next version of a template (or its first), from a settings file or another template with edits");
    create->add_option("name", name, "Template name (a-z, 0-9, '-', '_')")->required();
    create->add_option("--file", edits.file, "JSON index settings (fields, tokenizer, prefixes)");
    create->add_option("--like", edits.like, "Start from this template (NAME[:VERSION]; default: default)");
    create->add_option("--field", edits.fields, "Add or reweight an indexed field: NAME or NAME=WEIGHT (repeatable)");
    create->add_option("--stored-field", edits.storedFields, "A field kept and returned but not searched");
    create->add_option(
        "--remove-field", edits.removeFields, "Remove a field (its values are then searched as other text)");
    create->add_option("--tokenizer", edits.tokenizer, "unicode61, porter (English stemming) or trigram (substrings)");
    create->add_option("--remove-diacritics", edits.removeDiacritics, "unicode61/porter: 0, 1 or 2");
    create->add_option("--token-chars", edits.tokenChars, "unicode61/porter: punctuation that belongs to words");
    create->add_flag("--case-sensitive", edits.caseSensitive, "trigram: case counts");
    create->add_option("--prefixes", edits.prefixes, "Prefix index lengths, e.g. 2,3, or none");
    create->add_option("--description", edits.description, "What the template is for");
    create->callback(run([&] { return cmdTemplateCreate(options, name, edits); }));
}

} // namespace shardmap::app
