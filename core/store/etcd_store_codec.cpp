#include "core/store/etcd_store_codec.h"

// The etcd store's layout: its keys under the prefix, its records, audit records, leases and
// revision counter as JSON, and the transaction operations over them.

#include <cstdio>
#include <nlohmann/json.hpp>

namespace shardmap::core::etcd_codec {

namespace {

using Json = nlohmann::json;

// Values and texts are checked for UTF-8 before they get here; replace rather than throw anyway.
std::string dumped(const Json& json)
{
    return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Json textOrNull(const std::optional<std::string>& text)
{
    return text ? Json(*text) : Json(nullptr);
}

std::optional<std::string> textOrNullopt(const Json& json)
{
    return json.is_string() ? std::optional(json.get<std::string>()) : std::nullopt;
}

Error damaged(const std::string& what)
{
    return makeError(ErrorCode::Internal, what + " in etcd is damaged");
}

} // namespace

std::string magicKey(const std::string& root)
{
    return root + "meta/magic";
}

std::string revisionKey(const std::string& root)
{
    return root + "meta/revision";
}

std::string dataPrefix(const std::string& root)
{
    return root + "data/";
}

std::string dataKey(const std::string& root, const std::string& key)
{
    return dataPrefix(root) + key;
}

std::string auditPrefix(const std::string& root)
{
    return root + "audit/";
}

std::string auditKey(const std::string& root, std::uint64_t revision)
{
    char digits[24];
    std::snprintf(digits, sizeof digits, "%020llu", static_cast<unsigned long long>(revision));
    return auditPrefix(root) + digits;
}

std::string leaseKey(const std::string& root, const std::string& name)
{
    return root + "leases/" + name;
}

std::string rangeEnd(const std::string& prefix)
{
    std::string end = prefix;
    while (!end.empty()) {
        auto& last = reinterpret_cast<unsigned char&>(end.back());
        if (last < 0xff) {
            ++last;
            return end;
        }
        end.pop_back();
    }
    return std::string(1, '\0'); // every key
}

std::string encodeCounter(const Counter& counter)
{
    return std::to_string(counter.revision) + (counter.hash.empty() ? "" : " " + counter.hash);
}

Result<Counter> decodeCounter(const std::string& text)
{
    const auto space = text.find(' ');
    const std::string digits = text.substr(0, space);
    if (digits.empty() || digits.size() > 19 || digits.find_first_not_of("0123456789") != std::string::npos)
        return damaged("the map revision '" + text.substr(0, 100) + "'");
    return Counter { std::stoull(digits), space == std::string::npos ? std::string() : text.substr(space + 1) };
}

std::string encodeRecord(const std::string& value, std::uint64_t createRevision, std::uint64_t modRevision)
{
    return dumped({ { "v", value }, { "c", createRevision }, { "m", modRevision } });
}

Result<StoredRecord> decodeRecord(const std::string& key, const std::string& text)
{
    const Json json = Json::parse(text, nullptr, false);
    if (!json.is_object() || !json.contains("v") || !json["v"].is_string() || !json.contains("c")
        || !json["c"].is_number_unsigned() || !json.contains("m") || !json["m"].is_number_unsigned())
        return damaged("record '" + key + "'");
    return StoredRecord { key, json["v"].get<std::string>(), json["c"].get<std::uint64_t>(),
        json["m"].get<std::uint64_t>() };
}

std::string encodeAudit(const AuditRecord& record, const std::string& commitId)
{
    Json changes = Json::array();
    for (const auto& change : record.changes)
        changes.push_back(
            { { "key", change.key }, { "before", textOrNull(change.before) }, { "after", textOrNull(change.after) } });
    return dumped({ { "revision", record.revision }, { "unixMs", record.unixMs }, { "actor", record.actor },
        { "action", record.action }, { "reason", record.reason }, { "changes", std::move(changes) },
        { "commit", commitId }, { "hash", record.hash } });
}

Result<AuditRecord> decodeAudit(const std::string& text)
{
    const Json json = Json::parse(text, nullptr, false);
    const auto error = damaged("an audit record");
    if (!json.is_object() || !json.contains("revision") || !json["revision"].is_number_unsigned()
        || !json.contains("changes") || !json["changes"].is_array())
        return error;
    AuditRecord record;
    record.revision = json["revision"].get<std::uint64_t>();
    record.unixMs = json.value("unixMs", std::int64_t { 0 });
    record.actor = json.value("actor", std::string());
    record.action = json.value("action", std::string());
    record.reason = json.value("reason", std::string());
    record.hash = json.value("hash", std::string());
    for (const auto& change : json["changes"]) {
        if (!change.is_object() || !change.contains("key") || !change["key"].is_string())
            return error;
        record.changes.push_back({ change["key"].get<std::string>(), textOrNullopt(change.value("before", Json())),
            textOrNullopt(change.value("after", Json())) });
    }
    return record;
}

std::string encodeLease(const LeaseRow& lease)
{
    return dumped({ { "holder", lease.holder }, { "token", lease.token }, { "expiresUnixMs", lease.expiresUnixMs } });
}

Result<LeaseRow> decodeLease(const std::string& name, const std::string& text)
{
    const Json json = Json::parse(text, nullptr, false);
    if (!json.is_object() || !json.contains("holder") || !json["holder"].is_string() || !json.contains("token")
        || !json["token"].is_number_unsigned() || !json.contains("expiresUnixMs")
        || !json["expiresUnixMs"].is_number_integer())
        return damaged("lease '" + name + "'");
    return LeaseRow { json["holder"].get<std::string>(), json["token"].get<std::uint64_t>(),
        json["expiresUnixMs"].get<std::int64_t>() };
}

etcdserverpb::RequestOp rangeOp(const std::string& key, const std::string& end, std::int64_t limit)
{
    etcdserverpb::RequestOp op;
    auto* range = op.mutable_request_range();
    range->set_key(key);
    range->set_range_end(end);
    range->set_limit(limit);
    return op;
}

etcdserverpb::RequestOp putOp(const std::string& key, const std::string& value)
{
    etcdserverpb::RequestOp op;
    op.mutable_request_put()->set_key(key);
    op.mutable_request_put()->set_value(value);
    return op;
}

etcdserverpb::RequestOp deleteOp(const std::string& key)
{
    etcdserverpb::RequestOp op;
    op.mutable_request_delete_range()->set_key(key);
    return op;
}

etcdserverpb::Compare modRevisionIs(const std::string& key, std::int64_t revision)
{
    etcdserverpb::Compare compare;
    compare.set_result(etcdserverpb::Compare::EQUAL);
    compare.set_target(etcdserverpb::Compare::MOD);
    compare.set_key(key);
    compare.set_mod_revision(revision);
    return compare;
}

} // namespace shardmap::core::etcd_codec
