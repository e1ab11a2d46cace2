// The core router against real shardmap-node processes and a real SQLite shard map.
#include "core/client/node_client.h"
#include "core/map/map_editor.h"
#include "core/router/router.h"
#include "node_test_helpers.h"

#include <atomic>
#include <condition_variable>
#include <future>

using namespace shardmap;
using namespace shardmap::testing;
using core::Document;

namespace {

// Wraps the real node clients to refuse the first N writes to one shard the way a node that
// lost track of an epoch would: the fault the router must ride out.
// Holds every BulkWrite of one space to one shard until released: a node that has not answered yet.
class WriteGate {
public:
    void hold(const std::string& shard, const std::string& space)
    {
        std::lock_guard lock(m_mutex);
        m_held = shard;
        m_space = space;
    }
    void release()
    {
        {
            std::lock_guard lock(m_mutex);
            m_held.clear();
        }
        m_opened.notify_all();
    }
    void passThrough(const std::string& shard, const std::vector<core::WriteItem>& items)
    {
        std::unique_lock lock(m_mutex);
        m_opened.wait(lock,
            [&] { return m_held.empty() || m_held != shard || items.empty() || items.front().doc.space != m_space; });
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_opened;
    std::string m_held;
    std::string m_space;
};

class RefusingClient final : public core::NodeClient {
public:
    RefusingClient(std::shared_ptr<core::NodeClient> real, std::atomic<int>& refusals, WriteGate& gate)
        : m_real(std::move(real))
        , m_refusals(refusals)
        , m_gate(gate)
    {
    }
    const std::string& address() const override { return m_real->address(); }
    core::Result<core::ShardSummary> createShard(const std::string& s, const std::vector<std::string>& f,
        std::optional<core::IndexEngine> e, const std::optional<core::IndexSettings>& i) override
    {
        return m_real->createShard(s, f, e, i);
    }
    core::Status dropShard(const std::string& s) override { return m_real->dropShard(s); }
    core::Result<std::vector<core::ShardSummary>> listShards() override { return m_real->listShards(); }
    core::Result<core::Ownership> setOwnership(const std::string& s, const core::Ownership& o) override
    {
        return m_real->setOwnership(s, o);
    }
    core::Result<std::vector<core::Ownership>> ownerships(const std::string& s, const std::string& sp) override
    {
        return m_real->ownerships(s, sp);
    }
    core::Result<core::WriteSummary> bulkWrite(const std::string& s, const std::vector<core::WriteItem>& items) override
    {
        m_gate.passThrough(s, items);
        if (m_refusals.fetch_sub(1) > 0) {
            core::Error error = core::makeError(core::ErrorCode::FailedPrecondition, "injected stale epoch");
            error.details = { { "shard", s }, { "space", items.front().doc.space },
                { "held_epoch", std::to_string(items.front().epoch + 1) }, { "held_role", "1" },
                { "sent_epoch", std::to_string(items.front().epoch) } };
            return error;
        }
        return m_real->bulkWrite(s, items);
    }
    core::Result<core::WriteSummary> repairWrite(
        const std::string& s, const std::vector<core::WriteItem>& items) override
    {
        return m_real->repairWrite(s, items);
    }
    core::Result<core::WriteSummary> backfillWrite(
        const std::string& s, const std::vector<core::WriteItem>& items) override
    {
        return m_real->backfillWrite(s, items);
    }
    core::Result<core::SearchResult> search(const std::string& s, const core::ShardSearchRequest& r) override
    {
        return m_real->search(s, r);
    }
    core::Result<std::vector<core::SpaceStats>> spaceStats(
        const std::string& s, const std::vector<std::string>& sp) override
    {
        return m_real->spaceStats(s, sp);
    }
    core::Result<std::vector<core::FieldUse>> fieldUsage(
        const std::string& s, const std::vector<std::string>& f) override
    {
        return m_real->fieldUsage(s, f);
    }
    core::Result<core::NodeMetricsValue> metrics(bool spaces) override { return m_real->metrics(spaces); }
    core::Result<core::MetricsHistoryValue> metricsHistory(std::int64_t since) override
    {
        return m_real->metricsHistory(since);
    }
    std::unique_ptr<core::MetricsSubscription> watchMetrics(std::chrono::milliseconds interval, bool spaces,
        core::MetricsCallback onSample, core::MetricsEndCallback onEnd) override
    {
        return m_real->watchMetrics(interval, spaces, std::move(onSample), std::move(onEnd));
    }
    core::Result<core::ScanPage> scanPage(const std::string& s, const std::string& sp, const std::string& after,
        std::uint32_t batch, bool tombstones) override
    {
        return m_real->scanPage(s, sp, after, batch, tombstones);
    }
    core::Result<core::DropProgress> dropSpace(const std::string& s, const std::string& sp, std::uint64_t epoch,
        std::uint32_t rate, std::uint64_t rows) override
    {
        return m_real->dropSpace(s, sp, epoch, rate, rows);
    }

private:
    std::shared_ptr<core::NodeClient> m_real;
    std::atomic<int>& m_refusals;
    WriteGate& m_gate;
};

class RefusingPool final : public core::NodeClientPool {
public:
    core::Result<std::shared_ptr<core::NodeClient>> get(const std::string& address) override
    {
        auto real = core::NodeClientPool::get(address);
        if (!real)
            return real;
        return std::shared_ptr<core::NodeClient>(std::make_shared<RefusingClient>(*real, refusals, gate));
    }
    std::atomic<int> refusals { 0 };
    WriteGate gate;
};

Document doc(const std::string& space, const std::string& id, const std::string& body, std::uint64_t version = 1)
{
    return Document { space, id, version, { { "title", id }, { "body", body } }, false };
}

class RouterTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        for (int i = 0; i < 2; ++i) {
            m_nodes.push_back(NodeProcess::start(m_dir.file("node" + std::to_string(i))));
            ASSERT_TRUE(m_nodes.back());
        }
        auto store = core::openStore("sqlite:" + m_dir.file("map.db"), true);
        ASSERT_TRUE(store) << store.error().describe();
        m_store = std::move(*store);
        core::MapEditor editor(*m_store);
        for (int i = 0; i < 2; ++i) {
            const std::string n = "n" + std::to_string(i);
            const std::string s = "s" + std::to_string(i);
            ASSERT_TRUE(editor.addNode({ n, m_nodes[static_cast<std::size_t>(i)]->address(), {} }, m_actor));
            auto client = m_pool.get(m_nodes[static_cast<std::size_t>(i)]->address());
            ASSERT_TRUE(client);
            auto created = (*client)->createShard(s, {});
            ASSERT_TRUE(created) << created.error().describe();
            auto added = editor.addShard({ s, n, core::ShardState::Active, 0, 0 }, m_actor);
            ASSERT_TRUE(added) << core::errorCodeName(added.error().code) << ": " << added.error().describe();
        }
    }

