// The router's repair of an in-sync copy that already held, maybe with another content, the
// version the primary applied, and its note of a catching-up copy that missed a write (issue 30,
// both found by the copies chaos harness).
#include "core/map/copy_faults.h"
#include "core/router/router.h"
#include "core/util/failpoint.h"

namespace shardmap::core {

// A copy that answered STALE at the very version the primary APPLIED already held that version,
// maybe with another content: two calls raced with one version and different bodies, and the
// copies applied them in different orders. The body acknowledged as applied would not be on that
// copy, so those items are written to it again as a repair (the same version with other content is
// replaced, a newer one never; the same content is left as it is, e.g. a retried write), and a copy
// the repair fails on leaves the in-sync set before the acknowledgement, as one that missed the
// write does. (Under a majority quorum only the copies that answered before the decision are seen.)
Status Router::repairCopiesHoldingTheVersion(const std::vector<std::pair<RouteCopy, WriteSummary>>& answers,
    const std::string& shard, const std::vector<WriteItem>& items, const WriteSummary& primary)
{
    std::vector<std::pair<RouteCopy, std::vector<WriteItem>>> held;
    for (const auto& [copy, answer] : answers) {
        std::vector<WriteItem> again;
        for (std::size_t k = 0; k < items.size() && k < primary.results.size() && k < answer.results.size(); ++k) {
            if (primary.results[k].outcome == WriteOutcome::Applied && answer.results[k].outcome == WriteOutcome::Stale
                && answer.results[k].storedVersion == items[k].doc.version)
                again.push_back(items[k]);
        }
        if (!again.empty())
            held.emplace_back(copy, std::move(again));
    }
    for (const auto& [copy, again] : held) {
        Result<WriteSummary> repaired = WriteSummary {};
        auto client = m_nodes.get(copy.address);
        if (auto point = failpoint("router.copy_repair"); !point)
            repaired = point.error();
        else
            repaired = client ? (*client)->repairWrite(shard, again) : Result<WriteSummary>(client.error());
        if (repaired)
            continue;
        const std::string why = "held " + again.front().doc.space + "/" + again.front().doc.id + " v"
            + std::to_string(again.front().doc.version)
            + " already when the primary applied it, and the repair failed: " + repaired.error().describe();
        auto mark = markCopyCatchingUp(m_store, shard, copy.node, why, { m_options.actor, "" });
        reportCopyFailure({ shard, copy.node, true, repaired.error() }, mark ? "marked_catching_up" : "mark_failed");
        if (!mark)
            return makeError(ErrorCode::Unavailable,
                "copy on node " + copy.node + " " + why + "; marking it catching up failed: " + mark.error().describe(),
                "shard " + shard);
    }
    return {};
}

// A catching-up copy of the write's shard that missed the write is noted in the map before the
// acknowledgement (noteCatchingUpCopyMissedWrite): a catch-up that compared it before this write
// must compare again rather than mark it in sync without it.
Status Router::noteCatchingUpMisses(const std::string& shard, const std::vector<std::pair<RouteCopy, Error>>& missed)
{
    for (const auto& [copy, error] : missed) {
        const std::string why = "missed a write while catching up: " + error.describe();
        auto noted = noteCatchingUpCopyMissedWrite(m_store, shard, copy.node, why, { m_options.actor, "" });
        if (!noted)
            return makeError(ErrorCode::Unavailable,
                "catching-up copy on node " + copy.node + " " + why
                    + "; noting it in the shard map failed: " + noted.error().describe(),
                "shard " + shard);
    }
    return {};
}

} // namespace shardmap::core
