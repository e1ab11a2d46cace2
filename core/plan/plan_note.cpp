#include "core/plan/plan_note.h"

namespace shardmap::core {

namespace {

const std::string& arg(const PlanNote& note, std::size_t i)
{
    static const std::string none;
    return i < note.args.size() ? note.args[i] : none;
}

std::string share(const std::string& ratio)
{
    return ratio.empty() ? "-" : ratio + "x";
}

std::string outsideBand(const PlanNote& note)
{
    // {count, (shard, ratio, objective)..., more}
    std::string text = arg(note, 0) + " shard(s) remain outside the band after the plan: ";
    const std::size_t listed = note.args.size() >= 2 ? (note.args.size() - 2) / 3 : 0;
    for (std::size_t i = 0; i < listed; ++i) {
        text += (i ? ", " : "") + arg(note, 1 + 3 * i) + " (" + arg(note, 2 + 3 * i) + "x its share of "
            + arg(note, 3 + 3 * i) + ")";
    }
    if (const std::string& more = arg(note, note.args.size() - 1); listed > 0 && more != "0")
        text += " and " + more + " more";
    return text;
}

} // namespace

std::string describe(const PlanNote& note)
{
    switch (note.kind) {
    case PlanNoteKind::Text: return arg(note, 0);
    case PlanNoteKind::Balance:
        return arg(note, 0) + ": " + arg(note, 1) + " holds " + share(arg(note, 2)) + " of its share of bytes, "
            + arg(note, 3) + " " + share(arg(note, 4));
    case PlanNoteKind::Drain: return "drain " + arg(note, 0);
    case PlanNoteKind::RetireNode: return "retire node " + arg(note, 0);
    case PlanNoteKind::Split: return "split " + arg(note, 0) + ": balanced halves";
    case PlanNoteKind::Merge: return "merge " + arg(note, 0) + " into " + arg(note, 1);
    case PlanNoteKind::Isolate: return "isolate space " + arg(note, 0) + " on shard " + arg(note, 1);
    case PlanNoteKind::DedicatedShardEmptied:
        return "shard " + arg(note, 0) + " is dedicated to space " + arg(note, 1)
            + (arg(note, 2) == "isolated" ? " (isolated)" : " (larger than half a shard)");
    case PlanNoteKind::NodeDidNotReport:
        return "node " + arg(note, 0) + " did not report its free disk; its shards are left out of the plan";
    case PlanNoteKind::DedicatedShardLeftOut:
        return "shard " + arg(note, 0) + " is dedicated to space " + arg(note, 1)
            + " (isolated); it receives no other space";
    case PlanNoteKind::SeveralLargeSpaces:
        return "shard " + arg(note, 0) + " holds " + arg(note, 1)
            + " spaces larger than half a shard; isolate all but one of them";
    case PlanNoteKind::OutsideBand: return outsideBand(note);
    case PlanNoteKind::BudgetRanOut:
        return "the move budget (moves, bytes or hours) ran out before the fleet was balanced";
    case PlanNoteKind::BudgetRanOutLeaving:
        return "the move budget ran out before every space left; plan again when these moves are done";
    case PlanNoteKind::NoShardTakes:
        return "no shard can take space " + arg(note, 0) + " (" + arg(note, 1) + " bytes)"
            + (arg(note, 2).empty() ? ": no shard receives spaces" : ": " + arg(note, 2));
    case PlanNoteKind::MoreSmallShards:
        return arg(note, 0) + " more shard(s) hold less than the limit; plan again once this merge is done";
    }
    return arg(note, 0);
}

} // namespace shardmap::core
