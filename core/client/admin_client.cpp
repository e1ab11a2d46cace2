#include "core/client/admin_client.h"

// AdminClient's implementation: the connection's TLS and bearer-token checks, each Admin API call
// with its deadline, and the read-only store over the API (its watch polls the audit history).

#include "core/admin/admin_limits.h"
#include "core/client/tls_probe.h"
#include "core/node/status_mapping.h"
#include "core/util/address.h"
#include "shardmap/v1/admin.grpc.pb.h"

#include <condition_variable>
#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <mutex>
#include <thread>

namespace shardmap::core {

struct AdminClient::Impl {
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<v1::Admin::Stub> stub;
};

AdminClient::AdminClient(AdminClientOptions options, std::unique_ptr<Impl> impl)
    : m_options(std::move(options))
    , m_impl(std::move(impl))
{
}

AdminClient::~AdminClient() = default;

Result<std::unique_ptr<AdminClient>> AdminClient::connect(const AdminClientOptions& options)
{
    if (options.address.empty())
        return makeError(ErrorCode::InvalidArgument, "no controller address (--controller HOST:PORT)");
    if (options.certFile.empty() != options.keyFile.empty())
        return makeError(ErrorCode::InvalidArgument,
            options.certFile.empty() ? "--controller-key needs its certificate (--controller-cert)"
                                     : "--controller-cert needs its key (--controller-key)");
    if (!options.certFile.empty() && options.caFile.empty())
        return makeError(ErrorCode::InvalidArgument,
            "--controller-cert needs the CA that signed shardmapd's certificate (--controller-ca)");
    if (!options.token.empty() && options.caFile.empty()) {
        // A bearer token stands for its identity to whoever reads it (docs/ACCESS.md).
        if (!isLoopbackAddress(options.address))
            return makeError(ErrorCode::InvalidArgument,
                "a bearer token is sent to " + options.address
                    + " only over TLS: pass --controller-ca (the CA that signed shardmapd's certificate); "
                      "without it the token would cross the network in plaintext");
    }
    NodeClientOptions tls;
    tls.caFile = options.caFile;
    tls.certFile = options.certFile;
    tls.keyFile = options.keyFile;
    auto credentials = clientChannelCredentials(tls);
    if (!credentials)
        return credentials.error();
    auto impl = std::make_unique<Impl>();
    grpc::ChannelArguments args;
    // A page of the Admin API's lists is a few MiB; one item at most 16 MiB (core/admin/admin_pages.h).
    args.SetMaxReceiveMessageSize(64 * 1024 * 1024);
    impl->channel = grpc::CreateCustomChannel(options.address, *credentials, args);
    impl->stub = v1::Admin::NewStub(impl->channel);
    return std::unique_ptr<AdminClient>(new AdminClient(options, std::move(impl)));
}

namespace {

Error callError(const AdminClientOptions& options, const char* what, const grpc::Status& status)
{
    const std::string& address = options.address;
    const std::string message = status.error_message();
    switch (status.error_code()) {
    case grpc::StatusCode::UNIMPLEMENTED:
        return makeError(ErrorCode::FailedPrecondition,
            "shardmapd at " + address + " serves no Admin API (start it with --access-policy FILE)");
    case grpc::StatusCode::UNAVAILABLE: {
        // A refused client certificate looks like a closed socket to gRPC; a handshake of our own
        // tells why (as the node client does).
        std::string refusal = describeTlsRefusal(message);
        if (refusal.empty() && !options.certFile.empty()) {
            NodeClientOptions tls;
            tls.caFile = options.caFile;
            tls.certFile = options.certFile;
            tls.keyFile = options.keyFile;
            refusal = probeTlsRefusal(address, tls, std::chrono::seconds(2));
        }
        if (!refusal.empty())
            return makeError(ErrorCode::Unavailable, "shardmapd at " + address + " " + refusal);
        return makeError(
            ErrorCode::Unavailable, "cannot reach shardmapd at " + address + " (" + what + "): " + message);
    }
    default: {
        Error error = fromGrpcStatus(status);
        error.message = message;
        if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED)
            error.message = "shardmapd at " + address + " does not know who you are: " + message;
        return error;
    }
    }
}

} // namespace

template <typename Response, typename Call> Result<Response> AdminClient::call(const char* what, Call invoke)
{
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + m_options.timeout);
    if (!m_options.token.empty())
        context.AddMetadata("authorization", "Bearer " + m_options.token);
    Response response;
    const grpc::Status status = invoke(context, response);
    if (!status.ok())
        return callError(m_options, what, status);
    return response;
}

Result<v1::WhoAmIResponse> AdminClient::whoAmI()
{
    return call<v1::WhoAmIResponse>("whoami", [&](grpc::ClientContext& context, v1::WhoAmIResponse& response) {
        return m_impl->stub->WhoAmI(&context, v1::WhoAmIRequest {}, &response);
    });
}