    // acme moved behind a router that does not follow the map: written once, reassigned to the
    // other shard at the next epoch and its document written there; the old shard's node is
    // returned, for the test to fence or drop it.
    struct MovedBehind {
        std::unique_ptr<core::Router> router;
        core::Route before;
        std::string other;
        std::shared_ptr<core::NodeClient> oldOwner;
        std::uint64_t epoch = 0;
    };
    MovedBehind moveBehindAStaleRouter()
    {
        core::RouterOptions options;
        options.followChanges = false;
        MovedBehind out;
        out.router = startRouter(options);
        EXPECT_TRUE(out.router->write({ doc("acme", "d1", "kept words") }));
        out.before = *out.router->resolve("acme");
        out.other = out.before.shard == "s0" ? "s1" : "s0";
        auto newOwner = m_pool.get(m_nodes[out.other == "s0" ? 0 : 1]->address());
        out.oldOwner = *m_pool.get(out.before.nodeAddress);
        core::MapEditor editor(*m_store);
        auto moved = editor.reassignSpace("acme", out.other, m_actor);
        EXPECT_TRUE(moved) << moved.error().describe();
        out.epoch = moved ? moved->epoch : 0;
        EXPECT_TRUE((*newOwner)->setOwnership(out.other, { "acme", core::SpaceRole::Owner, out.epoch }));
        EXPECT_TRUE((*newOwner)->bulkWrite(out.other, { { doc("acme", "d1", "kept words"), out.epoch } }));
        return out;
    }

