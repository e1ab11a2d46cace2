#include "core/map/shard_map.h"

#include "core/map/index_templates.h"

// The map's records to and from their JSON, the whole map decoded from a store snapshot (its spaces
// on several threads when there are many), and its lookups (the diff between two revisions: map_diff.cpp).

#include "core/map/record_json.h"
#include "core/util/json_input.h"
#include "core/util/validation.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <vector>

namespace shardmap::core {

using nlohmann::json;
using record_json::decodeWith;
using record_json::engineField;
using record_json::optionalField;

namespace {

template <typename T, typename Decode>
Status decodeInto(std::map<std::string, Versioned<T>>& out, const StoredRecord& record, Decode decode)
{
    auto value = decode(record.value);
    if (!value)
        return makeError(value.error().code, value.error().message, record.key);
    std::string id = value->id; // copied first: the record is moved into the map below
    // Records come in key order, so the end is the place (a hint only: any order is right).
    out.emplace_hint(out.end(), std::move(id), Versioned<T> { std::move(*value), record.modRevision });
    return {};
}

template <typename T> const T* findIn(const std::map<std::string, Versioned<T>>& map, const std::string& id)
{
    const auto found = map.find(id);
    return found == map.end() ? nullptr : &found->second.value;
}

} // namespace

std::string encode(const NodeRecord& record)
{
    return json {
        { "id", record.id }, { "address", record.address }, { "labels", record.labels }, { "retired", record.retired },
        { "zone", record.zone }, { "lost", record.lost }
    }.dump();
}

std::string encode(const ShardRecord& record)
{
    json replicas = json::array();
    for (const ShardCopy& copy : record.replicas)
        replicas.push_back(
            { { "node", copy.node }, { "state", copyStateName(copy.state) }, { "docs_done", copy.docsDone },
                { "docs_total", copy.docsTotal }, { "since_unix_ms", copy.sinceUnixMs }, { "reason", copy.reason } });
    json out { { "id", record.id }, { "node", record.node }, { "state", shardStateName(record.state) },
        { "capacity_docs", record.capacityDocs }, { "capacity_bytes", record.capacityBytes },
        { "engine", indexEngineName(record.engine) }, { "replicas", replicas },
        { "replication_factor", record.replicationFactor }, { "allow_same_zone", record.allowSameZone },
        { "template", record.templateName }, { "template_version", record.templateVersion } };
    if (!record.restoredFrom.empty())
        out["restored_from"] = record.restoredFrom;
    return out.dump();
}

std::string encode(const SpaceRecord& record)
{
    return json {
        { "id", record.id }, { "shard", record.shard }, { "epoch", record.epoch },
        { "migration_id", record.migrationId }, { "target", record.target },
        { "phase", migrationPhaseName(record.phase) }, { "pin", record.pin }, { "paused", record.paused }
    }.dump();
}

std::string encode(const MigrationSettings& settings)
{
    return json {
        { "max_concurrent", settings.maxConcurrent }, { "max_per_node", settings.maxPerNode },
        { "max_per_shard", settings.maxPerShard },
        { "default_throttle_docs_per_second", settings.defaultThrottleDocsPerSecond },
        { "backfill_batch", settings.backfillBatch }, { "rollback_window_seconds", settings.rollbackWindowSeconds },
        { "cutover_timeout_ms", settings.cutoverTimeoutMs },
        { "cleanup_rows_per_second", settings.cleanupRowsPerSecond }, { "max_target_fill", settings.maxTargetFill },
        { "max_repairs", settings.maxRepairs }, { "start_retry_seconds", settings.startRetrySeconds },
        { "default_engine", indexEngineName(settings.defaultEngine) },
        { "replication_factor", settings.replicationFactor }, { "write_quorum", writeQuorumName(settings.writeQuorum) },
        { "failover_after_ms", settings.failoverAfterMs }, { "lose_node_after_ms", settings.loseNodeAfterMs },
        { "max_re_replications", settings.maxReReplications }, { "snapshot_repository", settings.snapshotRepository },
        { "snapshot_interval_seconds", settings.snapshotIntervalSeconds }, { "snapshot_keep", settings.snapshotKeep },
        { "snapshot_max_age_seconds", settings.snapshotMaxAgeSeconds },
        { "snapshot_pause_ms", settings.snapshotPauseMs }
    }.dump();
}

Result<NodeRecord> decodeNode(const std::string& text)
{
    return decodeWith<NodeRecord>(text, "node", [](const json& doc) {
        return NodeRecord { doc.at("id").get<std::string>(), doc.at("address").get<std::string>(),
            optionalField<std::map<std::string, std::string>>(doc, "labels", {}),
            optionalField<bool>(doc, "retired", false), optionalField<std::string>(doc, "zone", ""),
            optionalField<bool>(doc, "lost", false) };
    });
}

Result<ShardRecord> decodeShard(const std::string& text)
{
    return decodeWith<ShardRecord>(text, "shard", [](const json& doc) {
        const auto state = parseShardState(doc.at("state").get<std::string>());
        if (!state)
            throw json::other_error::create(501, "unknown shard state " + doc.at("state").dump(), &doc);
        ShardRecord record { doc.at("id").get<std::string>(), doc.at("node").get<std::string>(), *state,
            optionalField<std::uint64_t>(doc, "capacity_docs", 0),
            optionalField<std::uint64_t>(doc, "capacity_bytes", 0), engineField(doc, "engine", IndexEngine::Fts5) };
        // Records from before replicas (issue 30) have none and take the fleet's factor.
        if (const auto found = doc.find("replicas"); found != doc.end() && !found->is_null()) {
            for (const json& entry : *found) {
                const auto copyState = parseCopyState(entry.at("state").get<std::string>());
                if (!copyState)
                    throw json::other_error::create(501, "unknown copy state " + entry.at("state").dump(), &doc);
                record.replicas.push_back({ entry.at("node").get<std::string>(), *copyState,
                    optionalField<std::uint64_t>(entry, "docs_done", 0),
                    optionalField<std::uint64_t>(entry, "docs_total", 0),
                    optionalField<std::int64_t>(entry, "since_unix_ms", 0),
                    optionalField<std::string>(entry, "reason", "") });
            }
        }
        record.replicationFactor = optionalField<std::uint32_t>(doc, "replication_factor", 0);
        record.allowSameZone = optionalField<bool>(doc, "allow_same_zone", false);
        // Records from before templates (issue 31): the default, version 1.
        record.templateName = optionalField<std::string>(doc, "template", "");
        record.templateVersion = optionalField<std::uint32_t>(doc, "template_version", 0);
        record.restoredFrom = optionalField<std::string>(doc, "restored_from", "");
        return record;
    });
}

namespace {

// Space records are most of a map (a million at scale) and flat: read from SAX events they need
// no DOM of their own, about a third of the time. Anything unexpected (a missing field, a wrong
// type, nesting) returns false, and the DOM path below decides, with its error messages.
class SpaceSax final : public nlohmann::json_sax<json> {
public:
    explicit SpaceSax(SpaceRecord& record)
        : m_record(record)
    {
    }

