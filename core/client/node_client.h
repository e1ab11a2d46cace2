#pragma once

// How the control plane talks to a shard node: the NodeClient interface with the values it returns,
// its gRPC implementation, and a pool that shares one client per node address.

#include "core/shard/shard_store.h"
#include "core/snapshot/snapshot_repository.h"
#include "core/util/result.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace grpc {
class Channel;
class ChannelCredentials;
} // namespace grpc

namespace shardmap::core {

struct ShardSummary {
    std::string id;
    bool healthy = true;
    std::string error;
    std::vector<std::string> fields;
    std::uint64_t liveDocs = 0;
    std::uint64_t tombstones = 0;
    std::uint64_t spaces = 0;
    std::uint64_t bytesOnDisk = 0;
    std::uint64_t bytesEstimate = 0;
    // The index engine as the node names it (indexEngineName); empty from a node older than
    // engines, whose shards are all FTS5. (Braced: aggregate initialisers that predate it may stop short.)
    std::string engine {};
    // The index settings' JSON (encodeIndexSettings); empty from a node older than index
    // settings, whose shards all have today's index over `fields` (indexSettingsOf below).
    std::string indexSettingsJson {};
};

// What a shard's index is built with, as the node said: its settings, or today's index over its
// fields from a node that does not say (older than issue 31). InvalidArgument for JSON that does not
// decode.
Result<IndexSettings> indexSettingsOf(const ShardSummary& shard);

struct SpaceMetricsValue {
    std::string space;
    std::uint64_t liveDocs = 0;
    std::uint64_t bytesEstimate = 0;
    double queriesPerSecond = 0;
    double writesPerSecond = 0;
};

struct ShardMetricsValue {
    std::string shard;
    bool healthy = true;
    std::uint64_t liveDocs = 0;
    std::uint64_t bytesEstimate = 0;
    std::uint64_t bytesOnDisk = 0;
    std::uint64_t spaces = 0;
    double queriesPerSecond = 0;
    double writesPerSecond = 0;
    double docsIndexedPerSecond = 0;
    double queryP50Ms = 0;
    double queryP99Ms = 0;
    std::vector<SpaceMetricsValue> spaceMetrics;
    // As in ShardSummary.
    std::string engine {};
};

// One metrics sample of a node, as a value that can cross threads (protobuf stays in the client).
struct NodeMetricsValue {
    std::int64_t unixMs = 0;
    std::string nodeId;
    std::uint64_t rssBytes = 0;
    std::uint64_t sqliteMemoryBytes = 0;
    std::uint64_t diskTotalBytes = 0;
    std::uint64_t diskFreeBytes = 0;
    double cpuPercent = 0;
    double ioReadBytesPerSecond = 0;
    double ioWriteBytesPerSecond = 0;
    double iowaitPercent = 0;
    double queriesPerSecond = 0;
    double queryP50Ms = 0;
    double queryP99Ms = 0;
    double docsIndexedPerSecond = 0;
    std::uint64_t bytesOnDisk = 0;
    std::vector<ShardMetricsValue> shards;
    // Write batches applied in the sample's window (0 from a node older than these figures).
    double writeP50Ms = 0;
    double writeP99Ms = 0;
};

// A node's metrics history, oldest first, sampled every intervalMs.
struct MetricsHistoryValue {
    std::int64_t intervalMs = 0;
    std::vector<NodeMetricsValue> samples;
};

// A live metrics stream. Samples and the end arrive on a gRPC thread: copy, hand over, return.
// Destroying the subscription cancels the stream and waits until no callback runs any more.
class MetricsSubscription {
public:
    virtual ~MetricsSubscription() = default;
};
using MetricsCallback = std::function<void(const NodeMetricsValue&)>;
// Called exactly once when the stream ends: ok after a cancel, the error otherwise.
using MetricsEndCallback = std::function<void(const Status&)>;

// What one DropSpace call did: rows deleted, and whether none remain.
struct DropProgress {
    std::uint64_t deleted = 0;
    bool done = false;
};

// A shard's copy into a snapshot repository (issue 32): where it goes (relative to the repository),
// the pause between the node's backup steps, and how long the call may take.
struct ShardSnapshotCall {
    std::string shard;
    std::string repository;
    std::string file;
    std::uint32_t pauseMs = 5;
    std::chrono::milliseconds deadline { 3'600'000 };
};

// A snapshot's file installed as a shard on a node (issue 32): the shard id it becomes there, the
// repository, the file (relative to it) and what the manifest says of it.
struct ShardRestoreCall {
    std::string shard;
    std::string repository;
    std::string file;
    FileDigest expected;
    std::chrono::milliseconds deadline { 3'600'000 };
};

// A shard node as the control plane sees it. The one real implementation talks gRPC
// (GrpcNodeClient); tests use it against real nodes, fault tests wrap it.
class NodeClient {
public:
    virtual ~NodeClient() = default;

