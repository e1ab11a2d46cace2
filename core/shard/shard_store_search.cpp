// ShardStore's searches: a request checked, answered by the shard's index (core/shard/shard_index.h)
// on a pooled reader connection, and counted in the shard's latency and activity.

#include "core/shard/shard_index.h"
#include "core/shard/shard_internal.h"
#include "core/util/validation.h"

#include <chrono>

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

} // namespace

Result<SearchResult> ShardStore::search(const ShardSearchRequest& request)
{
    const auto started = std::chrono::steady_clock::now();
    if (auto status = validateSearchRequest(request); !status)
        return status.error();
    auto lease = acquireReader();
    if (!lease)
        return lease.error();
    auto result = m_index->search(lease->db(), request);
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
