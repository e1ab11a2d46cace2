#include "core/shard/shard_store.h"

// ShardStore's implementation, the shard file itself: creating and opening it (private modes, the
// schema and its upgrade), the writer's statements, the reader pool, the ownerships that fence
// writers, and checkpoints.

#include "core/shard/shard_index.h"
#include "core/shard/shard_internal.h"
#include "core/util/failpoint.h"
#include "core/util/log.h"
#include "core/util/validation.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

namespace shardmap::core {

using namespace shard_internal;

namespace {

// 2 (issue 14): docs.chash, the content hash of each row, and spaces.checksum over every row's
// content (core/shard/document.h). Files of version 1 are upgraded when opened.
// 3 (issue 29): a shard whose index is Xapian (meta.engine); FTS5 shards stay version 2, so that
// a node before issue 29 still opens them, and refuses a Xapian shard as too new.
// 4 (issue 31): index settings (meta.index_settings) that a node before issue 31 would misapply,
// for either engine (meta.engine says which): it would rank with every weight 1, search stored-only
// fields (Xapian: index them), or index a Xapian shard's words with unicode61. Settings it would
// apply alike (every field indexed at weight 1, and on Xapian today's tokenizer) keep 2 or 3, so
// such a file stays readable by older nodes. A file without meta.index_settings has today's index.
constexpr int kSchemaVersion = 2;
constexpr int kXapianSchemaVersion = 3;
constexpr int kIndexSettingsSchemaVersion = 4;

bool olderNodesIndexAlike(IndexEngine engine, const IndexSettings& settings)
{
    for (const IndexField& field : settings.fields) {
        if (!field.indexed || field.weight != 1.0)
            return false;
    }
    // FTS5 keeps its tokenizer and prefixes in its own table, which any node reads; Xapian's
    // tokens are the node's to make.
    const IndexSettings today = defaultIndexSettings();
    return engine == IndexEngine::Fts5
        || (settings.tokenizer == today.tokenizer && settings.removeDiacritics == today.removeDiacritics
            && settings.tokenChars == today.tokenChars);
}

int schemaVersionFor(IndexEngine engine, const IndexSettings& settings)
{
    if (!olderNodesIndexAlike(engine, settings))
        return kIndexSettingsSchemaVersion;
    return engine == IndexEngine::Xapian ? kXapianSchemaVersion : kSchemaVersion;
}

Status validateNewShard(const std::string& shardId, const ShardStoreOptions& options)
{
    if (auto status = validateShardId(shardId); !status)
        return status;
    if (auto status = validateIndexSettings(options.index); !status)
        return status;
    return ShardIndex::checkSettings(options.engine, options.index);
}

constexpr std::array<const char*, 3> kShardFileSuffixes { "", "-wal", "-shm" };

// SQLite creates a database 0644 (less the umask) and gives its -wal and -shm files the
// database's mode, so a database created 0600 first keeps every file of the shard its user's.
Status createPrivateFile(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return makeError(errno == EEXIST ? ErrorCode::AlreadyExists : ErrorCode::Unavailable,
            std::string("cannot create the shard file: ") + std::strerror(errno), path);
    ::close(fd);
    return {};
}

// Shard files made before they were created private (or copied in by hand) lose what others
// could read or anyone but their user could write: at most 0640, the group may back them up.
void tightenShardFiles(const std::string& path)
{
    for (const char* suffix : kShardFileSuffixes) {
        const std::string file = path + suffix;
        struct stat info { };
        if (::stat(file.c_str(), &info) == 0 && (info.st_mode & 0037) != 0)
            (void)::chmod(file.c_str(), info.st_mode & 0640);
    }
}

} // namespace

Error shard_internal::ownershipRefusal(
    const std::string& shard, const Ownership& held, std::uint64_t sentEpoch, std::string why)
{
    Error error = makeError(ErrorCode::FailedPrecondition, std::move(why), shard);
    error.details = { { "shard", shard }, { "space", held.space }, { "held_epoch", std::to_string(held.epoch) },
        { "held_role", std::to_string(static_cast<int>(held.role)) }, { "sent_epoch", std::to_string(sentEpoch) } };
    return error;
}

Result<std::unique_ptr<ShardStore>> ShardStore::create(
    const std::string& path, const std::string& shardId, const ShardStoreOptions& options)
{
    if (std::filesystem::exists(path))
        return makeError(ErrorCode::AlreadyExists, "shard file already exists", path);
    if (auto status = validateNewShard(shardId, options); !status)
        return status.error();
    if (auto status = createPrivateFile(path); !status)
        return status.error();
    std::unique_ptr<ShardStore> store(new ShardStore());
    store->m_path = path;
    if (auto status = store->initialise(true, shardId, options); !status) {
        store.reset();
        removeFiles(path);
        return status.error();
    }
    return store;
}

Result<std::unique_ptr<ShardStore>> ShardStore::open(const std::string& path, const ShardStoreOptions& options)
{
    if (!std::filesystem::exists(path))
        return makeError(ErrorCode::NotFound, "shard file does not exist", path);
    tightenShardFiles(path);
    std::unique_ptr<ShardStore> store(new ShardStore());
    store->m_path = path;
    if (auto status = store->initialise(false, {}, options); !status) {
        Error error = status.error();
        if (error.context.empty())
            error.context = path;
        return error;
    }
    return store;
}

void ShardStore::removeFiles(const std::string& path)
{
    std::error_code ignored;
    for (const char* suffix : kShardFileSuffixes)
        std::filesystem::remove(path + suffix, ignored);
    ShardIndex::removeFiles(path);
}

ShardStore::~ShardStore()
{
    std::lock_guard lock(m_writeMutex);
    // The index first: it checkpoints through the writer's connection.
    m_index.reset();
    m_stmts.reset();
    if (m_writer.handle())
        (void)m_writer.exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

Status ShardStore::initialise(bool create, const std::string& shardId, const ShardStoreOptions& options)
{
    m_options = options;
    auto writer = SqliteDb::open(m_path, { .readOnly = false, .create = create, .busyTimeoutMs = 5000 });
    if (!writer)
        return writer.error();
    m_writer = std::move(*writer);
    const std::string pragmas = std::string("PRAGMA journal_mode=WAL; PRAGMA synchronous=")
        + (options.syncFull ? "FULL" : "NORMAL") + "; PRAGMA secure_delete=OFF; PRAGMA cache_size=-32768;"
        + " PRAGMA foreign_keys=ON;";
    if (auto status = m_writer.exec(pragmas); !status)
        return status;
    if (create) {
        if (auto status = createSchema(shardId, options); !status)
            return status;
    } else if (options.checkOnOpen) {
        auto check = m_writer.queryText("PRAGMA quick_check");
        if (!check)
            return check.error();
        if (*check != "ok")
            return makeError(ErrorCode::Internal, "integrity check failed: " + *check, m_path);
    }
    if (options.maxBytes > 0) {
        const std::string limit
            = "PRAGMA max_page_count=" + std::to_string(std::max<std::uint64_t>(options.maxBytes / 4096, 16));
        if (auto status = m_writer.exec(limit); !status)
            return status;
    }
    if (auto status = loadSchema(); !status)
        return status;
    if (auto status = loadOwnerships(); !status)
        return status;
    if (auto status = prepareWriteStatements(); !status)
        return status;
    return openIndex();
}

Status ShardStore::openIndex()
{
    auto index = ShardIndex::open(m_engine, m_writer, m_path, m_settings);
    if (!index)
        return makeError(index.error().code,
            "opening the shard's " + std::string(indexEngineName(m_engine)) + " index: " + index.error().message,
            m_path);
    m_index = std::move(*index);
    return {};
}

void ShardStore::indexCommitted()
{
    // The transaction is in the file whatever the index says; an index that cannot take it now
    // keeps it in its log and takes it at the next commit, checkpoint or open (xapian_engine.h).
    (void)failpoint("shard.index.before_apply");
    auto status = m_index->committed();
    (void)failpoint("shard.index.applied");
    if (!status && m_options.log)
        m_options.log(LogLevel::Warn, "shard " + m_id + ": its index lags its file: " + status.error().describe());
}

Status ShardStore::createSchema(const std::string& shardId, const ShardStoreOptions& options)
{
    if (auto status = validateNewShard(shardId, options); !status)
        return status;
    const std::string sql = "PRAGMA page_size=4096; BEGIN IMMEDIATE;"
                            "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;"
                            "CREATE TABLE docs(rowid INTEGER PRIMARY KEY, space TEXT NOT NULL, id TEXT NOT NULL,"
                            " version INTEGER NOT NULL, deleted INTEGER NOT NULL, bytes INTEGER NOT NULL, extra TEXT,"
                            " chash INTEGER NOT NULL DEFAULT 0, UNIQUE(space, id));"
                            "CREATE TABLE spaces(space TEXT PRIMARY KEY, live INTEGER NOT NULL, bytes INTEGER NOT NULL,"
                            " checksum INTEGER NOT NULL, tombstones INTEGER NOT NULL) WITHOUT ROWID;"
                            "CREATE TABLE ownership(space TEXT PRIMARY KEY, role INTEGER NOT NULL, epoch INTEGER NOT "
                            "NULL) WITHOUT ROWID;";
    auto rollback = [this](const Status& status) {
        (void)m_writer.exec("ROLLBACK");
        return status;
    };
    if (auto status = m_writer.exec(sql); !status)
        return rollback(status);
    if (auto status = ShardIndex::createTables(options.engine, m_writer, options.index); !status)
        return rollback(status);
    auto insertMeta = m_writer.prepare("INSERT INTO meta(key, value) VALUES (?, ?)");
    if (!insertMeta)
        return rollback(insertMeta.error());
    // meta.fields stays every field's name, as older nodes read it.
    const nlohmann::json fieldList = options.index.fieldNames();
    for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>> {
             { "schema_version", std::to_string(schemaVersionFor(options.engine, options.index)) },
             { "shard_id", shardId }, { "fields", fieldList.dump() }, { "engine", indexEngineName(options.engine) },
             { "index_settings", encodeIndexSettings(options.index) } }) {
        if (auto status = insertMeta->bind(1, key).bind(2, value).run(); !status)
            return rollback(status);
    }
    return m_writer.exec("COMMIT");
}

Status ShardStore::loadSchema()
{
    auto version = m_writer.queryText("SELECT value FROM meta WHERE key = 'schema_version'");
    if (!version)
        return makeError(version.error().code, "not a shard file: " + version.error().message, m_path);
    if (std::stoi(*version) > kIndexSettingsSchemaVersion)
        return makeError(ErrorCode::FailedPrecondition,
            "shard schema version " + *version + " is newer than this node understands", m_path);
    auto id = m_writer.queryText("SELECT value FROM meta WHERE key = 'shard_id'");
    auto fields = m_writer.queryText("SELECT value FROM meta WHERE key = 'fields'");
    if (!id || !fields)
        return makeError(ErrorCode::Internal, "shard metadata incomplete", m_path);
    m_id = *id;
    const auto parsed = nlohmann::json::parse(*fields, nullptr, false);
    if (!parsed.is_array())
        return makeError(ErrorCode::Internal, "shard field list is not a JSON array", m_path);
    m_fields = parsed.get<std::vector<std::string>>();
    if (auto status = loadEngine(std::stoi(*version)); !status)
        return status;
    if (auto status = loadIndexSettings(); !status)
        return status;
    if (const int found = std::stoi(*version); found < kSchemaVersion)
        return upgradeSchema(found);
    return {};
}

// A file without meta.engine is FTS5's (every shard made before issue 29).
Status ShardStore::loadEngine(int version)
{
    auto name = m_writer.queryText("SELECT value FROM meta WHERE key = 'engine'");
    if (!name && name.error().code != ErrorCode::NotFound)
        return name.error();
    auto engine = name ? parseIndexEngine(*name) : Result<IndexEngine>(IndexEngine::Fts5);
    if (!engine)
        return makeError(ErrorCode::FailedPrecondition, "the shard's " + engine.error().message, m_path);
    if (version >= kSchemaVersion && version != kIndexSettingsSchemaVersion
        && schemaVersionFor(*engine, defaultIndexSettings()) != version)
        return makeError(ErrorCode::Internal,
            "shard schema version " + std::to_string(version) + " does not go with its index engine " + *name, m_path);
    m_engine = *engine;
    return {};
}

// A file without meta.index_settings (every shard made before issue 31) has today's index over the
// fields meta.fields lists: unicode61 removing diacritics, prefixes 2 and 3, every field weight 1.
Status ShardStore::loadIndexSettings()
{
    auto json = m_writer.queryText("SELECT value FROM meta WHERE key = 'index_settings'");
    if (!json && json.error().code != ErrorCode::NotFound)
        return json.error();
    if (!json) {
        m_settings = defaultIndexSettings();
        m_settings.fields.clear();
        for (const std::string& name : m_fields)
            m_settings.fields.push_back({ name, true, 1.0 });
        return {};
    }
    auto settings = decodeIndexSettings(*json);
    if (!settings)
        return makeError(ErrorCode::FailedPrecondition, "the shard's " + settings.error().message, m_path);
    if (settings->fieldNames() != m_fields)
        return makeError(
            ErrorCode::Internal, "the shard's index settings name other fields than its field list", m_path);
    m_settings = std::move(*settings);
    return {};
}

// Version 1 to 2: each row's content hash, and each space's checksum over them, in one
// transaction (a crash leaves version 1, upgraded again at the next open).
Status ShardStore::upgradeSchema(int from)
{
    if (from != 1)
        return makeError(ErrorCode::FailedPrecondition,
            "shard schema version " + std::to_string(from) + " cannot be upgraded", m_path);
    auto rollback = [this](const Error& error) -> Status {
        (void)m_writer.exec("ROLLBACK");
        return makeError(error.code, "upgrading the shard file to schema 2: " + error.message, m_path);
    };
    if (auto status = m_writer.exec("BEGIN IMMEDIATE; ALTER TABLE docs ADD COLUMN chash INTEGER NOT NULL DEFAULT 0;");
        !status)
        return rollback(status.error());
    auto select = m_writer.prepare("SELECT d.rowid, d.space, d.id, d.version, d.deleted"
        + joinColumns(textColumns(m_fields), "f.") + ", d.extra FROM docs d LEFT JOIN fts f ON f.rowid = d.rowid");
    auto update = m_writer.prepare("UPDATE docs SET chash = ?2 WHERE rowid = ?1");
    auto sum = m_writer.prepare("UPDATE spaces SET checksum = ?2 WHERE space = ?1");
    if (!select || !update || !sum)
        return rollback(!select ? select.error() : !update ? update.error() : sum.error());
    std::vector<std::pair<std::int64_t, std::uint64_t>> hashes;
    std::unordered_map<std::string, std::uint64_t> checksums;
    while (true) {
        auto row = select->step();
        if (!row)
            return rollback(row.error());
        if (!*row)
            break;
        const Document doc = documentFromRow(*select, m_fields, select->columnText(1), 2);
        const std::uint64_t hash = contentHash(doc);
        hashes.emplace_back(select->columnInt(0), hash);
        checksums[doc.space] += rowTerm(doc.id, hash);
    }
    select->reset();
    for (const auto& [rowid, hash] : hashes) {
        if (auto status = update->bind(1, rowid).bind(2, asStored(hash)).run(); !status)
            return rollback(status.error());
    }
    for (const auto& [space, checksum] : checksums) {
        if (auto status = sum->bind(1, space).bind(2, asStored(checksum)).run(); !status)
            return rollback(status.error());
    }
    if (auto status = m_writer.exec("UPDATE meta SET value = '2' WHERE key = 'schema_version'; COMMIT;"); !status)
        return rollback(status.error());
    return {};
}

Status ShardStore::loadOwnerships()
{
    auto stmt = m_writer.prepare("SELECT space, role, epoch FROM ownership");
    if (!stmt)
        return stmt.error();
    std::lock_guard lock(m_ownershipMutex);
    while (true) {
        auto row = stmt->step();
        if (!row)
            return row.error();
        if (!*row)
            return {};
        Ownership own { stmt->columnText(0), static_cast<SpaceRole>(stmt->columnInt(1)),
            fromStored(stmt->columnInt(2)) };
        m_ownerships[own.space] = own;
    }
}

Status ShardStore::prepareWriteStatements()
{
    auto lookup
        = m_writer.prepare("SELECT rowid, version, deleted, bytes, chash FROM docs WHERE space = ?1 AND id = ?2");
    auto insertDoc = m_writer.prepare(
        "INSERT INTO docs(space, id, version, deleted, bytes, extra, chash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    auto updateDoc = m_writer.prepare(
        "UPDATE docs SET version = ?2, deleted = ?3, bytes = ?4, extra = ?5, chash = ?6 WHERE rowid = ?1");
    // Aggregates are read, added in C++ and written back: SQLite would turn an overflowing
    // integer sum into a REAL, and the checksum needs arithmetic modulo 2^64.
    auto readSpace = m_writer.prepare("SELECT live, bytes, checksum, tombstones FROM spaces WHERE space = ?1");
    auto upsert
        = m_writer.prepare("INSERT INTO spaces(space, live, bytes, checksum, tombstones) VALUES (?1, ?2, ?3, ?4, ?5)"
                           " ON CONFLICT(space) DO UPDATE SET live = ?2, bytes = ?3, checksum = ?4, tombstones = ?5");
    for (auto* prepared : { &lookup, &insertDoc, &updateDoc, &readSpace, &upsert }) {
        if (!*prepared)
            return prepared->error();
    }
    m_stmts = std::make_unique<WriteStatements>(WriteStatements {
        std::move(*lookup), std::move(*insertDoc), std::move(*updateDoc), std::move(*readSpace), std::move(*upsert) });
    return {};
}

Result<ShardStore::ReaderLease> ShardStore::acquireReader()
{
    {
        std::lock_guard lock(m_readerMutex);
        if (!m_readers.empty()) {
            SqliteDb db = std::move(m_readers.back());
            m_readers.pop_back();
            return ReaderLease(this, std::move(db));
        }
    }
    auto db = SqliteDb::open(m_path, { .readOnly = false, .create = false, .busyTimeoutMs = 5000 });
    if (!db)
        return db.error();
    // Readers map the file: large shards are read far more than written, and mmap avoids a copy
    // through the page cache for every FTS5 segment page.
    if (auto status = db->exec("PRAGMA query_only=1; PRAGMA cache_size=-8192; PRAGMA mmap_size=1073741824;"); !status)
        return status.error();
    return ReaderLease(this, std::move(*db));
}

void ShardStore::releaseReader(SqliteDb db)
{
    std::lock_guard lock(m_readerMutex);
    if (m_readers.size() < m_options.readerConnections)
        m_readers.push_back(std::move(db));
}

Result<Ownership> ShardStore::setOwnership(const Ownership& ownership)
{
    if (auto status = validateSpaceId(ownership.space); !status)
        return status.error();
    if (ownership.role == SpaceRole::None || static_cast<int>(ownership.role) > static_cast<int>(SpaceRole::Fenced))
        return makeError(ErrorCode::InvalidArgument, "role must be owner, migration target or fenced");
    if (auto status = validateEpoch(ownership.epoch); !status)
        return status.error();
    std::lock_guard writeLock(m_writeMutex);
    {
        std::lock_guard lock(m_ownershipMutex);
        const auto found = m_ownerships.find(ownership.space);
        if (found != m_ownerships.end() && found->second.epoch > ownership.epoch)
            return ownershipRefusal(m_id, found->second, ownership.epoch,
                "stale epoch " + std::to_string(ownership.epoch) + " for space " + ownership.space + "; shard " + m_id
                    + " holds epoch " + std::to_string(found->second.epoch));
    }
    auto stmt = m_writer.prepare("INSERT INTO ownership(space, role, epoch) VALUES (?1, ?2, ?3)"
                                 " ON CONFLICT(space) DO UPDATE SET role = ?2, epoch = ?3");
    if (!stmt)
        return stmt.error();
    stmt->bind(1, ownership.space)
        .bind(2, std::int64_t { static_cast<int>(ownership.role) })
        .bind(3, asStored(ownership.epoch));
    // Durable before acknowledged, whatever the shard's synchronous setting: under NORMAL a power
    // loss could undo a fence the executor was told about and make the old owner an owner again
    // (issue 14). Ownership changes are rare; documents keep group commit under NORMAL.
    const bool relaxed = !m_options.syncFull;
    if (relaxed) {
        if (auto status = m_writer.exec("PRAGMA synchronous=FULL"); !status)
            return status.error();
    }
    auto ran = stmt->run();
    if (relaxed) {
        if (auto status = m_writer.exec("PRAGMA synchronous=NORMAL"); !status && ran)
            ran = status;
    }
    if (!ran)
        return ran.error();
    std::lock_guard lock(m_ownershipMutex);
    m_ownerships[ownership.space] = ownership;
    return ownership;
}

std::vector<Ownership> ShardStore::ownerships(std::string_view space) const
{
    std::lock_guard lock(m_ownershipMutex);
    std::vector<Ownership> out;
    for (const auto& [name, own] : m_ownerships) {
        if (space.empty() || name == space)
            out.push_back(own);
    }
    std::sort(out.begin(), out.end(), [](const Ownership& a, const Ownership& b) { return a.space < b.space; });
    return out;
}

Status ShardStore::checkpoint()
{
    std::lock_guard lock(m_writeMutex);
    if (auto status = m_index->checkpoint(); !status)
        return status;
    return m_writer.exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

std::uint64_t ShardStore::bytesOnDisk() const
{
    std::uint64_t total = 0;
    std::error_code error;
    for (const char* suffix : kShardFileSuffixes) {
        const auto size = std::filesystem::file_size(m_path + suffix, error);
        if (!error)
            total += size;
    }
    return total + (m_index ? m_index->bytesBeside() : 0);
}

ShardActivity ShardStore::activity() const
{
    std::lock_guard lock(m_activityMutex);
    return m_activity;
}

} // namespace shardmap::core
