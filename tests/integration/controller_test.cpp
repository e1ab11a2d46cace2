// shardmapd, the real binary, against real nodes and a real SQLite shard map: the Router service,
// its refusals, its start-up checks, and the executor election across two replicas.
#include "core/client/node_client.h"
#include "core/map/map_editor.h"
#include "node_test_helpers.h"
#include "shardmap/v1/router.grpc.pb.h"
#include "tests/support/controller_process.h"
#include "tests/support/fleet_test.h"
#include "tests/support/sqlite_store_lock.h"

#include <csignal>
#include <filesystem>
#include <set>
#include <thread>

using namespace shardmap;
using namespace shardmap::testing;
using grpc::health::v1::HealthCheckResponse;

namespace {

struct Exit {
    std::optional<int> code;
    std::string err;
};

// Runs shardmapd expecting it to refuse to start.
Exit runToExit(const std::string& stderrFile, const std::vector<std::string>& args)
{
    std::vector<std::string> argv { SHARDMAP_CONTROLLER_BINARY };
    argv.insert(argv.end(), args.begin(), args.end());
    auto child = ChildProcess::spawn(argv, stderrFile);
    if (!child)
        return {};
    Exit exit;
    exit.code = child->wait(std::chrono::seconds(10));
    exit.err = readWholeFile(stderrFile);
    return exit;
}

v1::RouterWriteResponse write(
    ControllerProcess& controller, const std::vector<v1::Document>& docs, grpc::Status* status)
{
    v1::RouterWriteRequest request;
    for (const auto& doc : docs)
        *request.add_docs() = doc;
    v1::RouterWriteResponse response;
    *status = controller.router().BulkWrite(contextWithDeadline().get(), request, &response);
    return response;
}

grpc::Status search(ControllerProcess& controller, const std::vector<std::string>& spaces, const std::string& query,
    v1::RouterSearchResponse* response, std::uint32_t limit = 20, std::uint32_t offset = 0, bool primaryOnly = false)
{
    v1::RouterSearchRequest request;
    request.set_primary_only(primaryOnly);
    for (const auto& space : spaces)
        request.add_spaces(space);
    request.set_query(query);
    request.set_limit(limit);
    request.set_offset(offset);
    request.set_snippets(true);
    return controller.router().Search(contextWithDeadline().get(), request, response);
}

grpc::Status resolve(ControllerProcess& controller, const std::string& space, v1::ResolveResponse* response)
{
    v1::ResolveRequest request;
    request.set_space(space);
    return controller.router().Resolve(contextWithDeadline().get(), request, response);
}

class ControllerTest : public FleetTest<::testing::Test> {
protected:
    void SetUp() override { startFleet(2); }

    std::unique_ptr<ControllerProcess> startController(const std::string& id, std::vector<std::string> extra = {})
    {
        std::vector<std::string> args { "--store", storeUri(), "--id", id };
        args.insert(args.end(), extra.begin(), extra.end());
        return ControllerProcess::start(m_dir.file(id + ".stderr.log"), args);
    }

    std::string nodeAddressOf(const std::string& shard) const { return m_nodes[shard == "s0" ? 0 : 1]->address(); }
};

} // namespace