    std::unique_ptr<core::Router> startRouter(core::RouterOptions options = {})
    {
        auto router = core::Router::start(*m_store, m_pool, std::move(options));
        EXPECT_TRUE(router) << router.error().describe();
        return router ? std::move(*router) : nullptr;
    }

    // A router over pool (whose gate can hold a target's writes) with one target write out per node.
    std::unique_ptr<core::Router> startGatedRouter(RefusingPool& pool)
    {
        core::RouterOptions options;
        options.maxTargetWritesInFlight = 1;
        auto router = core::Router::start(*m_store, pool, std::move(options));
        EXPECT_TRUE(router) << router.error().describe();
        return router ? std::move(*router) : nullptr;
    }

    // Marks a space as migrating to target in the map, and the target as its migration target.
    void startMigration(core::Router& router, const std::string& target, const std::string& space = "acme")
    {
        core::MapEditor editor(*m_store);
        auto map = editor.snapshot();
        core::SpaceRecord record = *map->space(space);
        record.migrationId = "m-1";
        record.target = target;
        record.phase = core::MigrationPhase::DualWrite;
        ASSERT_TRUE(
            m_store->commit({ { { core::keys::space(space), core::encode(record), map->spaces.at(space).modRevision } },
                std::nullopt, std::nullopt, "test", "start-migration", "" }));
        auto targetClient = m_pool.get(m_nodes[target == "s0" ? 0 : 1]->address());
        ASSERT_TRUE((*targetClient)->setOwnership(target, { space, core::SpaceRole::MigrationTarget, record.epoch }));
        ASSERT_TRUE(router.waitForRevision(*m_store->currentRevision(), std::chrono::seconds(2)));
        ASSERT_TRUE(router.resolve(space)->migrating());
    }

    core::Result<core::SpaceStats> stats(const std::string& shard, const std::string& space)
    {
        const std::size_t index = shard == "s0" ? 0 : 1;
        auto client = m_pool.get(m_nodes[index]->address());
        auto all = (*client)->spaceStats(shard, { space });
        if (!all)
            return all.error();
        return all->front();
    }

    TempDir m_dir;
    std::vector<std::unique_ptr<NodeProcess>> m_nodes;
    std::unique_ptr<core::MetadataStore> m_store;
    core::NodeClientPool m_pool;
    core::Actor m_actor { "test", "router test" };
};

} // namespace

TEST_F(RouterTest, FirstWriteCreatesTheSpaceOwnsItOnTheNodeAndSearchFindsIt)
{
    auto router = startRouter();
    auto written = router->write({ doc("acme", "d1", "hello shard map"), doc("acme", "d2", "hello again") });
    ASSERT_TRUE(written) << written.error().describe();
    EXPECT_EQ(written->applied, 2u);
    EXPECT_EQ(written->createdSpaces, std::vector<std::string> { "acme" });
    const auto route = router->resolve("acme");
    ASSERT_TRUE(route);
    EXPECT_EQ(route->epoch, 1u);
    auto owner = m_pool.get(route->nodeAddress);
    auto held = (*owner)->ownerships(route->shard, "acme");
    ASSERT_TRUE(held && held->size() == 1);
    EXPECT_EQ(held->front().role, core::SpaceRole::Owner);
    auto found = router->search({ { "acme" }, "hello", 10, 0, true });
    ASSERT_TRUE(found) << found.error().describe();
    EXPECT_EQ(found->hits.size(), 2u);
    auto history = m_store->history(0, 0, 0);
    ASSERT_TRUE(history);
    EXPECT_EQ(history->back().action, "create-space");
}

