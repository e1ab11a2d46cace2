#pragma once

// The workload of the chaos harness (tests/integration/chaos_test.cpp): writers that do what real
// clients do to a migrating space, not only what is easy to model.
//
// - Every writer writes every id (versions come from one counter per id, so calls race).
// - Equal-version races: two calls at once, same id and version, different bodies. At most one
//   may be told APPLIED, and its body is what the space must hold.
// - Replays: a version already superseded by an acknowledged one, with another body: must be STALE.
// - Deletes of ids never written ("ghost-N") and re-deletes: their tombstones must survive moves.
// - Large documents ("big-N", 100–400 KB) beside small ones; anchors ("anchor-N") are written at
//   prefill and only ever updated, so the owner's live count can never fall below their number.
//
// The model keeps, per id, the highest version acknowledged APPLIED and its content, and the
// highest version of a failed call (the row may hold it). Every answer is checked as it arrives:
// APPLIED over an acknowledged version, two contents APPLIED at one version, STALE while the
// shard holds an older version, and REJECTED are anomalies.

#include "core/client/node_client.h"
#include "tests/support/workload.h"

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace shardmap::testing {

struct AdversarialOptions {
    std::vector<std::string> spaces;
    int idsPerSpace = 150;
    int anchorsPerSpace = 20;
    int ghostsPerSpace = 20;
    int bigPerSpace = 2;
    int writers = 3;
    int batch = 4;
    double deleteShare = 0.2;
    double raceShare = 0.05;
    double replayShare = 0.05;
    double ghostShare = 0.04;
    double bigShare = 0.01;
    std::chrono::milliseconds pause { 3 };
    std::uint32_t seed = 1;
};

struct AdversarialEntry {
    std::uint64_t acked = 0; // highest version acknowledged APPLIED (0: none)
    bool deleted = false;
    std::string body; // of the acked version
    std::uint64_t failed = 0; // highest version whose call failed: the row may hold it
    // Acknowledged (version, body) pairs kept for replays; the newest last.
    std::vector<std::pair<std::uint64_t, std::string>> past;

    bool uncertain() const { return failed > acked; }
};

// Counts of what the writers did, for the soak summary.
struct AdversarialCounts {
    std::uint64_t calls = 0;
    std::uint64_t failedCalls = 0;
    std::uint64_t itemsAcknowledged = 0;
    std::uint64_t races = 0;
    std::uint64_t raceBothApplied = 0;
    std::uint64_t replays = 0;
    std::uint64_t ghostDeletes = 0;
    std::uint64_t bigWrites = 0;
};

class AdversarialWorkload final {
public:
    // One path per writer (round robin); races use two different paths when there are two.
    AdversarialWorkload(AdversarialOptions options, std::vector<WritePath> paths);
    ~AdversarialWorkload();

    // Writes every plain id, anchor and big id once through the first path.
    bool prefill();
    void start();
    void stop();
    // Rewrites every uncertain id at a fresh version until acknowledged; false if it could not.
    bool settle(std::chrono::milliseconds timeout);

    std::vector<std::string> anomalies() const;
    std::map<std::string, AdversarialEntry> model(const std::string& space) const;
    AdversarialCounts counts() const;
    std::string lastError() const;
    int anchors() const { return m_options.anchorsPerSpace; }

    // Longest time a space went without an acknowledged write while the writers ran, and when
    // that gap ended; every gap over `longGap` with its end time.
    struct Gap {
        std::string space;
        std::chrono::steady_clock::time_point start;
        std::chrono::steady_clock::time_point end;
        double ms() const { return std::chrono::duration<double, std::milli>(end - start).count(); }
    };
    std::vector<Gap> gaps(std::chrono::milliseconds longGap) const;
    // Every gap per space (for percentiles).
    std::vector<double> gapMillis() const;

private:
    struct Sent {
        core::Document doc;
        std::uint64_t ackedAtSend = 0;
    };
    void writerLoop(int writer);
    core::Document fresh(const std::string& space, const std::string& id, bool deleted, std::string body);
    void record(
        const std::vector<Sent>& sent, bool ok, const std::vector<core::ItemResult>& results, const std::string& error);
    bool call(const WritePath& path, const std::vector<Sent>& sent);
    void noteAcknowledged(const std::string& space);

    AdversarialOptions m_options;
    std::vector<WritePath> m_paths;
    std::vector<std::thread> m_threads;
    std::atomic<bool> m_stop { false };
    mutable std::mutex m_mutex;
    std::map<std::string, std::map<std::string, AdversarialEntry>> m_model;
    std::map<std::string, std::uint64_t> m_nextVersion;
    std::vector<std::string> m_anomalies;
    std::string m_lastError;
    AdversarialCounts m_counts;
    bool m_running = false;
    std::map<std::string, std::chrono::steady_clock::time_point> m_lastAck;
    std::vector<Gap> m_gaps;
};

// Compares a space on a shard (live documents and tombstones) with the model; the differences.
std::vector<std::string> compareWithModel(core::NodeClient& node, const std::string& shard, const std::string& space,
    const std::map<std::string, AdversarialEntry>& model);

} // namespace shardmap::testing
