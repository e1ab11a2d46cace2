// The one way a shard is made (core/fleet/shard_creation.h), against real node servers on loopback
// (in-process) and an SQLite map: a refused map entry or a refusing node leaves no half-made shard,
// and FleetAdmin::createShard and an operation's new shards come out alike.
#include "core/admin/fleet_admin.h"
#include "core/fleet/shard_creation.h"
#include "core/node/node_server.h"
#include "core/store/read_only_store.h"
#include "core/util/failpoint.h"
#include "tests/support/test_dir.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <limits>
#include <map>

using namespace shardmap::core;
using shardmap::testing::TempDir;

namespace {

// n0 takes shards; n1 refuses them: its disk reserve is more than any disk has free.
class ShardCreationTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        startNode("n0", 0);
        startNode("n1", std::numeric_limits<std::uint64_t>::max() / 2);
        if (HasFatalFailure())
            return;
        auto store = openStore(storeUri(), true);
        ASSERT_TRUE(store) << store.error().describe();
        m_store = std::move(*store);
        FleetAdmin admin(*m_store, m_pool);
        for (std::size_t i = 0; i < m_servers.size(); ++i) {
            const std::string node = "n" + std::to_string(i);
            ASSERT_TRUE(admin.map().addNode({ node, m_servers[i]->address(), {}, false }, m_actor));
        }
        auto created = admin.createShard({ "s0", "n0" }, m_actor);
        ASSERT_TRUE(created) << created.error().describe();
    }

    void TearDown() override
    {
        ASSERT_TRUE(setFailpoints(""));
        for (auto& server : m_servers)
            server->shutdown(std::chrono::seconds(1));
    }

    void startNode(const std::string& id, std::uint64_t minFreeBytes)
    {
        NodeServerConfig config;
        config.listen = "127.0.0.1:0";
        config.dataDir = m_dir.file(id);
        config.nodeId = id;
        config.minFreeBytes = minFreeBytes;
        auto server = NodeServer::start(config);
        ASSERT_TRUE(server) << server.error().describe();
        m_servers.push_back(std::move(*server));
    }

    std::string storeUri() const { return "sqlite:" + m_dir.file("map.db"); }

    // The same map through a connection that refuses every change: the map step of a create fails.
    std::unique_ptr<MetadataStore> refusingStore() const
    {
        auto store = openStore(storeUri(), false);
        EXPECT_TRUE(store) << store.error().describe();
        return store ? makeReadOnly(std::move(*store)) : nullptr;
    }

    std::shared_ptr<NodeClient> node(std::size_t i) { return *m_pool.get(m_servers.at(i)->address()); }

    std::vector<ShardSummary> shardsOn(std::size_t i)
    {
        auto shards = node(i)->listShards();
        EXPECT_TRUE(shards) << shards.error().describe();
        std::vector<ShardSummary> out = shards ? *shards : std::vector<ShardSummary> {};
        std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
        return out;
    }

    std::vector<std::string> shardIdsOn(std::size_t i)
    {
        std::vector<std::string> ids;
        for (const ShardSummary& shard : shardsOn(i))
            ids.push_back(shard.id);
        return ids;
    }

    MapSnapshot map()
    {
        auto raw = m_store->snapshot();
        EXPECT_TRUE(raw);
        auto decoded = raw ? MapSnapshot::decode(*raw) : Result<MapSnapshot>(raw.error());
        EXPECT_TRUE(decoded);
        return decoded ? *decoded : MapSnapshot {};
    }

    // A plan that only creates shards: CreateShard by another name, made as an operation. The
    // records' engine is not the plan's to choose: its shards take the fleet's default_engine.
    Plan creating(const std::vector<NewShard>& shards)
    {
        Plan plan;
        plan.baseRevision = map().revision;
        for (const NewShard& shard : shards)
            plan.newShards.push_back(newShardRecord(shard, IndexEngine::Fts5));
        return plan;
    }

    void setDefaultEngine(IndexEngine engine)
    {
        MigrationSettings settings;
        settings.defaultEngine = engine;
        auto saved = MigrationRequests(*m_store, m_pool).setSettings(settings, m_actor);
        ASSERT_TRUE(saved) << saved.error().describe();
    }

    // What node i says each of its shards is made with.
    std::map<std::string, std::string> enginesOn(std::size_t i)
    {
        std::map<std::string, std::string> engines;
        for (const ShardSummary& shard : shardsOn(i))
            engines[shard.id] = shard.engine;
        return engines;
    }

    TempDir m_dir;
    std::vector<std::unique_ptr<NodeServer>> m_servers;
    std::unique_ptr<MetadataStore> m_store;
    NodeClientPool m_pool;
    Actor m_actor { "test", "shard creation test" };
};