TEST_F(RouterTest, LoadAwareAllocationFillsTheEmptierShard)
{
    auto router = startRouter();
    std::vector<Document> big;
    for (int i = 0; i < 300; ++i)
        big.push_back(doc("big", "d" + std::to_string(i), "bulk"));
    ASSERT_TRUE(router->write(big));
    const std::string bigShard = router->resolve("big")->shard;
    auto next = router->write({ doc("small", "d", "x") });
    ASSERT_TRUE(next);
    EXPECT_NE(router->resolve("small")->shard, bigShard) << "the empty shard scores lowest";
}

TEST_F(RouterTest, AStaleRouterRefreshesAndRetriesAfterAHandMove)
{
    core::RouterOptions options;
    options.followChanges = false; // stays stale until a node refuses it
    auto router = startRouter(options);
    ASSERT_TRUE(router->write({ doc("acme", "before", "old home") }));
    const auto before = *router->resolve("acme");
    const std::string other = before.shard == "s0" ? "s1" : "s0";

    core::MapEditor editor(*m_store);
    auto moved = editor.reassignSpace("acme", other, m_actor);
    ASSERT_TRUE(moved) << moved.error().describe();
    auto newOwner = m_pool.get(m_nodes[other == "s0" ? 0 : 1]->address());
    auto oldOwner = m_pool.get(before.nodeAddress);
    ASSERT_TRUE((*newOwner)->setOwnership(other, { "acme", core::SpaceRole::Owner, moved->epoch }));
    ASSERT_TRUE((*oldOwner)->setOwnership(before.shard, { "acme", core::SpaceRole::Fenced, moved->epoch }));

    EXPECT_EQ(router->resolve("acme")->epoch, 1u) << "the router has not heard of the move";
    auto written = router->write({ doc("acme", "after", "new home", 2) });
    ASSERT_TRUE(written) << written.error().describe();
    EXPECT_EQ(written->retries, 1u);
    EXPECT_EQ(router->resolve("acme")->shard, other);
    EXPECT_EQ(router->resolve("acme")->epoch, 2u);
    EXPECT_EQ(stats(other, "acme")->liveDocs, 1u);
    EXPECT_EQ(stats(before.shard, "acme")->liveDocs, 1u) << "the fenced shard took nothing more";
}

// A router whose map lags a cutover must not search the old shard: after the cleanup the space's
// documents are gone there, and before it they may be older than the owner's. The old shard
// refuses, and the router reads the route again and asks the owner.
TEST_F(RouterTest, AStaleRoutersSearchOfAMovedSpaceIsAnsweredByItsNewShard)
{
    auto [router, before, other, oldOwner, epoch] = moveBehindAStaleRouter();
    ASSERT_TRUE(router);
    ASSERT_TRUE(oldOwner->setOwnership(before.shard, { "acme", core::SpaceRole::Fenced, epoch }));

    auto direct = oldOwner->search(before.shard, { { "acme" }, "kept", 10, 0, false });
    ASSERT_FALSE(direct) << "the old shard answers no search of a space it holds fenced";
    EXPECT_EQ(direct.error().code, core::ErrorCode::FailedPrecondition);
    EXPECT_EQ(direct.error().details.at("held_epoch"), std::to_string(epoch));

    EXPECT_EQ(router->resolve("acme")->shard, before.shard) << "the router has not heard of the move";
    auto found = router->search({ { "acme" }, "kept", 10, 0, false });
    ASSERT_TRUE(found) << found.error().describe();
    ASSERT_EQ(found->hits.size(), 1u);
    EXPECT_EQ(router->resolve("acme")->shard, other);
}

// The same once the old shard is gone from its node (dropped after a reindex's rollback window):
// the node answers NOT_FOUND for the shard, and the router reads the route again.
TEST_F(RouterTest, AStaleRoutersSearchOfASpaceWhoseOldShardWasDroppedIsAnsweredByItsNewShard)
{
    auto [router, before, other, oldOwner, epoch] = moveBehindAStaleRouter();
    ASSERT_TRUE(router);
    ASSERT_TRUE(oldOwner->dropShardWithDocuments(before.shard));

    EXPECT_EQ(router->resolve("acme")->shard, before.shard) << "the router has not heard of the move";
    auto found = router->search({ { "acme" }, "kept", 10, 0, false });
    ASSERT_TRUE(found) << found.error().describe();
    ASSERT_EQ(found->hits.size(), 1u);
    EXPECT_EQ(router->resolve("acme")->shard, other);
    (void)epoch;
}

