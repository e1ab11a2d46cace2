// ShardStore's searches: a request checked, answered by the shard's index (core/shard/shard_index.h)
// on a pooled reader connection within the shard's search budget, and counted in the shard's latency
// and activity.

#include "core/shard/shard_index.h"
#include "core/shard/shard_internal.h"
#include "core/util/validation.h"

#include <chrono>
#include <sqlite3.h>

namespace shardmap::core {

namespace {

Status validateSearchRequest(const ShardSearchRequest& request)
{
    if (request.spaces.empty())
        return makeError(ErrorCode::InvalidArgument, "a search names at least one space");
    if (request.spaces.size() > kMaxSearchSpaces)
        return makeError(
            ErrorCode::InvalidArgument, "a search names at most " + std::to_string(kMaxSearchSpaces) + " spaces");
    for (const auto& space : request.spaces) {
        if (auto status = validateSpaceId(space); !status)
            return status;
    }
    if (request.limit > kMaxSearchLimit)
        return makeError(ErrorCode::InvalidArgument, "limit is at most " + std::to_string(kMaxSearchLimit));
    return {};
}

// Stops the statements of one search on a reader connection once its budget is spent: SQLite
// calls the handler every few thousand virtual-machine steps, and a non-zero return interrupts
// the running statement (SQLITE_INTERRUPT). Removed when the search ends, so the pooled
// connection goes back without it.
class SearchBudget final {
public:
    SearchBudget(SqliteDb& db, std::chrono::milliseconds budget)
        : m_db(db.handle())
        , m_deadline(std::chrono::steady_clock::now() + budget)
    {
        if (budget.count() > 0)
            sqlite3_progress_handler(m_db, 4000, &SearchBudget::onProgress, this);
    }
    ~SearchBudget() { sqlite3_progress_handler(m_db, 0, nullptr, nullptr); }
    SearchBudget(const SearchBudget&) = delete;
    SearchBudget& operator=(const SearchBudget&) = delete;

    bool spent() const { return m_spent; }

private:
    static int onProgress(void* self)
    {
        auto* budget = static_cast<SearchBudget*>(self);
        budget->m_spent = budget->m_spent || std::chrono::steady_clock::now() >= budget->m_deadline;
        return budget->m_spent ? 1 : 0;
    }

    sqlite3* m_db;
    std::chrono::steady_clock::time_point m_deadline;
    bool m_spent = false;
};

Error searchBudgetSpent(std::chrono::milliseconds budget, const std::string& shard)
{
    Error error = makeError(ErrorCode::ResourceExhausted,
        "the search ran past the node's search budget of " + std::to_string(budget.count())
            + " ms and was stopped: narrow it (a longer prefix, fewer spaces or terms)");
    error.context = shard;
    return error;
}

} // namespace

Result<SearchResult> ShardStore::search(const ShardSearchRequest& request)
{
    const auto started = std::chrono::steady_clock::now();
    if (auto status = validateSearchRequest(request); !status)
        return status.error();
    if (auto status = checkNoneFenced(request.spaces); !status)
        return status.error();
    auto lease = acquireReader();
    if (!lease)
        return lease.error();
    SearchBudget budget(lease->db(), m_options.searchBudget);
    auto result = m_index->search(lease->db(), request);
    if (!result && budget.spent())
        return searchBudgetSpent(m_options.searchBudget, m_id);
    if (!result) {
        Error error = result.error();
        if (error.context.empty() && error.code != ErrorCode::InvalidArgument)
            error.context = m_id;
        return error;
    }
    const std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - started;
    recordSearch(request, elapsed.count());
    return result;
}

// A space this shard holds fenced has moved on (a cutover, a failover): its documents here are
// being dropped or are older than its owner's, so a search is refused the way a write with an old
// epoch is, and the router reads the map again and asks the owner (core/router/router_search.cpp).
Status ShardStore::checkNoneFenced(const std::vector<std::string>& spaces) const
{
    std::lock_guard lock(m_ownershipMutex);
    for (const auto& space : spaces) {
        const auto found = m_ownerships.find(space);
        if (found != m_ownerships.end() && found->second.role == SpaceRole::Fenced)
            return shard_internal::ownershipRefusal(m_id, found->second, 0,
                "space " + space + " has moved off shard " + m_id + " (fenced at epoch "
                    + std::to_string(found->second.epoch) + "); search its owner");
    }
    return {};
}

void ShardStore::recordSearch(const ShardSearchRequest& request, double elapsedMs)
{
    m_tickLatency.record(elapsedMs);
    m_historyLatency.record(elapsedMs);
    std::lock_guard lock(m_activityMutex);
    m_activity.queries += 1;
    for (const auto& space : request.spaces)
        m_activity.spaces[space].queries += 1;
}

} // namespace shardmap::core
