#pragma once

// The client side of shardmapd's Admin API (shardmap.v1.Admin): shardmapctl --controller and
// the console use it instead of opening the store, so that what they change is checked against
// the caller's role and audited under the identity shardmapd authenticated.

#include "core/client/node_client.h"
#include "core/store/metadata_store.h"
#include "shardmap/v1/admin.pb.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace shardmap::core {

struct AdminClientOptions {
    // HOST:PORT of a shardmapd started with --access-policy.
    std::string address;
    // TLS to shardmapd: its CA, and a client certificate (mutual TLS: the identity it names).
    std::string caFile;
    std::string certFile;
    std::string keyFile;
    // A bearer token (read from a file by the caller); sent as "authorization: Bearer ...".
    std::string token;
    std::chrono::milliseconds timeout { 10000 };
};

class AdminClient {
public:
    // InvalidArgument for options that do not fit together (a key without its certificate, a
    // token over plaintext to another host).
    static Result<std::unique_ptr<AdminClient>> connect(const AdminClientOptions& options);
    ~AdminClient();

    Result<v1::WhoAmIResponse> whoAmI();
    Result<v1::ChangeResponse> change(const v1::AdminChange& change, const std::string& reason);
    Result<std::vector<v1::ApprovalInfo>> listApprovals(bool pendingOnly);
    Result<v1::ChangeResponse> approve(const std::string& id, const std::string& reason);
    Result<v1::ApprovalInfo> refuse(const std::string& id, const std::string& reason);
    // Removes a request not decided yet (an admin any, its requester their own).
    Result<v1::ApprovalInfo> removeApproval(const std::string& id, const std::string& reason);
    // The lists follow the server's pages (docs/ACCESS.md, "Pages") and return them whole. The map
    // is read as of one revision: when it moved under the pages, the read starts again.
    Result<StoreSnapshot> readMap(const std::string& prefix = {});
    // Records after fromRevision, oldest first, at most limit (0: every one up to now).
    Result<std::vector<AuditRecord>> readHistory(std::uint64_t fromRevision, std::uint32_t limit);
    Result<std::vector<LeaseGrant>> readLeases(const std::string& prefix);

    const std::string& address() const { return m_options.address; }

private:
    struct Impl;
    AdminClient(AdminClientOptions options, std::unique_ptr<Impl> impl);
    template <typename Response, typename Call> Result<Response> call(const char* what, Call call);
    Result<StoreSnapshot> readMapOnce(const std::string& prefix);

    AdminClientOptions m_options;
    std::unique_ptr<Impl> m_impl;
};

// The store as an Admin API caller sees it: reads (the map, a prefix, the audit history and a
// watch that polls it) go through shardmapd with the caller's identity; commits and leases are
// refused (PermissionDenied), because changes go through AdminClient::change. Lets every reading
// command of shardmapctl and the console read a fleet through --controller.
std::unique_ptr<MetadataStore> makeAdminApiStore(std::shared_ptr<AdminClient> client);

} // namespace shardmap::core
