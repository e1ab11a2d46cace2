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
    // Writes one page to the target in chunks; the bytes written, or the refusal of a document.
    Result<std::uint64_t> writePage(const ScanPage& page, std::string& refusal);
    // The batch the copy starts with: the configured one, smaller when throttled.
    std::uint32_t firstBatch() const;
    Result<bool> saveIfDue(const CopyProgress& progress, std::chrono::steady_clock::time_point& lastSaved);
    std::uint64_t throttleNow() const { return m_options.throttle ? m_options.throttle() : 0; }

    Options m_options;
};

} // namespace shardmap::core
