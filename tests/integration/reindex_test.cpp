// Issue 31's reindex end to end: real nodes, a real shardmapd running the executor, a real shard
// map. The fleet moves from unicode61 to porter stemming with `shardmapctl reindex --all` while
// writers write through shardmapd's router and a searcher searches through another router: every
// acknowledged write is on the new shards, no search fails, "running" finds "runs" from its space's
// cutover on and not before, and the old shards are retired.
#include "core/map/index_templates.h"
#include "core/map/map_editor.h"
#include "core/migration/migration_requests.h"
#include "core/router/router.h"
#include "ctl_run.h"
#include "node_test_helpers.h"
#include "tests/support/controller_process.h"
#include "tests/support/fleet_test.h"
#include "tests/support/workload.h"

#include <algorithm>
#include <atomic>
#include <thread>

using namespace shardmap;
using namespace shardmap::testing;

namespace {

const std::vector<std::string> kReindexSpaces { "a1", "a2", "a3", "a4" };

class ReindexTest : public FleetTest<::testing::Test> {
protected:
    void SetUp() override
    {
        startFleet(2);
        core::MigrationSettings settings;
        // No rollback window: the old shard is emptied right after each cutover, so a router whose
        // map lags the cutover by a few milliseconds meets a shard that holds the space fenced; it
        // must be refused there and ask the new shard, not answer from an emptied one.
        settings.rollbackWindowSeconds = 0;
        settings.backfillBatch = 100;
        core::MigrationRequests requests(*m_store, m_pool);
        ASSERT_TRUE(requests.setSettings(settings, m_actor));
        core::IndexSettings stemmed = core::defaultIndexSettings();
        stemmed.tokenizer = core::Tokenizer::Porter;
        core::MapEditor editor(*m_store);
        auto created = editor.createTemplate("stemmed", stemmed, "English stemming", m_actor);
        ASSERT_TRUE(created) << created.error().describe();
    }

    std::unique_ptr<ControllerProcess> startController(const std::string& id, const std::vector<std::string>& env = {})
    {
        return ControllerProcess::start(
            m_dir.file(id + ".stderr.log"), { "--store", storeUri(), "--id", id, "--lease-ttl-ms", "1000" }, env);
    }

    CtlRun ctl(std::vector<std::string> args) { return runCtl(m_dir, storeUri(), args); }

    core::MapSnapshot map() { return *core::MapSnapshot::decode(*m_store->snapshot()); }

    // The hits of `query` in a space through a router (nullopt: the search failed).
    static std::optional<std::size_t> hits(core::Router& router, const std::string& space, const std::string& query)
    {
        core::ShardSearchRequest request;
        request.spaces = { space };
        request.query = query;
        request.limit = 50;
        auto found = router.search(request, false);
        return found ? std::optional<std::size_t>(found->hits.size()) : std::nullopt;
    }

    bool operationEnded(const std::string& id)
    {
        const auto snapshot = map();
        const auto found = snapshot.operations.find(id);
        return found != snapshot.operations.end() && found->second.value.state != core::OperationState::Running;
    }
};

} // namespace

