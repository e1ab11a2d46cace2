#include "core/plan/space_holds.h"

#include "core/map/space_placement.h"

namespace shardmap::core {

namespace {

std::string listSome(const std::vector<std::string>& items, const char* separator)
{
    std::string text;
    for (std::size_t i = 0; i < items.size() && i < 5; ++i)
        text += (i ? separator : "") + items[i];
    if (items.size() > 5)
        text += " and " + std::to_string(items.size() - 5) + " more";
    return text;
}

} // namespace

std::string holdOf(const PlannerSpace& space)
{
    return space.hold.empty() ? space.id + " (" + space.migrationId + ")" : space.hold;
}

Status refuseHeld(const std::vector<const PlannerSpace*>& held)
{
    if (held.empty())
        return {};
    std::vector<std::string> plain;
    std::vector<std::string> sentences;
    for (const PlannerSpace* space : held)
        (space->hold.empty() ? plain : sentences).push_back(holdOf(*space));
    if (sentences.empty())
        return makeError(ErrorCode::FailedPrecondition,
            "space(s) already migrating: " + listSome(plain, ", ") + "; wait for them or cancel them first");
    sentences.insert(sentences.end(), plain.begin(), plain.end());
    return makeError(ErrorCode::FailedPrecondition, listSome(sentences, "; "));
}

Status refuseRollbackCopies(const PlannerInput& input, const std::set<std::string>& retired, const std::string& what)
{
    std::vector<std::string> copies;
    std::int64_t until = 0;
    for (const PlannerSpace& space : input.spaces) {
        if (space.rollbackCopyOn.empty() || !retired.contains(space.rollbackCopyOn))
            continue;
        copies.push_back(space.rollbackCopyOn + " keeps the rollback copy of " + space.id + " (" + space.migrationId
            + (space.rollbackUntilUnixMs > 0 ? ", until " + utcClock(space.rollbackUntilUnixMs) : "") + ")");
        until = std::max(until, space.rollbackUntilUnixMs);
    }
    if (copies.empty())
        return {};
    return makeError(ErrorCode::FailedPrecondition,
        "shard " + listSome(copies, ", shard ") + "; " + what + " can run once the rollback window"
            + (copies.size() > 1 ? "s close" : " closes") + (until > 0 ? " (" + utcClock(until) + ")" : ""));
}

} // namespace shardmap::core
