// The index settings' one check, their JSON form and today's default (core/util/index_settings.h).
#include "core/util/index_settings.h"

#include "core/util/json_input.h"
#include "core/util/validation.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

namespace shardmap::core {

namespace {

constexpr std::string_view kTokenCharsAllowed = "-_.@#+&/:";

void fieldProblems(const IndexSettings& settings, std::vector<std::string>& problems)
{
    std::set<std::string> seen;
    std::size_t indexed = 0;
    for (const IndexField& field : settings.fields) {
        if (auto named = validateFieldName(field.name); !named)
            problems.push_back(named.error().message);
        if (!seen.insert(field.name).second)
            problems.push_back("field " + field.name + " is named twice");
        if (field.indexed) {
            ++indexed;
            if (!std::isfinite(field.weight) || field.weight < kMinFieldWeight || field.weight > kMaxFieldWeight)
                problems.push_back("field " + field.name + " has weight " + std::to_string(field.weight)
                    + "; a weight is from 0.01 to 100");
        } else if (field.weight != 1.0) {
            problems.push_back("field " + field.name + " is stored only and is never searched, so it takes no weight");
        }
    }
    if (settings.fields.empty())
        problems.push_back("an index needs at least one field");
    else if (indexed == 0)
        problems.push_back("no field is indexed, so nothing could be searched");
    if (settings.fields.size() > kMaxIndexFields)
        problems.push_back("an index has at most " + std::to_string(kMaxIndexFields) + " fields, not "
            + std::to_string(settings.fields.size()));
}

void tokenizerProblems(const IndexSettings& settings, std::vector<std::string>& problems)
{
    const bool trigram = settings.tokenizer == Tokenizer::Trigram;
    if (trigram) {
        if (!settings.tokenChars.empty())
            problems.push_back("token characters apply to unicode61 and porter, not to trigram, which indexes every "
                               "character");
        if (settings.removeDiacritics != 2)
            problems.push_back("remove_diacritics applies to unicode61 and porter, not to trigram");
        if (!settings.prefixes.empty())
            problems.push_back("prefix indexes do not apply to trigram: any substring of 3 or more characters "
                               "matches already");
        return;
    }
    if (settings.caseSensitive)
        problems.push_back("case_sensitive applies to trigram only; unicode61 and porter fold case");
    if (settings.removeDiacritics < 0 || settings.removeDiacritics > 2)
        problems.push_back("remove_diacritics is 0, 1 or 2, not " + std::to_string(settings.removeDiacritics));
    if (settings.tokenChars.size() > kMaxTokenChars)
        problems.push_back("at most " + std::to_string(kMaxTokenChars) + " token characters");
    for (char c : settings.tokenChars) {
        if (kTokenCharsAllowed.find(c) == std::string_view::npos) {
            problems.push_back(
                "token character '" + std::string(1, c) + "' is not one of " + std::string(kTokenCharsAllowed));
            break;
        }
    }
}

void prefixProblems(const IndexSettings& settings, std::vector<std::string>& problems)
{
    if (settings.prefixes.size() > kMaxPrefixIndexes)
        problems.push_back("at most " + std::to_string(kMaxPrefixIndexes) + " prefix indexes");
    for (std::size_t i = 0; i < settings.prefixes.size(); ++i) {
        const std::uint32_t length = settings.prefixes[i];
        if (length < 1 || length > kMaxPrefixLength)
            problems.push_back("a prefix index is 1 to " + std::to_string(kMaxPrefixLength) + " characters, not "
                + std::to_string(length));
        if (i > 0 && length <= settings.prefixes[i - 1])
            problems.push_back("prefix lengths are listed once each, shortest first");
    }
}

} // namespace

const char* tokenizerName(Tokenizer tokenizer)
{
    switch (tokenizer) {
    case Tokenizer::Unicode61: return "unicode61";
    case Tokenizer::Porter: return "porter";
    case Tokenizer::Trigram: return "trigram";
    }
    return "unicode61";
}

Result<Tokenizer> parseTokenizer(std::string_view name)
{
    for (Tokenizer t : { Tokenizer::Unicode61, Tokenizer::Porter, Tokenizer::Trigram }) {
        if (name == tokenizerName(t))
            return t;
    }
    return makeError(ErrorCode::InvalidArgument,
        "unknown tokenizer '" + std::string(name) + "'; the tokenizers are unicode61, porter and trigram");
}

std::vector<std::string> IndexSettings::fieldNames() const
{
    std::vector<std::string> names;
    for (const auto& f : fields)
        names.push_back(f.name);
    return names;
}

std::vector<std::string> IndexSettings::indexedFieldNames() const
{
    std::vector<std::string> names;
    for (const auto& f : fields) {
        if (f.indexed)
            names.push_back(f.name);
    }
    return names;
}

const IndexField* IndexSettings::field(std::string_view name) const
{
    auto found = std::find_if(fields.begin(), fields.end(), [&](const IndexField& f) { return f.name == name; });
    return found == fields.end() ? nullptr : &*found;
}

IndexSettings defaultIndexSettings()
{
    IndexSettings settings;
    settings.fields = { { "title", true, 1.0 }, { "body", true, 1.0 }, { "tags", true, 1.0 } };
    settings.prefixes = { 2, 3 };
    return settings;
}

Status validateIndexSettings(const IndexSettings& settings)
{
    std::vector<std::string> problems;
    fieldProblems(settings, problems);
    tokenizerProblems(settings, problems);
    prefixProblems(settings, problems);
    if (problems.empty())
        return {};
    std::string joined;
    for (const auto& problem : problems)
        joined += (joined.empty() ? "" : "; ") + problem;
    return makeError(ErrorCode::InvalidArgument, "index settings: " + joined);
}

std::string encodeIndexSettings(const IndexSettings& settings)
{
    nlohmann::json fields = nlohmann::json::array();
    for (const auto& f : settings.fields)
        fields.push_back({ { "name", f.name }, { "indexed", f.indexed }, { "weight", f.weight } });
    nlohmann::json tokenizer { { "name", tokenizerName(settings.tokenizer) } };
    if (settings.tokenizer == Tokenizer::Trigram) {
        tokenizer["case_sensitive"] = settings.caseSensitive;
    } else {
        tokenizer["remove_diacritics"] = settings.removeDiacritics;
        tokenizer["token_chars"] = settings.tokenChars;
    }
    return nlohmann::json {
        { "fields", fields }, { "tokenizer", tokenizer }, { "prefixes", settings.prefixes }
    }.dump();
}

Result<IndexSettings> decodeIndexSettings(std::string_view text)
{
    auto parsed = readJsonInput(text, "the index settings");
    if (!parsed)
        return parsed.error();
    const nlohmann::json& doc = *parsed;
    IndexSettings settings;
    try {
        if (!doc.is_object())
            return makeError(ErrorCode::InvalidArgument, "the index settings must be a JSON object");
        for (const auto& f : doc.at("fields"))
            settings.fields.push_back(
                { f.at("name").get<std::string>(), f.value("indexed", true), f.value("weight", 1.0) });
        if (doc.contains("tokenizer")) {
            const auto& t = doc.at("tokenizer");
            auto tokenizer = parseTokenizer(t.value("name", std::string("unicode61")));
            if (!tokenizer)
                return tokenizer.error();
            settings.tokenizer = *tokenizer;
            settings.removeDiacritics = t.value("remove_diacritics", 2);
            settings.tokenChars = t.value("token_chars", std::string());
            settings.caseSensitive = t.value("case_sensitive", false);
        }
        settings.prefixes = doc.value("prefixes", std::vector<std::uint32_t> {});
    } catch (const nlohmann::json::exception& e) {
        return makeError(ErrorCode::InvalidArgument, std::string("the index settings are malformed: ") + e.what());
    }
    if (auto valid = validateIndexSettings(settings); !valid)
        return valid.error();
    return settings;
}

} // namespace shardmap::core
