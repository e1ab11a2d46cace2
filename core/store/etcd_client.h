#pragma once

// The gRPC client of an etcd cluster, as EtcdStore and its watches use it.

#include "core/store/etcd_store.h"
#include "core/util/result.h"

#include <chrono>
#include <etcd/rpc.grpc.pb.h>
#include <grpcpp/grpcpp.h>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace shardmap::core {

// The gRPC side of EtcdStore (internal to core/store): one channel per endpoint, failover between
// them, deadlines, authentication, and the mapping of gRPC status codes to ErrorCode. Calls that
// are safe to repeat (reads, Compact) move on to the next endpoint when one is unavailable;
// a write is sent once and a transport failure is returned as outcome-unknown for the caller to
// resolve by reading. Thread-safe.
class EtcdClient final {
public:
    // Reads the TLS files; FailedPrecondition when one cannot be read.
    static Result<std::shared_ptr<EtcdClient>> create(const EtcdStoreConfig& config);

    Result<etcdserverpb::RangeResponse> range(const etcdserverpb::RangeRequest& request);
    // A Txn of only Range operations, repeated on other endpoints like range().
    Result<etcdserverpb::TxnResponse> readTxn(const etcdserverpb::TxnRequest& request);
    // A writing Txn, sent once. On a transport failure the error has details["outcome"] =
    // "unknown": it may or may not have been applied.
    Result<etcdserverpb::TxnResponse> writeTxn(const etcdserverpb::TxnRequest& request);
    Status compact(std::int64_t revision);

    // A bidirectional Watch stream on the current endpoint. The context stays owned by the
    // caller, who cancels it (TryCancel) to end a blocked Read.
    using WatchStream = grpc::ClientReaderWriter<etcdserverpb::WatchRequest, etcdserverpb::WatchResponse>;
    struct OpenWatch {
        std::shared_ptr<const void> channel; // keeps the stream's channel alive
        std::unique_ptr<WatchStream> stream;
    };
    Result<OpenWatch> openWatch(grpc::ClientContext& context);
    // Moves on to the next endpoint after a stream on the current one failed.
    void endpointFailed(std::size_t endpoint);
    std::size_t currentEndpoint() const;

    std::chrono::milliseconds callTimeout() const { return m_config.callTimeout; }

private:
    struct Connection;
    struct Endpoint;
    explicit EtcdClient(EtcdStoreConfig config, std::shared_ptr<grpc::ChannelCredentials> credentials);

    // What a call asks of the etcd user, for the sentence that explains a refused permission.
    enum class Access { Read, Write };

    template <typename Response, typename Call>
    Result<Response> call(const char* what, Access access, bool failover, Call invoke);
    template <typename Response, typename Call>
    grpc::Status callOn(std::size_t endpoint, Call& invoke, Response& response);
    Error errorFor(const grpc::Status& status, const char* what, Access access, std::size_t endpoint) const;
    Status prepare(std::size_t endpoint, grpc::ClientContext& context, bool withDeadline);
    Status authenticate(std::size_t endpoint);
    std::shared_ptr<Connection> connection(std::size_t endpoint) const;
    void redial(std::size_t endpoint);
    void forgetToken(std::size_t endpoint);

    EtcdStoreConfig m_config;
    std::shared_ptr<grpc::ChannelCredentials> m_credentials;
    std::vector<std::unique_ptr<Endpoint>> m_endpoints;
    mutable std::mutex m_mutex;
    std::size_t m_current = 0;
};

} // namespace shardmap::core
