// The router's writes a migration's target and the catching-up copies of a shard get: the ones
// whose failure never fails the application's write.
#include "core/router/router.h"
#include "core/util/failpoint.h"

namespace shardmap::core {

std::vector<std::pair<RouteCopy, Error>> Router::writeBestEffort(
    const std::string& shard, const std::vector<RouteCopy>& copies, const std::vector<WriteItem>& items)
{
    if (copies.empty() || items.empty())
        return {};
    struct Pending {
        std::mutex mutex;
        std::condition_variable done;
        std::size_t left = 0;
        std::vector<std::pair<RouteCopy, Error>> failed;
    };
    auto pending = std::make_shared<Pending>();
    pending->left = copies.size();
    auto shared = std::make_shared<const std::vector<WriteItem>>(items);
    for (const auto& copy : copies) {
        m_copyWriters->post([this, pending, shared, copy, shard] {
            // Fault tests lose a catching-up copy's write here, as when it times out.
            auto point = failpoint("router.catching_up_write");
            auto written = point ? writeCopy(copy.address, shard, *shared, false) : Result<WriteSummary>(point.error());
            if (!written)
                reportCopyFailure({ shard, copy.node, false, written.error() }, "best_effort");
            std::lock_guard lock(pending->mutex);
            if (!written)
                pending->failed.emplace_back(copy, written.error());
            if (--pending->left == 0)
                pending->done.notify_all();
        });
    }
    std::unique_lock lock(pending->mutex);
    pending->done.wait(lock, [&] { return pending->left == 0; });
    return std::move(pending->failed);
}

// The target's primary is written best effort: the source is authoritative until the cutover, and
// the migration's verify and its compare with the source's writes held repair what it misses. So
// the write is not waited for: it goes out on a target writer, after the source applied it (only
// what the source applied reaches the target, issue 14), while the caller is answered; a write to
// the source no longer costs a second commit in a row, behind the target's backfill. The cutover
// compares with the source's writes held until the target holds them, those in flight included.
// Its in-sync replicas follow the source's copies' rule: each applies the write or is marked
// catching up (leaving the migration: its catch-up brings it in sync) before the write is
// acknowledged, so that a copy the router will search after the cutover never silently missed
// one. Catching-up replicas: best effort, with the primary.
Status Router::writeTarget(const Route& route, std::vector<WriteItem> items)
{
    for (auto& item : items)
        item.epoch = route.epoch;
    auto shared = std::make_shared<const std::vector<WriteItem>>(std::move(items));
    const RouteCopies& copies = route.targetCopies;
    auto round = copies.inSync.empty() ? nullptr : replicateAll(copies, route.targetShard, shared);
    postTargetWrite(route, shared);
    // The target's primary counts as applied either way: the migration repairs it.
    return round ? awaitQuorum(*round, copies, route.quorum, route.targetShard) : Status {};
}

// Each target node has a lane: its writes queue there, at most targetWritersPerNode of them run at
// once on the shared target writers, and at most maxTargetWritesInFlight are out (queued or
// running) before a writer to that node waits its turn. A target that stopped answering so holds
// back only the writers of spaces moving onto it, and only some of the threads, while writes to
// other targets go on (each of its calls waits out the node client's deadline).
void Router::postTargetWrite(const Route& route, std::shared_ptr<const std::vector<WriteItem>> items)
{
    auto task = [this, space = route.space, shard = route.targetShard, address = route.targetAddress,
                    catchingUp = route.targetCopies.catchingUp, items] {
        if (m_targetsClosing.load())
            return;
        auto client = m_nodes.get(address);
        auto written = client ? (*client)->bulkWrite(shard, *items) : Result<WriteSummary>(client.error());
        if (!written && m_options.onTargetFailure)
            m_options.onTargetFailure({ space, shard, written.error() });
        // Not noted: a target's copy is verified only once no space of its shard migrates (CatchUpPhases).
        (void)writeBestEffort(shard, catchingUp, *items);
    };
    const std::string& address = route.targetAddress;
    std::unique_lock lock(m_targetMutex);
    TargetLane& lane = m_targetLanes[address];
    m_targetSlot.wait(
        lock, [&] { return lane.inFlight < std::max<std::size_t>(1, m_options.maxTargetWritesInFlight); });
    ++lane.inFlight;
    ++m_targetsInFlight;
    lane.tasks.push_back(std::move(task));
    if (lane.running >= std::max<std::size_t>(1, m_options.targetWritersPerNode))
        return; // a running drain takes it
    ++lane.running;
    lock.unlock();
    m_targetWriters->post([this, address] { drainTargetLane(address); });
}

void Router::drainTargetLane(const std::string& address)
{
    for (;;) {
        std::function<void()> task;
        {
            std::lock_guard lock(m_targetMutex);
            TargetLane& lane = m_targetLanes[address];
            if (lane.tasks.empty()) {
                --lane.running;
                return;
            }
            task = std::move(lane.tasks.front());
            lane.tasks.pop_front();
        }
        task();
        {
            std::lock_guard lock(m_targetMutex);
            --m_targetLanes[address].inFlight;
            --m_targetsInFlight;
        }
        m_targetSlot.notify_all();
    }
}

void Router::awaitTargetWrites()
{
    std::unique_lock lock(m_targetMutex);
    m_targetSlot.wait(lock, [&] { return m_targetsInFlight == 0; });
}

} // namespace shardmap::core
