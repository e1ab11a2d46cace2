#include "core/store/etcd_client.h"

// EtcdClient's implementation: TLS credentials and channels, each call with its deadline and token,
// failover to the next endpoint for calls that may repeat, and etcd's statuses as error codes.

#include <fstream>
#include <sstream>
#include <thread>

namespace shardmap::core {

namespace {

// A restarted etcd is found again within this long; gRPC's default backoff grows to two minutes.
constexpr int kMaxReconnectBackoffMs = 1000;
// Pings on an open watch stream notice a vanished server. Only while a call is active: etcd 3.4
// answers pings on an idle connection with GOAWAY too_many_pings.
constexpr int kKeepaliveTimeMs = 10000;
constexpr int kKeepaliveTimeoutMs = 5000;
// When no endpoint answers, calls that may be repeated try them all again after this pause, for
// up to the call timeout: a restarting server or a reconnecting channel gets a moment.
constexpr std::chrono::milliseconds kRoundPause { 100 };
// A failing channel is replaced at most this often.
constexpr std::chrono::milliseconds kRedialAfter { 300 };

Result<std::string> readFile(const std::string& path, const char* what)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return makeError(ErrorCode::FailedPrecondition, std::string("cannot read the ") + what + " file " + path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

Result<std::shared_ptr<grpc::ChannelCredentials>> credentialsFor(const EtcdStoreConfig& config)
{
    if (config.caFile.empty() && config.certFile.empty() && config.keyFile.empty())
        return grpc::InsecureChannelCredentials();
    if (config.certFile.empty() != config.keyFile.empty())
        return makeError(ErrorCode::InvalidArgument, "an etcd client certificate needs both cert and key");
    grpc::SslCredentialsOptions options;
    const std::pair<const std::string*, std::string*> files[] = {
        { &config.caFile, &options.pem_root_certs },
        { &config.certFile, &options.pem_cert_chain },
        { &config.keyFile, &options.pem_private_key },
    };
    for (const auto& [path, pem] : files) {
        if (path->empty())
            continue;
        auto text = readFile(*path, "TLS");
        if (!text)
            return text.error();
        *pem = std::move(*text);
    }
    return grpc::SslCredentials(options);
}

bool isTransportFailure(grpc::StatusCode code)
{
    return code == grpc::StatusCode::UNAVAILABLE || code == grpc::StatusCode::DEADLINE_EXCEEDED;
}

// etcd answers an expired or unknown token with Unauthenticated "etcdserver: invalid auth token".
bool isStaleToken(const grpc::Status& status)
{
    return status.error_code() == grpc::StatusCode::UNAUTHENTICATED
        && status.error_message().find("invalid auth token") != std::string::npos;
}

ErrorCode errorCodeFor(grpc::StatusCode code)
{
    switch (code) {
    case grpc::StatusCode::UNAVAILABLE: return ErrorCode::Unavailable;
    case grpc::StatusCode::DEADLINE_EXCEEDED: return ErrorCode::DeadlineExceeded;
    case grpc::StatusCode::INVALID_ARGUMENT: return ErrorCode::InvalidArgument;
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return ErrorCode::ResourceExhausted;
    case grpc::StatusCode::NOT_FOUND: return ErrorCode::NotFound;
    case grpc::StatusCode::CANCELLED: return ErrorCode::Cancelled;
    case grpc::StatusCode::ABORTED: return ErrorCode::Aborted;
    case grpc::StatusCode::PERMISSION_DENIED: return ErrorCode::PermissionDenied;
    case grpc::StatusCode::UNAUTHENTICATED:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::OUT_OF_RANGE: return ErrorCode::FailedPrecondition;
    default: return ErrorCode::Internal;
    }
}

Error errorFrom(const grpc::Status& status, const std::string& what, const std::string& endpoint)
{
    // etcd with auth enabled answers a request without a token with INVALID_ARGUMENT.
    if (status.error_message().find("user name is empty") != std::string::npos)
        return makeError(ErrorCode::FailedPrecondition,
            what + " refused: etcd requires authentication (add user= and password= to the store URI)",
            "etcd " + endpoint);
    return makeError(
        errorCodeFor(status.error_code()), what + " failed: " + status.error_message(), "etcd " + endpoint);
}

std::shared_ptr<grpc::Channel> channelTo(const std::string& endpoint, std::shared_ptr<grpc::ChannelCredentials> creds)
{
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(-1);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, kMaxReconnectBackoffMs);
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, kMaxReconnectBackoffMs / 10);
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, kKeepaliveTimeMs);
    args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, kKeepaliveTimeoutMs);
    // Subchannels of its own, so that redial() really dials instead of reusing a failed one.
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    return grpc::CreateCustomChannel(endpoint, std::move(creds), args);
}

} // namespace

