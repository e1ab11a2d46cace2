// BackfillCopier's implementation: pages read ahead while the last is written, chunked writes,
// pacing to the throttle and progress saved on its interval.
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

Result<WriteSummary> BackfillCopier::writeChunk(
    NodeClient& client, const std::vector<WriteItem>& items, const std::function<Status()>& reown) const
{
    auto written = client.backfillWrite(m_options.targetShard, items);
    if (!written && written.error().details.contains("held_epoch") && reown) {
        // The copy lost its role (restarted from an old backup, or told by someone else): the map
        // says it is the target at this epoch.
        if (auto status = reown(); !status)
            return status.error();
        written = client.backfillWrite(m_options.targetShard, items);
    }
    return written;
}

std::vector<std::pair<std::size_t, Error>> BackfillCopier::writeReplicas(const std::vector<WriteItem>& items) const
{
    std::vector<std::future<Result<WriteSummary>>> pending;
    for (const CopyReplica& replica : m_options.replicas)
        pending.push_back(std::async(std::launch::async, [this, &replica, &items]() -> Result<WriteSummary> {
            if (!replica.client)
                return makeError(ErrorCode::Unavailable, "no address for node " + replica.node);
            return writeChunk(*replica.client, items,
                [&] { return m_options.reownReplica ? m_options.reownReplica(replica) : Status {}; });
        }));
    std::vector<std::pair<std::size_t, Error>> failed;
    for (std::size_t i = 0; i < pending.size(); ++i) {
        auto written = pending[i].get();
        if (!written)
            failed.emplace_back(i, written.error());
        else if (written->rejected > 0)
            failed.emplace_back(i,
                makeError(ErrorCode::FailedPrecondition,
                    "refused " + std::to_string(written->rejected) + " documents its primary took"));
    }
    return failed;
}

Status BackfillCopier::dropFailedReplicas(const std::vector<std::pair<std::size_t, Error>>& failed)
{
    std::vector<bool> gone(m_options.replicas.size(), false);
    for (const auto& [index, error] : failed) {
        if (!m_options.replicaFailed)
            return error;
        if (auto status = m_options.replicaFailed(m_options.replicas[index], error); !status)
            return status;
        gone[index] = true;
    }
    std::vector<CopyReplica> kept;
    for (std::size_t i = 0; i < m_options.replicas.size(); ++i) {
        if (!gone[i])
            kept.push_back(std::move(m_options.replicas[i]));
    }
    m_options.replicas = std::move(kept);
    return {};
}

Result<std::uint64_t> BackfillCopier::writePage(const ScanPage& page, std::string& refusal)
{
    std::uint64_t bytes = 0;
    std::size_t begin = 0;
    while (begin < page.docs.size()) {
        const std::size_t end
            = chunkEnd(begin, page.docs.size(), [&](std::size_t i) -> const Document& { return page.docs[i]; });
        std::vector<WriteItem> items;
        for (std::size_t i = begin; i < end; ++i) {
            items.push_back({ page.docs[i], m_options.epoch });
            items.back().doc.space = m_options.spaceOnTarget();
        }
        auto replicas = m_options.replicas.empty()
            ? std::future<std::vector<std::pair<std::size_t, Error>>>()
            : std::async(std::launch::async, [this, &items] { return writeReplicas(items); });
        auto written = writeChunk(*m_options.target, items, m_options.reownTarget);
        const Status replicated = replicas.valid() ? dropFailedReplicas(replicas.get()) : Status {};
        if (!written)
            return makeError(written.error().code,
                "writing " + m_options.space + " to " + m_options.targetShard + ": " + written.error().message);
        if (!replicated)
            return makeError(replicated.error().code,
                "writing " + m_options.space + " to a replica of " + m_options.targetShard + ": "
                    + replicated.error().message);
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

namespace {

// Holds a copy to its throttle by pacing: the docs copied since the throttle was last set may not
// run ahead of it, so an administrator who lowers it mid-copy gets the new rate from then on, not
// a wait until the whole run's average falls to it.
class BackfillPacer {
public:
    BackfillPacer(std::uint64_t throttle, std::chrono::steady_clock::time_point start)
        : m_throttle(throttle)
        , m_start(start)
    {
    }

    void copied(std::uint64_t docs) { m_copied += docs; }

    // After a page of pageDocs copied by now, under throttle (0: none): waits until the copy is
    // back to the rate, or until checkLease fails.
    void pace(std::uint64_t throttle, std::uint64_t pageDocs, std::chrono::steady_clock::time_point now,
        const std::function<Status()>& checkLease)
    {
        if (throttle != m_throttle) {
            m_throttle = throttle;
            m_start = now;
            m_copied = pageDocs;
        }
        if (m_throttle == 0)
            return;
        const auto due = m_start
            + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                std::chrono::duration<double>(static_cast<double>(m_copied) / static_cast<double>(m_throttle)));
        while (std::chrono::steady_clock::now() < due && (!checkLease || checkLease()))
            std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
                due - std::chrono::steady_clock::now(), std::chrono::milliseconds(50)));
    }

private:
    std::uint64_t m_throttle = 0;
    std::chrono::steady_clock::time_point m_start;
    std::uint64_t m_copied = 0;
};

