// The migration report's implementation: rows from records and histories, the summary, the
// approvals matched to what they made, and the CSV and JSON renderings.
#include "core/report/migration_report.h"

#include "core/admin/approvals.h"
#include "core/plan/plan.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

using nlohmann::json;

namespace shardmap::core {

namespace {

const std::set<std::string> kStates { "queued", "running", "done", "failed", "cancelled" };

std::string outcomeOf(const MigrationRecord& m)
{
    switch (m.phase) {
    case MigrationPhase::Done: return "done";
    case MigrationPhase::Failed: return "failed";
    case MigrationPhase::Cancelled: return m.rolledBack ? "rolled back" : "cancelled";
    case MigrationPhase::Queued: return "queued";
    default: return "running";
    }
}

// The state filter's groups: a rolled-back migration is a cancelled one.
std::string stateOf(const MigrationRecord& m)
{
    const std::string outcome = outcomeOf(m);
    return outcome == "rolled back" ? "cancelled" : outcome;
}

// The copy ends where the cleanup phase (the rollback window, then the source's deletion)
// begins; a migration without a history is all copy, as far as the report can tell.
void splitDuration(ReportRow& row, std::int64_t now)
{
    row.copyMs = row.durationMs;
    if (!row.history || row.startedUnixMs <= 0)
        return;
    for (const PhaseSpan& span : row.history->phases) {
        if (span.phase != MigrationPhase::Cleanup)
            continue;
        std::int64_t end = span.endedUnixMs ? span.endedUnixMs : (row.endedUnixMs ? row.endedUnixMs : now);
        // The history's phase times and the record's end are separate clock reads: the parts
        // never add up to more than the whole.
        if (row.endedUnixMs)
            end = std::min(end, row.endedUnixMs);
        const std::int64_t whole = std::max<std::int64_t>(0, row.durationMs);
        row.copyMs = std::clamp<std::int64_t>(span.startedUnixMs - row.startedUnixMs, 0, whole);
        row.windowMs = std::clamp<std::int64_t>(end - span.startedUnixMs, 0, whole - row.copyMs);
        return;
    }
}

ReportRow rowOf(const MigrationRecord& m, const std::map<std::string, MigrationHistory>& histories, std::int64_t now)
{
    ReportRow row;
    row.record = m;
    const auto found = histories.find(m.id);
    if (found != histories.end())
        row.history = found->second;
    row.requestedSource = row.history ? row.history->requestedSource : askedSource(m);
    row.requestedTarget = row.history ? row.history->requestedTarget : askedTarget(m);
    row.outcome = outcomeOf(m);
    row.startedUnixMs = m.startedUnixMs;
    row.endedUnixMs = isFinal(m.phase) ? (m.finishedUnixMs ? m.finishedUnixMs : m.updatedUnixMs) : 0;
    if (row.startedUnixMs > 0)
        row.durationMs = (row.endedUnixMs ? row.endedUnixMs : now) - row.startedUnixMs;
    splitDuration(row, now);
    row.writeHoldMs = row.history ? row.history->writeHoldMs : -1;
    row.cutoverAborts = std::max(m.cutoverAborts, row.history ? row.history->cutoverAborts : 0u);
    return row;
}

bool inScope(const MigrationRecord& m, const ReportScope& scope)
{
    if (scope.migrations.empty() && scope.operation.empty()) {
        if (scope.sinceUnixMs > 0 && m.createdUnixMs < scope.sinceUnixMs)
            return false;
        if (scope.untilUnixMs > 0 && m.createdUnixMs >= scope.untilUnixMs)
            return false;
    }
    if (!scope.space.empty() && m.space != scope.space)
        return false;
    if (!scope.shard.empty() && m.source != scope.shard && m.target != scope.shard)
        return false;
    return scope.state.empty() || stateOf(m) == scope.state;
}

void summarize(MigrationReport& report)
{
    ReportSummary& s = report.summary;
    for (const ReportRow& row : report.rows) {
        ++s.byOutcome[row.outcome];
        if (row.outcome == "done") {
            s.docsMoved += row.record.progress.docsDone;
            s.bytesMoved += row.record.progress.bytesDone;
        }
        s.totalDurationMs += row.durationMs;
        if (row.durationMs > s.longestDurationMs) {
            s.longestDurationMs = row.durationMs;
            s.longestMigration = row.record.id;
        }
        s.totalCopyMs += row.copyMs;
        if (row.copyMs > s.longestCopyMs) {
            s.longestCopyMs = row.copyMs;
            s.longestCopyMigration = row.record.id;
        }
        s.longestWindowMs = std::max(s.longestWindowMs, row.windowMs);
        if (row.writeHoldMs > s.longestWriteHoldMs) {
            s.longestWriteHoldMs = row.writeHoldMs;
            s.longestHoldMigration = row.record.id;
        }
        s.repairedDocs += row.record.repairedDocs;
        s.cutoverAborts += row.cutoverAborts;
        if (row.history && row.history->verification && row.writeHoldMs >= 0)
            (row.history->verification->equal ? s.verifiedEqual : s.verifiedApart) += 1;
    }
}

// Before as measured when queued; after adds what the operation's done migrations moved.
std::vector<ReportShardLoad> shardLoads(const OperationRecord& op, const std::vector<ReportRow>& rows)
{
    std::map<std::string, ReportShardLoad> loads;
    for (const OperationShardLoad& before : op.shardsBefore)
        loads[before.shard] = { before.shard, before.docs, before.bytes, before.spaces, before.docs, before.bytes,
            before.spaces, before.measured };
    for (const ReportRow& row : rows) {
        if (row.record.operation != op.id || row.outcome != "done")
            continue;
        const MigrationProgress& moved = row.record.progress;
        ReportShardLoad& from = loads[row.requestedSource];
        from.shard = row.requestedSource;
        from.docsAfter -= std::min(from.docsAfter, moved.docsDone);
        from.bytesAfter -= std::min(from.bytesAfter, moved.bytesDone);
        from.spacesAfter -= std::min<std::uint64_t>(from.spacesAfter, 1);
        ReportShardLoad& to = loads[row.requestedTarget];
        to.shard = row.requestedTarget;
        to.docsAfter += moved.docsDone;
        to.bytesAfter += moved.bytesDone;
        to.spacesAfter += 1;
    }
    std::vector<ReportShardLoad> out;
    for (auto& [id, load] : loads)
        out.push_back(std::move(load));
    return out;
}

std::string csvField(const std::string& value)
{
    if (value.find_first_of(",\"\r\n") == std::string::npos)
        return value;
    std::string quoted = "\"";
    for (char c : value) {
        quoted += c;
        if (c == '"')
            quoted += '"';
    }
    return quoted + "\"";
}

json historyJson(const std::optional<MigrationHistory>& history)
{
    return history ? json::parse(encode(*history)) : json(nullptr);
}

// The record an applied change created, read back from its outcome as describeOutcome writes it
// ("operation op-... at revision 12"). Steering a migration names the migration but made nothing.
std::pair<std::string, std::string> madeRecord(const v1::ApprovalInfo& approval)
{
    const v1::AdminChange& change = approval.change();
    const bool creates = change.has_queue_migration() || change.has_apply_plan() || change.has_start_operation()
        || change.has_move_spaces();
    if (approval.state() != "applied" || !creates)
        return {};
    std::istringstream words(approval.outcome());
    std::string kind, id, at;
    words >> kind >> id >> at;
    if ((kind != "migration" && kind != "operation") || at != "at")
        return {};
    return { kind, id };
}

void addIfSet(std::vector<std::string>& list, const std::string& value)
{
    if (!value.empty() && std::find(list.begin(), list.end(), value) == list.end())
        list.push_back(value);
}

// An operation's subject is a space (isolate), a node (retire-node) or a shard.
void addSubject(ReportApproval& out, const std::string& kind, const std::string& subject, const std::string& into)
{
    if (kind == "isolate")
        addIfSet(out.spaces, subject);
    else if (kind != "retire-node" && kind != "move")
        addIfSet(out.shards, subject);
    addIfSet(out.shards, into);
}

// A plan (what the Admin API turns a drain, split ... into before it is judged): its operation
// and every move's space and shards.
void addPlanNamed(ReportApproval& out, const std::string& planJson)
{
    auto plan = Plan::decode(planJson);
    if (!plan)
        return;
    addSubject(out, plan->kind, plan->subject, plan->into);
    for (const PlannedMove& move : plan->moves) {
        addIfSet(out.spaces, move.space);
        addIfSet(out.shards, move.from);
        addIfSet(out.shards, move.to);
    }
}

// The shards, spaces and migrations a change names.
void addNamed(ReportApproval& out, const v1::AdminChange& change)
{
    const auto add = addIfSet;
    switch (change.change_case()) {
    case v1::AdminChange::kQueueMigration:
        add(out.spaces, change.queue_migration().space());
        add(out.shards, change.queue_migration().target_shard());
        break;
    case v1::AdminChange::kSteerMigration: add(out.migrations, change.steer_migration().migration()); break;
    case v1::AdminChange::kSetThrottle: add(out.migrations, change.set_throttle().migration()); break;
    case v1::AdminChange::kStartOperation:
        addSubject(
            out, change.start_operation().kind(), change.start_operation().subject(), change.start_operation().into());
        break;
    case v1::AdminChange::kApplyPlan: addPlanNamed(out, change.apply_plan().plan_json()); break;
    case v1::AdminChange::kMoveSpaces:
        for (const auto& move : change.move_spaces().moves()) {
            add(out.spaces, move.space());
            add(out.shards, move.target_shard());
        }
        break;
    case v1::AdminChange::kCreateShard: add(out.shards, change.create_shard().id()); break;
    case v1::AdminChange::kSetShardState: add(out.shards, change.set_shard_state().shard()); break;
    case v1::AdminChange::kPinSpace:
        add(out.spaces, change.pin_space().space());
        add(out.shards, change.pin_space().shard());
        break;
    case v1::AdminChange::kReassignSpace:
        add(out.spaces, change.reassign_space().space());
        add(out.shards, change.reassign_space().shard());
        break;
    default: break;
    }
}

ReportApproval reportApproval(const v1::ApprovalInfo& a)
{
    ReportApproval out { a.id(), a.summary(), a.needs_approval_because(), a.requested_by(), a.reason(),
        a.requested_unix_ms(), a.state(), a.decided_by(), a.decided_unix_ms(), a.decision_reason(), a.outcome(), {}, {},
        {}, {}, {} };
    std::tie(out.madeKind, out.madeId) = madeRecord(a);
    addNamed(out, a.change());
    return out;
}

bool contains(const std::vector<std::string>& list, const std::string& value)
{
    return std::find(list.begin(), list.end(), value) != list.end();
}

void attachApprovals(MigrationReport& report, const std::vector<ReportApproval>& approvals)
{
    std::map<std::pair<std::string, std::string>, const ReportApproval*> made;
    for (const ReportApproval& approval : approvals)
        if (!approval.madeId.empty())
            made[{ approval.madeKind, approval.madeId }] = &approval;
    const auto find = [&](const std::string& kind, const std::string& id) -> std::optional<ReportApproval> {
        const auto found = made.find({ kind, id });
        return found == made.end() ? std::nullopt : std::optional(*found->second);
    };
    for (ReportOperation& op : report.operations)
        op.approval = find("operation", op.record.id);
    // An operation's migrations were made by the change that queued the operation.
    for (ReportRow& row : report.rows) {
        row.approval = find("migration", row.record.id);
        if (!row.approval && !row.record.operation.empty())
            row.approval = find("operation", row.record.operation);
    }
}

// Chosen migrations and operations: what names them, their spaces or their operations' shards.
bool namesSomethingInScope(const ReportApproval& a, const MigrationReport& report)
{
    for (const ReportRow& row : report.rows)
        if (contains(a.migrations, row.record.id) || contains(a.spaces, row.record.space))
            return true;
    for (const ReportOperation& op : report.operations)
        if (contains(a.shards, op.record.subject) || contains(a.spaces, op.record.subject)
            || contains(a.shards, op.record.into))
            return true;
    return false;
}

bool isRefused(const ReportApproval& a)
{
    return a.state == "refused" || a.state == "expired";
}

// Not made and not refused: waiting for a second person, failed, or approved without an outcome.
bool isUnmade(const ReportApproval& a)
{
    return a.state == "pending" || a.state == "failed" || a.state == "applying" || a.state == "approved";
}

// A request of the report's time, or naming something in its scope; narrowed by its space and shard.
bool requestInScope(const ReportApproval& a, const MigrationReport& report)
{
    const ReportScope& scope = report.scope;
    if ((!scope.space.empty() && !contains(a.spaces, scope.space))
        || (!scope.shard.empty() && !contains(a.shards, scope.shard)))
        return false;
    const auto within = [&](std::int64_t since, std::int64_t until) {
        const auto in = [&](std::int64_t at) { return at > 0 && (!since || at >= since) && (!until || at < until); };
        return in(a.requestedUnixMs) || in(a.decidedUnixMs);
    };
    if (scope.migrations.empty() && scope.operation.empty())
        return within(scope.sinceUnixMs, scope.untilUnixMs);
    return (!report.rows.empty() && within(report.fromUnixMs, report.toUnixMs + 1)) || namesSomethingInScope(a, report);
}

json approvalJson(const ReportApproval& a)
{
    return { { "id", a.id }, { "summary", a.summary }, { "needs_approval_because", a.neededBecause },
        { "requested_by", a.requestedBy }, { "reason", a.reason }, { "requested_unix_ms", a.requestedUnixMs },
        { "state", a.state }, { "decided_by", a.decidedBy }, { "decided_unix_ms", a.decidedUnixMs },
        { "decision_reason", a.decisionReason }, { "outcome", a.outcome } };
}

json approvalJson(const std::optional<ReportApproval>& approval)
{
    return approval ? approvalJson(*approval) : json(nullptr);
}

} // namespace

std::vector<CopyInterval> copyIntervals(const std::vector<ProgressSample>& samples)
{
    std::vector<CopyInterval> intervals;
    for (std::size_t i = 1; i < samples.size(); ++i) {
        const ProgressSample& a = samples[i - 1];
        const ProgressSample& b = samples[i];
        if (b.unixMs <= a.unixMs || b.docsDone < a.docsDone)
            continue;
        const std::uint64_t docs = b.docsDone - a.docsDone;
        intervals.push_back(
            { a.unixMs, b.unixMs, docs, static_cast<double>(docs) * 1000 / static_cast<double>(b.unixMs - a.unixMs) });
    }
    return intervals;
}

namespace {

// The migrations the scope names (the operation's too, which joins the report), or every one
// when it names none; an operation that is not in the map is an error.
Result<std::vector<std::string>> reportMigrationIds(
    const MapSnapshot& map, const ReportScope& scope, MigrationReport& report)
{
    std::vector<std::string> ids = scope.migrations;
    if (!scope.operation.empty()) {
        const auto op = map.operations.find(scope.operation);
        if (op == map.operations.end())
            return makeError(ErrorCode::NotFound, "no operation " + scope.operation + " in the shard map");
        report.operations.push_back({ op->second.value, {}, {} });
        ids.insert(ids.end(), op->second.value.migrations.begin(), op->second.value.migrations.end());
    }
    if (ids.empty() && scope.migrations.empty() && scope.operation.empty()) {
        for (const auto& [id, migration] : map.migrations)
            ids.push_back(id);
    }
    return ids;
}

// A row for each migration in scope, oldest first, and the time the rows span.
Status addReportRows(const MapSnapshot& map, const std::map<std::string, MigrationHistory>& histories,
    const std::vector<std::string>& ids, std::int64_t now, MigrationReport& report)
{
    std::set<std::string> seen;
    for (const std::string& id : ids) {
        // A migration named twice (or also by the operation) is one row.
        if (!seen.insert(id).second)
            continue;
        const auto found = map.migrations.find(id);
        if (found == map.migrations.end())
            return makeError(ErrorCode::NotFound, "no migration " + id + " in the shard map");
        if (inScope(found->second.value, report.scope))
            report.rows.push_back(rowOf(found->second.value, histories, now));
    }
    std::stable_sort(report.rows.begin(), report.rows.end(), [](const ReportRow& a, const ReportRow& b) {
        return a.record.createdUnixMs != b.record.createdUnixMs ? a.record.createdUnixMs < b.record.createdUnixMs
                                                                : a.record.id < b.record.id;
    });
    for (const ReportRow& row : report.rows) {
        report.fromUnixMs
            = report.fromUnixMs ? std::min(report.fromUnixMs, row.record.createdUnixMs) : row.record.createdUnixMs;
        report.toUnixMs = std::max(report.toUnixMs, row.endedUnixMs ? row.endedUnixMs : now);
    }
    return {};
}

// The operations the rows belong to, whatever the scope (a time range over a drain shows it),
// each with its shards' loads.
void addRowOperations(const MapSnapshot& map, MigrationReport& report)
{
    for (const ReportRow& row : report.rows) {
        const std::string& id = row.record.operation;
        const auto op = map.operations.find(id);
        if (id.empty() || op == map.operations.end()
            || std::any_of(report.operations.begin(), report.operations.end(),
                [&](const ReportOperation& known) { return known.record.id == id; }))
            continue;
        report.operations.push_back({ op->second.value, {}, {} });
    }
    for (ReportOperation& op : report.operations)
        op.shards = shardLoads(op.record, report.rows);
}

// The requests in scope that were refused or not made, oldest first.
void addReportRequests(MigrationReport& report, const std::vector<ReportApproval>& approvals)
{
    for (const ReportApproval& approval : approvals) {
        if ((isRefused(approval) || isUnmade(approval)) && requestInScope(approval, report))
            (isRefused(approval) ? report.refusedRequests : report.unmadeRequests).push_back(approval);
    }
    const auto byTime
        = [](const ReportApproval& a, const ReportApproval& b) { return a.requestedUnixMs < b.requestedUnixMs; };
    std::stable_sort(report.refusedRequests.begin(), report.refusedRequests.end(), byTime);
    std::stable_sort(report.unmadeRequests.begin(), report.unmadeRequests.end(), byTime);
}

} // namespace

Result<MigrationReport> buildReport(const MapSnapshot& map, const std::map<std::string, MigrationHistory>& histories,
    const ReportScope& scope, std::int64_t now, const std::vector<ReportApproval>& approvals)
{
    if (!scope.state.empty() && !kStates.contains(scope.state))
        return makeError(ErrorCode::InvalidArgument,
            "unknown state \"" + scope.state + "\" (queued, running, done, failed or cancelled)");
    MigrationReport report;
    report.generatedUnixMs = now;
    report.mapRevision = map.revision;
    report.scope = scope;
    auto ids = reportMigrationIds(map, scope, report);
    if (!ids)
        return ids.error();
    if (auto status = addReportRows(map, histories, *ids, now, report); !status)
        return status.error();
    addRowOperations(map, report);
    summarize(report);
    attachApprovals(report, approvals);
    addReportRequests(report, approvals);
    return report;
}

Result<MigrationReport> readReport(
    MetadataStore& store, const ReportScope& scope, std::int64_t now, std::chrono::hours expireAfter)
{
    auto snapshot = store.snapshot();
    if (!snapshot)
        return snapshot.error();
    auto map = MapSnapshot::decode(*snapshot);
    if (!map)
        return map.error();
    std::map<std::string, MigrationHistory> histories;
    std::vector<ReportApproval> approvals;
    const std::int64_t expireMs = std::chrono::duration_cast<std::chrono::milliseconds>(expireAfter).count();
    for (const auto& [key, record] : snapshot->records) {
        if (key.starts_with(kApprovalsPrefix)) {
            auto approval = decodeApproval(record.value);
            if (!approval)
                return makeError(approval.error().code, approval.error().message, key);
            if (approval->state() == "pending" && now - approval->requested_unix_ms() > expireMs)
                approval->set_state("expired");
            approvals.push_back(reportApproval(*approval));
        }
        if (!key.starts_with(keys::kMigrationHistory))
            continue;
        auto history = decodeMigrationHistory(record.value);
        if (!history)
            return makeError(history.error().code, history.error().message, key);
        histories[history->migration] = std::move(*history);
    }
    return buildReport(*map, histories, scope, now, approvals);
}

std::vector<std::string> reportCsvColumns()
{
    return { "migration", "space", "requested_source", "requested_target", "outcome", "phase", "operation",
        "requested_by", "reason", "created_unix_ms", "started_unix_ms", "ended_unix_ms", "duration_ms", "write_hold_ms",
        "docs_done", "docs_total", "bytes_done", "bytes_total", "repairs", "repaired_docs", "cutover_aborts",
        "verified_equal", "error", "approved_by", "approval_id", "copy_ms", "window_ms" };
}

std::string reportCsv(const MigrationReport& report)
{
    std::string out;
    const auto line = [&](const std::vector<std::string>& fields) {
        for (std::size_t i = 0; i < fields.size(); ++i)
            out += (i ? "," : "") + csvField(fields[i]);
        out += "\r\n";
    };
    line(reportCsvColumns());
    const auto number = [](auto value) { return std::to_string(value); };
    for (const ReportRow& row : report.rows) {
        const MigrationRecord& m = row.record;
        const bool verified = row.history && row.history->verification && row.writeHoldMs >= 0;
        char hold[32] = "";
        if (row.writeHoldMs >= 0)
            std::snprintf(hold, sizeof hold, "%.3f", row.writeHoldMs);
        line({ m.id, m.space, row.requestedSource, row.requestedTarget, row.outcome, migrationPhaseName(m.phase),
            m.operation, m.requestedBy, m.reason, number(m.createdUnixMs), number(row.startedUnixMs),
            number(row.endedUnixMs), number(row.durationMs), hold, number(m.progress.docsDone),
            number(m.progress.docsTotal), number(m.progress.bytesDone), number(m.progress.bytesTotal),
            number(m.repairs), number(m.repairedDocs), number(row.cutoverAborts),
            verified ? (row.history->verification->equal ? "true" : "false") : "", m.error,
            row.approval ? row.approval->decidedBy : "", row.approval ? row.approval->id : "", number(row.copyMs),
            number(row.windowMs) });
    }
    return out;
}

namespace {

json reportRowJson(const ReportRow& row)
{
    const MigrationRecord& m = row.record;
    return { { "migration", m.id }, { "space", m.space }, { "requested_source", row.requestedSource },
        { "requested_target", row.requestedTarget }, { "outcome", row.outcome },
        { "phase", migrationPhaseName(m.phase) }, { "operation", m.operation }, { "requested_by", m.requestedBy },
        { "reason", m.reason }, { "created_unix_ms", m.createdUnixMs }, { "started_unix_ms", row.startedUnixMs },
        { "ended_unix_ms", row.endedUnixMs }, { "duration_ms", row.durationMs }, { "copy_ms", row.copyMs },
        { "window_ms", row.windowMs },
        { "write_hold_ms", row.writeHoldMs >= 0 ? json(row.writeHoldMs) : json(nullptr) },
        { "docs_done", m.progress.docsDone }, { "docs_total", m.progress.docsTotal },
        { "bytes_done", m.progress.bytesDone }, { "bytes_total", m.progress.bytesTotal }, { "repairs", m.repairs },
        { "repaired_docs", m.repairedDocs }, { "cutover_aborts", row.cutoverAborts }, { "error", m.error },
        { "history", historyJson(row.history) }, { "approval", approvalJson(row.approval) } };
}

// The operation record as stored, with its shards' loads and its approval.
json reportOperationJson(const ReportOperation& op)
{
    json record = json::parse(encode(op.record));
    json shards = json::array();
    for (const ReportShardLoad& load : op.shards)
        shards.push_back({ { "shard", load.shard }, { "measured", load.measured }, { "docs_before", load.docsBefore },
            { "bytes_before", load.bytesBefore }, { "spaces_before", load.spacesBefore },
            { "docs_after", load.docsAfter }, { "bytes_after", load.bytesAfter },
            { "spaces_after", load.spacesAfter } });
    record["shards"] = shards;
    record["approval"] = approvalJson(op.approval);
    return record;
}

json reportScopeJson(const ReportScope& scope)
{
    return { { "migrations", scope.migrations }, { "operation", scope.operation },
        { "since_unix_ms", scope.sinceUnixMs }, { "until_unix_ms", scope.untilUnixMs }, { "space", scope.space },
        { "shard", scope.shard }, { "state", scope.state } };
}

json reportSummaryJson(const MigrationReport& report)
{
    const ReportSummary& s = report.summary;
    return { { "migrations", report.rows.size() }, { "by_outcome", s.byOutcome }, { "docs_moved", s.docsMoved },
        { "bytes_moved", s.bytesMoved }, { "total_duration_ms", s.totalDurationMs },
        { "longest_duration_ms", s.longestDurationMs }, { "longest_migration", s.longestMigration },
        { "total_copy_ms", s.totalCopyMs }, { "longest_copy_ms", s.longestCopyMs },
        { "longest_copy_migration", s.longestCopyMigration }, { "longest_window_ms", s.longestWindowMs },
        { "longest_write_hold_ms", s.longestWriteHoldMs >= 0 ? json(s.longestWriteHoldMs) : json(nullptr) },
        { "longest_hold_migration", s.longestHoldMigration }, { "verified_equal", s.verifiedEqual },
        { "verified_apart", s.verifiedApart }, { "repaired_docs", s.repairedDocs },
        { "cutover_aborts", s.cutoverAborts } };
}

} // namespace

std::string reportJson(const MigrationReport& report)
{
    json rows = json::array();
    for (const ReportRow& row : report.rows)
        rows.push_back(reportRowJson(row));
    json operations = json::array();
    for (const ReportOperation& op : report.operations)
        operations.push_back(reportOperationJson(op));
    json refused = json::array();
    for (const ReportApproval& approval : report.refusedRequests)
        refused.push_back(approvalJson(approval));
    json unmade = json::array();
    for (const ReportApproval& approval : report.unmadeRequests)
        unmade.push_back(approvalJson(approval));
    const json document = { { "schema", "shardmap.migration-report" }, { "version", MigrationReport::kVersion },
        { "generated_unix_ms", report.generatedUnixMs }, { "map_revision", report.mapRevision },
        { "scope", reportScopeJson(report.scope) }, { "from_unix_ms", report.fromUnixMs },
        { "to_unix_ms", report.toUnixMs }, { "summary", reportSummaryJson(report) }, { "operations", operations },
        { "migrations", rows }, { "refused_requests", refused }, { "requests_not_made", unmade } };
    return document.dump(2);
}

Status writeReportFile(const MigrationReport& report, const std::string& format, const std::string& path)
{
    if (format != "csv" && format != "json")
        return makeError(ErrorCode::InvalidArgument, "unknown report format \"" + format + "\" (csv or json)");
    const std::string text = format == "csv" ? reportCsv(report) : reportJson(report) + "\n";
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    if (!file)
        return makeError(ErrorCode::InvalidArgument, "cannot write " + path + ": " + std::strerror(errno));
    file << text;
    file.close();
    if (!file)
        return makeError(ErrorCode::Internal, "writing the report to " + path + " failed (disk full?)");
    return {};
}

} // namespace shardmap::core