TEST_F(RouterTest, AWatchingRouterSeesAMapChangeWithinASecond)
{
    auto router = startRouter();
    ASSERT_TRUE(router->write({ doc("acme", "d", "x") }));
    const std::string other = router->resolve("acme")->shard == "s0" ? "s1" : "s0";
    core::MapEditor editor(*m_store);
    ASSERT_TRUE(editor.reassignSpace("acme", other, m_actor));
    auto revision = m_store->currentRevision();
    ASSERT_TRUE(router->waitForRevision(*revision, std::chrono::seconds(1)));
    EXPECT_EQ(router->resolve("acme")->shard, other);
}

TEST_F(RouterTest, ANodeThatMissedAnEpochIsToldTheMapsOwnershipAndTheWriteRetried)
{
    auto router = startRouter();
    ASSERT_TRUE(router->write({ doc("acme", "d1", "x") }));
    const auto route = *router->resolve("acme");
    // The map moves to epoch 2 on the same shard; the node never hears of it.
    core::MapEditor editor(*m_store);
    auto bumped = editor.reassignSpace("acme", route.shard, m_actor);
    ASSERT_TRUE(bumped);
    ASSERT_TRUE(router->waitForRevision(*m_store->currentRevision(), std::chrono::seconds(2)));
    auto written = router->write({ doc("acme", "d2", "y") });
    ASSERT_TRUE(written) << written.error().describe();
    EXPECT_EQ(written->retries, 1u);
    auto owner = m_pool.get(route.nodeAddress);
    EXPECT_EQ((*owner)->ownerships(route.shard, "acme")->front().epoch, 2u);
}

TEST_F(RouterTest, RetriesAreBoundedAndTheRefusalIsReturned)
{
    RefusingPool pool;
    core::RouterOptions options;
    options.maxRetries = 2;
    auto router = core::Router::start(*m_store, pool, options);
    ASSERT_TRUE(router);
    ASSERT_TRUE((*router)->write({ doc("acme", "d1", "x") }));
    pool.refusals = 1;
    auto once = (*router)->write({ doc("acme", "d2", "x") });
    ASSERT_TRUE(once) << once.error().describe();
    EXPECT_EQ(once->retries, 1u);
    pool.refusals = 100;
    auto refused = (*router)->write({ doc("acme", "d3", "x") });
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, core::ErrorCode::FailedPrecondition);
    EXPECT_EQ(pool.refusals.load(), 100 - 3) << "one try and two retries";
}

TEST_F(RouterTest, AMigratingSpaceIsWrittenToBothAndAFailingTargetDoesNotFailTheWrite)
{
    std::vector<core::TargetWriteFailure> failures;
    std::mutex failuresMutex;
    core::RouterOptions options;
    options.onTargetFailure = [&](const core::TargetWriteFailure& failure) {
        std::lock_guard lock(failuresMutex);
        failures.push_back(failure);
    };
    auto router = startRouter(options);
    ASSERT_TRUE(router->write({ doc("acme", "d1", "x") }));
    const auto route = *router->resolve("acme");
    const std::string target = route.shard == "s0" ? "s1" : "s0";
    const std::size_t targetIndex = target == "s0" ? 0 : 1;
    startMigration(*router, target);
    if (HasFatalFailure())
        return;

    ASSERT_TRUE(router->write({ doc("acme", "d2", "dual") }));
    EXPECT_EQ(stats(route.shard, "acme")->liveDocs, 2u);
    // The target's write is not waited for (the source is authoritative); it follows.
    router->awaitTargetWrites();
    EXPECT_EQ(stats(target, "acme")->liveDocs, 1u) << "the dual write reached the target";

    m_nodes[targetIndex]->kill9();
    auto written = router->write({ doc("acme", "d3", "source only") });
    ASSERT_TRUE(written) << "the source is authoritative: " << written.error().describe();
    EXPECT_EQ(stats(route.shard, "acme")->liveDocs, 3u);
    router->awaitTargetWrites();
    std::lock_guard lock(failuresMutex);
    ASSERT_EQ(failures.size(), 1u);
    EXPECT_EQ(failures[0].space, "acme");
    EXPECT_EQ(failures[0].targetShard, target);
}

