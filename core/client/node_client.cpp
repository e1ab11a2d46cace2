#include "core/client/node_client.h"

// GrpcNodeClient's implementation: the channel's credentials, each Node call with its deadline and
// its status as a domain error, the metrics stream's reactor, and the pool of clients by address.

#include "core/client/tls_probe.h"
#include "core/node/proto_convert.h"
#include "core/node/status_mapping.h"
#include "shardmap/v1/node.grpc.pb.h"

#include <condition_variable>
#include <fstream>
#include <grpcpp/grpcpp.h>
#include <mutex>
#include <sstream>

namespace shardmap::core {

namespace {

Result<std::string> readPem(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return makeError(ErrorCode::NotFound, "cannot read PEM file", path);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

} // namespace

Result<std::shared_ptr<grpc::ChannelCredentials>> clientChannelCredentials(const NodeClientOptions& options)
{
    if (auto status = checkNodeClientTls(options); !status)
        return status.error();
    if (options.caFile.empty())
        return grpc::InsecureChannelCredentials();
    grpc::SslCredentialsOptions ssl;
    auto ca = readPem(options.caFile);
    if (!ca)
        return ca.error();
    ssl.pem_root_certs = *ca;
    if (!options.certFile.empty()) {
        auto cert = readPem(options.certFile);
        auto key = readPem(options.keyFile);
        if (!cert || !key)
            return !cert ? cert.error() : key.error();
        ssl.pem_cert_chain = *cert;
        ssl.pem_private_key = *key;
    }
    return grpc::SslCredentials(ssl);
}

Status checkNodeClientTls(const NodeClientOptions& options)
{
    if (options.certFile.empty() != options.keyFile.empty())
        return makeError(ErrorCode::InvalidArgument,
            options.certFile.empty() ? "a node TLS key needs its certificate (--node-tls-cert)"
                                     : "a node TLS certificate needs its key (--node-tls-key)");
    if (!options.certFile.empty() && options.caFile.empty())
        return makeError(ErrorCode::InvalidArgument,
            "a node client certificate needs the CA that signed the nodes' certificates (--node-tls-ca)");
    for (const auto* file : { &options.caFile, &options.certFile, &options.keyFile }) {
        if (!file->empty() && !std::ifstream(*file, std::ios::binary))
            return makeError(ErrorCode::InvalidArgument, "cannot read " + *file);
    }
    return {};
}

namespace {

ShardSummary fromProto(const v1::ShardInfo& in)
{
    return ShardSummary { in.shard_id(), in.health() != v1::SHARD_HEALTH_FAILED, in.error(),
        { in.fields().begin(), in.fields().end() }, in.live_docs(), in.tombstones(), in.spaces(), in.bytes_on_disk(),
        in.bytes_estimate(), in.engine(), in.index_settings_json() };
}

Ownership fromProto(const v1::Ownership& in)
{
    return Ownership { in.space(), static_cast<SpaceRole>(in.role()), in.epoch() };
}

ShardMetricsValue fromProto(const v1::ShardMetrics& in)
{
    ShardMetricsValue out { in.shard_id(), in.health() != v1::SHARD_HEALTH_FAILED, in.live_docs(), in.bytes_estimate(),
        in.bytes_on_disk(), in.spaces(), in.queries_per_second(), in.writes_per_second(), in.docs_indexed_per_second(),
        in.query_p50_ms(), in.query_p99_ms(), {}, in.engine() };
    for (const auto& space : in.space_metrics())
        out.spaceMetrics.push_back({ space.space(), space.live_docs(), space.bytes_estimate(),
            space.queries_per_second(), space.writes_per_second() });
    return out;
}

NodeMetricsValue fromProto(const v1::NodeMetrics& in)
{
    NodeMetricsValue out { in.unix_ms(), in.node_id(), in.rss_bytes(), in.sqlite_memory_bytes(), in.disk_total_bytes(),
        in.disk_free_bytes(), in.cpu_percent(), in.io_read_bytes_per_second(), in.io_write_bytes_per_second(),
        in.iowait_percent(), in.queries_per_second(), in.query_p50_ms(), in.query_p99_ms(),
        in.docs_indexed_per_second(), in.bytes_on_disk(), {}, in.write_p50_ms(), in.write_p99_ms() };
    for (const auto& shard : in.shards())
        out.shards.push_back(fromProto(shard));
    return out;
}

} // namespace

namespace {

// A node that refuses our certificate looks to gRPC like a closed socket; then a handshake of
// our own tells (probeTlsRefusal), so that the error says the certificate was refused and why.
Error callFailed(const grpc::Status& status, const std::string& address, const NodeClientOptions& options)
{
    const std::string& message = status.error_message();
    const bool unexplained = status.error_code() == grpc::StatusCode::UNAVAILABLE && !options.certFile.empty()
        && describeTlsRefusal(message).empty()
        && (message.find("Socket closed") != std::string::npos || message.find("andshake") != std::string::npos);
    if (!unexplained)
        return fromGrpcStatus(status, address);
    const auto refusal = probeTlsRefusal(address, options, std::chrono::seconds(2));
    if (refusal.empty())
        return fromGrpcStatus(status, address);
    return makeError(ErrorCode::Unavailable, refusal + " (" + message + ")", address);
}

} // namespace

struct GrpcNodeClient::Impl {
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<v1::Node::Stub> stub;
    std::chrono::milliseconds timeout;
    NodeClientOptions options;

