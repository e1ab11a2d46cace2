#include "core/controller/router_service.h"

#include "core/node/proto_convert.h"
#include "core/node/status_mapping.h"
#include "core/query/query_compiler.h"
#include "core/util/validation.h"

#include <algorithm>
#include <string>

namespace shardmap::core {

namespace {

grpc::Status invalid(std::string message)
{
    return toGrpcStatus(makeError(ErrorCode::InvalidArgument, std::move(message)));
}

// The router would find most of these too, but only after it has resolved spaces and asked
// nodes; checking here answers a bad request before any work, and names the router's limits
// (limit + offset) rather than what a node was sent.
grpc::Status checkSearch(const v1::RouterSearchRequest& request)
{
    if (request.spaces().empty())
        return invalid("a search names at least one space");
    if (static_cast<std::size_t>(request.spaces_size()) > kMaxSearchSpaces)
        return invalid("a search names at most " + std::to_string(kMaxSearchSpaces) + " spaces; this one names "
            + std::to_string(request.spaces_size()));
    for (const auto& space : request.spaces()) {
        if (auto status = validateSpaceId(space); !status)
            return toGrpcStatus(status.error());
    }
    if (request.query().size() > kMaxQueryBytes)
        return invalid("query is " + std::to_string(request.query().size()) + " bytes; the limit is "
            + std::to_string(kMaxQueryBytes));
    if (request.limit() > kMaxSearchLimit)
        return invalid("limit is at most " + std::to_string(kMaxSearchLimit));
    const std::uint64_t depth = std::uint64_t { request.limit() == 0 ? 20u : request.limit() } + request.offset();
    if (depth > kMaxSearchLimit)
        return invalid("limit + offset is at most " + std::to_string(kMaxSearchLimit)
            + " (every shard returns that many hits for the merge)");
    return grpc::Status::OK;
}

} // namespace

RouterService::RouterService(Router& router)
    : m_router(router)
{
}

grpc::Status RouterService::BulkWrite(
    grpc::ServerContext*, const v1::RouterWriteRequest* request, v1::RouterWriteResponse* response)
{
    if (static_cast<std::size_t>(request->docs_size()) > kMaxBatchItems)
        return invalid("request has " + std::to_string(request->docs_size()) + " documents; the limit is "
            + std::to_string(kMaxBatchItems) + " per request");
    std::vector<Document> docs;
    docs.reserve(static_cast<std::size_t>(request->docs_size()));
    for (const auto& doc : request->docs())
        docs.push_back(fromProto(doc));
    auto written = m_router.write(docs);
    if (!written)
        return toGrpcStatus(written.error());
    for (const auto& result : written->results)
        toProto(result, *response->add_results());
    response->set_applied(written->applied);
    response->set_stale(written->stale);
    response->set_rejected(written->rejected);
    response->set_retries(written->retries);
    for (const auto& space : written->createdSpaces)
        response->add_created_spaces(space);
    return grpc::Status::OK;
}

grpc::Status RouterService::Search(
    grpc::ServerContext*, const v1::RouterSearchRequest* request, v1::RouterSearchResponse* response)
{
    if (auto status = checkSearch(*request); !status.ok())
        return status;
    ShardSearchRequest search { { request->spaces().begin(), request->spaces().end() }, request->query(),
        request->limit(), request->offset(), request->snippets() };
    auto found = m_router.search(search);
    if (!found)
        return toGrpcStatus(found.error());
    for (const auto& hit : found->hits)
        toProto(hit, *response->add_hits());
    response->set_compiled_query(found->compiledQuery);
    return grpc::Status::OK;
}

grpc::Status RouterService::Resolve(
    grpc::ServerContext*, const v1::ResolveRequest* request, v1::ResolveResponse* response)
{
    if (auto status = validateSpaceId(request->space()); !status)
        return toGrpcStatus(status.error());
    auto route = m_router.resolve(request->space());
    if (!route) {
        // Not in the table: perhaps created by another router a moment ago and not yet seen
        // through the watch. A miss is rare and cheap enough to ask the store.
        auto fresh = m_router.refresh(request->space());
        if (!fresh)
            return toGrpcStatus(fresh.error());
        route = std::make_shared<const core::Route>(std::move(*fresh));
    }
    response->set_space(route->space);
    response->set_shard(route->shard);
    response->set_node_address(route->nodeAddress);
    response->set_epoch(route->epoch);
    response->set_target_shard(route->targetShard);
    response->set_target_address(route->targetAddress);
    response->set_paused(route->paused);
    response->set_space_revision(route->revision);
    response->set_map_revision(std::max(m_router.revision(), route->revision));
    return grpc::Status::OK;
}

} // namespace shardmap::core
