#include "core/controller/router_service.h"

// RouterService's implementation: request limits, the caller's role when a policy is set, each call
// measured, and the messages to and from the Router's values.

#include "core/node/proto_convert.h"
#include "core/node/status_mapping.h"
#include "core/query/query_compiler.h"
#include "core/util/validation.h"

#include <algorithm>
#include <chrono>
#include <iterator>
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

MetricCounter& epochRetries(MetricsRegistry& metrics)
{
    return metrics.counter("shardmapd_router_epoch_retries_total",
        "Times a node refused a write's epoch and the router re-read the map and retried");
}

} // namespace

RouterService::RouterService(Router& router, MetricsRegistry* metrics)
    : m_router(router)
    , m_metrics(metrics)
{
    if (m_metrics)
        (void)epochRetries(*m_metrics); // from the first scrape, at 0
}

void RouterService::measured(
    const char* method, std::chrono::steady_clock::time_point started, const grpc::Status& status)
{
    if (!m_metrics)
        return;
    static const char* const kCodes[] = { "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
        "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
        "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED" };
    const auto code = static_cast<std::size_t>(status.error_code());
    m_metrics
        ->counter("shardmapd_router_requests_total", "Router calls by method and gRPC status code",
            { { "method", method }, { "code", code < std::size(kCodes) ? kCodes[code] : "UNKNOWN" } })
        .add();
    m_metrics
        ->histogram("shardmapd_router_request_duration_seconds", "Time to answer a router call, by method",
            { { "method", method } })
        .observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
}

grpc::Status RouterService::allowed(const grpc::ServerContext& context, Role least, const char* what)
{
    if (!m_access)
        return grpc::Status::OK;
    auto caller = authorizeCaller(context, *m_access, least, what);
    return caller ? grpc::Status::OK : toGrpcStatus(caller.error());
}

grpc::Status RouterService::BulkWrite(
    grpc::ServerContext* context, const v1::RouterWriteRequest* request, v1::RouterWriteResponse* response)
{
    const auto status = timed("BulkWrite", [&] {
        const auto permitted = allowed(*context, Role::Operator, "writing documents through the router");
        return permitted.ok() ? bulkWrite(request, response) : permitted;
    });
    if (m_metrics && status.ok()) {
        const auto items = [&](const char* outcome, std::uint32_t n) {
            if (n > 0)
                m_metrics
                    ->counter("shardmapd_router_items_total", "Documents written through the router, by outcome",
                        { { "outcome", outcome } })
                    .add(n);
        };
        items("applied", response->applied());
        items("stale", response->stale());
        items("rejected", response->rejected());
        if (response->retries() > 0)
            epochRetries(*m_metrics).add(response->retries());
    }
    return status;
}

grpc::Status RouterService::Search(
    grpc::ServerContext* context, const v1::RouterSearchRequest* request, v1::RouterSearchResponse* response)
{
    return timed("Search", [&] {
        const auto permitted = allowed(*context, Role::Viewer, "searching through the router");
        return permitted.ok() ? search(request, response) : permitted;
    });
}

grpc::Status RouterService::Resolve(
    grpc::ServerContext* context, const v1::ResolveRequest* request, v1::ResolveResponse* response)
{
    return timed("Resolve", [&] {
        const auto permitted = allowed(*context, Role::Viewer, "resolving a space through the router");
        return permitted.ok() ? resolve(request, response) : permitted;
    });
}

grpc::Status RouterService::bulkWrite(const v1::RouterWriteRequest* request, v1::RouterWriteResponse* response)
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

grpc::Status RouterService::search(const v1::RouterSearchRequest* request, v1::RouterSearchResponse* response)
{
    if (auto status = checkSearch(*request); !status.ok())
        return status;
    ShardSearchRequest search { { request->spaces().begin(), request->spaces().end() }, request->query(),
        request->limit(), request->offset(), request->snippets() };
    auto found = m_router.search(search, request->primary_only());
    if (!found)
        return toGrpcStatus(found.error());
    for (const auto& hit : found->hits)
        toProto(hit, *response->add_hits());
    response->set_compiled_query(found->compiledQuery);
    return grpc::Status::OK;
}

grpc::Status RouterService::resolve(const v1::ResolveRequest* request, v1::ResolveResponse* response)
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