TEST_F(ShardCreationTest, ARefusedMapEntryTakesTheNodesShardBack)
{
    auto store = refusingStore();
    ASSERT_TRUE(store);
    FleetAdmin admin(*store, m_pool);
    auto created = admin.createShard({ "s9", "n0" }, m_actor);
    ASSERT_FALSE(created);
    EXPECT_TRUE(isReadOnlyRefusal(created.error())) << created.error().describe();
    EXPECT_EQ(created.error().message.find("remains"), std::string::npos) << created.error().message;
    EXPECT_EQ(shardIdsOn(0), std::vector<std::string> { "s0" }) << "the refused create left its shard";
    EXPECT_FALSE(map().shard("s9"));
}

TEST_F(ShardCreationTest, AShardThatCannotBeTakenBackIsNamedWithItsRemedy)
{
    ASSERT_TRUE(setFailpoints("admin.create_shard.drop=error"));
    auto store = refusingStore();
    ASSERT_TRUE(store);
    auto stuck = FleetAdmin(*store, m_pool).createShard({ "s9", "n0" }, m_actor);
    ASSERT_FALSE(stuck);
    EXPECT_NE(stuck.error().message.find("shard s9 remains on node n0"), std::string::npos) << stuck.error().message;
    EXPECT_NE(stuck.error().message.find("delete shards/s9.db"), std::string::npos) << stuck.error().message;
    Error error = stuck.error();
    EXPECT_EQ(error.details["shard_left_on_node"], "n0");
    EXPECT_EQ(shardIdsOn(0), (std::vector<std::string> { "s0", "s9" }));

    // The remedy it names: a create the store accepts takes the node's shard as created.
    ASSERT_TRUE(setFailpoints(""));
    auto again = FleetAdmin(*m_store, m_pool).createShard({ "s9", "n0" }, m_actor);
    ASSERT_TRUE(again) << again.error().describe();
    EXPECT_TRUE(map().shard("s9"));
}

TEST_F(ShardCreationTest, AShardTheNodeHadBeforeIsNotTakenBack)
{
    ASSERT_TRUE(node(0)->createShard("s9", {}));
    auto store = refusingStore();
    ASSERT_TRUE(store);
    EXPECT_FALSE(FleetAdmin(*store, m_pool).createShard({ "s9", "n0" }, m_actor));
    EXPECT_EQ(shardIdsOn(0), (std::vector<std::string> { "s0", "s9" })) << "not this create's to take back";
}

TEST_F(ShardCreationTest, ARefusingNodeMakesNothing)
{
    auto refused = FleetAdmin(*m_store, m_pool).createShard({ "s9", "n1" }, m_actor);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ErrorCode::ResourceExhausted) << refused.error().describe();
    EXPECT_NE(refused.error().message.find("cannot create shard s9 on node n1"), std::string::npos)
        << refused.error().message;
    EXPECT_TRUE(shardIdsOn(1).empty());
    EXPECT_FALSE(map().shard("s9"));
}

TEST_F(ShardCreationTest, AnOperationWhoseNodeRefusesAShardTakesBackTheOnesItMade)
{
    MigrationRequests requests(*m_store, m_pool);
    auto applied = requests.applyPlan(creating({ { "s8", "n0" }, { "s9", "n1" } }), m_actor);
    ASSERT_FALSE(applied);
    EXPECT_NE(applied.error().message.find("cannot create shard s9 on node n1"), std::string::npos)
        << applied.error().message;
    EXPECT_EQ(shardIdsOn(0), std::vector<std::string> { "s0" }) << "s8 was made on n0 and must go again";
    EXPECT_FALSE(map().shard("s8"));
}

