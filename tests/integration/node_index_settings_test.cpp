// CreateShard with index settings (issue 31) against a real shardmap-node process: the settings'
// JSON makes the shard's index and comes back in ShardInfo and ListShards; bad JSON, invalid
// settings, fields that disagree with them and trigram on xapian are refused with the reason and
// create nothing; a node client's createShard passes the settings.
#include "core/client/node_client.h"
#include "core/util/index_settings.h"
#include "node_test_helpers.h"

#include <filesystem>

using namespace shardmap;
using namespace shardmap::testing;

namespace {

core::IndexSettings porterSettings()
{
    core::IndexSettings settings = core::defaultIndexSettings();
    settings.fields = { { "title", true, 2.0 }, { "body", true, 1.0 }, { "notes", false, 1.0 } };
    settings.tokenizer = core::Tokenizer::Porter;
    return settings;
}

class NodeIndexSettingsTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_node = NodeProcess::start(m_dir.file("data"), {});
        ASSERT_TRUE(m_node);
    }

    v1::Node::Stub& stub() { return m_node->stub(); }

    grpc::Status create(const std::string& shard, const std::string& json, const std::vector<std::string>& fields = {},
        const std::string& engine = {}, v1::ShardInfo* out = nullptr)
    {
        v1::CreateShardRequest request;
        request.set_shard_id(shard);
        request.set_index_settings_json(json);
        request.set_engine(engine);
        for (const std::string& field : fields)
            request.add_fields(field);
        v1::ShardInfo info;
        return stub().CreateShard(contextWithDeadline().get(), request, out ? out : &info);
    }

    // The refusal of a CreateShard that must make nothing.
    void expectRefused(const grpc::Status& status, const std::string& message, const std::string& shard)
    {
        EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
        EXPECT_EQ(status.error_message(), message);
        EXPECT_FALSE(std::filesystem::exists(m_dir.file("data/shards/" + shard + ".db")));
        v1::ListShardsResponse list;
        ASSERT_TRUE(stub().ListShards(contextWithDeadline().get(), {}, &list).ok());
        for (const auto& listed : list.shards())
            EXPECT_NE(listed.shard_id(), shard);
    }

    TempDir m_dir;
    std::unique_ptr<NodeProcess> m_node;
};

} // namespace