// A channel and its stubs; replaced as a whole by redial().
struct EtcdClient::Connection {
    Connection(const std::string& address, std::shared_ptr<grpc::ChannelCredentials> credentials)
        : channel(channelTo(address, std::move(credentials)))
        , kv(etcdserverpb::KV::NewStub(channel))
        , watch(etcdserverpb::Watch::NewStub(channel))
        , auth(etcdserverpb::Auth::NewStub(channel))
        , created(std::chrono::steady_clock::now())
    {
    }
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<etcdserverpb::KV::Stub> kv;
    std::unique_ptr<etcdserverpb::Watch::Stub> watch;
    std::unique_ptr<etcdserverpb::Auth::Stub> auth;
    std::chrono::steady_clock::time_point created;
};

// Fields other than address are guarded by EtcdClient::m_mutex.
struct EtcdClient::Endpoint {
    std::string address;
    std::shared_ptr<Connection> connection;
    std::string token;
};

Result<std::shared_ptr<EtcdClient>> EtcdClient::create(const EtcdStoreConfig& config)
{
    if (config.endpoints.empty())
        return makeError(ErrorCode::InvalidArgument, "an etcd store needs at least one endpoint");
    auto credentials = credentialsFor(config);
    if (!credentials)
        return credentials.error();
    return std::shared_ptr<EtcdClient>(new EtcdClient(config, std::move(*credentials)));
}

EtcdClient::EtcdClient(EtcdStoreConfig config, std::shared_ptr<grpc::ChannelCredentials> credentials)
    : m_config(std::move(config))
    , m_credentials(std::move(credentials))
{
    for (const auto& address : m_config.endpoints) {
        auto endpoint = std::make_unique<Endpoint>();
        endpoint->address = address;
        endpoint->connection = std::make_shared<Connection>(address, m_credentials);
        m_endpoints.push_back(std::move(endpoint));
    }
}

std::shared_ptr<EtcdClient::Connection> EtcdClient::connection(std::size_t index) const
{
    std::lock_guard lock(m_mutex);
    return m_endpoints[index]->connection;
}

// gRPC 1.51's pick_first leaves a channel whose server went away in TRANSIENT_FAILURE without
// dialling again for seconds, even with calls waiting; a new channel dials at its first call.
void EtcdClient::redial(std::size_t index)
{
    auto current = connection(index);
    const auto state = current->channel->GetState(false);
    if (state != GRPC_CHANNEL_TRANSIENT_FAILURE && state != GRPC_CHANNEL_IDLE)
        return;
    if (std::chrono::steady_clock::now() - current->created < kRedialAfter)
        return;
    auto fresh = std::make_shared<Connection>(m_endpoints[index]->address, m_credentials);
    std::lock_guard lock(m_mutex);
    if (m_endpoints[index]->connection == current)
        m_endpoints[index]->connection = std::move(fresh);
}

Result<etcdserverpb::RangeResponse> EtcdClient::range(const etcdserverpb::RangeRequest& request)
{
    return call<etcdserverpb::RangeResponse>("Range", Access::Read, true,
        [&](Connection& connection, grpc::ClientContext& context, etcdserverpb::RangeResponse& response) {
            return connection.kv->Range(&context, request, &response);
        });
}

Result<etcdserverpb::TxnResponse> EtcdClient::readTxn(const etcdserverpb::TxnRequest& request)
{
    return call<etcdserverpb::TxnResponse>("Txn", Access::Read, true,
        [&](Connection& connection, grpc::ClientContext& context, etcdserverpb::TxnResponse& response) {
            return connection.kv->Txn(&context, request, &response);
        });
}

Result<etcdserverpb::TxnResponse> EtcdClient::writeTxn(const etcdserverpb::TxnRequest& request)
{
    return call<etcdserverpb::TxnResponse>("Txn", Access::Write, false,
        [&](Connection& connection, grpc::ClientContext& context, etcdserverpb::TxnResponse& response) {
            return connection.kv->Txn(&context, request, &response);
        });
}

Status EtcdClient::compact(std::int64_t revision)
{
    etcdserverpb::CompactionRequest request;
    request.set_revision(revision);
    request.set_physical(true);
    auto response = call<etcdserverpb::CompactionResponse>("Compact", Access::Write, true,
        [&](Connection& connection, grpc::ClientContext& context, etcdserverpb::CompactionResponse& out) {
            return connection.kv->Compact(&context, request, &out);
        });
    if (!response)
        return response.error();
    return {};
}

Result<EtcdClient::OpenWatch> EtcdClient::openWatch(grpc::ClientContext& context)
{
    const std::size_t index = currentEndpoint();
    if (auto status = prepare(index, context, false); !status)
        return status.error();
    auto used = connection(index);
    auto stream = used->watch->Watch(&context);
    if (!stream)
        return makeError(ErrorCode::Unavailable, "cannot open a watch stream", "etcd " + m_endpoints[index]->address);
    return OpenWatch { std::move(used), std::move(stream) };
}

void EtcdClient::endpointFailed(std::size_t endpoint)
{
    std::lock_guard lock(m_mutex);
    if (m_current == endpoint)
        m_current = (m_current + 1) % m_endpoints.size();
}

std::size_t EtcdClient::currentEndpoint() const
{
    std::lock_guard lock(m_mutex);
    return m_current;
}