TEST_F(ShardCreationTest, AnOperationWhoseCommitIsRefusedTakesItsShardsBack)
{
    auto store = refusingStore();
    ASSERT_TRUE(store);
    MigrationRequests requests(*store, m_pool);
    auto applied = requests.applyPlan(creating({ { "s8", "n0" } }), m_actor);
    ASSERT_FALSE(applied);
    EXPECT_TRUE(isReadOnlyRefusal(applied.error())) << applied.error().describe();
    EXPECT_EQ(shardIdsOn(0), std::vector<std::string> { "s0" });
}

TEST_F(ShardCreationTest, EveryCallerMakesTheSameShard)
{
    FleetAdmin admin(*m_store, m_pool);
    ASSERT_TRUE(admin.createShard({ "s7", "n0" }, m_actor));
    auto applied = admin.migrations().applyPlan(creating({ { "s8", "n0" } }), m_actor);
    ASSERT_TRUE(applied) << applied.error().describe();

    const auto shards = shardsOn(0);
    ASSERT_EQ(shards.size(), 3u);
    for (const ShardSummary& shard : shards)
        EXPECT_EQ(shard.fields, (std::vector<std::string> { "title", "body", "tags" })) << shard.id;
    const MapSnapshot after = map();
    ASSERT_TRUE(after.shard("s7") && after.shard("s8"));
    ShardRecord operations = *after.shard("s8");
    operations.id = "s7";
    EXPECT_EQ(operations, *after.shard("s7"));
    EXPECT_EQ(after.shard("s7")->state, ShardState::Active);
}

TEST_F(ShardCreationTest, NewShardsTakeTheFleetsDefaultEngineUnlessTheyNameOne)
{
    FleetAdmin admin(*m_store, m_pool);
    ASSERT_TRUE(admin.createShard({ "s5", "n0" }, m_actor));
    EXPECT_EQ(map().shard("s5")->engine, kDefaultShardEngine) << "no settings stored: the built-in default";

    setDefaultEngine(IndexEngine::Xapian);
    ASSERT_TRUE(admin.createShard({ "s6", "n0", {}, 0, 0, IndexEngine::Fts5 }, m_actor));
    ASSERT_TRUE(admin.createShard({ "s7", "n0" }, m_actor));
    auto applied = admin.migrations().applyPlan(creating({ { "s8", "n0" } }), m_actor);
    ASSERT_TRUE(applied) << applied.error().describe();

    const MapSnapshot after = map();
    EXPECT_EQ(after.shard("s6")->engine, IndexEngine::Fts5) << "named by its creator";
    EXPECT_EQ(after.shard("s7")->engine, IndexEngine::Xapian) << "the setting's";
    EXPECT_EQ(after.shard("s8")->engine, IndexEngine::Xapian) << "an operation's new shard: the setting's";
    // The node made each one with the engine the map lists.
    const auto engines = enginesOn(0);
    EXPECT_EQ(engines.at("s6"), "fts5");
    EXPECT_EQ(engines.at("s7"), "xapian");
    EXPECT_EQ(engines.at("s8"), "xapian");
}

TEST_F(ShardCreationTest, AShardTheNodeHadBeforeIsListedWithTheEngineItHas)
{
    ASSERT_TRUE(node(0)->createShard("s9", {}, IndexEngine::Fts5));
    setDefaultEngine(IndexEngine::Xapian);
    auto created = FleetAdmin(*m_store, m_pool).createShard({ "s9", "n0" }, m_actor);
    ASSERT_TRUE(created) << created.error().describe();
    EXPECT_EQ(map().shard("s9")->engine, IndexEngine::Fts5) << "the map says what the shard is, not what was asked";
}

TEST(NewShardEngine, EmptyNamesNoneAndAnUnknownNameIsRefused)
{
    EXPECT_EQ(*parseNewShardEngine(""), std::nullopt);
    EXPECT_EQ(*parseNewShardEngine("xapian"), IndexEngine::Xapian);
    EXPECT_EQ(*parseNewShardEngine("fts5"), IndexEngine::Fts5);
    const auto refused = parseNewShardEngine("Xapian");
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ErrorCode::InvalidArgument);
    EXPECT_EQ(refused.error().message, "unknown index engine 'Xapian' (the engines are fts5, xapian)");
}

