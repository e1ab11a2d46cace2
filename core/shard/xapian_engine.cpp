// XapianEngine's implementation: the SQL of the content table and the log, applying the log to
// the index, the checkpoint, and deciding at open between replaying the log and a rebuild.

#include "core/shard/xapian_engine.h"

#include "core/query/query_compiler.h"
#include "core/shard/shard_internal.h"
#include "core/util/failpoint.h"

#include <algorithm>
#include <filesystem>
#include <unordered_set>

namespace shardmap::core {

namespace {

using shard_internal::joinColumns;
using shard_internal::textColumns;

// Rows a rebuild puts into the index between two of its commits.
constexpr std::uint64_t kRebuildBatch = 20000;

// A row read as (..., sp, text columns...), sp at column `spColumn`.
IndexedRow rowFrom(const Statement& stmt, std::int64_t rowid, int spColumn, std::size_t columnCount)
{
    IndexedRow row { rowid, stmt.columnText(spColumn), {} };
    for (std::size_t c = 0; c < columnCount; ++c) {
        const int column = spColumn + 1 + static_cast<int>(c);
        row.columns.push_back(stmt.columnIsNull(column) ? std::nullopt : std::optional(stmt.columnText(column)));
    }
    return row;
}

} // namespace

Status XapianEngine::createTables(SqliteDb& db, const std::vector<std::string>& fields)
{
    std::string content = "CREATE TABLE content(rowid INTEGER PRIMARY KEY, sp TEXT NOT NULL";
    for (const std::string& column : textColumns(fields))
        content += ", " + column + " TEXT";
    content += ")";
    if (auto status = db.exec(content); !status)
        return status;
    // AUTOINCREMENT: a pruned log never hands out a sequence number the index already holds.
    return db.exec("CREATE TABLE index_log(seq INTEGER PRIMARY KEY AUTOINCREMENT, row INTEGER NOT NULL)");
}

XapianEngine::XapianEngine(
    SqliteDb& writer, std::string path, std::vector<std::string> fields, XapianEngineOptions options)
    : m_writer(writer)
    , m_path(std::move(path))
    , m_fields(std::move(fields))
    , m_options(std::move(options))
    , m_lastCheckpoint(std::chrono::steady_clock::now())
{
    m_options.index.syncOnCommit = false;
    m_options.searchers = std::max<std::size_t>(m_options.searchers, 1);
}

XapianEngine::~XapianEngine()
{
    if (m_index && m_applied > m_durable)
        (void)checkpoint();
}

Result<std::unique_ptr<XapianEngine>> XapianEngine::open(
    SqliteDb& writer, const std::string& indexPath, std::vector<std::string> fields, XapianEngineOptions options)
{
    std::unique_ptr<XapianEngine> engine(new XapianEngine(writer, indexPath, std::move(fields), std::move(options)));
    if (auto status = engine->prepare(); !status)
        return status.error();
    if (auto status = engine->openIndex(); !status)
        return status.error();
    return engine;
}

Status XapianEngine::prepare()
{
    const auto columns = textColumns(m_fields);
    std::string placeholders;
    for (std::size_t c = 0; c < columns.size(); ++c)
        placeholders += ", ?" + std::to_string(c + 3);
    auto insert = m_writer.prepare("INSERT OR REPLACE INTO content(rowid, sp" + joinColumns(columns, "")
        + ") VALUES (?1, ?2" + placeholders + ")");
    auto erase = m_writer.prepare("DELETE FROM content WHERE rowid = ?1");
    auto log = m_writer.prepare("INSERT INTO index_log(row) VALUES (?1)");
    auto read = m_writer.prepare("SELECT l.seq, l.row, c.sp" + joinColumns(columns, "c.")
        + " FROM index_log l LEFT JOIN content c ON c.rowid = l.row WHERE l.seq > ?1 ORDER BY l.seq");
    auto prune = m_writer.prepare("DELETE FROM index_log WHERE seq <= ?1");
    for (auto* prepared : { &insert, &erase, &log, &read, &prune })
        if (!*prepared)
            return prepared->error();
    m_insertContent = std::move(*insert);
    m_deleteContent = std::move(*erase);
    m_logChange = std::move(*log);
    m_readLog = std::move(*read);
    m_pruneLog = std::move(*prune);
    return {};
}

Result<std::uint64_t> XapianEngine::lastLoggedSeq()
{
    auto last = m_writer.queryInt("SELECT seq FROM sqlite_sequence WHERE name = 'index_log'");
    if (!last && last.error().code == ErrorCode::NotFound)
        return std::uint64_t { 0 };
    if (!last)
        return last.error();
    return static_cast<std::uint64_t>(*last);
}

// Replays the log when it reaches back to the index's last change; otherwise (no index, a
// damaged one, or one the log has been pruned past) rebuilds it from the content table.
Status XapianEngine::openIndex()
{
    auto last = lastLoggedSeq();
    if (!last)
        return last.error();
    auto oldest = m_writer.queryInt("SELECT coalesce(min(seq), -1) FROM index_log");
    if (!oldest)
        return oldest.error();
    const std::uint64_t firstKept = *oldest < 0 ? *last + 1 : static_cast<std::uint64_t>(*oldest);

    auto index = XapianIndex::open(m_path, m_fields, m_options.index);
    if (!index)
        return rebuild("the index could not be opened: " + index.error().message);
    m_index = std::move(*index);
    const std::uint64_t held = m_index->committedSeq();
    if (held > *last)
        return rebuild("the index holds change " + std::to_string(held) + ", the shard's file only "
            + std::to_string(*last) + " (an index of another copy of the file)");
    if (held + 1 < firstKept)
        return rebuild("the index holds changes up to " + std::to_string(held) + ", the log starts at "
            + std::to_string(firstKept));
    m_applied = m_durable = held;
    const std::uint64_t before = m_applied;
    if (auto status = applyCommitted(); !status)
        return status;
    m_opening.replayed = m_applied - before;
    return checkpoint();
}

Status XapianEngine::rebuild(std::string reason)
{
    m_opening.rebuilt = true;
    m_opening.rebuildReason = std::move(reason);
    m_index.reset();
    std::error_code error;
    std::filesystem::remove_all(m_path, error);
    if (error)
        return makeError(ErrorCode::Internal, "cannot remove the Xapian index " + m_path + ": " + error.message());
    auto index = XapianIndex::open(m_path, m_fields, m_options.index);
    if (!index)
        return index.error();
    m_index = std::move(*index);

    // Every change the log will ever hand out from now on is past `last`: the content table as it
    // stands holds all before it.
    auto last = lastLoggedSeq();
    if (!last)
        return last.error();
    const auto columns = textColumns(m_fields);
    auto rows = m_writer.prepare("SELECT rowid, sp" + joinColumns(columns, "") + " FROM content ORDER BY rowid");
    if (!rows)
        return rows.error();
    std::uint64_t put = 0;
    while (true) {
        auto more = rows->step();
        if (!more)
            return more.error();
        if (!*more)
            break;
        if (auto status = m_index->put(rowFrom(*rows, rows->columnInt(0), 1, columns.size())); !status)
            return status;
        // Commits on the way record change 0, so that a crash mid-rebuild starts it again.
        if (++put % kRebuildBatch == 0)
            if (auto status = m_index->commit(0); !status)
                return status;
    }
    if (auto status = m_index->commit(*last); !status)
        return status;
    m_applied = *last;
    m_durable = 0;
    return checkpoint();
}

Status XapianEngine::insert(const IndexedRow& row)
{
    auto& insert = m_insertContent;
    insert.bind(1, row.rowid).bind(2, row.space);
    for (std::size_t c = 0; c <= m_fields.size(); ++c) {
        const int index = static_cast<int>(c) + 3;
        if (c < row.columns.size() && row.columns[c])
            insert.bind(index, *row.columns[c]);
        else
            insert.bindNull(index);
    }
    if (auto status = insert.run(); !status)
        return status;
    return m_logChange.bind(1, row.rowid).run();
}

Status XapianEngine::remove(std::int64_t rowid)
{
    if (auto status = m_deleteContent.bind(1, rowid).run(); !status)
        return status;
    return m_logChange.bind(1, rowid).run();
}

Status XapianEngine::applyCommitted()
{
    struct Change {
        std::uint64_t seq = 0;
        std::optional<IndexedRow> row; // none: the row was deleted
        std::int64_t rowid = 0;
    };
    std::vector<Change> changes;
    auto& read = m_readLog;
    read.bind(1, static_cast<std::int64_t>(m_applied));
    while (true) {
        auto more = read.step();
        if (!more) {
            read.reset();
            return more.error();
        }
        if (!*more)
            break;
        Change change { static_cast<std::uint64_t>(read.columnInt(0)), std::nullopt, read.columnInt(1) };
        if (!read.columnIsNull(2))
            change.row = rowFrom(read, change.rowid, 2, m_fields.size() + 1);
        changes.push_back(std::move(change));
    }
    read.reset();
    if (changes.empty())
        return {};

    // A row changed twice reads its current text twice: apply it once. In rowid order: a new row
    // past the index's last document is an append for Xapian, where one below it is looked up
    // first as a replacement.
    std::unordered_set<std::int64_t> seen;
    std::vector<const Change*> toApply;
    for (const Change& change : changes) {
        if (seen.insert(change.rowid).second)
            toApply.push_back(&change);
    }
    std::sort(toApply.begin(), toApply.end(), [](const Change* a, const Change* b) { return a->rowid < b->rowid; });
    for (const Change* change : toApply) {
        auto status = change->row ? m_index->put(*change->row) : m_index->remove(change->rowid);
        if (!status)
            return status;
    }
    if (auto status = m_index->commit(changes.back().seq); !status)
        return status;
    m_applied = changes.back().seq;
    m_sinceCheckpoint += changes.size();
    const bool due = m_sinceCheckpoint >= m_options.checkpointChanges
        || std::chrono::steady_clock::now() - m_lastCheckpoint >= m_options.checkpointInterval;
    return due ? checkpoint() : Status {};
}

Status XapianEngine::checkpoint()
{
    if (auto status = m_index->syncFiles(); !status)
        return status;
    (void)failpoint("shard.index.synced");
    if (auto status = m_pruneLog.bind(1, static_cast<std::int64_t>(m_applied)).run(); !status)
        return status;
    m_durable = m_applied;
    m_sinceCheckpoint = 0;
    m_lastCheckpoint = std::chrono::steady_clock::now();
    return {};
}

Result<std::unique_ptr<XapianSearcher>> XapianEngine::leaseSearcher()
{
    std::unique_lock lock(m_searchersMutex);
    m_searcherReturned.wait(lock, [&] { return !m_freeSearchers.empty() || m_searchersOpen < m_options.searchers; });
    if (!m_freeSearchers.empty()) {
        auto searcher = std::move(m_freeSearchers.back());
        m_freeSearchers.pop_back();
        return searcher;
    }
    ++m_searchersOpen;
    lock.unlock();
    auto opened = XapianSearcher::open(m_path, m_fields, m_options.index);
    if (!opened) {
        std::lock_guard relock(m_searchersMutex);
        --m_searchersOpen;
        m_searcherReturned.notify_one();
    }
    return opened;
}

void XapianEngine::returnSearcher(std::unique_ptr<XapianSearcher> searcher)
{
    std::lock_guard lock(m_searchersMutex);
    m_freeSearchers.push_back(std::move(searcher));
    m_searcherReturned.notify_one();
}

Result<std::vector<IndexedHit>> XapianEngine::search(
    const std::vector<std::string>& spaces, const QueryNode& query, std::uint32_t offset, std::uint32_t limit)
{
    auto searcher = leaseSearcher();
    if (!searcher)
        return searcher.error();
    auto hits = (*searcher)->search(spaces, query, offset, limit);
    returnSearcher(std::move(*searcher));
    return hits;
}

std::uint64_t XapianEngine::diskBytes() const
{
    return m_index ? m_index->diskBytes() : 0;
}

} // namespace shardmap::core
