// The snapshot record's and the manifest's JSON forms, snapshot ids and the shard content checksum.
#include "core/snapshot/snapshot_records.h"

#include "core/util/json_input.h"

#include <array>
#include <ctime>
#include <nlohmann/json.hpp>
#include <random>

namespace shardmap::core {

using nlohmann::json;

namespace {

constexpr std::array<const char*, 6> kStateNames { "requested", "running", "complete", "verified", "corrupt",
    "failed" };

// The manifest's format: a reader refuses a later one rather than misread it.
constexpr int kManifestFormat = 1;

// Map records a restore needs; migrations, operations and approvals are history, not state.
constexpr std::array<std::string_view, 5> kManifestPrefixes { "nodes/", "shards/", "spaces/", "templates/",
    "settings/" };

constexpr const char* kIndexNote
    = "Xapian indexes are not copied: a restore rebuilds them from the documents table; FTS5's index is "
      "inside each file";

template <typename T> T field(const json& doc, const char* name, T fallback)
{
    const auto found = doc.find(name);
    return found == doc.end() || found->is_null() ? fallback : found->get<T>();
}

template <typename T, typename Parse>
Result<T> decodeJson(const std::string& text, const std::string& what, Parse parse)
{
    auto parsed = readJsonInput(text, what);
    if (!parsed)
        return makeError(ErrorCode::Internal, parsed.error().message);
    if (!parsed->is_object())
        return makeError(ErrorCode::Internal, what + " is not a JSON object");
    try {
        return parse(*parsed);
    } catch (const json::exception& error) {
        return makeError(ErrorCode::Internal, what + " is malformed: " + error.what());
    }
}

json spacesJson(const std::vector<SpaceStats>& spaces)
{
    json out = json::array();
    for (const SpaceStats& s : spaces)
        out.push_back({ { "space", s.space }, { "live_docs", s.liveDocs }, { "bytes_estimate", s.bytesEstimate },
            { "checksum", s.checksum }, { "tombstones", s.tombstones }, { "checksum_kind", s.checksumKind } });
    return out;
}

std::vector<SpaceStats> spacesOf(const json& list)
{
    std::vector<SpaceStats> out;
    for (const json& s : list)
        out.push_back({ s.at("space").get<std::string>(), field<std::uint64_t>(s, "live_docs", 0),
            field<std::uint64_t>(s, "bytes_estimate", 0), field<std::uint64_t>(s, "checksum", 0),
            field<std::uint64_t>(s, "tombstones", 0), field<std::uint32_t>(s, "checksum_kind", kChecksumKind) });
    return out;
}

json entryJson(const ShardFileEntry& e)
{
    return { { "shard", e.shard }, { "node", e.node }, { "template", e.templateName },
        { "template_version", e.templateVersion }, { "engine", indexEngineName(e.engine) }, { "file", e.file },
        { "copied_in", e.copiedIn }, { "bytes", e.bytes }, { "xxh3_128", e.xxh3_128 },
        { "content_checksum", e.contentChecksum }, { "spaces", spacesJson(e.spaces) } };
}

ShardFileEntry entryOf(const json& e)
{
    ShardFileEntry out { e.at("shard").get<std::string>(), field<std::string>(e, "node", ""),
        field<std::string>(e, "template", ""), field<std::uint32_t>(e, "template_version", 1), IndexEngine::Fts5,
        e.at("file").get<std::string>(), field<std::string>(e, "copied_in", ""), field<std::uint64_t>(e, "bytes", 0),
        field<std::string>(e, "xxh3_128", ""), field<std::uint64_t>(e, "content_checksum", 0),
        spacesOf(field<json>(e, "spaces", json::array())) };
    auto engine = parseIndexEngine(field<std::string>(e, "engine", "fts5"));
    if (!engine)
        throw json::other_error::create(501, engine.error().message, &e);
    out.engine = *engine;
    return out;
}

} // namespace

const char* snapshotStateName(SnapshotState state)
{
    return kStateNames.at(static_cast<std::size_t>(state));
}

std::optional<SnapshotState> parseSnapshotState(std::string_view name)
{
    for (std::size_t i = 0; i < kStateNames.size(); ++i) {
        if (name == kStateNames[i])
            return static_cast<SnapshotState>(i);
    }
    return std::nullopt;
}

bool usable(SnapshotState state)
{
    return state == SnapshotState::Complete || state == SnapshotState::Verified;
}

std::string encode(const SnapshotRecord& r)
{
    return json {
        { "id", r.id }, { "state", snapshotStateName(r.state) }, { "requested_by", r.requestedBy },
        { "reason", r.reason }, { "scheduled", r.scheduled }, { "created_unix_ms", r.createdUnixMs },
        { "started_unix_ms", r.startedUnixMs }, { "finished_unix_ms", r.finishedUnixMs },
        { "map_revision", r.mapRevision }, { "leader", r.leader }, { "leader_token", r.leaderToken },
        { "shards_total", r.shardsTotal }, { "shards_done", r.shardsDone }, { "shards_copied", r.shardsCopied },
        { "bytes", r.bytes }, { "bytes_copied", r.bytesCopied }, { "verified_unix_ms", r.verifiedUnixMs },
        { "bad_file", r.badFile }, { "error", r.error }, { "verify_requested", r.verifyRequested },
        { "delete_requested", r.deleteRequested }
    }.dump();
}

Result<SnapshotRecord> decodeSnapshot(const std::string& text)
{
    return decodeJson<SnapshotRecord>(text, "stored snapshot record", [](const json& doc) {
        SnapshotRecord r;
        r.id = doc.at("id").get<std::string>();
        const auto state = parseSnapshotState(doc.at("state").get<std::string>());
        if (!state)
            throw json::other_error::create(501, "unknown snapshot state " + doc.at("state").dump(), &doc);
        r.state = *state;
        r.requestedBy = field<std::string>(doc, "requested_by", "");
        r.reason = field<std::string>(doc, "reason", "");
        r.scheduled = field<bool>(doc, "scheduled", false);
        r.createdUnixMs = field<std::int64_t>(doc, "created_unix_ms", 0);
        r.startedUnixMs = field<std::int64_t>(doc, "started_unix_ms", 0);
        r.finishedUnixMs = field<std::int64_t>(doc, "finished_unix_ms", 0);
        r.mapRevision = field<std::uint64_t>(doc, "map_revision", 0);
        r.leader = field<std::string>(doc, "leader", "");
        r.leaderToken = field<std::uint64_t>(doc, "leader_token", 0);
        r.shardsTotal = field<std::uint32_t>(doc, "shards_total", 0);
        r.shardsDone = field<std::uint32_t>(doc, "shards_done", 0);
        r.shardsCopied = field<std::uint32_t>(doc, "shards_copied", 0);
        r.bytes = field<std::uint64_t>(doc, "bytes", 0);
        r.bytesCopied = field<std::uint64_t>(doc, "bytes_copied", 0);
        r.verifiedUnixMs = field<std::int64_t>(doc, "verified_unix_ms", 0);
        r.badFile = field<std::string>(doc, "bad_file", "");
        r.error = field<std::string>(doc, "error", "");
        r.verifyRequested = field<bool>(doc, "verify_requested", false);
        r.deleteRequested = field<bool>(doc, "delete_requested", false);
        return r;
    });
}

std::string newSnapshotId(std::int64_t unixMs)
{
    const std::time_t seconds = static_cast<std::time_t>(unixMs / 1000);
    std::tm utc {};
    gmtime_r(&seconds, &utc);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &utc);
    std::random_device random;
    char tail[8];
    std::snprintf(tail, sizeof tail, "%04x", static_cast<unsigned>(random() & 0xffff));
    return std::string("snap-") + stamp + "-" + tail;
}