TEST_F(ReindexTest, TheFleetMovesToPorterStemmingLiveWithNothingLostAndNoSearchFailed)
{
    auto controller = startController("c1");
    ASSERT_TRUE(controller);
    Workload workload({ kReindexSpaces, 120, 2, 4, 0.2, std::chrono::milliseconds(3), 31 },
        { routerServicePath(controller->address()) });
    ASSERT_TRUE(workload.prefill()) << workload.lastError();
    auto router = core::Router::start(*m_store, m_pool, {});
    ASSERT_TRUE(router) << router.error().describe();
    // A document only a stemmed index finds by "running", in every space.
    for (const auto& space : kReindexSpaces) {
        core::Document doc;
        doc.space = space;
        doc.id = "stem-" + space;
        doc.version = 1;
        doc.fields = { { "title", "daily" }, { "body", "she runs every morning" } };
        auto written = (*router)->write({ doc });
        ASSERT_TRUE(written) << written.error().describe();
        EXPECT_EQ(hits(**router, space, "running"), 0u) << "unicode61 does not stem";
        EXPECT_EQ(hits(**router, space, "runs"), 1u);
    }

    auto preview = ctl({ "reindex", "--all", "--to-template", "stemmed" });
    ASSERT_EQ(preview.code, 0) << preview.err;
    EXPECT_NE(preview.out.find("reindex s0 into s0-stemmed-v1 (template stemmed:1)"), std::string::npos) << preview.out;
    EXPECT_EQ(map().operations.size(), 0u) << "the plan is only shown without --apply";

    // "runs" finds the document on either index; "running" only on a stemmed one, so it must match
    // exactly when the router's route for the space names its new shard, before and after the
    // search (a route that changed during the search says nothing).
    std::atomic<bool> searching { true };
    std::atomic<std::size_t> searches { 0 }, failed { 0 }, mixed { 0 };
    std::string firstFailure;
    std::thread searcher([&] {
        for (std::size_t i = 0; searching; ++i) {
            const std::string& space = kReindexSpaces[i / 2 % kReindexSpaces.size()];
            const bool stemmedQuery = i % 2 == 1;
            const std::string before = (*router)->resolve(space)->shard;
            const auto found = hits(**router, space, stemmedQuery ? "running" : "runs");
            const std::string after = (*router)->resolve(space)->shard;
            const bool rebuilt = after.ends_with("-stemmed-v1");
            ++searches;
            const std::size_t onNew = std::count_if(kReindexSpaces.begin(), kReindexSpaces.end(),
                [&](const std::string& s) { return (*router)->resolve(s)->shard.ends_with("-stemmed-v1"); });
            mixed += onNew > 0 && onNew < kReindexSpaces.size() ? 1 : 0;
            const std::size_t expected = stemmedQuery && !rebuilt ? 0 : 1;
            if (!found || (before == after && *found != expected)) {
                if (failed++ == 0)
                    firstFailure = space + (stemmedQuery ? " running on " : " runs on ") + after + ": "
                        + (found ? std::to_string(*found) + " hits" : std::string("failed"));
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    });
    workload.start();
    auto applied = ctl({ "--json", "reindex", "--all", "--to-template", "stemmed", "--apply" });
    ASSERT_EQ(applied.code, 0) << applied.err;
    const std::string operation = applied.parsed()["operation"]["id"].get<std::string>();
    const bool ended = pollUntil(std::chrono::seconds(120), [&] { return operationEnded(operation); });
    workload.stop();
    searching = false;
    searcher.join();
    ASSERT_TRUE(ended) << controller->stderrText();
    ASSERT_TRUE(workload.settle(std::chrono::seconds(20))) << workload.lastError();

    const auto after = map();
    const auto& op = after.operations.at(operation).value;
    EXPECT_EQ(op.state, core::OperationState::Done) << op.error;
    EXPECT_EQ(op.kind, core::OperationKind::Reindex);
    // One operation, one report: a row per space with its documents, time and write hold.
    auto report = ctl({ "report", "--operation", operation, "--format", "json" });
    ASSERT_EQ(report.code, 0) << report.err;
    const auto reported = report.parsed();
    ASSERT_EQ(reported["operations"].size(), 1u) << reported.dump();
    EXPECT_EQ(reported["operations"][0]["kind"], "reindex");
    ASSERT_EQ(reported["migrations"].size(), kReindexSpaces.size()) << reported.dump();
    for (const auto& row : reported["migrations"]) {
        EXPECT_EQ(row["outcome"], "done") << row.dump();
        EXPECT_GT(row["docs_done"].get<std::uint64_t>(), 0u) << row.dump();
        EXPECT_GT(row["duration_ms"].get<std::uint64_t>(), 0u) << row.dump();
        EXPECT_TRUE(row["write_hold_ms"].is_number()) << row.dump();
    }
    EXPECT_TRUE(workload.anomalies().empty()) << workload.anomalies().front();
    EXPECT_GT(searches.load(), 20u);
    EXPECT_EQ(failed.load(), 0u) << "of " << searches.load() << " searches; the first: " << firstFailure;
    EXPECT_GT(mixed.load(), 0u) << "some searches ran while some spaces were rebuilt and others not";
    for (const std::string old : { "s0", "s1" }) {
        const std::string rebuilt = old + "-stemmed-v1";
        ASSERT_TRUE(after.shard(rebuilt)) << rebuilt;
        EXPECT_EQ(core::templateOf(*after.shard(rebuilt)).name, "stemmed");
        EXPECT_EQ(after.shard(rebuilt)->node, old == "s0" ? "n0" : "n1") << "rebuilt on its own node";
    }
    // The old shards, retired once past the rollback window, are dropped on their nodes and taken
    // off the map by the executor.
    ASSERT_TRUE(pollUntil(std::chrono::seconds(30), [&] { return !map().shard("s0") && !map().shard("s1"); }))
        << controller->stderrText();
    for (std::size_t i = 0; i < 2; ++i) {
        auto listed = (*m_pool.get(m_nodes[i]->address()))->listShards();
        ASSERT_TRUE(listed) << listed.error().describe();
        for (const auto& shard : *listed)
            EXPECT_NE(shard.id, "s" + std::to_string(i)) << "still on node n" << i;
    }
    auto history = m_store->history(0, 0, 0);
    ASSERT_TRUE(history);
    EXPECT_EQ(
        std::count_if(history->begin(), history->end(), [](const auto& r) { return r.action == "remove-shard"; }), 2);
    for (const auto& space : kReindexSpaces) {
        const std::string shard = after.space(space)->shard;
        EXPECT_EQ(core::templateOf(*after.shard(shard)).name, "stemmed") << space;
        // The workload's documents as it acknowledged them (the stem- document is the test's own).
        auto differences = compareWithModel(*nodeOf(shard), shard, space, workload.model(space));
        std::erase_if(differences, [](const std::string& line) { return line.starts_with("stem-"); });
        EXPECT_EQ(differences, std::vector<std::string> {}) << space;
        EXPECT_EQ(hits(**router, space, "running"), 1u) << space << ": porter stems running and runs alike";
    }
}

TEST_F(ReindexTest, AReindexIsRefusedWithItsReasonAndQueuesNothing)
{
    auto unknown = ctl({ "reindex", "--all", "--to-template", "nothing" });
    EXPECT_EQ(unknown.code, 3) << unknown.err;
    EXPECT_NE(unknown.err.find("no index template nothing"), std::string::npos) << unknown.err;
    auto twoWays = ctl({ "reindex", "--shard", "s0", "--all", "--to-template", "stemmed" });
    EXPECT_EQ(twoWays.code, 2) << twoWays.err;
    auto none = ctl({ "reindex", "--to-template", "stemmed" });
    EXPECT_EQ(none.code, 2) << none.err;
    EXPECT_NE(none.err.find("name the shards to reindex one way"), std::string::npos) << none.err;
    auto same = ctl({ "reindex", "--template", "default", "--to-template", "default" });
    EXPECT_EQ(same.code, 5) << same.err;
    EXPECT_NE(same.err.find("nothing to reindex"), std::string::npos) << same.err;
    auto missing = ctl({ "reindex", "--shard", "s9", "--to-template", "stemmed" });
    EXPECT_EQ(missing.code, 3) << missing.err;
    EXPECT_EQ(map().operations.size(), 0u);
}

// A controller killed in the middle of a reindex: the next one finishes it. Within the rollback
// window every space goes back to its old shard with the writes made meanwhile.
TEST_F(ReindexTest, AControllerKilledMidReindexIsFinishedByTheNextAndARollbackReturnsEverySpace)
{
    core::MigrationSettings settings;
    settings.rollbackWindowSeconds = 120;
    settings.backfillBatch = 50;
    core::MigrationRequests requests(*m_store, m_pool);
    ASSERT_TRUE(requests.setSettings(settings, m_actor));
    auto first = startController("c1", { "SHARDMAP_FAILPOINTS=migration.backfill.batch=kill@2" });
    ASSERT_TRUE(first);
    // Writers through a router of their own: they write on while the controller is down.
    auto router = core::Router::start(*m_store, m_pool, {});
    ASSERT_TRUE(router) << router.error().describe();
    Workload writers({ kReindexSpaces, 150, 2, 4, 0.2, std::chrono::milliseconds(3), 37 },
        { inProcessRouterPath(std::shared_ptr<core::Router>(std::move(*router))) });
    ASSERT_TRUE(writers.prefill()) << writers.lastError();
    writers.start();
    std::map<std::string, std::string> before;
    for (const auto& space : kReindexSpaces)
        before[space] = map().space(space)->shard;
    auto applied = ctl({ "--json", "reindex", "--all", "--to-template", "stemmed", "--apply" });
    ASSERT_EQ(applied.code, 0) << applied.err;
    const std::string operation = applied.parsed()["operation"]["id"].get<std::string>();
    ASSERT_TRUE(first->process().wait(std::chrono::seconds(60))) << "the failpoint never fired";
    const auto killed = map();
    const auto& queuedIds = killed.operations.at(operation).value.migrations;
    EXPECT_TRUE(std::any_of(queuedIds.begin(), queuedIds.end(), [&](const std::string& id) {
        return killed.migrations.at(id).value.phase == core::MigrationPhase::Backfill;
    })) << "killed in the middle of a backfill";

    auto second = startController("c2");
    ASSERT_TRUE(second);
    const auto migrations = map().operations.at(operation).value.migrations;
    ASSERT_EQ(migrations.size(), kReindexSpaces.size());
    ASSERT_TRUE(pollUntil(std::chrono::seconds(120), [&] {
        const auto now = map();
        return std::all_of(migrations.begin(), migrations.end(),
            [&](const std::string& id) { return now.migrations.at(id).value.phase == core::MigrationPhase::Cleanup; });
    })) << second->stderrText();
    for (const auto& space : kReindexSpaces)
        EXPECT_EQ(map().space(space)->shard, before[space] + "-stemmed-v1") << space;

    for (const std::string& id : migrations)
        ASSERT_TRUE(requests.rollback(id, m_actor)) << id;
    ASSERT_TRUE(pollUntil(std::chrono::seconds(120), [&] {
        const auto now = map();
        return std::none_of(migrations.begin(), migrations.end(),
            [&](const std::string& id) { return now.migrations.at(id).value.active(); });
    })) << second->stderrText();
    writers.stop();
    ASSERT_TRUE(writers.settle(std::chrono::seconds(20))) << writers.lastError();
    EXPECT_TRUE(writers.anomalies().empty()) << writers.anomalies().front();
    for (const auto& space : kReindexSpaces) {
        EXPECT_EQ(map().space(space)->shard, before[space]) << space << " went back";
        EXPECT_EQ(compareWithModel(*nodeOf(before[space]), before[space], space, writers.model(space)),
            std::vector<std::string> {})
            << space;
    }
}

// A field added and a weight changed (issue 31): before the reindex summary:term is refused and the
// body with more matches ranks first; after it, summary:term finds the document whose summary
// says so, and the title weighted 10 puts the title match first.
TEST_F(ReindexTest, AFieldAddedAndAWeightChangedTakeEffectAtTheReindex)
{
    auto controller = startController("c1");
    ASSERT_TRUE(controller);
    auto router = core::Router::start(*m_store, m_pool, {});
    ASSERT_TRUE(router) << router.error().describe();
    std::vector<core::Document> docs(2);
    docs[0].id = "in-title";
    docs[0].fields = { { "title", "alpha" }, { "body", "one two three four five six" } };
    docs[1].id = "in-body";
    docs[1].fields = { { "title", "other" }, { "body", "alpha alpha alpha six seven" }, { "summary", "glossary" } };
    for (auto& doc : docs) {
        doc.space = "ranked";
        doc.version = 1;
    }
    ASSERT_TRUE((*router)->write(docs));
    const auto order = [&](const std::string& query) -> std::vector<std::string> {
        core::ShardSearchRequest request;
        request.spaces = { "ranked" };
        request.query = query;
        auto found = (*router)->search(request, false);
        if (!found)
            return { "error: " + found.error().message };
        std::vector<std::string> ids;
        for (const auto& hit : found->hits)
            ids.push_back(hit.id);
        return ids;
    };
    EXPECT_EQ(order("alpha"), (std::vector<std::string> { "in-body", "in-title" }));
    EXPECT_NE(order("summary:glossary").front().find("unknown field 'summary'"), std::string::npos);

    core::IndexSettings weighted = core::defaultIndexSettings();
    weighted.fields[0].weight = 10.0;
    weighted.fields.push_back({ "summary", true, 1.0 });
    core::MapEditor editor(*m_store);
    ASSERT_TRUE(editor.createTemplate("titles", weighted, "", m_actor));
    const std::string shard = map().space("ranked")->shard;
    auto applied = ctl({ "--json", "reindex", "--shard", shard, "--to-template", "titles", "--apply" });
    ASSERT_EQ(applied.code, 0) << applied.err;
    const std::string operation = applied.parsed()["operation"]["id"].get<std::string>();
    ASSERT_TRUE(pollUntil(std::chrono::seconds(60), [&] { return operationEnded(operation); }))
        << controller->stderrText();
    EXPECT_EQ(map().space("ranked")->shard, shard + "-titles-v1");
    EXPECT_EQ(order("alpha"), (std::vector<std::string> { "in-title", "in-body" }));
    EXPECT_EQ(order("summary:glossary"), std::vector<std::string> { "in-body" });
}
