// The router over a shard's copies (issue 30) against real shardmap-node processes and a real
// SQLite shard map: writes to every in-sync copy at once, a copy that misses one marked catching up
// before the write is acknowledged, the write quorum, searches answered by another copy.
#include "core/client/node_client.h"
#include "core/map/copy_faults.h"
#include "core/map/map_editor.h"
#include "core/router/router.h"
#include "core/util/failpoint.h"
#include "core/store/read_only_store.h"
#include "node_test_helpers.h"

#include <csignal>
#include <future>
#include <sstream>
#include <thread>

using namespace shardmap;
using namespace shardmap::testing;
using core::Document;

namespace {

Document copyDoc(const std::string& space, const std::string& id, const std::string& body, std::uint64_t version = 1)
{
    return Document { space, id, version, { { "title", id }, { "body", body } }, false };
}

// Three nodes n0, n1, n2, each holding shard s0 (the same id: a replica is the shard on another
// node). The map names s0's primary on n0 and the replicas each test asks for.
class RouterCopiesTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        for (int i = 0; i < 3; ++i) {
            m_nodes.push_back(NodeProcess::start(m_dir.file("node" + std::to_string(i))));
            ASSERT_TRUE(m_nodes.back());
        }
        auto store = core::openStore(storeUri(), true);
        ASSERT_TRUE(store) << store.error().describe();
        m_store = std::move(*store);
        core::MapEditor editor(*m_store);
        for (std::size_t i = 0; i < m_nodes.size(); ++i) {
            ASSERT_TRUE(editor.addNode({ "n" + std::to_string(i), m_nodes[i]->address(), {} }, m_actor));
            auto created = client(i)->createShard("s0", {});
            ASSERT_TRUE(created) << created.error().describe();
        }
    }

    std::string storeUri() const { return "sqlite:" + m_dir.file("map.db"); }

    std::shared_ptr<core::NodeClient> client(std::size_t node) { return *m_pool.get(m_nodes.at(node)->address()); }

    // s0 with its primary on n0 and an in-sync replica on each node named, committed as a record.
    void addShard(const std::vector<std::string>& replicas, std::uint32_t factor = 0)
    {
        core::ShardRecord shard { "s0", "n0", core::ShardState::Active, 0, 0 };
        for (const auto& node : replicas)
            shard.replicas.push_back({ node, core::CopyState::InSync });
        shard.replicationFactor = factor;
        auto added = core::MapEditor(*m_store).addShard(shard, m_actor);
        ASSERT_TRUE(added) << added.error().describe();
    }

    void setQuorum(core::WriteQuorum quorum)
    {
        core::MigrationSettings settings;
        settings.writeQuorum = quorum;
        core::CommitRequest request { { { std::string(core::keys::kMigrationSettings), core::encode(settings), 0 } },
            std::nullopt, std::nullopt, "test", "set-settings", "quorum" };
        ASSERT_TRUE(m_store->commit(request));
    }

    std::unique_ptr<core::Router> startRouter(core::RouterOptions options = {})
    {
        options.metrics = &m_metrics;
        auto router = core::Router::start(*m_store, m_pool, std::move(options));
        EXPECT_TRUE(router) << router.error().describe();
        return router ? std::move(*router) : nullptr;
    }

    core::Result<core::SpaceStats> stats(std::size_t node, const std::string& space)
    {
        auto all = client(node)->spaceStats("s0", { space });
        if (!all)
            return all.error();
        return all->front();
    }

    // The ids of a space's documents on one node's copy, read back by Scan.
    std::vector<std::string> idsOn(std::size_t node, const std::string& space)
    {
        std::vector<std::string> ids;
        std::string after;
        for (;;) {
            auto page = client(node)->scanPage("s0", space, after, 100, false);
            EXPECT_TRUE(page) << page.error().describe();
            if (!page)
                return ids;
            for (const auto& found : page->docs)
                ids.push_back(found.id);
            if (page->done || page->docs.empty())
                return ids;
            after = page->cursor;
        }
    }

    core::ShardCopy copyOn(const std::string& node)
    {
        auto map = core::MapEditor(*m_store).snapshot();
        EXPECT_TRUE(map) << map.error().describe();
        const auto* copy = map->shard("s0")->replicaOn(node);
        EXPECT_TRUE(copy) << "no copy on " << node;
        return copy ? *copy : core::ShardCopy {};
    }

    // The sum of the samples whose line starts with prefix (a family, or a family and its first labels).
    std::uint64_t counter(const std::string& prefix)
    {
        std::istringstream text(m_metrics.render());
        std::uint64_t sum = 0;
        for (std::string line; std::getline(text, line);) {
            if (line.starts_with(prefix)
                && (line[prefix.size()] == ' ' || line[prefix.size()] == ',' || line[prefix.size()] == '{'))
                sum += std::stoull(line.substr(line.rfind(' ') + 1));
        }
        return sum;
    }

    TempDir m_dir;
    std::vector<std::unique_ptr<NodeProcess>> m_nodes;
    std::unique_ptr<core::MetadataStore> m_store;
    // Calls to a SIGSTOPped node hang until it continues (the parallelism test), not for 10 s.
    core::NodeClientPool m_pool { core::NodeClientOptions {
        std::chrono::seconds(60), {}, {}, {}, std::chrono::seconds(60), std::chrono::seconds(30) } };
    core::MetricsRegistry m_metrics;
    core::Actor m_actor { "test", "router copies test" };
};

} // namespace

