#pragma once

// The helpers the map's record codecs share (core/map/shard_map.cpp, migration_codec.cpp): a stored
// record's JSON parsed within bounds, its optional fields with their defaults. Internal to core/map.

#include "core/util/index_engine.h"
#include "core/util/json_input.h"
#include "core/util/result.h"

#include <nlohmann/json.hpp>
#include <string>

namespace shardmap::core::record_json {

using nlohmann::json;

template <typename T, typename Parse>
inline Result<T> decodeWith(const std::string& text, const char* what, Parse parse)
{
    // Store records are written by anyone with the store's credentials: bounded like a caller's input.
    auto parsed = readJsonInput(text, std::string("stored ") + what + " record");
    if (!parsed)
        return makeError(ErrorCode::Internal, parsed.error().message);
    const json& doc = *parsed;
    if (!doc.is_object())
        return makeError(ErrorCode::Internal, std::string("stored ") + what + " record is not a JSON object");
    try {
        return parse(doc);
    } catch (const json::exception& error) {
        return makeError(ErrorCode::Internal, std::string("stored ") + what + " record is malformed: " + error.what());
    }
}

template <typename T> inline T optionalField(const json& doc, const char* name, T fallback)
{
    const auto found = doc.find(name);
    return found == doc.end() || found->is_null() ? fallback : found->get<T>();
}

// An engine named by indexEngineName; a record without one holds the fallback.
inline IndexEngine engineField(const json& doc, const char* name, IndexEngine fallback)
{
    const auto found = doc.find(name);
    if (found == doc.end() || found->is_null())
        return fallback;
    auto engine = parseIndexEngine(found->get<std::string>());
    if (!engine)
        throw json::other_error::create(501, engine.error().message, &doc);
    return *engine;
}

} // namespace shardmap::core::record_json
