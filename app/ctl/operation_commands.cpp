// shardmapctl commands for fleet operations built from migrations: drain, retire-node, split,
// merge and isolate, and the operations' records.
#include "app/ctl/admin.h"
#include "app/ctl/commands.h"
#include "app/ctl/migration_view.h"
#include "app/ctl/output.h"
#include "core/map/copy_placement.h"

#include <ostream>

namespace shardmap::app {

using core::ErrorCode;
using core::OperationKind;
using nlohmann::json;

namespace {

core::Result<core::OperationRecord> runOperation(
    core::MigrationRequests& requests, const OperationArgs& args, const core::Actor& actor)
{
    switch (args.kind) {
    case OperationKind::Drain: return requests.drain(args.subject, actor);
    case OperationKind::RetireNode: return requests.retireNode(args.subject, actor);
    case OperationKind::Split: return requests.split(args.subject, args.into, args.node, actor);
    case OperationKind::Merge: return requests.merge(args.subject, args.into, actor);
    case OperationKind::Isolate: return requests.isolate(args.subject, args.into, args.node, actor);
    case OperationKind::Move: // a list of moves: the console's plans, `migrate` one by one
    case OperationKind::Reindex: break; // `reindex` plans through the planner's scenario
    }
    return core::makeError(ErrorCode::Internal, "unknown operation");
}

std::string summary(const core::OperationRecord& op)
{
    switch (op.kind) {
    case OperationKind::Drain: return "shard " + op.subject + " is draining";
    case OperationKind::RetireNode: return "node " + op.subject + " is being retired";
    case OperationKind::Split: return "shard " + op.subject + " splits into new shard " + op.into;
    case OperationKind::Merge: return "shard " + op.subject + " merges into " + op.into;
    case OperationKind::Isolate: return "space " + op.subject + " moves to new shard " + op.into + ", pinned";
    case OperationKind::Move: return "planned moves of " + op.subject;
    case OperationKind::Reindex: return "shard(s) " + op.subject + " are rebuilt as " + op.into;
    }
    return op.subject;
}

// The operation's migrations as they are now, in the order it queued them.
std::vector<core::MigrationRecord> migrationsOf(const core::MapSnapshot& map, const core::OperationRecord& op)
{
    std::vector<core::MigrationRecord> out;
    for (const auto& id : op.migrations) {
        const auto found = map.migrations.find(id);
        if (found != map.migrations.end())
            out.push_back(found->second.value);
    }
    return out;
}

Table migrationTable(const std::vector<core::MigrationRecord>& migrations)
{
    Table table({ "MIGRATION", "SPACE", "FROM -> TO", "PHASE", "PROGRESS", "STATUS" });
    for (const auto& m : migrations)
        table.addRow({ m.id, m.space, directionText(m), core::migrationPhaseName(m.phase),
            percentText(progressShare(m)), migrationStatus(m) });
    return table;
}

json operationWithMigrations(const core::OperationRecord& op, const std::vector<core::MigrationRecord>& migrations)
{
    json out = operationJson(op);
    json list = json::array();
    for (const auto& m : migrations)
        list.push_back(migrationJson(m));
    out["migration_records"] = list;
    return out;
}

std::string finishedCount(const core::MapSnapshot& map, const core::OperationRecord& op)
{
    std::size_t finished = 0;
    for (const auto& m : migrationsOf(map, op))
        finished += m.active() ? 0 : 1;
    return std::to_string(finished) + "/" + std::to_string(op.migrations.size());
}

// Runs the operation and shows it with its migrations as queued.
CommandResult reportOperation(core::FleetAdmin& admin, const OperationArgs& args, const core::Actor& actor)
{
    auto op = runOperation(admin.migrations(), args, actor);
    if (!op)
        return op.error();
    auto map = admin.map().snapshot();
    if (!map)
        return map.error();
    const auto migrations = migrationsOf(*map, *op);
    const Table table = migrationTable(migrations);
    const std::string what = std::string(core::operationKindName(op->kind)) + " " + op->id + ": " + summary(*op);
    // A retire-node waits for the replicas on its node to be made again elsewhere (the executor).
    std::vector<std::string> replicas;
    if (op->kind == OperationKind::RetireNode && op->state == core::OperationState::Running) {
        for (const core::ShardRecord* shard : core::replicasToMoveOff(*map, op->subject))
            replicas.push_back(shard->id);
    }
    json shown { { "operation", operationWithMigrations(*op, migrations) } };
    shown["operation"]["replicas_to_move"] = replicas;
    return CommandOutput { shown,
        [what, table, count = migrations.size(), replicas, node = op->subject](std::ostream& out) {
            out << what << "; " << count << " migration(s) queued\n";
            if (!replicas.empty()) {
                out << replicas.size() << " replica(s) on " << node
                    << " are made again on other nodes before it retires: ";
                for (std::size_t i = 0; i < replicas.size(); ++i)
                    out << (i == 0 ? "" : ", ") << replicas[i];
                out << "\n";
            }
            if (!table.empty())
                table.print(out);
        } };
}

} // namespace

CommandResult cmdOperation(const CtlOptions& options, const OperationArgs& args)
{
    return withAdmin(options, [&](core::FleetAdmin& admin) { return reportOperation(admin, args, options.actor); });
}

CommandResult cmdOperationList(const CtlOptions& options)
{
    auto map = readMap(options);
    if (!map)
        return map.error();
    json list = json::array();
    Table table({ "OPERATION", "KIND", "SUBJECT", "INTO", "FINISHED", "STATE", "CREATED", "BY", "REASON" });
    for (const auto& [id, versioned] : map->operations) {
        const auto& op = versioned.value;
        list.push_back(operationJson(op));
        table.addRow({ id, core::operationKindName(op.kind), op.subject, op.into, finishedCount(*map, op),
            core::operationStateName(op.state), formatTime(op.createdUnixMs), op.requestedBy, op.reason });
    }
    return CommandOutput { json { { "revision", map->revision }, { "operations", list } }, [table](std::ostream& out) {
                              if (table.empty())
                                  out << "no operations\n";
                              else
                                  table.print(out);
                          } };
}

CommandResult cmdOperationShow(const CtlOptions& options, const std::string& id)
{
    auto map = readMap(options);
    if (!map)
        return map.error();
    const auto found = map->operations.find(id);
    if (found == map->operations.end())
        return core::makeError(ErrorCode::NotFound, "no operation " + id + " in the shard map");
    const auto& op = found->second.value;
    const auto migrations = migrationsOf(*map, op);
    const Table table = migrationTable(migrations);
    std::vector<std::pair<std::string, std::string>> fields { { "operation", op.id },
        { "kind", core::operationKindName(op.kind) }, { "subject", op.subject }, { "into", op.into },
        { "what", summary(op) }, { "state", core::operationStateName(op.state) },
        { "finished", finishedCount(*map, op) }, { "requested by", op.requestedBy }, { "reason", op.reason },
        { "created", formatTime(op.createdUnixMs) },
        { "ended", op.finishedUnixMs ? formatTime(op.finishedUnixMs) : "-" },
        { "error", op.error.empty() ? "-" : op.error } };
    return CommandOutput { json { { "revision", map->revision },
                               { "operation", operationWithMigrations(op, migrations) } },
        [fields, table](std::ostream& out) {
            for (const auto& [label, value] : fields)
                out << label << std::string(14 - label.size(), ' ') << value << "\n";
            if (!table.empty()) {
                out << "\n";
                table.print(out);
            }
        } };
}

} // namespace shardmap::app