TEST_F(RouterCopiesTest, TheRouteNamesThePrimaryAndEveryCopyByState)
{
    core::ShardRecord shard { "s0", "n0", core::ShardState::Active, 0, 0 };
    shard.replicas = { { "n1", core::CopyState::InSync }, { "n2", core::CopyState::CatchingUp } };
    ASSERT_TRUE(core::MapEditor(*m_store).addShard(shard, m_actor));
    auto router = startRouter();
    ASSERT_TRUE(router->write({ copyDoc("acme", "d1", "hello") }));
    const auto route = router->resolve("acme");
    ASSERT_TRUE(route);
    EXPECT_EQ(route->node, "n0");
    EXPECT_EQ(route->nodeAddress, m_nodes[0]->address());
    ASSERT_EQ(route->copies.inSync.size(), 1u);
    EXPECT_EQ(route->copies.inSync[0], (core::RouteCopy { "n1", m_nodes[1]->address() }));
    ASSERT_EQ(route->copies.catchingUp.size(), 1u);
    EXPECT_EQ(route->copies.catchingUp[0].node, "n2");
    EXPECT_EQ(route->copies.replicationFactor, 1u) << "the fleet's default, the shard naming none";
    // The catching-up copy is written too (best effort), like a migration target.
    EXPECT_EQ(idsOn(2, "acme"), std::vector<std::string> { "d1" });
}

TEST_F(RouterCopiesTest, AWriteLandsOnThePrimaryAndEveryInSyncCopy)
{
    addShard({ "n1" });
    auto router = startRouter();
    std::vector<Document> docs;
    for (int i = 0; i < 50; ++i)
        docs.push_back(copyDoc("acme", "d" + std::to_string(i), "copied body " + std::to_string(i)));
    auto written = router->write(docs);
    ASSERT_TRUE(written) << written.error().describe();
    EXPECT_EQ(written->applied, 50u);
    ASSERT_TRUE(router->write({ copyDoc("acme", "d3", "updated", 2) }));
    auto primary = stats(0, "acme");
    auto replica = stats(1, "acme");
    ASSERT_TRUE(primary && replica);
    EXPECT_EQ(primary->liveDocs, 50u);
    EXPECT_EQ(*primary, *replica) << "same documents, same checksum on both copies";
    EXPECT_EQ(idsOn(1, "acme").size(), 50u);
    // The replica's node owns the space at the map's epoch, as the primary's does.
    auto held = client(1)->ownerships("s0", "acme");
    ASSERT_TRUE(held && held->size() == 1);
    EXPECT_EQ(held->front().role, core::SpaceRole::Owner);
    EXPECT_EQ(held->front().epoch, router->resolve("acme")->epoch);
}