TEST_F(ControllerTest, WritesSearchesAndResolvesThroughTheRouterService)
{
    auto controller = startController("c1");
    ASSERT_TRUE(controller);
    EXPECT_EQ(controller->health(""), HealthCheckResponse::SERVING);
    EXPECT_EQ(controller->health("shardmap.v1.Router"), HealthCheckResponse::SERVING);

    grpc::Status status;
    auto written = write(*controller,
        { makeDoc("acme", "d1", 1, "hello shard map"), makeDoc("beta", "b1", 1, "hello beta"),
            makeDoc("acme", "d2", 1, "hello again") },
        &status);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(written.applied(), 3u);
    ASSERT_EQ(written.results_size(), 3);
    for (const auto& result : written.results())
        EXPECT_EQ(result.outcome(), v1::WRITE_OUTCOME_APPLIED);
    EXPECT_EQ(written.results(1).stored_version(), 1u);
    std::vector<std::string> created(written.created_spaces().begin(), written.created_spaces().end());
    EXPECT_EQ(created, (std::vector<std::string> { "acme", "beta" }));

    // The same versions again change nothing; a tombstone deletes.
    auto again
        = write(*controller, { makeDoc("acme", "d1", 1, "hello shard map"), makeTombstone("acme", "d2", 2) }, &status);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(again.results(0).outcome(), v1::WRITE_OUTCOME_STALE);
    EXPECT_EQ(again.results(1).outcome(), v1::WRITE_OUTCOME_APPLIED);
    EXPECT_EQ(again.created_spaces_size(), 0);

    v1::RouterSearchResponse found;
    ASSERT_TRUE(search(*controller, { "acme", "beta" }, "hello", &found).ok());
    std::set<std::string> ids;
    for (const auto& hit : found.hits())
        ids.insert(hit.space() + "/" + hit.id());
    EXPECT_EQ(ids, (std::set<std::string> { "acme/d1", "beta/b1" }));
    EXPECT_NE(found.hits(0).snippet().find("[[hello]]"), std::string::npos);

    v1::ResolveResponse route;
    ASSERT_TRUE(resolve(*controller, "acme", &route).ok());
    EXPECT_EQ(route.space(), "acme");
    ASSERT_TRUE(route.shard() == "s0" || route.shard() == "s1") << route.shard();
    EXPECT_EQ(route.node_address(), nodeAddressOf(route.shard()));
    EXPECT_EQ(route.epoch(), 1u);
    EXPECT_TRUE(route.target_shard().empty());
    EXPECT_GT(route.space_revision(), 0u);
    EXPECT_GE(route.map_revision(), route.space_revision());

    // The router pushed the ownership to the node the map names.
    auto owner = m_pool.get(route.node_address());
    auto held = (*owner)->ownerships(route.shard(), "acme");
    ASSERT_TRUE(held && held->size() == 1);
    EXPECT_EQ(held->front().role, core::SpaceRole::Owner);
    EXPECT_EQ(held->front().epoch, 1u);
}

TEST_F(ControllerTest, BadRequestsAreRefusedWithTheRightCode)
{
    auto controller = startController("c1");
    ASSERT_TRUE(controller);
    grpc::Status status;
    write(*controller, { makeDoc("not a space!", "d1", 1, "x") }, &status);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();

    std::vector<v1::Document> tooMany;
    for (int i = 0; i < 10001; ++i)
        tooMany.push_back(makeDoc("acme", "d" + std::to_string(i), 1, "x"));
    write(*controller, tooMany, &status);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(status.error_message().find("10000"), std::string::npos) << status.error_message();

    v1::RouterSearchResponse found;
    status = search(*controller, { "nowhere" }, "hello", &found);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND) << status.error_message();
    EXPECT_NE(status.error_message().find("nowhere"), std::string::npos) << status.error_message();
    EXPECT_EQ(search(*controller, {}, "hello", &found).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(search(*controller, { "bad space" }, "hello", &found).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    status = search(*controller, { "acme" }, "hello", &found, 500, 600);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(status.error_message().find("limit + offset"), std::string::npos) << status.error_message();

    v1::ResolveResponse route;
    EXPECT_EQ(resolve(*controller, "nowhere", &route).error_code(), grpc::StatusCode::NOT_FOUND);
    EXPECT_EQ(resolve(*controller, "", &route).error_code(), grpc::StatusCode::INVALID_ARGUMENT);

    // Nothing of the refused requests was created.
    auto spaces = m_store->list("spaces/");
    ASSERT_TRUE(spaces);
    EXPECT_TRUE(spaces->records.empty());
}

// Issue 30: a search through shardmapd is answered by an in-sync replica when the primary's node
// is gone, unless the request asks for the primary only.
TEST_F(ControllerTest, ASearchReadsAReplicaUnlessItAsksForThePrimaryOnly)
{
    // s0 gets an in-sync replica on n1 (the same shard id there); s1 takes no new spaces.
    ASSERT_TRUE(nodeOf("s1")->createShard("s0", {}));
    auto map = core::MapEditor(*m_store).snapshot();
    ASSERT_TRUE(map);
    core::ShardRecord shard = *map->shard("s0");
    shard.replicas.push_back({ "n1", core::CopyState::InSync });
    core::CommitRequest request {
        { { core::keys::shard("s0"), core::encode(shard), map->shards.at("s0").modRevision } }, std::nullopt,
        std::nullopt, "test", "add-replica", "test"
    };
    ASSERT_TRUE(m_store->commit(request));
    ASSERT_TRUE(core::MapEditor(*m_store).setShardState("s1", core::ShardState::Draining, m_actor));
    auto controller = startController("c1");
    ASSERT_TRUE(controller);
    grpc::Status status;
    write(*controller, { makeDoc("acme", "d1", 1, "hello replica") }, &status);
    ASSERT_TRUE(status.ok()) << status.error_message();

    m_nodes[0]->kill9();
    v1::RouterSearchResponse found;
    for (int i = 0; i < 2; ++i) {
        found.Clear();
        status = search(*controller, { "acme" }, "hello", &found);
        ASSERT_TRUE(status.ok()) << status.error_message();
        EXPECT_EQ(found.hits_size(), 1);
    }
    status = search(*controller, { "acme" }, "hello", &found, 20, 0, true);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
    status = search(*controller, { "nowhere" }, "hello", &found, 20, 0, true);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND) << status.error_message();
}