Result<v1::ChangeResponse> AdminClient::change(const v1::AdminChange& change, const std::string& reason)
{
    v1::ChangeRequest request;
    *request.mutable_change() = change;
    request.set_reason(reason);
    // Text that is not UTF-8 would reach shardmapd as a message it cannot parse at all: say
    // which field it is instead.
    if (auto status = checkUtf8(request); !status)
        return status.error();
    return call<v1::ChangeResponse>("change", [&](grpc::ClientContext& context, v1::ChangeResponse& response) {
        return m_impl->stub->Change(&context, request, &response);
    });
}

Result<std::vector<v1::ApprovalInfo>> AdminClient::listApprovals(bool pendingOnly)
{
    v1::ListApprovalsRequest request;
    request.set_pending_only(pendingOnly);
    std::vector<v1::ApprovalInfo> approvals;
    do {
        auto listed = call<v1::ListApprovalsResponse>(
            "approvals", [&](grpc::ClientContext& context, v1::ListApprovalsResponse& response) {
                return m_impl->stub->ListApprovals(&context, request, &response);
            });
        if (!listed)
            return listed.error();
        approvals.insert(approvals.end(), listed->approvals().begin(), listed->approvals().end());
        request.set_page_token(listed->next_page_token());
    } while (!request.page_token().empty());
    return approvals;
}

Result<v1::ChangeResponse> AdminClient::approve(const std::string& id, const std::string& reason)
{
    v1::DecideRequest request;
    request.set_id(id);
    request.set_reason(reason);
    if (auto status = checkUtf8(request); !status)
        return status.error();
    return call<v1::ChangeResponse>("approve", [&](grpc::ClientContext& context, v1::ChangeResponse& response) {
        return m_impl->stub->Approve(&context, request, &response);
    });
}

Result<v1::ApprovalInfo> AdminClient::refuse(const std::string& id, const std::string& reason)
{
    v1::DecideRequest request;
    request.set_id(id);
    request.set_reason(reason);
    if (auto status = checkUtf8(request); !status)
        return status.error();
    return call<v1::ApprovalInfo>("refuse", [&](grpc::ClientContext& context, v1::ApprovalInfo& response) {
        return m_impl->stub->Refuse(&context, request, &response);
    });
}

Result<v1::ApprovalInfo> AdminClient::removeApproval(const std::string& id, const std::string& reason)
{
    v1::DecideRequest request;
    request.set_id(id);
    request.set_reason(reason);
    if (auto status = checkUtf8(request); !status)
        return status.error();
    return call<v1::ApprovalInfo>("remove an approval", [&](grpc::ClientContext& context, v1::ApprovalInfo& response) {
        return m_impl->stub->RemoveApproval(&context, request, &response);
    });
}

Result<StoreSnapshot> AdminClient::readMap(const std::string& prefix)
{
    // A busy map may move under the pages of a large read more than once in a row.
    constexpr int kAttempts = 5;
    for (int attempt = 1;; ++attempt) {
        auto snapshot = readMapOnce(prefix);
        if (snapshot || snapshot.error().code != ErrorCode::Aborted || attempt == kAttempts)
            return snapshot;
    }
}

Result<StoreSnapshot> AdminClient::readMapOnce(const std::string& prefix)
{
    v1::ReadMapRequest request;
    request.set_prefix(prefix);
    StoreSnapshot snapshot;
    do {
        auto read = call<v1::ReadMapResponse>(
            "read the map", [&](grpc::ClientContext& context, v1::ReadMapResponse& response) {
                return m_impl->stub->ReadMap(&context, request, &response);
            });
        if (!read)
            return read.error();
        snapshot.revision = read->revision();
        for (const v1::StoreRecord& record : read->records()) {
            // A key too long to list whole (a direct write into the store) names no record of the map.
            if (record.cut())
                continue;
            StoredRecord& stored = snapshot.records[record.key()];
            // A value larger than a page comes in slices, in order.
            if (record.value_offset() > 0) {
                if (record.value_offset() != stored.value.size())
                    return makeError(ErrorCode::Internal,
                        "shardmapd at " + m_options.address + " sent a slice of " + record.key() + " out of order");
                stored.value += record.value();
                continue;
            }
            stored = StoredRecord { record.key(), record.value(), record.create_revision(), record.mod_revision() };
        }
        request.set_page_token(read->next_page_token());
    } while (!request.page_token().empty());
    return snapshot;
}

Result<std::vector<AuditRecord>> AdminClient::readHistory(std::uint64_t fromRevision, std::uint32_t limit)
{
    v1::ReadHistoryRequest request;
    request.set_from_revision(fromRevision);
    std::vector<AuditRecord> records;
    do {
        request.set_limit(limit == 0 ? 0 : static_cast<std::uint32_t>(limit - records.size()));
        auto read = call<v1::ReadHistoryResponse>(
            "read the history", [&](grpc::ClientContext& context, v1::ReadHistoryResponse& response) {
                return m_impl->stub->ReadHistory(&context, request, &response);
            });
        if (!read)
            return read.error();
        for (const v1::AuditEntry& entry : read->records()) {
            AuditRecord record { entry.revision(), entry.unix_ms(), entry.actor(), entry.action(), entry.reason(), {},
                {} };
            for (const v1::AuditChange& change : entry.changes())
                record.changes.push_back(
                    { change.key(), change.has_before() ? std::optional<std::string>(change.before()) : std::nullopt,
                        change.has_after() ? std::optional<std::string>(change.after()) : std::nullopt });
            records.push_back(std::move(record));
        }
        request.set_page_token(read->next_page_token());
    } while (!request.page_token().empty() && (limit == 0 || records.size() < limit));
    return records;
}