    std::unique_ptr<grpc::ClientContext> context() const
    {
        auto ctx = std::make_unique<grpc::ClientContext>();
        ctx->set_deadline(std::chrono::system_clock::now() + timeout);
        return ctx;
    }
};

Result<IndexSettings> indexSettingsOf(const ShardSummary& shard)
{
    if (!shard.indexSettingsJson.empty())
        return decodeIndexSettings(shard.indexSettingsJson);
    IndexSettings settings = defaultIndexSettings();
    settings.fields.clear();
    for (const std::string& name : shard.fields)
        settings.fields.push_back({ name, true, 1.0 });
    return settings;
}

Result<std::unique_ptr<GrpcNodeClient>> GrpcNodeClient::connect(
    const std::string& address, const NodeClientOptions& options)
{
    auto credentials = clientChannelCredentials(options);
    if (!credentials)
        return credentials.error();
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(128 * 1024 * 1024);
    args.SetMaxSendMessageSize(128 * 1024 * 1024);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 2000);
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, static_cast<int>(options.keepaliveTime.count()));
    args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, static_cast<int>(options.keepaliveTimeout.count()));
    args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
    args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
    auto impl = std::make_unique<Impl>();
    impl->channel = grpc::CreateCustomChannel(address, *credentials, args);
    impl->stub = v1::Node::NewStub(impl->channel);
    impl->timeout = options.callTimeout;
    impl->options = options;
    return std::unique_ptr<GrpcNodeClient>(new GrpcNodeClient(address, std::move(impl)));
}

GrpcNodeClient::GrpcNodeClient(std::string address, std::unique_ptr<Impl> impl)
    : m_address(std::move(address))
    , m_impl(std::move(impl))
{
}

GrpcNodeClient::~GrpcNodeClient() = default;

Result<ShardSummary> GrpcNodeClient::createShard(const std::string& shard, const std::vector<std::string>& fields,
    std::optional<IndexEngine> engine, const std::optional<IndexSettings>& settings)
{
    v1::CreateShardRequest request;
    request.set_shard_id(shard);
    if (engine)
        request.set_engine(indexEngineName(*engine));
    toProto(settings, request);
    if (!fields.empty()) {
        request.clear_fields();
        for (const auto& field : fields)
            request.add_fields(field);
    }
    v1::ShardInfo info;
    const auto status = m_impl->stub->CreateShard(m_impl->context().get(), request, &info);
    if (!status.ok())
        return callFailed(status, m_address, m_impl->options);
    return fromProto(info);
}

Status GrpcNodeClient::dropShard(const std::string& shard)
{
    return drop(shard, false);
}

Status GrpcNodeClient::dropShardWithDocuments(const std::string& shard)
{
    return drop(shard, true);
}

Status GrpcNodeClient::drop(const std::string& shard, bool force)
{
    v1::DropShardRequest request;
    request.set_shard_id(shard);
    request.set_force(force);
    v1::DropShardResponse response;
    const auto status = m_impl->stub->DropShard(m_impl->context().get(), request, &response);
    if (!status.ok())
        return callFailed(status, m_address, m_impl->options);
    return {};
}