TEST_F(RouterCopiesTest, ACopyThatMissedOwnershipIsToldOnItsFirstWrite)
{
    addShard({});
    auto router = startRouter();
    ASSERT_TRUE(router->write({ copyDoc("acme", "d1", "before the replica") }));
    // A replica added after the space was created never got the space's ownership.
    auto map = core::MapEditor(*m_store).snapshot();
    ASSERT_TRUE(map);
    core::ShardRecord shard = *map->shard("s0");
    shard.replicas.push_back({ "n1", core::CopyState::InSync });
    core::CommitRequest request {
        { { core::keys::shard("s0"), core::encode(shard), map->shards.at("s0").modRevision } }, std::nullopt,
        std::nullopt, "test", "add-replica", "test"
    };
    auto committed = m_store->commit(request);
    ASSERT_TRUE(committed);
    ASSERT_TRUE(router->waitForRevision(*committed, std::chrono::seconds(10)));
    auto written = router->write({ copyDoc("acme", "d2", "after the replica") });
    ASSERT_TRUE(written) << written.error().describe();
    EXPECT_EQ(idsOn(1, "acme"), std::vector<std::string> { "d2" });
    EXPECT_EQ(copyOn("n1").state, core::CopyState::InSync) << "pushing the map's ownership is no fault of the copy";
}

TEST_F(RouterCopiesTest, AKilledReplicaIsMarkedCatchingUpBeforeTheWriteIsAcknowledged)
{
    addShard({ "n1" });
    auto router = startRouter();
    ASSERT_TRUE(router->write({ copyDoc("acme", "d1", "both copies") }));
    m_nodes[1]->kill9();
    auto written = router->write({ copyDoc("acme", "d2", "primary only") });
    ASSERT_TRUE(written) << written.error().describe();
    EXPECT_EQ(written->applied, 1u);
    // Acknowledged: the map already says so (read from the store, not the router's table).
    const auto copy = copyOn("n1");
    EXPECT_EQ(copy.state, core::CopyState::CatchingUp);
    EXPECT_NE(copy.reason.find("missed a write"), std::string::npos) << copy.reason;
    EXPECT_GT(copy.sinceUnixMs, 0);
    EXPECT_EQ(idsOn(0, "acme"), (std::vector<std::string> { "d1", "d2" }));
    auto history = m_store->history(0, 0, 0);
    ASSERT_TRUE(history);
    const auto mark = std::find_if(history->begin(), history->end(),
        [](const core::AuditRecord& record) { return record.action == "mark-copy-catching-up"; });
    ASSERT_NE(mark, history->end());
    EXPECT_EQ(mark->actor, "router");
    EXPECT_EQ(counter("shardmapd_router_copy_write_failures_total{outcome=\"marked_catching_up\""), 1u);
    // The next writes go to the primary alone (and the catching-up copy, best effort): no new mark.
    ASSERT_TRUE(router->waitForRevision(mark->revision, std::chrono::seconds(10)));
    ASSERT_TRUE(router->write({ copyDoc("acme", "d3", "still primary only") }));
    EXPECT_EQ(counter("shardmapd_router_copy_write_failures_total{outcome=\"marked_catching_up\""), 1u);
    EXPECT_EQ(counter("shardmapd_router_copy_write_failures_total{outcome=\"best_effort\""), 1u);
}

