#pragma once

// What one requester changed through the Admin API lately (issue 25), so that operator limits,
// approval thresholds and the cap on pending requests hold for a requester over a window of time
// and not only per request: four single migrations are four spaces. A requester is the person the
// policy's `people` puts the caller's identity under, so that one person's certificates and tokens
// share one count, else the identity alone. Kept in the store beside the map under
// requesters/<identity> or requesters/person:<name> (JSON), written by shardmapd only, one entry
// per moving change made and per approval requested, each in the same commit as the change or the
// request (one audit record), conditional on the record being as it was read: two requests of one
// requester racing are counted one after the other, and a change that is not made is not counted.
// Entries that no window and no pending approval needs any more are dropped at the next write, so
// the record stays small. When the policy puts an identity under a person, the person's count
// starts empty: what the identity moved before is in its own record, which is no longer read.

#include "core/admin/admin_changes.h"
#include "core/admin/approvals.h"
#include "core/auth/access_policy.h"
#include "core/store/metadata_store.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace shardmap::core {

inline constexpr std::string_view kRequestersPrefix = "requesters/";

// Whose count a request goes into.
struct Requester {
    // Names the record: the identity's written form, or "person:NAME" (a form no identity has:
    // core/auth/peer_identity.h).
    std::string key;
    // For messages: the identity, or "person NAME".
    std::string name;
};
// The person the policy puts the identity under, else the identity itself.
Requester requesterOf(const AccessPolicy& policy, const std::string& identity);

struct WindowEntry {
    std::int64_t unixMs = 0;
    std::uint64_t spaces = 0;
    std::uint64_t bytes = 0;
    // The approval it asked for; empty: the change was made at once.
    std::string approval;
    // Tells this entry apart, to take it back when its change failed.
    std::string id;
};

// A requester's entries as the store holds them, with the state of each approval they asked for.
struct RecentChanges {
    Requester requester;
    std::vector<WindowEntry> entries;
    // Approval id -> state as Approvals::get gives it ("expired" when undecided too long); an
    // approval removed from the store is absent.
    std::map<std::string, std::string> approvalStates;
    // Of requesters/<identity>; 0: no record yet.
    std::uint64_t modRevision = 0;

    // Spaces and bytes made from sinceUnixMs on, and those of every request still pending (made
    // when approved). Refused, expired, failed and removed requests do not count.
    ChangeSize countedSince(std::int64_t sinceUnixMs) const;
    // Requests still pending (not expired).
    std::uint64_t pending() const;
};

class ChangeWindow {
public:
    ChangeWindow(MetadataStore& store, Approvals& approvals);

    Result<RecentChanges> read(const Requester& requester, std::chrono::hours expireAfter);
    // The mutation that adds entry to recent, dropping entries older than keep that no pending
    // approval holds; conditional on the record being as read (Conflict otherwise).
    Mutation add(const RecentChanges& recent, const WindowEntry& entry, std::chrono::milliseconds keep) const;
    // A fresh entry of now for the change's size.
    static WindowEntry entryFor(const ChangeSize& size, const std::string& approval = {});

private:
    MetadataStore& m_store;
    Approvals& m_approvals;
};

// The store as a change made through the Admin API sees it: its first commit also carries the
// requester's count (ChangeWindow::add), so that the change and its count are made together or
// not at all. When that commit fails because the count changed meanwhile (another request of the
// same requester), countChanged() says so and every later commit fails the same way: the request
// is to be judged again.
class CountedCommits final : public MetadataStore {
public:
    CountedCommits(MetadataStore& store, Mutation count);

    bool countChanged() const { return m_countChanged; }

    Result<StoreSnapshot> snapshot() override { return m_store.snapshot(); }
    Result<StoreSnapshot> list(const std::string& prefix) override { return m_store.list(prefix); }
    Result<std::uint64_t> currentRevision() override { return m_store.currentRevision(); }
    Result<std::uint64_t> commit(const CommitRequest& request) override;
    Result<std::vector<AuditRecord>> history(std::uint64_t from, std::uint64_t to, std::size_t limit) override
    {
        return m_store.history(from, to, limit);
    }
    Result<std::unique_ptr<WatchHandle>> watch(
        std::uint64_t fromRevision, WatchCallback onRecord, WatchErrorCallback onError) override
    {
        return m_store.watch(fromRevision, std::move(onRecord), std::move(onError));
    }
    Result<LeaseGrant> acquireLease(
        const std::string& name, const std::string& holder, std::chrono::milliseconds ttl) override
    {
        return m_store.acquireLease(name, holder, ttl);
    }
    Result<LeaseGrant> renewLease(const LeaseGrant& grant, std::chrono::milliseconds ttl) override
    {
        return m_store.renewLease(grant, ttl);
    }
    Status releaseLease(const LeaseGrant& grant) override { return m_store.releaseLease(grant); }
    Result<std::vector<LeaseGrant>> liveLeases(const std::string& prefix) override
    {
        return m_store.liveLeases(prefix);
    }
    std::string describe() const override { return m_store.describe(); }
    // One mutation of the first commit is the count's.
    std::size_t maxMutationsPerCommit() const override;

private:
    MetadataStore& m_store;
    const Mutation m_count;
    bool m_counted = false;
    bool m_countChanged = false;
};

} // namespace shardmap::core
