// The holds' implementation: a space's migration as a note, and refusals that name at most five
// held spaces or rollback copies.
#include "core/plan/space_holds.h"

#include <algorithm>

namespace shardmap::core {

namespace {

constexpr std::size_t kNamed = 5;

Error refusalNaming(const std::vector<PlanNote>& notes)
{
    std::vector<PlanNote> named(
        notes.begin(), notes.begin() + static_cast<std::ptrdiff_t>(std::min(notes.size(), kNamed)));
    if (notes.size() > kNamed)
        named.push_back({ PlanNoteKind::AndMore, { std::to_string(notes.size() - kNamed) } });
    return refusalOf(ErrorCode::FailedPrecondition, named);
}

} // namespace

std::optional<PlanNote> holdNote(const std::string& space, const SpacePlacement& placement)
{
    if (!placement.migrationOpen())
        return std::nullopt;
    if (placement.inRollbackWindow())
        return PlanNote { PlanNoteKind::InRollbackWindow,
            { space, placement.shard, placement.migrationId, std::to_string(placement.rollbackUntilUnixMs) } };
    if (placement.cutOver)
        return PlanNote { PlanNoteKind::JustMoved, { space, placement.shard, placement.migrationId } };
    return PlanNote { PlanNoteKind::AlreadyMigrating, { space, placement.migrationId } };
}

std::string migrationHold(const std::string& space, const SpacePlacement& placement)
{
    const auto note = holdNote(space, placement);
    return note ? describe(*note) : std::string();
}

PlanNote holdOf(const PlannerSpace& space)
{
    return space.hold ? *space.hold : PlanNote { PlanNoteKind::AlreadyMigrating, { space.id, space.migrationId } };
}

Status refuseHeld(const std::vector<const PlannerSpace*>& held)
{
    if (held.empty())
        return {};
    std::vector<PlanNote> notes;
    for (const PlannerSpace* space : held)
        notes.push_back(holdOf(*space));
    return refusalNaming(notes);
}

Status refuseHeld(const MapSnapshot& map, const std::vector<const SpaceRecord*>& spaces)
{
    std::vector<PlanNote> notes;
    for (const SpaceRecord* space : spaces) {
        if (auto note = holdNote(space->id, placementOf(map, *space)))
            notes.push_back(std::move(*note));
    }
    if (notes.empty())
        return {};
    return refusalNaming(notes);
}

Status refuseRollbackCopies(const PlannerInput& input, const std::set<std::string>& retired,
    const std::string& operation, const std::string& subject)
{
    std::vector<PlanNote> copies;
    std::int64_t until = 0;
    for (const PlannerSpace& space : input.spaces) {
        if (space.rollbackCopyOn.empty() || !retired.contains(space.rollbackCopyOn))
            continue;
        copies.push_back({ PlanNoteKind::KeepsRollbackCopy,
            { space.rollbackCopyOn, space.id, space.migrationId, std::to_string(space.rollbackUntilUnixMs) } });
        until = std::max(until, space.rollbackUntilUnixMs);
    }
    if (copies.empty())
        return {};
    const std::size_t count = copies.size();
    if (count > kNamed) {
        copies.resize(kNamed);
        copies.push_back({ PlanNoteKind::AndMore, { std::to_string(count - kNamed) } });
    }
    copies.push_back({ PlanNoteKind::WaitsForRollbackWindows,
        { operation, subject, std::to_string(count), std::to_string(until) } });
    return refusalOf(ErrorCode::FailedPrecondition, copies);
}

} // namespace shardmap::core
