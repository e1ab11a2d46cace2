// The planner's notes in the console's language: one translated sentence per kind of note, in
// three groups (the scenario's own, what the fleet allowed, what must wait).

#include "widgets/style/plan_note_text.h"

#include "widgets/style/format.h"

#include <QCoreApplication>
#include <QLocale>
#include <QStringList>

namespace shardmap::widgets {

namespace {

QString arg(const core::PlanNote& note, std::size_t i)
{
    return i < note.args.size() ? QString::fromStdString(note.args[i]) : QString();
}

// "1.41" as the locale writes it, with the times sign: "1,41×" in German.
QString share(const QString& ratio)
{
    bool ok = false;
    const double value = ratio.toDouble(&ok);
    return ok
        ? QCoreApplication::translate("shardmap::widgets::PlanNotes", "%1×").arg(QLocale().toString(value, 'f', 2))
        : QStringLiteral("–");
}

QString count(const QString& number)
{
    bool ok = false;
    const qulonglong value = number.toULongLong(&ok);
    return ok ? QLocale().toString(value) : number;
}

QString objective(const QString& name)
{
    if (name == QLatin1String("bytes"))
        return QCoreApplication::translate("shardmap::widgets::PlanNotes", "bytes");
    if (name == QLatin1String("docs"))
        return QCoreApplication::translate("shardmap::widgets::PlanNotes", "documents");
    if (name == QLatin1String("queries"))
        return QCoreApplication::translate("shardmap::widgets::PlanNotes", "queries");
    if (name == QLatin1String("writes"))
        return QCoreApplication::translate("shardmap::widgets::PlanNotes", "writes");
    if (name == QLatin1String("node-disk"))
        return QCoreApplication::translate("shardmap::widgets::PlanNotes", "node disk");
    return name;
}

QString scenario(const QString& name)
{
    if (name == QLatin1String("rebalance"))
        return QCoreApplication::translate("shardmap::widgets::PlanNotes", "rebalance");
    if (name == QLatin1String("fill new shard"))
        return QCoreApplication::translate("shardmap::widgets::PlanNotes", "fill new shard");
    return name;
}

QString outsideBand(const core::PlanNote& note)
{
    const std::size_t listed = note.args.size() >= 2 ? (note.args.size() - 2) / 3 : 0;
    QStringList shards;
    for (std::size_t i = 0; i < listed; ++i) {
        shards << QCoreApplication::translate("shardmap::widgets::PlanNotes", "%1 (%2 its share of %3)")
                      .arg(arg(note, 1 + 3 * i), share(arg(note, 2 + 3 * i)), objective(arg(note, 3 + 3 * i)));
    }
    const int over = arg(note, 0).toInt();
    QString text = QCoreApplication::translate(
        "shardmap::widgets::PlanNotes", "%n shard(s) remain outside the band after the plan: %1", nullptr, over)
                       .arg(shards.join(QStringLiteral(", ")));
    if (const int more = arg(note, note.args.size() - 1).toInt(); listed > 0 && more > 0)
        text = QCoreApplication::translate("shardmap::widgets::PlanNotes", "%1 and %n more", nullptr, more).arg(text);
    return text;
}

QString untilClock(const QString& unixMs)
{
    return formatClock(unixMs.toLongLong());
}

QString inRollbackWindow(const core::PlanNote& note)
{
    if (arg(note, 3).toLongLong() <= 0)
        return QCoreApplication::translate("shardmap::widgets::PlanNotes",
            "space %1 is in its rollback window after moving to %2 (%3); it can move once the window closes")
            .arg(arg(note, 0), arg(note, 1), arg(note, 2));
    return QCoreApplication::translate("shardmap::widgets::PlanNotes",
        "space %1 is in its rollback window after moving to %2 (%3) until %4; it can move then")
        .arg(arg(note, 0), arg(note, 1), arg(note, 2), untilClock(arg(note, 3)));
}

QString keepsRollbackCopy(const core::PlanNote& note)
{
    if (arg(note, 3).toLongLong() <= 0)
        return QCoreApplication::translate(
            "shardmap::widgets::PlanNotes", "shard %1 keeps the rollback copy of %2 (%3)")
            .arg(arg(note, 0), arg(note, 1), arg(note, 2));
    return QCoreApplication::translate(
        "shardmap::widgets::PlanNotes", "shard %1 keeps the rollback copy of %2 (%3, until %4)")
        .arg(arg(note, 0), arg(note, 1), arg(note, 2), untilClock(arg(note, 3)));
}

QString waitsForRollbackWindows(const core::PlanNote& note)
{
    const int copies = arg(note, 2).toInt();
    const bool merge = arg(note, 0) == QLatin1String("merge");
    if (arg(note, 3).toLongLong() <= 0)
        return merge ? QCoreApplication::translate("shardmap::widgets::PlanNotes",
                   "the merge of %1 can run once the rollback window(s) close", nullptr, copies)
                           .arg(arg(note, 1))
                     : QCoreApplication::translate("shardmap::widgets::PlanNotes",
                         "retiring node %1 can run once the rollback window(s) close", nullptr, copies)
                           .arg(arg(note, 1));
    return merge ? QCoreApplication::translate("shardmap::widgets::PlanNotes",
               "the merge of %1 can run once the rollback window(s) close (%2)", nullptr, copies)
                       .arg(arg(note, 1), untilClock(arg(note, 3)))
                 : QCoreApplication::translate("shardmap::widgets::PlanNotes",
                     "retiring node %1 can run once the rollback window(s) close (%2)", nullptr, copies)
                       .arg(arg(note, 1), untilClock(arg(note, 3)));
}

// A scenario's own notes: the balance it reached and what it does.
QString planScenarioNoteText(const core::PlanNote& note)
{
    using Kind = core::PlanNoteKind;
    switch (note.kind) {
    case Kind::Balance:
        return QCoreApplication::translate(
            "shardmap::widgets::PlanNotes", "%1: %2 holds %3 of its share of bytes, %4 %5")
            .arg(scenario(arg(note, 0)), arg(note, 1), share(arg(note, 2)), arg(note, 3), share(arg(note, 4)));
    case Kind::Drain: return QCoreApplication::translate("shardmap::widgets::PlanNotes", "drain %1").arg(arg(note, 0));
    case Kind::RetireNode:
        return QCoreApplication::translate("shardmap::widgets::PlanNotes", "retire node %1").arg(arg(note, 0));
    case Kind::Split:
        return QCoreApplication::translate("shardmap::widgets::PlanNotes", "split %1: balanced halves")
            .arg(arg(note, 0));
    case Kind::Merge:
        return QCoreApplication::translate("shardmap::widgets::PlanNotes", "merge %1 into %2")
            .arg(arg(note, 0), arg(note, 1));
    case Kind::Isolate:
        return QCoreApplication::translate("shardmap::widgets::PlanNotes", "isolate space %1 on shard %2")
            .arg(arg(note, 0), arg(note, 1));
    case Kind::Reindex:
        return QCoreApplication::translate("shardmap::widgets::PlanNotes", "reindex %1 into %2 (template %3)")
            .arg(arg(note, 0), arg(note, 1), arg(note, 2));
    default: break;
    }
    return {};
}

// What the fleet's shards and nodes allowed: dedicated shards, nodes without figures, shards
// left outside the band, spaces no shard takes.
QString planShardNoteText(const core::PlanNote& note)
{
    using Kind = core::PlanNoteKind;
    switch (note.kind) {
    case Kind::DedicatedShardEmptied:
        return arg(note, 2) == QLatin1String("isolated")
            ? QCoreApplication::translate(
                "shardmap::widgets::PlanNotes", "shard %1 is dedicated to space %2 (isolated)")
                  .arg(arg(note, 0), arg(note, 1))
            : QCoreApplication::translate(
                "shardmap::widgets::PlanNotes", "shard %1 is dedicated to space %2 (larger than half a shard)")
                  .arg(arg(note, 0), arg(note, 1));
    case Kind::NodeDidNotReport:
        return QCoreApplication::translate(
            "shardmap::widgets::PlanNotes", "node %1 did not report its free disk; its shards are left out of the plan")
            .arg(arg(note, 0));
    case Kind::DedicatedShardLeftOut:
        return QCoreApplication::translate(
            "shardmap::widgets::PlanNotes", "shard %1 is dedicated to space %2 (isolated); it receives no other space")
            .arg(arg(note, 0), arg(note, 1));
    case Kind::SeveralLargeSpaces:
        return QCoreApplication::translate("shardmap::widgets::PlanNotes",
            "shard %1 holds %2 spaces larger than half a shard; isolate all but one of them")
            .arg(arg(note, 0), count(arg(note, 1)));
    case Kind::OutsideBand: return outsideBand(note);
    case Kind::NoShardTakes: {
        const QString why = arg(note, 2).isEmpty()
            ? QCoreApplication::translate("shardmap::widgets::PlanNotes", "no shard receives spaces")
            : arg(note, 2);
        return QCoreApplication::translate("shardmap::widgets::PlanNotes", "no shard can take space %1 (%2 bytes): %3")
            .arg(arg(note, 0), count(arg(note, 1)), why);
    }
    case Kind::MoreSmallShards:
        return QCoreApplication::translate("shardmap::widgets::PlanNotes",
            "%n more shard(s) hold less than the limit; plan again once this merge is done", nullptr,
            arg(note, 0).toInt());
    case Kind::ReplicasMoveOff:
        return QCoreApplication::translate("shardmap::widgets::PlanNotes",
            "node %1 holds %n replica(s) (%2); the executor makes each again on another node before the node "
            "retires",
            nullptr, arg(note, 1).toInt())
            .arg(arg(note, 0), arg(note, 2));
    default: break;
    }
    return {};
}

// What stopped a plan or must wait: the move budget, moves in their rollback window, migrations
// already open.
QString planWaitNoteText(const core::PlanNote& note)
{
    using Kind = core::PlanNoteKind;
    switch (note.kind) {
    case Kind::BudgetRanOut:
        return QCoreApplication::translate("shardmap::widgets::PlanNotes",
            "the move budget (moves, bytes or hours) ran out before the fleet was balanced");
    case Kind::BudgetRanOutLeaving:
        return QCoreApplication::translate("shardmap::widgets::PlanNotes",
            "the move budget ran out before every space left; plan again when these moves are done");
    case Kind::InRollbackWindow: return inRollbackWindow(note);
    case Kind::JustMoved:
        return QCoreApplication::translate("shardmap::widgets::PlanNotes",
            "space %1 has just moved to %2 (%3); it can move again once the old copy is removed")
            .arg(arg(note, 0), arg(note, 1), arg(note, 2));
    case Kind::AlreadyMigrating:
        return QCoreApplication::translate("shardmap::widgets::PlanNotes",
            "space %1 is already migrating (%2); wait for it to finish or cancel it first")
            .arg(arg(note, 0), arg(note, 1));
    case Kind::KeepsRollbackCopy: return keepsRollbackCopy(note);
    case Kind::WaitsForRollbackWindows: return waitsForRollbackWindows(note);
    case Kind::AndMore:
        return QCoreApplication::translate(
            "shardmap::widgets::PlanNotes", "and %n more", nullptr, arg(note, 0).toInt());
    default: break;
    }
    return {};
}

} // namespace

QString planNoteText(const core::PlanNote& note)
{
    using Kind = core::PlanNoteKind;
    switch (note.kind) {
    case Kind::Text: return arg(note, 0);
    case Kind::Balance:
    case Kind::Drain:
    case Kind::RetireNode:
    case Kind::Split:
    case Kind::Merge:
    case Kind::Isolate:
    case Kind::Reindex: return planScenarioNoteText(note);
    case Kind::DedicatedShardEmptied:
    case Kind::NodeDidNotReport:
    case Kind::DedicatedShardLeftOut:
    case Kind::SeveralLargeSpaces:
    case Kind::OutsideBand:
    case Kind::NoShardTakes:
    case Kind::MoreSmallShards:
    case Kind::ReplicasMoveOff: return planShardNoteText(note);
    case Kind::BudgetRanOut:
    case Kind::BudgetRanOutLeaving:
    case Kind::InRollbackWindow:
    case Kind::JustMoved:
    case Kind::AlreadyMigrating:
    case Kind::KeepsRollbackCopy:
    case Kind::WaitsForRollbackWindows:
    case Kind::AndMore: return planWaitNoteText(note);
    }
    return QString::fromStdString(core::describe(note));
}

QString translatedError(const core::Error& error)
{
    const std::vector<core::PlanNote> notes = core::refusalNotes(error);
    if (notes.empty())
        return QString::fromStdString(error.describe());
    QStringList parts;
    for (const core::PlanNote& note : notes)
        parts << planNoteText(note);
    const QString text = parts.join(QStringLiteral("; "));
    return error.context.empty() ? text : QStringLiteral("%1: %2").arg(QString::fromStdString(error.context), text);
}

} // namespace shardmap::widgets