Result<std::vector<LeaseGrant>> AdminClient::readLeases(const std::string& prefix)
{
    v1::ReadLeasesRequest request;
    request.set_prefix(prefix);
    std::vector<LeaseGrant> leases;
    do {
        auto read = call<v1::ReadLeasesResponse>(
            "read the leases", [&](grpc::ClientContext& context, v1::ReadLeasesResponse& response) {
                return m_impl->stub->ReadLeases(&context, request, &response);
            });
        if (!read)
            return read.error();
        for (const v1::Lease& lease : read->leases())
            leases.push_back({ lease.name(), lease.holder(), lease.token(), lease.expires_unix_ms() });
        request.set_page_token(read->next_page_token());
    } while (!request.page_token().empty());
    return leases;
}

namespace {

Error changesGoThroughTheApi()
{
    return makeError(ErrorCode::PermissionDenied,
        "through --controller, changes go through shardmapd's Admin API, not straight to the store");
}

// Polls the audit history every half second: the Admin API has no watch stream yet.
class PolledWatch final : public WatchHandle {
public:
    PolledWatch(
        std::shared_ptr<AdminClient> client, std::uint64_t from, WatchCallback onRecord, WatchErrorCallback onError)
        : m_thread([this, client = std::move(client), from, onRecord = std::move(onRecord),
                       onError = std::move(onError)]() mutable { run(*client, from, onRecord, onError); })
    {
    }
    ~PolledWatch() override
    {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        m_thread.join();
    }

private:
    void run(AdminClient& client, std::uint64_t from, const WatchCallback& onRecord, const WatchErrorCallback& onError)
    {
        std::unique_lock lock(m_mutex);
        while (!m_stop) {
            lock.unlock();
            auto records = client.readHistory(from, 1000);
            if (!records) {
                onError(records.error());
                return;
            }
            for (const AuditRecord& record : *records) {
                onRecord(record);
                from = record.revision;
            }
            lock.lock();
            if (records->size() < 1000)
                m_wake.wait_for(lock, std::chrono::milliseconds(500), [this] { return m_stop; });
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stop = false;
    std::thread m_thread; // last: started once the members above exist
};

class AdminApiStore final : public MetadataStore {
public:
    explicit AdminApiStore(std::shared_ptr<AdminClient> client)
        : m_client(std::move(client))
    {
    }
    Result<StoreSnapshot> snapshot() override { return m_client->readMap(); }
    Result<StoreSnapshot> list(const std::string& prefix) override { return m_client->readMap(prefix); }
    Result<std::uint64_t> currentRevision() override
    {
        // The smallest read that carries the revision: a prefix no record has.
        auto read = m_client->readMap("\x01");
        if (!read)
            return read.error();
        return read->revision;
    }
    Result<std::uint64_t> commit(const CommitRequest&) override { return changesGoThroughTheApi(); }
    Result<std::vector<AuditRecord>> history(std::uint64_t from, std::uint64_t to, std::size_t limit) override
    {
        std::vector<AuditRecord> out;
        while (true) {
            auto page = m_client->readHistory(from, 1000);
            if (!page)
                return page.error();
            for (AuditRecord& record : *page) {
                if (to != 0 && record.revision > to)
                    return out;
                from = record.revision;
                out.push_back(std::move(record));
                if (limit != 0 && out.size() >= limit)
                    return out;
            }
            if (page->size() < 1000)
                return out;
        }
    }
    Result<std::unique_ptr<WatchHandle>> watch(
        std::uint64_t fromRevision, WatchCallback onRecord, WatchErrorCallback onError) override
    {
        return std::unique_ptr<WatchHandle>(
            std::make_unique<PolledWatch>(m_client, fromRevision, std::move(onRecord), std::move(onError)));
    }
    Result<LeaseGrant> acquireLease(const std::string&, const std::string&, std::chrono::milliseconds) override
    {
        return changesGoThroughTheApi();
    }
    Result<LeaseGrant> renewLease(const LeaseGrant&, std::chrono::milliseconds) override
    {
        return changesGoThroughTheApi();
    }
    Status releaseLease(const LeaseGrant&) override { return changesGoThroughTheApi(); }
    Result<std::vector<LeaseGrant>> liveLeases(const std::string& prefix) override
    {
        return m_client->readLeases(prefix);
    }
    std::string describe() const override { return "shardmapd " + m_client->address() + " (Admin API)"; }

private:
    std::shared_ptr<AdminClient> m_client;
};

} // namespace

std::unique_ptr<MetadataStore> makeAdminApiStore(std::shared_ptr<AdminClient> client)
{
    return std::make_unique<AdminApiStore>(std::move(client));
}

} // namespace shardmap::core