    bool complete() const { return m_seen == (kId | kShard | kEpoch); }

    bool null() override { return m_field != Field::Id && m_field != Field::Shard && m_field != Field::Epoch; }
    bool boolean(bool value) override
    {
        if (m_field == Field::Paused)
            m_record.paused = value;
        return m_field == Field::Paused || m_field == Field::Other;
    }
    bool number_integer(number_integer_t) override { return m_field == Field::Other; }
    bool number_unsigned(number_unsigned_t value) override
    {
        if (m_field == Field::Epoch) {
            m_record.epoch = value;
            m_seen |= kEpoch;
        }
        return m_field == Field::Epoch || m_field == Field::Other;
    }
    bool number_float(number_float_t, const string_t&) override { return m_field == Field::Other; }
    bool string(string_t& value) override
    {
        switch (m_field) {
        case Field::Id: m_record.id = std::move(value), m_seen |= kId; return true;
        case Field::Shard: m_record.shard = std::move(value), m_seen |= kShard; return true;
        case Field::MigrationId: m_record.migrationId = std::move(value); return true;
        case Field::Target: m_record.target = std::move(value); return true;
        case Field::Pin: m_record.pin = std::move(value); return true;
        case Field::Phase: m_record.phase = parseMigrationPhase(value).value_or(MigrationPhase::Done); return true;
        case Field::Other: return true;
        case Field::Epoch:
        case Field::Paused: return false;
        }
        return false;
    }
    bool binary(binary_t&) override { return false; }
    bool start_object(std::size_t) override { return ++m_depth == 1; }
    bool end_object() override { return --m_depth == 0; }
    bool start_array(std::size_t) override { return false; }
    bool end_array() override { return false; }
    bool key(string_t& name) override
    {
        m_field = name == "id"       ? Field::Id
            : name == "shard"        ? Field::Shard
            : name == "epoch"        ? Field::Epoch
            : name == "migration_id" ? Field::MigrationId
            : name == "target"       ? Field::Target
            : name == "phase"        ? Field::Phase
            : name == "pin"          ? Field::Pin
            : name == "paused"       ? Field::Paused
                                     : Field::Other;
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

private:
    enum class Field { Id, Shard, Epoch, MigrationId, Target, Phase, Pin, Paused, Other };
    static constexpr unsigned kId = 1;
    static constexpr unsigned kShard = 2;
    static constexpr unsigned kEpoch = 4;

    SpaceRecord& m_record;
    Field m_field = Field::Other;
    unsigned m_seen = 0;
    int m_depth = 0;
};

// The space records this program writes, read without a JSON library: one flat object of
// plain strings (no escapes, printable ASCII: ids are [A-Za-z0-9._-]), unsigned integers and
// booleans, without whitespace, as encode() makes them. A million of them were most of a first
// map's decode. Anything else (an escape, whitespace, null, an unknown key, a byte outside
// printable ASCII) returns false, and the JSON library decides, as it always did.
class SpaceScanner {
public:
    explicit SpaceScanner(std::string_view text)
        : m_text(text)
    {
    }

