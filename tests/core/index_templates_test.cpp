// Index templates in the shard map (issue 31): versions created by compare-and-set with their
// audit, read back by the map and by applyCommits, named NAME[:VERSION], compared by one diff.
#include "core/map/index_templates.h"
#include "core/map/map_commits.h"
#include "core/map/map_editor.h"
#include "tests/support/test_dir.h"

#include <gtest/gtest.h>

using namespace shardmap::core;
using shardmap::testing::TempDir;

namespace {

class IndexTemplatesTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        auto store = openStore("sqlite:" + m_dir.file("map.db"), true);
        ASSERT_TRUE(store) << store.error().describe();
        m_store = std::move(*store);
        m_editor = std::make_unique<MapEditor>(*m_store);
    }

    static IndexSettings stemmed()
    {
        IndexSettings settings = defaultIndexSettings();
        settings.tokenizer = Tokenizer::Porter;
        settings.fields[0].weight = 3.0;
        return settings;
    }

    MapSnapshot map()
    {
        auto decoded = MapSnapshot::decode(*m_store->snapshot());
        EXPECT_TRUE(decoded) << decoded.error().describe();
        return decoded ? std::move(*decoded) : MapSnapshot {};
    }

    TempDir m_dir;
    std::unique_ptr<MetadataStore> m_store;
    std::unique_ptr<MapEditor> m_editor;
    Actor m_actor { "alice", "stemming for the docs site" };
};

} // namespace

TEST_F(IndexTemplatesTest, VersionsAreCreatedOneAfterAnotherWithTheirAudit)
{
    auto first = m_editor->createTemplate("stemmed", stemmed(), "English stemming", m_actor);
    ASSERT_TRUE(first) << first.error().describe();
    EXPECT_EQ(first->version, 1u);
    EXPECT_EQ(first->createdBy, "alice");
    IndexSettings heavier = stemmed();
    heavier.fields[1].weight = 2.0;
    auto second = m_editor->createTemplate("stemmed", heavier, "", m_actor);
    ASSERT_TRUE(second) << second.error().describe();
    EXPECT_EQ(second->version, 2u);

    const MapSnapshot snapshot = map();
    ASSERT_EQ(snapshot.templates.size(), 2u);
    auto newest = findTemplate(snapshot, { "stemmed", 0 });
    ASSERT_TRUE(newest);
    EXPECT_EQ(newest->version, 2u);
    EXPECT_EQ(newest->settings, heavier);
    auto older = findTemplate(snapshot, { "stemmed", 1 });
    ASSERT_TRUE(older);
    EXPECT_EQ(older->settings, stemmed());
    EXPECT_EQ(older->description, "English stemming");
    const auto all = templatesOf(snapshot);
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all.front().name, "default");

    auto history = m_store->history(0, snapshot.revision, 0);
    ASSERT_TRUE(history);
    ASSERT_EQ(history->size(), 2u);
    EXPECT_EQ(history->back().action, "create-template");
    EXPECT_EQ(history->back().actor, "alice");
    EXPECT_EQ(history->back().reason, "stemming for the docs site");

    auto diff = diffRevisions(*m_store, 0, snapshot.revision);
    ASSERT_TRUE(diff);
    EXPECT_EQ(diff->templatesAdded, (std::vector<std::string> { "stemmed:1", "stemmed:2" }));
}

TEST_F(IndexTemplatesTest, BadTemplatesAreRefusedWithTheReasonAndNothingChanges)
{
    auto named = m_editor->createTemplate("Bad Name", stemmed(), "", m_actor);
    ASSERT_FALSE(named);
    EXPECT_NE(named.error().message.find("must be 1-64 characters"), std::string::npos);
    auto builtIn = m_editor->createTemplate("default", stemmed(), "", m_actor);
    ASSERT_FALSE(builtIn);
    EXPECT_NE(builtIn.error().message.find("built-in"), std::string::npos);
    IndexSettings invalid = stemmed();
    invalid.fields.push_back({ "title", true, 1.0 });
    auto duplicate = m_editor->createTemplate("dup", invalid, "", m_actor);
    ASSERT_FALSE(duplicate);
    EXPECT_NE(duplicate.error().message.find("field title is named twice"), std::string::npos);
    ASSERT_TRUE(m_editor->createTemplate("stemmed", stemmed(), "", m_actor));
    auto same = m_editor->createTemplate("stemmed", stemmed(), "", m_actor);
    ASSERT_FALSE(same);
    EXPECT_NE(same.error().message.find("has these settings already"), std::string::npos);
    EXPECT_EQ(map().templates.size(), 1u);
    auto missing = findTemplate(map(), { "stemmed", 7 });
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, ErrorCode::NotFound);
    EXPECT_NE(missing.error().message.find("its newest is 1"), std::string::npos);
    EXPECT_FALSE(findTemplate(map(), { "nothing", 0 }));
}