Result<std::vector<ShardSummary>> GrpcNodeClient::listShards()
{
    v1::ListShardsResponse response;
    const auto status = m_impl->stub->ListShards(m_impl->context().get(), {}, &response);
    if (!status.ok())
        return callFailed(status, m_address, m_impl->options);
    std::vector<ShardSummary> out;
    for (const auto& shard : response.shards())
        out.push_back(fromProto(shard));
    return out;
}

Result<Ownership> GrpcNodeClient::setOwnership(const std::string& shard, const Ownership& ownership)
{
    v1::SetOwnershipRequest request;
    request.set_shard_id(shard);
    request.set_space(ownership.space);
    request.set_role(static_cast<v1::SpaceRole>(ownership.role));
    request.set_epoch(ownership.epoch);
    v1::Ownership out;
    const auto status = m_impl->stub->SetOwnership(m_impl->context().get(), request, &out);
    if (!status.ok())
        return callFailed(status, m_address, m_impl->options);
    return fromProto(out);
}

Result<std::vector<Ownership>> GrpcNodeClient::ownerships(const std::string& shard, const std::string& space)
{
    v1::GetOwnershipRequest request;
    request.set_shard_id(shard);
    request.set_space(space);
    v1::GetOwnershipResponse response;
    const auto status = m_impl->stub->GetOwnership(m_impl->context().get(), request, &response);
    if (!status.ok())
        return callFailed(status, m_address, m_impl->options);
    std::vector<Ownership> out;
    for (const auto& own : response.ownerships())
        out.push_back(fromProto(own));
    return out;
}

Result<WriteSummary> GrpcNodeClient::bulkWrite(const std::string& shard, const std::vector<WriteItem>& items)
{
    return write(shard, items, WriteMode::Normal);
}

Result<WriteSummary> GrpcNodeClient::repairWrite(const std::string& shard, const std::vector<WriteItem>& items)
{
    return write(shard, items, WriteMode::Repair);
}

Result<WriteSummary> GrpcNodeClient::backfillWrite(const std::string& shard, const std::vector<WriteItem>& items)
{
    return write(shard, items, WriteMode::Backfill);
}

Result<WriteSummary> GrpcNodeClient::write(
    const std::string& shard, const std::vector<WriteItem>& items, WriteMode mode)
{
    v1::BulkWriteRequest request;
    request.set_shard_id(shard);
    request.set_repair(mode == WriteMode::Repair);
    request.set_backfill(mode == WriteMode::Backfill);
    for (const auto& item : items) {
        auto* out = request.add_items();
        toProto(item.doc, *out->mutable_doc());
        out->set_epoch(item.epoch);
    }
    v1::BulkWriteResponse response;
    const auto status = m_impl->stub->BulkWrite(m_impl->context().get(), request, &response);
    if (!status.ok())
        return callFailed(status, m_address, m_impl->options);
    WriteSummary summary;
    for (const auto& result : response.results())
        summary.results.push_back(fromProto(result));
    summary.applied = response.applied();
    summary.stale = response.stale();
    summary.rejected = response.rejected();
    return summary;
}

Result<SearchResult> GrpcNodeClient::search(const std::string& shard, const ShardSearchRequest& request)
{
    v1::SearchRequest out;
    out.set_shard_id(shard);
    for (const auto& space : request.spaces)
        out.add_spaces(space);
    out.set_query(request.query);
    out.set_limit(request.limit);
    out.set_offset(request.offset);
    out.set_snippets(request.snippets);
    v1::SearchResponse response;
    const auto status = m_impl->stub->Search(m_impl->context().get(), out, &response);
    if (!status.ok())
        return callFailed(status, m_address, m_impl->options);
    SearchResult result;
    result.compiledQuery = response.compiled_query();
    for (const auto& hit : response.hits())
        result.hits.push_back(fromProto(hit));
    return result;
}

Result<std::vector<SpaceStats>> GrpcNodeClient::spaceStats(
    const std::string& shard, const std::vector<std::string>& spaces)
{
    v1::GetSpaceStatsRequest request;
    request.set_shard_id(shard);
    for (const auto& space : spaces)
        request.add_spaces(space);
    v1::GetSpaceStatsResponse response;
    const auto status = m_impl->stub->GetSpaceStats(m_impl->context().get(), request, &response);
    if (!status.ok())
        return callFailed(status, m_address, m_impl->options);
    std::vector<SpaceStats> out;
    for (const auto& s : response.stats())
        out.push_back(
            { s.space(), s.live_docs(), s.bytes_estimate(), s.checksum(), s.tombstones(), s.checksum_kind() });
    return out;
}