// The target's write goes out after the source applied, and the caller is answered without
// waiting for it (the source is authoritative; the migration's verify and cutover repair what the
// target misses). At most maxTargetWritesInFlight are out at once: the next write waits its turn.
TEST_F(RouterTest, AMigratingSpacesWriteIsAnsweredWithoutWaitingForTheTarget)
{
    RefusingPool pool;
    auto router = startGatedRouter(pool);
    ASSERT_TRUE(router);
    ASSERT_TRUE(router->write({ doc("acme", "d1", "x") }));
    const auto route = *router->resolve("acme");
    const std::string target = route.shard == "s0" ? "s1" : "s0";
    startMigration(*router, target);
    if (HasFatalFailure())
        return;

    pool.gate.hold(target, "acme");
    auto first = std::async(std::launch::async, [&] { return router->write({ doc("acme", "d2", "dual") }); });
    const bool answered = first.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
    EXPECT_TRUE(answered) << "the write waited for the target's answer";
    EXPECT_EQ(stats(route.shard, "acme")->liveDocs, 2u);
    EXPECT_EQ(stats(target, "acme")->liveDocs, 0u) << "the target's write is still held";
    // The one write allowed out is out: the next one waits until it is answered.
    auto second = std::async(std::launch::async, [&] { return router->write({ doc("acme", "d3", "dual") }); });
    EXPECT_NE(second.wait_for(std::chrono::milliseconds(300)), std::future_status::ready);
    pool.gate.release();
    ASSERT_TRUE(first.get());
    ASSERT_TRUE(second.get());
    router->awaitTargetWrites();
    EXPECT_EQ(stats(target, "acme")->liveDocs, 2u) << "both reached the target";
    EXPECT_EQ(stats(route.shard, "acme")->liveDocs, 3u);
}

// A target node that does not answer holds back the writers of the spaces moving onto it (once
// their node's places are taken), not those of a space moving onto another node.
TEST_F(RouterTest, ATargetThatDoesNotAnswerHoldsBackOnlyTheWritersOfSpacesMovingOntoIt)
{
    RefusingPool pool;
    auto router = startGatedRouter(pool);
    ASSERT_TRUE(router);
    ASSERT_TRUE(router->write({ doc("acme", "a1", "x") }));
    ASSERT_TRUE(router->write({ doc("beta", "b1", "x") }));
    const std::string acmeFrom = router->resolve("acme")->shard;
    const std::string betaFrom = router->resolve("beta")->shard;
    ASSERT_NE(acmeFrom, betaFrom) << "the allocator spreads two new spaces";
    startMigration(*router, betaFrom, "acme");
    startMigration(*router, acmeFrom, "beta");
    if (HasFatalFailure())
        return;

    pool.gate.hold(betaFrom, "acme"); // acme's target does not answer
    ASSERT_TRUE(router->write({ doc("acme", "a2", "held") }));
    auto waiting = std::async(std::launch::async, [&] { return router->write({ doc("acme", "a3", "waits") }); });
    EXPECT_NE(waiting.wait_for(std::chrono::milliseconds(300)), std::future_status::ready)
        << "acme's node has its one place taken";
    auto beta = std::async(std::launch::async, [&] { return router->write({ doc("beta", "b2", "goes on") }); });
    const bool betaAnswered = beta.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
    if (!betaAnswered)
        pool.gate.release(); // so that the futures can end
    ASSERT_TRUE(betaAnswered) << "beta waited for acme's target";
    ASSERT_TRUE(beta.get());
    EXPECT_TRUE(pollUntil(std::chrono::seconds(20), [&] { return stats(acmeFrom, "beta")->liveDocs == 1; }))
        << "beta's target got its write while acme's was held";
    pool.gate.release();
    ASSERT_TRUE(waiting.get());
    router->awaitTargetWrites();
    EXPECT_EQ(stats(betaFrom, "acme")->liveDocs, 2u);
}