TEST_F(IndexTemplatesTest, TwoAdministratorsCreatingTheSameVersionConflict)
{
    // Another editor committed version 1 after this one read the map: the create-only commit of
    // the same key is refused rather than overwriting it.
    IndexTemplateRecord theirs { "stemmed", 1, defaultIndexSettings(), "", "bob", 1 };
    ASSERT_TRUE(m_store->commit({ { { keys::indexTemplate("stemmed", 1), encode(theirs), 0 } }, std::nullopt,
        std::nullopt, "bob", "create-template", "" }));
    auto again = m_store->commit({ { { keys::indexTemplate("stemmed", 1), encode(theirs), 0 } }, std::nullopt,
        std::nullopt, "alice", "create-template", "" });
    ASSERT_FALSE(again);
    EXPECT_EQ(again.error().code, ErrorCode::Conflict);
    // The editor reads afresh: its version is the next one.
    auto created = m_editor->createTemplate("stemmed", stemmed(), "", m_actor);
    ASSERT_TRUE(created) << created.error().describe();
    EXPECT_EQ(created->version, 2u);
}

TEST_F(IndexTemplatesTest, ShardRecordsNameTheirTemplateAndOldRecordsReadAsTheDefault)
{
    ShardRecord shard { "s1", "n1", ShardState::Active, 0, 0 };
    EXPECT_EQ(templateOf(shard).name, "default");
    EXPECT_EQ(templateOf(shard).version, 1u);
    shard.templateName = "stemmed";
    shard.templateVersion = 2;
    auto back = decodeShard(encode(shard));
    ASSERT_TRUE(back);
    EXPECT_EQ(back->templateName, "stemmed");
    EXPECT_EQ(back->templateVersion, 2u);
    auto old = decodeShard(R"({"id":"s0","node":"n0","state":"active"})");
    ASSERT_TRUE(old) << old.error().describe();
    EXPECT_EQ(templateOf(*old).name, "default");
    EXPECT_EQ(templateOf(*old).version, 1u);
}

TEST_F(IndexTemplatesTest, ApplyingCommitsFollowsTemplatesAsAFreshSnapshotDoes)
{
    const MapSnapshot before = map();
    ASSERT_TRUE(m_editor->createTemplate("stemmed", stemmed(), "", m_actor));
    auto commits = m_store->history(before.revision, 0, 0);
    ASSERT_TRUE(commits);
    auto applied = applyCommits(before, *commits);
    ASSERT_TRUE(applied) << applied.error().describe();
    ASSERT_EQ(applied->templates.size(), 1u);
    EXPECT_EQ(applied->templates.begin()->second.value, map().templates.begin()->second.value);
}

TEST(IndexTemplateNames, RefsAndTheDiffSaySoInWords)
{
    auto ref = parseTemplateRef("stemmed:3");
    ASSERT_TRUE(ref);
    EXPECT_EQ(ref->name, "stemmed");
    EXPECT_EQ(ref->version, 3u);
    EXPECT_EQ(parseTemplateRef("stemmed")->version, 0u);
    EXPECT_FALSE(parseTemplateRef("stemmed:x"));
    EXPECT_FALSE(parseTemplateRef("stemmed:0"));
    EXPECT_FALSE(parseTemplateRef(":1"));

    IndexSettings to = defaultIndexSettings();
    to.fields.erase(to.fields.begin() + 2); // tags
    to.fields[0].weight = 5.0;
    to.fields.push_back({ "raw", false, 1.0 });
    to.tokenizer = Tokenizer::Porter;
    to.prefixes = {};
    const auto lines = diffIndexSettings(defaultIndexSettings(), to);
    ASSERT_EQ(lines.size(), 5u);
    EXPECT_EQ(lines[0], "field title weight 1 -> 5");
    EXPECT_EQ(lines[1], "field raw added (stored only)");
    EXPECT_EQ(lines[2],
        "field tags removed: documents keep its values, which are searched as other text (no longer by tags:term)");
    EXPECT_EQ(lines[3], "tokenizer unicode61 (remove_diacritics 2) -> porter (remove_diacritics 2)");
    EXPECT_EQ(lines[4], "prefix indexes 2 3 -> none");
    EXPECT_TRUE(diffIndexSettings(to, to).empty());
}