TEST_F(ControllerTest, AMissingStoreIsRefusedWithAHint)
{
    const auto exit = runToExit(m_dir.file("missing.stderr.log"),
        { "--store", "sqlite:" + m_dir.file("no-such-map.db"), "--listen", "127.0.0.1:0" });
    ASSERT_TRUE(exit.code);
    EXPECT_NE(*exit.code, 0);
    EXPECT_NE(exit.err.find("shardmapctl init"), std::string::npos) << exit.err;
    EXPECT_FALSE(std::filesystem::exists(m_dir.file("no-such-map.db"))) << "shardmapd must not create a store";
}

TEST_F(ControllerTest, ANonLoopbackAddressNeedsTlsOrInsecure)
{
    const auto refused = runToExit(m_dir.file("public.stderr.log"), { "--store", storeUri(), "--listen", "0.0.0.0:0" });
    ASSERT_TRUE(refused.code);
    EXPECT_NE(*refused.code, 0);
    EXPECT_NE(refused.err.find("without TLS"), std::string::npos) << refused.err;

    auto insecure = ControllerProcess::start(m_dir.file("insecure.stderr.log"),
        { "--store", storeUri(), "--listen", "0.0.0.0:0", "--insecure", "--id", "open" });
    ASSERT_TRUE(insecure);
    EXPECT_EQ(insecure->health(""), HealthCheckResponse::SERVING);
}

