#include "core/shard/shard_store.h"

#include "core/shard/shard_internal.h"
#include "core/util/validation.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

namespace shardmap::core {

using namespace shard_internal;

namespace {

// 2 (issue 14): docs.chash, the content hash of each row, and spaces.checksum over every row's
// content (core/shard/document.h). Files of version 1 are upgraded when opened.
constexpr int kSchemaVersion = 2;

Status validateItem(const Document& doc)
{
    if (auto status = validateSpaceId(doc.space); !status)
        return status;
    if (auto status = validateDocId(doc.id); !status)
        return status;
    if (doc.version == 0)
        return makeError(ErrorCode::InvalidArgument, "version must be at least 1");
    if (doc.version > static_cast<std::uint64_t>(INT64_MAX))
        return makeError(ErrorCode::InvalidArgument, "version must be below 2^63");
    if (doc.deleted && !doc.fields.empty())
        return makeError(ErrorCode::InvalidArgument, "a tombstone carries no fields");
    if (documentBytes(doc) > kMaxDocumentBytes)
        return makeError(ErrorCode::InvalidArgument,
            "document is " + std::to_string(documentBytes(doc)) + " bytes; the limit is "
                + std::to_string(kMaxDocumentBytes));
    for (const auto& [name, value] : doc.fields) {
        if (auto status = validateFieldName(name); !status)
            return status;
        if (!isValidUtf8(value))
            return makeError(ErrorCode::InvalidArgument, "field '" + name + "' is not valid UTF-8");
    }
    return {};
}

// A row entering (sign +1) or leaving (-1) a space's aggregates. Unsigned arithmetic wraps
// modulo 2^64, which is what the sums need.
void addRow(SpaceStats& delta, bool deleted, std::uint64_t bytes, std::uint64_t term, int sign)
{
    const auto factor = static_cast<std::uint64_t>(static_cast<std::int64_t>(sign));
    delta.checksum += factor * term;
    if (deleted) {
        delta.tombstones += factor;
        return;
    }
    delta.liveDocs += factor;
    delta.bytesEstimate += factor * bytes;
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

struct ShardStore::PendingBatch {
    std::vector<WriteItem> items;
    bool repair = false;
    // A slice of a backfill: committed only when no other batch is queued.
    bool background = false;
    bool done = false;
    Result<WriteSummary> result = WriteSummary {};
};

struct ShardStore::WriteStatements {
    Statement lookup;
    Statement insertDoc;
    Statement updateDoc;
    Statement ftsInsert;
    Statement ftsDelete;
    Statement readSpace;
    Statement upsertSpace;
};

Result<std::unique_ptr<ShardStore>> ShardStore::create(
    const std::string& path, const std::string& shardId, const ShardStoreOptions& options)
{
    if (std::filesystem::exists(path))
        return makeError(ErrorCode::AlreadyExists, "shard file already exists", path);
    if (auto status = createPrivateFile(path); !status)
        return status.error();
    std::unique_ptr<ShardStore> store(new ShardStore());
    store->m_path = path;
    if (auto status = store->initialise(true, shardId, options); !status) {
        store.reset();
        std::error_code ignored;
        for (const char* suffix : kShardFileSuffixes)
            std::filesystem::remove(path + suffix, ignored);
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

ShardStore::~ShardStore()
{
    std::lock_guard lock(m_writeMutex);
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
    return prepareWriteStatements();
}

Status ShardStore::createSchema(const std::string& shardId, const ShardStoreOptions& options)
{
    if (auto status = validateShardId(shardId); !status)
        return status;
    if (options.fields.empty() || options.fields.size() > kMaxSchemaFields)
        return makeError(
            ErrorCode::InvalidArgument, "a shard needs 1-" + std::to_string(kMaxSchemaFields) + " searchable fields");
    std::set<std::string> seen;
    for (const auto& field : options.fields) {
        if (auto status = validateFieldName(field); !status)
            return status;
        if (!seen.insert(field).second)
            return makeError(ErrorCode::InvalidArgument, "field '" + field + "' is listed twice");
    }
    const std::string names = joinColumns(textColumns(options.fields), "");
    // The FTS5 table keeps the text itself (no external content): deleting a row then needs only
    // its rowid, and rows are written explicitly rather than by triggers, because SQLite 3.40
    // flushes FTS5's pending data at every statement savepoint a trigger opens (measured: half
    // the ingest rate; docs/BENCHMARKS.md).
    const std::string sql = "PRAGMA page_size=4096; BEGIN IMMEDIATE;"
                            "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;"
                            "CREATE TABLE docs(rowid INTEGER PRIMARY KEY, space TEXT NOT NULL, id TEXT NOT NULL,"
                            " version INTEGER NOT NULL, deleted INTEGER NOT NULL, bytes INTEGER NOT NULL, extra TEXT,"
                            " chash INTEGER NOT NULL DEFAULT 0, UNIQUE(space, id));"
                            "CREATE VIRTUAL TABLE fts USING fts5(sp"
        + names
        + ", prefix='2 3', tokenize='unicode61 remove_diacritics 2');"
          "CREATE TABLE spaces(space TEXT PRIMARY KEY, live INTEGER NOT NULL, bytes INTEGER NOT NULL,"
          " checksum INTEGER NOT NULL, tombstones INTEGER NOT NULL) WITHOUT ROWID;"
          "CREATE TABLE ownership(space TEXT PRIMARY KEY, role INTEGER NOT NULL, epoch INTEGER NOT NULL) WITHOUT "
          "ROWID;";
    if (auto status = m_writer.exec(sql); !status) {
        (void)m_writer.exec("ROLLBACK");
        return status;
    }
    auto insertMeta = m_writer.prepare("INSERT INTO meta(key, value) VALUES (?, ?)");
    if (!insertMeta)
        return insertMeta.error();
    const nlohmann::json fieldList = options.fields;
    for (const auto& [key, value] :
        std::vector<std::pair<std::string, std::string>> { { "schema_version", std::to_string(kSchemaVersion) },
            { "shard_id", shardId }, { "fields", fieldList.dump() } }) {
        if (auto status = insertMeta->bind(1, key).bind(2, value).run(); !status)
            return status;
    }
    return m_writer.exec("COMMIT");
}

Status ShardStore::loadSchema()
{
    auto version = m_writer.queryText("SELECT value FROM meta WHERE key = 'schema_version'");
    if (!version)
        return makeError(version.error().code, "not a shard file: " + version.error().message, m_path);
    if (std::stoi(*version) > kSchemaVersion)
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
    if (const int found = std::stoi(*version); found < kSchemaVersion)
        return upgradeSchema(found);
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
    const auto columns = textColumns(m_fields);
    std::string placeholders;
    for (std::size_t i = 0; i < columns.size(); ++i)
        placeholders += ", ?" + std::to_string(i + 3);
    auto lookup
        = m_writer.prepare("SELECT rowid, version, deleted, bytes, chash FROM docs WHERE space = ?1 AND id = ?2");
    auto insertDoc = m_writer.prepare(
        "INSERT INTO docs(space, id, version, deleted, bytes, extra, chash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    auto updateDoc = m_writer.prepare(
        "UPDATE docs SET version = ?2, deleted = ?3, bytes = ?4, extra = ?5, chash = ?6 WHERE rowid = ?1");
    auto ftsInsert = m_writer.prepare(
        "INSERT INTO fts(rowid, sp" + joinColumns(columns, "") + ") VALUES (?1, ?2" + placeholders + ")");
    auto ftsDelete = m_writer.prepare("DELETE FROM fts WHERE rowid = ?1");
    // Aggregates are read, added in C++ and written back: SQLite would turn an overflowing
    // integer sum into a REAL, and the checksum needs arithmetic modulo 2^64.
    auto readSpace = m_writer.prepare("SELECT live, bytes, checksum, tombstones FROM spaces WHERE space = ?1");
    auto upsert
        = m_writer.prepare("INSERT INTO spaces(space, live, bytes, checksum, tombstones) VALUES (?1, ?2, ?3, ?4, ?5)"
                           " ON CONFLICT(space) DO UPDATE SET live = ?2, bytes = ?3, checksum = ?4, tombstones = ?5");
    for (auto* prepared : { &lookup, &insertDoc, &updateDoc, &ftsInsert, &ftsDelete, &readSpace, &upsert }) {
        if (!*prepared)
            return prepared->error();
    }
    m_stmts = std::make_unique<WriteStatements>(
        WriteStatements { std::move(*lookup), std::move(*insertDoc), std::move(*updateDoc), std::move(*ftsInsert),
            std::move(*ftsDelete), std::move(*readSpace), std::move(*upsert) });
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

Result<WriteSummary> ShardStore::write(std::vector<WriteItem> items, WriteMode mode)
{
    if (items.size() > kMaxBatchItems)
        return makeError(ErrorCode::InvalidArgument,
            "batch has " + std::to_string(items.size()) + " items; the limit is " + std::to_string(kMaxBatchItems));
    if (mode == WriteMode::Backfill)
        return writeSliced(std::move(items));
    auto batch = std::make_shared<PendingBatch>();
    batch->items = std::move(items);
    batch->repair = mode == WriteMode::Repair;
    return enqueueAndWait(std::move(batch));
}

Result<WriteSummary> ShardStore::writeSliced(std::vector<WriteItem> items)
{
    // Every slice is queued at once: with no other writer they go in one transaction as before;
    // when a client's batch arrives, the commit in progress ends after the slice it is applying
    // and the client's batch goes next (commitGroup).
    const std::size_t slice = std::max<std::size_t>(1, m_options.backfillSliceItems);
    std::vector<std::shared_ptr<PendingBatch>> slices;
    for (std::size_t begin = 0; begin < items.size() || begin == 0; begin += slice) {
        const std::size_t end = std::min(items.size(), begin + slice);
        auto batch = std::make_shared<PendingBatch>();
        batch->items.assign(std::make_move_iterator(items.begin() + static_cast<std::ptrdiff_t>(begin)),
            std::make_move_iterator(items.begin() + static_cast<std::ptrdiff_t>(end)));
        batch->background = true;
        slices.push_back(std::move(batch));
        if (end == items.size())
            break;
    }
    enqueueAllAndWait(slices);
    WriteSummary total;
    total.results.reserve(items.size());
    for (const auto& batch : slices) {
        if (!batch->result)
            return batch->result.error();
        total.results.insert(total.results.end(), batch->result->results.begin(), batch->result->results.end());
        total.applied += batch->result->applied;
        total.stale += batch->result->stale;
        total.rejected += batch->result->rejected;
    }
    return total;
}

Result<WriteSummary> ShardStore::enqueueAndWait(std::shared_ptr<PendingBatch> batch)
{
    enqueueAllAndWait({ batch });
    return batch->result;
}

void ShardStore::enqueueAllAndWait(const std::vector<std::shared_ptr<PendingBatch>>& batches)
{
    // Whoever finds no commit in progress commits a group from the queue (ours included if we
    // are late); the others wait for it. A waiter whose batch went in an earlier group returns
    // as soon as that group is committed, however long the queue behind it.
    std::unique_lock queue(m_queueMutex);
    for (const auto& batch : batches) {
        m_queue.push_back(batch);
        if (!batch->background)
            ++m_clientBatchesQueued;
    }
    auto allDone
        = [&] { return std::all_of(batches.begin(), batches.end(), [](const auto& batch) { return batch->done; }); };
    while (!allDone()) {
        if (m_committing) {
            m_committed.wait(queue);
            continue;
        }
        auto group = takeGroup();
        m_committing = true;
        queue.unlock();
        std::vector<std::shared_ptr<PendingBatch>> leftover;
        {
            std::lock_guard write(m_writeMutex);
            leftover = commitGroup(group);
        }
        queue.lock();
        for (auto& committed : group)
            committed->done = true;
        // Backfill slices a client's batch cut short go first again after it.
        m_queue.insert(m_queue.begin(), leftover.begin(), leftover.end());
        m_committing = false;
        m_committed.notify_all();
    }
}

std::vector<std::shared_ptr<ShardStore::PendingBatch>> ShardStore::takeGroup()
{
    // Clients' batches first, all of them that fit; backfill slices only when none waits.
    std::vector<std::shared_ptr<PendingBatch>> group;
    std::size_t items = 0;
    for (auto it = m_queue.begin(); it != m_queue.end();) {
        if ((*it)->background) {
            ++it;
            continue;
        }
        if (!group.empty() && items + (*it)->items.size() > m_options.maxGroupItems)
            break;
        items += (*it)->items.size();
        --m_clientBatchesQueued;
        group.push_back(std::move(*it));
        it = m_queue.erase(it);
    }
    if (group.empty()) {
        // No client's batch waits (the queue holds only backfill slices): those at its front, up
        // to backfillGroupItems, in one transaction.
        const std::size_t limit = std::min(m_options.maxGroupItems, m_options.backfillGroupItems);
        while (!m_queue.empty() && (group.empty() || items + m_queue.front()->items.size() <= limit)) {
            items += m_queue.front()->items.size();
            group.push_back(std::move(m_queue.front()));
            m_queue.pop_front();
        }
    }
    return group;
}

std::vector<std::shared_ptr<ShardStore::PendingBatch>> ShardStore::commitGroup(
    std::vector<std::shared_ptr<PendingBatch>>& group)
{
    std::vector<std::shared_ptr<PendingBatch>> leftover;
    auto failAll = [&](const Error& error) {
        for (auto& batch : group)
            batch->result = error;
    };
    if (auto status = m_writer.exec("BEGIN IMMEDIATE"); !status) {
        failAll(status.error());
        return leftover;
    }
    bool storageFailure = false;
    for (std::size_t i = 0; i < group.size(); ++i) {
        auto& batch = group[i];
        // Each client batch in a savepoint, so that a refused one leaves the others. Not backfill
        // slices: a savepoint makes FTS5 flush its pending index to disk, which costs a slice of
        // 100 documents about a fifth of its time, and a slice needs none: its one refusal (the
        // epoch) comes before it writes anything, and anything else fails the transaction.
        const bool savepoint = !batch->background;
        if (savepoint)
            (void)m_writer.exec("SAVEPOINT batch");
        auto status = applyBatch(*batch);
        if (!status) {
            batch->result = status.error();
            const auto code = status.error().code;
            storageFailure = code == ErrorCode::ResourceExhausted || code == ErrorCode::Internal
                || code == ErrorCode::Unavailable || (!savepoint && code != ErrorCode::FailedPrecondition);
            if (sqlite3_get_autocommit(m_writer.handle()) || storageFailure)
                break;
            if (savepoint)
                (void)m_writer.exec("ROLLBACK TO batch");
        }
        if (savepoint)
            (void)m_writer.exec("RELEASE batch");
        // A client's batch arrived while backfill slices are applied: commit what is applied
        // now, and leave the remaining slices for after it.
        if (batch->background && i + 1 < group.size() && m_clientBatchesQueued.load() > 0) {
            leftover.assign(group.begin() + static_cast<std::ptrdiff_t>(i + 1), group.end());
            group.resize(i + 1);
            break;
        }
    }
    Status committed = storageFailure ? Status(makeError(ErrorCode::Internal, "rolled back")) : m_writer.exec("COMMIT");
    if (committed) {
        for (auto& batch : group) {
            if (batch->result)
                recordActivity(*batch);
        }
        return leftover;
    }
    if (!sqlite3_get_autocommit(m_writer.handle()))
        (void)m_writer.exec("ROLLBACK");
    if (group.size() == 1) {
        auto& batch = group.front();
        batch->result = storageFailure ? batch->result : Result<WriteSummary>(committed.error());
        return leftover;
    }
    // One batch broke the group: give each its own transaction so only the guilty one fails.
    for (auto& batch : group) {
        batch->result = WriteSummary {};
        std::vector<std::shared_ptr<PendingBatch>> single { batch };
        commitGroup(single);
    }
    return leftover;
}

Status ShardStore::checkEpochs(const PendingBatch& batch) const
{
    std::lock_guard lock(m_ownershipMutex);
    for (const auto& item : batch.items) {
        if (!validateSpaceId(item.doc.space))
            continue; // rejected per item later
        const auto found = m_ownerships.find(item.doc.space);
        const Ownership held = found == m_ownerships.end() ? Ownership { item.doc.space } : found->second;
        if (held.epoch == item.epoch && acceptsWrites(held.role))
            continue;
        std::string why;
        if (held.role == SpaceRole::None)
            why = "shard " + m_id + " holds no ownership for space " + item.doc.space;
        else if (!acceptsWrites(held.role))
            why = "space " + item.doc.space + " is " + spaceRoleName(held.role) + " on shard " + m_id;
        else
            why = std::string(item.epoch < held.epoch ? "stale" : "unknown") + " epoch " + std::to_string(item.epoch)
                + " for space " + item.doc.space + "; shard " + m_id + " holds epoch " + std::to_string(held.epoch);
        Error error = makeError(ErrorCode::FailedPrecondition, why, m_id);
        error.details = { { "shard", m_id }, { "space", item.doc.space }, { "held_epoch", std::to_string(held.epoch) },
            { "held_role", std::to_string(static_cast<int>(held.role)) },
            { "sent_epoch", std::to_string(item.epoch) } };
        return error;
    }
    return {};
}

Status ShardStore::applyBatch(PendingBatch& batch)
{
    if (auto status = checkEpochs(batch); !status)
        return status;
    WriteSummary summary;
    summary.results.reserve(batch.items.size());
    std::unordered_map<std::string, SpaceStats> deltas;
    for (const auto& item : batch.items) {
        if (auto valid = validateItem(item.doc); !valid) {
            summary.results.push_back({ WriteOutcome::Rejected, valid.error().message, 0 });
            ++summary.rejected;
            continue;
        }
        auto result = applyItem(item.doc, batch.repair, deltas);
        if (!result)
            return result.error();
        summary.applied += result->outcome == WriteOutcome::Applied ? 1 : 0;
        summary.stale += result->outcome == WriteOutcome::Stale ? 1 : 0;
        summary.results.push_back(std::move(*result));
    }
    if (auto status = applyDeltas(deltas); !status)
        return status;
    batch.result = std::move(summary);
    return {};
}

Result<ItemResult> ShardStore::applyItem(
    const Document& doc, bool repair, std::unordered_map<std::string, SpaceStats>& deltas)
{
    auto& lookup = m_stmts->lookup;
    lookup.bind(1, doc.space).bind(2, doc.id);
    auto row = lookup.step();
    if (!row) {
        lookup.reset();
        return row.error();
    }
    const bool exists = *row;
    const std::int64_t rowidOf = exists ? lookup.columnInt(0) : 0;
    const std::uint64_t storedVersion = exists ? fromStored(lookup.columnInt(1)) : 0;
    const bool storedDeleted = exists && lookup.columnInt(2) != 0;
    const std::uint64_t storedBytes = exists ? fromStored(lookup.columnInt(3)) : 0;
    const std::uint64_t storedHash = exists ? fromStored(lookup.columnInt(4)) : 0;
    lookup.reset();
    const std::uint64_t hash = contentHash(doc);
    // A newer version wins. A repair (the migration source's row, which is authoritative) also
    // replaces the same version with other content; it never replaces a newer one.
    const bool replaces
        = !exists || storedVersion < doc.version || (repair && storedVersion == doc.version && storedHash != hash);
    if (!replaces)
        return ItemResult { WriteOutcome::Stale, {}, storedVersion };

    SpaceStats& delta = deltas[doc.space];
    if (exists)
        addRow(delta, storedDeleted, storedBytes, rowTerm(doc.id, storedHash), -1);
    const std::uint64_t bytes = doc.deleted ? 0 : documentBytes(doc);
    addRow(delta, doc.deleted, bytes, rowTerm(doc.id, hash), +1);

    std::string extra;
    std::vector<std::optional<std::string>> text;
    if (!doc.deleted)
        splitFields(doc, text, extra);
    std::int64_t rowid = exists ? rowidOf : 0;
    if (exists && !storedDeleted) {
        if (auto status = m_stmts->ftsDelete.bind(1, rowid).run(); !status)
            return status.error();
    }
    Statement& stmt = exists ? m_stmts->updateDoc : m_stmts->insertDoc;
    if (exists)
        stmt.bind(1, rowid)
            .bind(2, asStored(doc.version))
            .bind(3, std::int64_t { doc.deleted })
            .bind(4, asStored(bytes));
    else
        stmt.bind(1, doc.space)
            .bind(2, doc.id)
            .bind(3, asStored(doc.version))
            .bind(4, std::int64_t { doc.deleted })
            .bind(5, asStored(bytes));
    const int extraIndex = exists ? 5 : 6;
    if (extra.empty())
        stmt.bindNull(extraIndex);
    else
        stmt.bind(extraIndex, extra);
    stmt.bind(extraIndex + 1, asStored(hash));
    if (auto status = stmt.run(); !status)
        return status.error();
    if (!exists)
        rowid = sqlite3_last_insert_rowid(m_writer.handle());
    if (!doc.deleted) {
        if (auto status = indexText(rowid, doc.space, text); !status)
            return status.error();
    }
    return ItemResult { WriteOutcome::Applied, {}, doc.version };
}

void ShardStore::splitFields(
    const Document& doc, std::vector<std::optional<std::string>>& text, std::string& extra) const
{
    // One value per FTS column: the schema fields, then every other field joined in f__other.
    text.assign(m_fields.size() + 1, std::nullopt);
    nlohmann::json others = nlohmann::json::object();
    std::string other;
    for (const auto& [name, value] : doc.fields) {
        const auto known = std::find(m_fields.begin(), m_fields.end(), name);
        if (known != m_fields.end()) {
            text[static_cast<std::size_t>(known - m_fields.begin())] = value;
            continue;
        }
        others[name] = value;
        other += other.empty() ? value : "\n" + value;
    }
    if (!others.empty()) {
        text.back() = std::move(other);
        extra = others.dump();
    }
}

Status ShardStore::indexText(
    std::int64_t rowid, const std::string& space, const std::vector<std::optional<std::string>>& text)
{
    auto& insert = m_stmts->ftsInsert;
    insert.bind(1, rowid).bind(2, spaceToken(space));
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i])
            insert.bind(static_cast<int>(i) + 3, *text[i]);
        else
            insert.bindNull(static_cast<int>(i) + 3);
    }
    return insert.run();
}

Status ShardStore::applyDeltas(const std::unordered_map<std::string, SpaceStats>& deltas)
{
    auto& read = m_stmts->readSpace;
    auto& upsert = m_stmts->upsertSpace;
    for (const auto& [space, delta] : deltas) {
        auto row = read.bind(1, space).step();
        if (!row) {
            read.reset();
            return row.error();
        }
        SpaceStats total { space };
        if (*row)
            total = { space, fromStored(read.columnInt(0)), fromStored(read.columnInt(1)),
                fromStored(read.columnInt(2)), fromStored(read.columnInt(3)) };
        read.reset();
        // Deltas are unsigned with wrap-around; adding them undoes earlier additions exactly.
        total.liveDocs += delta.liveDocs;
        total.bytesEstimate += delta.bytesEstimate;
        total.checksum += delta.checksum;
        total.tombstones += delta.tombstones;
        upsert.bind(1, space).bind(2, asStored(total.liveDocs)).bind(3, asStored(total.bytesEstimate));
        upsert.bind(4, asStored(total.checksum)).bind(5, asStored(total.tombstones));
        if (auto status = upsert.run(); !status)
            return status;
    }
    return {};
}

void ShardStore::recordActivity(const PendingBatch& batch)
{
    const auto& summary = batch.result.value();
    std::lock_guard lock(m_activityMutex);
    m_activity.writesApplied += summary.applied;
    // A migration's copies (backfill slices, verify's repairs) are the shard's work but not its
    // tenants' load: counted as a space's writes they would make the planner chase its own moves.
    const bool tenantWrites = !batch.background && !batch.repair;
    for (std::size_t i = 0; i < batch.items.size() && i < summary.results.size(); ++i) {
        if (summary.results[i].outcome != WriteOutcome::Applied)
            continue;
        if (tenantWrites)
            m_activity.spaces[batch.items[i].doc.space].writes += 1;
        m_activity.docsIndexed += batch.items[i].doc.deleted ? 0 : 1;
    }
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
        if (found != m_ownerships.end() && found->second.epoch > ownership.epoch) {
            Error error = makeError(ErrorCode::FailedPrecondition,
                "stale epoch " + std::to_string(ownership.epoch) + " for space " + ownership.space + "; shard " + m_id
                    + " holds epoch " + std::to_string(found->second.epoch),
                m_id);
            error.details = { { "shard", m_id }, { "space", ownership.space },
                { "held_epoch", std::to_string(found->second.epoch) },
                { "held_role", std::to_string(static_cast<int>(found->second.role)) },
                { "sent_epoch", std::to_string(ownership.epoch) } };
            return error;
        }
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

Result<std::uint64_t> ShardStore::dropSpaceBatch(
    const std::string& space, std::uint32_t batchSize, std::uint64_t fencedEpoch)
{
    if (auto status = validateSpaceId(space); !status)
        return status.error();
    std::lock_guard lock(m_writeMutex);
    {
        // Destructive calls are fenced like writes (issue 14): a deposed or late caller's drop
        // must not delete a space that has since moved back to this shard.
        std::lock_guard ownershipLock(m_ownershipMutex);
        const auto found = m_ownerships.find(space);
        const Ownership held = found == m_ownerships.end() ? Ownership { space, SpaceRole::None, 0 } : found->second;
        if (held.role != SpaceRole::Fenced || held.epoch != fencedEpoch) {
            Error error = makeError(ErrorCode::FailedPrecondition,
                "shard " + m_id + " holds space " + space + " as " + spaceRoleName(held.role) + " at epoch "
                    + std::to_string(held.epoch) + ", not fenced at epoch " + std::to_string(fencedEpoch)
                    + "; its rows stay",
                m_id);
            error.details = { { "shard", m_id }, { "space", space }, { "held_epoch", std::to_string(held.epoch) },
                { "held_role", std::to_string(static_cast<int>(held.role)) },
                { "sent_epoch", std::to_string(fencedEpoch) } };
            return error;
        }
    }
    if (auto status = m_writer.exec("BEGIN IMMEDIATE"); !status)
        return status.error();
    auto rollback = [this](const Error& error) -> Result<std::uint64_t> {
        (void)m_writer.exec("ROLLBACK");
        return error;
    };
    auto select
        = m_writer.prepare("SELECT rowid, id, version, deleted, bytes, chash FROM docs WHERE space = ?1 LIMIT ?2");
    auto remove = m_writer.prepare("DELETE FROM docs WHERE rowid = ?1");
    if (!select || !remove)
        return rollback(!select ? select.error() : remove.error());
    select->bind(1, space).bind(2, std::int64_t { batchSize == 0 ? 1000 : batchSize });
    SpaceStats delta;
    std::vector<std::pair<std::int64_t, bool>> rowids; // rowid, live
    while (true) {
        auto row = select->step();
        if (!row)
            return rollback(row.error());
        if (!*row)
            break;
        const bool deleted = select->columnInt(3) != 0;
        rowids.emplace_back(select->columnInt(0), !deleted);
        addRow(delta, deleted, fromStored(select->columnInt(4)),
            rowTerm(select->columnText(1), fromStored(select->columnInt(5))), -1);
    }
    for (const auto& [rowid, live] : rowids) {
        if (live) {
            if (auto status = m_stmts->ftsDelete.bind(1, rowid).run(); !status)
                return rollback(status.error());
        }
        if (auto status = remove->bind(1, rowid).run(); !status)
            return rollback(status.error());
    }
    if (auto status = applyDeltas({ { space, delta } }); !status)
        return rollback(status.error());
    auto cleanup = m_writer.prepare("DELETE FROM spaces WHERE space = ?1 AND live = 0 AND tombstones = 0");
    if (!cleanup)
        return rollback(cleanup.error());
    if (auto status = cleanup->bind(1, space).run(); !status)
        return rollback(status.error());
    if (auto status = m_writer.exec("COMMIT"); !status)
        return rollback(status.error());
    return static_cast<std::uint64_t>(rowids.size());
}

Status ShardStore::checkpoint()
{
    std::lock_guard lock(m_writeMutex);
    return m_writer.exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

std::uint64_t ShardStore::bytesOnDisk() const
{
    std::uint64_t total = 0;
    std::error_code error;
    for (const char* suffix : { "", "-wal", "-shm" }) {
        const auto size = std::filesystem::file_size(m_path + suffix, error);
        if (!error)
            total += size;
    }
    return total;
}

ShardActivity ShardStore::activity() const
{
    std::lock_guard lock(m_activityMutex);
    return m_activity;
}

} // namespace shardmap::core