// Runs invoke on the current endpoint; with failover, on each of the others in turn while the
// answer is UNAVAILABLE or DEADLINE_EXCEEDED.
template <typename Response, typename Call>
Result<Response> EtcdClient::call(const char* what, Access access, bool failover, Call invoke)
{
    const auto giveUp = std::chrono::steady_clock::now() + m_config.callTimeout;
    std::vector<std::string> failures;
    while (true) {
        const std::size_t first = currentEndpoint();
        const std::size_t attempts = failover ? m_endpoints.size() : 1;
        failures.clear();
        for (std::size_t attempt = 0; attempt < attempts; ++attempt) {
            const std::size_t index = (first + attempt) % m_endpoints.size();
            Response response;
            const grpc::Status status = callOn(index, invoke, response);
            if (status.ok())
                return response;
            if (!isTransportFailure(status.error_code()))
                return errorFor(status, what, access, index);
            endpointFailed(index);
            failures.push_back(m_endpoints[index]->address + ": " + status.error_message());
            if (!failover) {
                Error error = errorFrom(status, what, m_endpoints[index]->address);
                error.details["outcome"] = "unknown";
                return error;
            }
        }
        if (std::chrono::steady_clock::now() + kRoundPause >= giveUp)
            break;
        std::this_thread::sleep_for(kRoundPause);
        // A server that just came back is dialled now rather than after the channel's backoff.
        for (std::size_t index = 0; index < m_endpoints.size(); ++index)
            redial(index);
    }
    std::string message = std::string(what) + " failed: no etcd endpoint answered (";
    for (std::size_t i = 0; i < failures.size(); ++i)
        message += (i ? "; " : "") + failures[i];
    return makeError(ErrorCode::Unavailable, message + ")");
}

// One call on one endpoint, authenticating again once if etcd refuses the token as stale.
template <typename Response, typename Call>
grpc::Status EtcdClient::callOn(std::size_t index, Call& invoke, Response& response)
{
    for (int attempt = 0;; ++attempt) {
        grpc::ClientContext context;
        if (auto prepared = prepare(index, context, true); !prepared) {
            const auto code = prepared.error().code == ErrorCode::Unavailable ? grpc::StatusCode::UNAVAILABLE
                                                                              : grpc::StatusCode::UNAUTHENTICATED;
            return grpc::Status(code, prepared.error().message);
        }
        grpc::Status status = invoke(*connection(index), context, response);
        if (attempt == 0 && isStaleToken(status)) {
            forgetToken(index);
            continue;
        }
        return status;
    }
}

// etcd's own "etcdserver: permission denied" names neither the user nor the keys. A viewer's etcd
// user is refused every change by design, so the sentence says who may not do what, and where.
Error EtcdClient::errorFor(const grpc::Status& status, const char* what, Access access, std::size_t index) const
{
    const std::string& address = m_endpoints[index]->address;
    if (status.error_code() != grpc::StatusCode::PERMISSION_DENIED)
        return errorFrom(status, what, address);
    const std::string user
        = m_config.user.empty() ? "the etcd user of this client certificate" : "etcd user '" + m_config.user + "'";
    const bool writes = access == Access::Write;
    Error error = makeError(ErrorCode::PermissionDenied,
        std::string(writes ? "the store refused the change: " : "the store refused the read: ") + user + " may not "
            + (writes ? "write" : "read") + " under '" + m_config.prefix + "/' (permission denied)",
        "etcd " + address);
    error.details["etcd_user"] = m_config.user;
    return error;
}

Status EtcdClient::prepare(std::size_t index, grpc::ClientContext& context, bool withDeadline)
{
    if (withDeadline)
        context.set_deadline(std::chrono::system_clock::now() + m_config.callTimeout);
    if (m_config.user.empty())
        return {};
    std::string token;
    {
        std::lock_guard lock(m_mutex);
        token = m_endpoints[index]->token;
    }
    if (token.empty()) {
        if (auto status = authenticate(index); !status)
            return status;
        std::lock_guard lock(m_mutex);
        token = m_endpoints[index]->token;
    }
    context.AddMetadata("token", token);
    return {};
}

Status EtcdClient::authenticate(std::size_t index)
{
    Endpoint& endpoint = *m_endpoints[index];
    etcdserverpb::AuthenticateRequest request;
    request.set_name(m_config.user);
    request.set_password(m_config.password);
    etcdserverpb::AuthenticateResponse response;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + m_config.callTimeout);
    const grpc::Status status = connection(index)->auth->Authenticate(&context, request, &response);
    if (!status.ok()) {
        Error error = errorFrom(status, "authenticating as '" + m_config.user + "'", endpoint.address);
        if (!isTransportFailure(status.error_code()))
            error.code = ErrorCode::FailedPrecondition;
        return error;
    }
    std::lock_guard lock(m_mutex);
    endpoint.token = response.token();
    return {};
}

void EtcdClient::forgetToken(std::size_t index)
{
    std::lock_guard lock(m_mutex);
    m_endpoints[index]->token.clear();
}

} // namespace shardmap::core
