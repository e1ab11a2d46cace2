// The stored policy's implementation: access/policy read, checked against the audit's newest record
// of it, and written conditionally on the revision it was read at.
#include "core/auth/stored_access_policy.h"

#include <mutex>

namespace shardmap::core {

namespace {

class StoredPolicySource final : public AccessPolicySource {
public:
    StoredPolicySource(MetadataStore& store, AuditChainMonitor& audit, std::chrono::milliseconds checkEvery)
        : m_store(store)
        , m_audit(audit)
        , m_checkEvery(checkEvery)
    {
    }

    Status read()
    {
        m_lastCheck = std::chrono::steady_clock::now();
        // A policy written between the read and the audit's check is read again; the next
        // check settles it when writes keep landing.
        constexpr int kReads = 3;
        for (int attempt = 0; attempt < kReads; ++attempt) {
            auto records = m_store.list(std::string(kAccessPolicyKey));
            if (!records) {
                m_error = "cannot read " + std::string(kAccessPolicyKey) + ": " + records.error().describe();
                return records.error();
            }
            auto audited = checkAudit(*records);
            if (!audited)
                return audited.error();
            if (*audited)
                return take(*records);
        }
        if (m_policy)
            return {};
        m_error = std::string(kAccessPolicyKey) + " kept changing while it was read";
        return makeError(ErrorCode::Unavailable, m_error);
    }

    Status take(const StoreSnapshot& read)
    {
        const auto found = read.records.find(std::string(kAccessPolicyKey));
        if (found == read.records.end()) {
            m_error
                = "the store has no " + std::string(kAccessPolicyKey) + "; put one with: shardmapctl access set FILE";
            return makeError(ErrorCode::NotFound, m_error);
        }
        if (m_policy && found->second.modRevision == m_revision)
            return {};
        auto parsed = AccessPolicy::parse(found->second.value, "the store's " + std::string(kAccessPolicyKey));
        if (!parsed) {
            m_error = parsed.error().message;
            return parsed.error();
        }
        m_policy = std::make_shared<const AccessPolicy>(std::move(*parsed));
        m_revision = found->second.modRevision;
        m_error.clear();
        return {};
    }

    std::shared_ptr<const AccessPolicy> current() override
    {
        std::lock_guard lock(m_mutex);
        if (std::chrono::steady_clock::now() - m_lastCheck >= m_checkEvery)
            (void)read(); // keeps the last good policy; lastError() says why
        return m_policy;
    }
    std::string lastError() override
    {
        std::lock_guard lock(m_mutex);
        return m_error;
    }
    std::string describe() const override { return "the store's " + std::string(kAccessPolicyKey); }

private:
    // Whether the record read is the one the audit wrote: true to go on, false to keep the
    // current policy and read again later (the audit already has a newer one).
    Result<bool> checkAudit(const StoreSnapshot& read)
    {
        std::string why;
        auto state = m_audit.checkLive(std::string(kAccessPolicyKey), read, &why);
        if (!state) {
            m_error = "cannot check the audit of " + std::string(kAccessPolicyKey) + ": " + state.error().describe();
            return state.error();
        }
        if (*state == AuditChainMonitor::LiveState::Unaudited) {
            m_error = "the store's " + std::string(kAccessPolicyKey) + " is refused: " + why
                + "; set the policy again with shardmapctl access set FILE";
            return makeError(ErrorCode::FailedPrecondition, m_error);
        }
        return *state == AuditChainMonitor::LiveState::Audited;
    }

    MetadataStore& m_store;
    AuditChainMonitor& m_audit;
    const std::chrono::milliseconds m_checkEvery;
    std::mutex m_mutex;
    std::shared_ptr<const AccessPolicy> m_policy;
    std::uint64_t m_revision = 0;
    std::string m_error;
    std::chrono::steady_clock::time_point m_lastCheck;
};

} // namespace

Result<std::unique_ptr<AccessPolicySource>> loadStoredAccessPolicy(
    MetadataStore& store, AuditChainMonitor& audit, std::chrono::milliseconds checkEvery)
{
    auto source = std::make_unique<StoredPolicySource>(store, audit, checkEvery);
    if (auto status = source->read(); !status)
        return status.error();
    return std::unique_ptr<AccessPolicySource>(std::move(source));
}

Result<StoredAccessPolicy> readStoredAccessPolicy(MetadataStore& store)
{
    auto records = store.list(std::string(kAccessPolicyKey));
    if (!records)
        return records.error();
    const auto found = records->records.find(std::string(kAccessPolicyKey));
    if (found == records->records.end())
        return StoredAccessPolicy {};
    auto parsed = AccessPolicy::parse(found->second.value, "the store's " + std::string(kAccessPolicyKey));
    return StoredAccessPolicy { parsed ? std::move(*parsed) : AccessPolicy {}, found->second.modRevision };
}

Result<AccessPolicy> currentStoredAccessPolicy(MetadataStore& store)
{
    auto current = readStoredAccessPolicy(store);
    if (!current)
        return current.error();
    return std::move(current->policy);
}

Status checkPolicyBase(const StoredAccessPolicy& current, std::uint64_t basedOn)
{
    if (current.revision == basedOn)
        return {};
    auto at = [](std::uint64_t revision) {
        return revision == 0 ? std::string("when there was none") : "at revision " + std::to_string(revision);
    };
    return makeError(ErrorCode::FailedPrecondition,
        "the access policy changed since this change was asked (asked against the policy " + at(basedOn) + ", it is "
            + (current.revision == 0 ? std::string("gone") : "now at revision " + std::to_string(current.revision))
            + "); making it would undo what changed since: ask again against the current policy");
}

Result<std::uint64_t> storeAccessPolicy(
    MetadataStore& store, const std::string& json, const Actor& actor, std::optional<std::uint64_t> basedOn)
{
    if (auto parsed = AccessPolicy::parse(json, "the policy"); !parsed)
        return parsed.error();
    auto current = readStoredAccessPolicy(store);
    if (!current)
        return current.error();
    if (basedOn) {
        if (auto status = checkPolicyBase(*current, *basedOn); !status)
            return status.error();
    }
    CommitRequest request;
    request.mutations.push_back({ std::string(kAccessPolicyKey), json, current->revision });
    request.actor = actor.name;
    request.action = "set-access-policy";
    request.reason = actor.reason;
    auto committed = store.commit(request);
    if (!committed && committed.error().code == ErrorCode::Conflict)
        return makeError(ErrorCode::Conflict, "the policy was changed by someone else meanwhile; read it again");
    return committed;
}

} // namespace shardmap::core
