// SqliteStore's audit log: each commit's record (its changes as JSON, its hash-chain link), the
// history reads, and the watches that follow the log from their own thread and connection.

#include "core/store/audit_chain.h"
#include "core/store/sqlite_store_internal.h"
#include "core/util/clock.h"
#include "core/util/failpoint.h"

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>
#include <utility>

namespace shardmap::core {

using sqlite_store_internal::fromSqliteInteger;
using sqlite_store_internal::lockedError;
using sqlite_store_internal::readHistory;
using sqlite_store_internal::toSqliteInteger;

namespace {

// Audit records a watch reads per read transaction; it delivers them after the transaction
// ends so that a slow callback does not pin a WAL snapshot.
constexpr std::size_t kWatchBatch = 256;
constexpr std::string_view kHistorySql
    = "SELECT revision, unix_ms, actor, action, reason, changes, hash FROM audit"
      " WHERE revision > ?1 AND (?2 = 0 OR revision <= ?2) ORDER BY revision LIMIT ?3";

nlohmann::json auditTextOrNull(const std::optional<std::string>& text)
{
    return text ? nlohmann::json(*text) : nlohmann::json(nullptr);
}

std::optional<std::string> textField(const nlohmann::json& object, const char* name)
{
    const auto found = object.find(name);
    if (found == object.end() || !found->is_string())
        return std::nullopt;
    return found->get<std::string>();
}

Result<std::string> encodeChanges(const std::vector<RecordChange>& changes)
{
    nlohmann::json list = nlohmann::json::array();
    for (const auto& change : changes)
        list.push_back({ { "key", change.key }, { "before", auditTextOrNull(change.before) },
            { "after", auditTextOrNull(change.after) } });
    try {
        return list.dump();
    } catch (const nlohmann::json::exception& error) {
        return makeError(ErrorCode::InvalidArgument, std::string("cannot encode the audit record: ") + error.what());
    }
}

Result<std::vector<RecordChange>> decodeChanges(const std::string& text, std::uint64_t revision)
{
    const auto damaged = makeError(ErrorCode::Internal, "audit record " + std::to_string(revision) + " is damaged");
    const auto list = nlohmann::json::parse(text, nullptr, false);
    if (list.is_discarded() || !list.is_array())
        return damaged;
    std::vector<RecordChange> changes;
    for (const auto& item : list) {
        auto key = item.is_object() ? textField(item, "key") : std::nullopt;
        if (!key)
            return damaged;
        changes.push_back({ std::move(*key), textField(item, "before"), textField(item, "after") });
    }
    return changes;
}

Result<AuditRecord> auditFromRow(const Statement& stmt)
{
    AuditRecord record { fromSqliteInteger(stmt.columnInt(0)), stmt.columnInt(1), stmt.columnText(2),
        stmt.columnText(3), stmt.columnText(4), {}, stmt.columnText(6) };
    auto changes = decodeChanges(stmt.columnText(5), record.revision);
    if (!changes)
        return changes.error();
    record.changes = std::move(*changes);
    return record;
}

} // namespace

// One statement, so one read transaction even outside an explicit one.
Result<std::vector<AuditRecord>> sqlite_store_internal::readHistory(
    SqliteDb& db, std::uint64_t from, std::uint64_t to, std::size_t limit)
{
    auto stmt = db.prepare(kHistorySql);
    if (!stmt)
        return stmt.error();
    const auto rows = limit == 0 ? std::int64_t { -1 } : toSqliteInteger(limit);
    stmt->bind(1, toSqliteInteger(from)).bind(2, toSqliteInteger(to)).bind(3, rows);
    std::vector<AuditRecord> records;
    while (true) {
        auto row = stmt->step();
        if (!row)
            return row.error();
        if (!*row)
            return records;
        auto record = auditFromRow(*stmt);
        if (!record)
            return record.error();
        records.push_back(std::move(*record));
    }
}

Status SqliteStore::writeAudit(const CommitRequest& request, std::vector<RecordChange> changes, std::uint64_t revision)
{
    auto encoded = encodeChanges(changes);
    if (!encoded)
        return encoded.error();
    auto previous = readAuditHash(revision - 1);
    if (!previous)
        return previous.error();
    AuditRecord record { revision, nowUnixMs(), request.actor, request.action, request.reason, std::move(changes), {} };
    record.hash = auditChainHash(auditChainPrevious(*previous), record);
    auto& stmt = m_stmts->insertAudit;
    stmt.bind(1, toSqliteInteger(revision)).bind(2, record.unixMs).bind(3, request.actor).bind(4, request.action);
    return stmt.bind(5, request.reason).bind(6, *encoded).bind(7, record.hash).run();
}

// The hash of the audit record of revision; empty when there is none or it predates the chain
// (the new record then links to the anchor, and verify-audit names what is missing).
Result<std::string> SqliteStore::readAuditHash(std::uint64_t revision)
{
    auto& stmt = m_stmts->readAuditHash;
    stmt.bind(1, toSqliteInteger(revision));
    auto row = stmt.step();
    if (!row)
        return row.error();
    std::string hash = *row ? stmt.columnText(0) : std::string();
    stmt.reset();
    return hash;
}

// ---- the watch ---------------------------------------------------------------------------------

// A watch's thread. Its state is shared with the thread so that a callback may destroy its own
// handle: the thread is then detached and ends after the callback returns.
class SqliteStore::Watch final : public WatchHandle {
public:
    struct State;
    explicit Watch(std::shared_ptr<State> state);
    ~Watch() override;

private:
    std::shared_ptr<State> m_state;
    std::thread m_thread;
};

struct SqliteStore::Watch::State {
    enum class Wake { Stop, Closed, Commit, Timeout };