    bool scan(SpaceRecord& record)
    {
        bool id = false;
        bool shard = false;
        bool epoch = false;
        if (!take('{'))
            return false;
        if (take('}'))
            return false; // no id, shard or epoch
        do {
            std::string_view key;
            if (!string(key) || !take(':'))
                return false;
            if (key == "id" || key == "shard" || key == "migration_id" || key == "target" || key == "pin"
                || key == "phase") {
                std::string_view value;
                if (!string(value))
                    return false;
                if (key == "id")
                    record.id = value, id = true;
                else if (key == "shard")
                    record.shard = value, shard = true;
                else if (key == "migration_id")
                    record.migrationId = value;
                else if (key == "target")
                    record.target = value;
                else if (key == "pin")
                    record.pin = value;
                else
                    record.phase = parseMigrationPhase(value).value_or(MigrationPhase::Done);
            } else if (key == "epoch") {
                if (!unsignedNumber(record.epoch))
                    return false;
                epoch = true;
            } else if (key == "paused") {
                if (!boolean(record.paused))
                    return false;
            } else {
                return false;
            }
        } while (take(','));
        return take('}') && m_at == m_text.size() && id && shard && epoch;
    }

private:
    bool take(char c)
    {
        if (m_at < m_text.size() && m_text[m_at] == c) {
            ++m_at;
            return true;
        }
        return false;
    }

    bool string(std::string_view& out)
    {
        if (!take('"'))
            return false;
        const std::size_t start = m_at;
        while (m_at < m_text.size()) {
            const auto c = static_cast<unsigned char>(m_text[m_at]);
            if (c == '"') {
                out = m_text.substr(start, m_at - start);
                ++m_at;
                return true;
            }
            if (c == '\\' || c < 0x20 || c >= 0x7f)
                return false;
            ++m_at;
        }
        return false;
    }

    bool unsignedNumber(std::uint64_t& out)
    {
        const std::size_t start = m_at;
        std::uint64_t value = 0;
        while (m_at < m_text.size() && m_text[m_at] >= '0' && m_text[m_at] <= '9') {
            const auto digit = static_cast<std::uint64_t>(m_text[m_at] - '0');
            if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10)
                return false; // too large: the library's error
            value = value * 10 + digit;
            ++m_at;
        }
        // JSON has no leading zeros; fractions and exponents are the library's business.
        const std::size_t digits = m_at - start;
        if (digits == 0 || (digits > 1 && m_text[start] == '0'))
            return false;
        if (m_at < m_text.size() && (m_text[m_at] == '.' || m_text[m_at] == 'e' || m_text[m_at] == 'E'))
            return false;
        out = value;
        return true;
    }