TEST(DefaultEngineSetting, IsReadByNameAndAnUnknownOneIsRefused)
{
    auto read = readMigrationSettings(R"({"default_engine":"xapian"})");
    ASSERT_TRUE(read) << read.error().describe();
    EXPECT_EQ(read->defaultEngine, IndexEngine::Xapian);
    EXPECT_EQ(readMigrationSettings("{}")->defaultEngine, kDefaultShardEngine);
    for (const char* bad : { R"({"default_engine":"lucene"})", R"({"default_engine":5})" }) {
        const auto refused = readMigrationSettings(bad);
        ASSERT_FALSE(refused) << bad;
        EXPECT_EQ(refused.error().code, ErrorCode::InvalidArgument) << bad;
        EXPECT_NE(refused.error().message.find("default_engine"), std::string::npos) << refused.error().message;
    }
}

} // namespace

// Issue 31: a shard made from a template is made with its index settings, and its record names
// the template and version.
TEST_F(ShardCreationTest, AShardOfATemplateIsMadeWithItsSettingsAndItsRecordNamesTheTemplate)
{
    NewShard shard("s9", "n0");
    shard.index = defaultIndexSettings();
    shard.index->tokenizer = Tokenizer::Porter;
    shard.index->fields[0].weight = 4.0;
    shard.templateName = "stemmed";
    shard.templateVersion = 2;
    ShardCreation creation(m_pool);
    auto record = creation.onNode(map(), shard);
    ASSERT_TRUE(record) << record.error().describe();
    EXPECT_EQ(record->templateName, "stemmed");
    EXPECT_EQ(record->templateVersion, 2u);
    const auto shards = shardsOn(0);
    ASSERT_EQ(shards.size(), 2u);
    auto made = indexSettingsOf(shards[1]);
    ASSERT_TRUE(made) << made.error().describe();
    EXPECT_EQ(*made, *shard.index);
    // Asked again (a create whose map step was lost): the node's shard has those settings, taken as made.
    ShardCreation again(m_pool);
    EXPECT_TRUE(again.onNode(map(), shard));
}

TEST_F(ShardCreationTest, AShardTheNodeHasWithOtherSettingsIsRefusedAndLeftThere)
{
    ASSERT_TRUE(node(0)->createShard("s9", {}));
    NewShard shard("s9", "n0");
    shard.index = defaultIndexSettings();
    shard.index->tokenizer = Tokenizer::Porter;
    ShardCreation creation(m_pool);
    auto refused = creation.onNode(map(), shard);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ErrorCode::FailedPrecondition);
    EXPECT_NE(refused.error().message.find("node n0 has it with other index settings than shard s9 asks for"),
        std::string::npos)
        << refused.error().message;
    EXPECT_EQ(creation.takeBack(refused.error(), *m_store).message, refused.error().message);
    EXPECT_EQ(shardIdsOn(0), (std::vector<std::string> { "s0", "s9" })) << "not this creation's to drop";
}

// A plan's new shard takes the index settings of the shard its spaces come from (a split's
// subject), so splitting a stemmed shard makes a stemmed shard.
TEST_F(ShardCreationTest, APlansNewShardIsMadeWithTheSettingsOfTheShardItSplits)
{
    NewShard stemmed("sp", "n0");
    stemmed.index = defaultIndexSettings();
    stemmed.index->tokenizer = Tokenizer::Porter;
    stemmed.index->fields[1].weight = 3.0;
    ASSERT_TRUE(FleetAdmin(*m_store, m_pool).createShard(stemmed, m_actor));
    Plan plan = creating({ { "s9", "n0" } });
    plan.kind = "split";
    plan.subject = "sp";
    auto applied = MigrationRequests(*m_store, m_pool).applyPlan(plan, m_actor);
    ASSERT_TRUE(applied) << applied.error().describe();
    for (const ShardSummary& shard : shardsOn(0)) {
        if (shard.id != "s9")
            continue;
        auto made = indexSettingsOf(shard);
        ASSERT_TRUE(made) << made.error().describe();
        EXPECT_EQ(*made, *stemmed.index);
        return;
    }
    ADD_FAILURE() << "no s9 on n0";
}
