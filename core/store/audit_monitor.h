#pragma once

// shardmapd's running watch over the audit's hash chain and the records only the audit may write.

#include "core/store/audit_chain.h"
#include "core/store/metadata_store.h"
#include "core/util/log.h"

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace shardmap::core {

// shardmapd's watch over the audit: the first check() verifies the whole history, each later one
// the records written since and that the newest record it verified still has the hash it had
// then (so a rewrite of what it verified is noticed even when the rewriter recomputed the chain
// after it); checkWhole() verifies the whole history again, for an edit of an older record that
// left the newest alone. A break stays reported until the process restarts, and is logged at error level
// once. For the tracked keys (the store's access policy), checkLive() says whether a live record
// is what the newest audit record of its key wrote; a record that is not (a write that bypassed
// the audit) is logged at error level and listed by unauditedKeys() until an audited write of
// the key replaces it. Thread-safe; broken() and unauditedKeys() never wait for the store.
class AuditChainMonitor {
public:
    enum class LiveState {
        // The live record is what the audit wrote.
        Audited,
        // The audit has a newer write of the key than the read showed: read the record again.
        Stale,
        // The live record was written around the audit.
        Unaudited,
    };

    AuditChainMonitor(MetadataStore& store, std::set<std::string> trackedKeys, LogSink log = {});

    // Reads and verifies the records written since the last check (the whole history the first
    // time). An error only when the store could not be read.
    Status check();
    // Verifies the whole history again, then as check(). It does not hold up check() and
    // checkLive() meanwhile.
    Status checkWhole();
    // Checks the audit, then whether the key's record in `read` (a list() or snapshot() that
    // holds it, or holds no record when the key is absent) is the one the audit wrote. A tracked
    // key only. Unaudited comes with why in *why.
    Result<LiveState> checkLive(const std::string& key, const StoreSnapshot& read, std::string* why = nullptr);

    bool broken() const { return m_broken.load(); }
    std::optional<AuditChainBreak> firstBreak() const;
    std::vector<std::string> unauditedKeys() const;

private:
    Status checkLocked();
    Status recheckNewest();
    void noteBreak(const std::optional<AuditChainBreak>& found);
    void noteLive(const std::string& key, const std::optional<std::string>& problem);
    void log(LogLevel level, const std::string& message) const;

    MetadataStore& m_store;
    LogSink m_log;
    // Held while a check reads the store: checks run one at a time.
    std::mutex m_checkMutex;
    AuditChainVerifier m_verifier;
    bool m_checked = false;
    // The newest record verified, as canonical encoding and hash.
    std::string m_newest;
    std::atomic<bool> m_broken { false };
    // What readers see, never held across a store call.
    mutable std::mutex m_stateMutex;
    std::optional<AuditChainBreak> m_first;
    // Key -> why its live record is unaudited (the last reason logged).
    std::map<std::string, std::string> m_unaudited;
};

} // namespace shardmap::core
