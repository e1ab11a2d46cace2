// OperationFinisher's implementation: an operation's outcome from its migrations' phases, the
// shards and node it retires, and the fenced commit that ends it.
#include "core/migration/operation_finisher.h"

#include "core/map/copy_placement.h"
#include "core/migration/fleet_facts.h"

namespace shardmap::core {

OperationFinisher::OperationFinisher(MetadataStore& store, Options options)
    : m_store(store)
    , m_options(std::move(options))
{
}

bool OperationFinisher::needsFinishing(const OperationRecord& op, std::uint64_t modRevision)
{
    if (op.state == OperationState::Running)
        return true;
    if (op.state != OperationState::Queuing)
        return false;
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(m_mutex);
    auto [seen, fresh] = m_queuingSeen.try_emplace(op.id, modRevision, now);
    if (!fresh && seen->second.first != modRevision)
        seen->second = { modRevision, now };
    // Measured by this process's clock: the writer's may differ.
    return now - seen->second.second > m_options.abandonedQueuing;
}

namespace {

// The operation's migrations that ended without their move (missing, failed or cancelled);
// nullopt while one still runs.
std::optional<std::vector<std::string>> migrationsNotDone(const MapSnapshot& map, const OperationRecord& op)
{
    std::vector<std::string> failed;
    for (const auto& migrationId : op.migrations) {
        const auto found = map.migrations.find(migrationId);
        if (found == map.migrations.end() || found->second.value.phase == MigrationPhase::Failed
            || found->second.value.phase == MigrationPhase::Cancelled)
            failed.push_back(migrationId);
        else if (found->second.value.phase != MigrationPhase::Done)
            return std::nullopt;
    }
    return failed;
}

// The error of an operation whose writer stopped queuing its moves: how many were queued and
// ran, and the error it had.
std::string interruptedQueuingError(const OperationRecord& op, std::size_t failed)
{
    const std::string& earlier = op.error;
    return "interrupted while queuing: " + std::to_string(op.migrations.size()) + " of "
        + std::to_string(op.plannedMoves) + " moves were queued"
        + (failed == 0 ? " (and ran)" : " (" + std::to_string(failed) + " of them did not finish)")
        + "; plan again for the rest" + (earlier.empty() ? "" : "; " + earlier);
}

// The shard retired, once the operation emptied it; one that still holds spaces stays, and the
// operation says so.
void retireEmptiedShard(
    const MapSnapshot& map, const std::string& shardId, OperationRecord& op, std::vector<Mutation>& retirements)
{
    const auto shard = map.shards.find(shardId);
    if (shard == map.shards.end() || shard->second.value.state == ShardState::Retired)
        return;
    if (!map.spacesOn(shardId).empty()) {
        op.error = "shard " + shardId + " still has spaces; not retired";
        return;
    }
    ShardRecord retired = shard->second.value;
    retired.state = ShardState::Retired;
    retirements.push_back({ keys::shard(shardId), encode(retired), shard->second.modRevision });
}

// What a done operation retires: a merge its emptied shard, a retire-node the node's shards and
// then, when they all could be, the node.
std::vector<Mutation> retirementsOf(const MapSnapshot& map, OperationRecord& op)
{
    std::vector<Mutation> retirements;
    if (op.kind == OperationKind::Merge)
        retireEmptiedShard(map, op.subject, op, retirements);
    for (const std::string& source : reindexShardsOf(op.kind == OperationKind::Reindex ? op.subject : std::string()))
        retireEmptiedShard(map, source, op, retirements);
    if (op.kind == OperationKind::RetireNode) {
        for (const auto* shard : map.shardsOn(op.subject))
            retireEmptiedShard(map, shard->id, op, retirements);
        const auto node = map.nodes.find(op.subject);
        if (node != map.nodes.end() && op.error.empty()) {
            NodeRecord retired = node->second.value;
            retired.retired = true;
            retirements.push_back({ keys::node(op.subject), encode(retired), node->second.modRevision });
        }
    }
    return retirements;
}

} // namespace

std::optional<OperationFinisher::Outcome> OperationFinisher::outcome(
    const MapSnapshot& map, OperationRecord op, std::int64_t nowUnixMs)
{
    const auto failed = migrationsNotDone(map, op);
    if (!failed)
        return std::nullopt; // still running
    // A retire-node whose moves are done waits for the replicas on its node to be made again
    // elsewhere and dropped (the executor's re-replication, FailoverWatch).
    if (op.kind == OperationKind::RetireNode && failed->empty() && op.plannedMoves <= op.migrations.size()
        && !replicasToMoveOff(map, op.subject).empty())
        return std::nullopt;
    Outcome out;
    op.finishedUnixMs = nowUnixMs;
    if (op.plannedMoves > op.migrations.size()) {
        // Its writer died between chunks: the moves never queued are not made, and a shard that
        // still holds spaces must not be retired.
        op.state = OperationState::Failed;
        op.error = interruptedQueuingError(op, failed->size());
    } else if (!failed->empty()) {
        op.state = OperationState::Failed;
        std::string list;
        for (const auto& f : *failed)
            list += (list.empty() ? "" : ", ") + f;
        op.error = "migrations not done: " + list;
    } else {
        op.state = OperationState::Done;
        out.retirements = retirementsOf(map, op);
    }
    out.operation = std::move(op);
    return out;
}

Status OperationFinisher::finishAll()
{
    // Checked before reading, and every commit below is fenced by the lease.
    if (auto leased = m_options.fence(); !leased)
        return leased.error();
    auto listed = m_store.list(std::string(keys::kOperations));
    if (!listed)
        return listed.error();
    bool anyRunning = false;
    for (const auto& [key, record] : listed->records) {
        auto op = decodeOperation(record.value);
        if (op && needsFinishing(*op, record.modRevision))
            anyRunning = true;
    }
    if (!anyRunning)
        return {};
    auto map = readMapSnapshot(m_store);
    if (!map)
        return map.error();
    const auto now = nowUnixMs();
    for (const auto& [id, versioned] : map->operations) {
        if (!needsFinishing(versioned.value, versioned.modRevision))
            continue;
        auto finished = outcome(*map, versioned.value, now);
        if (!finished)
            continue;
        auto leased = m_options.fence();
        if (!leased)
            return leased.error();
        const auto& op = finished->operation;
        CommitRequest request;
        request.fence = *leased;
        request.actor = m_options.actor;
        request.action = std::string(operationKindName(op.kind)) + "-finished";
        request.reason = "operation " + op.id;
        request.mutations = std::move(finished->retirements);
        request.mutations.push_back({ keys::operation(op.id), encode(op), versioned.modRevision });
        if (auto committed = m_store.commit(request); !committed && committed.error().code != ErrorCode::Conflict)
            return committed.error();
        if (m_options.log)
            m_options.log(LogLevel::Info,
                "operation " + op.id + " (" + operationKindName(op.kind) + "): " + operationStateName(op.state)
                    + (op.error.empty() ? "" : ": " + op.error));
    }
    return {};
}

} // namespace shardmap::core
