// The notes' English (describe()) and how they travel in an error's details, for the console to
// read back as notes.
#include "core/plan/plan_note.h"

#include "core/map/space_placement.h"

#include <array>
#include <cstdlib>
#include <optional>
#include <utility>

namespace shardmap::core {

namespace {

// Names of the kinds in an error's details.
constexpr std::array<std::pair<PlanNoteKind, const char*>, 24> kNoteKindNames { {
    { PlanNoteKind::Text, "text" },
    { PlanNoteKind::Balance, "balance" },
    { PlanNoteKind::Drain, "drain" },
    { PlanNoteKind::RetireNode, "retire-node" },
    { PlanNoteKind::Split, "split" },
    { PlanNoteKind::Merge, "merge" },
    { PlanNoteKind::Isolate, "isolate" },
    { PlanNoteKind::Reindex, "reindex" },
    { PlanNoteKind::DedicatedShardEmptied, "dedicated-shard-emptied" },
    { PlanNoteKind::NodeDidNotReport, "node-did-not-report" },
    { PlanNoteKind::DedicatedShardLeftOut, "dedicated-shard-left-out" },
    { PlanNoteKind::SeveralLargeSpaces, "several-large-spaces" },
    { PlanNoteKind::OutsideBand, "outside-band" },
    { PlanNoteKind::BudgetRanOut, "budget-ran-out" },
    { PlanNoteKind::BudgetRanOutLeaving, "budget-ran-out-leaving" },
    { PlanNoteKind::NoShardTakes, "no-shard-takes" },
    { PlanNoteKind::MoreSmallShards, "more-small-shards" },
    { PlanNoteKind::ReplicasMoveOff, "replicas-move-off" },
    { PlanNoteKind::InRollbackWindow, "in-rollback-window" },
    { PlanNoteKind::JustMoved, "just-moved" },
    { PlanNoteKind::AlreadyMigrating, "already-migrating" },
    { PlanNoteKind::KeepsRollbackCopy, "keeps-rollback-copy" },
    { PlanNoteKind::WaitsForRollbackWindows, "waits-for-rollback-windows" },
    { PlanNoteKind::AndMore, "and-more" },
} };

const char* kindName(PlanNoteKind kind)
{
    for (const auto& [known, name] : kNoteKindNames) {
        if (known == kind)
            return name;
    }
    return "text";
}

std::optional<PlanNoteKind> kindNamed(const std::string& name)
{
    for (const auto& [kind, known] : kNoteKindNames) {
        if (name == known)
            return kind;
    }
    return std::nullopt;
}

std::string noteKey(std::size_t note)
{
    return "note." + std::to_string(note);
}

// " until 17:45 UTC" for a time in Unix ms, nothing when it is unknown ("0").
std::string untilText(const std::string& unixMs, const char* before)
{
    const long long value = std::strtoll(unixMs.c_str(), nullptr, 10);
    return value > 0 ? before + utcClock(value) : std::string();
}

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

// Why a space moves: the reason of a move.
std::string moveReasonText(const PlanNote& note)
{
    switch (note.kind) {
    case PlanNoteKind::Balance:
        return arg(note, 0) + ": " + arg(note, 1) + " holds " + share(arg(note, 2)) + " of its share of bytes, "
            + arg(note, 3) + " " + share(arg(note, 4));
    case PlanNoteKind::Drain: return "drain " + arg(note, 0);
    case PlanNoteKind::RetireNode: return "retire node " + arg(note, 0);
    case PlanNoteKind::Split: return "split " + arg(note, 0) + ": balanced halves";
    case PlanNoteKind::Merge: return "merge " + arg(note, 0) + " into " + arg(note, 1);
    case PlanNoteKind::Isolate: return "isolate space " + arg(note, 0) + " on shard " + arg(note, 1);
    case PlanNoteKind::Reindex:
        return "reindex " + arg(note, 0) + " into " + arg(note, 1) + " (template " + arg(note, 2) + ")";
    case PlanNoteKind::DedicatedShardEmptied:
        return "shard " + arg(note, 0) + " is dedicated to space " + arg(note, 1)
            + (arg(note, 2) == "isolated" ? " (isolated)" : " (larger than half a shard)");
    default: return arg(note, 0);
    }
}

// What a plan warns about: shards left out or outside the band, a budget that ran out, a space
// no shard takes.
std::string warningText(const PlanNote& note)
{
    switch (note.kind) {
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
    case PlanNoteKind::ReplicasMoveOff:
        return "node " + arg(note, 0) + " holds " + arg(note, 1) + " replica(s) (" + arg(note, 2)
            + "); the executor makes each again on another node before the node retires";
    default: return arg(note, 0);
    }
}

// Why a space cannot move now, and when it can.
std::string refusalText(const PlanNote& note)
{
    switch (note.kind) {
    case PlanNoteKind::InRollbackWindow:
        return "space " + arg(note, 0) + " is in its rollback window after moving to " + arg(note, 1) + " ("
            + arg(note, 2) + ")" + untilText(arg(note, 3), " until ") + "; it can move then";
    case PlanNoteKind::JustMoved:
        return "space " + arg(note, 0) + " has just moved to " + arg(note, 1) + " (" + arg(note, 2)
            + "); it can move again once the old copy is removed";
    case PlanNoteKind::AlreadyMigrating:
        return "space " + arg(note, 0) + " is already migrating (" + arg(note, 1)
            + "); wait for it to finish or cancel it first";
    case PlanNoteKind::KeepsRollbackCopy:
        return "shard " + arg(note, 0) + " keeps the rollback copy of " + arg(note, 1) + " (" + arg(note, 2)
            + untilText(arg(note, 3), ", until ") + ")";
    case PlanNoteKind::WaitsForRollbackWindows: {
        const std::string what
            = arg(note, 0) == "merge" ? "the merge of " + arg(note, 1) : "retiring node " + arg(note, 1);
        const std::string until = untilText(arg(note, 3), "");
        return what + " can run once the rollback " + (arg(note, 2) == "1" ? "window closes" : "windows close")
            + (until.empty() ? "" : " (" + until + ")");
    }
    case PlanNoteKind::AndMore: return "and " + arg(note, 0) + " more";
    default: return arg(note, 0);
    }
}

} // namespace

// Every kind is named here, so that a new kind without its words does not compile (-Wswitch).
std::string describe(const PlanNote& note)
{
    switch (note.kind) {
    case PlanNoteKind::Text: return arg(note, 0);
    case PlanNoteKind::Balance:
    case PlanNoteKind::Drain:
    case PlanNoteKind::RetireNode:
    case PlanNoteKind::Split:
    case PlanNoteKind::Merge:
    case PlanNoteKind::Isolate:
    case PlanNoteKind::Reindex:
    case PlanNoteKind::DedicatedShardEmptied: return moveReasonText(note);
    case PlanNoteKind::NodeDidNotReport:
    case PlanNoteKind::DedicatedShardLeftOut:
    case PlanNoteKind::SeveralLargeSpaces:
    case PlanNoteKind::OutsideBand:
    case PlanNoteKind::BudgetRanOut:
    case PlanNoteKind::BudgetRanOutLeaving:
    case PlanNoteKind::NoShardTakes:
    case PlanNoteKind::MoreSmallShards:
    case PlanNoteKind::ReplicasMoveOff: return warningText(note);
    case PlanNoteKind::InRollbackWindow:
    case PlanNoteKind::JustMoved:
    case PlanNoteKind::AlreadyMigrating:
    case PlanNoteKind::KeepsRollbackCopy:
    case PlanNoteKind::WaitsForRollbackWindows:
    case PlanNoteKind::AndMore: return refusalText(note);
    }
    return arg(note, 0);
}

Error refusalOf(ErrorCode code, const std::vector<PlanNote>& notes)
{
    std::string message;
    Error error = makeError(code, {});
    for (std::size_t i = 0; i < notes.size(); ++i) {
        message += (i ? "; " : "") + describe(notes[i]);
        error.details[noteKey(i)] = kindName(notes[i].kind);
        for (std::size_t a = 0; a < notes[i].args.size(); ++a)
            error.details[noteKey(i) + "." + std::to_string(a)] = notes[i].args[a];
    }
    error.message = std::move(message);
    return error;
}

std::vector<PlanNote> refusalNotes(const Error& error)
{
    std::vector<PlanNote> notes;
    for (std::size_t i = 0;; ++i) {
        const auto kind = error.details.find(noteKey(i));
        if (kind == error.details.end())
            return notes;
        PlanNote note { kindNamed(kind->second).value_or(PlanNoteKind::Text), {} };
        for (std::size_t a = 0;; ++a) {
            const auto value = error.details.find(noteKey(i) + "." + std::to_string(a));
            if (value == error.details.end())
                break;
            note.args.push_back(value->second);
        }
        notes.push_back(std::move(note));
    }
}

} // namespace shardmap::core