    bool boolean(bool& out)
    {
        const std::string_view rest = m_text.substr(m_at);
        if (rest.starts_with("true")) {
            m_at += 4;
            out = true;
            return true;
        }
        if (rest.starts_with("false")) {
            m_at += 5;
            out = false;
            return true;
        }
        return false;
    }

    std::string_view m_text;
    std::size_t m_at = 0;
};

} // namespace

namespace {

// negativeEpoch: set to the record's epoch when it is a negative integer, which get<uint64_t>
// would read as 2^64 - 1 and below.
Result<SpaceRecord> decodeSpaceFields(const std::string& text, std::optional<std::int64_t>& negativeEpoch)
{
    SpaceRecord scanned;
    if (SpaceScanner(text).scan(scanned))
        return scanned;
    SpaceRecord fast;
    SpaceSax sax(fast);
    if (json::sax_parse(text, &sax) && sax.complete())
        return fast;
    return decodeWith<SpaceRecord>(text, "space", [&negativeEpoch](const json& doc) {
        SpaceRecord record;
        record.id = doc.at("id").get<std::string>();
        record.shard = doc.at("shard").get<std::string>();
        const json& epoch = doc.at("epoch");
        if (epoch.is_number_integer() && !epoch.is_number_unsigned())
            negativeEpoch = epoch.get<std::int64_t>();
        else if (!epoch.is_number_unsigned())
            throw json::other_error::create(501, "epoch " + epoch.dump() + " is not a whole number", &doc);
        record.epoch = epoch.get<std::uint64_t>();
        record.migrationId = optionalField<std::string>(doc, "migration_id", "");
        record.target = optionalField<std::string>(doc, "target", "");
        record.phase
            = parseMigrationPhase(optionalField<std::string>(doc, "phase", "done")).value_or(MigrationPhase::Done);
        record.pin = optionalField<std::string>(doc, "pin", "");
        record.paused = optionalField<bool>(doc, "paused", false);
        return record;
    });
}

} // namespace

Result<SpaceRecord> decodeSpace(const std::string& text)
{
    std::optional<std::int64_t> negativeEpoch;
    auto record = decodeSpaceFields(text, negativeEpoch);
    if (!record)
        return record;
    // Every epoch a router pushes to a node and a migration adds one to comes from here.
    if (negativeEpoch || record->epoch > kMaxEpoch)
        return makeError(ErrorCode::InvalidArgument,
            "stored space record " + record->id + ": epoch "
                + (negativeEpoch ? std::to_string(*negativeEpoch) : std::to_string(record->epoch)) + " is outside 0 to "
                + std::to_string(kMaxEpoch) + " (2^62), the epochs a space can have");
    return record;
}

Result<MigrationSettings> decodeMigrationSettings(const std::string& text)
{
    return decodeWith<MigrationSettings>(text, "migration settings", [](const json& doc) {
        const MigrationSettings defaults;
        MigrationSettings settings;
        settings.maxConcurrent = optionalField<std::uint32_t>(doc, "max_concurrent", defaults.maxConcurrent);
        settings.maxPerNode = optionalField<std::uint32_t>(doc, "max_per_node", defaults.maxPerNode);
        settings.maxPerShard = optionalField<std::uint32_t>(doc, "max_per_shard", defaults.maxPerShard);
        settings.defaultThrottleDocsPerSecond = optionalField<std::uint64_t>(
            doc, "default_throttle_docs_per_second", defaults.defaultThrottleDocsPerSecond);
        settings.backfillBatch = optionalField<std::uint32_t>(doc, "backfill_batch", defaults.backfillBatch);
        settings.rollbackWindowSeconds
            = optionalField<std::uint64_t>(doc, "rollback_window_seconds", defaults.rollbackWindowSeconds);
        settings.cutoverTimeoutMs = optionalField<std::uint64_t>(doc, "cutover_timeout_ms", defaults.cutoverTimeoutMs);
        settings.cleanupRowsPerSecond
            = optionalField<std::uint32_t>(doc, "cleanup_rows_per_second", defaults.cleanupRowsPerSecond);
        settings.maxTargetFill = optionalField<double>(doc, "max_target_fill", defaults.maxTargetFill);
        settings.maxRepairs = optionalField<std::uint32_t>(doc, "max_repairs", defaults.maxRepairs);
        settings.startRetrySeconds
            = optionalField<std::uint64_t>(doc, "start_retry_seconds", defaults.startRetrySeconds);
        settings.defaultEngine = engineField(doc, "default_engine", defaults.defaultEngine);
        settings.replicationFactor
            = optionalField<std::uint32_t>(doc, "replication_factor", defaults.replicationFactor);
        const auto quorum
            = parseWriteQuorum(optionalField<std::string>(doc, "write_quorum", writeQuorumName(defaults.writeQuorum)));
        if (!quorum)
            throw json::other_error::create(501, "unknown write quorum " + doc.at("write_quorum").dump(), &doc);
        settings.writeQuorum = *quorum;
        settings.failoverAfterMs = optionalField<std::uint64_t>(doc, "failover_after_ms", defaults.failoverAfterMs);
        settings.loseNodeAfterMs = optionalField<std::uint64_t>(doc, "lose_node_after_ms", defaults.loseNodeAfterMs);
        settings.maxReReplications
            = optionalField<std::uint32_t>(doc, "max_re_replications", defaults.maxReReplications);
        settings.snapshotRepository = optionalField<std::string>(doc, "snapshot_repository", "");
        settings.snapshotIntervalSeconds = optionalField<std::uint64_t>(doc, "snapshot_interval_seconds", 0);
        settings.snapshotKeep = optionalField<std::uint32_t>(doc, "snapshot_keep", defaults.snapshotKeep);
        settings.snapshotMaxAgeSeconds = optionalField<std::uint64_t>(doc, "snapshot_max_age_seconds", 0);
        settings.snapshotPauseMs = optionalField<std::uint32_t>(doc, "snapshot_pause_ms", defaults.snapshotPauseMs);
        return settings;
    });
}

namespace {

Status decodeRecord(MapSnapshot& map, const std::string& key, const StoredRecord& record)
{
    if (key.starts_with(keys::kNodes))
        return decodeInto(map.nodes, record, decodeNode);
    if (key.starts_with(keys::kShards))
        return decodeInto(map.shards, record, decodeShard);
    if (key.starts_with(keys::kSpaces))
        return decodeInto(map.spaces, record, decodeSpace);
    if (key.starts_with(keys::kMigrations) || key.starts_with(keys::kArchivedMigrations))
        return decodeInto(map.migrations, record, decodeMigration);
    if (key.starts_with(keys::kOperations))
        return decodeInto(map.operations, record, decodeOperation);
    if (key.starts_with(keys::kTemplates)) {
        auto decoded = decodeIndexTemplate(record.value);
        if (!decoded)
            return makeError(decoded.error().code, decoded.error().message, record.key);
        map.templates.emplace(key.substr(keys::kTemplates.size()),
            Versioned<IndexTemplateRecord> { std::move(*decoded), record.modRevision });
        return {};
    }
    if (key == keys::kMigrationSettings) {
        auto settings = decodeMigrationSettings(record.value);
        if (!settings)
            return makeError(settings.error().code, settings.error().message, record.key);
        map.settings = { std::move(*settings), record.modRevision };
    }
    return {};
}

} // namespace

Result<MapSnapshot> MapSnapshot::decode(const StoreSnapshot& snapshot)
{
    MapSnapshot map;
    map.revision = snapshot.revision;
    for (const auto& [key, record] : snapshot.records) {
        if (Status status = decodeRecord(map, key, record); !status)
            return status.error();
    }
    return map;
}

namespace {

// Below this many spaces one thread decodes faster than several start.
constexpr std::size_t kParallelSpaces = 50'000;

using SpaceRecords = std::map<std::string, Versioned<SpaceRecord>>;
using RawRecords = std::map<std::string, StoredRecord>;

// Decodes [first, last) into spaces, freeing each raw value as it goes (the keys stay until the
// caller erases the range: other threads walk the same tree).
Status decodeSpaces(RawRecords::iterator first, RawRecords::iterator last, SpaceRecords& spaces)
{
    for (; first != last; ++first) {
        StoredRecord& record = first->second;
        if (Status status = decodeInto(spaces, record, decodeSpace); !status)
            return status;
        std::string().swap(record.value);
    }
    return {};
}

// The space records, most of a large map, on several threads, each into its own map of a
// contiguous key range; the ranges are joined in order by relinking their nodes.
Status decodeSpacesInParallel(RawRecords& records, SpaceRecords& spaces, std::size_t threads)
{
    const auto first = records.lower_bound(std::string(keys::kSpaces));
    auto last = first;
    std::size_t count = 0;
    while (last != records.end() && last->first.starts_with(keys::kSpaces)) {
        ++last;
        ++count;
    }
    if (count < kParallelSpaces || threads < 2) {
        if (Status status = decodeSpaces(first, last, spaces); !status)
            return status;
        records.erase(first, last);
        return {};
    }
    std::vector<RawRecords::iterator> bounds { first };
    for (std::size_t t = 1; t < threads; ++t)
        bounds.push_back(std::next(bounds.back(), static_cast<std::ptrdiff_t>(count / threads)));
    bounds.push_back(last);
    std::vector<SpaceRecords> parts(threads);
    std::vector<Status> results(threads);
    {
        std::vector<std::jthread> workers;
        for (std::size_t t = 1; t < threads; ++t)
            workers.emplace_back([&, t] { results[t] = decodeSpaces(bounds[t], bounds[t + 1], parts[t]); });
        results[0] = decodeSpaces(bounds[0], bounds[1], parts[0]);
    }
    records.erase(first, last);
    for (std::size_t t = 0; t < threads; ++t) {
        if (!results[t])
            return results[t]; // the first bad record in key order, as one thread would find it
    }
    for (SpaceRecords& part : parts) {
        while (!part.empty())
            spaces.insert(spaces.end(), part.extract(part.begin()));
    }
    return {};
}

} // namespace

Result<MapSnapshot> MapSnapshot::decode(StoreSnapshot&& snapshot)
{
    // Each raw record goes as soon as it is decoded: a million spaces' JSON and their decoded
    // records are never in memory together. Records before the spaces come first, so that the
    // first bad record in key order is the one reported, however many threads decode.
    MapSnapshot map;
    map.revision = snapshot.revision;
    auto& records = snapshot.records;
    while (!records.empty() && records.begin()->first < keys::kSpaces) {
        const auto node = records.extract(records.begin());
        if (Status status = decodeRecord(map, node.key(), node.mapped()); !status)
            return status.error();
    }
    const std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 4);
    if (Status status = decodeSpacesInParallel(records, map.spaces, threads); !status)
        return status.error();
    while (!records.empty()) {
        const auto node = records.extract(records.begin());
        if (Status status = decodeRecord(map, node.key(), node.mapped()); !status)
            return status.error();
    }
    return map;
}