TEST_F(NodeIndexSettingsTest, ASettingsJsonMakesTheIndexAndIsReportedInShardInfoAndListShards)
{
    const std::string json = core::encodeIndexSettings(porterSettings());
    v1::ShardInfo info;
    ASSERT_TRUE(create("p1", json, {}, "xapian", &info).ok());
    EXPECT_EQ(info.index_settings_json(), json);
    EXPECT_EQ(std::vector<std::string>(info.fields().begin(), info.fields().end()),
        (std::vector<std::string> { "title", "body", "notes" }));
    v1::ListShardsResponse list;
    ASSERT_TRUE(stub().ListShards(contextWithDeadline().get(), {}, &list).ok());
    ASSERT_EQ(list.shards_size(), 1);
    EXPECT_EQ(list.shards(0).index_settings_json(), json);

    ASSERT_TRUE(setOwner(stub(), "p1", "acme", 1).ok());
    v1::BulkWriteResponse written;
    auto doc = makeDoc("acme", "d1", 1, "the dog runs");
    (*doc.mutable_fields())["notes"] = "hiddenword";
    ASSERT_TRUE(bulkWrite(stub(), "p1", { doc }, 1, &written).ok());
    v1::SearchResponse result;
    ASSERT_TRUE(search(stub(), "p1", { "acme" }, "running", &result).ok());
    ASSERT_EQ(result.hits_size(), 1) << "porter: running finds runs";
    ASSERT_TRUE(search(stub(), "p1", { "acme" }, "hiddenword", &result).ok());
    EXPECT_EQ(result.hits_size(), 0) << "a stored-only field is not searched";
    const auto named = search(stub(), "p1", { "acme" }, "notes:hiddenword", &result);
    EXPECT_EQ(named.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(named.error_message().find("stored only"), std::string::npos) << named.error_message();
}

TEST_F(NodeIndexSettingsTest, FieldsAloneMakeTodaysIndexOverThemAndSaySo)
{
    v1::ShardInfo info;
    ASSERT_TRUE(create("f1", "", { "name", "city" }, "", &info).ok());
    core::IndexSettings expected = core::defaultIndexSettings();
    expected.fields = { { "name", true, 1.0 }, { "city", true, 1.0 } };
    EXPECT_EQ(info.index_settings_json(), core::encodeIndexSettings(expected));
    ASSERT_TRUE(create("f2", "", {}, "", &info).ok());
    EXPECT_EQ(info.index_settings_json(), core::encodeIndexSettings(core::defaultIndexSettings()));
    // The same fields in both are not a disagreement.
    ASSERT_TRUE(create("f3", core::encodeIndexSettings(expected), { "name", "city" }, "", &info).ok());
}

TEST_F(NodeIndexSettingsTest, BadJsonIsRefusedAndMakesNothing)
{
    const auto status = create("b1", "{\"fields\": [");
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(status.error_message().find("index settings"), std::string::npos) << status.error_message();
    expectRefused(status, status.error_message(), "b1");
}

TEST_F(NodeIndexSettingsTest, InvalidSettingsAreRefusedWithValidationsSentence)
{
    core::IndexSettings bad = core::defaultIndexSettings();
    bad.fields.push_back({ "title", true, 1.0 });
    bad.fields.push_back({ "heavy", true, 500.0 });
    // encodeIndexSettings writes any settings; the node's decode checks them.
    const std::string json = core::encodeIndexSettings(bad);
    expectRefused(create("i1", json), core::validateIndexSettings(bad).error().message, "i1");
}

TEST_F(NodeIndexSettingsTest, FieldsThatDisagreeWithTheSettingsAreRefused)
{
    expectRefused(create("d1", core::encodeIndexSettings(porterSettings()), { "title", "body" }),
        "the request names the fields title, body and index settings with the fields title, body, notes; name them "
        "once, in the index settings",
        "d1");
}

TEST_F(NodeIndexSettingsTest, TrigramIsRefusedOnXapianAndMadeOnFts5)
{
    core::IndexSettings trigram = core::defaultIndexSettings();
    trigram.tokenizer = core::Tokenizer::Trigram;
    trigram.prefixes.clear();
    const std::string json = core::encodeIndexSettings(trigram);
    expectRefused(create("t1", json, {}, "xapian"),
        "trigram needs the fts5 engine: the xapian engine indexes words, not every three characters", "t1");
    ASSERT_TRUE(create("t2", json, {}, "fts5").ok());
    ASSERT_TRUE(setOwner(stub(), "t2", "acme", 1).ok());
    v1::BulkWriteResponse written;
    ASSERT_TRUE(bulkWrite(stub(), "t2", { makeDoc("acme", "d1", 1, "the shardmap console") }, 1, &written).ok());
    v1::SearchResponse result;
    ASSERT_TRUE(search(stub(), "t2", { "acme" }, "ardma", &result).ok());
    EXPECT_EQ(result.hits_size(), 1);
}

TEST_F(NodeIndexSettingsTest, TheNodeClientPassesTheSettingsAndReadsThemBack)
{
    core::NodeClientPool pool;
    auto client = pool.get(m_node->address());
    ASSERT_TRUE(client) << client.error().describe();
    auto created = (*client)->createShard("c1", {}, core::IndexEngine::Fts5, porterSettings());
    ASSERT_TRUE(created) << created.error().describe();
    auto settings = core::indexSettingsOf(*created);
    ASSERT_TRUE(settings) << settings.error().describe();
    EXPECT_EQ(*settings, porterSettings());
    auto plain = (*client)->createShard("c2", { "name" });
    ASSERT_TRUE(plain) << plain.error().describe();
    core::ShardSummary older = *plain;
    older.indexSettingsJson.clear();
    auto assumed = core::indexSettingsOf(older);
    ASSERT_TRUE(assumed);
    EXPECT_EQ(core::encodeIndexSettings(*assumed), plain->indexSettingsJson)
        << "a node that does not say has today's index over its fields";
}
