// RangeRepair's implementation: both ends read range by range, the range both pages cover
// compared row by row, the fixes written in chunks.
#include "core/migration/range_repair.h"

#include "core/migration/space_copy.h"

#include <optional>
#include <unordered_map>

namespace shardmap::core {

namespace {

// Repair writes in chunks under the node's request limit; the summary adds them up.
Result<WriteSummary> repairChunked(NodeClient& client, const std::string& shard, const std::vector<WriteItem>& items)
{
    WriteSummary total;
    std::size_t begin = 0;
    while (begin < items.size()) {
        const std::size_t end
            = chunkEnd(begin, items.size(), [&](std::size_t i) -> const Document& { return items[i].doc; });
        const std::vector<WriteItem> chunk(
            items.begin() + static_cast<std::ptrdiff_t>(begin), items.begin() + static_cast<std::ptrdiff_t>(end));
        begin = end;
        auto written = client.repairWrite(shard, chunk);
        if (!written)
            return written.error();
        total.applied += written->applied;
        total.stale += written->stale;
        total.rejected += written->rejected;
        for (auto& result : written->results)
            total.results.push_back(std::move(result));
    }
    return total;
}

// The end of the id range both pages cover completely (nullopt: both reached the end).
std::optional<std::string> repairRangeEnd(const ScanPage& sourcePage, const ScanPage& targetPage)
{
    std::optional<std::string> upper;
    if (!sourcePage.done && !sourcePage.docs.empty())
        upper = sourcePage.docs.back().id;
    if (!targetPage.done && !targetPage.docs.empty() && (!upper || targetPage.docs.back().id < *upper))
        upper = targetPage.docs.back().id;
    return upper;
}

// How the target differs from the source in one range: the rows to write again, and a row only
// the target has (null: none).
struct RangeDifference {
    std::vector<WriteItem> fixes;
    const Document* targetOnly = nullptr;
};

RangeDifference compareRepairRange(const ScanPage& sourcePage, const ScanPage& targetPage,
    const std::optional<std::string>& upper, std::uint64_t epoch)
{
    auto inRange = [&](const std::string& id) { return !upper || id <= *upper; };
    std::unordered_map<std::string, const Document*> onTarget;
    for (const auto& doc : targetPage.docs) {
        if (inRange(doc.id))
            onTarget.emplace(doc.id, &doc);
    }
    RangeDifference difference;
    for (const auto& doc : sourcePage.docs) {
        if (!inRange(doc.id))
            break;
        // The source is authoritative: a missing row, an older one, or the same version with
        // other content (or a tombstone where the source has a body) is copied again.
        const auto found = onTarget.find(doc.id);
        if (found == onTarget.end() || found->second->version < doc.version
            || (found->second->version == doc.version && contentHash(*found->second) != contentHash(doc)))
            difference.fixes.push_back({ doc, epoch });
        if (found != onTarget.end())
            onTarget.erase(found);
    }
    if (!onTarget.empty())
        difference.targetOnly = onTarget.begin()->second;
    return difference;
}

} // namespace

Result<std::uint64_t> RangeRepair::run(bool& targetOnly) const
{
    std::uint32_t size = std::clamp<std::uint32_t>(batch, 1, kMaxScanBatch);
    std::string after;
    std::uint64_t repaired = 0;
    for (;;) {
        if (checkLease) {
            if (auto status = checkLease(); !status)
                return status.error();
        }
        // The target first: every row it has was on the source before (routers write the source
        // first), so the source page read after it has it too, and a document on the target
        // only is a real inconsistency, not a write in flight.
        // Large documents: both pages shrink until they fit a message, and the fixes below are
        // written in chunks, as the backfill does (issue 14).
        auto targetPage = scanSized(*target, targetShard, spaceOnTarget(), after, size);
        if (!targetPage)
            return targetPage.error();
        auto sourcePage = scanSized(*source, sourceShard, space, after, size);
        if (!sourcePage)
            return sourcePage.error();
        for (Document& doc : sourcePage->docs)
            doc.space = spaceOnTarget();
        const std::optional<std::string> upper = repairRangeEnd(*sourcePage, *targetPage);
        const RangeDifference difference = compareRepairRange(*sourcePage, *targetPage, upper, epoch);
        // A row the target has and the source does not (a document or a tombstone: both are
        // compared) cannot come from the source: the copy is not the source's.
        if (const Document* doc = difference.targetOnly) {
            targetOnly = true;
            return makeError(ErrorCode::FailedPrecondition,
                std::string(doc->deleted ? "a tombstone of " : "document ") + doc->id + " is on the target "
                    + targetShard + " but not on the source " + sourceShard);
        }
        if (!difference.fixes.empty()) {
            auto written = repairChunked(*target, targetShard, difference.fixes);
            if (!written)
                return written.error();
            repaired += written->applied;
        }
        if (!upper)
            return repaired;
        after = *upper;
    }
}

} // namespace shardmap::core