Result<std::vector<FieldUse>> GrpcNodeClient::fieldUsage(
    const std::string& shard, const std::vector<std::string>& fields)
{
    v1::GetFieldUsageRequest request;
    request.set_shard_id(shard);
    for (const auto& field : fields)
        request.add_fields(field);
    v1::GetFieldUsageResponse response;
    const auto status = m_impl->stub->GetFieldUsage(m_impl->context().get(), request, &response);
    if (!status.ok())
        return callFailed(status, m_address, m_impl->options);
    std::vector<FieldUse> out;
    for (const auto& use : response.uses())
        out.push_back({ use.space(), use.field(), use.documents() });
    return out;
}

Result<ShardFileCopy> GrpcNodeClient::snapshotShard(const ShardSnapshotCall& call)
{
    v1::SnapshotShardRequest request;
    request.set_shard_id(call.shard);
    request.set_repository(call.repository);
    request.set_file(call.file);
    request.set_pause_ms(call.pauseMs);
    v1::SnapshotShardResponse response;
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + call.deadline);
    const auto status = m_impl->stub->SnapshotShard(&ctx, request, &response);
    if (!status.ok())
        return callFailed(status, m_address, m_impl->options);
    ShardFileCopy out { { response.bytes(), response.xxh3_128() }, {} };
    for (const auto& s : response.spaces())
        out.spaces.push_back(
            { s.space(), s.live_docs(), s.bytes_estimate(), s.checksum(), s.tombstones(), s.checksum_kind() });
    return out;
}

Result<ShardSummary> GrpcNodeClient::restoreShard(const ShardRestoreCall& call)
{
    v1::RestoreShardRequest request;
    request.set_shard_id(call.shard);
    request.set_repository(call.repository);
    request.set_file(call.file);
    request.set_bytes(call.expected.bytes);
    request.set_xxh3_128(call.expected.xxh3_128);
    v1::ShardInfo info;
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + call.deadline);
    const auto status = m_impl->stub->RestoreShard(&ctx, request, &info);
    if (!status.ok())
        return callFailed(status, m_address, m_impl->options);
    return fromProto(info);
}

Result<NodeMetricsValue> GrpcNodeClient::metrics(bool includeSpaces)
{
    v1::GetMetricsRequest request;
    request.set_include_spaces(includeSpaces);
    v1::NodeMetrics response;
    const auto status = m_impl->stub->GetMetrics(m_impl->context().get(), request, &response);
    if (!status.ok())
        return callFailed(status, m_address, m_impl->options);
    return fromProto(response);
}

Result<MetricsHistoryValue> GrpcNodeClient::metricsHistory(std::int64_t sinceUnixMs)
{
    v1::GetMetricsHistoryRequest request;
    request.set_since_unix_ms(sinceUnixMs);
    v1::MetricsHistory response;
    const auto status = m_impl->stub->GetMetricsHistory(m_impl->context().get(), request, &response);
    if (!status.ok())
        return callFailed(status, m_address, m_impl->options);
    MetricsHistoryValue out;
    out.intervalMs = response.interval_ms();
    out.samples.reserve(static_cast<std::size_t>(response.samples_size()));
    for (const auto& sample : response.samples())
        out.samples.push_back(fromProto(sample));
    return out;
}

namespace {

// One WatchMetrics stream on gRPC's callback API: no thread of ours, reads re-armed from
// OnReadDone, the end reported once from OnDone, which the destructor waits for.
class MetricsReactor final : public grpc::ClientReadReactor<v1::NodeMetrics>, public MetricsSubscription {
public:
    MetricsReactor(v1::Node::Stub& stub, const v1::WatchMetricsRequest& request, std::string address,
        MetricsCallback onSample, MetricsEndCallback onEnd)
        : m_address(std::move(address))
        , m_onSample(std::move(onSample))
        , m_onEnd(std::move(onEnd))
    {
        stub.async()->WatchMetrics(&m_context, &request, this);
        StartRead(&m_sample);
        StartCall();
    }

    ~MetricsReactor() override
    {
        m_context.TryCancel();
        std::unique_lock lock(m_mutex);
        m_doneChanged.wait(lock, [this] { return m_done; });
    }

