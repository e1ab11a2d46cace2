#include "core/store/audit_monitor.h"

// AuditChainMonitor's implementation: checks that resume after the last verified record, the
// recheck of its hash, and the breaks and unaudited keys it remembers and logs once.

namespace shardmap::core {

namespace {

// History pages a check reads at a time.
constexpr std::size_t kHistoryPage = 1000;

std::string fingerprint(const AuditRecord& record)
{
    return canonicalAuditEncoding(record) + record.hash;
}

} // namespace

AuditChainMonitor::AuditChainMonitor(MetadataStore& store, std::set<std::string> trackedKeys, LogSink log)
    : m_store(store)
    , m_log(std::move(log))
{
    m_verifier.trackKeys(std::move(trackedKeys));
}

Status AuditChainMonitor::check()
{
    std::lock_guard lock(m_checkMutex);
    return checkLocked();
}

Status AuditChainMonitor::checkWhole()
{
    auto whole = verifyAuditChain(m_store, false);
    if (!whole)
        return whole.error();
    noteBreak(whole->broken);
    return check();
}

Status AuditChainMonitor::checkLocked()
{
    auto current = m_store.currentRevision();
    if (!current)
        return current.error();
    if (m_checked) {
        if (auto status = recheckNewest(); !status)
            return status;
    }
    while (m_verifier.revision() < *current) {
        auto page = m_store.history(m_verifier.revision(), *current, kHistoryPage);
        if (!page)
            return page.error();
        if (page->empty())
            break;
        for (const auto& record : *page)
            m_verifier.add(record);
        m_newest = fingerprint(page->back());
    }
    m_verifier.finish(*current);
    m_checked = true;
    noteBreak(m_verifier.firstBreak());
    return {};
}

// The newest record verified is read again: a rewrite of the chain up to it (hashes recomputed
// or not) changes it.
Status AuditChainMonitor::recheckNewest()
{
    const std::uint64_t newest = m_verifier.revision();
    if (newest == 0 || m_newest.empty())
        return {};
    auto again = m_store.history(newest - 1, newest, 1);
    if (!again)
        return again.error();
    const std::string what = "revision " + std::to_string(newest);
    if (again->empty())
        noteBreak(AuditChainBreak { newest, AuditBreakKind::MissingRevision, {},
            what + " is missing from the audit: it was deleted after shardmapd verified it" });
    else if (fingerprint(again->front()) != m_newest)
        noteBreak(AuditChainBreak { newest,
            again->front().hash == m_verifier.hash() ? AuditBreakKind::ChangedRecord : AuditBreakKind::HashMismatch, {},
            what + " was changed after shardmapd verified it" });
    return {};
}

void AuditChainMonitor::noteBreak(const std::optional<AuditChainBreak>& found)
{
    {
        std::lock_guard lock(m_stateMutex);
        if (!found || m_first)
            return;
        m_first = found;
    }
    m_broken = true;
    log(LogLevel::Error,
        "the audit chain is broken: " + found->message
            + "; the map's history can no longer be trusted from there (`shardmapctl map verify-audit` names every"
              " break)");
}

Result<AuditChainMonitor::LiveState> AuditChainMonitor::checkLive(
    const std::string& key, const StoreSnapshot& read, std::string* why)
{
    std::lock_guard lock(m_checkMutex);
    if (auto status = checkLocked(); !status)
        return status.error();
    const AuditedWrite* write = m_verifier.lastWrite(key);
    if (write && write->revision > read.revision)
        return LiveState::Stale;
    const auto found = read.records.find(key);
    const auto problem = m_verifier.liveRecordProblem(key, found == read.records.end() ? nullptr : &found->second);
    noteLive(key, problem);
    if (problem && why)
        *why = *problem;
    return problem ? LiveState::Unaudited : LiveState::Audited;
}

// Logs a key's record turning unaudited (or unaudited for another reason), and audited again.
void AuditChainMonitor::noteLive(const std::string& key, const std::optional<std::string>& problem)
{
    std::unique_lock lock(m_stateMutex);
    if (!problem) {
        const bool was = m_unaudited.erase(key) > 0;
        lock.unlock();
        if (was)
            log(LogLevel::Info, "record '" + key + "' is what the audit wrote again");
        return;
    }
    auto& logged = m_unaudited[key];
    if (logged == *problem)
        return;
    logged = *problem;
    lock.unlock();
    log(LogLevel::Error, *problem + "; it is not taken, the last audited value stays in force");
}

std::optional<AuditChainBreak> AuditChainMonitor::firstBreak() const
{
    std::lock_guard lock(m_stateMutex);
    return m_first;
}

std::vector<std::string> AuditChainMonitor::unauditedKeys() const
{
    std::lock_guard lock(m_stateMutex);
    std::vector<std::string> keys;
    for (const auto& [key, why] : m_unaudited)
        keys.push_back(key);
    return keys;
}

void AuditChainMonitor::log(LogLevel level, const std::string& message) const
{
    if (m_log)
        m_log(level, message);
}

} // namespace shardmap::core