// Two calls raced with one version and different bodies, and the copies applied them in different
// orders (the copies chaos harness found it, issue 30): the replica answers STALE at the version the
// primary APPLIED and holds another body than the one acknowledged. The router writes the
// acknowledged body to it again as a repair before the acknowledgement; the copy stays in sync (or,
// when the repair fails, is marked catching up first).
TEST_F(RouterCopiesTest, ACopyHoldingAnotherBodyAtTheVersionThePrimaryAppliedIsRepairedBeforeTheAcknowledgement)
{
    addShard({ "n1" });
    auto router = startRouter();
    ASSERT_TRUE(router->write({ copyDoc("acme", "d1", "both copies") }));
    const std::uint64_t epoch = router->resolve("acme")->epoch;
    // A replica ahead of the primary (a newer version on its way there) is left as it is.
    ASSERT_TRUE(client(1)->bulkWrite("s0", { { copyDoc("acme", "d2", "newer", 5), epoch } }));
    ASSERT_TRUE(router->write({ copyDoc("acme", "d2", "older", 3) }));

    // The other call's body reached the replica first.
    ASSERT_TRUE(client(1)->bulkWrite("s0", { { copyDoc("acme", "d1", "the other body", 2), epoch } }));
    auto written = router->write({ copyDoc("acme", "d1", "the acknowledged body", 2) });
    ASSERT_TRUE(written) << written.error().describe();
    EXPECT_EQ(written->applied, 1u);
    auto page = client(1)->scanPage("s0", "acme", "", 10, true);
    ASSERT_TRUE(page) << page.error().describe();
    std::map<std::string, Document> rows;
    for (const auto& doc : page->docs)
        rows[doc.id] = doc;
    ASSERT_TRUE(rows.contains("d1") && rows.contains("d2"));
    EXPECT_EQ(rows["d1"].version, 2u);
    EXPECT_EQ(rows["d1"].fields.at("body"), "the acknowledged body") << "the replica holds what was acknowledged";
    EXPECT_EQ(rows["d2"].version, 5u) << "a newer version is never replaced";
    EXPECT_EQ(copyOn("n1").state, core::CopyState::InSync);
    // A write both copies already hold with the same body (a retry) changes nothing.
    ASSERT_TRUE(router->write({ copyDoc("acme", "d1", "the acknowledged body", 2) }));
    EXPECT_EQ(copyOn("n1").state, core::CopyState::InSync);
    EXPECT_EQ(counter("shardmapd_router_copy_write_failures_total"), 0u);

    // A copy the repair fails on leaves the in-sync set before the acknowledgement.
    ASSERT_TRUE(client(1)->bulkWrite("s0", { { copyDoc("acme", "d1", "yet another body", 3), epoch } }));
    ASSERT_TRUE(core::setFailpoints("router.copy_repair=error"));
    auto unrepaired = router->write({ copyDoc("acme", "d1", "acknowledged again", 3) });
    ASSERT_TRUE(core::setFailpoints(""));
    ASSERT_TRUE(unrepaired) << unrepaired.error().describe();
    const auto copy = copyOn("n1");
    EXPECT_EQ(copy.state, core::CopyState::CatchingUp);
    EXPECT_NE(copy.reason.find("held acme/d1 v3 already when the primary applied it, and the repair failed"),
        std::string::npos)
        << copy.reason;
    EXPECT_EQ(counter("shardmapd_router_copy_write_failures_total{outcome=\"marked_catching_up\""), 1u);
}

// While a space migrates, the target shard's in-sync replicas follow the same rule as the
// source's copies: the executor's cutover would hand searches to them.
TEST_F(RouterCopiesTest, AMigrationTargetsInSyncCopyThatMissesADualWriteIsMarkedBeforeTheAcknowledgement)
{
    addShard({});
    // s1 on n1 with an in-sync replica on n2: the target of acme, which dual writes at epoch 2.
    for (std::size_t node : { 1u, 2u }) {
        auto created = client(node)->createShard("s1", {});
        ASSERT_TRUE(created) << created.error().describe();
    }
    core::ShardRecord target { "s1", "n1", core::ShardState::Active, 0, 0 };
    target.replicas.push_back({ "n2", core::CopyState::InSync });
    ASSERT_TRUE(core::MapEditor(*m_store).addShard(target, m_actor));
    core::SpaceRecord space;
    space.id = "acme";
    space.shard = "s0";
    space.epoch = 2;
    space.migrationId = "m1";
    space.target = "s1";
    space.phase = core::MigrationPhase::DualWrite;
    ASSERT_TRUE(m_store->commit({ { { core::keys::space("acme"), core::encode(space), 0 } }, std::nullopt, std::nullopt,
        "test", "add-space", "migrating" }));
    ASSERT_TRUE(client(0)->setOwnership("s0", { "acme", core::SpaceRole::Owner, 2 }));
    for (std::size_t node : { 1u, 2u })
        ASSERT_TRUE(client(node)->setOwnership("s1", { "acme", core::SpaceRole::MigrationTarget, 2 }));
    auto router = startRouter();
    ASSERT_TRUE(router->write({ copyDoc("acme", "d1", "every copy") }));
    auto onReplica = client(2)->spaceStats("s1", { "acme" });
    ASSERT_TRUE(onReplica);
    EXPECT_EQ(onReplica->front().liveDocs, 1u) << "the target's in-sync replica got the dual write";

    m_nodes[2]->kill9();
    auto written = router->write({ copyDoc("acme", "d2", "not on the target's replica") });
    ASSERT_TRUE(written) << written.error().describe();
    // Acknowledged: the map already says the target's copy is catching up.
    auto map = core::MapEditor(*m_store).snapshot();
    ASSERT_TRUE(map);
    const auto* copy = map->shard("s1")->replicaOn("n2");
    ASSERT_NE(copy, nullptr);
    EXPECT_EQ(copy->state, core::CopyState::CatchingUp);
    EXPECT_NE(copy->reason.find("missed a write"), std::string::npos) << copy->reason;
    EXPECT_EQ(counter("shardmapd_router_copy_write_failures_total{outcome=\"marked_catching_up\""), 1u);
}

