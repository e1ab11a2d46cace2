#include "core/store/store_copy.h"

// copyStore's implementation: the checks that make a store copyable, the replay of its history
// page by page, and the comparison of the copy with the source at the end.

#include "core/store/audit_chain.h"

#include <ctime>

namespace shardmap::core {

namespace {

constexpr std::size_t kCopyPage = 500;

std::string isoTime(std::int64_t unixMs)
{
    const std::time_t seconds = unixMs / 1000;
    std::tm utc {};
    ::gmtime_r(&seconds, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

Status checkCopyable(MetadataStore& from, MetadataStore& to)
{
    auto destination = to.currentRevision();
    if (!destination)
        return destination.error();
    if (*destination != 0)
        return makeError(ErrorCode::FailedPrecondition,
            "the destination " + to.describe() + " is not empty (revision " + std::to_string(*destination)
                + "); copy into a new store");
    // A copy starts a chain of its own that verifies, so a source whose audit was tampered with
    // is refused rather than laundered.
    auto chain = verifyAuditChain(from, true);
    if (!chain)
        return chain.error();
    if (chain->broken)
        return makeError(ErrorCode::FailedPrecondition,
            "the source's audit chain is broken: " + chain->broken->message
                + "; a copy would hide it (see `shardmapctl map verify-audit`)");
    return {};
}

// The commit that replays one of the source's audit records.
CommitRequest replayOf(MetadataStore& from, const AuditRecord& record)
{
    CommitRequest request;
    for (const auto& change : record.changes)
        request.mutations.push_back({ change.key, change.after, std::nullopt });
    request.actor = record.actor;
    request.action = record.action;
    request.reason = "[copied from " + from.describe() + " revision " + std::to_string(record.revision) + " of "
        + isoTime(record.unixMs) + "] " + record.reason;
    return request;
}

// Commits the source's history up to `until` to the destination, oldest first, counting the
// commits in result.
Status replayHistory(MetadataStore& from, MetadataStore& to, std::uint64_t until,
    const std::function<void(const StoreCopyProgress&)>& progress, CopyResult& result)
{
    std::uint64_t after = 0;
    while (after < until) {
        auto page = from.history(after, until, kCopyPage);
        if (!page)
            return page.error();
        if (page->empty())
            return makeError(ErrorCode::Internal,
                "the source's history ends at revision " + std::to_string(after) + " but its map is at "
                    + std::to_string(until));
        for (const auto& record : *page) {
            if (record.revision != after + 1)
                return makeError(ErrorCode::FailedPrecondition,
                    "the source's history starts at revision " + std::to_string(record.revision) + ", not "
                        + std::to_string(after + 1) + " (pruned); it cannot be copied with its history");
            auto committed = to.commit(replayOf(from, record));
            if (!committed)
                return makeError(committed.error().code,
                    "copying revision " + std::to_string(record.revision) + ": " + committed.error().message);
            after = record.revision;
            ++result.commits;
            if (progress && (result.commits % 100 == 0 || after == until))
                progress({ after, until });
        }
    }
    return {};
}

// The keys whose records differ between the two, comma-separated (the first 400 characters' worth).
std::string differingKeys(
    const std::map<std::string, StoredRecord>& source, const std::map<std::string, StoredRecord>& copied)
{
    std::string differences;
    auto note = [&](const std::string& key) {
        if (differences.size() < 400)
            differences += (differences.empty() ? "" : ", ") + key;
    };
    for (const auto& [key, record] : source) {
        const auto found = copied.find(key);
        if (found == copied.end() || found->second.value != record.value)
            note(key);
    }
    for (const auto& [key, record] : copied) {
        if (!source.contains(key))
            note(key);
    }
    return differences;
}

} // namespace

Result<CopyResult> copyStore(
    MetadataStore& from, MetadataStore& to, const std::function<void(const StoreCopyProgress&)>& progress)
{
    if (auto status = checkCopyable(from, to); !status)
        return status.error();
    // The state to arrive at, read first: history up to its revision is replayed.
    auto source = from.snapshot();
    if (!source)
        return source.error();
    CopyResult result;
    result.sourceRevision = source->revision;
    if (auto status = replayHistory(from, to, source->revision, progress, result); !status)
        return status.error();
    auto copied = to.snapshot();
    if (!copied)
        return copied.error();
    if (const auto differences = differingKeys(source->records, copied->records); !differences.empty())
        return makeError(ErrorCode::Internal,
            "the copy differs from the source at revision " + std::to_string(source->revision) + " in: " + differences);
    result.records = copied->records.size();
    return result;
}

} // namespace shardmap::core