Status validateSnapshotId(std::string_view id)
{
    const bool allowed = !id.empty() && id.size() <= 64 && id.front() != '-'
        && id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string_view::npos;
    if (!allowed)
        return makeError(ErrorCode::InvalidArgument,
            "a snapshot id is 1-64 characters of a-z, 0-9 and '-', not '" + std::string(id.substr(0, 80)) + "'");
    return {};
}

std::uint64_t shardContentChecksum(const std::vector<SpaceStats>& spaces)
{
    std::uint64_t sum = 0;
    for (const SpaceStats& s : spaces)
        sum += s.checksum + s.liveDocs + s.tombstones;
    return sum;
}

std::vector<std::string> SnapshotManifest::files() const
{
    std::vector<std::string> out;
    for (const ShardFileEntry& entry : shards)
        out.push_back(entry.file);
    return out;
}

std::uint64_t SnapshotManifest::bytes() const
{
    std::uint64_t sum = 0;
    for (const ShardFileEntry& entry : shards)
        sum += entry.bytes;
    return sum;
}

bool keptInManifest(std::string_view key)
{
    for (std::string_view prefix : kManifestPrefixes) {
        if (key.starts_with(prefix))
            return true;
    }
    return false;
}

std::string encodeManifest(const SnapshotManifest& m)
{
    json records = json::object();
    for (const auto& [key, value] : m.mapRecords)
        records[key] = json::parse(value, nullptr, false);
    json shards = json::array();
    for (const ShardFileEntry& entry : m.shards)
        shards.push_back(entryJson(entry));
    return json {
        { "format", kManifestFormat }, { "id", m.id }, { "state", "complete" }, { "requested_by", m.requestedBy },
        { "reason", m.reason }, { "scheduled", m.scheduled }, { "started_unix_ms", m.startedUnixMs },
        { "finished_unix_ms", m.finishedUnixMs }, { "map", { { "revision", m.mapRevision }, { "records", records } } },
        { "index_note", kIndexNote }, { "bytes", m.bytes() }, { "shards", shards }
    }.dump(1);
}

Result<SnapshotManifest> decodeManifest(const std::string& text)
{
    return decodeJson<SnapshotManifest>(text, "snapshot manifest", [](const json& doc) {
        if (field<int>(doc, "format", 0) != kManifestFormat)
            throw json::other_error::create(501, "format " + doc.value("format", json()).dump() + " is not 1", &doc);
        SnapshotManifest m;
        m.id = doc.at("id").get<std::string>();
        m.requestedBy = field<std::string>(doc, "requested_by", "");
        m.reason = field<std::string>(doc, "reason", "");
        m.scheduled = field<bool>(doc, "scheduled", false);
        m.startedUnixMs = field<std::int64_t>(doc, "started_unix_ms", 0);
        m.finishedUnixMs = field<std::int64_t>(doc, "finished_unix_ms", 0);
        const json& map = doc.at("map");
        m.mapRevision = field<std::uint64_t>(map, "revision", 0);
        const json records = field<json>(map, "records", json::object());
        for (const auto& [key, value] : records.items())
            m.mapRecords[key] = value.dump();
        for (const json& entry : doc.at("shards"))
            m.shards.push_back(entryOf(entry));
        return m;
    });
}

} // namespace shardmap::core
