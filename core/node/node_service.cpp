#include "core/node/node_service.h"

// NodeService's implementation: each Node call's checks (who may change, limits, the disk's
// reserve), its work on the shard's store, its refusals logged and counted.

#include "core/auth/peer_identity.h"
#include "core/node/proto_convert.h"
#include "core/node/status_mapping.h"
#include "core/snapshot/snapshot_repository.h"
#include "core/util/validation.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <thread>

namespace shardmap::core {

namespace {

void toProto(const Ownership& in, const std::string& shard, v1::Ownership& out)
{
    out.set_shard_id(shard);
    out.set_space(in.space);
    out.set_role(static_cast<v1::SpaceRole>(in.role));
    out.set_epoch(in.epoch);
}

void toProto(const SpaceStats& in, v1::SpaceStats& out)
{
    out.set_space(in.space);
    out.set_live_docs(in.liveDocs);
    out.set_bytes_estimate(in.bytesEstimate);
    out.set_checksum(in.checksum);
    out.set_tombstones(in.tombstones);
    out.set_checksum_kind(in.checksumKind);
}

std::vector<WriteItem> writeItemsOf(const v1::BulkWriteRequest& request)
{
    std::vector<WriteItem> items;
    items.reserve(static_cast<std::size_t>(request.items_size()));
    for (const auto& item : request.items())
        items.push_back(WriteItem { fromProto(item.doc()), item.epoch() });
    return items;
}

WriteMode writeModeOf(const v1::BulkWriteRequest& request)
{
    if (request.repair())
        return WriteMode::Repair;
    return request.backfill() ? WriteMode::Backfill : WriteMode::Normal;
}

} // namespace

NodeService::NodeService(Info info, ShardRegistry& registry, NodeMetricsSampler& metrics, LogSink log,
    MetricsRegistry* prometheus, std::size_t maxWatchStreamsPerPeer)
    : m_info(std::move(info))
    , m_registry(registry)
    , m_metrics(metrics)
    , m_log(std::move(log))
    , m_prometheus(prometheus)
    , m_watchers(metrics, maxWatchStreamsPerPeer)
{
}

namespace {

// "not found" -> "NOT_FOUND": the gRPC code names Prometheus users know.
std::string grpcCodeName(ErrorCode code)
{
    std::string name = errorCodeName(code);
    for (auto& c : name)
        c = c == ' ' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return name;
}

} // namespace

grpc::Status NodeService::refused(grpc::ServerContextBase* context, const char* method, const Error& error) const
{
    if (m_prometheus)
        m_prometheus
            ->counter("shardmap_node_requests_refused_total", "Calls the node refused, by method and error code",
                { { "method", method }, { "code", grpcCodeName(error.code) } })
            .add();
    if (m_log) {
        LogLevel level = LogLevel::Debug;
        switch (error.code) {
        case ErrorCode::InvalidArgument:
        case ErrorCode::PermissionDenied:
        case ErrorCode::ResourceExhausted: level = LogLevel::Warn; break;
        case ErrorCode::Internal: level = LogLevel::Error; break;
        default: break;
        }
        m_log(level,
            std::string("refused ") + method + (context ? " from " + context->peer() : std::string()) + ": "
                + error.describe());
    }
    return toGrpcStatus(error);
}

grpc::Status NodeService::onlyControllers(grpc::ServerContext* context, const char* method) const
{
    if (m_controllers.empty())
        return grpc::Status::OK;
    const auto peer = peerCertificateIdentity(*context);
    if (peer
        && std::any_of(m_controllers.begin(), m_controllers.end(), [&](const auto& c) { return c.matches(*peer); }))
        return grpc::Status::OK;
    // The written form names the kind too: a CN that reads like a URI shows as cn:spiffe://...
    const std::string who = peer ? "'" + peer->text() + "'" : "a client without a certificate identity";
    return refused(context, method,
        makeError(ErrorCode::PermissionDenied,
            std::string("only controllers may call ") + method + "; " + who + " is not one (--controller-identity)",
            m_info.nodeId));
}

grpc::Status NodeService::GetNodeInfo(grpc::ServerContext*, const v1::GetNodeInfoRequest*, v1::NodeInfo* response)
{
    response->set_node_id(m_info.nodeId);
    response->set_version(m_info.version);
    response->set_started_unix_ms(m_info.startedUnixMs);
    response->set_listen_address(m_info.listenAddress);
    return grpc::Status::OK;
}

void NodeService::fillShardInfo(v1::ShardInfo& out, const ShardEntry& entry) const
{
    out.set_shard_id(entry.id);
    if (!entry.store) {
        out.set_health(v1::SHARD_HEALTH_FAILED);
        out.set_error(entry.error);
        return;
    }
    out.set_health(v1::SHARD_HEALTH_OK);
    out.set_engine(indexEngineName(entry.store->engine()));
    out.set_index_settings_json(encodeIndexSettings(entry.store->indexSettings()));
    for (const auto& field : entry.store->fields())
        out.add_fields(field);
    out.set_bytes_on_disk(entry.store->bytesOnDisk());
    if (auto totals = entry.store->totals()) {
        out.set_live_docs(totals->liveDocs);
        out.set_tombstones(totals->tombstones);
        out.set_spaces(totals->spaces);
        out.set_bytes_estimate(totals->bytesEstimate);
    } else {
        out.set_error(totals.error().describe());
    }
}

grpc::Status NodeService::CreateShard(
    grpc::ServerContext* context, const v1::CreateShardRequest* request, v1::ShardInfo* response)
{
    if (auto allowed = onlyControllers(context, "CreateShard"); !allowed.ok())
        return allowed;
    auto settings = indexSettingsOf(*request);
    if (!settings)
        return refused(context, "CreateShard", settings.error());
    // No engine (a client from before engines were a choice): the node's --default-engine, fts5 unless set.
    auto engine = request->engine().empty() ? Result<IndexEngine>(m_registry.options().storeOptions.engine)
                                            : parseIndexEngine(request->engine());
    if (!engine)
        return refused(context, "CreateShard", engine.error());
    auto store = m_registry.create(request->shard_id(), *settings, *engine);
    if (!store)
        return refused(context, "CreateShard", store.error());
    fillShardInfo(*response, ShardEntry { request->shard_id(), *store, {} });
    return grpc::Status::OK;
}

grpc::Status NodeService::DropShard(
    grpc::ServerContext* context, const v1::DropShardRequest* request, v1::DropShardResponse*)
{
    if (auto allowed = onlyControllers(context, "DropShard"); !allowed.ok())
        return allowed;
    if (auto status = m_registry.drop(request->shard_id(), request->force()); !status)
        return refused(context, "DropShard", status.error());
    return grpc::Status::OK;
}

grpc::Status NodeService::ListShards(
    grpc::ServerContext*, const v1::ListShardsRequest*, v1::ListShardsResponse* response)
{
    for (const auto& entry : m_registry.list())
        fillShardInfo(*response->add_shards(), entry);
    return grpc::Status::OK;
}

grpc::Status NodeService::SetOwnership(
    grpc::ServerContext* context, const v1::SetOwnershipRequest* request, v1::Ownership* response)
{
    if (auto allowed = onlyControllers(context, "SetOwnership"); !allowed.ok())
        return allowed;
    auto store = m_registry.get(request->shard_id());
    if (!store)
        return refused(context, "SetOwnership", store.error());
    const auto held = (*store)->ownerships(request->space());
    auto result = (*store)->setOwnership(
        Ownership { request->space(), static_cast<SpaceRole>(request->role()), request->epoch() });
    if (!result)
        return refused(context, "SetOwnership", result.error());
    if (!held.empty())
        logFenceLifted(context, request->shard_id(), held.front(), *result);
    toProto(*result, request->shard_id(), *response);
    return grpc::Status::OK;
}

// A fence lifted at the epoch it was set at is legitimate: a cutover that aborts makes its source
// the owner again at the fence's epoch, a rollback and the rollback window make the old source
// follow the new owner at the space's epoch, and routers re-own a source the map names at that
// epoch (docs/NODE.md, "Writes, versions and fencing"). The node cannot tell those from a caller
// that means harm, so it says each one at info, with the caller.
void NodeService::logFenceLifted(
    grpc::ServerContext* context, const std::string& shard, const Ownership& before, const Ownership& after) const
{
    if (!m_log || before.role != SpaceRole::Fenced || after.role == SpaceRole::Fenced || before.epoch != after.epoch)
        return;
    m_log(LogLevel::Info,
        "space " + after.space + " on shard " + shard + ": fence lifted at epoch " + std::to_string(after.epoch)
            + " (now " + spaceRoleName(after.role) + ") by " + context->peer());
}

grpc::Status NodeService::GetOwnership(
    grpc::ServerContext* context, const v1::GetOwnershipRequest* request, v1::GetOwnershipResponse* response)
{
    auto store = m_registry.get(request->shard_id());
    if (!store)
        return refused(context, "GetOwnership", store.error());
    if (!request->space().empty()) {
        if (auto status = validateSpaceId(request->space()); !status)
            return refused(context, "GetOwnership", status.error());
    }
    for (const auto& own : (*store)->ownerships(request->space()))
        toProto(own, request->shard_id(), *response->add_ownerships());
    return grpc::Status::OK;
}

grpc::Status NodeService::BulkWrite(
    grpc::ServerContext* context, const v1::BulkWriteRequest* request, v1::BulkWriteResponse* response)
{
    if (auto allowed = onlyControllers(context, "BulkWrite"); !allowed.ok())
        return allowed;
    const auto started = std::chrono::steady_clock::now();
    auto store = m_registry.get(request->shard_id());
    if (!store)
        return refused(context, "BulkWrite", store.error());
    if (auto status = checkBulkWrite(*request); !status)
        return refused(context, "BulkWrite", status.error());
    auto summary = (*store)->write(writeItemsOf(*request), writeModeOf(*request));
    if (!summary)
        return refused(context, "BulkWrite", summary.error());
    for (const auto& result : summary->results)
        toProto(result, *response->add_results());
    logRejectedItems(context, *request, *summary);
    response->set_applied(summary->applied);
    response->set_stale(summary->stale);
    response->set_rejected(summary->rejected);
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    m_metrics.recordWrite(elapsed * 1000);
    if (m_prometheus)
        m_prometheus
            ->histogram("shardmap_node_write_duration_seconds", "Time to apply a write batch, per shard",
                { { "shard", request->shard_id() } })
            .observe(elapsed);
    return grpc::Status::OK;
}

// Before any item is written: the batch's size, the disk's reserve, and epochs no shard could hold.
Status NodeService::checkBulkWrite(const v1::BulkWriteRequest& request) const
{
    if (static_cast<std::size_t>(request.items_size()) > kMaxBatchItems)
        return makeError(ErrorCode::InvalidArgument,
            "batch has " + std::to_string(request.items_size()) + " items; the limit is "
                + std::to_string(kMaxBatchItems));
    if (auto status = m_registry.checkDiskReserve(); !status)
        return status;
    // Epoch 0 and epochs no shard holds are the store's stale or unknown epochs; above the largest
    // one is a malformed request.
    const auto tooLarge = std::find_if(request.items().begin(), request.items().end(),
        [](const v1::WriteItem& item) { return item.epoch() > kMaxEpoch; });
    if (tooLarge != request.items().end())
        return validateEpoch(tooLarge->epoch());
    return {};
}

// Items refused one by one (a stale epoch, a document too large): the first reason says why.
void NodeService::logRejectedItems(
    grpc::ServerContext* context, const v1::BulkWriteRequest& request, const WriteSummary& summary) const
{
    if (!m_log || summary.rejected == 0)
        return;
    const auto first = std::find_if(summary.results.begin(), summary.results.end(),
        [](const ItemResult& result) { return result.outcome == WriteOutcome::Rejected; });
    const auto index = static_cast<int>(first - summary.results.begin());
    m_log(LogLevel::Debug,
        "BulkWrite from " + context->peer() + " to " + request.shard_id() + ": refused "
            + std::to_string(summary.rejected) + " of " + std::to_string(request.items_size()) + " items"
            + (index < request.items_size() ? ", the first (" + request.items(index).doc().id() + "): " + first->reason
                                            : ""));
}

grpc::Status NodeService::Search(
    grpc::ServerContext* context, const v1::SearchRequest* request, v1::SearchResponse* response)
{
    const auto started = std::chrono::steady_clock::now();
    auto store = m_registry.get(request->shard_id());
    if (!store)
        return refused(context, "Search", store.error());
    ShardSearchRequest search { { request->spaces().begin(), request->spaces().end() }, request->query(),
        request->limit(), request->offset(), request->snippets() };
    auto result = (*store)->search(search);
    if (!result)
        return refused(context, "Search", result.error());
    for (const auto& hit : result->hits)
        toProto(hit, *response->add_hits());
    response->set_compiled_query(result->compiledQuery);
    const auto elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    m_metrics.recordQuery(elapsed * 1000);
    if (m_prometheus)
        m_prometheus
            ->histogram("shardmap_node_search_duration_seconds", "Time to answer a search, per shard",
                { { "shard", request->shard_id() } })
            .observe(elapsed);
    return grpc::Status::OK;
}

grpc::Status NodeService::Scan(
    grpc::ServerContext* context, const v1::ScanRequest* request, grpc::ServerWriter<v1::ScanBatch>* writer)
{
    auto store = m_registry.get(request->shard_id());
    if (!store)
        return refused(context, "Scan", store.error());
    std::string cursor = request->after_id();
    std::uint64_t sent = 0;
    while (!stopping(context)) {
        std::uint32_t batch = request->batch_size() == 0 ? 500 : std::min(request->batch_size(), kMaxScanBatch);
        if (request->max_docs() > 0)
            batch = static_cast<std::uint32_t>(std::min<std::uint64_t>(batch, request->max_docs() - sent));
        auto page = (*store)->scan(request->space(), cursor, batch, request->include_tombstones());
        if (!page)
            return refused(context, "Scan", page.error());
        v1::ScanBatch out;
        for (const auto& doc : page->docs)
            toProto(doc, *out.add_docs());
        sent += page->docs.size();
        cursor = page->cursor;
        const bool done = page->done || (request->max_docs() > 0 && sent >= request->max_docs());
        out.set_cursor(cursor);
        out.set_done(page->done);
        if (!writer->Write(out) || done)
            return grpc::Status::OK;
    }
    return grpc::Status(grpc::StatusCode::CANCELLED, "scan stopped: node shutting down or call cancelled");
}

grpc::Status NodeService::GetSpaceStats(
    grpc::ServerContext* context, const v1::GetSpaceStatsRequest* request, v1::GetSpaceStatsResponse* response)
{
    auto store = m_registry.get(request->shard_id());
    if (!store)
        return refused(context, "GetSpaceStats", store.error());
    auto stats = (*store)->spaceStats({ request->spaces().begin(), request->spaces().end() });
    if (!stats)
        return refused(context, "GetSpaceStats", stats.error());
    for (const auto& space : *stats)
        toProto(space, *response->add_stats());
    return grpc::Status::OK;
}

grpc::Status NodeService::GetFieldUsage(
    grpc::ServerContext* context, const v1::GetFieldUsageRequest* request, v1::GetFieldUsageResponse* response)
{
    if (request->fields_size() > static_cast<int>(kMaxFieldUsageFields))
        return refused(context, "GetFieldUsage",
            makeError(ErrorCode::InvalidArgument,
                "GetFieldUsage names at most " + std::to_string(kMaxFieldUsageFields) + " fields"));
    auto store = m_registry.get(request->shard_id());
    if (!store)
        return refused(context, "GetFieldUsage", store.error());
    auto uses = (*store)->fieldUsage({ request->fields().begin(), request->fields().end() });
    if (!uses)
        return refused(context, "GetFieldUsage", uses.error());
    for (const auto& use : *uses) {
        auto* out = response->add_uses();
        out->set_space(use.space);
        out->set_field(use.field);
        out->set_documents(use.documents);
    }
    return grpc::Status::OK;
}

grpc::Status NodeService::SnapshotShard(
    grpc::ServerContext* context, const v1::SnapshotShardRequest* request, v1::SnapshotShardResponse* response)
{
    if (auto allowed = onlyControllers(context, "SnapshotShard"); !allowed.ok())
        return allowed;
    auto store = m_registry.get(request->shard_id());
    if (!store)
        return refused(context, "SnapshotShard", store.error());
    BackupPace pace;
    pace.pagesPerStep = request->pages_per_step() ? static_cast<int>(request->pages_per_step()) : 256;
    pace.pause = std::chrono::milliseconds(std::min<std::uint32_t>(request->pause_ms(), 10'000));
    pace.stop = [this, context] { return stopping(context); };
    // The pause only while the node's shards take writes: an idle node copies at full speed.
    pace.busy = [this, last = std::uint64_t(0)]() mutable {
        std::uint64_t applied = 0;
        for (const ShardEntry& entry : m_registry.list())
            applied += entry.store ? entry.store->activity().writesApplied : 0;
        const bool wrote = applied != last;
        last = applied;
        return wrote;
    };
    auto copied = copyShardFile(**store, request->repository(), request->file(), pace);
    if (!copied)
        return refused(context, "SnapshotShard", copied.error());
    response->set_bytes(copied->digest.bytes);
    response->set_xxh3_128(copied->digest.xxh3_128);
    for (const auto& space : copied->spaces)
        toProto(space, *response->add_spaces());
    response->set_engine(indexEngineName((*store)->engine()));
    return grpc::Status::OK;
}

grpc::Status NodeService::RestoreShard(
    grpc::ServerContext* context, const v1::RestoreShardRequest* request, v1::ShardInfo* response)
{
    if (auto allowed = onlyControllers(context, "RestoreShard"); !allowed.ok())
        return allowed;
    const FileDigest expected { request->bytes(), request->xxh3_128() };
    auto store = m_registry.restore(request->shard_id(), request->bytes(), [&](const std::string& path) {
        return restoreShardFile(request->repository(), request->file(), expected, path);
    });
    if (!store)
        return refused(context, "RestoreShard", store.error());
    fillShardInfo(*response, ShardEntry { request->shard_id(), *store, {} });
    return grpc::Status::OK;
}

grpc::Status NodeService::DropSpace(grpc::ServerContext* context, const v1::DropSpaceRequest* request,
    grpc::ServerWriter<v1::DropSpaceProgress>* writer)
{
    if (auto allowed = onlyControllers(context, "DropSpace"); !allowed.ok())
        return allowed;
    auto store = m_registry.get(request->shard_id());
    if (!store)
        return refused(context, "DropSpace", store.error());
    if (request->epoch() == 0)
        return refused(context, "DropSpace",
            makeError(ErrorCode::InvalidArgument,
                "DropSpace needs the epoch the space is fenced at on this shard (fence it first)"));
    if (auto status = validateEpoch(request->epoch()); !status)
        return refused(context, "DropSpace", status.error());
    auto total = (*store)->countSpaceRows(request->space());
    if (!total)
        return refused(context, "DropSpace", total.error());
    const std::uint32_t batch
        = request->batch_size() == 0 ? 1000 : std::min<std::uint32_t>(request->batch_size(), 10000);
    v1::DropSpaceProgress progress;
    progress.set_total(*total);
    const auto started = std::chrono::steady_clock::now();
    while (!stopping(context)) {
        auto deleted = (*store)->dropSpaceBatch(request->space(), batch, request->epoch());
        if (!deleted)
            return refused(context, "DropSpace", deleted.error());
        progress.set_deleted(progress.deleted() + *deleted);
        progress.set_done(*deleted < batch);
        const bool enough = request->max_rows() > 0 && progress.deleted() >= request->max_rows();
        if (!writer->Write(progress) || progress.done() || enough)
            return grpc::Status::OK;
        if (request->max_rows_per_second() > 0) {
            // Pace so that the deletes so far took at least deleted / rate seconds.
            const auto due = started
                + std::chrono::duration<double>(
                    static_cast<double>(progress.deleted()) / request->max_rows_per_second());
            while (std::chrono::steady_clock::now() < due && !stopping(context))
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }
    return grpc::Status(grpc::StatusCode::CANCELLED, "drop stopped: node shutting down or call cancelled");
}

grpc::Status NodeService::GetMetrics(
    grpc::ServerContext*, const v1::GetMetricsRequest* request, v1::NodeMetrics* response)
{
    *response = m_metrics.current(request->include_spaces());
    return grpc::Status::OK;
}

void NodeService::attachWatchers(grpc::ServerBuilder& builder)
{
    m_watchers.attach(builder, *this,
        [this](grpc::ServerContext* context, const Error& error) { return refused(context, "WatchMetrics", error); });
}

grpc::Status NodeService::GetMetricsHistory(
    grpc::ServerContext*, const v1::GetMetricsHistoryRequest* request, v1::MetricsHistory* response)
{
    *response = m_metrics.history(request->since_unix_ms());
    return grpc::Status::OK;
}

} // namespace shardmap::core
