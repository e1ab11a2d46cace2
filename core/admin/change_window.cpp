// ChangeWindow's implementation: a requester's entries in requesters/<key>, pruned at each write,
// and CountedCommits, which adds the count to the commit of the change it counts.
#include "core/admin/change_window.h"

#include "core/migration/fleet_facts.h"
#include "core/migration/migration_requests.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

namespace shardmap::core {

namespace {

std::string requesterKey(const Requester& requester)
{
    return std::string(kRequestersPrefix) + requester.key;
}

bool stillAsked(const std::string& state)
{
    return state == "pending";
}

bool made(const std::string& state)
{
    return state == "applying" || state == "applied" || state == "approved";
}

std::string encodeEntries(const std::string& requester, const std::vector<WindowEntry>& entries)
{
    nlohmann::json list = nlohmann::json::array();
    for (const WindowEntry& entry : entries)
        list.push_back({ { "unix_ms", entry.unixMs }, { "spaces", entry.spaces }, { "bytes", entry.bytes },
            { "approval", entry.approval }, { "id", entry.id } });
    return nlohmann::json { { "requester", requester }, { "changes", list } }.dump();
}

Result<std::vector<WindowEntry>> decodeEntries(const std::string& text)
{
    try {
        const nlohmann::json doc = nlohmann::json::parse(text);
        std::vector<WindowEntry> entries;
        for (const nlohmann::json& item : doc.at("changes"))
            entries.push_back({ item.at("unix_ms").get<std::int64_t>(), item.at("spaces").get<std::uint64_t>(),
                item.at("bytes").get<std::uint64_t>(), item.value("approval", ""), item.value("id", "") });
        return entries;
    } catch (const nlohmann::json::exception& error) {
        return makeError(ErrorCode::Internal, std::string("a requesters/ record does not parse: ") + error.what());
    }
}

} // namespace

Requester requesterOf(const AccessPolicy& policy, const std::string& identity)
{
    const auto parsed = parseIdentity(identity);
    const auto person = parsed ? policy.personOf(*parsed) : std::nullopt;
    if (!person)
        return { identity, identity };
    return { "person:" + *person, "person " + *person };
}

ChangeSize RecentChanges::countedSince(std::int64_t sinceUnixMs) const
{
    ChangeSize size;
    for (const WindowEntry& entry : entries) {
        const auto state = approvalStates.find(entry.approval);
        const bool asked = !entry.approval.empty() && state != approvalStates.end() && stillAsked(state->second);
        const bool madeNow = entry.approval.empty() || (state != approvalStates.end() && made(state->second));
        if (asked || (madeNow && entry.unixMs >= sinceUnixMs)) {
            size.spaces += entry.spaces;
            size.bytes += entry.bytes;
        }
    }
    return size;
}

std::uint64_t RecentChanges::pending() const
{
    return static_cast<std::uint64_t>(std::count_if(approvalStates.begin(), approvalStates.end(),
        [](const auto& approval) { return stillAsked(approval.second); }));
}

ChangeWindow::ChangeWindow(MetadataStore& store, Approvals& approvals)
    : m_store(store)
    , m_approvals(approvals)
{
}

Result<RecentChanges> ChangeWindow::read(const Requester& requester, std::chrono::hours expireAfter)
{
    RecentChanges recent;
    recent.requester = requester;
    const std::string key = requesterKey(requester);
    auto listed = m_store.list(key);
    if (!listed)
        return listed.error();
    const auto found = listed->records.find(key);
    if (found == listed->records.end())
        return recent;
    auto entries = decodeEntries(found->second.value);
    if (!entries)
        return entries.error();
    recent.entries = std::move(*entries);
    recent.modRevision = found->second.modRevision;
    for (const WindowEntry& entry : recent.entries) {
        if (entry.approval.empty())
            continue;
        auto approval = m_approvals.get(entry.approval, expireAfter);
        if (approval)
            recent.approvalStates[entry.approval] = approval->state();
        else if (approval.error().code != ErrorCode::NotFound)
            return approval.error();
    }
    return recent;
}

WindowEntry ChangeWindow::entryFor(const ChangeSize& size, const std::string& approval)
{
    return { nowUnixMs(), size.spaces, size.bytes, approval, newMigrationId() };
}

Mutation ChangeWindow::add(const RecentChanges& recent, const WindowEntry& entry, std::chrono::milliseconds keep) const
{
    const std::int64_t cutoff = entry.unixMs - keep.count();
    std::vector<WindowEntry> kept;
    for (const WindowEntry& old : recent.entries) {
        const auto state = recent.approvalStates.find(old.approval);
        if (old.unixMs >= cutoff || (state != recent.approvalStates.end() && stillAsked(state->second)))
            kept.push_back(old);
    }
    kept.push_back(entry);
    return { requesterKey(recent.requester), encodeEntries(recent.requester.key, kept), recent.modRevision };
}

CountedCommits::CountedCommits(MetadataStore& store, Mutation count)
    : m_store(store)
    , m_count(std::move(count))
{
}

Result<std::uint64_t> CountedCommits::commit(const CommitRequest& request)
{
    if (m_counted)
        return m_store.commit(request);
    if (m_countChanged)
        return makeError(ErrorCode::Conflict, m_count.key + " changed meanwhile");
    CommitRequest counted = request;
    counted.mutations.push_back(m_count);
    auto committed = m_store.commit(counted);
    if (committed) {
        m_counted = true;
        return committed;
    }
    if (committed.error().code == ErrorCode::Conflict) {
        // The change's own records or the count: only the count makes judging it again worth it.
        auto listed = m_store.list(m_count.key);
        std::uint64_t now = 0;
        if (listed) {
            if (const auto found = listed->records.find(m_count.key); found != listed->records.end())
                now = found->second.modRevision;
        }
        m_countChanged = !listed || now != m_count.expectModRevision.value_or(0);
    }
    return committed;
}

std::size_t CountedCommits::maxMutationsPerCommit() const
{
    const std::size_t most = m_store.maxMutationsPerCommit();
    return most == std::numeric_limits<std::size_t>::max() ? most : most - 1;
}

} // namespace shardmap::core