TEST_F(RouterCopiesTest, AWriteWhoseMissedCopyCannotBeMarkedIsNotAcknowledged)
{
    addShard({ "n1" });
    {
        auto router = startRouter();
        ASSERT_TRUE(router->write({ copyDoc("acme", "d1", "both copies") }));
    }
    // A router whose map changes are all refused: it can write, but not mark a copy.
    auto readOnly = core::openStore(storeUri(), false);
    ASSERT_TRUE(readOnly);
    auto refusing = core::makeReadOnly(std::move(*readOnly));
    core::RouterOptions options;
    options.metrics = &m_metrics;
    auto router = core::Router::start(*refusing, m_pool, options);
    ASSERT_TRUE(router);
    m_nodes[1]->kill9();
    auto written = (*router)->write({ copyDoc("acme", "d2", "primary only") });
    ASSERT_FALSE(written);
    EXPECT_EQ(written.error().code, core::ErrorCode::Unavailable);
    EXPECT_NE(written.error().message.find("could not be marked catching up"), std::string::npos)
        << written.error().describe();
    EXPECT_NE(written.error().message.find("node n1"), std::string::npos) << written.error().describe();
    EXPECT_EQ(copyOn("n1").state, core::CopyState::InSync) << "nothing changed in the map";
    EXPECT_EQ(counter("shardmapd_router_copy_write_failures_total{outcome=\"mark_failed\""), 1u);
}

TEST_F(RouterCopiesTest, ASearchIsAnsweredByTheReplicaWhenThePrimarysNodeIsKilled)
{
    addShard({ "n1" });
    auto router = startRouter();
    ASSERT_TRUE(
        router->write({ copyDoc("acme", "d1", "findable words"), copyDoc("acme", "d2", "more findable words") }));
    m_nodes[0]->kill9();
    // Every search is answered, whichever copy it asks first (the rotation asks the dead one
    // first at least once in two).
    for (int i = 0; i < 4; ++i) {
        auto found = router->search({ { "acme" }, "findable", 10, 0, false });
        ASSERT_TRUE(found) << found.error().describe();
        EXPECT_EQ(found->hits.size(), 2u);
    }
    // Spread: sequential searches alternate between the two copies, so two of the four asked the
    // dead primary first.
    EXPECT_EQ(counter("shardmapd_router_search_copy_retries_total"), 2u);
    auto primaryOnly = router->search({ { "acme" }, "findable", 10, 0, false }, true);
    ASSERT_FALSE(primaryOnly);
    EXPECT_EQ(primaryOnly.error().code, core::ErrorCode::Unavailable) << primaryOnly.error().describe();
}

TEST_F(RouterCopiesTest, SearchesSpreadOverTheInSyncCopiesButNotACatchingUpOne)
{
    core::ShardRecord shard { "s0", "n0", core::ShardState::Active, 0, 0 };
    shard.replicas = { { "n1", core::CopyState::InSync }, { "n2", core::CopyState::CatchingUp } };
    ASSERT_TRUE(core::MapEditor(*m_store).addShard(shard, m_actor));
    auto router = startRouter();
    ASSERT_TRUE(router->write({ copyDoc("acme", "d1", "spread words") }));
    // A catching-up copy asked and dead would be retried on another copy, and counted.
    m_nodes[2]->kill9();
    for (int i = 0; i < 4; ++i)
        ASSERT_TRUE(router->search({ { "acme" }, "spread", 10, 0, false })) << "n2 is never asked";
    EXPECT_EQ(counter("shardmapd_router_search_copy_retries_total"), 0u);
    m_nodes[1]->process().signal(SIGSTOP);
    // Stopped, n1 would hang a search sent to it; primary_only never sends one.
    for (int i = 0; i < 4; ++i)
        ASSERT_TRUE(router->search({ { "acme" }, "spread", 10, 0, false }, true));
    m_nodes[1]->process().signal(SIGCONT);
}

