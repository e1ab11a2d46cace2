#include "core/store/read_only_store.h"

// makeReadOnly's implementation: a store that passes reads and watches through and refuses every
// write before it reaches the store.

namespace shardmap::core {

namespace {

constexpr std::string_view kRefusal = "read-only connection: ";

Error refusal(const std::string& what)
{
    Error error = makeError(ErrorCode::FailedPrecondition,
        std::string(kRefusal) + what + " was refused, and nothing was changed (connect without read-only to act)");
    error.details["read_only"] = "true";
    return error;
}

class ReadOnlyStore final : public MetadataStore {
public:
    explicit ReadOnlyStore(std::unique_ptr<MetadataStore> inner)
        : m_inner(std::move(inner))
    {
    }

    Result<StoreSnapshot> snapshot() override { return m_inner->snapshot(); }
    Result<StoreSnapshot> list(const std::string& prefix) override { return m_inner->list(prefix); }
    Result<std::uint64_t> currentRevision() override { return m_inner->currentRevision(); }
    Result<std::uint64_t> commit(const CommitRequest& request) override
    {
        return refusal("the change '" + request.action + "'");
    }
    Result<std::vector<AuditRecord>> history(
        std::uint64_t fromRevision, std::uint64_t toRevision, std::size_t limit) override
    {
        return m_inner->history(fromRevision, toRevision, limit);
    }
    Result<std::unique_ptr<WatchHandle>> watch(
        std::uint64_t fromRevision, WatchCallback onRecord, WatchErrorCallback onError) override
    {
        return m_inner->watch(fromRevision, std::move(onRecord), std::move(onError));
    }
    Result<LeaseGrant> acquireLease(const std::string& name, const std::string&, std::chrono::milliseconds) override
    {
        return refusal("taking the lease '" + name + "'");
    }
    Result<LeaseGrant> renewLease(const LeaseGrant& grant, std::chrono::milliseconds) override
    {
        return refusal("renewing the lease '" + grant.name + "'");
    }
    Status releaseLease(const LeaseGrant& grant) override
    {
        return refusal("releasing the lease '" + grant.name + "'");
    }
    Result<std::vector<LeaseGrant>> liveLeases(const std::string& namePrefix) override
    {
        return m_inner->liveLeases(namePrefix);
    }
    std::string describe() const override { return m_inner->describe() + " (read-only)"; }
    std::size_t maxMutationsPerCommit() const override { return m_inner->maxMutationsPerCommit(); }

private:
    std::unique_ptr<MetadataStore> m_inner;
};

} // namespace

std::unique_ptr<MetadataStore> makeReadOnly(std::unique_ptr<MetadataStore> store)
{
    return std::make_unique<ReadOnlyStore>(std::move(store));
}

bool isReadOnlyRefusal(const Error& error)
{
    const auto found = error.details.find("read_only");
    return error.code == ErrorCode::FailedPrecondition && found != error.details.end() && found->second == "true";
}

} // namespace shardmap::core
