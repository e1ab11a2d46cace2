#include "core/migration/backfill_copier.h"

#include "core/migration/space_copy.h"
#include "core/util/failpoint.h"

#include <algorithm>
#include <future>
#include <thread>

namespace shardmap::core {

BackfillCopier::BackfillCopier(Options options)
    : m_options(std::move(options))
{
}

Result<std::uint64_t> BackfillCopier::writePage(const ScanPage& page, std::string& refusal)
{
    std::uint64_t bytes = 0;
    std::size_t begin = 0;
    while (begin < page.docs.size()) {
        const std::size_t end
            = chunkEnd(begin, page.docs.size(), [&](std::size_t i) -> const Document& { return page.docs[i]; });
        std::vector<WriteItem> items;
        for (std::size_t i = begin; i < end; ++i)
            items.push_back({ page.docs[i], m_options.epoch });
        auto written = m_options.target->backfillWrite(m_options.targetShard, items);
        if (!written && written.error().details.contains("held_epoch") && m_options.reownTarget) {
            // The target lost its role (restarted from an old backup, or told by someone else):
            // the map says it is the target at this epoch.
            if (auto status = m_options.reownTarget(); !status)
                return status.error();
            written = m_options.target->backfillWrite(m_options.targetShard, items);
        }
        if (!written)
            return makeError(written.error().code,
                "writing " + m_options.space + " to " + m_options.targetShard + ": " + written.error().message);
        if (written->rejected > 0) {
            for (const auto& result : written->results) {
                if (result.outcome == WriteOutcome::Rejected) {
                    refusal = result.reason;
                    return bytes;
                }
            }
        }
        for (std::size_t i = begin; i < end; ++i)
            bytes += documentBytes(page.docs[i]);
        begin = end;
    }
    return bytes;
}

Result<BackfillCopier::Outcome> BackfillCopier::run(CopyProgress from)
{
    std::uint32_t batch = std::clamp<std::uint32_t>(m_options.batch, 1, kMaxScanBatch);
    // A throttled copy goes in about 20 small batches a second rather than a few large bursts
    // followed by sleeps: the source and target see an even load, their searches even latency.
    if (const auto throttle = throttleNow(); throttle > 0)
        batch = static_cast<std::uint32_t>(std::min<std::uint64_t>(batch, std::max<std::uint64_t>(20, throttle / 20)));
    auto scan = [client = m_options.source, shard = m_options.sourceShard, space = m_options.space](std::string after,
                    std::uint32_t size) { return client->scanPage(shard, space, after, size, true); };

    Outcome out;
    CopyProgress& progress = out.progress;
    progress = std::move(from);
    const auto started = std::chrono::steady_clock::now();
    // The throttle paces the docs copied since it was last set: an administrator who lowers it
    // mid-copy gets the new rate from then on, not a wait until the whole run's average falls to it.
    auto paceStart = started;
    std::uint64_t copiedSincePace = 0;
    std::uint64_t pacedThrottle = throttleNow();
    auto lastSaved = started;
    auto lastBatch = started;
    // A failed read or write saves what was copied before it, so the retry resumes from there.
    auto failWith = [&](Error error) -> Result<Outcome> {
        (void)m_options.saveProgress(progress, false);
        return error;
    };

    auto next = std::async(std::launch::async, scan, progress.cursor, batch);
    for (;;) {
        if (m_options.checkLease) {
            if (auto status = m_options.checkLease(); !status)
                return status.error();
        }
        auto page = next.get();
        if (!page && page.error().code == ErrorCode::ResourceExhausted && batch > 1) {
            batch = std::max<std::uint32_t>(1, batch / 2); // documents too large for one message
            next = std::async(std::launch::async, scan, progress.cursor, batch);
            continue;
        }
        if (!page)
            return failWith(makeError(page.error().code,
                "reading " + m_options.space + " from " + m_options.sourceShard + ": " + page.error().message));
        if (!page->done)
            next = std::async(std::launch::async, scan, page->cursor, batch); // read ahead while writing
        if (auto status = failpoint("migration.backfill.batch"); !status)
            return failWith(status.error());
        std::string refusal;
        auto bytes = writePage(*page, refusal);
        if (!bytes)
            return failWith(bytes.error());
        progress.bytesDone += *bytes;
        if (!refusal.empty()) {
            out.end = End::Refused;
            out.refusal = refusal;
            return out;
        }
        progress.docsDone += page->docs.size();
        copiedSincePace += page->docs.size();
        progress.cursor = page->cursor;

        const auto now = std::chrono::steady_clock::now();
        const double seconds = std::chrono::duration<double>(now - lastBatch).count();
        if (seconds > 0 && !page->docs.empty()) {
            const double instant = static_cast<double>(page->docs.size()) / seconds;
            progress.docsPerSecond
                = progress.docsPerSecond <= 0 ? instant : 0.8 * progress.docsPerSecond + 0.2 * instant;
        }
        lastBatch = now;
        if (page->done)
            break;

        // Throttle: docs copied since it was set may not run ahead of the allowed rate.
        if (const auto throttle = throttleNow(); throttle != pacedThrottle) {
            pacedThrottle = throttle;
            paceStart = lastBatch;
            copiedSincePace = page->docs.size();
        }
        if (pacedThrottle > 0) {
            const auto due = paceStart
                + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(
                    static_cast<double>(copiedSincePace) / static_cast<double>(pacedThrottle)));
            while (std::chrono::steady_clock::now() < due && (!m_options.checkLease || m_options.checkLease()))
                std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
                    due - std::chrono::steady_clock::now(), std::chrono::milliseconds(50)));
        }
        if (std::chrono::steady_clock::now() - lastSaved >= m_options.progressInterval) {
            auto stop = m_options.saveProgress(progress, false);
            if (!stop)
                return stop.error();
            lastSaved = std::chrono::steady_clock::now();
            if (*stop) {
                out.end = End::Interrupted;
                return out;
            }
        }
    }
    if (auto saved = m_options.saveProgress(progress, true); !saved)
        return saved.error();
    out.end = End::Copied;
    return out;
}

} // namespace shardmap::core