const NodeRecord* MapSnapshot::node(const std::string& id) const
{
    return findIn(nodes, id);
}
const ShardRecord* MapSnapshot::shard(const std::string& id) const
{
    return findIn(shards, id);
}
const SpaceRecord* MapSnapshot::space(const std::string& id) const
{
    return findIn(spaces, id);
}

void MapSnapshot::buildIndex()
{
    m_index.reset(std::make_unique<const MapIndex>(*this));
}

std::vector<const SpaceRecord*> MapSnapshot::spacesOn(const std::string& shardId) const
{
    if (const MapIndex* index = m_index.get())
        return index->spacesOn(shardId);
    std::vector<const SpaceRecord*> out;
    for (const auto& [id, space] : spaces) {
        if (space.value.shard == shardId || (!space.value.target.empty() && space.value.target == shardId))
            out.push_back(&space.value);
    }
    return out;
}

std::vector<const ShardRecord*> MapSnapshot::shardsOn(const std::string& nodeId) const
{
    if (const MapIndex* index = m_index.get())
        return index->shardsOn(nodeId);
    std::vector<const ShardRecord*> out;
    for (const auto& [id, shard] : shards) {
        if (shard.value.node == nodeId)
            out.push_back(&shard.value);
    }
    return out;
}

std::vector<const ShardRecord*> MapSnapshot::copiesOn(const std::string& nodeId) const
{
    if (const MapIndex* index = m_index.get())
        return index->copiesOn(nodeId);
    std::vector<const ShardRecord*> out;
    for (const auto& [id, shard] : shards) {
        if (shard.value.replicaOn(nodeId))
            out.push_back(&shard.value);
    }
    return out;
}

} // namespace shardmap::core
