// The Admin API's changes dispatched through their kinds (change_kinds.h): a change's name,
// preparation, least role and making are each its kind's entry; what is said about any change
// (why a role, why an approval) is written here once.
#include "core/admin/admin_changes.h"

#include "core/admin/change_kinds.h"
#include "core/plan/move_rules.h"
#include "core/util/units.h"

namespace shardmap::core {

namespace {

Error noChangeNamed()
{
    return makeError(ErrorCode::InvalidArgument, "the request names no change");
}

} // namespace

bool movesSpaces(const PreparedChange& prepared)
{
    return prepared.size.spaces > 0 || prepared.size.bytes > 0;
}

std::string changeKind(const v1::AdminChange& change)
{
    const ChangeKind* kind = findChangeKind(change);
    if (!kind)
        return "none";
    return kind->nameOf ? kind->nameOf(change) : std::string(kind->name);
}

std::vector<std::string> raisedLimits(const MigrationSettings& before, const MigrationSettings& after)
{
    std::vector<std::string> raised;
    auto limit = [&](const char* name, std::uint64_t was, std::uint64_t now, bool zeroUnlimited) {
        const bool up = zeroUnlimited ? (was != 0 && (now == 0 || now > was)) : now > was;
        if (up) {
            auto text = [&](std::uint64_t v) {
                return zeroUnlimited && v == 0 ? std::string("unlimited") : std::to_string(v);
            };
            raised.push_back(std::string(name) + " " + text(was) + " -> " + text(now));
        }
    };
    limit("max_concurrent", before.maxConcurrent, after.maxConcurrent, true);
    limit("max_per_node", before.maxPerNode, after.maxPerNode, true);
    limit("max_per_shard", before.maxPerShard, after.maxPerShard, true);
    limit("default_throttle", before.defaultThrottleDocsPerSecond, after.defaultThrottleDocsPerSecond, true);
    limit("cleanup_rows_per_second", before.cleanupRowsPerSecond, after.cleanupRowsPerSecond, true);
    limit("backfill_batch", before.backfillBatch, after.backfillBatch, false);
    limit("max_repairs", before.maxRepairs, after.maxRepairs, false);
    limit("max_re_replications", before.maxReReplications, after.maxReReplications, true);
    if (after.maxTargetFill > before.maxTargetFill)
        raised.push_back("max_target_fill " + std::to_string(before.maxTargetFill).substr(0, 4) + " -> "
            + std::to_string(after.maxTargetFill).substr(0, 4));
    return raised;
}

Result<PreparedChange> prepareChange(FleetAdmin& admin, const v1::AdminChange& change)
{
    const ChangeKind* kind = findChangeKind(change);
    if (!kind)
        return noChangeNamed();
    PreparedChange prepared;
    prepared.change = change;
    if (kind->prepare)
        return kind->prepare(admin, std::move(prepared));
    prepared.summary = kind->summary(change);
    return prepared;
}

Role requiredRole(const PreparedChange& prepared, const OperatorLimits& limits)
{
    const ChangeKind* kind = findChangeKind(prepared.change);
    return kind ? kind->role(prepared, limits) : Role::Admin;
}

std::string whyRole(const PreparedChange& prepared, const OperatorLimits& limits)
{
    const std::string kind = changeKind(prepared.change);
    if (requiredRole(prepared, limits) != Role::Admin)
        return kind + " needs the operator role";
    if (prepared.size.retiresNode)
        return "retiring a node needs the admin role";
    if (!prepared.size.adminEffects.empty()) {
        std::string effects;
        for (const std::string& effect : prepared.size.adminEffects)
            effects += (effects.empty() ? "" : "; ") + effect;
        return effects;
    }
    if (movesSpaces(prepared)) {
        if (overLimit(prepared.size.spaces, limits.maxSpaces))
            return "it moves " + std::to_string(prepared.size.spaces) + " spaces; an operator may move "
                + std::to_string(limits.maxSpaces) + " at once, more needs the admin role";
        return "it moves " + formatBytes(prepared.size.bytes) + "; an operator may move " + formatBytes(limits.maxBytes)
            + " at once, more needs the admin role";
    }
    return kind + " needs the admin role";
}

std::string approvalNeed(const PreparedChange& prepared, const ApprovalThresholds& thresholds)
{
    if (!prepared.size.loosenedAccess.empty()) {
        std::string loosened;
        for (const std::string& entry : prepared.size.loosenedAccess)
            loosened += (loosened.empty() ? "" : ", ") + entry;
        return "it loosens the access policy (" + loosened + ")";
    }
    if (prepared.size.retiresNode && thresholds.retireNode)
        return "it retires a node";
    if (prepared.size.replacesData && thresholds.restore)
        return "it replaces live documents with a snapshot's";
    if (overLimit(prepared.size.spaces, thresholds.maxSpaces))
        return "it moves " + std::to_string(prepared.size.spaces) + " spaces; more than "
            + std::to_string(thresholds.maxSpaces) + " need a second person's approval";
    if (overLimit(prepared.size.bytes, thresholds.maxBytes))
        return "it moves " + formatBytes(prepared.size.bytes) + "; more than " + formatBytes(thresholds.maxBytes)
            + " needs a second person's approval";
    if (thresholds.raiseLimits && !prepared.size.raisedLimits.empty()) {
        std::string raised;
        for (const std::string& limit : prepared.size.raisedLimits)
            raised += (raised.empty() ? "" : ", ") + limit;
        return "it raises limits (" + raised + ")";
    }
    return {};
}

std::string describeOutcome(const v1::ChangeResponse& response)
{
    const std::string at = "revision " + std::to_string(response.revision());
    std::string id;
    if (response.record_kind() == "operation") {
        if (auto operation = decodeOperation(response.record_json()))
            id = operation->id;
    } else if (response.record_kind() == "migration") {
        if (auto migration = decodeMigration(response.record_json()))
            id = migration->id;
    }
    if (id.empty())
        return response.record_kind().empty() ? at : response.record_kind() + " at " + at;
    return response.record_kind() + " " + id + " at " + at;
}

Result<v1::ChangeResponse> applyChange(FleetAdmin& admin, const v1::AdminChange& change, const Actor& actor)
{
    const ChangeKind* kind = findChangeKind(change);
    if (!kind)
        return noChangeNamed();
    return kind->apply(admin, change, actor);
}

} // namespace shardmap::core
