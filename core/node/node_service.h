#pragma once

// The shardmap.v1.Node gRPC service, the node's API.

#include "core/auth/peer_identity.h"
#include "core/metrics/prometheus.h"
#include "core/node/metrics_watch.h"
#include "core/node/node_metrics.h"
#include "core/node/shard_registry.h"
#include "core/util/log.h"
#include "shardmap/v1/node.grpc.pb.h"

#include <atomic>
#include <set>
#include <string>
#include <vector>

namespace shardmap::core {

// The shardmap.v1.Node gRPC service over a ShardRegistry. It validates requests, maps protobuf
// messages to core value types and core errors to gRPC statuses; the shard work is in ShardStore.
// WatchMetrics runs on gRPC's asynchronous API (MetricsWatchers), so that a stream holds no thread.
class NodeService final : public MetricsWatchers::Service {
public:
    struct Info {
        std::string nodeId;
        std::string version;
        std::string listenAddress;
        std::int64_t startedUnixMs = 0;
    };

    // log: refused calls (Debug: an unknown shard, a stale epoch; Warn: bad input, a full disk;
    // Error: the node's own failures), with the method, the peer and the reason.
    // metrics: per shard latency histograms of searches and writes, refusals by method and code.
    // maxWatchStreamsPerPeer: WatchMetrics streams one peer may hold at once (MetricsWatchers).
    NodeService(Info info, ShardRegistry& registry, NodeMetricsSampler& metrics, LogSink log = {},
        MetricsRegistry* prometheus = nullptr, std::size_t maxWatchStreamsPerPeer = 32);

    // Ends running streams (scan, drop, watch) so that a shutdown does not wait on them.
    void beginShutdown()
    {
        m_stopping = true;
        m_watchers.stopAll();
    }
    // WatchMetrics' queue: attached before the server is built, started once it runs, closed
    // once it shut down.
    void attachWatchers(grpc::ServerBuilder& builder);
    void startWatchers() { m_watchers.start(); }
    void closeWatchers() { m_watchers.close(); }
    void setListenAddress(std::string address) { m_info.listenAddress = std::move(address); }
    // Only peers whose certificate's identity (peerCertificateIdentity) one of these names, kind
    // and name together, may change shards, ownership or documents; the rest are refused with
    // PERMISSION_DENIED. Empty: no restriction. Set before serving, and only where client
    // certificates are required.
    void restrictChangesTo(std::vector<IdentityPattern> controllers) { m_controllers = std::move(controllers); }

    grpc::Status GetNodeInfo(grpc::ServerContext*, const v1::GetNodeInfoRequest*, v1::NodeInfo*) override;
    grpc::Status CreateShard(grpc::ServerContext*, const v1::CreateShardRequest*, v1::ShardInfo*) override;
    grpc::Status DropShard(grpc::ServerContext*, const v1::DropShardRequest*, v1::DropShardResponse*) override;
    grpc::Status ListShards(grpc::ServerContext*, const v1::ListShardsRequest*, v1::ListShardsResponse*) override;
    grpc::Status SetOwnership(grpc::ServerContext*, const v1::SetOwnershipRequest*, v1::Ownership*) override;
    grpc::Status GetOwnership(grpc::ServerContext*, const v1::GetOwnershipRequest*, v1::GetOwnershipResponse*) override;
    grpc::Status BulkWrite(grpc::ServerContext*, const v1::BulkWriteRequest*, v1::BulkWriteResponse*) override;
    grpc::Status Search(grpc::ServerContext*, const v1::SearchRequest*, v1::SearchResponse*) override;
    grpc::Status Scan(grpc::ServerContext*, const v1::ScanRequest*, grpc::ServerWriter<v1::ScanBatch>*) override;
    grpc::Status GetSpaceStats(
        grpc::ServerContext*, const v1::GetSpaceStatsRequest*, v1::GetSpaceStatsResponse*) override;
    grpc::Status GetFieldUsage(
        grpc::ServerContext*, const v1::GetFieldUsageRequest*, v1::GetFieldUsageResponse*) override;
    grpc::Status SnapshotShard(
        grpc::ServerContext*, const v1::SnapshotShardRequest*, v1::SnapshotShardResponse*) override;
    grpc::Status RestoreShard(grpc::ServerContext*, const v1::RestoreShardRequest*, v1::ShardInfo*) override;
    grpc::Status DropSpace(
        grpc::ServerContext*, const v1::DropSpaceRequest*, grpc::ServerWriter<v1::DropSpaceProgress>*) override;
    grpc::Status GetMetrics(grpc::ServerContext*, const v1::GetMetricsRequest*, v1::NodeMetrics*) override;
    grpc::Status GetMetricsHistory(
        grpc::ServerContext*, const v1::GetMetricsHistoryRequest*, v1::MetricsHistory*) override;

private:
    grpc::Status refused(grpc::ServerContextBase* context, const char* method, const Error& error) const;
    grpc::Status onlyControllers(grpc::ServerContext* context, const char* method) const;
    void fillShardInfo(v1::ShardInfo& out, const ShardEntry& entry) const;
    Status checkBulkWrite(const v1::BulkWriteRequest& request) const;
    void logRejectedItems(
        grpc::ServerContext* context, const v1::BulkWriteRequest& request, const WriteSummary& summary) const;
    void logFenceLifted(
        grpc::ServerContext* context, const std::string& shard, const Ownership& before, const Ownership& after) const;
    bool stopping(grpc::ServerContext* context) const { return m_stopping || context->IsCancelled(); }

    Info m_info;
    ShardRegistry& m_registry;
    NodeMetricsSampler& m_metrics;
    LogSink m_log;
    MetricsRegistry* m_prometheus = nullptr;
    std::vector<IdentityPattern> m_controllers;
    std::atomic<bool> m_stopping { false };
    MetricsWatchers m_watchers;
};

} // namespace shardmap::core
