// Index templates in the shard map (core/map/index_templates.h): codec, names, lookups and the
// diff of two templates' settings.
#include "core/map/index_templates.h"

#include "core/util/json_input.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace shardmap::core {

namespace {

constexpr std::size_t kMaxTemplateName = 64;

// "1", "2.5": a weight as people write it.
std::string weightText(double weight)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", weight);
    return buffer;
}

std::string prefixesText(const std::vector<std::uint32_t>& prefixes)
{
    if (prefixes.empty())
        return "none";
    std::string out;
    for (std::uint32_t length : prefixes)
        out += (out.empty() ? "" : " ") + std::to_string(length);
    return out;
}

std::string tokenizerText(const IndexSettings& s)
{
    if (s.tokenizer == Tokenizer::Trigram)
        return std::string("trigram") + (s.caseSensitive ? " (case sensitive)" : "");
    return std::string(tokenizerName(s.tokenizer)) + " (remove_diacritics " + std::to_string(s.removeDiacritics)
        + (s.tokenChars.empty() ? "" : ", token characters \"" + s.tokenChars + "\"") + ")";
}

void diffFields(const IndexSettings& from, const IndexSettings& to, std::vector<std::string>& lines)
{
    for (const IndexField& field : to.fields) {
        const IndexField* before = from.field(field.name);
        if (!before) {
            lines.push_back("field " + field.name + " added"
                + (field.indexed ? " (indexed, weight " + weightText(field.weight) + ")" : " (stored only)"));
        } else if (before->indexed != field.indexed) {
            lines.push_back("field " + field.name
                + (field.indexed ? " indexed (was stored only), weight " + weightText(field.weight)
                                 : " stored only (was indexed): its values are kept and returned but no longer "
                                   "searched"));
        } else if (field.indexed && before->weight != field.weight) {
            lines.push_back(
                "field " + field.name + " weight " + weightText(before->weight) + " -> " + weightText(field.weight));
        }
    }
    for (const IndexField& field : from.fields) {
        if (!to.field(field.name))
            lines.push_back("field " + field.name
                + " removed: documents keep its values, which are searched as other text (no longer by " + field.name
                + ":term)");
    }
}

} // namespace

std::string encode(const IndexTemplateRecord& record)
{
    return nlohmann::json {
        { "name", record.name }, { "version", record.version },
        { "settings", nlohmann::json::parse(encodeIndexSettings(record.settings)) },
        { "description", record.description }, { "created_by", record.createdBy },
        { "created_unix_ms", record.createdUnixMs }
    }.dump();
}

Result<IndexTemplateRecord> decodeIndexTemplate(const std::string& text)
{
    auto parsed = readJsonInput(text, "the index template record");
    if (!parsed)
        return parsed.error();
    IndexTemplateRecord record;
    try {
        const nlohmann::json& doc = *parsed;
        record.name = doc.at("name").get<std::string>();
        record.version = doc.at("version").get<std::uint32_t>();
        auto settings = decodeIndexSettings(doc.at("settings").dump());
        if (!settings)
            return makeError(settings.error().code, "template " + record.name + ": " + settings.error().message);
        record.settings = std::move(*settings);
        record.description = doc.value("description", std::string());
        record.createdBy = doc.value("created_by", std::string());
        record.createdUnixMs = doc.value("created_unix_ms", std::int64_t { 0 });
    } catch (const nlohmann::json::exception& e) {
        return makeError(ErrorCode::InvalidArgument, std::string("malformed index template record: ") + e.what());
    }
    return record;
}

const IndexTemplateRecord& defaultIndexTemplate()
{
    static const IndexTemplateRecord record { kDefaultTemplateName, 1, defaultIndexSettings(),
        "today's index: title, body and tags; unicode61; prefixes 2 and 3", "", 0 };
    return record;
}

Status validateTemplateName(std::string_view name)
{
    const auto allowed
        = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'; };
    if (name.empty() || name.size() > kMaxTemplateName || name.front() < 'a' || name.front() > 'z'
        || !std::all_of(name.begin(), name.end(), allowed))
        return makeError(ErrorCode::InvalidArgument,
            "template name '" + std::string(name)
                + "' must be 1-64 characters of a-z, 0-9, '-' and '_', starting with a letter");
    return {};
}

Result<TemplateRef> parseTemplateRef(std::string_view text)
{
    TemplateRef ref;
    const auto colon = text.find(':');
    ref.name = std::string(text.substr(0, colon));
    if (auto valid = validateTemplateName(ref.name); !valid)
        return valid.error();
    if (colon != std::string_view::npos) {
        const std::string_view number = text.substr(colon + 1);
        const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), ref.version);
        if (ec != std::errc() || end != number.data() + number.size() || ref.version == 0)
            return makeError(ErrorCode::InvalidArgument,
                "template version '" + std::string(number) + "' must be a number from 1 (NAME or NAME:VERSION)");
    }
    return ref;
}

std::string templateLabel(const std::string& name, std::uint32_t version)
{
    return name + ":" + std::to_string(version);
}

std::vector<IndexTemplateRecord> templatesOf(const MapSnapshot& map)
{
    std::vector<IndexTemplateRecord> out { defaultIndexTemplate() };
    for (const auto& [key, record] : map.templates) {
        if (record.value.name != kDefaultTemplateName || record.value.version != 1)
            out.push_back(record.value);
    }
    return out;
}

Result<IndexTemplateRecord> findTemplate(const MapSnapshot& map, const TemplateRef& ref)
{
    std::vector<IndexTemplateRecord> versions;
    for (const IndexTemplateRecord& record : templatesOf(map)) {
        if (record.name == ref.name)
            versions.push_back(record);
    }
    if (versions.empty())
        return makeError(ErrorCode::NotFound, "no index template " + ref.name + " in the shard map");
    if (ref.version == 0)
        return versions.back();
    for (const IndexTemplateRecord& record : versions) {
        if (record.version == ref.version)
            return record;
    }
    return makeError(ErrorCode::NotFound,
        "index template " + ref.name + " has no version " + std::to_string(ref.version) + "; its newest is "
            + std::to_string(versions.back().version));
}

TemplateRef templateOf(const ShardRecord& shard)
{
    if (shard.templateName.empty())
        return { kDefaultTemplateName, 1 };
    return { shard.templateName, shard.templateVersion == 0 ? 1 : shard.templateVersion };
}

std::vector<std::string> shardsBuiltWith(const MapSnapshot& map, const std::string& name, std::uint32_t version)
{
    std::vector<std::string> out;
    for (const auto& [id, shard] : map.shards) {
        const TemplateRef ref = templateOf(shard.value);
        if (ref.name == name && ref.version == version)
            out.push_back(id);
    }
    return out;
}

std::vector<std::string> diffIndexSettings(const IndexSettings& from, const IndexSettings& to)
{
    std::vector<std::string> lines;
    diffFields(from, to, lines);
    if (tokenizerText(from) != tokenizerText(to))
        lines.push_back("tokenizer " + tokenizerText(from) + " -> " + tokenizerText(to));
    if (from.prefixes != to.prefixes)
        lines.push_back("prefix indexes " + prefixesText(from.prefixes) + " -> " + prefixesText(to.prefixes));
    if (lines.empty() && from.fieldNames() != to.fieldNames())
        lines.push_back("the same fields in another order");
    return lines;
}

} // namespace shardmap::core