TEST_F(ControllerTest, ExactlyOneReplicaLeadsAndAStandbyTakesOverWhenItIsKilled)
{
    auto a = startController("ca", { "--lease-ttl-ms", "1000" });
    auto b = startController("cb", { "--lease-ttl-ms", "1000" });
    ASSERT_TRUE(a && b);
    ASSERT_TRUE(pollUntil(std::chrono::seconds(5), [&] { return a->leads() || b->leads(); }))
        << "no replica leads; stderr:\n"
        << a->stderrText() << b->stderrText();
    // Over several renewal periods the leadership stays with one replica and the other stands by.
    const bool aLeads = a->leads();
    for (int i = 0; i < 8; ++i) {
        EXPECT_EQ(a->leads(), aLeads);
        EXPECT_EQ(b->leads(), !aLeads);
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    auto& leader = aLeads ? a : b;
    auto& standby = aLeads ? b : a;
    EXPECT_EQ(standby->health(kExecutorHealth), HealthCheckResponse::NOT_SERVING);

    // Both replicas route: a space written through one resolves at once through the other.
    grpc::Status status;
    write(*leader, { makeDoc("acme", "d1", 1, "hello") }, &status);
    ASSERT_TRUE(status.ok()) << status.error_message();
    v1::ResolveResponse route;
    ASSERT_TRUE(resolve(*standby, "acme", &route).ok());
    EXPECT_EQ(route.epoch(), 1u);

    leader->process().signal(SIGKILL);
    ASSERT_TRUE(leader->process().wait(std::chrono::seconds(5)));
    const auto killed = std::chrono::steady_clock::now();
    ASSERT_TRUE(pollUntil(std::chrono::seconds(4), [&] { return standby->leads(); }))
        << "the standby did not take over; stderr:\n"
        << standby->stderrText();
    const auto takeover = std::chrono::steady_clock::now() - killed;
    // At most a TTL for the lease to expire plus a renewal period to notice, with slack.
    EXPECT_LT(takeover, std::chrono::milliseconds(2500));
    EXPECT_NE(standby->stderrText().find("holds the executor lease"), std::string::npos);

    // The new leader's lease has a new token, so anything the old one fenced with is refused.
    auto lease = m_store->acquireLease("executor", "probe", std::chrono::milliseconds(1000));
    ASSERT_FALSE(lease);
    EXPECT_TRUE(lease.error().details.at("holder").starts_with(aLeads ? "cb#" : "ca#"))
        << lease.error().details.at("holder");
    EXPECT_EQ(lease.error().details.at("token"), "2");
}

// Issue 14, defect 4: two processes started with the same --id (a restarted unit while the old one
// still runs, a copy-pasted config) must not share one lease token: one leads, the other stands by.
TEST_F(ControllerTest, TwoProcessesWithTheSameIdNeverBothLead)
{
    auto a = startController("twin", { "--lease-ttl-ms", "1000" });
    ASSERT_TRUE(a);
    ASSERT_TRUE(pollUntil(std::chrono::seconds(5), [&] { return a->leads(); })) << a->stderrText();
    auto b = startController("twin", { "--lease-ttl-ms", "1000" });
    ASSERT_TRUE(b);
    for (int i = 0; i < 10; ++i) {
        EXPECT_TRUE(a->leads());
        EXPECT_FALSE(b->leads()) << "both processes lead with one token";
        std::this_thread::sleep_for(std::chrono::milliseconds(150));
    }
    EXPECT_NE(b->stderrText().find("standing by: the executor lease is held by 'twin#"), std::string::npos)
        << b->stderrText();
}

// Issue 14, defect 10: a router whose store watch dies watches again from where it was and sees
// later changes; one that cannot says so on its health (NOT_SERVING) instead of serving a frozen
// table. The failpoint makes the watch's second read (the first after a commit) fail for good, as
// a store read would.
TEST_F(ControllerTest, ARouterWhoseWatchDiesWatchesAgainAndIsNotServingMeanwhile)
{
    // Without the executor, whose watch would take the failpoint's hits too.
    auto c = ControllerProcess::start(m_dir.file("cw.stderr.log"),
        { "--store", storeUri(), "--id", "cw", "--no-executor" }, { "SHARDMAP_FAILPOINTS=store.watch.read=error@2" });
    ASSERT_TRUE(c);
    grpc::Status status;
    write(*c, { makeDoc("acme", "d1", 1, "hello") }, &status);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_TRUE(pollUntil(std::chrono::seconds(10), [&] {
        return c->stderrText().find("router: watching the map again") != std::string::npos;
    })) << c->stderrText();
    EXPECT_NE(c->stderrText().find("the map watch ended"), std::string::npos);

    // A change made after the watch died reaches the router's table.
    v1::ResolveResponse before;
    ASSERT_TRUE(resolve(*c, "acme", &before).ok());
    const std::string other = before.shard() == "s0" ? "s1" : "s0";
    core::MapEditor editor(*m_store);
    ASSERT_TRUE(editor.reassignSpace("acme", other, m_actor));
    EXPECT_TRUE(pollUntil(std::chrono::seconds(5), [&] {
        v1::ResolveResponse now;
        return resolve(*c, "acme", &now).ok() && now.shard() == other;
    })) << "the router serves a frozen table";
    EXPECT_EQ(c->health("shardmap.v1.Router"), HealthCheckResponse::SERVING);

    // Every read failing from the second on: it keeps trying and reports NOT_SERVING.
    auto stuck = ControllerProcess::start(m_dir.file("cs.stderr.log"),
        { "--store", storeUri(), "--id", "cs", "--no-executor" }, { "SHARDMAP_FAILPOINTS=store.watch.read=error@2+" });
    ASSERT_TRUE(stuck);
    ASSERT_TRUE(editor.reassignSpace("acme", before.shard(), m_actor)); // a commit for it to read
    EXPECT_TRUE(pollUntil(std::chrono::seconds(10), [&] {
        return stuck->health("shardmap.v1.Router") == HealthCheckResponse::NOT_SERVING;
    })) << stuck->stderrText();
}

// Issue 14, defect 6: a cutover aborted after the map committed the fence's epoch with the source
// as owner, and the executor's call re-owning the source was lost (or it died there): the node
// holds the source fenced at the map's own epoch. Routers must re-own it on the first refusal
// instead of leaving the space unwritable until the executor's next step.
TEST_F(ControllerTest, ASourceFencedAtTheMapsOwnEpochIsOwnedAgainByTheRouter)
{
    auto c = startController("cf", { "--no-executor" });
    ASSERT_TRUE(c);
    grpc::Status status;
    write(*c, { makeDoc("acme", "d1", 1, "before") }, &status);
    ASSERT_TRUE(status.ok()) << status.error_message();
    auto snapshot = core::MapSnapshot::decode(*m_store->snapshot());
    auto sp = snapshot->spaces.at("acme");
    const std::string shard = sp.value.shard;
    const std::uint64_t fence = sp.value.epoch + 1;
    sp.value.epoch = fence;
    ASSERT_TRUE(m_store->commit({ { { core::keys::space("acme"), core::encode(sp.value), sp.modRevision } },
        std::nullopt, std::nullopt, "executor", "migration-cutover-abort", "" }));
    ASSERT_TRUE(nodeOf(shard)->setOwnership(shard, { "acme", core::SpaceRole::Fenced, fence }));

    const auto response = write(*c, { makeDoc("acme", "d2", 1, "after") }, &status);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_EQ(response.results_size(), 1);
    EXPECT_EQ(response.results(0).outcome(), v1::WRITE_OUTCOME_APPLIED);
    auto owner = nodeOf(shard)->ownerships(shard, "acme");
    ASSERT_TRUE(owner && owner->size() == 1);
    EXPECT_EQ(owner->front().role, core::SpaceRole::Owner);
    EXPECT_EQ(owner->front().epoch, fence);
}

TEST_F(ControllerTest, SigtermReleasesTheLeaseAndExitsZero)
{
    // A long TTL: the standby can only take over this quickly if the leader gave the lease back.
    auto a = startController("ca", { "--lease-ttl-ms", "6000" });
    ASSERT_TRUE(a);
    ASSERT_TRUE(pollUntil(std::chrono::seconds(5), [&] { return a->leads(); })) << a->stderrText();
    auto b = startController("cb", { "--lease-ttl-ms", "6000" });
    ASSERT_TRUE(b);
    EXPECT_EQ(b->health(kExecutorHealth), HealthCheckResponse::NOT_SERVING);

    a->disconnect();
    const auto stopped = std::chrono::steady_clock::now();
    a->process().signal(SIGTERM);
    // Without the release the standby would wait out the TTL (6 s) plus up to a renewal period.
    ASSERT_TRUE(pollUntil(std::chrono::seconds(5), [&] { return b->leads(); })) << b->stderrText();
    EXPECT_LT(std::chrono::steady_clock::now() - stopped, std::chrono::milliseconds(4500));
    const auto code = a->process().wait(std::chrono::seconds(15));
    ASSERT_TRUE(code) << "shardmapd did not stop";
    EXPECT_EQ(*code, 0) << a->stderrText();
    EXPECT_NE(a->stderrText().find("released the executor lease"), std::string::npos) << a->stderrText();
}

TEST_F(ControllerTest, APausedLeaderThatLostItsLeaseStepsDown)
{
    auto a = startController("ca", { "--lease-ttl-ms", "1000" });
    ASSERT_TRUE(a);
    ASSERT_TRUE(pollUntil(std::chrono::seconds(5), [&] { return a->leads(); })) << a->stderrText();
    auto b = startController("cb", { "--lease-ttl-ms", "1000" });
    ASSERT_TRUE(b);

    // A leader frozen past its TTL (a long GC pause, a stopped VM) comes back to find the lease
    // taken; its renewal is refused and it must stop acting as the executor. Frozen outside a
    // commit of the SQLite store, whose write lock it would otherwise keep (sqlite_store_lock.h).
    ASSERT_TRUE(stopOutsideSqliteCommit(a->process(), m_dir.file("map.db")));
    ASSERT_TRUE(pollUntil(std::chrono::seconds(4), [&] { return b->leads(); })) << b->stderrText();
    a->process().signal(SIGCONT);
    ASSERT_TRUE(pollUntil(std::chrono::seconds(3), [&] {
        return a->health(kExecutorHealth) == HealthCheckResponse::NOT_SERVING;
    })) << a->stderrText();
    EXPECT_TRUE(b->leads());
    // Whichever wakes first says why: the renewal refused by the store, or the watchdog seeing
    // the lease's end pass while the renewal was still on its way.
    const auto log = a->stderrText();
    EXPECT_TRUE(log.find("lost the executor lease") != std::string::npos
        || log.find("the executor lease expired while renewing") != std::string::npos)
        << log;
}