TEST_F(RouterCopiesTest, MajorityQuorumAcknowledgesWithOneOfThreeCopiesDown)
{
    setQuorum(core::WriteQuorum::Majority);
    addShard({ "n1", "n2" }, 3);
    auto router = startRouter();
    ASSERT_TRUE(router->write({ copyDoc("acme", "d1", "three copies") }));
    m_nodes[2]->kill9();
    auto written = router->write({ copyDoc("acme", "d2", "two copies") });
    ASSERT_TRUE(written) << written.error().describe();
    EXPECT_EQ(idsOn(0, "acme"), (std::vector<std::string> { "d1", "d2" }));
    EXPECT_EQ(idsOn(1, "acme"), (std::vector<std::string> { "d1", "d2" }));
    // The copy that missed it is still marked, once its call failed (the write did not wait).
    for (int i = 0; i < 200 && copyOn("n2").state == core::CopyState::InSync; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(copyOn("n2").state, core::CopyState::CatchingUp);
    // With a second copy down the majority (2 of 3) is out of reach: not acknowledged.
    m_nodes[1]->kill9();
    auto refused = router->write({ copyDoc("acme", "d3", "one copy") });
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("majority of its replication factor 3 is 2"), std::string::npos)
        << refused.error().describe();
}

TEST_F(RouterCopiesTest, AllQuorumMarksTheDownCopyOfThree)
{
    addShard({ "n1", "n2" }, 3);
    auto router = startRouter();
    ASSERT_TRUE(router->write({ copyDoc("acme", "d1", "three copies") }));
    m_nodes[2]->kill9();
    ASSERT_TRUE(router->write({ copyDoc("acme", "d2", "two copies") }));
    EXPECT_EQ(copyOn("n2").state, core::CopyState::CatchingUp) << "marked before the write returned";
    EXPECT_EQ(copyOn("n1").state, core::CopyState::InSync);
}

// Parallel, not one copy after the other: with one replica stopped (its call hangs until it is
// continued), the other replica and the primary have the write already. Written one after the
// other, whichever order, one of the two rounds would find the other replica without it.
TEST_F(RouterCopiesTest, CopiesAreWrittenInParallel)
{
    addShard({ "n1", "n2" });
    auto router = startRouter();
    ASSERT_TRUE(router->write({ copyDoc("acme", "d0", "three copies") }));
    for (std::size_t stopped : { 1u, 2u }) {
        const std::size_t other = stopped == 1 ? 2 : 1;
        const std::string id = "p" + std::to_string(stopped);
        m_nodes[stopped]->process().signal(SIGSTOP);
        auto pending
            = std::async(std::launch::async, [&] { return router->write({ copyDoc("acme", id, "parallel") }); });
        bool landed = false;
        for (int i = 0; i < 400 && !landed; ++i) {
            auto ids = idsOn(other, "acme");
            landed = std::find(ids.begin(), ids.end(), id) != ids.end();
            if (!landed)
                std::this_thread::sleep_for(std::chrono::milliseconds(25));
        }
        auto onPrimary = idsOn(0, "acme");
        m_nodes[stopped]->process().signal(SIGCONT);
        auto written = pending.get();
        ASSERT_TRUE(written) << written.error().describe();
        EXPECT_TRUE(landed) << "the write to n" << other << " waited for stopped n" << stopped;
        EXPECT_NE(std::find(onPrimary.begin(), onPrimary.end(), id), onPrimary.end());
    }
    EXPECT_EQ(copyOn("n1").state, core::CopyState::InSync);
    EXPECT_EQ(copyOn("n2").state, core::CopyState::InSync);
    EXPECT_EQ(*stats(0, "acme"), *stats(1, "acme"));
    EXPECT_EQ(*stats(0, "acme"), *stats(2, "acme"));
}

TEST_F(RouterCopiesTest, BadSearchesAreRefusedWithCopiesAsWithout)
{
    addShard({ "n1" });
    auto router = startRouter();
    auto unknown = router->search({ { "nowhere" }, "x", 10, 0, false }, true);
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.error().code, core::ErrorCode::NotFound);
    EXPECT_EQ(unknown.error().message, "no space nowhere in the shard map");
    auto none = router->search({ {}, "x", 10, 0, false }, true);
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().code, core::ErrorCode::InvalidArgument);
    ASSERT_TRUE(router->write({ copyDoc("acme", "d1", "words") }));
    // A bad query fails on every copy alike: not retried on the replica.
    auto bad = router->search({ { "acme" }, "title:\"abc", 10, 0, false });
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, core::ErrorCode::InvalidArgument) << bad.error().describe();
    EXPECT_EQ(counter("shardmapd_router_search_copy_retries_total"), 0u);
}
