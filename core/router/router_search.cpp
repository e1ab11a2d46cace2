#include "core/router/router.h"

// Router's searches: each shard asked on one of its in-sync copies (the primary only when asked),
// another copy tried within the request when one does not answer, the hits merged by score.

#include <algorithm>
#include <map>
#include <thread>

namespace shardmap::core {

namespace {

// Search failures that another copy of the shard may not share: the node is down, partitioned or
// too slow. Anything else (a bad query) would fail on every copy alike.
bool retriableOnAnotherCopy(const Error& error)
{
    return error.code == ErrorCode::Unavailable || error.code == ErrorCode::DeadlineExceeded;
}

// A shard that holds a space fenced (core/shard/shard_store_search.cpp) says which and at what
// epoch, and a node that no longer has the shard (dropped after a cutover) is marked so by
// searchRoutes: either way the space moved since this router read its route.
bool movedOffShard(const Error& error)
{
    return (error.code == ErrorCode::FailedPrecondition && error.details.contains("held_epoch")
               && error.details.contains("space"))
        || (error.code == ErrorCode::NotFound && error.details.contains("shard_gone"));
}

} // namespace

// Which copy answers: the one with the fewest searches this router has in flight on its node,
// ties broken by a rotating start. The router's own in-flight count is its freshest measure of a
// node's load: it moves with every call, where the nodes' sampled load (shardLoads, for
// allocation) is seconds old and per shard id, which every copy of a shard shares. A slow or
// overloaded node keeps its calls longer and so receives fewer; equal nodes alternate (Wrike's
// "alternately to all nodes").
std::vector<std::string> Router::searchOrder(const Route& route, bool primaryOnly)
{
    std::vector<std::string> addresses { route.nodeAddress };
    if (!primaryOnly) {
        for (const auto& copy : route.copies.inSync)
            addresses.push_back(copy.address);
    }
    if (addresses.size() == 1)
        return addresses;
    const auto turn = static_cast<std::ptrdiff_t>(m_searchTurn.fetch_add(1) % addresses.size());
    std::rotate(addresses.begin(), addresses.begin() + turn, addresses.end());
    std::lock_guard lock(m_searchMutex);
    std::stable_sort(addresses.begin(), addresses.end(),
        [this](const std::string& a, const std::string& b) { return m_searchesInFlight[a] < m_searchesInFlight[b]; });
    return addresses;
}

Result<SearchResult> Router::searchShard(
    const std::string& shard, const std::vector<std::string>& addresses, const ShardSearchRequest& part)
{
    std::optional<Error> last;
    for (const auto& address : addresses) {
        if (last && m_searchRetries)
            m_searchRetries->add();
        {
            std::lock_guard lock(m_searchMutex);
            ++m_searchesInFlight[address];
        }
        auto client = m_nodes.get(address);
        auto found = client ? (*client)->search(shard, part) : Result<SearchResult>(client.error());
        {
            std::lock_guard lock(m_searchMutex);
            --m_searchesInFlight[address];
        }
        if (found || !retriableOnAnotherCopy(found.error()))
            return found;
        last = found.error();
        last->message += " (copy at " + address + ")";
    }
    if (addresses.size() > 1)
        last->message = "no in-sync copy of the shard answered; the last: " + last->message;
    return *last;
}

// A search that meets a space its shard holds fenced, or a shard its node dropped, reads the
// space's route from the store and starts again: during a cutover the old shard is fenced a moment before the map names
// the new one, so a route that has not changed yet is retried after the write path's growing pause.
Result<SearchResult> Router::search(const ShardSearchRequest& request, bool primaryOnly)
{
    if (request.spaces.empty())
        return makeError(ErrorCode::InvalidArgument, "a search names at least one space");
    auto pause = m_options.retryPause;
    for (int attempt = 0;; ++attempt) {
        auto found = searchRoutes(request, primaryOnly);
        if (found || !movedOffShard(found.error()) || attempt >= m_options.maxRetries)
            return found;
        const auto& space = found.error().details.at("space");
        const auto before = resolve(space);
        auto fresh = refresh(space);
        if (!fresh)
            return fresh.error();
        if (before && before->shard == fresh->shard && before->epoch == fresh->epoch) {
            std::this_thread::sleep_for(pause);
            pause *= 2;
        }
    }
}

Result<SearchResult> Router::searchRoutes(const ShardSearchRequest& request, bool primaryOnly)
{
    std::map<std::string, std::shared_ptr<const Route>> byShard; // shard -> a route to it
    std::map<std::string, std::vector<std::string>> spacesOf;
    for (const auto& space : request.spaces) {
        auto route = resolve(space);
        if (!route)
            return makeError(ErrorCode::NotFound, "no space " + space + " in the shard map");
        byShard.emplace(route->shard, route);
        spacesOf[route->shard].push_back(space);
    }
    const std::uint32_t limit = request.limit == 0 ? 20 : request.limit;
    SearchResult merged;
    for (const auto& [shard, route] : byShard) {
        ShardSearchRequest part { spacesOf[shard], request.query, limit + request.offset, 0, request.snippets };
        auto found = searchShard(shard, searchOrder(*route, primaryOnly), part);
        if (!found) {
            Error error = found.error();
            error.context = "shard " + shard;
            // The node no longer has the shard (dropped after its spaces moved): which space to
            // read the route of again.
            if (error.code == ErrorCode::NotFound && !error.details.contains("space")) {
                error.details.emplace("shard_gone", shard);
                error.details.emplace("space", spacesOf[shard].front());
            }
            return error;
        }
        merged.compiledQuery = found->compiledQuery;
        merged.hits.insert(merged.hits.end(), found->hits.begin(), found->hits.end());
    }
    std::stable_sort(merged.hits.begin(), merged.hits.end(),
        [](const SearchHit& a, const SearchHit& b) { return a.score < b.score; });
    const std::size_t from = std::min<std::size_t>(request.offset, merged.hits.size());
    const std::size_t to = std::min(merged.hits.size(), from + limit);
    merged.hits = std::vector<SearchHit>(
        merged.hits.begin() + static_cast<std::ptrdiff_t>(from), merged.hits.begin() + static_cast<std::ptrdiff_t>(to));
    return merged;
}

} // namespace shardmap::core