    virtual const std::string& address() const = 0;
    // Fields empty: the node's default (title, body, tags); no engine: the node's --default-engine;
    // settings (issue 31): what the index is built with (fields empty then: the settings' fields;
    // other fields than the settings' are refused by the node).
    virtual Result<ShardSummary> createShard(const std::string& shard, const std::vector<std::string>& fields,
        std::optional<IndexEngine> engine, const std::optional<IndexSettings>& settings)
        = 0;
    Result<ShardSummary> createShard(
        const std::string& shard, const std::vector<std::string>& fields, std::optional<IndexEngine> engine)
    {
        return createShard(shard, fields, engine, std::nullopt);
    }
    Result<ShardSummary> createShard(const std::string& shard, const std::vector<std::string>& fields)
    {
        return createShard(shard, fields, std::nullopt, std::nullopt);
    }
    // Removes a shard that holds no documents or tombstones (FailedPrecondition otherwise).
    virtual Status dropShard(const std::string& shard) = 0;
    // Drops a shard with the documents it holds (DropShard's force): a replica taken off the map.
    // A client that cannot force drops as dropShard does.
    virtual Status dropShardWithDocuments(const std::string& shard) { return dropShard(shard); }
    virtual Result<std::vector<ShardSummary>> listShards() = 0;
    virtual Result<Ownership> setOwnership(const std::string& shard, const Ownership& ownership) = 0;
    virtual Result<std::vector<Ownership>> ownerships(const std::string& shard, const std::string& space) = 0;
    virtual Result<WriteSummary> bulkWrite(const std::string& shard, const std::vector<WriteItem>& items) = 0;
    // A migration's verify copying the source's rows (WriteMode::Repair): a row of the same
    // version with other content is replaced too.
    virtual Result<WriteSummary> repairWrite(const std::string& shard, const std::vector<WriteItem>& items) = 0;
    // A migration's backfill (WriteMode::Backfill): the node lets clients' writes go first.
    virtual Result<WriteSummary> backfillWrite(const std::string& shard, const std::vector<WriteItem>& items) = 0;
    virtual Result<SearchResult> search(const std::string& shard, const ShardSearchRequest& request) = 0;
    virtual Result<std::vector<SpaceStats>> spaceStats(const std::string& shard, const std::vector<std::string>& spaces)
        = 0;
    // ShardStore::fieldUsage on the node: a scan of the shard, for administrators' checks only.
    virtual Result<std::vector<FieldUse>> fieldUsage(const std::string& shard, const std::vector<std::string>& fields)
        = 0;
    virtual Result<NodeMetricsValue> metrics(bool includeSpaces) = 0;
    // The samples the node kept since sinceUnixMs (0: all of them).
    virtual Result<MetricsHistoryValue> metricsHistory(std::int64_t sinceUnixMs) = 0;
    // A sample every interval (at least 200 ms) until the subscription is destroyed.
    virtual std::unique_ptr<MetricsSubscription> watchMetrics(
        std::chrono::milliseconds interval, bool includeSpaces, MetricsCallback onSample, MetricsEndCallback onEnd)
        = 0;
    // One page of a space's documents in id order after a cursor (tombstones included if asked).
    virtual Result<ScanPage> scanPage(const std::string& shard, const std::string& space, const std::string& afterId,
        std::uint32_t batchSize, bool includeTombstones)
        = 0;
    // Deletes up to maxRows (0: all) of a space's rows from a shard where the caller fenced it at
    // epoch, paced; with a deadline from maxRows and the pace. Returns how many rows went and
    // whether none remain.
    virtual Result<DropProgress> dropSpace(const std::string& shard, const std::string& space, std::uint64_t epoch,
        std::uint32_t maxRowsPerSecond, std::uint64_t maxRows)
        = 0;
    // Copies a shard's file into a snapshot repository (core/snapshot/snapshot_repository.h
    // copyShardFile on the node). A client that cannot: Unavailable.
    virtual Result<ShardFileCopy> snapshotShard(const ShardSnapshotCall& call)
    {
        return makeError(ErrorCode::Unavailable, "this client cannot take snapshots", call.shard);
    }
    // Installs a snapshot's file as a shard (core/snapshot/snapshot_repository.h restoreShardFile
    // on the node). A client that cannot: Unavailable.
    virtual Result<ShardSummary> restoreShard(const ShardRestoreCall& call)
    {
        return makeError(ErrorCode::Unavailable, "this client cannot restore shards", call.shard);
    }
};

struct NodeClientOptions {
    std::chrono::milliseconds callTimeout { 10000 };
    // PEM files for TLS; empty: plaintext (loopback).
    std::string caFile;
    std::string certFile;
    std::string keyFile;
    // HTTP/2 keepalive pings on idle and busy channels: a node that stops answering (black-holed,
    // SIGSTOPped) fails calls and streams within about keepaliveTime + keepaliveTimeout instead
    // of hanging whoever waits on them (the nodes accept pings this often).
    std::chrono::milliseconds keepaliveTime { 10000 };
    std::chrono::milliseconds keepaliveTimeout { 5000 };
};

// The TLS part of the options is whole: a certificate with its key, a client certificate only
// with the CA, every file readable. InvalidArgument naming what is missing otherwise.
Status checkNodeClientTls(const NodeClientOptions& options);
// The channel credentials of those options (after checkNodeClientTls): plaintext without a CA,
// TLS with it, mutual TLS with a certificate too. shardmapctl's Admin API client uses them too.
Result<std::shared_ptr<grpc::ChannelCredentials>> clientChannelCredentials(const NodeClientOptions& options);

// gRPC client of shardmap.v1.Node with a deadline on every call. Errors come back as domain
// errors; a fencing refusal keeps its EpochMismatch facts in Error::details.
class GrpcNodeClient final : public NodeClient {
public:
    static Result<std::unique_ptr<GrpcNodeClient>> connect(
        const std::string& address, const NodeClientOptions& options);
    ~GrpcNodeClient() override;

