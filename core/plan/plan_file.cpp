// The plan's file format: what Plan::encode writes and Plan::decode reads, for shardmapctl's
// `plan -o` and `plan apply`, the console's plan mode and shardmapd's ApplyPlan alike. A file that
// is not a plan is refused with a sentence naming the field and what is wrong with it.
#include "core/map/shard_map.h"
#include "core/plan/plan.h"
#include "core/util/json_input.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <type_traits>

using nlohmann::json;

namespace shardmap::core {

namespace {

// The keys that changed between format versions (the others are one word): version 1 wrote them
// in camelCase, version 2 in snake_case like every other --json output. Files of both load.
struct PlanKeys {
    const char* baseRevision;
    const char* createdBy;
    const char* createdUnixMs;
    const char* newShards;
};
constexpr PlanKeys kKeysV1 { "baseRevision", "createdBy", "createdUnixMs", "newShards" };
constexpr int kVersion = 2;
constexpr PlanKeys kKeys { "base_revision", "created_by", "created_unix_ms", "new_shards" };

// What is wrong with a plan's text; thrown by the readers below and returned by decode() as an
// error value, so that each reader stays one line at its call.
struct BadPlan {
    std::string message;
};

std::string describe(const json& value)
{
    switch (value.type()) {
    case json::value_t::object: return "an object";
    case json::value_t::array: return "a list";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "true or false";
    case json::value_t::null: return "null";
    case json::value_t::number_integer: return "a negative number";
    case json::value_t::number_float: return "a fraction";
    default: return "a number";
    }
}

template <typename T> bool holds(const json& value)
{
    if constexpr (std::is_same_v<T, std::string>)
        return value.is_string();
    else if constexpr (std::is_same_v<T, std::uint64_t>)
        return value.is_number_unsigned();
    else if constexpr (std::is_same_v<T, std::int64_t>)
        return value.is_number_integer();
    else
        return value.is_array() && std::all_of(value.begin(), value.end(), [](const json& e) { return e.is_string(); });
}

template <typename T> const char* expected()
{
    if constexpr (std::is_same_v<T, std::string>)
        return "a string";
    else if constexpr (std::is_same_v<T, std::uint64_t>)
        return "a whole number of 0 or more";
    else if constexpr (std::is_same_v<T, std::int64_t>)
        return "a whole number";
    else
        return "a list of strings";
}

const json& requireKind(const json& value, const std::string& where, bool object)
{
    if (object ? !value.is_object() : !value.is_array())
        throw BadPlan { where + " is " + describe(value) + ", not " + (object ? "an object" : "a list") };
    return value;
}

// The field key of object (where: "the plan", "move 2 of the plan"), or fallback when absent.
template <typename T>
T field(const json& object, const std::string& key, const std::string& where, std::optional<T> fallback = {})
{
    const auto found = object.find(key);
    if (found == object.end()) {
        if (fallback)
            return *fallback;
        throw BadPlan { where + " has no \"" + key + "\"" };
    }
    if (!holds<T>(*found))
        throw BadPlan { "\"" + key + "\" of " + where + " is " + describe(*found) + ", not " + expected<T>() };
    return found->get<T>();
}

// A list field of the plan: absent means empty.
const json& listField(const json& object, const std::string& key, const std::string& where)
{
    static const json kEmpty = json::array();
    const auto found = object.find(key);
    return found == object.end() ? kEmpty : requireKind(*found, "\"" + key + "\" of " + where, false);
}

// A shard the plan creates, as encode() writes it (the map's shard record), read from the plan's
// value itself rather than re-serialised for decodeShard.
ShardRecord newShardOf(const json& shard, const std::string& where)
{
    requireKind(shard, where, true);
    const std::string stateName = field<std::string>(shard, "state", where);
    const auto state = parseShardState(stateName);
    if (!state)
        throw BadPlan { "\"state\" of " + where + " is '" + stateName
            + "', not active, draining, readonly or retired" };
    ShardRecord record { field<std::string>(shard, "id", where), field<std::string>(shard, "node", where), *state,
        field<std::uint64_t>(shard, "capacity_docs", where, 0),
        field<std::uint64_t>(shard, "capacity_bytes", where, 0) };
    // A reindex's new shards name the template they are built with (issue 31).
    record.templateName = field<std::string>(shard, "template", where, "");
    record.templateVersion = static_cast<std::uint32_t>(field<std::uint64_t>(shard, "template_version", where, 0));
    return record;
}

PlannedMove moveOf(const json& move, const std::string& where)
{
    requireKind(move, where, true);
    PlannedMove value { field<std::string>(move, "space", where), field<std::string>(move, "from", where),
        field<std::string>(move, "to", where), field<std::string>(move, "reason", where, ""),
        field<std::uint64_t>(move, "docs", where, 0), field<std::uint64_t>(move, "bytes", where, 0) };
    if (value.space.empty() || value.to.empty())
        throw BadPlan { where + " names no space or no target shard" };
    return value;
}

// The keys of the plan's format version, or why it has none this build reads.
const PlanKeys& keysOf(const json& document)
{
    const auto version = document.find("version");
    if (version == document.end())
        throw BadPlan { "the plan has no \"version\": it is not a plan file" };
    if (*version == 1)
        return kKeysV1;
    if (*version == kVersion)
        return kKeys;
    throw BadPlan { "the plan's \"version\" is " + version->dump() + "; this build reads versions 1 and 2" };
}

Plan planOf(const json& document)
{
    const std::string where = "the plan";
    requireKind(document, where, true);
    const PlanKeys& keys = keysOf(document);
    Plan plan;
    plan.baseRevision = field<std::uint64_t>(document, keys.baseRevision, where);
    plan.createdBy = field<std::string>(document, keys.createdBy, where, "");
    plan.createdUnixMs = field<std::int64_t>(document, keys.createdUnixMs, where, 0);
    plan.reason = field<std::string>(document, "reason", where, "");
    plan.kind = field<std::string>(document, "kind", where, "move");
    plan.subject = field<std::string>(document, "subject", where, "");
    plan.into = field<std::string>(document, "into", where, "");
    plan.remaining = field<std::vector<std::string>>(document, "remaining", where, std::vector<std::string> {});
    std::size_t index = 0;
    for (const json& shard : listField(document, keys.newShards, where))
        plan.newShards.push_back(newShardOf(shard, "new shard " + std::to_string(++index) + " of the plan"));
    if (!document.contains("moves"))
        throw BadPlan { "the plan has no \"moves\"" };
    index = 0;
    for (const json& move : listField(document, "moves", where))
        plan.moves.push_back(moveOf(move, "move " + std::to_string(++index) + " of the plan"));
    return plan;
}

} // namespace

std::string Plan::encode() const
{
    json list = json::array();
    for (const PlannedMove& move : moves) {
        json entry = { { "space", move.space }, { "from", move.from }, { "to", move.to } };
        if (!move.reason.empty())
            entry["reason"] = move.reason;
        if (move.docs || move.bytes) {
            entry["docs"] = move.docs;
            entry["bytes"] = move.bytes;
        }
        list.push_back(std::move(entry));
    }
    json created = json::array();
    for (const ShardRecord& shard : newShards)
        created.push_back(json::parse(core::encode(shard)));
    const json document
        = { { "version", kVersion }, { kKeys.baseRevision, baseRevision }, { kKeys.createdBy, createdBy },
              { kKeys.createdUnixMs, createdUnixMs }, { "reason", reason }, { "kind", kind }, { "subject", subject },
              { "into", into }, { kKeys.newShards, created }, { "remaining", remaining }, { "moves", list } };
    return document.dump(2);
}

Result<Plan> Plan::decode(const std::string& text)
{
    auto parsed = readJsonInput(text, "the plan");
    if (!parsed)
        return parsed.error();
    try {
        return planOf(*parsed);
    } catch (const BadPlan& bad) {
        return makeError(ErrorCode::InvalidArgument, bad.message);
    }
}

} // namespace shardmap::core