    void OnReadDone(bool ok) override
    {
        if (!ok)
            return; // the stream ended; OnDone follows
        if (m_onSample)
            m_onSample(fromProto(m_sample));
        StartRead(&m_sample);
    }

    void OnDone(const grpc::Status& status) override
    {
        if (m_onEnd) {
            if (status.ok() || status.error_code() == grpc::StatusCode::CANCELLED)
                m_onEnd(Status {});
            else
                m_onEnd(fromGrpcStatus(status, m_address));
        }
        std::lock_guard lock(m_mutex);
        m_done = true;
        m_doneChanged.notify_all();
    }

private:
    grpc::ClientContext m_context;
    v1::NodeMetrics m_sample;
    std::string m_address;
    MetricsCallback m_onSample;
    MetricsEndCallback m_onEnd;
    std::mutex m_mutex;
    std::condition_variable m_doneChanged;
    bool m_done = false;
};

} // namespace

std::unique_ptr<MetricsSubscription> GrpcNodeClient::watchMetrics(
    std::chrono::milliseconds interval, bool includeSpaces, MetricsCallback onSample, MetricsEndCallback onEnd)
{
    v1::WatchMetricsRequest request;
    request.set_interval_ms(static_cast<std::uint32_t>(std::max<std::int64_t>(200, interval.count())));
    request.set_include_spaces(includeSpaces);
    return std::make_unique<MetricsReactor>(*m_impl->stub, request, m_address, std::move(onSample), std::move(onEnd));
}

Result<ScanPage> GrpcNodeClient::scanPage(const std::string& shard, const std::string& space,
    const std::string& afterId, std::uint32_t batchSize, bool includeTombstones)
{
    v1::ScanRequest request;
    request.set_shard_id(shard);
    request.set_space(space);
    request.set_after_id(afterId);
    request.set_batch_size(batchSize);
    request.set_max_docs(batchSize); // one batch, then the stream ends
    request.set_include_tombstones(includeTombstones);
    auto ctx = m_impl->context();
    auto reader = m_impl->stub->Scan(ctx.get(), request);
    ScanPage page;
    page.cursor = afterId;
    v1::ScanBatch batch;
    while (reader->Read(&batch)) {
        for (const auto& doc : batch.docs()) {
            page.docs.push_back(fromProto(doc));
        }
        page.cursor = batch.cursor();
        page.done = batch.done();
    }
    const auto status = reader->Finish();
    if (!status.ok())
        return callFailed(status, m_address, m_impl->options);
    page.done = page.done || page.docs.size() < batchSize;
    return page;
}

Result<DropProgress> GrpcNodeClient::dropSpace(const std::string& shard, const std::string& space, std::uint64_t epoch,
    std::uint32_t maxRowsPerSecond, std::uint64_t maxRows)
{
    v1::DropSpaceRequest request;
    request.set_shard_id(shard);
    request.set_space(space);
    request.set_max_rows_per_second(maxRowsPerSecond);
    request.set_epoch(epoch);
    request.set_max_rows(maxRows);
    // As long as the pace says for maxRows (unpaced: 10,000 rows/s), plus the call timeout; an
    // unbounded drop gets an hour.
    const double seconds
        = maxRows == 0 ? 3600.0 : static_cast<double>(maxRows) / (maxRowsPerSecond ? maxRowsPerSecond : 10000);
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + m_impl->timeout
        + std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(seconds)));
    auto reader = m_impl->stub->DropSpace(&ctx, request);
    v1::DropSpaceProgress progress;
    DropProgress out;
    while (reader->Read(&progress)) {
        out.deleted = progress.deleted();
        out.done = progress.done();
    }
    const auto status = reader->Finish();
    if (!status.ok())
        return callFailed(status, m_address, m_impl->options);
    return out;
}

NodeClientPool::NodeClientPool(NodeClientOptions options)
    : m_options(std::move(options))
{
}

Result<std::shared_ptr<NodeClient>> NodeClientPool::get(const std::string& address)
{
    std::lock_guard lock(m_mutex);
    const auto found = m_clients.find(address);
    if (found != m_clients.end())
        return found->second;
    auto client = GrpcNodeClient::connect(address, m_options);
    if (!client)
        return client.error();
    std::shared_ptr<NodeClient> shared(std::move(*client));
    m_clients.emplace(address, shared);
    return shared;
}

} // namespace shardmap::core
