#include "core/node/proto_convert.h"

// The field-by-field mapping of documents, write results and search hits to and from protobuf, and
// of the index settings a CreateShard asks for.

namespace shardmap::core {

Document fromProto(const v1::Document& in)
{
    Document doc { in.space(), in.id(), in.version(), {}, in.deleted() };
    for (const auto& [name, value] : in.fields())
        doc.fields.emplace(name, value);
    return doc;
}

void toProto(const Document& in, v1::Document& out)
{
    out.set_space(in.space);
    out.set_id(in.id);
    out.set_version(in.version);
    out.set_deleted(in.deleted);
    for (const auto& [name, value] : in.fields)
        (*out.mutable_fields())[name] = value;
}

ItemResult fromProto(const v1::ItemResult& in)
{
    return ItemResult { static_cast<WriteOutcome>(in.outcome()), in.reason(), in.stored_version() };
}

void toProto(const ItemResult& in, v1::ItemResult& out)
{
    out.set_outcome(static_cast<v1::WriteOutcome>(in.outcome));
    out.set_reason(in.reason);
    out.set_stored_version(in.storedVersion);
}

SearchHit fromProto(const v1::SearchHit& in)
{
    return SearchHit { in.space(), in.id(), in.version(), in.score(), in.snippet() };
}

void toProto(const SearchHit& in, v1::SearchHit& out)
{
    out.set_space(in.space);
    out.set_id(in.id);
    out.set_version(in.version);
    out.set_score(in.score);
    out.set_snippet(in.snippet);
}

Result<std::optional<IndexSettings>> indexSettingsOf(const v1::CreateShardRequest& request)
{
    const std::vector<std::string> fields(request.fields().begin(), request.fields().end());
    if (request.index_settings_json().empty()) {
        if (fields.empty())
            return std::optional<IndexSettings>();
        IndexSettings settings = defaultIndexSettings();
        settings.fields.clear();
        for (const std::string& name : fields)
            settings.fields.push_back({ name, true, 1.0 });
        if (auto valid = validateIndexSettings(settings); !valid)
            return valid.error();
        return std::optional<IndexSettings>(std::move(settings));
    }
    auto settings = decodeIndexSettings(request.index_settings_json());
    if (!settings)
        return settings.error();
    if (!fields.empty() && fields != settings->fieldNames()) {
        std::string named;
        for (const std::string& name : fields)
            named += (named.empty() ? "" : ", ") + name;
        std::string inSettings;
        for (const std::string& name : settings->fieldNames())
            inSettings += (inSettings.empty() ? "" : ", ") + name;
        return makeError(ErrorCode::InvalidArgument,
            "the request names the fields " + named + " and index settings with the fields " + inSettings
                + "; name them once, in the index settings");
    }
    return std::optional<IndexSettings>(std::move(*settings));
}

void toProto(const std::optional<IndexSettings>& settings, v1::CreateShardRequest& out)
{
    if (!settings)
        return;
    // The fields too, so that they agree: a node older than index settings reads only them.
    for (const std::string& name : settings->fieldNames())
        out.add_fields(name);
    out.set_index_settings_json(encodeIndexSettings(*settings));
}

} // namespace shardmap::core