    const std::string& address() const override { return m_address; }
    using NodeClient::createShard;
    Result<ShardSummary> createShard(const std::string& shard, const std::vector<std::string>& fields,
        std::optional<IndexEngine> engine, const std::optional<IndexSettings>& settings) override;
    Status dropShard(const std::string& shard) override;
    Status dropShardWithDocuments(const std::string& shard) override;
    Result<std::vector<ShardSummary>> listShards() override;
    Result<Ownership> setOwnership(const std::string& shard, const Ownership& ownership) override;
    Result<std::vector<Ownership>> ownerships(const std::string& shard, const std::string& space) override;
    Result<WriteSummary> bulkWrite(const std::string& shard, const std::vector<WriteItem>& items) override;
    Result<WriteSummary> repairWrite(const std::string& shard, const std::vector<WriteItem>& items) override;
    Result<WriteSummary> backfillWrite(const std::string& shard, const std::vector<WriteItem>& items) override;
    Result<SearchResult> search(const std::string& shard, const ShardSearchRequest& request) override;
    Result<std::vector<SpaceStats>> spaceStats(
        const std::string& shard, const std::vector<std::string>& spaces) override;
    Result<std::vector<FieldUse>> fieldUsage(const std::string& shard, const std::vector<std::string>& fields) override;
    Result<NodeMetricsValue> metrics(bool includeSpaces) override;
    Result<MetricsHistoryValue> metricsHistory(std::int64_t sinceUnixMs) override;
    std::unique_ptr<MetricsSubscription> watchMetrics(std::chrono::milliseconds interval, bool includeSpaces,
        MetricsCallback onSample, MetricsEndCallback onEnd) override;
    Result<ScanPage> scanPage(const std::string& shard, const std::string& space, const std::string& afterId,
        std::uint32_t batchSize, bool includeTombstones) override;
    Result<DropProgress> dropSpace(const std::string& shard, const std::string& space, std::uint64_t epoch,
        std::uint32_t maxRowsPerSecond, std::uint64_t maxRows) override;
    Result<ShardFileCopy> snapshotShard(const ShardSnapshotCall& call) override;
    Result<ShardSummary> restoreShard(const ShardRestoreCall& call) override;

private:
    Result<WriteSummary> write(const std::string& shard, const std::vector<WriteItem>& items, WriteMode mode);
    Status drop(const std::string& shard, bool force);
    struct Impl;
    GrpcNodeClient(std::string address, std::unique_ptr<Impl> impl);

    std::string m_address;
    std::unique_ptr<Impl> m_impl;
};

// One client per node address, created on first use and shared; thread-safe.
class NodeClientPool {
public:
    explicit NodeClientPool(NodeClientOptions options = {});
    virtual ~NodeClientPool() = default;

    virtual Result<std::shared_ptr<NodeClient>> get(const std::string& address);
    // The options its clients are made with (a second pool for the same fleet copies them).
    const NodeClientOptions& options() const { return m_options; }

private:
    NodeClientOptions m_options;
    std::mutex m_mutex;
    std::unordered_map<std::string, std::shared_ptr<NodeClient>> m_clients;
};

} // namespace shardmap::core