// Reads the source page by page, the next page while the last is written.
class BackfillPageReader {
public:
    BackfillPageReader(const BackfillCopier::Options& options, std::uint32_t batch)
        : m_batch(batch)
        , m_scan([client = options.source, shard = options.sourceShard, space = options.space](std::string after,
                     std::uint32_t size) { return client->scanPage(shard, space, after, size, true); })
    {
    }

    void request(std::string after) { m_next = std::async(std::launch::async, m_scan, std::move(after), m_batch); }
    Result<ScanPage> take() { return m_next.get(); }
    // Documents too large for one message: asks for the page after again at half the batch;
    // false when the batch cannot shrink or the read failed otherwise.
    bool shrink(const Result<ScanPage>& page, const std::string& after)
    {
        if (page || page.error().code != ErrorCode::ResourceExhausted || m_batch <= 1)
            return false;
        m_batch = std::max<std::uint32_t>(1, m_batch / 2);
        request(after);
        return true;
    }

private:
    std::uint32_t m_batch;
    std::function<Result<ScanPage>(std::string, std::uint32_t)> m_scan;
    std::future<Result<ScanPage>> m_next;
};

// A copied page counted: progress, the pacer, and the copy's rate smoothed over its pages
// (lastBatch: when the page before was copied).
void countCopiedPage(CopyProgress& progress, const ScanPage& page, BackfillPacer& pacer,
    std::chrono::steady_clock::time_point& lastBatch)
{
    progress.docsDone += page.docs.size();
    pacer.copied(page.docs.size());
    progress.cursor = page.cursor;
    const auto now = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(now - lastBatch).count();
    if (seconds > 0 && !page.docs.empty()) {
        const double instant = static_cast<double>(page.docs.size()) / seconds;
        progress.docsPerSecond = progress.docsPerSecond <= 0 ? instant : 0.8 * progress.docsPerSecond + 0.2 * instant;
    }
    lastBatch = now;
}

BackfillCopier::Outcome endedAs(BackfillCopier::Outcome out, BackfillCopier::End end, std::string refusal = {})
{
    out.end = end;
    out.refusal = std::move(refusal);
    return out;
}

} // namespace

std::uint32_t BackfillCopier::firstBatch() const
{
    const std::uint32_t batch = std::clamp<std::uint32_t>(m_options.batch, 1, kMaxScanBatch);
    // A throttled copy goes in about 20 small batches a second rather than a few large bursts
    // followed by sleeps: the source and target see an even load, their searches even latency.
    if (const auto throttle = throttleNow(); throttle > 0)
        return static_cast<std::uint32_t>(std::min<std::uint64_t>(batch, std::max<std::uint64_t>(20, throttle / 20)));
    return batch;
}

Result<BackfillCopier::Outcome> BackfillCopier::run(CopyProgress from)
{
    BackfillPageReader reader(m_options, firstBatch());
    Outcome out;
    CopyProgress& progress = out.progress;
    progress = std::move(from);
    const auto started = std::chrono::steady_clock::now();
    BackfillPacer pacer(throttleNow(), started);
    auto lastSaved = started;
    auto lastBatch = started;
    // A failed read or write saves what was copied before it, so the retry resumes from there.
    auto failWith = [&](Error error) -> Result<Outcome> {
        (void)m_options.saveProgress(progress, false);
        return error;
    };
    reader.request(progress.cursor);
    for (;;) {
        if (auto status = m_options.checkLease ? m_options.checkLease() : Status {}; !status)
            return status.error();
        auto page = reader.take();
        if (reader.shrink(page, progress.cursor))
            continue;
        if (!page)
            return failWith(makeError(page.error().code,
                "reading " + m_options.space + " from " + m_options.sourceShard + ": " + page.error().message));
        if (!page->done)
            reader.request(page->cursor); // read ahead while writing
        if (auto status = failpoint("migration.backfill.batch"); !status)
            return failWith(status.error());
        std::string refusal;
        auto bytes = writePage(*page, refusal);
        if (!bytes)
            return failWith(bytes.error());
        progress.bytesDone += *bytes;
        if (!refusal.empty())
            return endedAs(std::move(out), End::Refused, refusal);
        countCopiedPage(progress, *page, pacer, lastBatch);
        if (page->done)
            break;
        pacer.pace(throttleNow(), page->docs.size(), lastBatch, m_options.checkLease);
        auto stop = saveIfDue(progress, lastSaved);
        if (!stop)
            return stop.error();
        if (*stop)
            return endedAs(std::move(out), End::Interrupted);
    }
    if (auto saved = m_options.saveProgress(progress, true); !saved)
        return saved.error();
    return endedAs(std::move(out), End::Copied);
}

// Saves progress once progressInterval has passed since lastSaved; true when saveProgress asks
// the copy to stop.
Result<bool> BackfillCopier::saveIfDue(const CopyProgress& progress, std::chrono::steady_clock::time_point& lastSaved)
{
    if (std::chrono::steady_clock::now() - lastSaved < m_options.progressInterval)
        return false;
    auto stop = m_options.saveProgress(progress, false);
    if (!stop)
        return stop.error();
    lastSaved = std::chrono::steady_clock::now();
    return *stop;
}

} // namespace shardmap::core