    State(SqliteDb connection, std::shared_ptr<CommitSignal> commitSignal, std::uint64_t from,
        WatchCallback recordCallback, WatchErrorCallback errorCallback, std::chrono::milliseconds interval)
        : db(std::move(connection))
        , signal(std::move(commitSignal))
        , last(from)
        , onRecord(std::move(recordCallback))
        , onError(std::move(errorCallback))
        , pollInterval(interval)
    {
    }

    void run();
    Status deliverPending();
    bool waitForCommit(std::uint64_t& seenCommits, std::int64_t& seenVersion, bool retrySoon);
    Wake waitForSignal(std::uint64_t& seenCommits);
    std::int64_t dataVersion();
    std::uint64_t commitCount();
    void fail(const Error& error);

    SqliteDb db;
    std::shared_ptr<CommitSignal> signal;
    std::uint64_t last;
    WatchCallback onRecord;
    WatchErrorCallback onError;
    std::chrono::milliseconds pollInterval;
    // Set under signal->mutex so that a thread about to wait cannot miss it.
    std::atomic<bool> stopping { false };
};

void SqliteStore::Watch::State::run()
{
    // Both markers are taken before each read, so a commit landing during the read wakes us again.
    std::uint64_t seenCommits = commitCount();
    std::int64_t seenVersion = dataVersion();
    while (true) {
        auto status = deliverPending();
        // A busy file (another process recovering the WAL) is retried at the next poll.
        if (!status && status.error().code != ErrorCode::Unavailable) {
            fail(status.error());
            return;
        }
        if (!waitForCommit(seenCommits, seenVersion, !status))
            return;
    }
}

Status SqliteStore::Watch::State::deliverPending()
{
    while (!stopping) {
        // Fault tests end the watch here, as a read that fails for good would.
        if (!failpoint("store.watch.read"))
            return makeError(ErrorCode::Internal, "the watch's read failed (failpoint store.watch.read)");
        auto batch = readHistory(db, last, 0, kWatchBatch);
        if (!batch)
            return batch.error();
        for (const auto& record : *batch) {
            if (stopping)
                return {};
            onRecord(record);
            last = record.revision;
        }
        if (batch->size() < kWatchBatch)
            return {};
    }
    return {};
}

bool SqliteStore::Watch::State::waitForCommit(std::uint64_t& seenCommits, std::int64_t& seenVersion, bool retrySoon)
{
    while (true) {
        const Wake wake = waitForSignal(seenCommits);
        if (wake == Wake::Stop)
            return false;
        if (wake == Wake::Closed) {
            fail(makeError(ErrorCode::Unavailable, "the store was closed"));
            return false;
        }
        const auto version = dataVersion();
        const bool changed = version != seenVersion;
        seenVersion = version;
        if (wake == Wake::Commit || changed || retrySoon)
            return true;
    }
}

SqliteStore::Watch::State::Wake SqliteStore::Watch::State::waitForSignal(std::uint64_t& seenCommits)
{
    std::unique_lock lock(signal->mutex);
    signal->changed.wait_for(
        lock, pollInterval, [&] { return stopping || signal->closed || signal->commits != seenCommits; });
    if (stopping)
        return Wake::Stop;
    if (signal->closed)
        return Wake::Closed;
    if (signal->commits == seenCommits)
        return Wake::Timeout;
    seenCommits = signal->commits;
    return Wake::Commit;
}

// Changes whenever another connection commits; -1 on error, which forces a read that reports it.
std::int64_t SqliteStore::Watch::State::dataVersion()
{
    auto version = db.queryInt("PRAGMA data_version");
    return version ? *version : -1;
}

std::uint64_t SqliteStore::Watch::State::commitCount()
{
    std::lock_guard lock(signal->mutex);
    return signal->commits;
}

void SqliteStore::Watch::State::fail(const Error& error)
{
    if (onError)
        onError(error);
}

SqliteStore::Watch::Watch(std::shared_ptr<State> state)
    : m_state(std::move(state))
    , m_thread([state = m_state] { state->run(); })
{
}

SqliteStore::Watch::~Watch()
{
    {
        std::lock_guard lock(m_state->signal->mutex);
        m_state->stopping = true;
    }
    m_state->signal->changed.notify_all();
    if (m_thread.get_id() == std::this_thread::get_id())
        m_thread.detach(); // destroyed from its own callback: it cannot wait for itself
    else
        m_thread.join();
}

Result<std::vector<AuditRecord>> SqliteStore::history(
    std::uint64_t fromRevision, std::uint64_t toRevision, std::size_t limit)
{
    return readTransaction<std::vector<AuditRecord>>(
        [&](SqliteDb& db) { return readHistory(db, fromRevision, toRevision, limit); });
}

Result<std::unique_ptr<WatchHandle>> SqliteStore::watch(
    std::uint64_t fromRevision, WatchCallback onRecord, WatchErrorCallback onError)
{
    if (!onRecord)
        return makeError(ErrorCode::InvalidArgument, "a watch needs a callback");
    auto db = openConnection();
    if (!db)
        return lockedError(db.error());
    auto state = std::make_shared<Watch::State>(
        std::move(*db), m_signal, fromRevision, std::move(onRecord), std::move(onError), m_options.watchPollInterval);
    return std::unique_ptr<WatchHandle>(std::make_unique<Watch>(std::move(state)));
}

} // namespace shardmap::core