TEST_F(RouterTest, SearchMergesSpacesOnDifferentShardsAndRefusesUnknownOnes)
{
    auto router = startRouter();
    ASSERT_TRUE(router->write({ doc("a", "1", "common word") }));
    ASSERT_TRUE(router->write({ doc("b", "2", "common word word") }));
    ASSERT_NE(router->resolve("a")->shard, router->resolve("b")->shard);
    auto found = router->search({ { "a", "b" }, "common", 10, 0, false });
    ASSERT_TRUE(found);
    EXPECT_EQ(found->hits.size(), 2u);
    auto unknown = router->search({ { "nobody" }, "x", 10, 0, false });
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.error().code, core::ErrorCode::NotFound);
}

TEST_F(RouterTest, BadInputAndRefusedShardsGetClearErrors)
{
    auto router = startRouter();
    auto bad = router->write({ doc("bad space", "1", "x") });
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, core::ErrorCode::InvalidArgument);
    core::MapEditor editor(*m_store);
    ASSERT_TRUE(editor.setShardState("s0", core::ShardState::Draining, m_actor));
    ASSERT_TRUE(editor.setShardState("s1", core::ShardState::Readonly, m_actor));
    ASSERT_TRUE(router->waitForRevision(*m_store->currentRevision(), std::chrono::seconds(2)));
    auto nowhere = router->write({ doc("new-space", "1", "x") });
    ASSERT_FALSE(nowhere);
    EXPECT_EQ(nowhere.error().code, core::ErrorCode::FailedPrecondition);
    EXPECT_NE(nowhere.error().message.find("s0 is draining"), std::string::npos) << nowhere.error().message;
}

TEST_F(RouterTest, OneBatchForManySpacesKeepsInputOrderAndSplitsWhenASpaceMoved)
{
    core::RouterOptions options;
    options.followChanges = false;
    auto router = startRouter(options);
    ASSERT_TRUE(router->write({ doc("a", "1", "x") }));
    ASSERT_TRUE(router->write({ doc("b", "1", "x") }));
    ASSERT_TRUE(router->write({ doc("c", "1", "x") }));
    // Move c by hand; the router does not know, and writes a, b, c in one batch.
    const auto c = *router->resolve("c");
    const std::string other = c.shard == "s0" ? "s1" : "s0";
    core::MapEditor editor(*m_store);
    auto moved = editor.reassignSpace("c", other, m_actor);
    ASSERT_TRUE(moved);
    auto newOwner = m_pool.get(m_nodes[other == "s0" ? 0 : 1]->address());
    ASSERT_TRUE((*newOwner)->setOwnership(other, { "c", core::SpaceRole::Owner, moved->epoch }));
    ASSERT_TRUE((*m_pool.get(c.nodeAddress))->setOwnership(c.shard, { "c", core::SpaceRole::Fenced, moved->epoch }));
    auto written = router->write(
        { doc("c", "2", "x", 5), doc("a", "2", "x", 5), doc("c", "1", "old", 1), doc("b", "2", "x", 5) });
    ASSERT_TRUE(written) << written.error().describe();
    ASSERT_EQ(written->results.size(), 4u);
    EXPECT_EQ(written->results[0].outcome, core::WriteOutcome::Applied);
    EXPECT_EQ(written->results[1].outcome, core::WriteOutcome::Applied);
    EXPECT_EQ(written->results[2].outcome, core::WriteOutcome::Applied) << "c/1 is new on the new owner";
    EXPECT_EQ(written->results[3].outcome, core::WriteOutcome::Applied);
    EXPECT_EQ(stats(other, "c")->liveDocs, 2u);
    EXPECT_GE(written->retries, 1u);
}
