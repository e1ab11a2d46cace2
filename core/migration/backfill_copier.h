#pragma once

// A migration's backfill: the copy of a space from its source shard to its target, resumable
// from its cursor.

#include "core/client/node_client.h"
#include "core/migration/space_copy.h"
#include "core/util/result.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace shardmap::core {

// Where a backfill is: the last id copied and what it copied so far, with its rate.
struct CopyProgress {
    std::string cursor;
    std::uint64_t docsDone = 0;
    std::uint64_t bytesDone = 0;
    double docsPerSecond = 0;
};

// A migration's backfill: copies a space from its source to its target in id order, from a
// cursor, reading the next page while it writes the last (WriteMode::Backfill, so that the
// target lets clients' writes go first), halving pages of documents too large for one message,
// writing in chunks under the node's request limit, and holding to a throttle by pacing evenly.
// What it copied is saved through saveProgress at most every progressInterval and at the end, so
// a copy resumes from its cursor after any crash.
class BackfillCopier {
public:
    // The ends (the writes to the target carry their epoch), then how the copy runs.
    struct Options : SpaceCopyEnds {
        std::chrono::milliseconds progressInterval { 250 };
        // Docs per second allowed now (0: no limit); read before every page, so a new throttle
        // applies from the next one.
        std::function<std::uint64_t()> throttle;
        // Checked before every page: the copy stops when it fails (the lease is lost).
        std::function<Status()> checkLease;
        // The target refused the epoch (it lost its role): make it the target again.
        std::function<Status()> reownTarget;
        // Saves progress (final: the copy is complete); true when the copy should stop here for
        // a request that arrived meanwhile (pause, cancel).
        std::function<Result<bool>(const CopyProgress&, bool final)> saveProgress;
        // The target's in-sync replicas (issue 30): each chunk goes to them in parallel with the
        // target, so the copy's one cursor covers every copy.
        std::vector<CopyReplica> replicas;
        // A replica refused its role's epoch: make it a target again.
        std::function<Status(const CopyReplica&)> reownReplica;
        // A replica failed a chunk: ok once it is marked catching up (it leaves the copy, and its
        // catch-up brings it in sync), the error otherwise (the copy fails and is retried).
        std::function<Status(const CopyReplica&, const Error&)> replicaFailed;
    };

    enum class End {
        Copied, // every row is on the target (and saved as final)
        Interrupted, // saveProgress asked to stop
        Refused, // the target refused a document (refusal says why)
    };
    struct Outcome {
        End end = End::Copied;
        CopyProgress progress;
        std::string refusal;
    };

    explicit BackfillCopier(Options options);
    Result<Outcome> run(CopyProgress from);

private:
    // Writes one page to the target (and its replicas) in chunks; the bytes written, or the
    // refusal of a document.
    Result<std::uint64_t> writePage(const ScanPage& page, std::string& refusal);
    // One chunk to the target or a replica, made a target again once if it refused the epoch.
    Result<WriteSummary> writeChunk(
        NodeClient& client, const std::vector<WriteItem>& items, const std::function<Status()>& reown) const;
    // One chunk to every replica at once; the replicas that failed it (index, why).
    std::vector<std::pair<std::size_t, Error>> writeReplicas(const std::vector<WriteItem>& items) const;
    // The replicas that failed a chunk leave the copy (replicaFailed), on the copy's own thread.
    Status dropFailedReplicas(const std::vector<std::pair<std::size_t, Error>>& failed);
    // The batch the copy starts with: the configured one, smaller when throttled.
    std::uint32_t firstBatch() const;
    Result<bool> saveIfDue(const CopyProgress& progress, std::chrono::steady_clock::time_point& lastSaved);
    std::uint64_t throttleNow() const { return m_options.throttle ? m_options.throttle() : 0; }

    Options m_options;
};

} // namespace shardmap::core
